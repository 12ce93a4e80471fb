//===- WindowSchedules.cpp - Register tiles of sliding windows ------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "WindowSchedules.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

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
