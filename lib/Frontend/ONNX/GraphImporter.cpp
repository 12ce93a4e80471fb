//===- GraphImporter.cpp - ONNX GraphProto to a graph-dialect function ----===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The mechanical half of the importer: opsets, graph inputs and outputs,
// initializers, value names and node order. What each op becomes is the
// converters' business (NodeImporter.h).
//
//===----------------------------------------------------------------------===//

#include "mlc/Frontend/ONNX/Importer.h"

#include "GraphStructure.h"
#include "ModelLoader.h"
#include "NodeImporter.h"
#include "TensorImport.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace mlc::onnx_import;
using llvm::StringRef;
using llvm::Twine;

namespace {
bool isDefaultDomain(StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

class GraphImporter : public SubgraphImporter {
public:
  /// `path` names the model in messages; external data is looked for in
  /// `modelDir`.
  GraphImporter(MLIRContext *context, StringRef path, StringRef modelDir,
                const ImportOptions &options)
      : context(context), path(path), modelDir(modelDir), options(options),
        builder(context) {}

  /// Imports `model`. Initializer bytes are released from the protobuf as
  /// they are copied into blobs, so peak memory stays near one copy.
  OwningOpRef<ModuleOp> run(onnx::ModelProto &model);

  /// Emits "<file>: message" and fails.
  LogicalResult fail(const Twine &message) {
    return emitError(UnknownLoc::get(context)) << path << ": " << message.str();
  }

  /// Like fail, returning the failure value of `T` (a failed FailureOr, a
  /// null module).
  template <typename T> T failWith(const Twine &message) {
    (void)fail(message);
    return T();
  }

private:
  LogicalResult readOpset(const onnx::ModelProto &model);
  LogicalResult checkSupport(const onnx::GraphProto &graph);
  FailureOr<Type> importValueType(const onnx::ValueInfoProto &info,
                                  bool isGraphInput);
  /// A tensor, sequence or optional type; `name` is the value's, for
  /// messages and `--shape`.
  FailureOr<Type> importType(const onnx::TypeProto &type,
                             const std::string &name, bool isGraphInput);
  LogicalResult importNode(const onnx::NodeProto &node, int index);
  /// Fails, naming the output, when the type `info` declares for a graph
  /// output contradicts `computed` (element type, rank or a static dim).
  LogicalResult checkDeclaredType(const onnx::ValueInfoProto &info,
                                  Type computed);
  LogicalResult importNodes(const onnx::GraphProto &graph);
  FailureOr<SmallVector<Value>>
  importSubgraph(const onnx::GraphProto &graph, Region &region,
                 ArrayRef<Type> argTypes) override;

  /// The value named `name` in the innermost scope that has one.
  Value lookup(StringRef name) const {
    for (const llvm::StringMap<Value> &scope : llvm::reverse(scopes)) {
      auto it = scope.find(name);
      if (it != scope.end())
        return it->second;
    }
    return Value();
  }
  void define(StringRef name, Value value) { scopes.back()[name] = value; }

  MLIRContext *context;
  std::string path;
  std::string modelDir;
  const ImportOptions &options;
  OpBuilder builder;
  int64_t opset = 0;
  Opsets opsets;
  /// Named values: the main graph, then one scope per open subgraph.
  SmallVector<llvm::StringMap<Value>> scopes{1};
  llvm::StringSet<> usedDimParams;
};
} // namespace

LogicalResult GraphImporter::readOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    if (isDefaultDomain(id.domain()))
      opset = id.version();
    else if (id.domain() == kContribDomain)
      opsets.contrib = id.version();
  }
  opsets.onnx = opset;
  if (opset == 0)
    return fail("the model imports no ai.onnx opset");
  if (opset < kMinOpset || opset > kMaxOpset)
    return fail("ai.onnx opset " + Twine(opset) +
                " is not supported (supported: " + Twine(kMinOpset) + " to " +
                Twine(kMaxOpset) + ")");
  return success();
}

