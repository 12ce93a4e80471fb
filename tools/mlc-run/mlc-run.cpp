//===- mlc-run.cpp - Run and benchmark a compiled model -------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlc-run MODEL.so|MODEL.onnx [-i FILE | -i NAME=FILE]... [-o OUTDIR]
//         [--bench N] [--warmup N] [--threads N] [--shape ...] [--dim ...]
//         [--weights FILE] [--compare-with=ort|DIR [--bisect]]
// mlc-run DECODER.so --generate N --prompt IDS [--temperature T --top-k K
//         --top-p P --seed S] [--eos-token ID]
//
// Loads a shared library made by `mlc-compile -o MODEL.so` (or compiles an
// ONNX model to one first), checks the inputs against the model's
// signature, runs it and writes OUTDIR/output_<k>.npy and
// OUTDIR/outputs.json. A library compiled with --weights=external reads its
// weights from the file named in its metadata, next to the library.
//
// It uses the runtime (mlc-runtime/Model.h) and the C++ standard library
// only: nothing from MLIR or LLVM. ONNX models are compiled by running the
// mlc-compile next to it.
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include "mlc-runtime/GPU.h"
#include "mlc-runtime/Model.h"
#include "mlc-runtime/NPU/SimulatedNPU.h"
#include "mlc-runtime/mlc_runtime.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace mlc;
namespace fs = std::filesystem;

