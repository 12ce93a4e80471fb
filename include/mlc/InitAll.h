//===- InitAll.h - Register everything mlc provides -------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one entry point through which mlc-opt, mlc-compile, the C++ library
// and the Python package register dialects, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_INITALL_H
#define MLC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlc {

/// Adds mlc's own dialects (graph, loop, npu) to `registry`.
void registerAllMLCDialects(mlir::DialectRegistry &registry);

/// Registers mlc's own passes with the global pass registry.
void registerAllMLCPasses();

/// Registers mlc's named pass pipelines (`mlc-graph-optimize-pipeline`, ...).
void registerAllMLCPipelines();

/// Everything a tool needs: every upstream MLIR dialect and extension plus
/// mlc's dialects into `registry`; every upstream and mlc pass and pipeline
/// into the global registries. Safe to call more than once.
void registerEverything(mlir::DialectRegistry &registry);

} // namespace mlc

#endif // MLC_INITALL_H
