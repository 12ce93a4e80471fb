//===- GraphSpatialOps.td - ConvTranspose and Resize -------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Ops that resample a map's spatial dims: transposed convolution and
// Resize/Upsample. Included from GraphOps.td; shape functions in
// lib/Dialect/Graph/IR/GraphSpatialShapes.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHSPATIALOPS_TD
#define MLC_DIALECT_GRAPH_IR_GRAPHSPATIALOPS_TD

def Graph_ConvTransposeOp : Graph_InferOp<"conv_transpose"> {
  let summary = "N-d transposed convolution (ONNX ConvTranspose)";
  let description = [{
    `weight` is `[C, M/group, k1...kn]`. Each output dim is
    `stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pads`;
    `output_shape`, when given, fixes the spatial output dims and the pads
    are derived from it (SAME_UPPER placement).
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$weight,
                       Optional<Graph_FloatTensor>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                       OptionalAttr<DenseI64ArrayAttr>:$output_shape,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DefaultValuedAttr<Graph_AutoPadAttr,
                                         "::mlc::graph::AutoPad::NotSet">:$auto_pad);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_ResizeOp : Graph_InferOp<"resize", [AttrSizedOperandSegments]> {
  let summary = "ONNX Resize (opset 11+ form)";
  let description = [{
    Output dims come from `sizes` or `floor(input * scales)`. `mode` is
    `nearest`, `linear` or `cubic`; the other attributes have their ONNX
    meaning and defaults (`antialias`: opset 18's antialiasing filter for
    `linear` and `cubic` when downsampling). With `sizes`, the coordinate
    transformation divides by `output / input` on each axis, or by
    `sizes_scales` when given: the importer resolves opset 18's
    `keep_aspect_ratio_policy` into the rounded output sizes and the one
    scale it implies for the resized axes.
  }];
  let arguments = (ins Graph_Tensor:$input,
                       Optional<Graph_FloatTensor>:$roi,
                       Optional<Graph_FloatTensor>:$scales,
                       Optional<Graph_I64Tensor>:$sizes,
                       DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                       DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
                       DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode,
                       DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
                       DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                       DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value,
                       DefaultValuedAttr<BoolAttr, "false">:$antialias,
                       OptionalAttr<DenseF64ArrayAttr>:$sizes_scales);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input (`roi` $roi^)? (`scales` $scales^)? (`sizes` $sizes^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

#endif // MLC_DIALECT_GRAPH_IR_GRAPHSPATIALOPS_TD