namespace {
/// The command line.
struct Options {
  std::string modelPath;
  std::vector<std::string> inputFiles;
  std::string outputDir;
  unsigned benchIterations = 0;
  unsigned warmupIterations = 3;
  unsigned threads = 0;
  std::vector<std::string> shapes;
  std::vector<std::string> dims;
  std::string weightsFile;
  std::string compareWith;
  std::string tolerance;
  bool bisect = false;
  bool profile = false;
  std::string profileFile;
  /// `cpu`, or the CUDA device number for `cuda[:N]`.
  bool cuda = false;
  int cudaDevice = 0;
  /// `npu-sim`: the NPU programs run in the simulator.
  bool npuSim = false;
  /// With MODEL.onnx and npu-sim: the NPU to compile for.
  std::string npuConfig = "edge";
  /// --generate: new tokens, the prompt's token ids and how to pick tokens.
  unsigned generate = 0;
  std::vector<int64_t> prompt;
  mlc_generate_config sampling{};
};

constexpr const char *kUsage = R"(OVERVIEW: mlc-run: run a model compiled by mlc-compile (MODEL.so), or compile and run MODEL.onnx

USAGE: mlc-run <model.so | model.onnx> [options]

OPTIONS:
  -i [NAME=]FILE    An input: a .npy file or an ONNX TensorProto .pb file, in
                    graph input order, or NAME=FILE; repeatable. A model
                    compiled with its batch symbolic takes the batch from
                    the inputs' shapes
  -o DIR            Write output_<k>.npy and outputs.json into this directory
                    (created if missing)
  --bench N         Time N runs after the warm-up and print median_ms and
                    p90_ms
  --warmup N        Untimed runs before --bench (default 3)
  --threads N       Threads a run may use, exported as OMP_NUM_THREADS (and
                    MLC_NUM_THREADS) to the model's OpenMP runtime; 0
                    (default) leaves the runtime's choice: OMP_NUM_THREADS if
                    set, else one thread per core. Models compiled with
                    --parallel=false always run on one thread
  --device D        Where the model runs: cpu (default); cuda[:N] (the
                    N-th NVIDIA GPU, default 0) for a model compiled with
                    --target=gpu; MODEL.onnx is then compiled for the GPU.
                    --bench times each run with CUDA events on the device's
                    own buffers (inputs copied in once); npu-sim for a model
                    compiled with --target=npu: its NPU programs run in the
                    cycle-counting simulator, the rest on this CPU, and the
                    simulated cycles, time at the NPU's clock, matrix-unit
                    utilization and DMA bytes of one run are printed (with
                    --profile, per program)
  --npu-config C    With MODEL.onnx and --device=npu-sim: the NPU it is
                    compiled for (edge, large or a JSON file; default edge)
  --weights FILE    For a library compiled with --weights=external: its
                    weights file (default: the file its metadata names, next
                    to the library)
  --shape NAME=AxB  With MODEL.onnx: passed to mlc-compile; repeatable
  --dim NAME=N      With MODEL.onnx: passed to mlc-compile; repeatable
  --compare-with=R  With MODEL.onnx: run it with mlc (with --device=npu-sim,
                    compiled for --npu-config and run in the NPU simulator)
                    and with the reference R
                    on the same inputs (-i, else a folder's input_<k>.pb, else
                    seeded random values) and compare every output; R is
                    'ort' (ONNX Runtime from npm: cd bench && npm install
                    --ignore-scripts) or a folder of stored outputs
                    (output_<k>.pb or NAME.npy). Exit 1 when one differs
  --profile[=FILE]  Time each kernel over the --bench runs (or one run) and
                    print a table, most expensive first; with FILE also write
                    it as JSON. Needs a library compiled with `mlc-compile
                    --profile` (MODEL.onnx is compiled so)
  --generate N      Generate N tokens with a decoder (inputs input_ids,
                    attention_mask[, position_ids], past_key_values.*;
                    outputs logits, present.*: Optimum's and ONNX Runtime
                    GenAI's layouts) compiled with its sequence and past
                    symbolic: the prompt runs once, then one token per step
                    with the cache fed back. Prints the tokens, the prefill
                    time and decode tokens/s (with --bench N, the median of
                    N generations after --warmup ones)
  --prompt IDS      With --generate: the prompt's token ids, comma-separated
  --temperature T   With --generate: sample from softmax(logits / T); 0
                    (default) picks the most likely token
  --top-k K         With --generate: sample among the K most likely tokens
                    (default 0: all)
  --top-p P         With --generate: and among the fewest whose probability
                    reaches P (default 1: no cut)
  --seed S          With --generate: the sampler's seed (default 0)
  --eos-token ID    With --generate: stop after this token
  --tolerance T     max |mlc - ref| / max(1, max |ref|) allowed (default 1e-4)
  --bisect          With --compare-with=ort: when an output differs, compile
                    the model cut at intermediate values to find the first
                    value, node and op that departs
  --help            Print this text

--compare-with and --bisect run `python3 -m mlc compare` (the Python package).
)";

/// The simulated NPU's counts for one run: the whole model's, and with
/// `perProgram` each program's.
void reportNPU(const runtime::SimulatedNPU &npu, bool perProgram) {
  const npu::NPUConfig &config = npu.getConfig();
  double peak = double(config.matrix.rows * config.matrix.cols);
  auto line = [&](const runtime::SimulatedNPU::ProgramStats &s) {
    double runs = double(std::max<int64_t>(s.runs, 1));
    double cycles = double(s.cycles) / runs;
    std::printf("%.0f cycles, %.3f ms at %.0f MHz, matrix unit %.1f%% "
                "utilized (%.1f%% busy), DMA %.1f%% busy, %.0f bytes loaded, "
                "%.0f stored, vector unit %.1f%% busy",
                cycles, cycles / (config.clockMHz * 1e3), config.clockMHz,
                s.cycles ? 100.0 * double(s.multiplyAccumulates) /
                               (peak * double(s.cycles))
                         : 0.0,
                s.cycles ? 100.0 * double(s.matrixCycles) / double(s.cycles)
                         : 0.0,
                s.cycles ? 100.0 * double(s.dmaCycles) / double(s.cycles)
                         : 0.0,
                double(s.bytesLoaded) / runs, double(s.bytesStored) / runs,
                s.cycles ? 100.0 * double(s.vectorCycles) / double(s.cycles)
                         : 0.0);
  };
  std::printf("npu: '%s', %zu programs: ", config.name.c_str(),
              npu.getStats().size());
  line(npu.getTotal());
  std::printf("\n");
  if (!perProgram)
    return;
  for (size_t i = 0; i < npu.getStats().size(); ++i) {
    const std::string &node = npu.getProgramNode(i);
    if (node.empty())
      std::printf("npu program %zu: ", i);
    else
      std::printf("npu program %zu (%s): ", i, node.c_str());
    line(npu.getStats()[i]);
    std::printf("\n");
  }
}

int error(const std::string &message) {
  std::cerr << "mlc-run: error: " << message << "\n";
  return 1;
}

/// Parses a count for `flag`.
bool parseCount(const std::string &flag, const std::string &text,
                unsigned &value, std::string &message) {
  if (text.empty() || text.size() > 9 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    message = "--" + flag + " takes a non-negative integer, not '" + text + "'";
    return false;
  }
  value = static_cast<unsigned>(std::stoul(text));
  return true;
}

/// Parses argv. Flags take their value as the next argument or after '=';
/// one or two leading dashes are the same.
bool parseOptions(int argc, char **argv, Options &options, bool &help,
                  std::string &message) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      if (!options.modelPath.empty()) {
        message = "more than one model given: '" + options.modelPath +
                  "' and '" + arg + "'";
        return false;
      }
      options.modelPath = arg;
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name == "help" || name == "h") {
      help = true;
      return true;
    }
    if (name == "bisect" && !value) {
      options.bisect = true;
      continue;
    }
    if (name == "profile") {
      options.profile = true;
      options.profileFile = value.value_or("");
      continue;
    }
    static const char *const kValued[] = {
        "i",           "o",           "bench",     "warmup",    "threads",
        "shape",       "dim",         "weights",   "compare-with",
        "tolerance",   "device",      "npu-config", "generate", "prompt",
        "temperature", "top-k",       "top-p",     "seed",      "eos-token"};
    if (std::find(std::begin(kValued), std::end(kValued), name) ==
        std::end(kValued)) {
      message = "unknown option '" + arg + "' (see --help)";
      return false;
    }
    if (!value) {
      if (i + 1 >= argc) {
        message = "option '" + arg + "' needs a value";
        return false;
      }
      value = argv[++i];
    }
    if (name == "i")
      options.inputFiles.push_back(*value);
    else if (name == "o")
      options.outputDir = *value;
    else if (name == "shape")
      options.shapes.push_back(*value);
    else if (name == "dim")
      options.dims.push_back(*value);
    else if (name == "weights")
      options.weightsFile = *value;
    else if (name == "compare-with")
      options.compareWith = *value;
    else if (name == "tolerance")
      options.tolerance = *value;
    else if (name == "npu-config")
      options.npuConfig = *value;
    else if (name == "generate") {
      if (!parseCount(name, *value, options.generate, message))
        return false;
    } else if (name == "prompt" || name == "seed" || name == "eos-token" ||
               name == "top-k") {
      // Integers: comma-separated token ids for --prompt.
      std::vector<int64_t> values;
      std::string text = *value;
      size_t start = 0;
      while (true) {
        size_t comma = text.find(',', start);
        std::string item = text.substr(start, comma == std::string::npos
                                                  ? std::string::npos
                                                  : comma - start);
        char *end = nullptr;
        errno = 0;
        long long v = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end || errno || v < 0) {
          message = "--" + name + " takes " +
                    (name == "prompt" ? "comma-separated token ids"
                                      : "a non-negative integer") +
                    ", not '" + text + "'";
          return false;
        }
        values.push_back(v);
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
      if (name != "prompt" && values.size() != 1) {
        message = "--" + name + " takes one integer, not '" + text + "'";
        return false;
      }
      if (name == "prompt")
        options.prompt = values;
      else if (name == "seed")
        options.sampling.seed = static_cast<uint64_t>(values[0]);
      else if (name == "eos-token")
        options.sampling.eos_token_id = values[0];
      else
        options.sampling.top_k = static_cast<int32_t>(
            std::min<int64_t>(values[0], INT32_MAX));
    } else if (name == "temperature" || name == "top-p") {
      char *end = nullptr;
      float v = std::strtof(value->c_str(), &end);
      if (value->empty() || *end || !(v >= 0) ||
          (name == "top-p" && v > 1)) {
        message = "--" + name + " takes a number" +
                  (name == "top-p" ? " in [0, 1]" : " >= 0") + ", not '" +
                  *value + "'";
        return false;
      }
      (name == "temperature" ? options.sampling.temperature
                             : options.sampling.top_p) = v;
    }
    else if (name == "device") {
      const std::string &d = *value;
      if (d == "cpu")
        options.cuda = false;
      else if (d == "npu-sim")
        options.npuSim = true;
      else if (d == "cuda" || (d.rfind("cuda:", 0) == 0 && d.size() > 5 &&
                               d.size() < 9 &&
                               d.find_first_not_of("0123456789", 5) ==
                                   std::string::npos)) {
        options.cuda = true;
        options.cudaDevice = d == "cuda" ? 0 : std::stoi(d.substr(5));
      } else {
        message =
            "--device takes cpu, cuda, cuda:N or npu-sim, not '" + d + "'";
        return false;
      }
    }
    else if (!parseCount(name, *value,
                         name == "bench"    ? options.benchIterations
                         : name == "warmup" ? options.warmupIterations
                                            : options.threads,
                         message))
      return false;
  }
  if (options.modelPath.empty()) {
    message = "no model given (see --help)";
    return false;
  }
  if (options.generate && options.prompt.empty()) {
    message = "--generate needs --prompt IDS";
    return false;
  }
  if (!options.generate && !options.prompt.empty()) {
    message = "--prompt goes with --generate";
    return false;
  }
  if ((options.bisect || !options.tolerance.empty()) &&
      options.compareWith.empty()) {
    message = "--bisect and --tolerance go with --compare-with";
    return false;
  }
  return true;
}

