//===- WindowSchedules.cpp - Register tiles of sliding windows ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "WindowSchedules.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"

#include "mlc/Target/CPU/TargetInfo.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlc::target;

namespace {
/// The loops of `op`'s output rows and columns: the last two dims of its
/// result, when both are loops.
std::optional<std::pair<int64_t, int64_t>>
getRowAndColumnLoops(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (map.getNumResults() < 2)
    return std::nullopt;
  auto row = dyn_cast<AffineDimExpr>(map.getResult(map.getNumResults() - 2));
  auto column = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!row || !column)
    return std::nullopt;
  return std::make_pair<int64_t, int64_t>(row.getPosition(),
                                          column.getPosition());
}
} // namespace

bool mlc::target::isWindowOp(Operation *op) {
  return isa<linalg::DepthwiseConv2DNchwChwOp, linalg::DepthwiseConv2DNhwcHwcOp,
             linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op);
}

mlc::loop::ScheduleAttr
mlc::target::makeWindowSchedule(linalg::LinalgOp op, const WindowTile &tile) {
  auto loops = getRowAndColumnLoops(op);
  if (!loops)
    return {};
  int64_t numLoops = op.getNumLoops();
  SmallVector<int64_t> registers(numLoops, 1), vectors(numLoops, 0);
  registers[loops->first] = tile.rows;
  registers[loops->second] = tile.columns;
  vectors[loops->second] = tile.columns;
  return loop::ScheduleAttr::get(op.getContext(), numLoops, registers, vectors,
                                 {}, {});
}

std::optional<WindowTile> mlc::target::getWindowTile(linalg::LinalgOp op) {
  return getWindowTile(op, op->getAttrOfType<loop::ScheduleAttr>(
                               loop::LoopDialect::getScheduleAttrName()));
}

std::optional<WindowTile>
mlc::target::getWindowTile(linalg::LinalgOp op, loop::ScheduleAttr schedule) {
  auto loops = getRowAndColumnLoops(op);
  if (!schedule || !loops || schedule.getNumLevels() != 1 ||
      schedule.getNumLoops() != op.getNumLoops())
    return std::nullopt;
  ArrayRef<int64_t> registers = schedule.getTileLevel(0);
  WindowTile tile{std::max<int64_t>(1, registers[loops->first]),
                  std::max<int64_t>(1, registers[loops->second])};
  return tile;
}

void mlc::target::interchangeWindowLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                            int64_t nTile) {
  // The strategy's register tile, when it decided one.
  int64_t windowRows = kWindowRows;
  if (std::optional<WindowTile> tile =
          getWindowTile(op)) {
    nTile = tile->columns;
    windowRows = tile->rows;
  }
  // Batch and map sizes may be known only at run time: the tile is the
  // same, its last rows and columns peeled off by the tiling.
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      !llvm::all_of(op->getOperandTypes(), [](Type t) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        return tensor && tensor.getElementType().isF32();
      }))
    return;
  AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!resultMap.isProjectedPermutation())
    return;
  SmallVector<unsigned> order;
  for (AffineExpr e : resultMap.getResults().drop_back())
    order.push_back(cast<AffineDimExpr>(e).getPosition());
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::reduction)
      order.push_back(d);
  order.push_back(
      cast<AffineDimExpr>(resultMap.getResults().back()).getPosition());
  if (order.size() != op.getNumLoops())
    return;
  // Register tiles need unit column strides: a strided row is not a vector
  // load (splitStridedWindows has made most windows so).
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  bool unitStrides =
      strides && !strides.empty() &&
      strides.getValues<int64_t>()[strides.getNumElements() - 1] == 1;
  bool unitRowStrides =
      unitStrides && llvm::all_of(strides.getValues<int64_t>(),
                                  [](int64_t s) { return s == 1; });
  // Read off `op` before generalizing erases it.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> generic =
      isa<linalg::GenericOp>(op.getOperation())
          ? FailureOr<linalg::GenericOp>(cast<linalg::GenericOp>(op))
          : linalg::generalizeNamedOp(rewriter, op);
  if (failed(generic))
    return;
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, *generic, order);
  if (failed(interchanged))
    return;
  if (!unitStrides)
    return;
  // Register tiles of kWindowRows output rows by nTile columns, with the
  // window loops inside the column loop: the tile's rows are independent
  // accumulators that stay in registers across the whole window (one row
  // alone is a chain of dependent adds, one per tap, and bound by their
  // latency).
  int64_t numOut = resultMap.getNumResults();
  int64_t numWindow = static_cast<int64_t>(order.size()) - numOut;
  SmallVector<int64_t> tiles(order.size(), 1);
  tiles.back() = nTile;
  SmallVector<int64_t> loopOrder = llvm::to_vector(
      llvm::seq<int64_t>(0, static_cast<int64_t>(order.size())));
  // Rows read with a stride do not vectorize as one block: such windows
  // keep one row per tile. (Tiles of several channels instead vectorize,
  // but with the row dim left between them their accumulators are not
  // hoisted out of the window loops, and they measured no faster.) Their
  // window loops still go inside the column loop, so that the one row's
  // accumulator stays in registers across the window: with the window
  // outside, each tap loaded and stored the output row (MobileNetV2's
  // stride-2 depthwise convolutions; one thread 4.50 -> 4.34 ms, Zen 5).
  if (numOut >= 2 && numWindow > 0) {
    int64_t rowDim = numOut - 2;
    int64_t rows = ranges[order[rowDim]];
    if (ShapedType::isDynamic(rows))
      rows = kNominalDynamicRange;
    tiles[rowDim] = unitRowStrides ? std::min(windowRows, rows) : 1;
    loopOrder.assign(llvm::to_vector(llvm::seq<int64_t>(0, numOut - 1)));
    loopOrder.push_back(static_cast<int64_t>(order.size()) - 1);
    for (int64_t d = numOut - 1; d < numOut - 1 + numWindow; ++d)
      loopOrder.push_back(d);
  }
  (*interchanged)->setAttr(loop::LoopDialect::RegisterTilesAttrHelper::getNameStr(),
                           rewriter.getDenseI64ArrayAttr(tiles));
  (*interchanged)->setAttr(loop::LoopDialect::LoopOrderAttrHelper::getNameStr(), rewriter.getDenseI64ArrayAttr(loopOrder));
}
