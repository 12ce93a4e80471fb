//===- PairMultiplyAdds.h - Register tiles of i16 pairs ---------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The register level of an integer contraction of pairs
// (mlc-cpu-integer-contractions): per row of the tile, its pair of the
// left-hand side broadcast as one i32 to every lane, multiplied with a
// row of the packed right-hand side ([columns, 2] i16) pair by pair and
// each pair's two products added into the row's i32 accumulators: x86's
// vpmaddwd (`llvm.x86.avx2.pmadd.wd`, `llvm.x86.avx512.pmaddw.d.512`) per
// vector of columns, or shuffles, sign extensions, multiplies and adds
// elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_CPU_PAIRMULTIPLYADDS_H
#define MLC_LIB_TARGET_CPU_PAIRMULTIPLYADDS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlc::target {

/// Replaces the register tile `op` (static shapes, a contraction of pairs
/// whose pair dim is `pairDim`, every dim but one row, one column and the
/// pair dims of extent one) by vector code reading its operands and
/// writing its accumulators with vector transfers; `lanes` i32 lanes per
/// `intrinsic` call (empty: generic vector code). Fails, changing nothing,
/// for a tile of another shape.
mlir::LogicalResult vectorizePairTile(mlir::RewriterBase &rewriter,
                                      mlir::linalg::LinalgOp op,
                                      unsigned pairDim, int64_t lanes,
                                      llvm::StringRef intrinsic);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_CPU_PAIRMULTIPLYADDS_H
