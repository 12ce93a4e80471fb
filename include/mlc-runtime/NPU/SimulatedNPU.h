//===- SimulatedNPU.h - Running NPU models in the simulator -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A model compiled with `--target=npu` runs its host code on this CPU and
// hands each NPU program to a launcher. This one runs the program in the
// cycle-counting simulator: it copies the program's buffers into the NPU's
// DRAM window, executes the command stream (hazards and out-of-range
// operands stop it with a message) and copies back the buffers it writes,
// adding up each program's simulated cycles, multiply-accumulates and DMA
// bytes.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_RUNTIME_NPU_SIMULATEDNPU_H
#define MLC_RUNTIME_NPU_SIMULATEDNPU_H

#include "mlc-runtime/Model.h"
#include "mlc-runtime/NPU/Simulator.h"

#include <memory>
#include <string>
#include <vector>

namespace mlc::runtime {

class SimulatedNPU {
public:
  ~SimulatedNPU();
  SimulatedNPU(const SimulatedNPU &) = delete;
  SimulatedNPU &operator=(const SimulatedNPU &) = delete;

  /// A simulated NPU for `model` (which must outlive it and be an NPU
  /// model), with the description the model was compiled for. Returns null
  /// and says why in `error`.
  static std::unique_ptr<SimulatedNPU> create(const Model &model,
                                              std::string &error);

  /// Runs the model (inputs and outputs as Model::run takes them, and the
  /// symbols' values as Model::runWithDims for a model with a symbolic
  /// batch), its NPU programs in the simulator. Returns the model's code,
  /// or MLC_ERROR_DEVICE with the simulator's message in `error`.
  int32_t run(const void *const *inputs, void *const *outputs,
              std::string &error, const int64_t *dims = nullptr);

  const npu::NPUConfig &getConfig() const { return config; }

  /// Each program's totals over the model's runs since the last reset.
  struct ProgramStats {
    /// Times the program ran.
    int64_t runs = 0;
    int64_t cycles = 0;
    int64_t multiplyAccumulates = 0;
    int64_t bytesLoaded = 0, bytesStored = 0;
    /// The matrix unit's, the DMA engines' (loads and stores) and the
    /// vector unit's busy cycles.
    int64_t matrixCycles = 0;
    int64_t dmaCycles = 0;
    int64_t vectorCycles = 0;
  };
  const std::vector<ProgramStats> &getStats() const { return stats; }
  /// The ONNX node program `index` computes, or an empty string when the
  /// model does not say.
  const std::string &getProgramNode(size_t index) const {
    return nodes[index];
  }
  /// The sum over all programs (`runs`: the model's runs).
  ProgramStats getTotal() const;
  void resetStats();

  /// The arena the runs use (for the model's check message).
  const void *getArena() const { return arena; }

private:
  SimulatedNPU() = default;
  static int32_t runProgram(void *context, int32_t program,
                            void *const *buffers);

  const Model *model = nullptr;
  npu::NPUConfig config;
  std::unique_ptr<npu::Simulator> simulator;
  std::vector<npu::Program> programs;
  std::vector<ProgramStats> stats;
  std::vector<std::string> nodes;
  int64_t modelRuns = 0;
  std::vector<uint8_t> dram;
  void *arena = nullptr;
  /// The first failure of the current run.
  std::string failure;
};

} // namespace mlc::runtime

#endif // MLC_RUNTIME_NPU_SIMULATEDNPU_H
