//===- WindowRegisterTiles.cpp - Windows and transposes in registers ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A sliding window's schedule is a register tile only: the CPU code
// generator rewrites the window itself (stride 2 split in registers, other
// strides split into column phases, loops reordered) before it marks the
// tile. Transposes of the two innermost dims are marked for their register
// tile, transposed in registers.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/Transforms/Epilogues.h"
#include "mlc/Target/CPU/Passes.h"

#include "AccumulatorInits.h"
#include "LoopNestStrategy.h"
#include "ScheduleTiling.h"
#include "Stride2WindowsInRegisters.h"
#include "WindowColumnPhases.h"
#include "WindowSchedules.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUWINDOWREGISTERTILES
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using namespace mlc;

void mlc::target::prepareWindowRegisterTiles(
    func::FuncOp func, const WindowTilingOptions &options) {
  IRRewriter rewriter(func.getContext());
  if (options.stride2Windows)
    lowerStride2Windows(rewriter, func, options.vectorWidth, options.parallel);
  splitStridedWindows(rewriter, func);
  for (linalg::LinalgOp op : collectWindowOps(func))
    interchangeWindowLoops(rewriter, op, options.columns);
  // Transposes of the two innermost dims (matrices; the column phases of
  // strided windows, WindowColumnPhases.h): register tiles of one vector per
  // output row, transposed in registers.
  // Gathers of rows: one vector of a row per tile, read contiguously.
  func.walk([&](linalg::LinalgOp op) {
    std::optional<SmallVector<int64_t>> tiles =
        getLoopNestRegisterTiles(op, options.vectorWidth);
    if (!tiles)
      return;
    // The strategy's register tile, when it decided one.
    if (loop::ScheduleAttr decided = loop::getDecidedSchedule(op);
        decided && decided.getNumLevels() == 2 &&
        decided.getNumLoops() == static_cast<int64_t>(tiles->size()))
      tiles = llvm::to_vector(decided.getTileLevel(1));
    int64_t rank = tiles->size();
    op->setAttr(loop::kRegisterTilesAttr,
                rewriter.getDenseI64ArrayAttr(*tiles));
    op->setAttr(loop::kLoopOrderAttr,
                rewriter.getDenseI64ArrayAttr(
                    llvm::to_vector(llvm::seq<int64_t>(0, rank))));
  });
  // Windows start their accumulators from their init too: their window
  // loops are register-level loops only.
  int64_t nextInit = 0;
  func.walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(loop::kRegisterTilesAttr))
      markAccumulatorInit(rewriter, op, nextInit++);
  });
  // Activations after depthwise convolutions run on each finished row.
  if (options.fuseEpilogues) {
    SmallVector<linalg::LinalgOp> windows;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(loop::kRegisterTilesAttr))
        windows.push_back(op);
    });
    for (linalg::LinalgOp op : windows)
      (void)loop::prepareEpilogue(rewriter, op);
  }
}

namespace {
struct CPUWindowRegisterTilesPass
    : mlc::target::impl::CPUWindowRegisterTilesBase<
          CPUWindowRegisterTilesPass> {
  using Base::Base;
  void runOnOperation() override {
    mlc::target::prepareWindowRegisterTiles(
        getOperation(), {vectorWidth, columns, parallel, stride2Windows,
                         fuseEpilogues});
  }
};
} // namespace