LogicalResult GraphImporter::checkSupport(const onnx::GraphProto &graph) {
  // Every unsupported op, once, with a count and the first node using it.
  struct Problem {
    int count = 0;
    std::string firstNode, why;
  };
  std::map<std::string, Problem> problems;
  const ConverterTable &table = getConverterTable();
  std::function<void(const onnx::GraphProto &)> scan =
      [&](const onnx::GraphProto &g) {
        for (auto [index, node] : llvm::enumerate(g.node())) {
          // Subgraphs (If branches, Loop bodies) are checked too.
          for (const onnx::AttributeProto &attr : node.attribute()) {
            if (attr.has_g())
              scan(attr.g());
            for (const onnx::GraphProto &sub : attr.graphs())
              scan(sub);
          }
          std::string why;
          if (table.lookup(node, opsets, why))
            continue;
          Problem &p = problems[getConverterKey(node)];
          if (p.count++ == 0) {
            p.firstNode = describeNode(node, index);
            p.why = why;
          }
        }
      };
  scan(graph);
  if (problems.empty())
    return success();
  std::string message;
  llvm::raw_string_ostream os(message);
  os << problems.size() << " unsupported op type"
     << (problems.size() == 1 ? "" : "s") << " at opset " << opset << ":";
  for (const auto &[op, p] : problems)
    os << "\n  " << op << " x" << p.count << " (first: node " << p.firstNode
       << "): " << p.why;
  return fail(message);
}

FailureOr<Type> GraphImporter::importValueType(const onnx::ValueInfoProto &info,
                                               bool isGraphInput) {
  if (!info.has_type())
    return failWith<FailureOr<Type>>("value '" + info.name() + "' has no type");
  return importType(info.type(), info.name(), isGraphInput);
}

FailureOr<Type> GraphImporter::importType(const onnx::TypeProto &type,
                                          const std::string &name,
                                          bool isGraphInput) {
  auto elementOf = [&](const onnx::TypeProto &inner) -> FailureOr<Type> {
    return importType(inner, name, /*isGraphInput=*/false);
  };
  if (type.has_sequence_type()) {
    FailureOr<Type> element = elementOf(type.sequence_type().elem_type());
    if (failed(element))
      return failure();
    auto tensor = dyn_cast<TensorType>(*element);
    if (!tensor)
      return failWith<FailureOr<Type>>("value '" + name +
                                       "' is a sequence of non-tensors");
    return Type(mlc::graph::SequenceType::get(context, tensor));
  }
  if (type.has_optional_type()) {
    FailureOr<Type> value = elementOf(type.optional_type().elem_type());
    if (failed(value))
      return failure();
    if (isa<mlc::graph::OptionalType>(*value))
      return failWith<FailureOr<Type>>("value '" + name +
                                       "' is an optional of an optional");
    return Type(mlc::graph::OptionalType::get(context, *value));
  }
  if (!type.has_tensor_type())
    return failWith<FailureOr<Type>>(
        "value '" + name +
        "' is not a tensor, sequence or optional (maps "
        "and sparse tensors are not supported)");
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  Type element = tensor.elem_type() == onnx::TensorProto::STRING
                     ? Type(mlc::graph::StringType::get(context))
                     : getElementType(context, tensor.elem_type());
  if (!element)
    return failWith<FailureOr<Type>>("value '" + name +
                                     "' has unsupported element type " +
                                     getDataTypeName(tensor.elem_type()));
  auto pinned =
      isGraphInput ? options.inputShapes.find(name) : options.inputShapes.end();
  if (!tensor.has_shape()) {
    if (pinned != options.inputShapes.end())
      return Type(RankedTensorType::get(pinned->second, element));
    return Type(UnrankedTensorType::get(element));
  }
  llvm::SmallVector<int64_t> dims;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0)
        return failWith<FailureOr<Type>>("value '" + name +
                                         "' has a negative dim " +
                                         Twine(dim.dim_value()));
      dims.push_back(dim.dim_value());
    } else if (dim.has_dim_param() &&
               options.dimParams.count(dim.dim_param())) {
      usedDimParams.insert(dim.dim_param());
      dims.push_back(options.dimParams.lookup(dim.dim_param()));
    } else {
      dims.push_back(ShapedType::kDynamic);
    }
  }
  if (pinned != options.inputShapes.end()) {
    ArrayRef<int64_t> shape = pinned->second;
    bool compatible = shape.size() == dims.size();
    for (size_t i = 0; compatible && i < dims.size(); ++i)
      compatible = ShapedType::isDynamic(dims[i]) || dims[i] == shape[i] ||
                   ShapedType::isDynamic(shape[i]);
    if (!compatible)
      return failWith<FailureOr<Type>>(
          "--shape " + name + "=" + mlc::graph::formatShape(shape) +
          " contradicts the model's shape " + mlc::graph::formatShape(dims));
    for (size_t i = 0; i < dims.size(); ++i)
      if (!ShapedType::isDynamic(shape[i]))
        dims[i] = shape[i];
  }
  if (isGraphInput && options.defaultDim >= 0)
    for (int64_t &dim : dims)
      if (ShapedType::isDynamic(dim))
        dim = options.defaultDim;
  return Type(RankedTensorType::get(dims, element));
}

