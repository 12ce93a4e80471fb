// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{vector-width=16}))' | FileCheck %s --check-prefix=W16
// RUN: mlc-opt %s --pass-pipeline='builtin.module(func.func(mlc-cpu-tile-and-vectorize{vector-width=8}))' | FileCheck %s --check-prefix=W8

// A matrix transpose (the result of a convolution computed as a matmul,
// mlc-loop-convolutions-as-matmuls) runs in square register tiles of
// one vector per row: one load per input row, the tile transposed in
// registers (16x16: four rounds of two-input shuffles), one store per
// output row. Other widths assemble each output row from scalar loads. Left to LLVM's loop vectorizer it read or wrote an element at a
// time: 0.3 ms for a 196 x 1024 result, more than its 1x1 convolution.
// W16-LABEL: func.func @transpose
// W16: scf.for
// W16: scf.for
// W16: %[[TILE:.*]] = vector.transfer_read %arg0{{.*}} : tensor<48x32xf32>, vector<16x16xf32>
// W16-COUNT-16: vector.extract %[[TILE]]
// W16: vector.shuffle {{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29] : vector<16xf32>, vector<16xf32>
// W16: vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<32x48xf32>
// W16-NOT: linalg.transpose
// W8-LABEL: func.func @transpose
// W8-COUNT-64: tensor.extract %arg0
// W8: vector.from_elements {{.*}} : vector<8x8xf32>
// W8: vector.transfer_write {{.*}} : vector<8x8xf32>, tensor<32x48xf32>
// W8-NOT: linalg.transpose
func.func @transpose(%x: tensor<48x32xf32>) -> tensor<32x48xf32> {
  %e = tensor.empty() : tensor<32x48xf32>
  %t = linalg.transpose ins(%x : tensor<48x32xf32>) outs(%e : tensor<32x48xf32>) permutation = [1, 0]
  return %t : tensor<32x48xf32>
}
