//===- GraphStructure.h - Node order and structure checks -------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the importer checks of a graph's structure before it builds anything:
// every value is defined once, every input is defined somewhere, and the
// nodes can run in some order. Converters write nodes out of order (an
// fp16 conversion appends its Casts at the end of the node list); like ONNX
// Runtime, the importer then runs them in dependence order, and only a real
// cycle is an error. Also the limits on a model's size: nodes and nesting.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_FRONTEND_ONNX_GRAPHSTRUCTURE_H
#define MLC_LIB_FRONTEND_ONNX_GRAPHSTRUCTURE_H

#include "onnx/onnx_pb.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlc::onnx_import {

/// The order in which `graph`'s nodes run: each after the producers of
/// everything it reads (its inputs and the outer values its subgraphs
/// read), otherwise in file order. `isOuter` says whether a name is defined
/// in an enclosing scope. On a value defined twice, an input defined
/// nowhere, or a cycle, sets `error` to a message naming the values and
/// nodes and returns nothing.
std::optional<llvm::SmallVector<int>>
orderNodes(const onnx::GraphProto &graph,
           llvm::function_ref<bool(llvm::StringRef)> isOuter,
           std::string &error);

/// A printable name for a node: its name, or `#index (unnamed)`.
std::string describeNode(const onnx::NodeProto &node, int index);

/// Counts the nodes of `graph` and its subgraphs and the deepest nesting
/// of subgraphs (0: none); stops counting past `maxNodes` or `maxDepth`.
void measureGraph(const onnx::GraphProto &graph, int64_t maxNodes,
                  int64_t maxDepth, int64_t &nodes, int64_t &depth);

} // namespace mlc::onnx_import

#endif // MLC_LIB_FRONTEND_ONNX_GRAPHSTRUCTURE_H
