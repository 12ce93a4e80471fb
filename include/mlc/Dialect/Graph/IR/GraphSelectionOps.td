//===- GraphSelectionOps.td - Ops sized by values ----------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Ops whose result sizes depend on input values, not only on input shapes:
// selections (Compress, Unique, NonMaxSuppression, StringNormalizer's
// stopwords) and the signal ops whose sizes are scalar inputs (STFT,
// MelWeightMatrix). Their results carry `?`
// where a value decides the size. Included from GraphOps.td; shape
// functions in lib/Dialect/Graph/IR/GraphSelectionShapes.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHSELECTIONOPS_TD
#define MLC_DIALECT_GRAPH_IR_GRAPHSELECTIONOPS_TD

def Graph_CompressOp : Graph_InferOp<"compress",
    [AllElementTypesMatch<["input", "output"]>]> {
  let summary = "ONNX Compress: the slices along `axis` where `condition` holds";
  let description = [{
    `condition` is 1-D; entries past its end count as false. Without
    `axis` the input is flattened first. The result has as many entries
    along the axis as `condition` has true values.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_BoolTensor:$condition,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $condition attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_UniqueOp : Graph_InferOp<"unique",
    [AllElementTypesMatch<["input", "output"]>]> {
  let summary = "ONNX Unique: distinct elements or slices along `axis`";
  let description = [{
    `output` holds the distinct values (flattened input without `axis`,
    else slices along it), ascending when `sorted`, else in order of first
    occurrence; `indices` the first occurrence of each, `inverse_indices`
    which output entry each input entry is, `counts` how often each occurs.
  }];
  let arguments = (ins Graph_Tensor:$input, OptionalAttr<I64Attr>:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Graph_Tensor:$output, Graph_I64Tensor:$indices,
                      Graph_I64Tensor:$inverse_indices,
                      Graph_I64Tensor:$counts);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_NonMaxSuppressionOp : Graph_InferOp<"non_max_suppression",
    [AttrSizedOperandSegments]> {
  let summary = "ONNX NonMaxSuppression: [selected, 3] (batch, class, box)";
  let description = [{
    `boxes` is [batch, boxes, 4], corners (y1, x1, y2, x2) in either order,
    or (x_center, y_center, width, height) with `center_point_box`;
    `scores` [batch, classes, boxes]. Per batch and class, boxes are taken
    by descending score while above `score_threshold`, dropping any whose
    IoU with a taken one exceeds `iou_threshold`, at most
    `max_output_boxes_per_class` (absent or 0: none) per class.
  }];
  let arguments = (ins Graph_FloatTensor:$boxes, Graph_FloatTensor:$scores,
                       Optional<Graph_I64Tensor>:$max_output_boxes_per_class,
                       Optional<Graph_FloatTensor>:$iou_threshold,
                       Optional<Graph_FloatTensor>:$score_threshold,
                       DefaultValuedAttr<BoolAttr, "false">:$center_point_box);
  let results = (outs Graph_I64Tensor:$selected_indices);
  let assemblyFormat = [{
    $boxes `,` $scores (`max_output` $max_output_boxes_per_class^)?
    (`iou` $iou_threshold^)? (`score` $score_threshold^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Graph_STFTOp : Graph_InferOp<"stft", [AttrSizedOperandSegments]> {
  let summary = "ONNX STFT (opset 17): short-time Fourier transform";
  let description = [{
    `signal` is [batch, length, 1] (real) or [batch, length, 2] (complex);
    frames of `frame_length` samples (else the window's length) start every
    `frame_step`, are multiplied by `window` when given and transformed.
    The result is [batch, frames, bins, 2], with `frame_length / 2 + 1`
    bins when `onesided`.
  }];
  let arguments = (ins Graph_FloatTensor:$signal, Graph_IndexTensor:$frame_step,
                       Optional<Graph_FloatTensor>:$window,
                       Optional<Graph_IndexTensor>:$frame_length,
                       DefaultValuedAttr<BoolAttr, "true">:$onesided);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $signal `,` $frame_step (`window` $window^)? (`length` $frame_length^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_MelWeightMatrixOp : Graph_InferOp<"mel_weight_matrix"> {
  let summary = "ONNX MelWeightMatrix (opset 17): [dft_length / 2 + 1, num_mel_bins]";
  let description = [{
    Triangular filters, evenly spaced on the mel scale between
    `lower_edge_hertz` and `upper_edge_hertz`, mapping the one-sided DFT
    bins of a `dft_length`-point transform at `sample_rate` to
    `num_mel_bins` mel bins. The result element type is the one of
    `output_datatype`.
  }];
  let arguments = (ins Graph_IndexTensor:$num_mel_bins,
                       Graph_IndexTensor:$dft_length,
                       Graph_IndexTensor:$sample_rate,
                       Graph_FloatTensor:$lower_edge_hertz,
                       Graph_FloatTensor:$upper_edge_hertz,
                       TypeAttr:$output_type);
  let results = (outs Graph_NumericTensor:$output);
  let assemblyFormat = [{
    $num_mel_bins `,` $dft_length `,` $sample_rate `,` $lower_edge_hertz `,`
    $upper_edge_hertz attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_StringNormalizerOp : Graph_InferOp<"string_normalizer",
    [AllElementTypesMatch<["input", "output"]>]> {
  let summary = "ONNX StringNormalizer: drop stopwords, change case";
  let description = [{
    `input` is [C] or [1, C]. Entries equal to a stopword (ignoring case
    unless `is_case_sensitive`) are dropped, so the last dim is `?` when
    there are stopwords; `case_change_action` is `LOWER`, `UPPER` or
    `NONE`.
  }];
  let arguments = (ins Graph_StringTensor:$input,
                       DefaultValuedAttr<StrAttr, "\"NONE\"">:$case_change_action,
                       DefaultValuedAttr<BoolAttr, "false">:$is_case_sensitive,
                       OptionalAttr<StrAttr>:$locale,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$stopwords);
  let results = (outs Graph_StringTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

#endif // MLC_DIALECT_GRAPH_IR_GRAPHSELECTIONOPS_TD
