//===- GraphSequenceOps.td - Recurrent ops and Einsum ------*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX RNN, GRU and LSTM (whole sequences, every direction and layout), and
// Einsum. Shape functions in lib/Dialect/Graph/IR/GraphSequenceShapes.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHSEQUENCEOPS_TD
#define MLC_DIALECT_GRAPH_IR_GRAPHSEQUENCEOPS_TD

/// Attributes every recurrent op shares, with ONNX's meaning and defaults.
class Graph_RecurrentOp<string mnemonic, string onnxName, int gates,
                        dag extraOperands, dag extraAttrs, dag resultList,
                        string extraFormat = "">
    : Graph_InferOp<mnemonic, [AttrSizedOperandSegments]> {
  let summary = "ONNX " # onnxName # " over a whole sequence";
  let description = [{
    `input` is `[seq, batch, input_size]` (`layout = 0`) or `[batch, seq,
    input_size]` (`layout = 1`). `weight` is `[directions, gates *
    hidden_size, input_size]`, `recurrence` `[directions, gates *
    hidden_size, hidden_size]`. `direction` is `forward`, `reverse` or
    `bidirectional`; `activations` lists the activation functions per
    direction as ONNX names them. The outputs are the hidden states of
    every step (`Y`) and the last hidden state (`Y_h`), plus the last cell
    state (`Y_c`) for LSTM.
  }];
  let arguments = !con((ins Graph_FloatTensor:$input,
                            Graph_FloatTensor:$weight,
                            Graph_FloatTensor:$recurrence,
                            Optional<Graph_FloatTensor>:$bias,
                            Optional<Graph_IndexTensor>:$sequence_lens,
                            Optional<Graph_FloatTensor>:$initial_h),
                       extraOperands,
                       (ins I64Attr:$hidden_size,
                            DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
                            OptionalAttr<StrArrayAttr>:$activations,
                            OptionalAttr<F32ArrayAttr>:$activation_alpha,
                            OptionalAttr<F32ArrayAttr>:$activation_beta,
                            OptionalAttr<F32Attr>:$clip,
                            DefaultValuedAttr<I64Attr, "0">:$layout),
                       extraAttrs);
  let results = resultList;
  let assemblyFormat = "$input `,` $weight `,` $recurrence "
      "(`bias` $bias^)? (`sequence_lens` $sequence_lens^)? "
      "(`initial_h` $initial_h^)? " # extraFormat #
      " attr-dict `:` functional-type(operands, results)";
  int numGates = gates;
}

def Graph_RNNOp : Graph_RecurrentOp<"rnn", "RNN", 1, (ins), (ins),
    (outs Graph_FloatTensor:$y, Graph_FloatTensor:$y_h)>;
def Graph_GRUOp : Graph_RecurrentOp<"gru", "GRU", 3, (ins),
    (ins DefaultValuedAttr<BoolAttr, "false">:$linear_before_reset),
    (outs Graph_FloatTensor:$y, Graph_FloatTensor:$y_h)>;
def Graph_LSTMOp : Graph_RecurrentOp<"lstm", "LSTM", 4,
    (ins Optional<Graph_FloatTensor>:$initial_c,
         Optional<Graph_FloatTensor>:$peepholes),
    (ins DefaultValuedAttr<BoolAttr, "false">:$input_forget),
    (outs Graph_FloatTensor:$y, Graph_FloatTensor:$y_h, Graph_FloatTensor:$y_c),
    "(`initial_c` $initial_c^)? (`peepholes` $peepholes^)?">;