LogicalResult GraphImporter::checkDeclaredType(const onnx::ValueInfoProto &info,
                                               Type computed) {
  if (!info.has_type() || !info.type().has_tensor_type())
    return success();
  auto tensor = dyn_cast<TensorType>(computed);
  if (!tensor)
    return success();
  const onnx::TypeProto::Tensor &declared = info.type().tensor_type();
  if (declared.elem_type() != onnx::TensorProto::UNDEFINED &&
      declared.elem_type() != onnx::TensorProto::STRING) {
    Type element = getElementType(context, declared.elem_type());
    if (element && element != tensor.getElementType()) {
      std::string computedName;
      llvm::raw_string_ostream os(computedName);
      os << tensor.getElementType();
      return fail("graph output '" + info.name() + "' is declared " +
                  getDataTypeName(declared.elem_type()) +
                  " but the graph computes it as " + computedName);
    }
  }
  auto ranked = dyn_cast<RankedTensorType>(tensor);
  if (!declared.has_shape() || !ranked)
    return success();
  SmallVector<int64_t> dims;
  for (const onnx::TensorShapeProto::Dimension &dim : declared.shape().dim())
    dims.push_back(dim.has_dim_value() ? dim.dim_value()
                                       : ShapedType::kDynamic);
  bool contradicts = dims.size() != static_cast<size_t>(ranked.getRank());
  for (size_t i = 0; !contradicts && i < dims.size(); ++i)
    contradicts = !ShapedType::isDynamic(dims[i]) &&
                  !ranked.isDynamicDim(i) && dims[i] != ranked.getDimSize(i);
  if (contradicts)
    return fail("graph output '" + info.name() + "' is declared with shape " +
                mlc::graph::formatShape(dims) +
                " but the graph computes shape " +
                mlc::graph::formatShape(ranked.getShape()));
  return success();
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node,
                                        int index) {
  int64_t nodeOpset = getNodeOpset(node, opsets);
  std::string header = path + ": node " + describeNode(node, index) + " (" +
                       getConverterKey(node) + ", opset " +
                       std::to_string(nodeOpset) + "): ";
  llvm::SmallVector<Value> inputs;
  for (const std::string &name : node.input()) {
    if (name.empty()) {
      inputs.push_back(Value());
      continue;
    }
    Value value = lookup(name);
    if (!value)
      return emitError(UnknownLoc::get(context))
             << header << "input '" << name
             << "' is not a graph input, an initializer or the output of an "
                "earlier node (missing value, cycle, or nodes out of "
                "topological order)";
    inputs.push_back(value);
  }
  std::string why;
  const ConverterTable::Entry *entry =
      getConverterTable().lookup(node, opsets, why);
  auto accepts = [&](Accepts kind) {
    return entry && (static_cast<unsigned>(entry->accepts) &
                     static_cast<unsigned>(kind));
  };
  for (auto [i, value] : llvm::enumerate(inputs)) {
    auto tensor = value ? dyn_cast<TensorType>(value.getType()) : TensorType();
    if (tensor && isa<mlc::graph::StringType>(tensor.getElementType()) &&
        !accepts(Accepts::Strings))
      return emitError(UnknownLoc::get(context))
             << header << "input '" << node.input(i)
             << "' is a string tensor, which this op does not take";
    if (value && !tensor && !accepts(Accepts::Containers))
      return emitError(UnknownLoc::get(context))
             << header << "input '" << node.input(i) << "' is a "
             << (isa<mlc::graph::SequenceType>(value.getType()) ? "sequence"
                                                                : "optional")
             << ", but this op takes tensors";
  }
  std::string nodeName = node.name().empty()
                             ? node.op_type() + "_" + std::to_string(index)
                             : node.name();
  Location loc = NameLoc::get(builder.getStringAttr(nodeName));
  NodeImporter importer(node, nodeOpset, std::move(inputs), builder, loc, modelDir);
  importer.subgraphs = this;
  importer.maxTensorBytes = options.maxTensorBytes;

  // Collect what the converter and the shape functions report, then emit
  // it with the node's context.
  llvm::SmallVector<std::string> messages;
  LogicalResult converted = failure();
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure(); // warnings and remarks go on to the caller
      messages.push_back(diag.str());
      return success();
    });
    converted = entry ? entry->convert(importer) : failure();
  }
  if (!importer.attributeError.empty()) {
    emitError(UnknownLoc::get(context)) << header << importer.attributeError;
    return failure();
  }
  if (failed(converted)) {
    if (messages.empty())
      messages.push_back("conversion failed");
    for (const std::string &m : messages)
      emitError(UnknownLoc::get(context)) << header << m;
    return failure();
  }
  for (auto [i, name] : llvm::enumerate(node.output())) {
    if (name.empty())
      continue;
    if (i >= importer.results.size())
      return emitError(UnknownLoc::get(context))
             << header << "output " << i << " ('" << name
             << "') is not supported; only the first "
             << importer.results.size() << " output(s) are";
    if (!importer.results[i])
      return emitError(UnknownLoc::get(context))
             << header << "output " << i << " ('" << name
             << "') is not supported";
    define(name, importer.results[i]);
  }
  return success();
}

