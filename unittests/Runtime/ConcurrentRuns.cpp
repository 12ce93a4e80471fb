//===- ConcurrentRuns.cpp - Compiled models run from many threads at once -===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   mlc-concurrent-runs THREADS RUNS MODEL.so...
//
// Loads every model into one process, runs each once on one thread for
// reference outputs, then runs all of them from THREADS threads at once,
// RUNS times each, every thread with arenas of its own, and checks that
// every output is the reference to the byte. Built with ThreadSanitizer
// (with the runtime's sources), so that a data race in the runtime or
// between runs is a report and a failure.
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/Model.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace mlc;

namespace {
/// A model with inputs and the outputs of its reference run.
struct Loaded {
  std::unique_ptr<runtime::Model> model;
  std::vector<std::vector<char>> inputs, reference;
};

std::vector<std::vector<char>> makeOutputs(const abi::ModelSignature &sig) {
  std::vector<std::vector<char>> outputs;
  for (const abi::TensorSignature &out : sig.outputs)
    outputs.emplace_back(static_cast<size_t>(out.getNumBytes()));
  return outputs;
}

/// Runs `loaded` in `arena` into `outputs`; the model's code.
int32_t runOnce(const Loaded &loaded, void *arena,
                std::vector<std::vector<char>> &outputs) {
  std::vector<const void *> in;
  for (const std::vector<char> &buffer : loaded.inputs)
    in.push_back(buffer.data());
  std::vector<void *> out;
  for (std::vector<char> &buffer : outputs)
    out.push_back(buffer.data());
  return loaded.model->run(in.data(), out.data(), arena);
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: mlc-concurrent-runs THREADS RUNS MODEL.so...\n");
    return 2;
  }
  int threads = std::atoi(argv[1]), runs = std::atoi(argv[2]);
  std::vector<Loaded> models;
  for (int i = 3; i < argc; ++i) {
    std::string error;
    Loaded loaded;
    loaded.model = runtime::Model::load(argv[i], "", error);
    if (!loaded.model) {
      std::fprintf(stderr, "mlc-concurrent-runs: %s\n", error.c_str());
      return 1;
    }
    // Inputs: small float values, integers 0..2 (valid as indices).
    for (const abi::TensorSignature &in : loaded.model->getSignature().inputs) {
      std::vector<char> buffer(static_cast<size_t>(in.getNumBytes()));
      if (in.dtype == abi::DType::Float32) {
        for (size_t k = 0; k < buffer.size() / 4; ++k) {
          float value = static_cast<float>((k * 7) % 13) / 13.0f - 0.5f;
          std::memcpy(buffer.data() + 4 * k, &value, 4);
        }
      } else {
        for (size_t k = 0; k < buffer.size(); ++k)
          buffer[k] = static_cast<char>(k % 3 == 0 ? k % 2 : 0);
      }
      loaded.inputs.push_back(std::move(buffer));
    }
    runtime::Arena arena(*loaded.model);
    loaded.reference = makeOutputs(loaded.model->getSignature());
    if (!arena.get() || runOnce(loaded, arena.get(), loaded.reference) != 0) {
      std::fprintf(stderr, "mlc-concurrent-runs: %s: the reference run failed\n",
                   argv[i]);
      return 1;
    }
    models.push_back(std::move(loaded));
  }

  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::vector<std::unique_ptr<runtime::Arena>> arenas;
      for (const Loaded &loaded : models)
        arenas.push_back(std::make_unique<runtime::Arena>(*loaded.model));
      for (int r = 0; r < runs; ++r)
        for (size_t m = 0; m < models.size(); ++m) {
          // Threads start on different models.
          const Loaded &loaded = models[(m + t) % models.size()];
          void *arena = arenas[(m + t) % models.size()]->get();
          std::vector<std::vector<char>> outputs =
              makeOutputs(loaded.model->getSignature());
          if (runOnce(loaded, arena, outputs) != 0) {
            ++failures;
            continue;
          }
          if (outputs != loaded.reference)
            ++mismatches;
        }
    });
  for (std::thread &thread : pool)
    thread.join();
  std::printf("mlc-concurrent-runs: %d threads x %d runs of %zu models: %d "
              "failed, %d differ from the single-threaded run\n",
              threads, runs, models.size(), failures.load(),
              mismatches.load());
  return failures || mismatches ? 1 : 0;
}
