//===- Report.cpp - The HTML report of one compilation --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Report.h"
#include "Artifacts.h"
#include "NodeNames.h"

#include "mlc/Dialect/Graph/IR/GraphDialect.h"
#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Target/Host/ModelFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <mutex>

using namespace mlir;
using namespace mlc::compiler;

namespace {
std::string printed(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

std::string printed(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(types, os);
  return text;
}

/// The ONNX op type of each node, from the graph dialect ops.
void recordNodes(func::FuncOp func, ReportData &data) {
  func.walk([&](Operation *op) {
    // Initializers are named too: only nodes count.
    if (!isa_and_nonnull<mlc::graph::GraphDialect>(op->getDialect()) ||
        op->hasTrait<OpTrait::ConstantLike>())
      return;
    std::string node = getNodeName(op->getLoc());
    if (!node.empty())
      data.nodeOps.emplace(node, op->getName().stripDialect().str());
  });
}

void recordKernels(func::FuncOp func, ReportData &data) {
  for (auto kernel : func.getOps<mlc::loop::KernelOp>()) {
    ReportData::Kernel k;
    k.name = kernel.getSymName().str();
    llvm::StringSet<> seen;
    kernel.getBody().walk([&](Operation *op) {
      std::string node = getNodeName(op->getLoc());
      if (node.empty() || !seen.insert(node).second)
        return;
      auto type = data.nodeOps.find(node);
      k.nodes.push_back(
          {node, type == data.nodeOps.end() ? "" : type->second});
    });
    if (auto schedule = kernel.getScheduleAttr())
      k.schedule = printed(schedule);
    // The kernels (or model inputs) each input comes from, looking through
    // the ops between kernels (pads, gathers, reshapes).
    llvm::StringSet<> producers;
    SmallVector<std::pair<Value, int>> work;
    DenseSet<Value> visited;
    for (Value input : kernel.getInputs())
      work.push_back({input, 0});
    while (!work.empty()) {
      auto [value, depth] = work.pop_back_val();
      if (!visited.insert(value).second)
        continue;
      std::string producer;
      if (auto from = value.getDefiningOp<mlc::loop::KernelOp>())
        producer = from.getSymName().str();
      else if (isa<BlockArgument>(value))
        producer = "input";
      else if (Operation *def = value.getDefiningOp(); def && depth < 16)
        for (Value operand : def->getOperands())
          work.push_back({operand, depth + 1});
      if (!producer.empty() && producers.insert(producer).second)
        k.producers.push_back(producer);
    }
    k.resultTypes = printed(kernel.getResultTypes());
    data.kernels.push_back(std::move(k));
  }
}

/// The arena's buffers (views of the first argument at constant offsets)
/// with their live ranges over the body's top-level ops, and the kernel
/// functions called.
void recordArena(ModuleOp module, ReportData &data) {
  for (func::FuncOp func : mlc::host::getModelFunctions(module)) {
    auto arenaSize = func->getAttrOfType<IntegerAttr>("mlc_loop.arena_size");
    if (!arenaSize || func.getNumArguments() == 0)
      continue;
    ReportData::Model model;
    model.name = func.getSymName().str();
    model.arenaSize = arenaSize.getInt();
    Block &body = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    for (Operation &op : body)
      position[&op] = position.size();
    model.steps = position.size();
    std::string prefix = model.name + "_";
    SymbolTable symbols(module);
    for (auto call : func.getOps<func::CallOp>())
      if (call.getCallee().starts_with(prefix + "k"))
        if (auto callee = symbols.lookup<func::FuncOp>(call.getCallee()))
          model.functions.push_back(
              {call.getCallee().drop_front(prefix.size()).str(),
               getNodeName(callee.getLoc())});
    Value arena = func.getArgument(0);
    for (auto view : func.getOps<memref::ViewOp>()) {
      if (view.getSource() != arena)
        continue;
      ReportData::Buffer buffer;
      buffer.node = getNodeName(view.getLoc());
      auto offset = view.getByteShift().getDefiningOp<arith::ConstantIndexOp>();
      buffer.offset = offset ? offset.value() : -1;
      MemRefType type = view.getType();
      buffer.bytes = type.hasStaticShape()
                         ? type.getNumElements() *
                               ((type.getElementTypeBitWidth() + 7) / 8)
                         : 0;
      buffer.type = printed(TypeRange(type));
      // Uses through views, casts and subviews, at the top level.
      buffer.first = buffer.last = position.lookup(view);
      SmallVector<Value> work{view.getResult()};
      while (!work.empty()) {
        Value v = work.pop_back_val();
        for (Operation *user : v.getUsers()) {
          Operation *top = body.findAncestorOpInBlock(*user);
          if (top)
            buffer.last = std::max(buffer.last, position.lookup(top));
          if (isa<ViewLikeOpInterface>(user))
            llvm::append_range(work, user->getResults());
        }
      }
      model.buffers.push_back(std::move(buffer));
    }
    data.models.push_back(std::move(model));
  }
}

class ReportInstrumentation : public PassInstrumentation {
public:
  explicit ReportInstrumentation(ReportData &data) : data(data) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    if (pass->getArgument() == "mlc-convert-graph-to-loop")
      if (auto func = dyn_cast<func::FuncOp>(op)) {
        std::lock_guard<std::mutex> lock(mutex);
        recordNodes(func, data);
      }
  }

  void runAfterPass(Pass *pass, Operation *op) override {
    StringRef name = pass->getArgument();
    std::lock_guard<std::mutex> lock(mutex);
    if (name == "mlc-loop-verify-kernels")
      if (auto func = dyn_cast<func::FuncOp>(op))
        recordKernels(func, data);
    if (name == "mlc-host-outline-kernels")
      if (auto module = dyn_cast<ModuleOp>(op))
        recordArena(module, data);
  }

private:
  ReportData &data;
  std::mutex mutex;
};

std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// Milliseconds per run of each outlined function (k<N>_<node>) in an
/// `mlc-run --profile` JSON file, and the whole run's.
struct Profile {
  std::map<std::string, double> ms;
  double runMs = 0;
  bool loaded = false;
};

LogicalResult readProfile(MLIRContext *context, StringRef path,
                          Profile &profile) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return emitError(UnknownLoc::get(context))
           << "--report-profile: cannot read " << path << ": "
           << buffer.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  const llvm::json::Object *root = json ? json->getAsObject() : nullptr;
  const llvm::json::Array *kernels =
      root ? root->getArray("kernels") : nullptr;
  if (!kernels) {
    if (!json)
      llvm::consumeError(json.takeError());
    return emitError(UnknownLoc::get(context))
           << "--report-profile: " << path
           << " is not a profile written by mlc-run --profile=FILE";
  }
  profile.runMs = root->getNumber("run_ms").value_or(0);
  for (const llvm::json::Value &k : *kernels)
    if (const llvm::json::Object *entry = k.getAsObject())
      if (auto name = entry->getString("kernel"))
        profile.ms[name->str()] += entry->getNumber("ms").value_or(0);
  profile.loaded = true;
  return success();
}

