//===- GraphQuantOps.td - Quantization ops of mlc_graph ----*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The ONNX quantization ops as onnxruntime's quantization tools emit them:
// QuantizeLinear/DequantizeLinear (QDQ form), DynamicQuantizeLinear, and the
// integer compute ops (MatMulInteger, ConvInteger, QLinearMatMul,
// QLinearConv). Shape functions in lib/Dialect/Graph/IR/GraphQuantShapes.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHQUANTOPS_TD
#define MLC_DIALECT_GRAPH_IR_GRAPHQUANTOPS_TD

def Graph_QuantizeLinearOp : Graph_InferOp<"quantize_linear"> {
  let summary = "ONNX QuantizeLinear: saturate(round(x / scale) + zero_point)";
  let description = [{
    Per-tensor (scalar `scale`) or per-axis (1-D `scale` along `axis`). The
    result element type is the zero point's, `ui8` without one.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Optional<TensorOf<[AnyInteger]>>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs TensorOf<[AnyInteger]>:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_DequantizeLinearOp : Graph_InferOp<"dequantize_linear"> {
  let summary = "ONNX DequantizeLinear: (x - zero_point) * scale";
  let arguments = (ins TensorOf<[AnyInteger]>:$input, Graph_FloatTensor:$scale,
                       Optional<TensorOf<[AnyInteger]>>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_DynamicQuantizeLinearOp : Graph_InferOp<"dynamic_quantize_linear"> {
  let summary = "ONNX DynamicQuantizeLinear: ui8 data, f32 scale, ui8 zero point";
  let arguments = (ins TensorOf<[F32]>:$input);
  let results = (outs TensorOf<[UI8]>:$output, TensorOf<[F32]>:$scale,
                      TensorOf<[UI8]>:$zero_point);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_MatMulIntegerOp : Graph_InferOp<"matmul_integer", [AttrSizedOperandSegments]> {
  let summary = "ONNX MatMulInteger: (a - a_zero_point) x (b - b_zero_point) in i32";
  let arguments = (ins TensorOf<[AnyInteger]>:$lhs, TensorOf<[AnyInteger]>:$rhs,
                       Optional<TensorOf<[AnyInteger]>>:$lhs_zero_point,
                       Optional<TensorOf<[AnyInteger]>>:$rhs_zero_point);
  let results = (outs TensorOf<[I32]>:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs (`lhs_zero_point` $lhs_zero_point^)?
    (`rhs_zero_point` $rhs_zero_point^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_QLinearMatMulOp : Graph_InferOp<"qlinear_matmul"> {
  let summary = "ONNX QLinearMatMul: quantized matmul with requantization";
  let arguments = (ins TensorOf<[AnyInteger]>:$lhs, Graph_FloatTensor:$lhs_scale,
                       TensorOf<[AnyInteger]>:$lhs_zero_point,
                       TensorOf<[AnyInteger]>:$rhs, Graph_FloatTensor:$rhs_scale,
                       TensorOf<[AnyInteger]>:$rhs_zero_point,
                       Graph_FloatTensor:$output_scale,
                       TensorOf<[AnyInteger]>:$output_zero_point);
  let results = (outs TensorOf<[AnyInteger]>:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

/// Convolution attributes shared by ConvInteger and QLinearConv.
class Graph_QuantConvOp<string mnemonic, string onnxName, dag operands,
                        list<Trait> traits, string format>
    : Graph_InferOp<mnemonic, traits> {
  let summary = "ONNX " # onnxName;
  let arguments = !con(operands, (ins
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DefaultValuedAttr<Graph_AutoPadAttr,
                                         "::mlc::graph::AutoPad::NotSet">:$auto_pad));
  let results = (outs TensorOf<[AnyInteger]>:$output);
  let assemblyFormat = format;
}

def Graph_ConvIntegerOp : Graph_QuantConvOp<"conv_integer", "ConvInteger",
    (ins TensorOf<[AnyInteger]>:$input, TensorOf<[AnyInteger]>:$weight,
         Optional<TensorOf<[AnyInteger]>>:$input_zero_point,
         Optional<TensorOf<[AnyInteger]>>:$weight_zero_point),
    [AttrSizedOperandSegments], [{
      $input `,` $weight (`input_zero_point` $input_zero_point^)?
      (`weight_zero_point` $weight_zero_point^)? attr-dict `:`
      functional-type(operands, results)
    }]>;

def Graph_QLinearConvOp : Graph_QuantConvOp<"qlinear_conv", "QLinearConv",
    (ins TensorOf<[AnyInteger]>:$input, Graph_FloatTensor:$input_scale,
         TensorOf<[AnyInteger]>:$input_zero_point,
         TensorOf<[AnyInteger]>:$weight, Graph_FloatTensor:$weight_scale,
         TensorOf<[AnyInteger]>:$weight_zero_point,
         Graph_FloatTensor:$output_scale,
         TensorOf<[AnyInteger]>:$output_zero_point,
         Optional<TensorOf<[I32]>>:$bias),
    [], "operands attr-dict `:` functional-type(operands, results)">;

#endif // MLC_DIALECT_GRAPH_IR_GRAPHQUANTOPS_TD
