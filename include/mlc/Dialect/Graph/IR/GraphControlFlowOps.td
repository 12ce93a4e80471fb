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
    ParentOneOf<["IfOp", "LoopOp"]>]> {
  let summary = "Ends an If branch or a Loop body";
  let arguments = (ins Variadic<Graph_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Graph_IfOp : Graph_Op<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "ONNX If: run one of two subgraphs";
  let description = [{
    `condition` is a one-element i1 tensor. Both branches yield one value per
    result; a result's type is compatible with both yields (where the
    branches disagree on a dim, the result has it dynamic).
  }];
  let arguments = (ins Graph_BoolTensor:$condition);
  let results = (outs Variadic<Graph_Tensor>:$results);
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
                       Variadic<Graph_Tensor>:$initial);
  let results = (outs Variadic<Graph_Tensor>:$results);
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

#endif // MLC_DIALECT_GRAPH_IR_GRAPHCONTROLFLOWOPS_TD