/// --compare-with: hands over to `python3 -m mlc compare`, with the package
/// that belongs to this mlc-run (installed, or the source tree's with this
/// build's libraries). Returns only on failure.
int compareWithReference(const Options &options) {
  if (fs::path(options.modelPath).extension() != ".onnx")
    return error("--compare-with needs MODEL.onnx (the reference runs the "
                 "ONNX model), not " + options.modelPath);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  bool installed = !ec && self.parent_path() == fs::path(MLC_INSTALL_BIN_DIR);
  std::string package = installed ? MLC_INSTALL_PYTHON_DIR
                                  : MLC_SOURCE_PYTHON_DIR;
  if (!installed && !ec)
    setenv("MLC_BUILD_DIR", self.parent_path().parent_path().c_str(), 1);
  const char *path = std::getenv("PYTHONPATH");
  setenv("PYTHONPATH",
         (package + (path && *path ? ":" + std::string(path) : "")).c_str(),
         1);
  std::vector<std::string> args{MLC_PYTHON, "-m", "mlc", "compare",
                                options.modelPath, "--reference",
                                options.compareWith};
  if (options.bisect)
    args.push_back("--bisect");
  if (!options.tolerance.empty())
    args.insert(args.end(), {"--tolerance", options.tolerance});
  for (const std::string &input : options.inputFiles)
    args.insert(args.end(), {"-i", input});
  for (const std::string &s : options.shapes)
    args.push_back("--shape=" + s);
  for (const std::string &d : options.dims)
    args.push_back("--dim=" + d);
  if (options.npuSim) {
    args.push_back("--target=npu");
    args.push_back("--npu-config=" + options.npuConfig);
  }
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(MLC_PYTHON, argv.data());
  return error(std::string("cannot run ") + MLC_PYTHON + ": " +
               std::strerror(errno));
}