def Graph_EinsumOp : Graph_InferOp<"einsum"> {
  let summary = "ONNX Einsum";
  let description = [{
    `equation` is in numpy's form (`bij,bjk->bik`, with `...` for broadcast
    dims); without `->` the output lists the letters used once, sorted.
  }];
  let arguments = (ins Variadic<Graph_NumericTensor>:$inputs, StrAttr:$equation);
  let results = (outs Graph_NumericTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def Graph_GatherNDOp : Graph_InferOp<"gather_nd"> {
  let summary = "ONNX GatherND";
  let arguments = (ins Graph_Tensor:$data, Graph_I64Tensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Graph_ScatterNDOp : Graph_InferOp<"scatter_nd"> {
  let summary = "ONNX ScatterND: `data` with `updates` written at index tuples";
  let arguments = (ins Graph_Tensor:$data, Graph_I64Tensor:$indices,
                       Graph_Tensor:$updates,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_NonZeroOp : Graph_InferOp<"non_zero"> {
  let summary = "ONNX NonZero: the indices of non-zero elements, [rank, count]";
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_I64Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_LRNOp : Graph_InferOp<"lrn", [SameOperandsAndResultElementType]> {
  let summary = "ONNX LRN: local response normalization across channels";
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$size,
                       DefaultValuedAttr<F32Attr, "0.0001">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.75">:$beta,
                       DefaultValuedAttr<F32Attr, "1.0">:$bias);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_GridSampleOp : Graph_InferOp<"grid_sample"> {
  let summary = "ONNX GridSample: X [N, C, H, W] sampled at grid [N, Ho, Wo, 2]";
  let description = [{
    Grid points are (x, y) normalized to [-1, 1]; `mode` is `bilinear`,
    `nearest` or `bicubic`, `padding_mode` `zeros`, `border` or
    `reflection`; `align_corners` maps -1 and 1 to the corner pixels'
    centers instead of their outer edges. The result is [N, C, Ho, Wo].
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$grid,
                       DefaultValuedAttr<StrAttr, "\"bilinear\"">:$mode,
                       DefaultValuedAttr<StrAttr, "\"zeros\"">:$padding_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$align_corners);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input `,` $grid attr-dict `:` functional-type(operands, results)";
}

def Graph_RoiAlignOp : Graph_InferOp<"roi_align"> {
  let summary = "ONNX RoiAlign: pooled [R, C, output_height, output_width] per box";
  let description = [{
    `rois` is [R, 4] boxes (x1, y1, x2, y2) in input coordinates times
    `spatial_scale`, `batch_indices` [R] picks each box's image. Every
    output bin averages (`avg`) or takes the maximum (`max`) of bilinear
    samples on a `sampling_ratio` x `sampling_ratio` grid (0: adaptive,
    ceil(box size / output size)). `half_pixel` shifts box coordinates by
    -0.5; `output_half_pixel` (the opset-10 behaviour) does not and makes
    boxes at least 1x1.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$rois,
                       Graph_I64Tensor:$batch_indices,
                       DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
                       DefaultValuedAttr<StrAttr, "\"avg\"">:$mode,
                       DefaultValuedAttr<I64Attr, "1">:$output_height,
                       DefaultValuedAttr<I64Attr, "1">:$output_width,
                       DefaultValuedAttr<I64Attr, "0">:$sampling_ratio,
                       DefaultValuedAttr<F32Attr, "1.0">:$spatial_scale);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $rois `,` $batch_indices attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_DFTOp : Graph_InferOp<"dft"> {
  let summary = "ONNX DFT (opset 17): discrete Fourier transform along one axis";
  let description = [{
    `input` is [batch, signal..., 1] (real) or [batch, signal..., 2]
    (complex); the result is complex, [batch, signal..., 2], with `axis`
    of length `n` (or `n / 2 + 1` when `onesided`). `inverse` conjugates
    the kernel and scales by 1 / n.
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "1">:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$inverse,
                       DefaultValuedAttr<BoolAttr, "false">:$onesided);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_DetOp : Graph_InferOp<"det"> {
  let summary = "ONNX Det: determinants of the trailing [n, n] matrices";
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_RandomOp : Graph_InferOp<"random"> {
  let summary = "ONNX RandomNormal/RandomUniform (and their *Like forms)";
  let description = [{
    Draws a tensor of the result type: `distribution` is `normal` (`mean`,
    `scale`) or `uniform` (`low` = `mean`, `high` = `scale`). `seed`, when
    present, makes the draw repeatable. The shape comes from `shape` or,
    for the *Like forms, from the optional operand.
  }];
  let arguments = (ins Optional<Graph_Tensor>:$like,
                       StrAttr:$distribution, TypeAttr:$dtype,
                       OptionalAttr<DenseI64ArrayAttr>:$shape,
                       DefaultValuedAttr<F32Attr, "0.0">:$mean,
                       DefaultValuedAttr<F32Attr, "1.0">:$scale,
                       OptionalAttr<F32Attr>:$seed);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "($like^)? attr-dict `:` functional-type(operands, results)";
}

#endif // MLC_DIALECT_GRAPH_IR_GRAPHSEQUENCEOPS_TD
