//===- Simulator.h - Run an NPU program and count its cycles ----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Executes a command stream bit-exactly (int8 x int8 -> int32; bf16 and f16
// with f32 accumulation) on simulated memories, and counts cycles per unit
// from the NPU's description: each queue runs its commands in order, a
// command starts when its unit (and, with one DMA channel, the shared DMA
// engine) is free and the tokens it waits for have been signalled, so
// transfers overlap compute exactly as far as the program's tokens allow;
// units that use the same memory bank at once take turns.
// Two commands that touch the same bytes, one of them writing, with nothing
// ordering them (queue order and tokens, tracked as vector clocks) are a
// hazard: the run stops with both named, whatever this run's timing, rather
// than give an answer that depends on timing. Links nothing from MLIR or
// LLVM. The timing model is in docs/NPU.md.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_RUNTIME_NPU_SIMULATOR_H
#define MLC_RUNTIME_NPU_SIMULATOR_H

#include "mlc-runtime/NPU/Config.h"
#include "mlc-runtime/NPU/Program.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlc::npu {

struct SimulationStats {
  /// From the first command's start to the last one's end.
  int64_t cycles = 0;
  /// Cycles each queue's unit was busy.
  std::array<int64_t, kNumQueues> busyCycles{};
  int64_t multiplyAccumulates = 0;
  int64_t bytesLoaded = 0, bytesStored = 0;
  int64_t commands = 0;
  /// Cycles commands waited for a memory bank another unit was using.
  int64_t bankConflictCycles = 0;
  /// When each command ran, in the order they started.
  struct CommandTiming {
    size_t command;
    Queue queue;
    int64_t start, finish;
  };
  std::vector<CommandTiming> timeline;

  /// Multiply-accumulates over what the matrix unit could have done in
  /// `cycles`.
  double getMatrixUtilization(const NPUConfig &config) const;
  /// `cycles` at the config's clock.
  double getSeconds(const NPUConfig &config) const;
};

/// Checks `command` against `config` without running it: local operands
/// inside their memories (sizes computed without overflow), element types
/// and ops the NPU has, tile shapes, the token. DRAM addresses are checked
/// only when a run knows the DRAM. An empty string when it is valid; the
/// compiler's `mlc_npu.program` verifier uses the same checks.
std::string validateCommand(const NPUConfig &config, const Command &command);

/// `f` as bf16 bits, rounded to nearest even (NaNs stay quiet NaNs): the
/// conversion of the vector unit's copy, which the compiler also applies
/// to constants it converts ahead of time.
uint16_t roundToBF16(float f);

/// The cycles from `command`'s start to its result, bank conflicts aside.
int64_t getCommandCycles(const NPUConfig &config, const Command &command);

/// The part of getCommandCycles that is latency, not occupancy: `command`'s
/// unit takes its next command this many cycles before `command`'s result.
/// A matrix command's drain (the R + C - 1 cycles its last row takes
/// through the array) and a transfer's DMA latency (a channel has more
/// than one request in flight); 0 for the vector unit.
int64_t getCommandLatency(const NPUConfig &config, const Command &command);

/// The cycles `command`'s unit is taken by it when it runs `cycles` from
/// start to result (getCommandCycles plus any bank conflict): all but its
/// latency, and with double-buffered weights a matrix command's last
/// rows stream while the next one's first weights preload.
int64_t getCommandOccupancy(const NPUConfig &config, const Command &command,
                            int64_t cycles);

/// A lower bound on the cycles `program` takes: the busiest unit's
/// commands back to back (bank conflicts and waits only add to it). It
/// costs one pass over the commands, so that a search can skip timing a
/// program that cannot beat the best so far.
int64_t getProgramCyclesBound(const NPUConfig &config, const Program &program);

class Simulator {
public:
  explicit Simulator(NPUConfig config);

  const NPUConfig &getConfig() const { return config; }

  /// Runs `program` against `dram` (`dramBytes` bytes, read by loads and
  /// written by stores). The scratchpad and accumulator start zeroed.
  /// Fails, with the command's index and the problem in `error`, on an
  /// operand outside its memory, a type or op the NPU does not have, a
  /// hazard, or tokens that can never all be signalled.
  bool run(const Program &program, uint8_t *dram, uint64_t dramBytes,
           SimulationStats &stats, std::string &error);

  /// The timing of `program` alone: the same schedule, cycles and counts
  /// as `run` gives, without data (nothing is executed, DRAM addresses and
  /// hazards are not checked). The compiler times its candidate tilings so.
  bool time(const Program &program, SimulationStats &stats,
            std::string &error);

  /// The cycles one command takes on its unit.
  int64_t getCycles(const Command &command) const;

private:
  bool simulate(const Program &program, uint8_t *dram, uint64_t dramBytes,
                bool functional, SimulationStats &stats, std::string &error);

  NPUConfig config;
  std::vector<uint8_t> scratchpad, accumulator;
};

} // namespace mlc::npu

#endif // MLC_RUNTIME_NPU_SIMULATOR_H
