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
//         [--weights FILE]
//
// Loads a shared library made by `mlc-compile -o MODEL.so` (or compiles an
// ONNX model to one first), checks the inputs against the model's
// signature, runs it and writes OUTDIR/output_<k>.npy and
// OUTDIR/outputs.json. A library compiled with --weights=external reads its
// weights from the file named in its metadata, next to the library.
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include "mlc/Target/CPU/ModelABI.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

using namespace mlc;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("mlc-run options");
cl::opt<std::string> modelPath(cl::Positional,
                               cl::desc("<model.so | model.onnx>"),
                               cl::Required, cl::cat(category));
cl::list<std::string>
    inputFiles("i",
               cl::desc("An input: a .npy file or an ONNX TensorProto .pb "
                        "file, in graph input order, or NAME=FILE"),
               cl::value_desc("[name=]file"), cl::cat(category));
cl::opt<std::string>
    outputDir("o",
              cl::desc("Write output_<k>.npy and outputs.json into this "
                       "directory (created if missing)"),
              cl::value_desc("dir"), cl::cat(category));
cl::opt<unsigned> benchIterations(
    "bench",
    cl::desc("Time N runs after the warm-up and print median_ms and p90_ms"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
cl::opt<unsigned> warmupIterations("warmup",
                                   cl::desc("Untimed runs before --bench"),
                                   cl::value_desc("N"), cl::init(3),
                                   cl::cat(category));
cl::list<std::string>
    shapes("shape", cl::desc("With MODEL.onnx: passed to mlc-compile"),
           cl::value_desc("name=shape"), cl::cat(category));
cl::list<std::string>
    dims("dim", cl::desc("With MODEL.onnx: passed to mlc-compile"),
         cl::value_desc("name=N"), cl::cat(category));

cl::opt<std::string> weightsFile(
    "weights",
    cl::desc("For a library compiled with --weights=external: its weights "
             "file (default: the file its metadata names, next to the "
             "library)"),
    cl::value_desc("file"), cl::cat(category));

using RunFn = int32_t (*)(void *, const void *const *, void *const *);
using RunWithWeightsFn = int32_t (*)(const void *, void *, const void *const *,
                                     void *const *);

int error(const llvm::Twine &message) {
  llvm::errs() << "mlc-run: error: " << message << "\n";
  return 1;
}

/// Compiles `onnx` to a shared library in `dir` with the mlc-compile next to
/// this executable.
llvm::Expected<std::string> compileModel(llvm::StringRef onnx,
                                         llvm::StringRef dir,
                                         const char *argv0) {
  std::string self = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&compileModel));
  llvm::SmallString<256> compiler(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(compiler, "mlc-compile");
  if (!llvm::sys::fs::can_execute(compiler))
    return llvm::createStringError("cannot find mlc-compile next to mlc-run "
                                   "(looked for " +
                                   compiler.str() + ")");
  llvm::SmallString<256> library(dir);
  llvm::sys::path::append(library, "model.so");
  // The library runs here and now: compile for this machine's CPU.
  std::vector<std::string> args{compiler.str().str(), onnx.str(), "-o",
                                library.str().str(), "--mcpu=native"};
  for (const std::string &s : shapes)
    args.push_back("--shape=" + s);
  for (const std::string &d : dims)
    args.push_back("--dim=" + d);
  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(compiler, argRefs, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0)
    return llvm::createStringError(
        "compiling " + onnx.str() + " failed" +
        (message.empty() ? std::string() : ": " + message));
  return library.str().str();
}

/// Maps the weights file of `library` and checks that it belongs to it.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
loadWeights(llvm::StringRef library, const abi::ExternalWeights &weights) {
  llvm::SmallString<256> path(weightsFile);
  if (path.empty()) {
    path = llvm::sys::path::parent_path(library);
    llvm::sys::path::append(path, weights.file);
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false,
                                  /*IsVolatile=*/false,
                                  llvm::Align(abi::kWeightsAlignment));
  if (!buffer)
    return llvm::createStringError(
        "cannot read the weights of " + library.str() + " from " +
        path.str().str() + ": " + buffer.getError().message() +
        " (it was compiled with --weights=external; pass --weights FILE)");
  int64_t size = (*buffer)->getBufferSize();
  if (size != weights.size)
    return llvm::createStringError(
        "weights file " + path.str().str() + " has " + std::to_string(size) +
        " bytes; " + library.str() + " needs " + std::to_string(weights.size));
  if (abi::hashWeights(llvm::ArrayRef<char>((*buffer)->getBufferStart(),
                                            size)) != weights.hash)
    return llvm::createStringError("weights file " + path.str().str() +
                                   " does not belong to " + library.str() +
                                   " (checksum differs)");
  return std::move(*buffer);
}

/// Aligned, zero-initialized memory.
struct AlignedBuffer {
  explicit AlignedBuffer(int64_t size)
      : data(static_cast<char *>(std::aligned_alloc(
            abi::kArenaAlignment,
            std::max<int64_t>(llvm::alignTo(size, abi::kArenaAlignment),
                              abi::kArenaAlignment)))) {
    if (data)
      std::fill(data, data + size, 0);
  }
  ~AlignedBuffer() { std::free(data); }
  char *data;
};

/// Matches the -i arguments to the model's inputs and checks them.
llvm::Expected<std::vector<run::HostTensor>>
loadInputs(const abi::ModelSignature &signature) {
  std::vector<std::optional<run::HostTensor>> bound(signature.inputs.size());
  std::vector<std::string> files(signature.inputs.size());
  unsigned next = 0;
  for (const std::string &arg : inputFiles) {
    unsigned index = next;
    std::string file = arg;
    std::pair<llvm::StringRef, llvm::StringRef> parts =
        llvm::StringRef(arg).split('=');
    llvm::StringRef name = parts.first, rest = parts.second;
    if (!rest.empty()) {
      auto it = llvm::find_if(signature.inputs, [&](const auto &t) {
        return t.name == name;
      });
      if (it != signature.inputs.end()) {
        index = it - signature.inputs.begin();
        file = rest.str();
      }
    }
    if (index == next)
      ++next;
    if (index >= signature.inputs.size())
      return llvm::createStringError(
          "too many inputs: the model takes " +
          std::to_string(signature.inputs.size()) + " (" + file + ")");
    if (bound[index])
      return llvm::createStringError("input '" + signature.inputs[index].name +
                                     "' is given twice");
    llvm::Expected<run::HostTensor> tensor = run::readTensorFile(file);
    if (!tensor)
      return tensor.takeError();
    bound[index] = std::move(*tensor);
    files[index] = file;
  }
  std::vector<run::HostTensor> inputs;
  for (auto [i, expected] : llvm::enumerate(signature.inputs)) {
    if (!bound[i])
      return llvm::createStringError(
          "missing input " + std::to_string(i) + " '" + expected.name +
          "' (" + abi::getDTypeName(expected.dtype).str() + " " +
          run::formatShape(expected.shape) + ")");
    const run::HostTensor &got = *bound[i];
    if (got.dtype != expected.dtype || got.shape != expected.shape)
      return llvm::createStringError(
          "input " + std::to_string(i) + " '" + expected.name + "' from " +
          files[i] + " is " + abi::getDTypeName(got.dtype).str() + " " +
          run::formatShape(got.shape) + "; the model needs " +
          abi::getDTypeName(expected.dtype).str() + " " +
          run::formatShape(expected.shape));
    inputs.push_back(std::move(*bound[i]));
  }
  return inputs;
}

llvm::Error writeOutputs(const abi::ModelSignature &signature,
                         const std::vector<run::HostTensor> &outputs) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return llvm::createStringError("cannot create " + outputDir + ": " +
                                   ec.message());
  llvm::json::Array entries;
  for (auto [k, t] : llvm::enumerate(outputs)) {
    std::string file = "output_" + std::to_string(k) + ".npy";
    llvm::SmallString<256> path(outputDir);
    llvm::sys::path::append(path, file);
    if (llvm::Error err = run::writeNpy(path, t))
      return err;
    llvm::json::Array shape;
    for (int64_t d : t.shape)
      shape.push_back(d);
    entries.push_back(llvm::json::Object{
        {"index", static_cast<int64_t>(k)},
        {"name", signature.outputs[k].name},
        {"dtype", abi::getDTypeName(t.dtype)},
        {"shape", std::move(shape)},
        {"file", file},
    });
  }
  llvm::SmallString<256> path(outputDir);
  llvm::sys::path::append(path, "outputs.json");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError("cannot write " + path.str().str() + ": " +
                                   ec.message());
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"model", signature.name},
                                   {"outputs", std::move(entries)}}))
     << "\n";
  return llvm::Error::success();
}

