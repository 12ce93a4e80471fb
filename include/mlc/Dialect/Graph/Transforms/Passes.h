//===- Passes.h - Graph dialect passes --------------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Declarations and registration of the graph dialect's passes, generated
// from Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_TRANSFORMS_PASSES_H
#define MLC_DIALECT_GRAPH_TRANSFORMS_PASSES_H

#include "mlc/Dialect/Graph/IR/GraphDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlc::graph {

#define GEN_PASS_DECL
#include "mlc/Dialect/Graph/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlc/Dialect/Graph/Transforms/Passes.h.inc"

} // namespace mlc::graph

#endif // MLC_DIALECT_GRAPH_TRANSFORMS_PASSES_H
