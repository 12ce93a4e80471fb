//===- NodeImporter.h - What an op converter sees ---------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Frontend/ONNX. Each ONNX op has a converter, a function
// from one NodeImporter (the node, its imported inputs, its attributes, a
// builder) to graph ops. Converters are registered per op family in
// ElementwiseOps.cpp, NNOps.cpp, ReductionOps.cpp, TensorOps.cpp,
// GeneratorOps.cpp, QuantOps.cpp, ControlFlowOps.cpp, SequenceOps.cpp and
// the transformer, attention and block-quantized ops of ai.onnx and
// com.microsoft in TransformerOps.cpp, AttentionOps.cpp and
// BlockQuantOps.cpp, with the opset version from which each form applies.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_FRONTEND_ONNX_NODEIMPORTER_H
#define MLC_LIB_FRONTEND_ONNX_NODEIMPORTER_H

#include "onnx/onnx_pb.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <optional>

namespace mlc::onnx_import {

/// The ai.onnx opsets the importer reads. Each op is converted from the
/// opset its converter is registered at (ConverterTable), so a model at an
/// old opset imports when every op it uses has its current semantics there.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 23;

/// The domain of the contrib ops ONNX Runtime defines and its exporters
/// (its transformer optimizer, GenAI's model builder, Olive) write.
constexpr llvm::StringLiteral kContribDomain = "com.microsoft";

/// The opset versions a model imports: ai.onnx's and the contrib domain's.
struct Opsets {
  int64_t onnx = 0;
  /// com.microsoft has one version in practice; a model that uses its ops
  /// without importing it is read at version 1, as ONNX Runtime's own
  /// optimizer writes them.
  int64_t contrib = 1;
};

/// The name under which a node's converter is registered: its op type in
/// ai.onnx, "com.microsoft.OpType" for a contrib op, and "domain.OpType"
/// (never registered) for any other domain.
std::string getConverterKey(const onnx::NodeProto &node);
/// The version of the node's domain that the model imports.
int64_t getNodeOpset(const onnx::NodeProto &node, const Opsets &opsets);

/// Imports ONNX subgraphs (If branches, Loop bodies) into regions.
class SubgraphImporter {
public:
  virtual ~SubgraphImporter() = default;
  /// Imports `graph` into a new block of `region`, with one block argument
  /// per graph input (typed `argTypes[i]` where given and non-null, else
  /// from the graph's value info), and returns the values of the graph's
  /// outputs. Values of enclosing graphs stay visible by name.
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  importSubgraph(const onnx::GraphProto &graph, mlir::Region &region,
                 llvm::ArrayRef<mlir::Type> argTypes) = 0;
};

/// The importer's view of one node while it is converted.
class NodeImporter {
public:
  NodeImporter(const onnx::NodeProto &node, int64_t opset,
               llvm::SmallVector<mlir::Value> inputs, mlir::OpBuilder &builder,
               mlir::Location loc, llvm::StringRef modelDir)
      : node(node), opset(opset), builder(builder), loc(loc),
        modelDir(modelDir), inputs(std::move(inputs)) {}

  const onnx::NodeProto &node;
  const int64_t opset;

  //===--- Inputs and outputs ---------------------------------------------===//

  /// Number of inputs, counting empty (absent optional) ones.
  size_t getNumInputs() const { return inputs.size(); }
  /// True when input `i` is present (given and not the empty name).
  bool hasInput(size_t i) const { return i < inputs.size() && inputs[i]; }
  /// Input `i`, or null when absent.
  mlir::Value getInput(size_t i) const {
    return i < inputs.size() ? inputs[i] : mlir::Value();
  }
  /// Fails unless inputs `[0, min)` are present and there are at most `max`.
  llvm::LogicalResult expectInputs(size_t min, size_t max);

  /// The values the node produces, in output order.
  llvm::SmallVector<mlir::Value> results;

  //===--- Attributes ----------------------------------------------------===//

