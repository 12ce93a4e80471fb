// RUN: mlc-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: mlc-opt --help | FileCheck %s --check-prefix=HELP

// DIALECTS: Available Dialects:
// DIALECTS-SAME: linalg
// DIALECTS-SAME: mlc_graph,mlc_loop,mlc_npu

// HELP: --canonicalize
// HELP: --mlc-graph-infer-shapes
// HELP: --mlc-graph-optimize-pipeline
// HELP: --mlc-loop-to-cpu-pipeline
