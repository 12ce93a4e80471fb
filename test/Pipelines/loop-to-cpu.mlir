// RUN: mlc-opt %s --mlc-loop-to-cpu-pipeline | FileCheck %s

// Loop-level IR (linalg on tensors) reaches the LLVM dialect: tensors are
// bufferized at function boundaries, the result goes into the destination
// argument, and only LLVM dialect ops remain.

// CHECK-LABEL: llvm.func @add
// CHECK: llvm.fadd
// CHECK: llvm.store
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.
// CHECK-NOT: memref.
func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>,
               %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.add ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>)
                  outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