LogicalResult GraphImporter::importNodes(const onnx::GraphProto &graph) {
  std::string error;
  std::optional<SmallVector<int>> order = orderNodes(
      graph, [&](StringRef name) { return bool(lookup(name)); }, error);
  if (!order)
    return fail((graph.name().empty() ? Twine("graph")
                                      : "graph '" + graph.name() + "'") +
                ": " + error);
  for (int index : *order)
    if (failed(importNode(graph.node(index), index)))
      return failure();
  return success();
}

FailureOr<SmallVector<Value>>
GraphImporter::importSubgraph(const onnx::GraphProto &graph, Region &region,
                              ArrayRef<Type> argTypes) {
  if (!argTypes.empty() &&
      argTypes.size() != static_cast<size_t>(graph.input_size()))
    return failWith<FailureOr<SmallVector<Value>>>(
        "subgraph '" + graph.name() + "' has " + Twine(graph.input_size()) +
        " inputs, expected " + Twine(argTypes.size()));
  OpBuilder::InsertionGuard guard(builder);
  Block *block = builder.createBlock(&region);
  scopes.emplace_back();
  llvm::scope_exit popScope([&] { scopes.pop_back(); });
  for (auto [i, in] : llvm::enumerate(graph.input())) {
    Type type = argTypes.empty() ? Type() : argTypes[i];
    if (!type) {
      FailureOr<Type> declared = importValueType(in, /*isGraphInput=*/false);
      if (failed(declared))
        return failure();
      type = *declared;
    }
    define(in.name(), block->addArgument(type, UnknownLoc::get(context)));
  }
  for (onnx::TensorProto init : graph.initializer()) {
    auto value =
        importTensor(init, context, modelDir, options.maxTensorBytes);
    if (!value)
      return failWith<FailureOr<SmallVector<Value>>>(
          "initializer '" + init.name() + "' " +
          llvm::toString(value.takeError()));
    define(init.name(),
           mlc::graph::ConstantOp::create(builder, UnknownLoc::get(context),
                                          value->getType(), *value));
  }
  if (failed(importNodes(graph)))
    return failure();
  SmallVector<Value> outputs;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    Value value = lookup(out.name());
    if (!value)
      return failWith<FailureOr<SmallVector<Value>>>(
          "subgraph output '" + out.name() + "' is not produced by any node");
    outputs.push_back(value);
  }
  return outputs;
}

