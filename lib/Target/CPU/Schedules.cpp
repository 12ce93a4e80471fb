//===- Schedules.cpp - Contraction schedules: print, read, override -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlc::target;

mlc::loop::ScheduleAttr mlc::target::toAttr(MLIRContext *ctx,
                                       const ContractionSchedule &schedule) {
  SmallVector<int64_t> tiles;
  llvm::append_range(tiles, schedule.parallelTiles);
  llvm::append_range(tiles, schedule.cacheTiles);
  llvm::append_range(tiles, schedule.registerTiles);
  SmallVector<int64_t> parallelDims;
  for (auto [d, size] : llvm::enumerate(schedule.parallelTiles))
    if (size > 0)
      parallelDims.push_back(d);
  // The order only when it is not the loops' own.
  ArrayRef<int64_t> order = schedule.loopOrder;
  if (llvm::equal(order, llvm::seq<int64_t>(0, order.size())))
    order = {};
  return loop::ScheduleAttr::get(ctx, schedule.registerTiles.size(), tiles,
                                 schedule.registerTiles, parallelDims, order);
}

FailureOr<ScheduleOverrides>
ScheduleOverrides::load(StringRef path, MLIRContext *ctx, Location loc) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return emitError(loc) << "cannot read the schedule file '" << path
                          << "': " << buffer.getError().message();
  ScheduleOverrides overrides;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (size_t index = 0; index < lines.size(); ++index) {
    StringRef line = lines[index].trim();
    if (line.empty() || line.starts_with("//"))
      continue;
    auto fail = [&](const Twine &what) {
      return emitError(loc) << path << ":" << index + 1 << ": " << what;
    };
    size_t close = line.find('"', 1);
    if (!line.starts_with("\"") || close == StringRef::npos)
      return fail("expected a quoted kernel name");
    StringRef name = line.slice(1, close);
    size_t at = line.find("#mlc_loop.schedule");
    if (at == StringRef::npos)
      return fail("expected a #mlc_loop.schedule<...> for '" + name + "'");
    std::string diagnostics;
    Attribute attr;
    {
      // The parser reports through the context's diagnostic handler;
      // collect its message for ours.
      ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
        diagnostics = diag.str();
        return success();
      });
      size_t consumed = 0;
      attr = parseAttribute(line.substr(at), ctx, Type(), &consumed);
      if (attr && consumed != line.size() - at)
        attr = {};
    }
    auto schedule = dyn_cast_or_null<loop::ScheduleAttr>(attr);
    if (!schedule)
      return fail("malformed schedule for '" + name + "'" +
                  (diagnostics.empty() ? "" : ": " + diagnostics));
    if (!overrides.table.try_emplace(name, schedule).second)
      return fail("kernel '" + name + "' is given twice");
  }
  return overrides;
}

LogicalResult mlc::target::applyOverride(linalg::LinalgOp op, StringRef name,
                                         mlc::loop::ScheduleAttr attr,
                                         ContractionSchedule &schedule) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t numLoops = ranges.size();
  auto fail = [&](const Twine &what) {
    return op->emitError() << "schedule for kernel '" << name << "': " << what;
  };
  if (attr.getNumLoops() != numLoops)
    return fail("it has " + Twine(attr.getNumLoops()) + " loops, the kernel " +
                Twine(numLoops));
  if (attr.getNumLevels() != 3)
    return fail("expected 3 tile levels (threads, cache, registers), got " +
                Twine(attr.getNumLevels()));
  ArrayRef<int64_t> threads = attr.getTileLevel(0), cache = attr.getTileLevel(1),
                    registers = attr.getTileLevel(2);
  int64_t registerElements = 1;
  for (int64_t d = 0; d < numLoops; ++d) {
    if (threads[d] > 0 && ranges[d] % threads[d] != 0)
      return fail("thread tile " + Twine(threads[d]) + " of loop " + Twine(d) +
                  " does not divide its " + Twine(ranges[d]) + " iterations");
    if (registers[d] < 1)
      return fail("register tile of loop " + Twine(d) + " must be at least 1");
    registerElements *= std::min(registers[d], ranges[d]);
  }
  if (registerElements > 4096)
    return fail("register tile of " + Twine(registerElements) +
                " elements is larger than 4096");
  schedule.parallelTiles.assign(threads.begin(), threads.end());
  schedule.cacheTiles.assign(cache.begin(), cache.end());
  schedule.registerTiles.assign(registers.begin(), registers.end());
  if (!attr.getLoopOrder().empty())
    schedule.loopOrder.assign(attr.getLoopOrder().begin(),
                              attr.getLoopOrder().end());
  else if (schedule.loopOrder.size() != static_cast<size_t>(numLoops))
    schedule.loopOrder = llvm::to_vector(llvm::seq<int64_t>(0, numLoops));
  return success();
}
