//===- LoopDialect.cpp - mlc_loop dialect and schedule attribute ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlc::loop;

#include "mlc/Dialect/Loop/IR/LoopDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "mlc/Dialect/Loop/IR/LoopAttrs.cpp.inc"

void LoopDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mlc/Dialect/Loop/IR/LoopOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mlc/Dialect/Loop/IR/LoopAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//

namespace {
/// Parses `[a, b, ...]` (possibly empty) into `values`.
ParseResult parseIntList(AsmParser &parser, SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    return parser.parseInteger(values.emplace_back());
  });
}

void printIntList(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}
} // namespace

/// `<tile_sizes = [[...], ...], vector_sizes = [...], parallel_dims = [...]>`
Attribute ScheduleAttr::parse(AsmParser &parser, Type) {
  SmallVector<SmallVector<int64_t>> levels;
  SmallVector<int64_t> vectorSizes, parallelDims;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword("tile_sizes") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square,
          [&] { return parseIntList(parser, levels.emplace_back()); }) ||
      parser.parseComma() || parser.parseKeyword("vector_sizes") ||
      parser.parseEqual() || parseIntList(parser, vectorSizes) ||
      parser.parseComma() || parser.parseKeyword("parallel_dims") ||
      parser.parseEqual() || parseIntList(parser, parallelDims))
    return {};
  SmallVector<int64_t> loopOrder;
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("loop_order") || parser.parseEqual() ||
       parseIntList(parser, loopOrder)))
    return {};
  if (parser.parseGreater())
    return {};
  int64_t numLoops = levels.empty() ? vectorSizes.size() : levels[0].size();
  SmallVector<int64_t> flat;
  for (auto [i, level] : llvm::enumerate(levels)) {
    if (static_cast<int64_t>(level.size()) != numLoops) {
      parser.emitError(loc) << "tile level " << i << " has " << level.size()
                            << " sizes, expected " << numLoops;
      return {};
    }
    llvm::append_range(flat, level);
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    numLoops, flat, vectorSizes, parallelDims, loopOrder);
}