  const onnx::AttributeProto *getAttr(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t defaultValue) const;
  float getFloat(llvm::StringRef name, float defaultValue) const;
  std::optional<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name) const;
  std::optional<std::string> getString(llvm::StringRef name) const;
  /// Set by the getters above when the node has the attribute they were
  /// asked for but of another type (an `axis` given as a float): the
  /// importer then fails the node with this message instead of using the
  /// default.
  mutable std::string attributeError;
  /// An ints attribute as a DenseI64ArrayAttr, null when absent.
  mlir::DenseI64ArrayAttr getI64Array(llvm::StringRef name);
  /// `auto_pad` (convolution and pooling); fails with a diagnostic on an
  /// unknown value.
  mlir::FailureOr<mlc::graph::AutoPadAttr> getAutoPad();
  /// `pads`, or null when `auto_pad` derives them (ONNX ignores explicit
  /// pads then).
  mlir::DenseI64ArrayAttr getPads(mlc::graph::AutoPadAttr autoPad);

  //===--- Building -----------------------------------------------------===//

  /// Creates an `OpTy` whose result types come from its shape function;
  /// fails (with the shape function's diagnostic) instead of aborting.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<OpTy> create(Args &&...args) {
    mlir::OperationState state(loc, OpTy::getOperationName());
    // Placeholder result types, replaced by the inferred ones below.
    llvm::SmallVector<mlir::Type, 4> placeholders(getNumResults<OpTy>());
    OpTy::build(builder, state, mlir::TypeRange(placeholders),
                std::forward<Args>(args)...);
    state.types.clear();
    if (mlir::failed(OpTy::inferReturnTypes(
            builder.getContext(), loc, state.operands,
            state.attributes.getDictionary(builder.getContext()),
            state.getRawProperties(), state.regions, state.types)))
      return mlir::failure();
    return mlir::cast<OpTy>(builder.create(state));
  }

  /// Number of results of an op with a fixed result count.
  template <typename OpTy> static constexpr unsigned getNumResults() {
    using namespace mlir::OpTrait;
    if constexpr (OpTy::template hasTrait<OneResult>())
      return 1;
    else if constexpr (OpTy::template hasTrait<NResults<2>::Impl>())
      return 2;
    else if constexpr (OpTy::template hasTrait<NResults<3>::Impl>())
      return 3;
    else {
      static_assert(OpTy::template hasTrait<NResults<4>::Impl>(),
                    "create<> supports ops with 1 to 4 results");
      return 4;
    }
  }

  /// Like create, and records the op's result as the node's next output.
  template <typename OpTy, typename... Args>
  llvm::LogicalResult emit(Args &&...args) {
    mlir::FailureOr<OpTy> op = create<OpTy>(std::forward<Args>(args)...);
    if (mlir::failed(op))
      return mlir::failure();
    results.push_back(op->getResult());
    return mlir::success();
  }

  /// For converters that spell a node out of several ops: creates an
  /// `OpTy` like create and returns its first result, or null once any op
  /// of this node failed to build (its diagnostic is emitted; later calls
  /// build nothing, so their null operands are never read). The converter
  /// checks once, at the end, with `finish`.
  template <typename OpTy, typename... Args> mlir::Value make(Args &&...args) {
    if (buildFailed)
      return mlir::Value();
    mlir::FailureOr<OpTy> op = create<OpTy>(std::forward<Args>(args)...);
    if (mlir::failed(op)) {
      buildFailed = true;
      return mlir::Value();
    }
    return (*op)->getResult(0);
  }
  /// Records `outputs` as the node's outputs unless an op made by `make`
  /// failed.
  llvm::LogicalResult finish(llvm::ArrayRef<mlir::Value> outputs) {
    if (buildFailed)
      return mlir::failure();
    results.append(outputs.begin(), outputs.end());
    return mlir::success();
  }
  bool buildFailed = false;

  /// A 1-D i64 constant.
  mlir::Value getI64Constant(llvm::ArrayRef<int64_t> values);
  /// A rank-0 constant of `elementType` holding `value`.
  mlir::Value getScalarConstant(mlir::Type elementType, double value);
  /// The values of a constant integer tensor input, or nullopt.
  std::optional<llvm::SmallVector<int64_t>>
  getConstantInts(mlir::Value v) const;
  /// Checks that `axes`, a node input computed at run time, is a 1-D i64
  /// tensor, for an op's `dynamic_axes` operand.
  llvm::LogicalResult checkRunTimeAxes(mlir::Value axes);
  /// The dims `[axis, rank)` of `x` (a negative axis counts from the
  /// back), or failure (with a diagnostic) when `x` has no known rank or
  /// `axis` is out of range.
  mlir::FailureOr<mlir::DenseI64ArrayAttr> getTrailingAxes(mlir::Value x,
                                                          int64_t axis);
  /// The element type of tensor value `v`.
  static mlir::Type getElementType(mlir::Value v);

  /// Emits "node 'name' (Op, opset N): message" and fails.
  llvm::LogicalResult fail(const llvm::Twine &message);

  mlir::OpBuilder &builder;
  mlir::Location loc;
  llvm::StringRef modelDir;
  /// Imports the node's subgraph attributes.
  SubgraphImporter *subgraphs = nullptr;
  /// The most bytes a tensor attribute may hold (ImportOptions).
  int64_t maxTensorBytes = int64_t(4) << 30;

