//===- GraphOps.td - mlc_graph operations ------------------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The graph dialect's ops, grouped by family. Each family shares a shape
// function declared in GraphOps.h and defined in lib/Dialect/Graph/IR.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHOPS_TD
#define MLC_DIALECT_GRAPH_IR_GRAPHOPS_TD

include "mlc/Dialect/Graph/IR/GraphBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_InferOp<"constant", [ConstantLike]> {
  let summary = "A tensor constant (ONNX Constant and initializers)";
  let description = [{
    Holds any `ElementsAttr`. The importer uses `dense_resource` blobs for
    weights so that they are neither copied element by element nor printed
    as text; small constants may be `dense`.

    ```mlir
    %w = mlc_graph.constant dense_resource<conv1_w> : tensor<64x3x7x7xf32>
    %s = mlc_graph.constant dense<[1, -1]> : tensor<2xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

/// Result has the operand's type (shape may be refined).
class Graph_UnaryOp<string mnemonic, Type operandType, string onnxName,
                    list<Trait> traits = []>
    : Graph_InferOp<mnemonic,
                    traits # [SameOperandsAndResultElementType, Graph_Elementwise],
                    Graph_SameAsInputImpl> {
  let summary = "Elementwise " # onnxName;
  let description = "Applies ONNX `" # onnxName # "` to every element.";
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_IdentityOp : Graph_UnaryOp<"identity", Graph_Tensor, "Identity"> {
  let hasFolder = 1;
}
def Graph_NegOp : Graph_UnaryOp<"neg", Graph_NumericTensor, "Neg">;
def Graph_AbsOp : Graph_UnaryOp<"abs", Graph_NumericTensor, "Abs">;
def Graph_ExpOp : Graph_UnaryOp<"exp", Graph_FloatTensor, "Exp">;
def Graph_LogOp : Graph_UnaryOp<"log", Graph_FloatTensor, "Log">;
def Graph_SqrtOp : Graph_UnaryOp<"sqrt", Graph_FloatTensor, "Sqrt">;
def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal", Graph_FloatTensor, "Reciprocal">;
def Graph_TanhOp : Graph_UnaryOp<"tanh", Graph_FloatTensor, "Tanh">;
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", Graph_FloatTensor, "Sigmoid">;
def Graph_ReluOp : Graph_UnaryOp<"relu", Graph_NumericTensor, "Relu">;
def Graph_ErfOp : Graph_UnaryOp<"erf", Graph_FloatTensor, "Erf">;
def Graph_FloorOp : Graph_UnaryOp<"floor", Graph_FloatTensor, "Floor">;
def Graph_CeilOp : Graph_UnaryOp<"ceil", Graph_FloatTensor, "Ceil">;
def Graph_RoundOp : Graph_UnaryOp<"round", Graph_FloatTensor, "Round">;
def Graph_SinOp : Graph_UnaryOp<"sin", Graph_FloatTensor, "Sin">;
def Graph_CosOp : Graph_UnaryOp<"cos", Graph_FloatTensor, "Cos">;
def Graph_SoftplusOp : Graph_UnaryOp<"softplus", Graph_FloatTensor, "Softplus">;
def Graph_HardSwishOp : Graph_UnaryOp<"hard_swish", Graph_FloatTensor, "HardSwish">;
def Graph_NotOp : Graph_UnaryOp<"not", Graph_BoolTensor, "Not"> {
  let hasFolder = 1;
}

def Graph_TanOp : Graph_UnaryOp<"tan", Graph_FloatTensor, "Tan">;
def Graph_SinhOp : Graph_UnaryOp<"sinh", Graph_FloatTensor, "Sinh">;
def Graph_CoshOp : Graph_UnaryOp<"cosh", Graph_FloatTensor, "Cosh">;
def Graph_AsinOp : Graph_UnaryOp<"asin", Graph_FloatTensor, "Asin">;
def Graph_AcosOp : Graph_UnaryOp<"acos", Graph_FloatTensor, "Acos">;
def Graph_AtanOp : Graph_UnaryOp<"atan", Graph_FloatTensor, "Atan">;
def Graph_AsinhOp : Graph_UnaryOp<"asinh", Graph_FloatTensor, "Asinh">;
def Graph_AcoshOp : Graph_UnaryOp<"acosh", Graph_FloatTensor, "Acosh">;
def Graph_AtanhOp : Graph_UnaryOp<"atanh", Graph_FloatTensor, "Atanh">;
def Graph_SignOp : Graph_UnaryOp<"sign", Graph_NumericTensor, "Sign">;
def Graph_SoftsignOp : Graph_UnaryOp<"softsign", Graph_FloatTensor, "Softsign">;
def Graph_MishOp : Graph_UnaryOp<"mish", Graph_FloatTensor, "Mish">;

/// Elementwise tests whose result is i1 of the input's shape.
class Graph_PredicateOp<string mnemonic, string onnxName>
    : Graph_InferOp<mnemonic, [SameOperandsAndResultShape, Graph_Elementwise], [{
  ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *ctx,
      std::optional<::mlir::Location>, Adaptor adaptor,
      ::llvm::SmallVectorImpl<::mlir::Type> &types) {
    auto type = ::mlir::cast<::mlir::TensorType>(adaptor.getInput().getType());
    types.push_back(type.clone(::mlir::IntegerType::get(ctx, 1)));
    return ::mlir::success();
  }
}]> {
  let summary = "Elementwise " # onnxName # " (an i1 result)";
  let results = (outs Graph_BoolTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Graph_IsNaNOp : Graph_PredicateOp<"is_nan", "IsNaN"> {
  let arguments = (ins Graph_FloatTensor:$input);
}
def Graph_IsInfOp : Graph_PredicateOp<"is_inf", "IsInf"> {
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_negative,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_positive);
}

/// Unary ops with float attributes (defaults as in ONNX).
def Graph_LeakyReluOp : Graph_UnaryOp<"leaky_relu", Graph_FloatTensor, "LeakyRelu"> {
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.01">:$alpha);
}
def Graph_EluOp : Graph_UnaryOp<"elu", Graph_FloatTensor, "Elu"> {
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}
def Graph_SeluOp : Graph_UnaryOp<"selu", Graph_FloatTensor, "Selu"> {
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.67326319217681884765625">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.05070102214813232421875">:$gamma);
}
def Graph_HardSigmoidOp : Graph_UnaryOp<"hard_sigmoid", Graph_FloatTensor, "HardSigmoid"> {
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.2">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.5">:$beta);
}
def Graph_CeluOp : Graph_UnaryOp<"celu", Graph_FloatTensor, "Celu"> {
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}
def Graph_ThresholdedReluOp
    : Graph_UnaryOp<"thresholded_relu", Graph_FloatTensor, "ThresholdedRelu"> {
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}
def Graph_ShrinkOp : Graph_UnaryOp<"shrink", Graph_NumericTensor, "Shrink"> {
  let arguments = (ins Graph_NumericTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.0">:$bias,
                       DefaultValuedAttr<F32Attr, "0.5">:$lambd);
}
def Graph_GeluOp : Graph_UnaryOp<"gelu", Graph_FloatTensor, "Gelu"> {
  let description = [{
    ONNX `Gelu` (opset 20). `approximate = true` selects the tanh form.
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<BoolAttr, "false">:$approximate);
}

def Graph_ClipOp : Graph_InferOp<"clip", [SameOperandsAndResultElementType,
                                          AttrSizedOperandSegments,
                                          Graph_Elementwise],
                                 Graph_SameAsInputImpl> {
  let summary = "Elementwise clamp to optional scalar bounds (ONNX Clip)";
  let description = [{
    `min` and `max` are optional rank-0 tensors, as in opset 11 and later;
    the importer turns the attribute form of older opsets into constants.
  }];
  let arguments = (ins Graph_NumericTensor:$input,
                       Optional<Graph_NumericTensor>:$min,
                       Optional<Graph_NumericTensor>:$max);
  let results = (outs Graph_NumericTensor:$output);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_CastOp : Graph_Op<"cast", [Pure, SameOperandsAndResultShape,
                                     Graph_Elementwise]> {
  let summary = "Elementwise type conversion (ONNX Cast)";
  let description = [{
    Converts every element to the result's element type with ONNX rules
    (float to int truncates toward zero; to bool is `!= 0`).
  }];
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary and ternary, with numpy broadcasting
//===----------------------------------------------------------------------===//

/// Operands broadcast numpy-style; the result has the lhs element type.
class Graph_BinaryOp<string mnemonic, Type operandType, string onnxName,
                     list<Trait> traits = []>
    : Graph_InferOp<mnemonic, traits # [Graph_Elementwise],
                    Graph_BroadcastImpl<"false">.impl> {
  let summary = "Elementwise " # onnxName # " with broadcasting";
  let description = "ONNX `" # onnxName # "`: operands broadcast as in numpy.";
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

/// Like Graph_BinaryOp, but the result is i1.
class Graph_CompareOp<string mnemonic, Type operandType, string onnxName,
                      list<Trait> traits = []>
    : Graph_InferOp<mnemonic, traits # [Graph_Elementwise],
                    Graph_BroadcastImpl<"true">.impl> {
  let summary = "Elementwise " # onnxName # " with broadcasting";
  let description = "ONNX `" # onnxName # "`: operands broadcast as in numpy.";
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs Graph_BoolTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}
def Graph_AddOp : Graph_BinaryOp<"add", Graph_NumericTensor, "Add", [Commutative]> {
  let hasFolder = 1;
}
def Graph_SubOp : Graph_BinaryOp<"sub", Graph_NumericTensor, "Sub", []> {
  let hasFolder = 1;
}
def Graph_MulOp : Graph_BinaryOp<"mul", Graph_NumericTensor, "Mul", [Commutative]> {
  let hasFolder = 1;
}
def Graph_DivOp : Graph_BinaryOp<"div", Graph_NumericTensor, "Div", []> {
  let hasFolder = 1;
}
def Graph_PowOp : Graph_BinaryOp<"pow", Graph_NumericTensor, "Pow", []>;
def Graph_MaxOp : Graph_BinaryOp<"max", Graph_NumericTensor, "Max", [Commutative]>;
def Graph_MinOp : Graph_BinaryOp<"min", Graph_NumericTensor, "Min", [Commutative]>;
def Graph_ModOp : Graph_BinaryOp<"mod", Graph_NumericTensor, "Mod", []> {
  let description = [{
    ONNX `Mod`: with `fmod` the result has the sign of the dividend (C
    `fmod`), otherwise the sign of the divisor (Python `%`).
  }];
  let arguments = (ins Graph_NumericTensor:$lhs, Graph_NumericTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$fmod);
}
def Graph_PReluOp : Graph_BinaryOp<"prelu", Graph_NumericTensor, "PRelu">;
def Graph_BitShiftOp : Graph_BinaryOp<"bit_shift", Graph_NumericTensor, "BitShift", []> {
  let description = [{
    ONNX `BitShift` on unsigned integers: `lhs` shifted by `rhs` bits, to
    the left when `left` is set, else to the right (logical). Shifting by
    the bit width or more gives 0.
  }];
  let arguments = (ins Graph_NumericTensor:$lhs, Graph_NumericTensor:$rhs,
                       BoolAttr:$left);
}
def Graph_AndOp : Graph_BinaryOp<"and", Graph_BoolTensor, "And", [Commutative]>;
def Graph_OrOp : Graph_BinaryOp<"or", Graph_BoolTensor, "Or", [Commutative]>;
def Graph_XorOp : Graph_BinaryOp<"xor", Graph_BoolTensor, "Xor", [Commutative]>;
def Graph_EqualOp : Graph_CompareOp<"equal", Graph_Tensor, "Equal", [Commutative]>;
def Graph_LessOp : Graph_CompareOp<"less", Graph_Tensor, "Less", []>;
def Graph_LessOrEqualOp : Graph_CompareOp<"less_or_equal", Graph_Tensor, "LessOrEqual", []>;
def Graph_GreaterOp : Graph_CompareOp<"greater", Graph_Tensor, "Greater", []>;
def Graph_GreaterOrEqualOp : Graph_CompareOp<"greater_or_equal", Graph_Tensor, "GreaterOrEqual", []>;

def Graph_WhereOp : Graph_InferOp<"where", [Graph_Elementwise]> {
  let summary = "Elementwise select with broadcasting (ONNX Where)";
  let arguments = (ins Graph_BoolTensor:$condition, Graph_Tensor:$lhs,
                       Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Graph_MatMulOp : Graph_InferOp<"matmul"> {
  let summary = "Matrix product with numpy semantics (ONNX MatMul)";
  let description = [{
    Rank-1 operands are promoted as in `numpy.matmul` and the promoted
    dimension is removed from the result; batch dimensions broadcast.
  }];
  let arguments = (ins Graph_NumericTensor:$lhs, Graph_NumericTensor:$rhs);
  let results = (outs Graph_NumericTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Graph_GemmOp : Graph_InferOp<"gemm"> {
  let summary = "General matrix multiply (ONNX Gemm)";
  let description = [{
    `alpha * op(A) * op(B) + beta * C`, where `op` transposes when
    `trans_a`/`trans_b` is set and `C` broadcasts to `[M, N]`.
  }];
  let arguments = (ins Graph_NumericTensor:$a, Graph_NumericTensor:$b,
                       Optional<Graph_NumericTensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_b);
  let results = (outs Graph_NumericTensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (NCHW, any number of spatial dims)
//===----------------------------------------------------------------------===//

def Graph_ConvOp : Graph_InferOp<"conv"> {
  let summary = "N-d convolution (ONNX Conv)";
  let description = [{
    `input` is `[N, C, D1...Dn]`, `weight` is `[M, C/group, k1...kn]`,
    `bias` is `[M]`. `pads` holds the begin values of all spatial dims and
    then the end values. Absent `strides`/`dilations` mean 1, absent
    `pads` mean 0, `auto_pad` other than `notset` derives the pads.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$weight,
                       Optional<Graph_FloatTensor>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DefaultValuedAttr<Graph_AutoPadAttr,
                                         "::mlc::graph::AutoPad::NotSet">:$auto_pad);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

/// Shared by MaxPool and AveragePool.
class Graph_PoolOp<string mnemonic, string onnxName, dag extraArgs,
                   Type tensorType = Graph_FloatTensor>
    : Graph_InferOp<mnemonic, [SameOperandsAndResultElementType]> {
  let summary = "N-d " # onnxName # " pooling";
  let description = [{
    Window attributes as in `mlc_graph.conv`; `ceil_mode` rounds the output
    size up.
  }];
  let arguments = !con((ins tensorType:$input,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<Graph_AutoPadAttr,
                                         "::mlc::graph::AutoPad::NotSet">:$auto_pad),
                       extraArgs);
  let results = (outs tensorType:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_MaxPoolOp : Graph_PoolOp<"max_pool", "MaxPool", (ins),
                                   Graph_NumericTensor>;
def Graph_MaxPoolIndicesOp : Graph_InferOp<"max_pool_indices"> {
  let summary = "The indices output of ONNX MaxPool";
  let description = [{
    For each window of `mlc_graph.max_pool` with the same attributes, the
    flat index into the input of its (first) maximum: over (n, c, spatial...)
    in row-major order, or with the spatial dims in column-major order when
    `storage_order` is 1. Padding is not counted.
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<Graph_AutoPadAttr,
                                         "::mlc::graph::AutoPad::NotSet">:$auto_pad,
                       DefaultValuedAttr<I64Attr, "0">:$storage_order);
  let results = (outs Graph_I64Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Graph_AveragePoolOp : Graph_PoolOp<"average_pool", "AveragePool",
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad)>;

class Graph_GlobalPoolOp<string mnemonic, string onnxName>
    : Graph_InferOp<mnemonic, [SameOperandsAndResultElementType]> {
  let summary = onnxName # ": pool over all spatial dims, keeping them as 1";
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Graph_GlobalAveragePoolOp
    : Graph_GlobalPoolOp<"global_average_pool", "GlobalAveragePool">;
def Graph_GlobalMaxPoolOp : Graph_GlobalPoolOp<"global_max_pool", "GlobalMaxPool">;

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Graph_BatchNormOp : Graph_InferOp<"batch_norm"> {
  let summary = "Inference-mode batch normalization (ONNX BatchNormalization)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` along dim 1; the four
    parameters are `[C]` tensors.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$bias, Graph_FloatTensor:$mean,
                       Graph_FloatTensor:$variance,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_InstanceNormOp : Graph_InferOp<"instance_norm"> {
  let summary = "ONNX InstanceNormalization";
  let description = [{
    Normalizes each (sample, channel) over the spatial dims, then scales and
    shifts by the `[C]` tensors `scale` and `bias`.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_LayerNormOp : Graph_InferOp<"layer_norm"> {
  let summary = "Layer normalization (ONNX LayerNormalization)";
  let description = [{
    Normalizes over dims `[axis, rank)`; `scale` and `bias` broadcast to
    those dims.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Optional<Graph_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

class Graph_SoftmaxBase<string mnemonic, string onnxName>
    : Graph_InferOp<mnemonic, [SameOperandsAndResultElementType]> {
  let summary = onnxName # " along one axis (opset 13 semantics)";
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Graph_SoftmaxOp : Graph_SoftmaxBase<"softmax", "Softmax">;
def Graph_LogSoftmaxOp : Graph_SoftmaxBase<"log_softmax", "LogSoftmax">;
def Graph_HardmaxOp : Graph_SoftmaxBase<"hardmax", "Hardmax">;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Absent `axes` reduce every dim unless `noop_with_empty_axes` is set.
class Graph_ReduceOp<string mnemonic, string onnxName>
    : Graph_InferOp<mnemonic, [AllElementTypesMatch<["input", "output"]>]> {
  let summary = "ONNX " # onnxName;
  let description = [{
    Reduces `input` over `axes` (negative values count from the back);
    `keepdims` keeps reduced dims as 1. Axes computed at run time are the
    operand `dynamic_axes` instead of the attribute: the result then knows
    its rank (with `keepdims`, or from the operand's length) but not which
    dims shrink; canonicalization moves a constant operand into `axes`.
  }];
  let arguments = (ins Graph_NumericTensor:$input,
                       OptionalAttr<DenseI64ArrayAttr>:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$noop_with_empty_axes,
                       Optional<Graph_I64Tensor>:$dynamic_axes);
  let results = (outs Graph_NumericTensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::DenseI64ArrayAttr":$axes,
                   CArg<"::mlir::BoolAttr", "{}">:$keepdims,
                   CArg<"::mlir::BoolAttr", "{}">:$noop_with_empty_axes), [{
      build($_builder, $_state, input, axes, keepdims, noop_with_empty_axes,
            ::mlir::Value());
    }]>];
  let assemblyFormat = [{
    $input (`axes` $dynamic_axes^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}
def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "ReduceSum">;
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "ReduceMean">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "ReduceMax">;
def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", "ReduceMin">;
def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod", "ReduceProd">;
def Graph_ReduceL2Op : Graph_ReduceOp<"reduce_l2", "ReduceL2">;
def Graph_ReduceLogSumExpOp : Graph_ReduceOp<"reduce_log_sum_exp", "ReduceLogSumExp">;
def Graph_ReduceLogSumOp : Graph_ReduceOp<"reduce_log_sum", "ReduceLogSum">;
def Graph_ReduceL1Op : Graph_ReduceOp<"reduce_l1", "ReduceL1">;
def Graph_ReduceSumSquareOp : Graph_ReduceOp<"reduce_sum_square", "ReduceSumSquare">;

class Graph_ArgReduceOp<string mnemonic, string onnxName>
    : Graph_InferOp<mnemonic> {
  let summary = "ONNX " # onnxName # ": index of the extreme along one axis";
  let arguments = (ins Graph_NumericTensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs Graph_I64Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Graph_ArgMaxOp : Graph_ArgReduceOp<"arg_max", "ArgMax">;
def Graph_ArgMinOp : Graph_ArgReduceOp<"arg_min", "ArgMin">;

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_InferOp<"reshape"> {
  let summary = "ONNX Reshape";
  let description = [{
    `shape` is a 1-D i64 tensor; `0` copies the input dim (unless
    `allowzero`) and one `-1` is inferred. The result is static where the
    shape is a constant.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Tensor:$shape,
                       DefaultValuedAttr<BoolAttr, "false">:$allowzero);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_FlattenOp : Graph_InferOp<"flatten", [SameOperandsAndResultElementType]> {
  let summary = "ONNX Flatten: collapse to 2-D around `axis`";
  let arguments = (ins Graph_Tensor:$input, DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

/// Squeeze and Unsqueeze: `axes` as an attribute, or computed at run time
/// as the operand `dynamic_axes` (the result then has only its rank).
class Graph_AxesReshapeOp<string mnemonic, string summaryText, string descText>
    : Graph_InferOp<mnemonic, [AllElementTypesMatch<["input", "output"]>]> {
  let summary = summaryText;
  let description = descText # [{
    Axes computed at run time are the operand `dynamic_axes` instead of the
    attribute; canonicalization moves a constant operand into `axes`.
  }];
  let arguments = (ins Graph_Tensor:$input, OptionalAttr<DenseI64ArrayAttr>:$axes,
                       Optional<Graph_I64Tensor>:$dynamic_axes);
  let results = (outs Graph_Tensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::DenseI64ArrayAttr":$axes), [{
      build($_builder, $_state, input, axes, ::mlir::Value());
    }]>];
  let assemblyFormat = [{
    $input (`axes` $dynamic_axes^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Graph_SqueezeOp : Graph_AxesReshapeOp<"squeeze", "ONNX Squeeze: drop size-1 dims",
    "Absent `axes` drop every static size-1 dim.">;

def Graph_UnsqueezeOp : Graph_AxesReshapeOp<"unsqueeze",
    "ONNX Unsqueeze: insert size-1 dims at `axes` of the result",
    "One of `axes` and `dynamic_axes` is required.">;

def Graph_TransposeOp : Graph_InferOp<"transpose", [SameOperandsAndResultElementType]> {
  let summary = "ONNX Transpose";
  let description = [{
    Result dim `i` is input dim `perm[i]`; absent `perm` reverses the dims.
  }];
  let arguments = (ins Graph_Tensor:$input, OptionalAttr<DenseI64ArrayAttr>:$perm);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_ConcatOp : Graph_InferOp<"concat"> {
  let summary = "ONNX Concat along `axis`";
  let arguments = (ins Variadic<Graph_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_SliceOp : Graph_InferOp<"slice", [AttrSizedOperandSegments]> {
  let summary = "ONNX Slice (opset 13 form: bounds are operands)";
  let description = [{
    `starts`, `ends`, `axes` and `steps` are 1-D i32/i64 tensors of one
    length; absent `axes` mean `[0, n)`, absent `steps` mean 1. Bounds are
    clamped as in ONNX. The result is static where the bounds are constants.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IndexTensor:$starts,
                       Graph_IndexTensor:$ends,
                       Optional<Graph_IndexTensor>:$axes,
                       Optional<Graph_IndexTensor>:$steps);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $starts `,` $ends (`axes` $axes^)? (`steps` $steps^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Graph_GatherOp : Graph_InferOp<"gather"> {
  let summary = "ONNX Gather along `axis`";
  let description = [{
    The result shape is `data[:axis] + indices + data[axis+1:]`.
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Graph_PadOp : Graph_InferOp<"pad"> {
  let summary = "ONNX Pad (opset 13 form)";
  let description = [{
    `pads` is a 1-D i64 tensor of `2 * rank` values (all begins, then all
    ends); negative values crop. `constant_value` is an optional scalar.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Tensor:$pads,
                       Optional<Graph_Tensor>:$constant_value,
                       DefaultValuedAttr<Graph_PadModeAttr,
                                         "::mlc::graph::PadMode::Constant">:$mode);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $pads (`value` $constant_value^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_ExpandOp : Graph_InferOp<"expand"> {
  let summary = "ONNX Expand: broadcast to `shape`";
  let arguments = (ins Graph_Tensor:$input, Graph_I64Tensor:$shape);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
}

def Graph_ShapeOp : Graph_InferOp<"shape"> {
  let summary = "ONNX Shape: the dims of `input` as a 1-D i64 tensor";
  let arguments = (ins Graph_Tensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$start,
                       OptionalAttr<I64Attr>:$end);
  let results = (outs Graph_I64Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

include "mlc/Dialect/Graph/IR/GraphIndexingOps.td"
include "mlc/Dialect/Graph/IR/GraphSpatialOps.td"
include "mlc/Dialect/Graph/IR/GraphQuantOps.td"
include "mlc/Dialect/Graph/IR/GraphControlFlowOps.td"
include "mlc/Dialect/Graph/IR/GraphSequenceOps.td"
include "mlc/Dialect/Graph/IR/GraphSelectionOps.td"
include "mlc/Dialect/Graph/IR/GraphContainerOps.td"

#endif // MLC_DIALECT_GRAPH_IR_GRAPHOPS_TD