/// Compiles `onnx` to a shared library in `dir` with the mlc-compile next to
/// this executable.
bool compileModel(const Options &options, const fs::path &dir,
                  std::string &library, std::string &message) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  fs::path compiler = self.parent_path() / "mlc-compile";
  if (ec || access(compiler.c_str(), X_OK) != 0) {
    message = "cannot find mlc-compile next to mlc-run (looked for " +
              compiler.string() + ")";
    return false;
  }
  library = (dir / "model.so").string();
  // The library runs here and now: compile for this machine's CPU.
  std::vector<std::string> args{compiler.string(), options.modelPath, "-o",
                                library, "--mcpu=native"};
  for (const std::string &s : options.shapes)
    args.push_back("--shape=" + s);
  for (const std::string &d : options.dims)
    args.push_back("--dim=" + d);
  if (options.profile)
    args.push_back("--profile");
  if (options.cuda)
    args.push_back("--target=gpu");
  if (options.npuSim) {
    args.push_back("--target=npu");
    args.push_back("--npu-config=" + options.npuConfig);
  }
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (int rc = posix_spawn(&pid, compiler.c_str(), nullptr, nullptr,
                           argv.data(), environ)) {
    message = "cannot run " + compiler.string() + ": " + std::strerror(rc);
    return false;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    message = "compiling " + options.modelPath + " failed";
    return false;
  }
  return true;
}

