// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-loop-concat-in-place,canonicalize))' | FileCheck %s

// A fire module's concatenation: each part (a fill standing for the bias,
// then a threaded computation on the collapsed [1, c, h*w] view, expanded
// back) is computed in the destination's slice. The destination moves to
// right before the first part's producer, each insertion right after its
// part, which then inserts the slice into itself.
// CHECK-LABEL: func.func @fire
// CHECK: %[[DEST:.*]] = tensor.empty() : tensor<1x128x55x55xf32>
// CHECK: %[[FIRST:.*]] = tensor.extract_slice %[[DEST]][0, 0, 0, 0] [1, 64, 55, 55]
// CHECK: %[[FIRSTFLAT:.*]] = tensor.collapse_shape %[[FIRST]]
// CHECK: %[[BIAS:.*]] = linalg.fill {{.*}} outs(%[[FIRSTFLAT]] : tensor<1x64x3025xf32>)
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[BIAS]])
// CHECK: %[[INS1:.*]] = tensor.insert_slice %{{.*}} into %[[DEST]][0, 0, 0, 0] [1, 64, 55, 55]
// CHECK: %[[SECOND:.*]] = tensor.extract_slice %[[INS1]][0, 64, 0, 0] [1, 64, 55, 55]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[SECOND]] {{\[}}[0], [1], [2, 3]] : tensor<1x64x55x55xf32> into tensor<1x64x3025xf32>
// CHECK: linalg.fill {{.*}} outs(%[[FLAT]] : tensor<1x64x3025xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[INS1]][0, 64, 0, 0] [1, 64, 55, 55]
// CHECK-NOT: tensor.empty
func.func @fire(%x: tensor<1x64x3025xf32>) -> tensor<1x128x55x55xf32> {
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<1x64x55x55xf32>
  %f1 = linalg.fill ins(%one : f32) outs(%e1 : tensor<1x64x55x55xf32>) -> tensor<1x64x55x55xf32>
  %c1 = tensor.collapse_shape %f1 [[0], [1], [2, 3]] : tensor<1x64x55x55xf32> into tensor<1x64x3025xf32>
  %r1 = scf.forall (%i) = (0) to (64) step (16) shared_outs(%o = %c1) -> (tensor<1x64x3025xf32>) {
    %s = tensor.extract_slice %o[0, %i, 0] [1, 16, 3025] [1, 1, 1] : tensor<1x64x3025xf32> to tensor<1x16x3025xf32>
    %xs = tensor.extract_slice %x[0, %i, 0] [1, 16, 3025] [1, 1, 1] : tensor<1x64x3025xf32> to tensor<1x16x3025xf32>
    %a = linalg.add ins(%s, %xs : tensor<1x16x3025xf32>, tensor<1x16x3025xf32>) outs(%s : tensor<1x16x3025xf32>) -> tensor<1x16x3025xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %a into %o[0, %i, 0] [1, 16, 3025] [1, 1, 1] : tensor<1x16x3025xf32> into tensor<1x64x3025xf32>
    }
  }
  %p1 = tensor.expand_shape %r1 [[0], [1], [2, 3]] output_shape [1, 64, 55, 55] : tensor<1x64x3025xf32> into tensor<1x64x55x55xf32>
  %e2 = tensor.empty() : tensor<1x64x3025xf32>
  %f2 = linalg.fill ins(%one : f32) outs(%e2 : tensor<1x64x3025xf32>) -> tensor<1x64x3025xf32>
  %a2 = linalg.add ins(%f2, %x : tensor<1x64x3025xf32>, tensor<1x64x3025xf32>) outs(%f2 : tensor<1x64x3025xf32>) -> tensor<1x64x3025xf32>
  %p2 = tensor.expand_shape %a2 [[0], [1], [2, 3]] output_shape [1, 64, 55, 55] : tensor<1x64x3025xf32> into tensor<1x64x55x55xf32>
  %d = tensor.empty() : tensor<1x128x55x55xf32>
  %i1 = tensor.insert_slice %p1 into %d[0, 0, 0, 0] [1, 64, 55, 55] [1, 1, 1, 1] : tensor<1x64x55x55xf32> into tensor<1x128x55x55xf32>
  %i2 = tensor.insert_slice %p2 into %i1[0, 64, 0, 0] [1, 64, 55, 55] [1, 1, 1, 1] : tensor<1x64x55x55xf32> into tensor<1x128x55x55xf32>
  return %i2 : tensor<1x128x55x55xf32>
}

// -----

// A part that is not computed into an empty tensor of its own (a function
// argument) is inserted as before; the next part is computed in place.
// CHECK-LABEL: func.func @argument
// CHECK: %[[DEST:.*]] = tensor.empty() : tensor<1x8x4xf32>
// CHECK: %[[INS:.*]] = tensor.insert_slice %arg0 into %[[DEST]][0, 0, 0] [1, 4, 4]
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[INS]][0, 4, 0] [1, 4, 4]
// CHECK: linalg.fill {{.*}} outs(%[[SLICE]] : tensor<1x4x4xf32>)
// CHECK-NOT: tensor.empty
func.func @argument(%x: tensor<1x4x4xf32>) -> tensor<1x8x4xf32> {
  %one = arith.constant 1.0 : f32
  %d = tensor.empty() : tensor<1x8x4xf32>
  %i1 = tensor.insert_slice %x into %d[0, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<1x4x4xf32> into tensor<1x8x4xf32>
  %e = tensor.empty() : tensor<1x4x4xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %i2 = tensor.insert_slice %f into %i1[0, 4, 0] [1, 4, 4] [1, 1, 1] : tensor<1x4x4xf32> into tensor<1x8x4xf32>
  return %i2 : tensor<1x8x4xf32>
}
