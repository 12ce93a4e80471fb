//===- Pipelines.h - mlc's named pass pipelines -----------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The compilation phases and the pipelines between them. Each pipeline has
// typed options, a `build...Pipeline` function that tools and the library
// call, and a registration that exposes it to mlc-opt as
// `--<name>-pipeline`.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_PIPELINES_PIPELINES_H
#define MLC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>

namespace mlc {

/// The levels a compilation goes through. `--compile-to` stops after one,
/// `--compile-from` resumes from one.
enum class Phase {
  Input,  ///< the model as imported: graph dialect, unoptimized
  Graph,  ///< graph dialect after graph-level optimization
  Loop,    ///< linalg/tensor/arith/scf on tensors
  Kernels, ///< mlc_loop.kernel ops with the target's schedules
  LLVM,    ///< LLVM dialect
  Object, ///< machine code
};

/// Parses a phase name (`input`, `graph`, `loop`, `kernels`, `llvm`,
/// `object`).
std::optional<Phase> parsePhase(llvm::StringRef name);

/// Returns the name `parsePhase` accepts for `phase`.
llvm::StringRef getPhaseName(Phase phase);

/// Options of `mlc-graph-optimize-pipeline`.
struct GraphOptimizePipelineOptions
    : mlir::PassPipelineOptions<GraphOptimizePipelineOptions> {
  Option<bool> inferShapes{*this, "infer-shapes",
                           llvm::cl::desc("Refine result types from the "
                                          "ops' shape functions"),
                           llvm::cl::init(true)};
  Option<int64_t> maxTensorBytes{
      *this, "max-tensor-bytes",
      llvm::cl::desc("The most bytes one tensor of the model may hold"),
      llvm::cl::init(int64_t(4) << 30)};
  Option<bool> separateBatch{
      *this, "separate-batch",
      llvm::cl::desc("Compile a symbolic batch dim for one sample "
                     "(mlc-graph-separate-batch)"),
      llvm::cl::init(true)};
  Option<bool> keepBatch{
      *this, "keep-batch",
      llvm::cl::desc("Keep a separable batch symbolic (false: the target "
                     "needs every dim pinned)"),
      llvm::cl::init(true)};
  Option<bool> dynamicDims{
      *this, "dynamic-dims",
      llvm::cl::desc("Keep symbolic dims other than a batch (the target's "
                     "code takes dims at run time)"),
      llvm::cl::init(false)};
  Option<bool> strictBatch{
      *this, "strict-batch",
      llvm::cl::desc("Refuse symbolic dims that are not a separable batch "
                     "instead of keeping them"),
      llvm::cl::init(true)};
  Option<bool> computeHalfInF32{
      *this, "compute-half-in-f32",
      llvm::cl::desc("Compute float16 and bfloat16 values in f32 "
                     "(mlc-graph-compute-half-in-f32), as ONNX Runtime's CPU "
                     "provider does"),
      llvm::cl::init(false)};
};

/// Graph-level cleanup on each function: canonicalize (folding constants and
/// identities), refine shapes, move per-channel scales of convolution inputs
/// into their weights (once shapes are known), CSE; then the limits
/// (mlc-graph-check-limits).
void buildGraphOptimizePipeline(mlir::OpPassManager &pm,
                                const GraphOptimizePipelineOptions &options);

/// Options of `mlc-graph-to-loop-pipeline`.
struct GraphToLoopPipelineOptions
    : mlir::PassPipelineOptions<GraphToLoopPipelineOptions> {};

/// The graph phase to the loop phase: every graph op becomes linalg,
/// tensor, arith, math and scf on tensors (`mlc-convert-graph-to-loop`).
void buildGraphToLoopPipeline(mlir::OpPassManager &pm,
                              const GraphToLoopPipelineOptions &options);

/// Registers every pipeline above with the global registry.
void registerMLCPipelines();

} // namespace mlc

#endif // MLC_PIPELINES_PIPELINES_H
