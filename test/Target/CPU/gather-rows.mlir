// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{vector-width=16}))' | FileCheck %s

// A gather of rows (ONNX Gather along an outer dim: a row index read from
// the indices, then the row's elements) runs one vector of the row per
// register tile: the index is read once per tile, outside the vector
// code, so the row is one contiguous load rather than a gather of 16
// elements (or LLVM's scalar loop: 0.10 ms for 2050 rows of 64 floats,
// 0.023 ms now). Outer dims of run-time size alike.
// CHECK-LABEL: func.func @gather_rows
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[INDEX:.*]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<1x1xi64>
// CHECK: arith.index_cast %[[INDEX]]
// CHECK: vector.transfer_read %arg0{{.*}} {in_bounds = [true]} : tensor<?x64xf32>, vector<16xf32>
// CHECK-NOT: vector.gather
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, tensor<?x?x64xf32>
#idx = affine_map<(d0, d1, d2) -> (d0, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @gather_rows(%table: tensor<?x64xf32>, %ids: tensor<?x?xi64>) -> tensor<?x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %ids, %c0 : tensor<?x?xi64>
  %s = tensor.dim %ids, %c1 : tensor<?x?xi64>
  %e = tensor.empty(%b, %s) : tensor<?x?x64xf32>
  %g = linalg.generic {indexing_maps = [#idx, #out], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<?x?xi64>) outs(%e : tensor<?x?x64xf32>) {
  ^bb0(%in: i64, %o: f32):
    %row = arith.index_cast %in : i64 to index
    %col = linalg.index 2 : index
    %v = tensor.extract %table[%row, %col] : tensor<?x64xf32>
    linalg.yield %v : f32
  } -> tensor<?x?x64xf32>
  return %g : tensor<?x?x64xf32>
}
