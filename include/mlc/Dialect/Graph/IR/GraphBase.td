//===- GraphBase.td - mlc_graph dialect definition ---------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The graph dialect, its attributes and the op base classes shared by every
// op family.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHBASE_TD
#define MLC_DIALECT_GRAPH_IR_GRAPHBASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Graph_Dialect : Dialect {
  let name = "mlc_graph";
  let cppNamespace = "::mlc::graph";
  let summary = "Tensor-level ops with ONNX semantics";
  let description = [{
    The graph dialect is mlc's entry level. Each op has the semantics of the
    ONNX operator of the same name at the newest opset the importer
    normalizes to: numpy-style broadcasting for elementwise ops, NCHW layout
    for convolution and pooling, negative axes counted from the back.

    Shape-like parameters that ONNX passes as tensor inputs and that
    exporters often compute at run time (Reshape's shape, Slice's bounds,
    Pad's pads, Expand's shape) stay operands; axes, which fix the rank of
    the result, are attributes, or the operand `dynamic_axes` where they are
    computed at run time. ONNX sequences and optionals are the types
    `!mlc_graph.sequence<tensor type>` and `!mlc_graph.optional<type>`. Result types are inferred through
    `InferTypeOpInterface` (the shape functions double as verifiers), and a
    result type may be more static than the inferred one, so that the
    importer can keep what the model file already knows.

    Weights are `dense_resource` (or any `ElementsAttr`) constants, so large
    models are never printed element by element.
  }];
  // A branch that cannot run at the compiled shapes is a `cf.assert`
  // (IfOp::buildFailingBranch).
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect"];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  // What the importer records about the model: the ONNX name of each
  // function argument and result, the names of an argument's symbolic dims
  // ("" for the static ones), the opset and the producer, the bounds given
  // to symbolic dims (`--dim-max`: symbol name to largest value); and what
  // mlc-graph-separate-batch decides: the batch's symbol (on the function)
  // and which arguments and results carry it on dim 0.
  let discardableAttrs = (ins
    "::mlir::StringAttr":$name,
    "::mlir::ArrayAttr":$dim_names,
    "::mlir::IntegerAttr":$onnx_opset,
    "::mlir::StringAttr":$onnx_producer,
    "::mlir::DictionaryAttr":$dim_bounds,
    "::mlir::StringAttr":$batch_symbol,
    "::mlir::UnitAttr":$batched
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Graph_PadMode : I32EnumAttr<"PadMode", "how Pad fills the border", [
    I32EnumAttrCase<"Constant", 0, "constant">,
    I32EnumAttrCase<"Reflect", 1, "reflect">,
    I32EnumAttrCase<"Edge", 2, "edge">,
    I32EnumAttrCase<"Wrap", 3, "wrap">]> {
  let cppNamespace = "::mlc::graph";
  let genSpecializedAttr = 0;
}
def Graph_PadModeAttr : EnumAttr<Graph_Dialect, Graph_PadMode, "pad_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def Graph_AutoPad : I32EnumAttr<"AutoPad",
    "how convolution and pooling derive their padding", [
    I32EnumAttrCase<"NotSet", 0, "notset">,
    I32EnumAttrCase<"SameUpper", 1, "same_upper">,
    I32EnumAttrCase<"SameLower", 2, "same_lower">,
    I32EnumAttrCase<"Valid", 3, "valid">]> {
  let cppNamespace = "::mlc::graph";
  let genSpecializedAttr = 0;
}
def Graph_AutoPadAttr : EnumAttr<Graph_Dialect, Graph_AutoPad, "auto_pad"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Graph_SequenceType : TypeDef<Graph_Dialect, "Sequence"> {
  let mnemonic = "sequence";
  let summary = "ONNX sequence: an ordered list of tensors";
  let description = [{
    Every element has the element type of `tensorType`; its shape is what
    all elements' shapes have in common (`?` where they differ, unranked
    where their ranks do).
  }];
  let parameters = (ins "::mlir::TensorType":$tensorType);
  let assemblyFormat = "`<` $tensorType `>`";
}

def Graph_OptionalType : TypeDef<Graph_Dialect, "Optional"> {
  let mnemonic = "optional";
  let summary = "ONNX optional: a tensor or sequence, or nothing";
  let parameters = (ins "::mlir::Type":$valueType);
  let assemblyFormat = "`<` $valueType `>`";
}

def Graph_StringType : TypeDef<Graph_Dialect, "String"> {
  let mnemonic = "string";
  let summary = "ONNX string tensor element (UTF-8 text)";
  let description = [{
    String tensors import (constants hold `DenseStringElementsAttr`s) for
    Cast, Identity and StringNormalizer; the CPU backend does not lower
    them.
  }];
}

def Graph_Tensor : TensorOf<[AnyType]>;
def Graph_StringTensor : TensorOf<[Graph_StringType]>;
/// Any value an ONNX graph passes along: tensor, sequence or optional.
def Graph_Value : AnyTypeOf<[Graph_Tensor, Graph_SequenceType,
                             Graph_OptionalType]>;
def Graph_FloatTensor : TensorOf<[AnyFloat]>;
def Graph_NumericTensor : TensorOf<[AnyFloat, AnyInteger]>;
def Graph_BoolTensor : TensorOf<[I1]>;
def Graph_IndexTensor : TensorOf<[I32, I64]>;
def Graph_I64Tensor : TensorOf<[I64]>;

//===----------------------------------------------------------------------===//
// Op traits
//===----------------------------------------------------------------------===//

/// Each result element is a function of the operand elements at the same
/// index after numpy broadcasting, and of nothing else: no element of one
/// index reaches another. Analyses rely on it (mlc-graph-separate-batch).
def Graph_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::mlc::graph::OpTrait";
}

//===----------------------------------------------------------------------===//
// Op base classes
//===----------------------------------------------------------------------===//

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

/// An op whose result types come from a shape function. The declared
/// result type may be more static than the inferred one (never less
/// compatible), which `isCompatibleReturnTypes` checks for every op alike.
/// `inferImpl` may define `inferReturnTypes` inline for a whole family;
/// otherwise it is defined in lib/Dialect/Graph/IR.
class Graph_InferOp<string mnemonic, list<Trait> traits = [],
                    code inferImpl = [{}]>
    : Graph_Op<mnemonic, traits # [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                            ::mlir::TypeRange rhs) {
      return ::mlc::graph::areRefinableTypes(lhs, rhs);
    }
  }] # inferImpl;
}

/// `inferReturnTypes` body for ops whose result has the type of `$input`.
defvar Graph_SameAsInputImpl = [{
  ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *,
      std::optional<::mlir::Location>, Adaptor adaptor,
      ::llvm::SmallVectorImpl<::mlir::Type> &types) {
    types.push_back(adaptor.getInput().getType());
    return ::mlir::success();
  }
}];

/// `inferReturnTypes` body for `$lhs`/`$rhs` ops that broadcast; the result
/// element type is the lhs one, or i1 when `isPredicate` is true.
class Graph_BroadcastImpl<string isPredicate> {
  code impl = [{
  ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *ctx,
      std::optional<::mlir::Location> loc, Adaptor adaptor,
      ::llvm::SmallVectorImpl<::mlir::Type> &types) {
    return ::mlc::graph::inferBroadcastResultType(ctx, loc,
        getOperationName(), adaptor.getLhs().getType(), adaptor.getRhs().getType(), }] #
        isPredicate # [{, types);
  }
  }];
}

#endif // MLC_DIALECT_GRAPH_IR_GRAPHBASE_TD