void ScheduleAttr::print(AsmPrinter &printer) const {
  printer << "<tile_sizes = [";
  for (int64_t level = 0, e = getNumLevels(); level < e; ++level) {
    if (level)
      printer << ", ";
    printIntList(printer, getTileLevel(level));
  }
  printer << "], vector_sizes = ";
  printIntList(printer, getVectorSizes());
  printer << ", parallel_dims = ";
  printIntList(printer, getParallelDims());
  if (!getLoopOrder().empty()) {
    printer << ", loop_order = ";
    printIntList(printer, getLoopOrder());
  }
  printer << '>';
}

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t numLoops,
                                   ArrayRef<int64_t> tileSizes,
                                   ArrayRef<int64_t> vectorSizes,
                                   ArrayRef<int64_t> parallelDims,
                                   ArrayRef<int64_t> loopOrder) {
  if (numLoops < 0 || (numLoops == 0 && !tileSizes.empty()) ||
      (numLoops > 0 && tileSizes.size() % numLoops != 0))
    return emitError() << "tile sizes do not form levels of " << numLoops
                       << " loops";
  if (llvm::any_of(tileSizes, [](int64_t s) { return s < 0; }))
    return emitError() << "tile sizes must be non-negative";
  if (!vectorSizes.empty() &&
      static_cast<int64_t>(vectorSizes.size()) != numLoops)
    return emitError() << "expected " << numLoops << " vector sizes, got "
                       << vectorSizes.size();
  if (llvm::any_of(vectorSizes, [](int64_t s) { return s < 0; }))
    return emitError() << "vector sizes must be non-negative";
  SmallVector<bool> seen(numLoops, false);
  for (int64_t d : parallelDims) {
    if (d < 0 || d >= numLoops)
      return emitError() << "parallel dim " << d << " is not a loop in [0, "
                         << numLoops << ")";
    if (seen[d])
      return emitError() << "parallel dim " << d << " is repeated";
    seen[d] = true;
  }
  if (!loopOrder.empty()) {
    SmallVector<bool> placed(numLoops, false);
    if (static_cast<int64_t>(loopOrder.size()) != numLoops ||
        llvm::any_of(loopOrder, [&](int64_t d) {
          if (d < 0 || d >= numLoops || placed[d])
            return true;
          placed[d] = true;
          return false;
        }))
      return emitError() << "loop order is not a permutation of the "
                         << numLoops << " loops";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

namespace {
constexpr llvm::StringLiteral kLayoutKinds[] = {"im2col", "matmul",
                                                "channels_last", "packed"};
} // namespace

/// `<kind[, panel = P][, align = A][, row_pad = R]>`
Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string kind;
  int64_t panel = 0, align = 0, rowPad = 0;
  if (parser.parseLess() || parser.parseKeywordOrString(&kind))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    int64_t *slot = llvm::StringSwitch<int64_t *>(key)
                        .Case("panel", &panel)
                        .Case("align", &align)
                        .Case("row_pad", &rowPad)
                        .Default(nullptr);
    if (!slot) {
      parser.emitError(keyLoc) << "unknown layout parameter '" << key
                               << "' (expected panel, align or row_pad)";
      return {};
    }
    if (parser.parseInteger(*slot))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    kind, panel, align, rowPad);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << '<' << getKind();
  if (getPanel())
    printer << ", panel = " << getPanel();
  if (getAlign())
    printer << ", align = " << getAlign();
  if (getRowPad())
    printer << ", row_pad = " << getRowPad();
  printer << '>';
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef kind, int64_t panel, int64_t align,
                                 int64_t rowPad) {
  if (!llvm::is_contained(kLayoutKinds, kind))
    return emitError() << "unknown layout '" << kind
                       << "' (expected im2col, matmul, channels_last or "
                          "packed)";
  if (panel < 0 || align < 0 || rowPad < 0)
    return emitError() << "layout parameters must be non-negative";
  if (kind == "packed" && panel == 0)
    return emitError() << "a packed layout needs a panel width";
  return success();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

LogicalResult LoopDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  Attribute value = attribute.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitOpError() << "'" << name << "' must be " << what;
  };
  if (name == SignatureAttrHelper::getNameStr() ||
      name == WeightsFileAttrHelper::getNameStr())
    return expect(isa<StringAttr>(value), "a string");
  if (name == ArenaSizeAttrHelper::getNameStr() ||
      name == WeightsSizeAttrHelper::getNameStr() ||
      name == WeightsHashAttrHelper::getNameStr() ||
      name == AccumulatorInitAttrHelper::getNameStr() ||
      name == AccumulatesOntoAttrHelper::getNameStr() ||
      name == StatusOffsetAttrHelper::getNameStr() ||
      name == BufferCacheOffsetAttrHelper::getNameStr() ||
      name == DimsArgumentAttrHelper::getNameStr())
    return expect(isa<IntegerAttr>(value), "an integer");
  if (name == CheckMessagesAttrHelper::getNameStr())
    return expect(isa<ArrayAttr>(value) &&
                      llvm::all_of(cast<ArrayAttr>(value),
                                   [](Attribute a) { return isa<StringAttr>(a); }),
                  "an array of strings");
  if (name == WeightsAttrHelper::getNameStr())
    return expect(isa<DenseResourceElementsAttr>(value) && isa<ModuleOp>(op),
                  "a dense_resource blob on the module");
  if (name == getScheduleAttrName())
    return expect(isa<ScheduleAttr>(value), "a #mlc_loop.schedule");
  if (name == getLayoutAttrName())
    return expect(isa<LayoutAttr>(value), "a #mlc_loop.layout");
  if (name == RegisterTilesAttrHelper::getNameStr() ||
      name == LoopOrderAttrHelper::getNameStr())
    return expect(isa<DenseI64ArrayAttr>(value), "an array<i64>");
  if (name == PeelAttrHelper::getNameStr() ||
      name == EpilogueAttrHelper::getNameStr() ||
      name == Im2colAttrHelper::getNameStr() ||
      name == PadFillAttrHelper::getNameStr() ||
      name == RootAttrHelper::getNameStr() ||
      name == StatusAttrHelper::getNameStr() ||
      name == CallerOwnedAttrHelper::getNameStr() ||
      name == GpuLauncherAttrHelper::getNameStr() ||
      name == GpuHostAccessAttrHelper::getNameStr() ||
      name == NpuLauncherAttrHelper::getNameStr() ||
      name == DequantizeAttrHelper::getNameStr() ||
      name == QuantizeAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value), "a unit attribute");
  return op->emitOpError() << "unknown attribute '" << name
                           << "' of the mlc_loop dialect";
}
