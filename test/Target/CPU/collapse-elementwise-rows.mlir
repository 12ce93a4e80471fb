// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-loop-form-kernels,mlc-cpu-collapse-elementwise-rows))' | FileCheck %s

// An elementwise kernel over 28-column rows iterates rows and columns as
// one loop of 784; the collapsed op is the kernel's root.
// CHECK-LABEL: func.func @short_rows
// CHECK: mlc_loop.kernel
// CHECK: tensor.collapse_shape {{.*}} into tensor<8x784xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}}mlc_loop.root
// CHECK: tensor.expand_shape
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @short_rows(%a: tensor<8x28x28xf32>, %b: tensor<8x28x28xf32>, %c: tensor<8x28x28xf32>) -> tensor<8x28x28xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a, %b : tensor<8x28x28xf32>, tensor<8x28x28xf32>) outs(%c : tensor<8x28x28xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x28x28xf32>
  return %r : tensor<8x28x28xf32>
}

// -----

// A slice of a larger tensor, seen through the kernel's argument, is not
// collapsed (its collapsed view would need a copy).
// CHECK-LABEL: func.func @slice_operand
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
#id2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @slice_operand(%big: tensor<8x28x32xf32>, %c: tensor<8x28x28xf32>) -> tensor<8x28x28xf32> {
  %a = tensor.extract_slice %big[0, 0, 0] [8, 28, 28] [1, 1, 1] : tensor<8x28x32xf32> to tensor<8x28x28xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<8x28x28xf32>) outs(%c : tensor<8x28x28xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  } -> tensor<8x28x28xf32>
  return %r : tensor<8x28x28xf32>
}
