//===- GraphIndexingOps.td - Generators and indexing ops ---*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Generators (ConstantOfShape, Range, OneHot), indexing (GatherElements,
// ScatterElements, Trilu, Tile, CumSum, ReverseSequence, TopK) and block
// rearrangement (DepthToSpace, SpaceToDepth). Included from GraphOps.td;
// shape functions in lib/Dialect/Graph/IR/GraphIndexingShapes.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHINDEXINGOPS_TD
#define MLC_DIALECT_GRAPH_IR_GRAPHINDEXINGOPS_TD

def Graph_ConstantOfShapeOp : Graph_InferOp<"constant_of_shape"> {
  let summary = "ONNX ConstantOfShape: a tensor of `shape` filled with `value`";
  let description = [{
    `value` is a one-element tensor (default `0.0 : f32`) giving the element
    type and the fill value.
  }];
  let arguments = (ins Graph_I64Tensor:$shape, OptionalAttr<ElementsAttr>:$value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$shape attr-dict `:` functional-type(operands, results)";
}

def Graph_RangeOp : Graph_InferOp<"range"> {
  let summary = "ONNX Range: `start, start + delta, ...` below `limit`";
  let arguments = (ins Graph_NumericTensor:$start, Graph_NumericTensor:$limit,
                       Graph_NumericTensor:$delta);
  let results = (outs Graph_NumericTensor:$output);
  let assemblyFormat = [{
    $start `,` $limit `,` $delta attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_OneHotOp : Graph_InferOp<"one_hot"> {
  let summary = "ONNX OneHot";
  let description = [{
    Inserts a dim of size `depth` at `axis`; `values` is `[off, on]`.
  }];
  let arguments = (ins Graph_NumericTensor:$indices, Graph_NumericTensor:$depth,
                       Graph_Tensor:$values,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $indices `,` $depth `,` $values attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_GatherElementsOp : Graph_InferOp<"gather_elements"> {
  let summary = "ONNX GatherElements: the result has the indices' shape";
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Graph_ScatterElementsOp : Graph_InferOp<"scatter_elements"> {
  let summary = "ONNX ScatterElements: `data` with `updates` written at `indices`";
  let description = [{
    `reduction` is `none`, `add`, `mul`, `max` or `min`.
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       Graph_Tensor:$updates,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_TriluOp : Graph_InferOp<"trilu"> {
  let summary = "ONNX Trilu: keep the upper or lower triangle of the last two dims";
  let arguments = (ins Graph_Tensor:$input, Optional<Graph_I64Tensor>:$k,
                       DefaultValuedAttr<BoolAttr, "true">:$upper);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input (`k` $k^)? attr-dict `:` functional-type(operands, results)";
}

def Graph_TileOp : Graph_InferOp<"tile"> {
  let summary = "ONNX Tile: repeat each dim `repeats[i]` times";
  let arguments = (ins Graph_Tensor:$input, Graph_I64Tensor:$repeats);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $repeats attr-dict `:` functional-type(operands, results)";
}

def Graph_CumSumOp : Graph_InferOp<"cum_sum"> {
  let summary = "ONNX CumSum along the axis given by a scalar operand";
  let arguments = (ins Graph_NumericTensor:$input, Graph_IndexTensor:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Graph_NumericTensor:$output);
  let assemblyFormat = "$input `,` $axis attr-dict `:` functional-type(operands, results)";
}

def Graph_ReverseSequenceOp : Graph_InferOp<"reverse_sequence"> {
  let summary = "ONNX ReverseSequence: each batch entry's first lengths[b] steps reversed";
  let arguments = (ins Graph_Tensor:$input, Graph_I64Tensor:$lengths,
                       DefaultValuedAttr<I64Attr, "1">:$batch_axis,
                       DefaultValuedAttr<I64Attr, "0">:$time_axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $lengths attr-dict `:` functional-type(operands, results)";
}

def Graph_TopKOp : Graph_InferOp<"top_k"> {
  let summary = "ONNX TopK: the k largest (or smallest) values and their indices";
  let arguments = (ins Graph_NumericTensor:$input, Graph_I64Tensor:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Graph_NumericTensor:$values, Graph_I64Tensor:$indices);
  let assemblyFormat = "$input `,` $k attr-dict `:` functional-type(operands, results)";
}

class Graph_BlockRearrangeOp<string mnemonic, string onnxName>
    : Graph_InferOp<mnemonic, [SameOperandsAndResultElementType]> {
  let summary = "ONNX " # onnxName # " (NCHW)";
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Graph_DepthToSpaceOp : Graph_BlockRearrangeOp<"depth_to_space", "DepthToSpace"> {
  let description = "`mode` is `DCR` (depth-column-row) or `CRD`.";
  let arguments = (ins Graph_Tensor:$input, I64Attr:$blocksize,
                       DefaultValuedAttr<StrAttr, "\"DCR\"">:$mode);
}
def Graph_SpaceToDepthOp : Graph_BlockRearrangeOp<"space_to_depth", "SpaceToDepth"> {
  let arguments = (ins Graph_Tensor:$input, I64Attr:$blocksize);
}

#endif // MLC_DIALECT_GRAPH_IR_GRAPHINDEXINGOPS_TD