int runMain(const char *argv0, unsigned threads) {
  // An ONNX model is compiled to a temporary shared library first.
  std::string library = modelPath;
  llvm::SmallString<128> tempDir;
  if (llvm::sys::path::extension(modelPath) == ".onnx") {
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("mlc-run", tempDir))
      return error("cannot create a temporary directory: " + ec.message());
    llvm::Expected<std::string> compiled =
        compileModel(modelPath, tempDir, argv0);
    if (!compiled)
      return error(llvm::toString(compiled.takeError()));
    library = *compiled;
  }
  llvm::scope_exit cleanup([&] {
    if (!tempDir.empty())
      llvm::sys::fs::remove_directories(tempDir);
  });

  // The OpenMP runtime reads its thread count when the first parallel loop
  // starts; set it before the library can run anything.
  if (threads > 0) {
    std::string threadCount = std::to_string(threads);
    ::setenv("MLC_NUM_THREADS", threadCount.c_str(), /*overwrite=*/1);
    ::setenv("OMP_NUM_THREADS", threadCount.c_str(), /*overwrite=*/1);
  }

  // dlopen searches the library path for a name without a slash; the
  // argument is a file, so make it a path.
  std::string loadPath =
      library.find('/') == std::string::npos ? "./" + library : library;
  std::string loadError;
  llvm::sys::DynamicLibrary lib = llvm::sys::DynamicLibrary::getLibrary(
      loadPath.c_str(), &loadError);
  if (!lib.isValid())
    return error("cannot load " + library + ": " + loadError);
  auto *metadata = static_cast<const char *>(
      lib.getAddressOfSymbol(abi::kSharedMetadataSymbol.data()));
  if (!metadata)
    return error(library + " is not a model library made by mlc-compile -o "
                           "MODEL.so (no " +
                 abi::kSharedMetadataSymbol + ")");
  llvm::Expected<abi::ModelSignature> signature =
      abi::parseModelSignature(metadata);
  if (!signature)
    return error(library + ": " + llvm::toString(signature.takeError()));
  llvm::StringRef runSymbol = signature->weights
                                  ? abi::kSharedRunWithWeightsSymbol
                                  : abi::kSharedRunSymbol;
  void *runAddress = lib.getAddressOfSymbol(runSymbol.data());
  if (!runAddress)
    return error(library + " is not a model library made by mlc-compile -o "
                           "MODEL.so (no " +
                 runSymbol + ")");
  std::unique_ptr<llvm::MemoryBuffer> weights;
  if (signature->weights) {
    auto loaded = loadWeights(loadPath, *signature->weights);
    if (!loaded)
      return error(llvm::toString(loaded.takeError()));
    weights = std::move(*loaded);
  } else if (!weightsFile.empty()) {
    return error(library + " has its weights inside; --weights is only for "
                           "libraries compiled with --weights=external");
  }

  llvm::Expected<std::vector<run::HostTensor>> inputs = loadInputs(*signature);
  if (!inputs)
    return error(llvm::toString(inputs.takeError()));

  std::vector<run::HostTensor> outputs;
  for (const abi::TensorSignature &t : signature->outputs) {
    run::HostTensor out;
    out.dtype = t.dtype;
    out.shape = t.shape;
    // One spare element keeps data() non-null for empty tensors.
    out.data.assign(t.getNumBytes() + abi::getDTypeSize(t.dtype), 0);
    outputs.push_back(std::move(out));
  }
  std::vector<const void *> inputPtrs;
  for (run::HostTensor &t : *inputs) {
    t.data.resize(t.data.size() + abi::getDTypeSize(t.dtype));
    inputPtrs.push_back(t.data.data());
  }
  std::vector<void *> outputPtrs;
  for (run::HostTensor &t : outputs)
    outputPtrs.push_back(t.data.data());
  AlignedBuffer arena(signature->arenaSize);
  if (!arena.data)
    return error("cannot allocate the " +
                 std::to_string(signature->arenaSize) + "-byte arena");

  auto runOnce = [&]() -> int32_t {
    if (weights)
      return reinterpret_cast<RunWithWeightsFn>(runAddress)(
          weights->getBufferStart(), arena.data, inputPtrs.data(),
          outputPtrs.data());
    return reinterpret_cast<RunFn>(runAddress)(arena.data, inputPtrs.data(),
                                               outputPtrs.data());
  };
  if (int32_t rc = runOnce())
    return error("the model returned error code " + std::to_string(rc));
  if (benchIterations > 0) {
    for (unsigned i = 0; i < warmupIterations; ++i)
      runOnce();
    std::vector<double> times;
    for (unsigned i = 0; i < benchIterations; ++i) {
      auto start = std::chrono::steady_clock::now();
      runOnce();
      auto end = std::chrono::steady_clock::now();
      times.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    std::sort(times.begin(), times.end());
    double median = times.size() % 2
                        ? times[times.size() / 2]
                        : (times[times.size() / 2 - 1] + times[times.size() / 2]) /
                              2;
    size_t p90 = std::min(times.size() - 1,
                          static_cast<size_t>(0.9 * (times.size() - 1) + 0.5));
    llvm::outs() << "iterations: " << benchIterations << "\n"
                 << llvm::formatv("median_ms: {0:F6}\n", median)
                 << llvm::formatv("p90_ms: {0:F6}\n", times[p90]);
  }
  for (run::HostTensor &t : outputs)
    t.data.resize(t.data.size() - abi::getDTypeSize(t.dtype));
  if (!outputDir.empty()) {
    if (llvm::Error err = writeOutputs(*signature, outputs))
      return error(llvm::toString(std::move(err)));
  } else if (benchIterations == 0) {
    for (auto [k, t] : llvm::enumerate(outputs))
      llvm::outs() << "output " << k << " '" << signature->outputs[k].name
                   << "': " << abi::getDTypeName(t.dtype) << " "
                   << run::formatShape(t.shape) << " (use -o DIR to save)\n";
  }
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // libLLVM registers an option named "threads" of its own; rename it so
  // that --threads is ours.
  auto &registered = cl::getRegisteredOptions();
  if (auto it = registered.find("threads"); it != registered.end())
    it->second->setArgStr("llvm-threads");
  cl::opt<unsigned> threads(
      "threads",
      cl::desc("Threads a run may use, exported as OMP_NUM_THREADS (and "
               "MLC_NUM_THREADS) to the model's OpenMP runtime; 0 (default) "
               "leaves the runtime's choice: OMP_NUM_THREADS if set, else "
               "one thread per core. Models compiled with --parallel=false "
               "always run on one thread"),
      cl::value_desc("N"), cl::init(0), cl::cat(category));
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mlc-run: run a model compiled by mlc-compile (MODEL.so), or compile "
      "and run MODEL.onnx\n");
  return runMain(argv[0], threads);
}
