//===- GraphContainerOps.td - Sequence and optional ops ----*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX's sequence ops (opset 11) and optional ops (opset 15) on the
// `!mlc_graph.sequence` and `!mlc_graph.optional` types. Canonicalization
// resolves what is known at compile time (elements of a SequenceConstruct,
// a SplitToSequence of a static tensor, an Optional of a value), so models
// whose sequences are static lower without them. Included from
// GraphOps.td; shape functions and folds in
// lib/Dialect/Graph/IR/GraphContainers.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHCONTAINEROPS_TD
#define MLC_DIALECT_GRAPH_IR_GRAPHCONTAINEROPS_TD

def Graph_SequenceEmptyOp : Graph_Op<"sequence_empty", [Pure]> {
  let summary = "ONNX SequenceEmpty: a sequence with no elements";
  let results = (outs Graph_SequenceType:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

def Graph_SequenceConstructOp : Graph_InferOp<"sequence_construct"> {
  let summary = "ONNX SequenceConstruct: a sequence of the given tensors";
  let arguments = (ins Variadic<Graph_Tensor>:$inputs);
  let results = (outs Graph_SequenceType:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def Graph_SequenceInsertOp : Graph_InferOp<"sequence_insert"> {
  let summary = "ONNX SequenceInsert: `tensor` inserted at `position`";
  let description = [{
    `position` (a scalar, negative from the back) defaults to the end.
  }];
  let arguments = (ins Graph_SequenceType:$sequence, Graph_Tensor:$tensor,
                       Optional<Graph_IndexTensor>:$position);
  let results = (outs Graph_SequenceType:$output);
  let assemblyFormat = [{
    $sequence `,` $tensor (`at` $position^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def Graph_SequenceAtOp : Graph_InferOp<"sequence_at"> {
  let summary = "ONNX SequenceAt: the element at `position`";
  let arguments = (ins Graph_SequenceType:$sequence,
                       Graph_IndexTensor:$position);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $sequence `,` $position attr-dict `:` functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def Graph_SequenceEraseOp : Graph_InferOp<"sequence_erase"> {
  let summary = "ONNX SequenceErase: the sequence without one element";
  let description = "`position` defaults to the last element.";
  let arguments = (ins Graph_SequenceType:$sequence,
                       Optional<Graph_IndexTensor>:$position);
  let results = (outs Graph_SequenceType:$output);
  let assemblyFormat = [{
    $sequence (`at` $position^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def Graph_SequenceLengthOp : Graph_InferOp<"sequence_length"> {
  let summary = "ONNX SequenceLength: the number of elements, as an i64 scalar";
  let arguments = (ins Graph_SequenceType:$sequence);
  let results = (outs Graph_I64Tensor:$output);
  let assemblyFormat = "$sequence attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_SplitToSequenceOp : Graph_InferOp<"split_to_sequence"> {
  let summary = "ONNX SplitToSequence: a tensor split along `axis`";
  let description = [{
    `split` is a scalar (pieces of that size, the last one shorter) or 1-D
    sizes; absent, the pieces have size 1 and lose the axis unless
    `keepdims`.
  }];
  let arguments = (ins Graph_Tensor:$input,
                       Optional<Graph_IndexTensor>:$split,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs Graph_SequenceType:$output);
  let assemblyFormat = [{
    $input (`split` $split^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def Graph_ConcatFromSequenceOp : Graph_InferOp<"concat_from_sequence"> {
  let summary = "ONNX ConcatFromSequence: the elements joined along `axis`";
  let description = [{
    With `new_axis`, the elements are stacked along a new dim at `axis`.
  }];
  let arguments = (ins Graph_SequenceType:$sequence, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$new_axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$sequence attr-dict `:` functional-type(operands, results)";
  let hasCanonicalizer = 1;
}

def Graph_OptionalOp : Graph_Op<"optional", [Pure]> {
  let summary = "ONNX Optional: `input` as an optional, or an empty optional";
  let arguments = (ins Optional<AnyTypeOf<[Graph_Tensor, Graph_SequenceType]>>:$input);
  let results = (outs Graph_OptionalType:$output);
  let assemblyFormat = "($input^ `:` type($input))? attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Graph_OptionalHasElementOp : Graph_Op<"optional_has_element", [Pure]> {
  let summary = "ONNX OptionalHasElement: whether an optional holds a value";
  let arguments = (ins Graph_OptionalType:$input);
  let results = (outs TensorOf<[I1]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_OptionalGetElementOp : Graph_Op<"optional_get_element", [Pure]> {
  let summary = "ONNX OptionalGetElement: the value an optional holds";
  let arguments = (ins Graph_OptionalType:$input);
  let results = (outs AnyTypeOf<[Graph_Tensor, Graph_SequenceType]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

#endif // MLC_DIALECT_GRAPH_IR_GRAPHCONTAINEROPS_TD
