//===- ModelSignature.h - What a compiled model takes and returns -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A compiled model `P` exports
//
//   int32_t P_run(void *arena, const void *const *inputs,
//                 void *const *outputs);
//   extern const char P_metadata[];   /* JSON: see ModelSignature */
//
// or, with the weights in a file beside the object (`--weights=external`),
//
//   int32_t P_run_with_weights(const void *weights, void *arena,
//                              const void *const *inputs,
//                              void *const *outputs);
//
// `inputs` and `outputs` are arrays of pointers to dense row-major buffers
// in graph order; `arena` is a caller-owned, 64-byte aligned scratch buffer
// of `arena_size` bytes that holds every activation (the static memory plan;
// nothing is allocated during a run).
//
// This header describes that ABI with the C++ standard library only: the
// runtime (mlc-run, loaders, bindings) and the compiler (which writes the
// metadata and the header) share it, and the runtime links nothing from
// MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_RUNTIME_MODELSIGNATURE_H
#define MLC_RUNTIME_MODELSIGNATURE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlc::abi {

/// Element types, numbered as ONNX's TensorProto.DataType.
enum class DType : int32_t {
  Float32 = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  Bool = 9,
  Float16 = 10,
  Float64 = 11,
  UInt32 = 12,
  UInt64 = 13,
  BFloat16 = 16,
};

/// numpy-style name (`float32`, `int64`, `bool`).
std::string_view getDTypeName(DType type);
/// The inverse of getDTypeName.
std::optional<DType> parseDTypeName(std::string_view name);
/// Bytes per element.
unsigned getDTypeSize(DType type);

/// A dim of an output whose size the data decides (NonZero's count, a
/// Range's length): the model allocates the output and says its dims.
constexpr int64_t kDynamicDim = -1;

/// One input or output of the model.
struct TensorSignature {
  /// The ONNX name, unchanged.
  std::string name;
  DType dtype = DType::Float32;
  /// Dims; outputs may have kDynamicDim ones. A symbolic dim holds its
  /// factor: its size is shape[d] times the value of its symbol.
  std::vector<int64_t> shape;
  /// Per dim, the index into ModelSignature::symbols of the symbol its size
  /// is a multiple of, or -1; empty when no dim is symbolic.
  std::vector<int32_t> dimSymbols;

  /// Whether a dim is kDynamicDim: the caller passes a DynamicOutput
  /// record instead of the data's buffer, and the model allocates the data.
  bool isDynamic() const;
  /// Elements (-1 when dynamic).
  int64_t getNumElements() const;
  /// Bytes of the buffer the caller passes: the data, or the DynamicOutput
  /// record of a dynamic output. With symbolic dims: their sizes at
  /// `symbolValues` (one value per ModelSignature::symbols entry).
  int64_t getNumBytes(const int64_t *symbolValues = nullptr) const;

  /// Whether some dim is symbolic (a multiple of a symbol's value).
  bool hasSymbols() const;
  /// Index of the symbol dim `d` is a multiple of, or -1.
  int32_t getDimSymbol(size_t d) const {
    return d < dimSymbols.size() ? dimSymbols[d] : -1;
  }
  /// The dims with every symbol at its value in `symbolValues`.
  std::vector<int64_t> getShape(const int64_t *symbolValues) const;
};

/// What the caller passes for an output with dynamic dims: `words[0]`
/// receives the address of the data (row-major, allocated by the model
/// with the C library's malloc: the caller frees it with free(), or
/// mlc_free), `words[1 + d]` dim d. A run that fails leaves no data to free
/// (the address is 0). The record has 1 + rank int64 words.
inline int64_t getDynamicOutputRecordBytes(size_t rank) {
  return static_cast<int64_t>((1 + rank) * sizeof(int64_t));
}

/// Weights kept in a file beside the object (`--weights=external`) rather
/// than in it: the model then runs through `<name>_run_with_weights`, which
/// takes the file's bytes (64-byte aligned) as its first argument.
struct ExternalWeights {
  /// File name the compiler wrote, without a directory: loaders look for it
  /// next to the object or library.
  std::string file;
  /// Exact size of the file in bytes.
  int64_t size = 0;
  /// hashWeights() of the file's bytes, to catch a file that does not belong
  /// to this object.
  uint64_t hash = 0;
};

/// The machine code an object holds: it runs on CPUs of `triple` that have
/// every feature of `cpu` and `features`.
struct CodeTarget {
  /// LLVM target triple (`x86_64-pc-linux-gnu`).
  std::string triple;
  /// LLVM CPU name (`znver4`); empty for the triple's baseline.
  std::string cpu;
  /// The features enabled beyond the CPU's, as LLVM spells them
  /// (`+avx512f,+fma`), and any the user disabled (`-avx512f`).
  std::string features;
};

