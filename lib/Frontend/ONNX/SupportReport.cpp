//===- SupportReport.cpp - What a model needs, without importing it ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `mlc-compile --check-support` and the command-line shape overrides.
//
//===----------------------------------------------------------------------===//

#include "mlc/Frontend/ONNX/Importer.h"

#include "ModelLoader.h"
#include "NodeImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace mlc::onnx_import;
using llvm::StringRef;

LogicalResult mlc::onnx_import::writeSupportReport(StringRef path,
                                                   MLIRContext *context,
                                                   llvm::raw_ostream &os) {
  onnx::ModelProto model;
  if (llvm::Error err = loadModelProto(path, model)) {
    emitError(UnknownLoc::get(context)) << llvm::toString(std::move(err));
    return failure();
  }
  Opsets opsets;
  int64_t &opset = opsets.onnx;
  os << "model: " << path << "\n";
  os << "producer: " << model.producer_name() << " " << model.producer_version()
     << "\n";
  os << "opsets:";
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    StringRef domain = id.domain();
    os << " " << (domain.empty() ? "ai.onnx" : domain) << "=" << id.version();
    if (domain.empty() || domain == "ai.onnx")
      opset = id.version();
    else if (domain == kContribDomain)
      opsets.contrib = id.version();
  }
  os << "\n";

  struct Use {
    int count = 0;
    std::string why;
  };
  std::map<std::string, Use> uses;
  const ConverterTable &table = getConverterTable();
  int64_t nodes = 0, nested = 0;
  // Every node, those of If/Loop/Scan bodies included.
  std::function<void(const onnx::GraphProto &, bool)> visit =
      [&](const onnx::GraphProto &graph, bool inSubgraph) {
        for (const onnx::NodeProto &node : graph.node()) {
          ++nodes;
          nested += inSubgraph;
          for (const onnx::AttributeProto &attr : node.attribute()) {
            if (attr.has_g())
              visit(attr.g(), true);
            for (const onnx::GraphProto &g : attr.graphs())
              visit(g, true);
          }
          Use &use = uses[getConverterKey(node)];
          if (use.count++ > 0)
            continue;
          if (opset < kMinOpset || opset > kMaxOpset)
            use.why = "opset " + std::to_string(opset) + " is outside " +
                      std::to_string(kMinOpset) + "-" +
                      std::to_string(kMaxOpset);
          else if (table.lookup(node, opsets, use.why))
            use.why.clear();
        }
      };
  visit(model.graph(), false);
  int unsupported = 0;
  os << "nodes: " << nodes << " (" << nested << " in subgraphs), op types: "
     << uses.size() << "\n";
  for (const auto &[op, use] : uses) {
    os << "  " << (use.why.empty() ? "ok          " : "UNSUPPORTED ") << op
       << " x" << use.count;
    if (!use.why.empty()) {
      os << ": " << use.why;
      ++unsupported;
    }
    os << "\n";
  }
  os << "importer: " << (uses.size() - unsupported) << " of " << uses.size()
     << " op types supported\n";
  return success(unsupported == 0);
}

static bool parseDim(StringRef text, int64_t &dim) {
  if (text == "?" || text == "-1") {
    dim = ShapedType::kDynamic;
    return true;
  }
  return !text.getAsInteger(10, dim) && dim >= 0;
}

LogicalResult mlc::onnx_import::parseShapeOverride(StringRef spec,
                                                   ImportOptions &options,
                                                   std::string &error) {
  auto [name, shape] = spec.rsplit('=');
  if (name.empty() || shape.empty() || spec.find('=') == StringRef::npos) {
    error = "expected NAME=D1xD2x..., got '" + spec.str() + "'";
    return failure();
  }
  llvm::SmallVector<int64_t> dims;
  llvm::SmallVector<StringRef> parts;
  shape.split(parts, 'x');
  for (StringRef part : parts) {
    int64_t dim;
    if (!parseDim(part.trim(), dim)) {
      error = "bad dim '" + part.str() + "' in '" + spec.str() + "'";
      return failure();
    }
    dims.push_back(dim);
  }
  options.inputShapes[name] = dims;
  return success();
}

/// Parses `NAME=N` with N >= `least` into `into`.
static LogicalResult parseNamedDim(StringRef spec, int64_t least,
                                   llvm::StringMap<int64_t> &into,
                                   std::string &error) {
  auto [name, value] = spec.rsplit('=');
  int64_t n;
  if (name.empty() || spec.find('=') == StringRef::npos ||
      value.getAsInteger(10, n) || n < least) {
    error = "expected NAME=N with N >= " + std::to_string(least) + ", got '" +
            spec.str() + "'";
    return failure();
  }
  into[name] = n;
  return success();
}

LogicalResult mlc::onnx_import::parseDimOverride(StringRef spec,
                                                 ImportOptions &options,
                                                 std::string &error) {
  return parseNamedDim(spec, 0, options.dimParams, error);
}

LogicalResult mlc::onnx_import::parseDimBound(StringRef spec,
                                              ImportOptions &options,
                                              std::string &error) {
  return parseNamedDim(spec, 1, options.dimBounds, error);
}
