//===- mlc-npu-sim.cpp - Run an NPU command stream in the simulator -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlc-npu-sim PROGRAM.npu [--npu-config=edge|large|FILE.json]
//             [--dram=IN.bin] [--dram-size=BYTES] [-o OUT.bin] [--trace]
//
// Runs a command stream (docs/NPU.md) on the simulator against a DRAM image
// and prints the simulated cycles, the time at the config's clock, the
// matrix unit's utilization, each unit's busy cycles, the bytes moved and
// the bank-conflict cycles; --trace prints when each command ran; -o writes
// the DRAM image afterwards. Links nothing from MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/NPU/Simulator.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>

using namespace mlc::npu;

namespace {
constexpr const char *kUsage = R"(OVERVIEW: mlc-npu-sim: run an NPU command stream in the simulator

USAGE: mlc-npu-sim PROGRAM.npu [options]

OPTIONS:
  --npu-config=NAME|FILE  The NPU: a built-in (edge, large) or a JSON
                          description (docs/NPU.md); default edge
  --dram=FILE             The DRAM image the stream's loads read (default:
                          zeros)
  --dram-size=BYTES       DRAM bytes (default: the image's size, or 1 MiB)
  -o FILE                 Write the DRAM image after the run
  --trace                 Print each command's unit, start and end cycle
  --help                  Print this text
)";

int fail(const std::string &message) {
  std::cerr << "mlc-npu-sim: error: " << message << "\n";
  return 1;
}

bool readFile(const std::string &path, std::vector<uint8_t> &bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(in),
               std::istreambuf_iterator<char>());
  return true;
}
} // namespace

int main(int argc, char **argv) {
  std::string programPath, configName = "edge", dramPath, outPath;
  std::optional<uint64_t> dramSize;
  bool trace = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const std::string &flag) -> std::optional<std::string> {
      if (arg.rfind(flag + "=", 0) == 0)
        return arg.substr(flag.size() + 1);
      if (arg == flag && i + 1 < argc)
        return std::string(argv[++i]);
      return std::nullopt;
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--trace") {
      trace = true;
    } else if (auto v = value("--npu-config")) {
      configName = *v;
    } else if (auto v = value("--dram")) {
      dramPath = *v;
    } else if (auto v = value("--dram-size")) {
      if (v->empty() || v->size() > 15 ||
          v->find_first_not_of("0123456789") != std::string::npos)
        return fail("--dram-size takes a number of bytes, not '" + *v + "'");
      dramSize = std::stoull(*v);
    } else if (auto v = value("-o")) {
      outPath = *v;
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "' (see --help)");
    } else if (programPath.empty()) {
      programPath = arg;
    } else {
      return fail("more than one program given");
    }
  }
  if (programPath.empty())
    return fail("no program given (see --help)");

  std::string error;
  std::optional<NPUConfig> config = loadNPUConfig(configName, error);
  if (!config)
    return fail(error);
  std::vector<uint8_t> bytes;
  if (!readFile(programPath, bytes))
    return fail("cannot read " + programPath);
  std::optional<Program> program =
      parseProgram(bytes.data(), bytes.size(), error);
  if (!program)
    return fail(programPath + ": " + error);
  std::vector<uint8_t> dram;
  if (!dramPath.empty() && !readFile(dramPath, dram))
    return fail("cannot read " + dramPath);
  uint64_t size = dramSize ? *dramSize : dram.empty() ? 1 << 20 : dram.size();
  if (size > (uint64_t(1) << 34))
    return fail("--dram-size over 16 GiB");
  dram.resize(size);

  Simulator simulator(*config);
  SimulationStats stats;
  if (!simulator.run(*program, dram.data(), dram.size(), stats, error))
    return fail(programPath + ": " + error);
  if (trace) {
    static const char *const kQueues[] = {"load", "compute", "vector",
                                          "store"};
    std::printf("command  unit      start     end\n");
    for (const SimulationStats::CommandTiming &t : stats.timeline)
      std::printf("%7zu  %-7s %7lld %7lld\n", t.command,
                  kQueues[unsigned(t.queue)], (long long)t.start,
                  (long long)t.finish);
  }
  std::printf("npu: %s, %lldx%lld matrix unit at %.0f MHz\n",
              config->name.c_str(), (long long)config->matrix.rows,
              (long long)config->matrix.cols, config->clockMHz);
  std::printf("commands: %lld\ncycles: %lld\ntime_us: %.3f\n",
              (long long)stats.commands, (long long)stats.cycles,
              stats.getSeconds(*config) * 1e6);
  std::printf("matrix_utilization: %.4f\nmacs: %lld\n",
              stats.getMatrixUtilization(*config),
              (long long)stats.multiplyAccumulates);
  std::printf("busy_cycles: load %lld, compute %lld, vector %lld, store "
              "%lld\n",
              (long long)stats.busyCycles[0], (long long)stats.busyCycles[1],
              (long long)stats.busyCycles[2], (long long)stats.busyCycles[3]);
  std::printf("dma_bytes: loaded %lld, stored %lld\nbank_conflict_cycles: "
              "%lld\n",
              (long long)stats.bytesLoaded, (long long)stats.bytesStored,
              (long long)stats.bankConflictCycles);
  if (!outPath.empty()) {
    std::ofstream out(outPath, std::ios::binary);
    out.write(reinterpret_cast<const char *>(dram.data()),
              std::streamsize(dram.size()));
    if (!out)
      return fail("cannot write " + outPath);
  }
  return 0;
}
