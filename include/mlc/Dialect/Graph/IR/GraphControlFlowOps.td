//===- GraphControlFlowOps.td - If and Loop of mlc_graph ---*- tablegen -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX If and Loop. Their subgraphs become regions that may use values of
// the enclosing function directly (ONNX's outer-scope references), and end
// in `mlc_graph.yield`.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHCONTROLFLOWOPS_TD
#define MLC_DIALECT_GRAPH_IR_GRAPHCONTROLFLOWOPS_TD

include "mlir/Interfaces/ControlFlowInterfaces.td"

def Graph_YieldOp : Graph_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["IfOp", "LoopOp", "ScanOp", "SequenceMapOp"]>]> {
  let summary = "Ends an If branch or a Loop, Scan or SequenceMap body";
  let arguments = (ins Variadic<Graph_Value>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Graph_IfOp : Graph_Op<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "ONNX If: run one of two subgraphs";
  let description = [{
    `condition` is a one-element i1 tensor. Both branches yield one value per
    result; a result's type is compatible with both yields (where the
    branches disagree on a dim, the result has it dynamic).

    A branch that cannot run at the shapes the model is compiled for (an
    exporter's guard for another sample rate or rank) is
    `cf.assert false, "why"` followed by zeros of the other branch's
    types: taking it at run time is an error the model reports
    (`mlc-host-lower-assertions`), as ONNX Runtime only fails when it runs
    such a branch.
  }];
  let extraClassDeclaration = [{
    /// Fills the empty `branch` with a branch that fails at run time with
    /// `message` and yields zeros of `types`. Fails (building nothing)
    /// unless every type is a statically shaped tensor.
    static ::llvm::LogicalResult
    buildFailingBranch(::mlir::OpBuilder &builder, ::mlir::Location loc,
                       ::mlir::Region &branch, ::mlir::TypeRange types,
                       ::llvm::StringRef message);
  }];
  let arguments = (ins Graph_BoolTensor:$condition);
  let results = (outs Variadic<Graph_Value>:$results);
  let regions = (region SizedRegion<1>:$then_branch,
                        SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $condition $then_branch `else` $else_branch attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_LoopOp : Graph_Op<"loop", [RecursiveMemoryEffects,
                                      AttrSizedOperandSegments]> {
  let summary = "ONNX Loop";
  let description = [{
    Runs the body while the iteration count is below `max_trip_count` (when
    given) and the condition holds (when given). The body's block arguments
    are the iteration number (`tensor<i64>`), the condition (`tensor<i1>`)
    and the loop-carried values; it yields the next condition, the next
    carried values and then one value per scan output. The results are the
    final carried values, then the scan outputs stacked along a new leading
    dim.
  }];
  let arguments = (ins Optional<Graph_I64Tensor>:$max_trip_count,
                       Optional<Graph_BoolTensor>:$condition,
                       Variadic<Graph_Value>:$initial);
  let results = (outs Variadic<Graph_Value>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`max_trip_count` $max_trip_count^)? (`condition` $condition^)?
    `carried` `(` $initial `)` $body attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of scan outputs (results past the carried values).
    unsigned getNumScanOutputs() {
      return getNumResults() - getInitial().size();
    }
  }];
}

def Graph_ScanOp : Graph_Op<"scan", [RecursiveMemoryEffects]> {
  let summary = "ONNX Scan (opset 9+)";
  let description = [{
    The first `inputs.size() - num_scan_inputs` operands are state
    variables, the rest are scanned along `scan_input_axes` (default 0). The
    body receives the states and one slice of each scan input, and yields
    the next states and one element of each scan output. The results are the
    final states, then the scan outputs stacked along `scan_output_axes`.
    Directions are 0 (forward) or 1 (reverse).
  }];
  let arguments = (ins Variadic<Graph_Value>:$inputs,
                       I64Attr:$num_scan_inputs,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_input_axes,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_input_directions,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_output_axes,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_output_directions);
  let results = (outs Variadic<Graph_Value>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` $body attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of state variables (operands before the scanned inputs).
    int64_t getNumStates() {
      return static_cast<int64_t>(getInputs().size()) -
             static_cast<int64_t>(getNumScanInputs());
    }
  }];
}

def Graph_SequenceMapOp : Graph_Op<"sequence_map", [RecursiveMemoryEffects]> {
  let summary = "ONNX SequenceMap (opset 17): a body applied to every element";
  let description = [{
    The body runs once per element of `input_sequence`; its block arguments
    are that element and, for each additional input, the element at the
    same position (a sequence, of the same length) or the input itself (a
    tensor). It yields one tensor per result, and each result is the
    sequence of what it yielded.
  }];
  let arguments = (ins Graph_SequenceType:$input_sequence,
                       Variadic<AnyTypeOf<[Graph_Tensor, Graph_SequenceType]>>:$additional_inputs);
  let results = (outs Variadic<Graph_SequenceType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $input_sequence (`with` `(` $additional_inputs^ `:` type($additional_inputs) `)`)?
    $body attr-dict `:` type($input_sequence) `->` type($results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

#endif // MLC_DIALECT_GRAPH_IR_GRAPHCONTROLFLOWOPS_TD