OwningOpRef<ModuleOp> GraphImporter::run(onnx::ModelProto &model) {
  onnx::GraphProto &graph = *model.mutable_graph();
  if (graph.output_size() == 0)
    return failWith<OwningOpRef<ModuleOp>>(
        "the graph has no outputs: there is nothing to compute (the ONNX "
        "checker rejects such a model)");
  int64_t nodes = 0, depth = 0;
  measureGraph(graph, options.maxNodes, options.maxNesting, nodes, depth);
  if (nodes > options.maxNodes)
    return failWith<OwningOpRef<ModuleOp>>(
        "the model has more than " + Twine(options.maxNodes) +
        " nodes (subgraphs included), the limit; raise it with --max-nodes");
  if (depth > options.maxNesting)
    return failWith<OwningOpRef<ModuleOp>>(
        "the model nests subgraphs more than " + Twine(options.maxNesting) +
        " deep, the limit; raise it with --max-nesting");
  if (failed(readOpset(model)) || failed(checkSupport(graph)))
    return nullptr;

  // Pinned shapes and dims must name something in the model.
  llvm::StringSet<> inputNames, initializerNames;
  for (const onnx::TensorProto &init : graph.initializer())
    initializerNames.insert(init.name());
  for (const onnx::ValueInfoProto &in : graph.input())
    if (!initializerNames.count(in.name()))
      inputNames.insert(in.name());
  for (const auto &entry : options.inputShapes)
    if (!inputNames.count(entry.getKey()))
      return failWith<OwningOpRef<ModuleOp>>(
          "--shape names '" + entry.getKey() +
          "', which is not an input of the model");

  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(context));
  builder.setInsertionPointToEnd(module->getBody());
  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<const onnx::ValueInfoProto *> args;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (initializerNames.count(in.name()))
      continue;
    FailureOr<Type> type = importValueType(in, /*isGraphInput=*/true);
    if (failed(type))
      return nullptr;
    argTypes.push_back(*type);
    args.push_back(&in);
  }
  for (const auto &entry : options.dimParams)
    if (!usedDimParams.count(entry.getKey()))
      return failWith<OwningOpRef<ModuleOp>>(
          "--dim names '" + entry.getKey() +
          "', which is not a symbolic dim of any input");

  auto func = func::FuncOp::create(builder, UnknownLoc::get(context),
                                   options.functionName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  llvm::StringSet<> symbolicDims;
  for (auto [i, in] : llvm::enumerate(args)) {
    func.setArgAttr(i, "mlc_graph.name", builder.getStringAttr(in->name()));
    define(in->name(), body->getArgument(i));
    // The names of the dims left symbolic: the dim_param, or one made up
    // for an unnamed dim (each its own symbol).
    auto type = dyn_cast<RankedTensorType>(argTypes[i]);
    if (!type || type.hasStaticShape() || !in->type().has_tensor_type())
      continue;
    const onnx::TensorShapeProto &shape = in->type().tensor_type().shape();
    SmallVector<Attribute> names;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      std::string dimName;
      if (type.isDynamicDim(d))
        dimName = d < shape.dim_size() && shape.dim(d).has_dim_param() &&
                          !shape.dim(d).dim_param().empty()
                      ? shape.dim(d).dim_param()
                      : in->name() + "_dim" + std::to_string(d);
      names.push_back(builder.getStringAttr(dimName));
    }
    func.setArgAttr(i, "mlc_graph.dim_names", builder.getArrayAttr(names));
    for (Attribute name : names)
      if (!cast<StringAttr>(name).getValue().empty())
        symbolicDims.insert(cast<StringAttr>(name).getValue());
  }
  // Bounds of the dims left symbolic.
  SmallVector<NamedAttribute> bounds;
  for (const auto &entry : options.dimBounds) {
    if (options.dimParams.count(entry.getKey()))
      return failWith<OwningOpRef<ModuleOp>>(
          "--dim-max names '" + entry.getKey() +
          "', which --dim pins to one value");
    if (!symbolicDims.count(entry.getKey()))
      return failWith<OwningOpRef<ModuleOp>>(
          "--dim-max names '" + entry.getKey() +
          "', which is not a symbolic dim of any input");
    bounds.push_back(builder.getNamedAttr(
        entry.getKey(), builder.getI64IntegerAttr(entry.getValue())));
  }
  if (!bounds.empty())
    func->setAttr("mlc_graph.dim_bounds",
                  builder.getDictionaryAttr(bounds));

  for (onnx::TensorProto &init : *graph.mutable_initializer()) {
    auto value =
        importTensor(init, context, modelDir, options.maxTensorBytes);
    std::string().swap(*init.mutable_raw_data());
    if (!value)
      return failWith<OwningOpRef<ModuleOp>>("initializer '" + init.name() +
                                             "' " +
                                             llvm::toString(value.takeError()));
    define(init.name(),
           mlc::graph::ConstantOp::create(
               builder, NameLoc::get(builder.getStringAttr(init.name())),
               value->getType(), *value));
  }

  if (failed(importNodes(graph)))
    return nullptr;

  llvm::SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    Value value = lookup(out.name());
    if (!value)
      return failWith<OwningOpRef<ModuleOp>>("graph output '" + out.name() +
                                             "' is not produced by any node");
    if (failed(checkDeclaredType(out, value.getType())))
      return nullptr;
    results.push_back(value);
  }
  func::ReturnOp::create(builder, UnknownLoc::get(context), results);
  func.setType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "mlc_graph.name", builder.getStringAttr(out.name()));
  func->setAttr("mlc_graph.onnx_opset", builder.getI64IntegerAttr(opset));
  if (!model.producer_name().empty())
    func->setAttr("mlc_graph.onnx_producer",
                  builder.getStringAttr(model.producer_name() + " " +
                                        model.producer_version()));
  return module;
}

