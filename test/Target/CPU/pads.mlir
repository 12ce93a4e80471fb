// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{parallel=true}))' | FileCheck %s

// A zero pad becomes fills of the padded tensor's border (rows above and
// below, then the columns left and right of the interior rows) and a copy
// of the source into its interior, split into chunks for threads; every
// slice goes back in place.
// CHECK-LABEL: func.func @pad
// CHECK-NOT: tensor.pad
// CHECK: linalg.fill {mlc_loop.pad_fill} {{.*}} -> tensor<1x16x1x58xf32>
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 0, 0] [1, 16, 1, 58]
// CHECK: linalg.fill {mlc_loop.pad_fill} {{.*}} -> tensor<1x16x1x58xf32>
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 57, 0] [1, 16, 1, 58]
// CHECK: linalg.fill {mlc_loop.pad_fill} {{.*}} -> tensor<1x16x56x1xf32>
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 1, 0] [1, 16, 56, 1]
// CHECK: linalg.fill {mlc_loop.pad_fill} {{.*}} -> tensor<1x16x56x1xf32>
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 1, 57] [1, 16, 56, 1]
// CHECK: %[[INTERIOR:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 16, 56, 56] [1, 1, 1, 1]
// CHECK: %[[COPY:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[INTERIOR]]) -> (tensor<1x16x56x56xf32>)
// CHECK: linalg.copy
// CHECK: tensor.insert_slice %[[COPY]] into %{{.*}}[0, 0, 1, 1] [1, 16, 56, 56] [1, 1, 1, 1]
func.func @pad(%x: tensor<1x16x56x56xf32>) -> tensor<1x16x58x58xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x16x56x56xf32> to tensor<1x16x58x58xf32>
  return %p : tensor<1x16x58x58xf32>
}