/// Code for an NVIDIA GPU (`mlc-compile --target=gpu`): the object holds
/// the host code and one device image; the host code starts the image's
/// kernels through a GPULauncher the runtime gives it.
struct GPUCode {
  /// The architecture the image is for (`sm_80`).
  std::string arch;
  /// What the image is: `ptx` (compiled by the driver when loaded) or
  /// `fatbin` (the architecture's cubin with the PTX).
  std::string format;
  /// The image's kernels, by the index the host code launches them with.
  std::vector<std::string> kernels;
  /// Whether the host code reads memory the kernels write (a model whose
  /// sizes the data decides, or with run-time checks): then the arena,
  /// weights, inputs and outputs are host-visible (managed) memory.
  bool hostAccess = false;
};

/// What the host code of a GPU model calls to start kernel `kernel` of its
/// image on `dims[0..2]` blocks of `dims[3..5]` threads, with `args` (one
/// pointer per kernel parameter, to the parameter's value: for buffers, to
/// a device pointer; then a null pointer). Returns 0, or a code the
/// runtime keeps; the model's code goes on, and the runtime reports the
/// first failure after the run.
/// The layout is the C header's `mlc_gpu_launcher`.
/// A model with `GPUCode::hostAccess` also calls `allocate` for
/// host-visible device memory (null when there is none), `release` to free
/// it, and `synchronize` to wait for the kernels it started before reading
/// what they wrote.
struct GPULauncher {
  void *context;
  int32_t (*launch)(void *context, int32_t kernel, const uint32_t *dims,
                    void **args);
  void *(*allocate)(void *context, int64_t bytes);
  void (*release)(void *context, void *address);
  int32_t (*synchronize)(void *context);
};

/// Code for the NPU (`mlc-compile --target=npu`): the host code runs the
/// kernels the NPU does not take and starts command streams (programs) for
/// the others through an NPULauncher; the object holds the streams back to
/// back in one image.
struct NPUCode {
  /// One buffer of a program: where it sits in the NPU's DRAM window, its
  /// bytes, and whether the program stores into it.
  struct Buffer {
    int64_t dram = 0, bytes = 0;
    bool write = false;
  };
  struct Program {
    /// The stream's bytes in the image (docs/NPU.md's binary format).
    int64_t offset = 0, size = 0;
    std::vector<Buffer> buffers;
    /// The ONNX node the program computes (its kernel's name), or empty.
    std::string node;
  };
  /// The NPU's description as JSON (docs/NPU.md), so that the model runs
  /// without the file it was compiled for.
  std::string config;
  std::vector<Program> programs;
};

/// What the host code of an NPU model calls to run program `program` of its
/// image on `buffers` (one host address per buffer of the program). Returns
/// 0, or a code the runtime keeps; the model's code goes on, and the runtime
/// reports the first failure after the run. The C header's
/// `mlc_npu_launcher`.
struct NPULauncher {
  void *context;
  int32_t (*run)(void *context, int32_t program, void *const *buffers);
};

/// The conditions a model checks at run time (a branch that cannot run at
/// the compiled shapes, ...). A failed check makes the entry point return
/// kErrorCheck and leaves its number (1-based, into `messages`) as an
/// int32 at `statusOffset` in the arena.
struct RunTimeChecks {
  int64_t statusOffset = 0;
  std::vector<std::string> messages;
};

/// Everything a caller needs to run a compiled model.
struct ModelSignature {
  /// The symbol prefix: the entry point is `<name>_run`.
  std::string name;
  /// Names of the symbolic dims the model keeps (`batch`): a model with
  /// symbols takes their values, `const int64_t *dims`, as the first
  /// argument of its entry point, and dims that are multiples of them
  /// (TensorSignature::dimSymbols) have those sizes in that run.
  std::vector<std::string> symbols;
  /// The code is compiled for one sample of a batch (the one symbol): the
  /// entry point runs it once per sample on consecutive slices. Otherwise
  /// the code takes the symbols' values and sizes its work at run time.
  bool perSample = false;
  /// Bytes of scratch memory a run needs (64-byte aligned).
  int64_t arenaSize = 0;
  std::vector<TensorSignature> inputs;
  std::vector<TensorSignature> outputs;
  /// The code runs parallel loops through the OpenMP runtime: programs
  /// linking the object also link libomp.
  bool usesOpenMP = false;
  /// Set when the weights are not in the object.
  std::optional<ExternalWeights> weights;
  /// What the code was compiled for; unset before code generation.
  std::optional<CodeTarget> target;
  /// Set when the model runs on a GPU: its entry point is `<name>_run_gpu`
  /// (see GPUCode).
  std::optional<GPUCode> gpu;
  /// Set when the model runs partly on the NPU: its entry point is
  /// `<name>_run_npu` (see NPUCode).
  std::optional<NPUCode> npu;
  /// Set when the model checks conditions at run time.
  std::optional<RunTimeChecks> checks;
  /// Set when buffers whose sizes are known only at run time come from a
  /// cache in the arena (BufferCache): the cache's byte offset in it.
  std::optional<int64_t> bufferCacheOffset;
};