OwningOpRef<ModuleOp>
mlc::onnx_import::importModelFile(StringRef path, MLIRContext *context,
                                  const ImportOptions &options) {
  context->loadDialect<mlc::graph::GraphDialect, func::FuncDialect>();
  onnx::ModelProto model;
  if (llvm::Error err = loadModelProto(path, model)) {
    emitError(UnknownLoc::get(context)) << llvm::toString(std::move(err));
    return nullptr;
  }
  GraphImporter importer(context, path, llvm::sys::path::parent_path(path),
                         options);
  return importer.run(model);
}

OwningOpRef<ModuleOp> mlc::onnx_import::importModelBuffer(
    StringRef data, StringRef name, StringRef modelDir, MLIRContext *context,
    const ImportOptions &options) {
  context->loadDialect<mlc::graph::GraphDialect, func::FuncDialect>();
  onnx::ModelProto model;
  if (llvm::Error err = parseModelBuffer(data, name, model)) {
    emitError(UnknownLoc::get(context)) << llvm::toString(std::move(err));
    return nullptr;
  }
  GraphImporter importer(context, name, modelDir, options);
  return importer.run(model);
}

OwningOpRef<ModuleOp> mlc::onnx_import::importModelProto(
    const onnx::ModelProto &model, StringRef name, StringRef modelDir,
    MLIRContext *context, const ImportOptions &options) {
  context->loadDialect<mlc::graph::GraphDialect, func::FuncDialect>();
  // The importer sorts and rewrites the graph as it goes: it works on a
  // copy, leaving the caller's model as it was.
  onnx::ModelProto copy = model;
  GraphImporter importer(context, name, modelDir, options);
  return importer.run(copy);
}