/// Matches the -i arguments to the model's inputs and checks them.
/// Reads the inputs and checks them against `signature`; the values of its
/// symbolic dims (the batch) come from their shapes, into `dims`.
bool loadInputs(const Options &options, const abi::ModelSignature &signature,
                std::vector<run::HostTensor> &inputs,
                std::vector<int64_t> &dims, std::string &message) {
  std::vector<std::optional<run::HostTensor>> bound(signature.inputs.size());
  std::vector<std::string> files(signature.inputs.size());
  size_t next = 0;
  for (const std::string &arg : options.inputFiles) {
    size_t index = next;
    std::string file = arg;
    if (size_t eq = arg.find('='); eq != std::string::npos && eq + 1 < arg.size()) {
      std::string name = arg.substr(0, eq);
      auto it = std::find_if(
          signature.inputs.begin(), signature.inputs.end(),
          [&](const abi::TensorSignature &t) { return t.name == name; });
      if (it != signature.inputs.end()) {
        index = it - signature.inputs.begin();
        file = arg.substr(eq + 1);
      }
    }
    if (index == next)
      ++next;
    if (index >= signature.inputs.size()) {
      message = "too many inputs: the model takes " +
                std::to_string(signature.inputs.size()) + " (" + file + ")";
      return false;
    }
    if (bound[index]) {
      message = "input '" + signature.inputs[index].name + "' is given twice";
      return false;
    }
    run::HostTensor tensor;
    if (!run::readTensorFile(file, tensor, message))
      return false;
    bound[index] = std::move(tensor);
    files[index] = file;
  }
  auto describe = [](abi::DType dtype, const std::vector<int64_t> &shape) {
    return std::string(abi::getDTypeName(dtype)) + " " +
           run::formatShape(shape);
  };
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    const abi::TensorSignature &expected = signature.inputs[i];
    if (!bound[i]) {
      message = "missing input " + std::to_string(i) + " '" + expected.name +
                "' (" + describe(expected.dtype, expected.shape) + ")";
      return false;
    }
    const run::HostTensor &got = *bound[i];
    if (got.dtype != expected.dtype ||
        (!expected.hasSymbols() && got.shape != expected.shape)) {
      message = "input " + std::to_string(i) + " '" + expected.name +
                "' from " + files[i] + " is " + describe(got.dtype, got.shape) +
                "; the model needs " + describe(expected.dtype, expected.shape);
      return false;
    }
    inputs.push_back(std::move(*bound[i]));
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const run::HostTensor &t : inputs)
    shapes.push_back(t.shape);
  return abi::resolveSymbols(signature, shapes, dims, message);
}

bool writeOutputs(const std::string &outputDir,
                  const abi::ModelSignature &signature,
                  const std::vector<run::HostTensor> &outputs,
                  std::string &message) {
  std::error_code ec;
  fs::create_directories(outputDir, ec);
  if (ec) {
    message = "cannot create " + outputDir + ": " + ec.message();
    return false;
  }
  nlohmann::json entries = nlohmann::json::array();
  for (size_t k = 0; k < outputs.size(); ++k) {
    const run::HostTensor &t = outputs[k];
    std::string file = "output_" + std::to_string(k) + ".npy";
    if (!run::writeNpy((fs::path(outputDir) / file).string(), t, message))
      return false;
    entries.push_back({{"index", k},
                       {"name", signature.outputs[k].name},
                       {"dtype", std::string(abi::getDTypeName(t.dtype))},
                       {"shape", t.shape},
                       {"file", file}});
  }
  fs::path path = fs::path(outputDir) / "outputs.json";
  std::ofstream os(path);
  nlohmann::json root{{"model", signature.name}, {"outputs", entries}};
  os << root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
     << "\n";
  if (!os) {
    message = "cannot write " + path.string();
    return false;
  }
  return true;
}

/// Removes a temporary directory when it goes out of scope.
struct TempDir {
  fs::path path;
  ~TempDir() {
    std::error_code ec;
    if (!path.empty())
      fs::remove_all(path, ec);
  }
};

