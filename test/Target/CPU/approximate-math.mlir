// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-approximate-math))' | FileCheck %s

// erf, tanh and exp on f32 become polynomials (arith only, so loops over
// them vectorize); their fused multiply-adds are contractible mul + add, not
// llvm.fma (which is a libm call on targets without FMA). Other math ops
// and other types stay.
// CHECK-LABEL: func.func @activations
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK-NOT: math.fma
// CHECK: arith.mulf {{.*}} fastmath<contract> : vector<8xf32>
// CHECK: math.sqrt
// CHECK: math.exp {{.*}} : f64
func.func @activations(%x: vector<8xf32>, %y: f32, %z: f64) -> (vector<8xf32>, f32, f32, f64) {
  %0 = math.erf %x : vector<8xf32>
  %1 = math.tanh %y : f32
  %2 = math.sqrt %y : f32
  %3 = math.exp %z : f64
  return %0, %1, %2, %3 : vector<8xf32>, f32, f32, f64
}
