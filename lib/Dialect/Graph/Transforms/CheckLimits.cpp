//===- CheckLimits.cpp - Refuse tensors too large to compile or run -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

namespace mlc::graph {
#define GEN_PASS_DEF_GRAPHCHECKLIMITS
#include "mlc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlc::graph

using namespace mlir;

namespace {
/// Bytes of a statically shaped tensor of `type` (dynamic dims count as
/// 0), or nothing when the count overflows int64_t.
std::optional<int64_t> getTensorBytes(RankedTensorType type) {
  Type element = type.getElementType();
  int64_t bits = element.isIntOrIndexOrFloat()
                     ? static_cast<int64_t>(element.getIntOrFloatBitWidth())
                     : 64;
  if (auto complex = dyn_cast<ComplexType>(element))
    bits = 2 * complex.getElementType().getIntOrFloatBitWidth();
  int64_t bytes = std::max<int64_t>(1, (bits + 7) / 8);
  for (int64_t dim : type.getShape()) {
    if (ShapedType::isDynamic(dim))
      return 0;
    if (llvm::MulOverflow(bytes, dim, bytes))
      return std::nullopt;
  }
  return bytes;
}

/// `bytes` in the largest binary unit that keeps it at least 1.
std::string formatBytes(int64_t bytes) {
  static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB",
                                "EiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (unit == 0 || value == static_cast<int64_t>(value))
    os << static_cast<int64_t>(value) << " " << units[unit];
  else
    os << llvm::format("%.1f", value) << " " << units[unit];
  return text;
}

std::string describeLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return "node '" + name.getName().str() + "'";
  return "";
}

struct GraphCheckLimitsPass
    : mlc::graph::impl::GraphCheckLimitsBase<GraphCheckLimitsPass> {
  using Base::Base;

  /// Emits an error on `op` when `type` is over the limit.
  bool check(Operation *op, Type type, const Twine &what) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return true;
    std::optional<int64_t> bytes = getTensorBytes(tensor);
    if (bytes && *bytes <= maxTensorBytes)
      return true;
    std::string where = describeLocation(op->getLoc());
    InFlightDiagnostic diag = op->emitError();
    if (!where.empty())
      diag << where << " ";
    diag << "(" << op->getName() << "): " << what << " of shape ";
    llvm::interleave(tensor.getShape(), diag, "x");
    diag << " and " << tensor.getElementType() << " elements ";
    if (bytes)
      diag << "holds " << formatBytes(*bytes);
    else
      diag << "has more than 2^63 bytes";
    diag << ", over the limit of " << formatBytes(maxTensorBytes)
         << " (--max-tensor-bytes)";
    return false;
  }

  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            ok &= check(op, arg.getType(),
                        "argument " + Twine(arg.getArgNumber()));
      for (OpResult result : op->getResults())
        ok &= check(op, result.getType(),
                    op->getNumResults() == 1
                        ? Twine("its result")
                        : "result " + Twine(result.getResultNumber()));
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
