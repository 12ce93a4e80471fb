//===- GraphStructure.cpp - Node order and structure checks ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "GraphStructure.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <queue>

using namespace mlc::onnx_import;
using llvm::StringRef;

std::string mlc::onnx_import::describeNode(const onnx::NodeProto &node,
                                           int index) {
  if (!node.name().empty())
    return "'" + node.name() + "'";
  return "#" + std::to_string(index) + " (unnamed)";
}

namespace {
/// The subgraphs a node holds (If branches, Loop and Scan bodies).
template <typename Fn> void forEachSubgraph(const onnx::NodeProto &node, Fn fn) {
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.has_g())
      fn(attr.g());
    for (const onnx::GraphProto &sub : attr.graphs())
      fn(sub);
  }
}

/// Adds to `names` what `graph` reads from outside itself: the inputs of
/// its nodes (and of their subgraphs, recursively) that it does not define.
void collectOuterReads(const onnx::GraphProto &graph,
                       llvm::StringSet<> &names) {
  llvm::StringSet<> defined;
  for (const onnx::ValueInfoProto &in : graph.input())
    defined.insert(in.name());
  for (const onnx::TensorProto &init : graph.initializer())
    defined.insert(init.name());
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &out : node.output())
      defined.insert(out);
  llvm::StringSet<> read;
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &in : node.input())
      if (!in.empty())
        read.insert(in);
    forEachSubgraph(node, [&](const onnx::GraphProto &sub) {
      collectOuterReads(sub, read);
    });
  }
  for (const onnx::ValueInfoProto &out : graph.output())
    read.insert(out.name());
  for (const auto &entry : read)
    if (!defined.contains(entry.getKey()))
      names.insert(entry.getKey());
}
} // namespace

std::optional<llvm::SmallVector<int>>
mlc::onnx_import::orderNodes(const onnx::GraphProto &graph,
                             llvm::function_ref<bool(StringRef)> isOuter,
                             std::string &error) {
  int numNodes = graph.node_size();
  // Who defines each name.
  llvm::StringMap<std::string> definedBy;
  for (const onnx::ValueInfoProto &in : graph.input())
    if (!definedBy.try_emplace(in.name(), "a graph input").second) {
      error = "graph input '" + in.name() + "' is declared twice";
      return std::nullopt;
    }
  for (const onnx::TensorProto &init : graph.initializer())
    if (!definedBy.try_emplace(init.name(), "an initializer").second &&
        definedBy[init.name()] != "a graph input") {
      error = "initializer '" + init.name() + "' is given twice";
      return std::nullopt;
    }
  llvm::StringMap<int> producer;
  for (auto [index, node] : llvm::enumerate(graph.node()))
    for (const std::string &out : node.output()) {
      if (out.empty())
        continue;
      auto [it, inserted] = definedBy.try_emplace(
          out, "node " + describeNode(node, index) + " (" + node.op_type() +
                   ")");
      if (!inserted) {
        error = "value '" + out + "' is defined twice: by " + it->second +
                " and by node " + describeNode(node, index) + " (" +
                node.op_type() + ")";
        return std::nullopt;
      }
      producer[out] = index;
    }

  // What each node reads: its inputs and what its subgraphs read from
  // outside them.
  llvm::SmallVector<llvm::StringSet<>> readsOf(numNodes);
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    for (const std::string &in : node.input())
      if (!in.empty())
        readsOf[index].insert(in);
    forEachSubgraph(node, [&, index = index](const onnx::GraphProto &sub) {
      collectOuterReads(sub, readsOf[index]);
    });
  }

  // Edges from producers to the nodes that read their values.
  llvm::SmallVector<llvm::SmallVector<int>> users(numNodes);
  llvm::SmallVector<int> pending(numNodes, 0);
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    for (const auto &entry : readsOf[index]) {
      StringRef name = entry.getKey();
      auto it = producer.find(name);
      if (it != producer.end()) {
        users[it->second].push_back(index);
        ++pending[index];
        continue;
      }
      if (definedBy.contains(name) || isOuter(name))
        continue;
      bool explicitInput = llvm::is_contained(node.input(), name.str());
      error = "node " + describeNode(node, index) + " (" + node.op_type() +
              ") reads '" + name.str() + "'" +
              (explicitInput ? "" : " in a subgraph") +
              ", which is not a graph input, an initializer or the output of "
              "any node";
      return std::nullopt;
    }
  }

  // Kahn's algorithm, always taking the ready node that comes first in the
  // file: a graph in order keeps its order.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < numNodes; ++i)
    if (pending[i] == 0)
      ready.push(i);
  llvm::SmallVector<int> order;
  order.reserve(numNodes);
  while (!ready.empty()) {
    int next = ready.top();
    ready.pop();
    order.push_back(next);
    for (int user : users[next])
      if (--pending[user] == 0)
        ready.push(user);
  }
  if (static_cast<int>(order.size()) == numNodes)
    return order;

  // What is left waits on itself: name the nodes of one cycle. Follow
  // from a waiting node to a waiting producer of something it reads until
  // a node repeats.
  auto waitingProducer = [&](int index) -> int {
    for (const auto &entry : readsOf[index]) {
      auto it = producer.find(entry.getKey());
      if (it != producer.end() && pending[it->second] > 0)
        return it->second;
    }
    return -1;
  };
  int start = 0;
  while (pending[start] == 0)
    ++start;
  llvm::SmallVector<int> path;
  llvm::SmallVector<int> seenAt(numNodes, -1);
  for (int at = start; at >= 0 && seenAt[at] < 0; at = waitingProducer(at)) {
    seenAt[at] = path.size();
    path.push_back(at);
    int next = waitingProducer(at);
    if (next >= 0 && seenAt[next] >= 0) {
      path.erase(path.begin(), path.begin() + seenAt[next]);
      break;
    }
  }
  error = "the nodes form a cycle: ";
  for (int index : llvm::reverse(path))
    error += describeNode(graph.node(index), index) + " (" +
             graph.node(index).op_type() + ") -> ";
  int first = path.back();
  error += describeNode(graph.node(first), first);
  return std::nullopt;
}

void mlc::onnx_import::measureGraph(const onnx::GraphProto &graph,
                                    int64_t maxNodes, int64_t maxDepth,
                                    int64_t &nodes, int64_t &depth) {
  struct Walker {
    int64_t maxNodes, maxDepth;
    int64_t &nodes, &depth;
    void walk(const onnx::GraphProto &g, int64_t level) {
      depth = std::max(depth, level);
      for (const onnx::NodeProto &node : g.node()) {
        if (++nodes > maxNodes || depth > maxDepth)
          return;
        forEachSubgraph(node, [&](const onnx::GraphProto &sub) {
          if (nodes <= maxNodes && depth <= maxDepth)
            walk(sub, level + 1);
        });
      }
    }
  };
  nodes = 0;
  depth = 0;
  Walker{maxNodes, maxDepth, nodes, depth}.walk(graph, 0);
}