void writeStyle(llvm::raw_ostream &os) {
  os << R"(<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left}
tr:nth-child(even){background:#f4f4f4}td.n{text-align:right}
.kernels{display:flex;flex-wrap:wrap;gap:10px}
.k{border:1px solid #789;border-radius:6px;padding:6px 8px;background:#f7faff;
max-width:32em;font-size:.9em}
.k h3{margin:0 0 4px 0;font-size:1em}.op{display:inline-block;background:#dde8f5;
border-radius:4px;padding:1px 5px;margin:1px}.s{font-family:monospace;
font-size:.8em;color:#555;word-break:break-all}.t{color:#a40;font-weight:bold}
.from{font-size:.85em;color:#555}
</style>
)";
}

/// The arena as rectangles: time (top-level op) across, bytes down.
void writeArenaSvg(const ReportData::Model &model, llvm::raw_ostream &os) {
  const double width = 900, height = 300;
  double xs = width / std::max<int64_t>(1, model.steps);
  double ys = height / std::max<double>(1, double(model.arenaSize));
  os << "<svg width='" << width + 2 << "' height='" << height + 2
     << "' style='border:1px solid #999'>\n";
  for (const ReportData::Buffer &b : model.buffers) {
    if (b.offset < 0)
      continue;
    os << llvm::format("<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' "
                       "fill='#7aa7d8' stroke='#345'>",
                       1 + b.first * xs, 1 + b.offset * ys,
                       std::max(1.0, (b.last - b.first + 1) * xs),
                       std::max(1.0, b.bytes * ys))
       << "<title>" << escape(b.node) << ": " << b.bytes << " bytes at "
       << b.offset << ", ops " << b.first << "-" << b.last
       << "</title></rect>\n";
  }
  os << "</svg>\n";
}
} // namespace

std::unique_ptr<PassInstrumentation>
mlc::compiler::createReportInstrumentation(ReportData &data) {
  return std::make_unique<ReportInstrumentation>(data);
}

LogicalResult mlc::compiler::writeReport(MLIRContext *context, StringRef path,
                                         const ReportData &data,
                                         ArrayRef<PhaseTiming> timings,
                                         StringRef profileFile) {
  Profile profile;
  if (!profileFile.empty() &&
      failed(readProfile(context, profileFile, profile)))
    return failure();
  std::string page;
  llvm::raw_string_ostream os(page);
  os << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>mlc: "
     << escape(data.input) << "</title>\n";
  writeStyle(os);
  os << "</head><body>\n<h1>mlc compile report: " << escape(data.input)
     << "</h1>\n<p>target " << escape(data.target) << "; "
     << data.kernels.size() << " kernels from " << data.nodeOps.size()
     << " ONNX nodes";
  if (profile.loaded)
    os << "; profile " << escape(profileFile)
       << llvm::format(": %.3f ms per run", profile.runMs);
  os << "</p>\n";

  // Phases.
  os << "<h2>Compile phases</h2>\n<table><tr><th>phase</th><th>wall "
        "(s)</th><th>peak memory (MiB)</th></tr>\n";
  for (const PhaseTiming &t : timings)
    os << "<tr><td>" << escape(t.phase) << "</td>"
       << llvm::format("<td class=n>%.3f</td><td class=n>%.1f</td></tr>\n",
                       t.seconds, double(t.peakMemoryBytes) / (1 << 20));
  os << "</table>\n";

  // Kernel time by node: each outlined function is named after a node of
  // the kernel it came from.
  std::map<std::string, double> nodeMs;
  for (const ReportData::Model &m : data.models)
    for (const auto &[function, node] : m.functions)
      if (auto it = profile.ms.find(function); it != profile.ms.end())
        nodeMs[node] += it->second;

  os << "<h2>Kernels (the graph after fusion, in execution order)</h2>\n"
        "<div class=kernels>\n";
  for (const ReportData::Kernel &k : data.kernels) {
    os << "<div class=k id='k-" << escape(k.name) << "'><h3>"
       << escape(k.name) << "</h3>\n";
    for (const auto &[node, op] : k.nodes)
      os << "<span class=op title='" << escape(node) << "'>"
         << escape(op.empty() ? "?" : op) << " " << escape(node)
         << "</span>";
    os << "<div class=from>from: ";
    if (k.producers.empty())
      os << "constants";
    llvm::interleaveComma(k.producers, os,
                          [&](const std::string &p) { os << escape(p); });
    os << " &rarr; " << escape(k.resultTypes) << "</div>\n";
    if (!k.schedule.empty())
      os << "<div class=s>" << escape(k.schedule) << "</div>\n";
    if (profile.loaded) {
      double ms = 0;
      for (const auto &[node, op] : k.nodes)
        if (auto it = nodeMs.find(node); it != nodeMs.end())
          ms += it->second;
      if (ms > 0)
        os << llvm::format("<div class=t>%.3f ms (%.1f%%) in the functions "
                           "of its nodes</div>\n",
                           ms, profile.runMs > 0 ? 100 * ms / profile.runMs
                                                 : 0.0);
    }
    os << "</div>\n";
  }
  os << "</div>\n";

  for (const ReportData::Model &m : data.models) {
    os << "<h2>" << escape(m.name) << ": outlined functions</h2>\n<table><tr>"
          "<th>#</th><th>function</th>";
    if (profile.loaded)
      os << "<th>ms/run</th><th>share</th>";
    os << "</tr>\n";
    for (auto [i, entry] : llvm::enumerate(m.functions)) {
      const std::string &f = entry.first;
      os << "<tr><td class=n>" << i << "</td><td>" << escape(f) << "</td>";
      if (profile.loaded) {
        auto it = profile.ms.find(f);
        double ms = it == profile.ms.end() ? 0 : it->second;
        os << llvm::format("<td class=n>%.3f</td><td class=n>%.1f%%</td>", ms,
                           profile.runMs > 0 ? 100 * ms / profile.runMs : 0.0);
      }
      os << "</tr>\n";
    }
    os << "</table>\n<h2>" << escape(m.name) << ": arena plan, "
       << m.arenaSize << " bytes, " << m.buffers.size()
       << " buffers</h2>\n<p>Across: the model's top-level operations in "
          "order; down: the arena's bytes. Buffers whose lifetimes do not "
          "overlap share bytes.</p>\n";
    writeArenaSvg(m, os);
    os << "<table><tr><th>offset</th><th>bytes</th><th>live (ops)</th>"
          "<th>node</th><th>type</th></tr>\n";
    std::vector<const ReportData::Buffer *> sorted;
    for (const ReportData::Buffer &b : m.buffers)
      sorted.push_back(&b);
    llvm::sort(sorted, [](auto *a, auto *b) {
      return a->offset != b->offset ? a->offset < b->offset
                                    : a->first < b->first;
    });
    for (const ReportData::Buffer *b : sorted)
      os << "<tr><td class=n>" << b->offset << "</td><td class=n>" << b->bytes
         << "</td><td>" << b->first << "-" << b->last << "</td><td>"
         << escape(b->node) << "</td><td>" << escape(b->type)
         << "</td></tr>\n";
    os << "</table>\n";
  }
  os << "</body></html>\n";
  return writeTextFile(context, path, page);
}