/// --profile: the kernels' time per run, most expensive first, beside the
/// whole run's; written as JSON to `file` when it is not empty.
bool reportProfile(const runtime::Model::Profile &profile, unsigned runs,
                   double runMs, const std::string &model,
                   const std::string &file, std::string &message) {
  std::vector<size_t> order(profile.kernels.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return profile.nanoseconds[a] != profile.nanoseconds[b]
               ? profile.nanoseconds[a] > profile.nanoseconds[b]
               : a < b;
  });
  double kernelsMs = 0;
  for (int64_t ns : profile.nanoseconds)
    kernelsMs += double(ns) / 1e6 / runs;
  double outsideMs = std::max(0.0, runMs - kernelsMs);
  auto share = [&](double ms) { return runMs > 0 ? 100 * ms / runMs : 0; };
  std::printf("profile: %u run%s, %.3f ms per run, %zu kernels %.3f ms "
              "(%.1f%%)\n     ms/run   share  kernel\n",
              runs, runs == 1 ? "" : "s", runMs, profile.kernels.size(),
              kernelsMs, share(kernelsMs));
  nlohmann::json kernels = nlohmann::json::array();
  for (size_t k : order) {
    double ms = double(profile.nanoseconds[k]) / 1e6 / runs;
    std::printf("  %9.3f  %5.1f%%  %s\n", ms, share(ms),
                profile.kernels[k].c_str());
    kernels.push_back(
        {{"kernel", profile.kernels[k]}, {"ms", ms}, {"share", share(ms) / 100}});
  }
  std::printf("  %9.3f  %5.1f%%  (outside kernels: copies, calls)\n",
              outsideMs, share(outsideMs));
  if (file.empty())
    return true;
  nlohmann::json json = {{"model", model},
                         {"runs", runs},
                         {"run_ms", runMs},
                         {"kernels_ms", kernelsMs},
                         {"outside_ms", outsideMs},
                         {"kernels", kernels}};
  std::ofstream out(file);
  out << json.dump(2) << "\n";
  if (!out) {
    message = "cannot write " + file;
    return false;
  }
  return true;
}

