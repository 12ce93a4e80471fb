//===- CompileFuzzer.cpp - Model bytes through the whole compiler ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Any bytes as a small model through mlc::compile to an object in memory:
// import, graph optimization, the loop level, the CPU's strategy, tiling,
// vectorization, bufferization, the LLVM dialect and LLVM's code generator.
// The limits are set low (1 MiB tensors, 256 nodes, 4 levels of nesting) so
// that each input compiles in well under a second; a model refused for them
// is a correct answer like any other diagnostic.
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

#include "mlc/Compiler/Compile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlc::fuzz::FuzzContext fuzz;
  mlc::compiler::CompileOptions options;
  options.compileTo = mlc::Phase::Object;
  options.artifact = mlc::compiler::ArtifactKind::Object;
  options.parallel = false;
  options.maxTensorBytes = int64_t(1) << 20;
  options.importOptions.maxTensorBytes = options.maxTensorBytes;
  options.importOptions.maxNodes = 256;
  options.importOptions.maxNesting = 4;
  // Unknown input dims get a small value, so that models with a dynamic
  // batch compile too.
  options.importOptions.defaultDim = 2;
  mlc::CompileHooks hooks;
  hooks.context = &fuzz.context;
  llvm::Expected<mlc::compiler::Artifacts> artifacts = mlc::compile(
      mlc::ModelSource::fromBuffer(
          std::string(reinterpret_cast<const char *>(data), size),
          "fuzz.onnx", mlc::fuzz::getEmptyModelDir()),
      options, hooks);
  if (!artifacts)
    llvm::consumeError(artifacts.takeError());
  return 0;
}