private:
  llvm::SmallVector<mlir::Value> inputs;
};

/// Converts one node; on failure it has emitted a diagnostic.
using ConvertFn = std::function<llvm::LogicalResult(NodeImporter &)>;

/// What a converter takes besides tensors of numbers; the importer rejects
/// other inputs with a diagnostic before calling it, so converters and
/// shape functions may assume what they did not declare.
enum class Accepts : unsigned {
  Numbers = 0,
  /// Tensors of `!mlc_graph.string`.
  Strings = 1,
  /// Sequences and optionals.
  Containers = 2,
  Anything = Strings | Containers,
};

/// The converters of one op type, by the opset version each starts at.
struct ConverterTable {
  struct Entry {
    int64_t sinceVersion;
    ConvertFn convert;
    Accepts accepts;
  };
  /// Registers `fn` for `opType` from opset `sinceVersion` on.
  void add(llvm::StringRef opType, int64_t sinceVersion, ConvertFn fn,
           Accepts accepts = Accepts::Numbers);
  /// The converter for `opType` at `opset`, or null with `why` set.
  const Entry *lookup(llvm::StringRef opType, int64_t opset,
                      std::string &why) const;
  /// The converter for `node` in the model's `opsets`, or null with `why`
  /// set (an unknown domain is named).
  const Entry *lookup(const onnx::NodeProto &node, const Opsets &opsets,
                      std::string &why) const;

  llvm::StringMap<llvm::SmallVector<Entry>> entries;
};

/// The table of every supported op (ai.onnx and com.microsoft), built once.
const ConverterTable &getConverterTable();

void addElementwiseConverters(ConverterTable &table);
void addNNConverters(ConverterTable &table);
void addReductionConverters(ConverterTable &table);
void addTensorConverters(ConverterTable &table);
void addGeneratorConverters(ConverterTable &table);
void addQuantConverters(ConverterTable &table);
void addControlFlowConverters(ConverterTable &table);
void addSequenceConverters(ConverterTable &table);
void addLossConverters(ConverterTable &table);
void addSelectionConverters(ConverterTable &table);
void addContainerConverters(ConverterTable &table);
void addFeatureConverters(ConverterTable &table);
/// RMS and skip layer norms, the Gelu family and BiasAdd (com.microsoft,
/// and RMSNormalization of ai.onnx).
void addTransformerConverters(ConverterTable &table);
/// Rotary embeddings and attention (com.microsoft, and ai.onnx's opset-23
/// Attention and RotaryEmbedding).
void addAttentionConverters(ConverterTable &table);
/// com.microsoft's block-quantized weights (MatMulNBits,
/// GatherBlockQuantized).
void addBlockQuantConverters(ConverterTable &table);

} // namespace mlc::onnx_import

#endif // MLC_LIB_FRONTEND_ONNX_NODEIMPORTER_H