int runMain(const Options &options) {
  // An ONNX model is compiled to a temporary shared library first.
  std::string library = options.modelPath;
  std::string message;
  TempDir tempDir;
  if (fs::path(library).extension() == ".onnx") {
    std::string pattern =
        (fs::temp_directory_path() / "mlc-run-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      return error(std::string("cannot create a temporary directory: ") +
                   std::strerror(errno));
    tempDir.path = pattern;
    if (!compileModel(options, tempDir.path, library, message))
      return error(message);
  }

  // The OpenMP runtime reads its thread count when the first parallel loop
  // starts; set it before the library can run anything.
  if (options.threads > 0) {
    std::string threadCount = std::to_string(options.threads);
    ::setenv("MLC_NUM_THREADS", threadCount.c_str(), /*overwrite=*/1);
    ::setenv("OMP_NUM_THREADS", threadCount.c_str(), /*overwrite=*/1);
  }

  std::unique_ptr<runtime::Model> model =
      runtime::Model::load(library, options.weightsFile, message);
  if (!model)
    return error(message);
  const abi::ModelSignature &signature = model->getSignature();
  if (model->isGPU() && !options.cuda)
    return error(library + " was compiled for the GPU (--target=gpu): run it "
                           "with --device=cuda");
  if (!model->isGPU() && options.cuda)
    return error(library + " was compiled for the CPU: compile it with "
                           "--target=gpu to run it with --device=cuda");
  if (model->isNPU() && !options.npuSim)
    return error(library + " was compiled for the NPU (--target=npu): run it "
                           "with --device=npu-sim");
  if (!model->isNPU() && options.npuSim)
    return error(library + " was compiled for the " +
                 (model->isGPU() ? "GPU" : "CPU") +
                 ": compile it with --target=npu to run it with "
                 "--device=npu-sim");
  if (options.cuda && options.profile)
    return error("--profile times CPU kernels; it does not apply to "
                 "--device=cuda yet");
  if (options.profile && !model->hasProfile() && !options.npuSim)
    return error(library + " has no kernel timings: compile it with "
                           "`mlc-compile --profile`");

  std::vector<run::HostTensor> inputs;
  std::vector<int64_t> dims;
  if (!loadInputs(options, signature, inputs, dims, message))
    return error(message);

  std::vector<run::HostTensor> outputs;
  // An output whose size the data decides is a record (address, dims) the
  // model fills; its tensor is made after the run.
  std::vector<std::vector<int64_t>> records(signature.outputs.size());
  for (size_t k = 0; k < signature.outputs.size(); ++k) {
    const abi::TensorSignature &t = signature.outputs[k];
    run::HostTensor out;
    out.dtype = t.dtype;
    out.shape = t.getShape(dims.data());
    // One spare element keeps data() non-null for empty tensors.
    if (t.isDynamic())
      records[k].assign(1 + t.shape.size(), 0);
    else
      out.data.assign(t.getNumBytes(dims.data()) + abi::getDTypeSize(t.dtype),
                      0);
    outputs.push_back(std::move(out));
  }
  // Takes the data of the last run's dynamic outputs (into `outputs` when
  // `keep`) and frees it.
  auto takeDynamicOutputs = [&](bool keep) {
    for (size_t k = 0; k < records.size(); ++k) {
      std::vector<int64_t> &record = records[k];
      if (record.empty() || !record[0])
        continue;
      char *data = reinterpret_cast<char *>(static_cast<uintptr_t>(record[0]));
      if (keep) {
        run::HostTensor &out = outputs[k];
        out.shape.assign(record.begin() + 1, record.end());
        int64_t bytes = abi::getDTypeSize(out.dtype);
        for (int64_t d : out.shape)
          bytes *= d;
        out.data.assign(data, data + bytes);
        out.data.resize(bytes + abi::getDTypeSize(out.dtype));
      }
      std::free(data);
      record[0] = 0;
    }
  };
  std::vector<const void *> inputPtrs;
  for (run::HostTensor &t : inputs) {
    t.data.resize(t.data.size() + abi::getDTypeSize(t.dtype));
    inputPtrs.push_back(t.data.data());
  }
  std::vector<void *> outputPtrs;
  for (size_t k = 0; k < outputs.size(); ++k)
    outputPtrs.push_back(records[k].empty()
                             ? static_cast<void *>(outputs[k].data.data())
                             : static_cast<void *>(records[k].data()));

  std::unique_ptr<runtime::GPUContext> gpu;
  if (options.cuda) {
    gpu = runtime::GPUContext::create(*model, options.cudaDevice, message);
    if (!gpu)
      return error(library + ": " + message);
    std::printf("device: %s\n", gpu->getDeviceDescription().c_str());
  }
  std::unique_ptr<runtime::SimulatedNPU> npu;
  if (options.npuSim) {
    npu = runtime::SimulatedNPU::create(*model, message);
    if (!npu)
      return error(library + ": " + message);
  }
  std::string runError;
  bool kept = false;
  auto runOnce = [&] {
    int32_t rc = gpu   ? gpu->run(inputPtrs.data(), outputPtrs.data(), runError)
                 : npu ? npu->run(inputPtrs.data(), outputPtrs.data(), runError,
                            dims.empty() ? nullptr : dims.data())
                       : model->runWithDims(dims.data(), inputPtrs.data(),
                                            outputPtrs.data());
    takeDynamicOutputs(!kept);
    kept = true;
    return rc;
  };
  if (int32_t rc = runOnce()) {
    if (rc == abi::kErrorCheck && !gpu)
      runError = model->getCheckMessage(npu ? npu->getArena() : nullptr);
    return error("the model returned error code " + std::to_string(rc) +
                 (runError.empty() ? "" : ": " + runError));
  }
  if (npu) {
    reportNPU(*npu, options.profile);
    npu->resetStats();
  }
  double profiledMs = 0;
  if (options.profile && options.benchIterations == 0) {
    model->resetProfile();
    auto start = std::chrono::steady_clock::now();
    runOnce();
    profiledMs = std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  }
  if (options.benchIterations > 0) {
    for (unsigned i = 0; i < options.warmupIterations; ++i)
      runOnce();
    model->resetProfile();
    std::vector<double> times;
    for (unsigned i = 0; i < options.benchIterations; ++i) {
      if (gpu) {
        // The inputs are on the device since the first run.
        float ms = 0;
        if (int32_t rc = gpu->runOnDevice(gpu->getInputBuffers().data(),
                                          gpu->getOutputBuffers().data(),
                                          runError, &ms))
          return error("the model returned error code " + std::to_string(rc) +
                       ": " + runError);
        times.push_back(ms);
        continue;
      }
      auto start = std::chrono::steady_clock::now();
      runOnce();
      auto end = std::chrono::steady_clock::now();
      times.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    std::sort(times.begin(), times.end());
    double median =
        times.size() % 2
            ? times[times.size() / 2]
            : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
    size_t p90 = std::min(times.size() - 1,
                          static_cast<size_t>(0.9 * (times.size() - 1) + 0.5));
    std::printf("iterations: %u\nmedian_ms: %.6f\np90_ms: %.6f\n",
                options.benchIterations, median, times[p90]);
    for (double t : times)
      profiledMs += t / times.size();
  }
  if (options.profile && model->hasProfile() &&
      !reportProfile(model->getProfile(), std::max(1u, options.benchIterations),
                     profiledMs, signature.name, options.profileFile,
                     message))
    return error(message);
  for (run::HostTensor &t : outputs)
    t.data.resize(t.data.size() - abi::getDTypeSize(t.dtype));
  if (!options.outputDir.empty()) {
    if (!writeOutputs(options.outputDir, signature, outputs, message))
      return error(message);
  } else if (options.benchIterations == 0) {
    for (size_t k = 0; k < outputs.size(); ++k)
      std::cout << "output " << k << " '" << signature.outputs[k].name
                << "': " << abi::getDTypeName(outputs[k].dtype) << " "
                << run::formatShape(outputs[k].shape)
                << " (use -o DIR to save)\n";
  }
  return 0;
}

/// --generate: the runtime's decoding loop (mlc_model_generate) over a
/// compiled decoder.
int generateMain(const Options &options) {
  if (fs::path(options.modelPath).extension() == ".onnx")
    return error("--generate runs a compiled decoder: compile it first "
                 "(mlc-compile " + options.modelPath + " -o DECODER.so)");
  if (options.cuda || options.npuSim)
    return error("--generate runs CPU models");
  if (options.threads > 0) {
    std::string threadCount = std::to_string(options.threads);
    ::setenv("MLC_NUM_THREADS", threadCount.c_str(), /*overwrite=*/1);
    ::setenv("OMP_NUM_THREADS", threadCount.c_str(), /*overwrite=*/1);
  }
  char message[4096];
  mlc_model *model = mlc_model_load(
      options.modelPath.c_str(),
      options.weightsFile.empty() ? nullptr : options.weightsFile.c_str(),
      message, sizeof(message));
  if (!model)
    return error(message);
  mlc_arena *arena = mlc_arena_new(model);
  if (!arena) {
    mlc_model_free(model);
    return error("cannot allocate the model's arena");
  }
  mlc_generate_config config = options.sampling;
  config.max_new_tokens = static_cast<int32_t>(options.generate);
  std::vector<int64_t> tokens(options.generate);
  std::vector<mlc_generate_stats> runs;
  unsigned warmup = options.benchIterations ? options.warmupIterations : 0;
  unsigned timed = std::max(1u, options.benchIterations);
  int32_t rc = 0;
  size_t count = 0;
  for (unsigned i = 0; i < warmup + timed && !rc; ++i) {
    mlc_generate_stats stats{};
    rc = mlc_model_generate(model, arena, options.prompt.data(),
                            options.prompt.size(), &config, tokens.data(),
                            &count, &stats, message, sizeof(message));
    if (i >= warmup)
      runs.push_back(stats);
  }
  mlc_arena_free(arena);
  mlc_model_free(model);
  if (rc)
    return error(options.modelPath + ": " + message);
  std::printf("tokens:");
  for (size_t i = 0; i < count; ++i)
    std::printf(" %lld", static_cast<long long>(tokens[i]));
  auto median = [&](auto field) {
    std::vector<double> values;
    for (const mlc_generate_stats &s : runs)
      values.push_back(field(s));
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  double prefill = median([](const auto &s) { return s.prefill_ms; });
  double perSecond = median([](const auto &s) {
    return s.new_tokens > 1 && s.decode_ms > 0
               ? (s.new_tokens - 1) * 1000.0 / s.decode_ms
               : 0.0;
  });
  std::printf("\nprefill_ms: %.3f (%zu prompt tokens)\n"
              "decode_tokens_per_s: %.2f (%zu steps)\n",
              prefill, options.prompt.size(), perSecond,
              count > 0 ? count - 1 : 0);
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  Options options;
  mlc_generate_config_init(&options.sampling);
  bool help = false;
  std::string message;
  if (!parseOptions(argc, argv, options, help, message))
    return error(message);
  if (help) {
    std::cout << kUsage;
    return 0;
  }
  if (!options.compareWith.empty())
    return compareWithReference(options);
  if (options.generate)
    return generateMain(options);
  return runMain(options);
}