/// The cache of run-time-sized buffers a CPU model keeps in its arena, so
/// that a run reuses the blocks of the runs before it instead of asking
/// the C library for fresh (and, when large, freshly mapped and faulted)
/// memory every time. At the signature's bufferCacheOffset: one row of
/// kBufferCacheColumns int64 words holding the key (the row's address
/// XOR kBufferCacheKey; anything else means the cache is empty), then
/// kBufferCacheSlots rows of {malloc'd address, bytes, in use, unused}.
/// Blocks stay in the cache after a run; releaseBufferCache frees them.
constexpr int64_t kBufferCacheSlots = 32;
constexpr int64_t kBufferCacheColumns = 4;
constexpr int64_t kBufferCacheBytes =
    (kBufferCacheSlots + 1) * kBufferCacheColumns * 8;
constexpr uint64_t kBufferCacheKey = 0x6d6c632d62756673ull;

/// Frees the blocks the buffer cache at `offset` in `arena` holds (nothing
/// when it is empty) and marks it empty: before the arena's memory is
/// freed or reused.
void releaseBufferCache(int64_t offset, void *arena);

/// The model's code could not run where it was asked to: a GPU model run
/// as a CPU one, or a device that failed (MLC_ERROR_DEVICE in C).
constexpr int32_t kErrorDevice = 8;

/// A condition the model checks at run time failed (MLC_ERROR_CHECK in C);
/// the arena's status word says which (RunTimeChecks).
constexpr int32_t kErrorCheck = 9;

/// An input or output of the wrong rank or shape, or a symbol's value out
/// of range (negative, too large for the buffers' sizes to fit 62 bits, or
/// 0 where an output does not carry the batch) (MLC_ERROR_SHAPE in C);
/// nothing ran.
constexpr int32_t kErrorShape = 4;

/// The symbols' values that `inputShapes` (one shape per input, in graph
/// order) give, after checking that each shape has the input's rank, its
/// static dims and multiples of the symbols that agree across inputs.
/// Returns false and says which input and dim is wrong in `error`.
bool resolveSymbols(const ModelSignature &signature,
                    const std::vector<std::vector<int64_t>> &inputShapes,
                    std::vector<int64_t> &symbolValues, std::string &error);

/// The message of the check that failed in the last run in `arena` (which
/// returned kErrorCheck), owned by `signature`, or an empty string.
const char *getCheckMessage(const ModelSignature &signature,
                            const void *arena);

/// Alignment the arena and every buffer in it have.
constexpr int64_t kArenaAlignment = 64;
/// Alignment of an external weights buffer and of each tensor in it.
constexpr int64_t kWeightsAlignment = 64;

/// FNV-1a (64 bits) of `size` bytes at `data`: the checksum of an external
/// weights file. The model header carries the same function for C programs.
uint64_t hashWeights(const char *data, size_t size);

/// Symbol names a shared library built with `--emit=shared` exports in
/// addition to the prefixed ones, so loaders need not know the prefix.
constexpr std::string_view kSharedRunSymbol = "mlc_model_run";
constexpr std::string_view kSharedMetadataSymbol = "mlc_model_metadata";
/// The entry point's name in a shared library whose weights are external.
constexpr std::string_view kSharedRunWithWeightsSymbol =
    "mlc_model_run_with_weights";

/// A GPU model's entry point and image in a shared library:
/// `int32_t mlc_model_run_gpu(const GPULauncher *, const void *weights,
/// void *arena, const void *const *inputs, void *const *outputs)`, every
/// pointer but the launcher's a device pointer; the image's bytes and their
/// count (`int64_t`).
constexpr std::string_view kSharedRunGPUSymbol = "mlc_model_run_gpu";
constexpr std::string_view kSharedGPUImageSymbol = "mlc_model_gpu_image";
constexpr std::string_view kSharedGPUImageSizeSymbol =
    "mlc_model_gpu_image_size";

/// An NPU model's entry point and image in a shared library:
/// `int32_t mlc_model_run_npu(const NPULauncher *, void *arena,
/// const void *const *inputs, void *const *outputs)` (with the weights
/// after the launcher when they are external); the image's bytes and their
/// count (`int64_t`).
constexpr std::string_view kSharedRunNPUSymbol = "mlc_model_run_npu";
constexpr std::string_view kSharedNPUImageSymbol = "mlc_model_npu_image";
constexpr std::string_view kSharedNPUImageSizeSymbol =
    "mlc_model_npu_image_size";

/// Parses the metadata JSON of a compiled model into `signature`. On a
/// malformed document returns false and says what is wrong in `error`.
bool parseModelSignature(std::string_view json, ModelSignature &signature,
                         std::string &error);

} // namespace mlc::abi

#endif // MLC_RUNTIME_MODELSIGNATURE_H
