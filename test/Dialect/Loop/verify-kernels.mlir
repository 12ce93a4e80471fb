// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlc-loop-verify-kernels),mlc-loop-verify-contract)' --verify-diagnostics

// A reduction outside any kernel breaks the kernels phase's contract.
func.func @reduction_outside(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{kernels phase: this reduction of node '?' is not the root of an mlc_loop.kernel}}
  %m = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

// -----

func.func @unscheduled(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{kernels phase: kernel 'Gemm_0' has no schedule}}
  %r = mlc_loop.kernel "Gemm_0" ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) {
  ^bb0(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>, %z: tensor<2x4xf32>):
    %m = linalg.matmul {mlc_loop.root} ins(%x, %y : tensor<2x3xf32>, tensor<3x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
    mlc_loop.yield %m : tensor<2x4xf32>
  } -> (tensor<2x4xf32>)
  return %r : tensor<2x4xf32>
}

// -----

func.func @wrong_loops(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{kernels phase: kernel 'Gemm_0' has a schedule of another op's loops}}
  %r = mlc_loop.kernel "Gemm_0" ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>)
      schedule = #mlc_loop.schedule<tile_sizes = [[0, 0]], vector_sizes = [], parallel_dims = []> {
  ^bb0(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>, %z: tensor<2x4xf32>):
    %m = linalg.matmul {mlc_loop.root} ins(%x, %y : tensor<2x3xf32>, tensor<3x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
    mlc_loop.yield %m : tensor<2x4xf32>
  } -> (tensor<2x4xf32>)
  return %r : tensor<2x4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @elementwise_outside(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{kernels phase: this op of node '?' is in no mlc_loop.kernel}}
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%b : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The loop level's contract: no graph op is left.
func.func @graph_left(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{loop level: graph op 'mlc_graph.relu' of node '?' was not lowered}}
  %r = mlc_graph.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
