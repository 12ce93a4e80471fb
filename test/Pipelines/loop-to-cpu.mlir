// RUN: mlc-opt %s --mlc-loop-to-cpu-pipeline="mcpu=znver3" | FileCheck %s
// RUN: mlc-opt %s --mlc-loop-to-cpu-pipeline="mcpu=znver4" | FileCheck %s

// Loop-level IR (linalg on tensors) reaches the LLVM dialect with the model
// C ABI: the function takes (arena, inputs..., outputs...) as bare pointers
// and becomes internal; `add_run` unpacks the pointer arrays and calls it;
// `add_metadata` holds the signature as JSON. The loop nest is outlined into
// a private `noinline` kernel function named after the model. Only LLVM
// dialect ops remain.

// CHECK-LABEL: llvm.func internal @add_k0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: llvm.fadd
// CHECK: llvm.store
// CHECK-LABEL: llvm.func internal @add(%{{.*}}: !llvm.ptr {{.*}}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: mlc_loop.arena_size = 0
// CHECK: llvm.call @add_k0(
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.
// CHECK-NOT: memref.
// CHECK-LABEL: llvm.func @add_run(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK-COUNT-4: llvm.load
// CHECK: llvm.call @add(
// CHECK: llvm.mlir.global external constant @add_metadata
// CHECK-SAME: \22name\22:\22input_0\22,\22shape\22:[2,3]
func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>,
               %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.add ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>)
                  outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
