//===- Report.h - The HTML report of one compilation ------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `mlc-compile --report=FILE.html`: what the compiler decided, read off the
// IR at three points of the pipeline by a pass instrumentation, written as
// one self-contained page: the ONNX nodes of each kernel (the graph after
// fusion), each kernel's schedule and where its inputs come from, the
// outlined functions, the arena plan, the phases' times and, given
// `mlc-run --profile=FILE.json`, each kernel's time and share.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_COMPILER_REPORT_H
#define MLC_LIB_COMPILER_REPORT_H

#include "mlc/Compiler/Invocation.h"

#include "mlir/Pass/PassInstrumentation.h"

#include <map>

namespace mlc::compiler {

/// What the report shows, filled in as the pipeline runs.
struct ReportData {
  struct Kernel {
    std::string name;
    /// The ONNX nodes fused into it, in order, as (node, op type).
    std::vector<std::pair<std::string, std::string>> nodes;
    std::string schedule;
    /// The kernels whose results it reads (by name); "input" for the
    /// model's inputs.
    std::vector<std::string> producers;
    std::string resultTypes;
  };
  struct Buffer {
    std::string node;
    int64_t offset = 0, bytes = 0;
    /// The first and last top-level operation (position in the model's
    /// body after outlining) that use it.
    int64_t first = 0, last = 0;
    std::string type;
  };
  struct Model {
    std::string name;
    int64_t arenaSize = 0;
    int64_t steps = 0;
    std::vector<Buffer> buffers;
    /// The outlined kernel functions in call order (k<N>_<node>, as
    /// profiles name them) with the node each is named after.
    std::vector<std::pair<std::string, std::string>> functions;
  };
  std::string input, target;
  /// ONNX node name -> op type, from the graph phase.
  std::map<std::string, std::string> nodeOps;
  std::vector<Kernel> kernels;
  std::vector<Model> models;
};

/// Records into `data`: node op types when the graph phase ends, the
/// kernels when the kernels phase ends, the arena and the outlined
/// functions after mlc-host-outline-kernels.
std::unique_ptr<mlir::PassInstrumentation>
createReportInstrumentation(ReportData &data);

/// Writes the page to `path`; `profileFile` (may be empty) is a JSON file
/// of `mlc-run --profile=FILE`.
llvm::LogicalResult writeReport(mlir::MLIRContext *context,
                                llvm::StringRef path, const ReportData &data,
                                llvm::ArrayRef<PhaseTiming> timings,
                                llvm::StringRef profileFile);

} // namespace mlc::compiler

#endif // MLC_LIB_COMPILER_REPORT_H
