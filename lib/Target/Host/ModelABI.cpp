//===- ModelABI.cpp - The C ABI of a compiled model -----------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelABI.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace mlc::abi;

/// The hash as JSON and header text: 16 hex digits.
static std::string formatHash(uint64_t hash) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format_hex_no_prefix(hash, 16);
  return text;
}

//===----------------------------------------------------------------------===//
// JSON metadata
//===----------------------------------------------------------------------===//

/// Dim `d` of `t` as the header and messages spell it: `224`, `batch` or
/// `4*batch`.
static std::string formatDim(const ModelSignature &m, const TensorSignature &t,
                             size_t d) {
  int32_t s = t.getDimSymbol(d);
  if (s < 0)
    return std::to_string(t.shape[d]);
  return (t.shape[d] == 1 ? "" : std::to_string(t.shape[d]) + "*") +
         m.symbols[s];
}

static llvm::json::Array toJSON(const ModelSignature &m,
                                const std::vector<TensorSignature> &tensors) {
  llvm::json::Array array;
  for (const TensorSignature &t : tensors) {
    llvm::json::Array shape;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.getDimSymbol(d) >= 0)
        shape.push_back(formatDim(m, t, d));
      else
        shape.push_back(t.shape[d]);
    }
    array.push_back(llvm::json::Object{
        {"name", t.name},
        {"dtype", llvm::StringRef(getDTypeName(t.dtype))},
        {"shape", std::move(shape)},
    });
  }
  return array;
}

std::string mlc::abi::toJSON(const ModelSignature &signature) {
  llvm::json::Object root{
      {"name", signature.name},
      {"arena_size", signature.arenaSize},
      {"arena_alignment", kArenaAlignment},
      {"inputs", ::toJSON(signature, signature.inputs)},
      {"outputs", ::toJSON(signature, signature.outputs)},
  };
  if (!signature.symbols.empty()) {
    llvm::json::Array symbols;
    for (const std::string &s : signature.symbols)
      symbols.push_back(s);
    root["symbols"] = std::move(symbols);
    if (signature.perSample)
      root["per_sample"] = true;
  }
  if (const std::optional<ExternalWeights> &w = signature.weights)
    root["weights"] = llvm::json::Object{
        {"file", w->file},
        {"size", w->size},
        {"alignment", kWeightsAlignment},
        {"fnv1a64", formatHash(w->hash)},
    };
  if (const std::optional<CodeTarget> &t = signature.target)
    root["target"] = llvm::json::Object{
        {"triple", t->triple},
        {"cpu", t->cpu},
        {"features", t->features},
    };
  if (const std::optional<GPUCode> &g = signature.gpu) {
    llvm::json::Array kernels;
    for (const std::string &k : g->kernels)
      kernels.push_back(k);
    root["gpu"] = llvm::json::Object{
        {"arch", g->arch},
        {"format", g->format},
        {"kernels", std::move(kernels)},
    };
    if (g->hostAccess)
      root["gpu"].getAsObject()->try_emplace("host_access", true);
  }
  if (const std::optional<NPUCode> &n = signature.npu) {
    llvm::json::Array programs;
    for (const NPUCode::Program &p : n->programs) {
      llvm::json::Array buffers;
      for (const NPUCode::Buffer &b : p.buffers)
        buffers.push_back(llvm::json::Object{
            {"dram", b.dram}, {"bytes", b.bytes}, {"write", b.write}});
      llvm::json::Object program{{"offset", p.offset},
                                 {"size", p.size},
                                 {"buffers", std::move(buffers)}};
      if (!p.node.empty())
        program["node"] = p.node;
      programs.push_back(std::move(program));
    }
    root["npu"] = llvm::json::Object{{"config", n->config},
                                     {"programs", std::move(programs)}};
  }
  if (const std::optional<RunTimeChecks> &c = signature.checks) {
    llvm::json::Array messages;
    for (const std::string &m : c->messages)
      messages.push_back(m);
    root["checks"] = llvm::json::Object{
        {"status_offset", c->statusOffset},
        {"messages", std::move(messages)},
    };
  }
  if (signature.bufferCacheOffset)
    root["buffer_cache_offset"] = *signature.bufferCacheOffset;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(root));
  return text;
}

llvm::Expected<ModelSignature>
mlc::abi::parseModelSignature(llvm::StringRef json) {
  ModelSignature signature;
  std::string error;
  if (!parseModelSignature(std::string_view(json.data(), json.size()),
                           signature, error))
    return llvm::createStringError(error);
  return signature;
}

//===----------------------------------------------------------------------===//
// C header
//===----------------------------------------------------------------------===//

/// The declarations every model header shares, guarded so that several
/// headers can be included together.
static constexpr llvm::StringLiteral kCommonDeclarations =
    R"(#ifndef MLC_ABI_COMMON_DEFINED
#define MLC_ABI_COMMON_DEFINED
/* Element types, numbered as ONNX's TensorProto.DataType. */
enum {
  MLC_FLOAT32 = 1, MLC_UINT8 = 2, MLC_INT8 = 3, MLC_UINT16 = 4,
  MLC_INT16 = 5, MLC_INT32 = 6, MLC_INT64 = 7, MLC_BOOL = 9,
  MLC_FLOAT16 = 10, MLC_FLOAT64 = 11, MLC_UINT32 = 12, MLC_UINT64 = 13,
  MLC_BFLOAT16 = 16
};
/* Return codes of <model>_run and <model>_run_checked. */
enum {
  MLC_OK = 0,
  MLC_ERROR_NULL = 1,        /* a null arena, input or output pointer */
  MLC_ERROR_COUNT = 2,       /* wrong number of inputs or outputs */
  MLC_ERROR_DTYPE = 3,       /* an input or output of the wrong dtype */
  MLC_ERROR_SHAPE = 4,       /* an input or output of the wrong rank/shape */
  MLC_ERROR_ARENA = 5,       /* arena too small or misaligned */
  MLC_ERROR_WEIGHTS = 6,     /* external weights missing, of the wrong size
                                or misaligned */
  MLC_ERROR_ALIGNMENT = 7,   /* an input or output not aligned to its
                                element size */
  MLC_ERROR_DEVICE = 8,      /* a GPU model run as a CPU one, or a device
                                that failed */
  MLC_ERROR_CHECK = 9        /* a condition the model checks at run time
                                failed: <model>_check_message(arena) */
};
/* What a GPU model's code calls to start kernel `kernel` of its image on
   dims[0..2] blocks of dims[3..5] threads with `args` (a pointer to each
   kernel parameter's value, then NULL). A model whose sizes the data
   decides (<MODEL>_GPU_HOST_ACCESS) also allocates device memory the host
   can read (its outputs of such sizes and buffers of run-time sizes),
   releases it, and waits for the kernels started so far before its host
   code reads what they wrote. mlc's runtime provides one (mlc_runtime.h). */
typedef struct mlc_gpu_launcher {
  void *context;
  int32_t (*launch)(void *context, int32_t kernel, const uint32_t *dims,
                    void **args);
  void *(*allocate)(void *context, int64_t bytes);
  void (*release)(void *context, void *address);
  int32_t (*synchronize)(void *context);
} mlc_gpu_launcher;
/* What an NPU model's code calls to run program `program` of its image on
   `buffers` (one host address per buffer the program names). mlc's runtime
   provides one that runs the program in the NPU simulator. */
typedef struct mlc_npu_launcher {
  void *context;
  int32_t (*run)(void *context, int32_t program, void *const *buffers);
} mlc_npu_launcher;
/* Bytes of one element of `dtype` (0 for an unknown one). */
static inline size_t mlc_dtype_size(int32_t dtype) {
  switch (dtype) {
  case MLC_UINT8: case MLC_INT8: case MLC_BOOL: return 1;
  case MLC_UINT16: case MLC_INT16: case MLC_FLOAT16: case MLC_BFLOAT16:
    return 2;
  case MLC_FLOAT32: case MLC_INT32: case MLC_UINT32: return 4;
  case MLC_INT64: case MLC_FLOAT64: case MLC_UINT64: return 8;
  default: return 0;
  }
}
/* FNV-1a (64 bits) of an external weights file's bytes: equal to the
   model's <MODEL>_WEIGHTS_HASH when the file belongs to the object. */
static inline uint64_t mlc_weights_hash(const void *data, size_t size) {
  const unsigned char *p = (const unsigned char *)data;
  uint64_t hash = 0xcbf29ce484222325ull;
  size_t i;
  for (i = 0; i < size; ++i) {
    hash ^= p[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}
/* A tensor as passed to <model>_run_checked: dense, row-major. */
typedef struct {
  void *data;
  int32_t dtype;
  int32_t rank;
  const int64_t *shape;
} mlc_tensor;
/* Checks one tensor against its expected dtype and shape. */
static inline int32_t mlc_check_tensor(const mlc_tensor *t, int32_t dtype,
                                       int32_t rank, const int64_t *shape) {
  int32_t i;
  if (!t->data)
    return MLC_ERROR_NULL;
  if (t->dtype != dtype)
    return MLC_ERROR_DTYPE;
  if (mlc_dtype_size(dtype) > 1 &&
      ((uintptr_t)t->data % mlc_dtype_size(dtype)) != 0)
    return MLC_ERROR_ALIGNMENT;
  if (t->rank != rank || (rank > 0 && !t->shape))
    return MLC_ERROR_SHAPE;
  for (i = 0; i < rank; ++i)
    if (t->shape[i] != shape[i])
      return MLC_ERROR_SHAPE;
  return MLC_OK;
}
#endif
)";

static std::string toUpper(llvm::StringRef s) { return s.upper(); }

static void writeCString(llvm::raw_ostream &os, llvm::StringRef s) {
  os << '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (c >= 0x20 && c < 0x7f && c != '?')
      os << c;
    else
      os << llvm::format("\\%03o", c);
  }
  os << '"';
}

/// The entry point and device image of a GPU model.
static void writeGPUEntry(llvm::raw_ostream &os, llvm::StringRef p,
                          llvm::StringRef upper, const GPUCode &gpu) {
  os << "\n/* A GPU model: its kernels are for " << gpu.arch << " ("
     << (gpu.format == "ptx"
             ? "PTX, which the driver compiles\n   for the device it is "
               "loaded on"
             : "a fatbin of the cubin and the PTX, which\n   the driver "
               "compiles for newer devices")
     << "). "
        "mlc's runtime runs it (mlc_runtime.h:\n   mlc_gpu_context_create, "
        "mlc_gpu_run); a program of its own loads\n   "
     << p << "_gpu_image into the device and calls " << p
     << "_run_gpu with a launcher\n   that starts kernel k of "
     << p
     << "_gpu_kernels[k] (a name in the image), the\n   weights "
        "uploaded and the arena, inputs and outputs in device memory. */\n";
  os << "#define " << upper << "_GPU_ARCH ";
  writeCString(os, gpu.arch);
  os << "\n#define " << upper << "_GPU_IMAGE_FORMAT ";
  writeCString(os, gpu.format);
  os << "\n/* 1: the host code reads memory the kernels write (the arena,\n"
        "   weights, inputs and outputs must be host-visible, as\n"
        "   cuMemAllocManaged makes them). */\n#define "
     << upper << "_GPU_HOST_ACCESS " << (gpu.hostAccess ? 1 : 0);
  os << "\n#define " << upper << "_GPU_NUM_KERNELS " << gpu.kernels.size()
     << "\nstatic const char *const " << p << "_gpu_kernels[] = {";
  if (gpu.kernels.empty())
    os << "0 /* none */";
  llvm::interleaveComma(gpu.kernels, os,
                        [&](const std::string &k) { writeCString(os, k); });
  os << "};\nextern const char " << p << "_gpu_image[];\nextern const int64_t "
     << p << "_gpu_image_size;\n";
  os << "int32_t " << p
     << "_run_gpu(const mlc_gpu_launcher *launcher, const void *weights,\n"
        "    void *arena, const void *const *inputs, void *const *outputs);\n";
  os << "/* The signature above as JSON (names, dtypes, shapes, arena). */\n";
  os << "extern const char " << p << "_metadata[];\n\n";
}

static void writeNPUEntry(llvm::raw_ostream &os, llvm::StringRef p,
                          llvm::StringRef upper, const NPUCode &npu,
                          bool weights) {
  os << "\n/* An NPU model: its matmuls run as " << npu.programs.size()
     << " command streams (docs/NPU.md) in\n   " << p
     << "_npu_image, the rest on this CPU. mlc's runtime runs it with the "
        "NPU\n   simulator (mlc-run --device=npu-sim); a program of its own "
        "calls\n   "
     << p
     << "_run_npu with a launcher that runs program k of the image on\n   "
        "its buffers. */\n";
  os << "#define " << upper << "_NPU_NUM_PROGRAMS " << npu.programs.size()
     << "\nextern const char " << p << "_npu_image[];\nextern const int64_t "
     << p << "_npu_image_size;\n";
  os << "int32_t " << p << "_run_npu(const mlc_npu_launcher *launcher, "
     << (weights ? "const void *weights,\n    " : "\n    ")
     << "void *arena, const void *const *inputs, void *const *outputs);\n";
}

static void writeTensorConstants(llvm::raw_ostream &os, const ModelSignature &m,
                                 llvm::StringRef kind,
                                 const std::vector<TensorSignature> &tensors) {
  llvm::StringRef prefix = m.name;
  std::string upper = toUpper(prefix) + "_" + toUpper(kind);
  for (auto [i, t] : llvm::enumerate(tensors)) {
    os << "/* " << kind << " " << i << ": " << getDTypeName(t.dtype) << " [";
    for (size_t d = 0; d < t.shape.size(); ++d)
      os << (d ? ", " : "") << formatDim(m, t, d);
    int64_t one = 1;
    if (t.isDynamic())
      os << "]: its size depends on the data (-1 dims). Pass an\n   "
            "int64_t record[1 + RANK]: the model puts the address of the "
            "data it\n   allocated (malloc; yours to free()) in record[0] "
            "and the dims after it.\n   A failed run leaves record[0] = 0. "
            "SIZE is the record's bytes */\n";
    else if (t.hasSymbols() && m.perSample)
      os << "]: " << t.getNumBytes(&one)
         << " bytes per sample;\n   the shape below holds the factor of "
            "the symbolic dim */\n";
    else if (t.hasSymbols())
      os << "]: " << t.getNumBytes(&one)
         << " bytes times each symbol's value;\n   the shape below holds "
            "the factors of the symbolic dims */\n";
    else
      os << "], " << t.getNumBytes() << " bytes */\n";
    os << "#define " << upper << i << "_DTYPE MLC_"
       << toUpper(getDTypeName(t.dtype)) << "\n";
    os << "#define " << upper << i << "_RANK " << t.shape.size() << "\n";
    if (t.hasSymbols())
      os << "#define " << upper << i << "_SAMPLE_SIZE " << t.getNumBytes(&one)
         << "\n";
    else
      os << "#define " << upper << i << "_SIZE " << t.getNumBytes() << "\n";
    os << "static const char " << prefix << "_" << kind << i << "_name[] = ";
    writeCString(os, t.name);
    os << ";\n";
    os << "static const int64_t " << prefix << "_" << kind << i
       << "_shape[] = {";
    if (t.shape.empty())
      os << "0 /* scalar */";
    llvm::interleaveComma(t.shape, os);
    os << "};\n";
  }
}

/// The shape `t` has at the symbols' values in `dims`, as a C initializer.
static void writeShapeAt(llvm::raw_ostream &os, const TensorSignature &t) {
  os << "{";
  if (t.shape.empty())
    os << "0";
  for (size_t d = 0; d < t.shape.size(); ++d) {
    os << (d ? ", " : "");
    if (int32_t s = t.getDimSymbol(d); s >= 0)
      os << t.shape[d] << " * dims[" << s << "]";
    else
      os << t.shape[d];
  }
  os << "}";
}

static void writeChecks(llvm::raw_ostream &os, llvm::StringRef prefix,
                        llvm::StringRef kind, llvm::StringRef array,
                        const std::vector<TensorSignature> &tensors) {
  std::string upper = toUpper(prefix) + "_" + toUpper(kind);
  for (auto [i, t] : llvm::enumerate(tensors)) {
    if (t.isDynamic()) {
      // The record of an output the model allocates.
      os << "  if (!" << array << "[" << i << "].data)\n"
         << "    return MLC_ERROR_NULL;\n";
      os << "  " << array << "_data[" << i << "] = " << array << "[" << i
         << "].data;\n";
      continue;
    }
    std::string shape = prefix.str() + "_" + kind.str() + std::to_string(i) +
                        "_shape";
    if (t.hasSymbols()) {
      os << "  {\n    const int64_t shape[] = ";
      writeShapeAt(os, t);
      os << ";\n    if ((rc = mlc_check_tensor(&" << array << "[" << i
         << "], " << upper << i << "_DTYPE, " << upper << i
         << "_RANK, shape)) != MLC_OK)\n      return rc;\n  }\n";
    } else {
      os << "  if ((rc = mlc_check_tensor(&" << array << "[" << i << "], "
         << upper << i << "_DTYPE, " << upper << i << "_RANK, " << shape
         << ")) != MLC_OK)\n    return rc;\n";
    }
    os << "  " << array << "_data[" << i << "] = " << array << "[" << i
       << "].data;\n";
  }
}

/// The symbols of a model compiled for one sample of a batch: their
/// indices, how a caller gets their values from the inputs, and the output
/// shapes at those values.
static void writeSymbols(llvm::raw_ostream &os, const ModelSignature &m) {
  llvm::StringRef p = m.name;
  std::string upper = toUpper(p);
  os << "/* Symbolic dims: the model takes their values, dims[" << upper
     << "_NUM_SYMBOLS],\n   as the first argument of its entry point. A "
        "dim of a multiple K of a\n   symbol has size K * dims[symbol]. */\n";
  os << "#define " << upper << "_NUM_SYMBOLS " << m.symbols.size() << "\n";
  for (auto [s, name] : llvm::enumerate(m.symbols)) {
    std::string id;
    for (char c : name)
      id.push_back(llvm::isAlnum(c) ? c : '_');
    os << "#define " << upper << "_DIM_" << id << " " << s << " /* ";
    writeCString(os, name);
    os << " */\n";
  }
  os << "static const char *const " << p << "_symbols[] = {";
  llvm::interleaveComma(m.symbols, os,
                        [&](const std::string &n) { writeCString(os, n); });
  os << "};\n";
  os << "/* The shape of output `index` at the symbols' values `dims`. */\n"
     << "static inline void " << p
     << "_output_shape(size_t index, const int64_t *dims, int64_t *shape) "
        "{\n  size_t d;\n  (void)dims;\n  switch (index) {\n";
  for (auto [i, t] : llvm::enumerate(m.outputs)) {
    os << "  case " << i << ": {\n    const int64_t s[] = ";
    writeShapeAt(os, t);
    os << ";\n    for (d = 0; d < " << t.shape.size()
       << "; ++d)\n      shape[d] = s[d];\n    break;\n  }\n";
  }
  os << "  default:\n    break;\n  }\n}\n";
}

/// C statements that set dims[] from the shapes of `inputs` (an mlc_tensor
/// array), returning MLC_ERROR_SHAPE where they disagree.
static void writeSymbolResolution(llvm::raw_ostream &os,
                                  const ModelSignature &m) {
  os << "  int64_t dims[" << std::max<size_t>(m.symbols.size(), 1) << "];\n";
  os << "  size_t s;\n  for (s = 0; s < " << m.symbols.size()
     << "; ++s)\n    dims[s] = -1;\n";
  for (auto [i, t] : llvm::enumerate(m.inputs))
    for (size_t d = 0; d < t.shape.size(); ++d) {
      int32_t s = t.getDimSymbol(d);
      if (s < 0)
        continue;
      os << "  if (inputs[" << i << "].rank != " << t.shape.size()
         << " || !inputs[" << i << "].shape || inputs[" << i << "].shape["
         << d << "] < 0 ||\n      inputs[" << i << "].shape[" << d << "] % "
         << t.shape[d] << " != 0 ||\n      (dims[" << s
         << "] >= 0 && dims[" << s << "] != inputs[" << i << "].shape[" << d
         << "] / " << t.shape[d] << "))\n    return MLC_ERROR_SHAPE;\n";
      os << "  dims[" << s << "] = inputs[" << i << "].shape[" << d << "] / "
         << t.shape[d] << ";\n";
    }
}

void mlc::abi::writeCHeader(llvm::ArrayRef<ModelSignature> models,
                            llvm::StringRef source, llvm::raw_ostream &os) {
  os << "/* Generated by mlc-compile from " << source
     << ". Do not edit. */\n";
  os << "#ifndef MLC_MODEL_HEADER_" << (models.empty() ? "" : toUpper(models[0].name))
     << "_H\n#define MLC_MODEL_HEADER_"
     << (models.empty() ? "" : toUpper(models[0].name)) << "_H\n";
  os << "#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n";
  os << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  os << kCommonDeclarations << "\n";
  for (const ModelSignature &m : models) {
    std::string upper = toUpper(m.name);
    llvm::StringRef p = m.name;
    os << "/*===- " << p << " -===*/\n";
    os << "#define " << upper << "_NUM_INPUTS " << m.inputs.size() << "\n";
    os << "#define " << upper << "_NUM_OUTPUTS " << m.outputs.size() << "\n";
    os << "/* Scratch memory one run needs: every activation lives here, at\n"
          "   offsets planned at compile time. Pass a buffer of this many\n"
          "   bytes, aligned to "
       << kArenaAlignment << " bytes; runs may reuse it. */\n";
    os << "#define " << upper << "_ARENA_SIZE " << m.arenaSize << "\n";
    os << "#define " << upper << "_ARENA_ALIGNMENT " << kArenaAlignment
       << "\n";
    os << "/* 1: large kernels run on threads through LLVM's OpenMP runtime;\n"
          "   link with -lomp. OMP_NUM_THREADS (or omp_set_num_threads) sets\n"
          "   the thread count. 0: plain single-threaded code. */\n";
    os << "#define " << upper << "_USES_OPENMP " << (m.usesOpenMP ? 1 : 0)
       << "\n";
    if (const std::optional<CodeTarget> &t = m.target) {
      os << "/* The machine code's target: it runs on " << t->triple
         << "\n   CPUs with every feature of this CPU and feature list. */\n";
      os << "#define " << upper << "_TARGET_TRIPLE ";
      writeCString(os, t->triple);
      os << "\n#define " << upper << "_TARGET_CPU ";
      writeCString(os, t->cpu);
      os << "\n#define " << upper << "_TARGET_FEATURES ";
      writeCString(os, t->features);
      os << "\n";
    }
    writeTensorConstants(os, m, "input", m.inputs);
    writeTensorConstants(os, m, "output", m.outputs);
    bool symbolic = !m.symbols.empty();
    if (symbolic)
      writeSymbols(os, m);
    auto writeSizes = [&](llvm::StringRef kind,
                          const std::vector<TensorSignature> &tensors) {
      os << "/* Byte sizes of all " << kind << "s, for generic callers"
         << (m.perSample ? " (per sample where a dim is symbolic)"
             : symbolic  ? " (with every symbol 1 where a dim is symbolic)"
                         : "")
         << ". */\n"
         << "static const int64_t " << p << "_" << kind << "_sizes[] = {";
      if (tensors.empty())
        os << "0 /* none */";
      llvm::interleaveComma(tensors, os, [&](const TensorSignature &t) {
        int64_t one = 1;
        os << t.getNumBytes(&one);
      });
      os << "};\n";
    };
    writeSizes("input", m.inputs);
    writeSizes("output", m.outputs);
    os << "static const int32_t " << p << "_num_inputs = " << m.inputs.size()
       << ";\nstatic const int32_t " << p
       << "_num_outputs = " << m.outputs.size() << ";\nstatic const int64_t "
       << p << "_arena_size = " << m.arenaSize << ";\n";
    const std::optional<ExternalWeights> &weights = m.weights;
    if (weights) {
      os << "/* The weights are not in the object: they are in the file\n"
            "   "
         << upper
         << "_WEIGHTS_FILE, written next to it. Load its bytes into memory\n"
            "   aligned to "
         << upper
         << "_WEIGHTS_ALIGNMENT bytes (mmap is) and pass them to\n"
            "   "
         << p
         << "_run_with_weights; they are only read, so one copy serves\n"
            "   every run and thread. mlc_weights_hash(data, size) == "
         << upper << "_WEIGHTS_HASH\n   checks that the file belongs here. */\n";
      os << "#define " << upper << "_WEIGHTS_FILE ";
      writeCString(os, weights->file);
      os << "\n#define " << upper << "_WEIGHTS_SIZE " << weights->size << "\n";
      os << "#define " << upper << "_WEIGHTS_ALIGNMENT " << kWeightsAlignment
         << "\n";
      os << "#define " << upper << "_WEIGHTS_HASH 0x" << formatHash(weights->hash)
         << "ull\n";
    }
    if (const std::optional<GPUCode> &gpu = m.gpu) {
      writeGPUEntry(os, p, upper, *gpu);
      continue;
    }
    if (const std::optional<RunTimeChecks> &checks = m.checks) {
      os << "/* The model checks conditions at run time (a branch that "
            "cannot run at\n   the compiled shapes, ...). A run that returns "
            "MLC_ERROR_CHECK leaves\n   the failed check's number in the "
            "arena; "
         << p << "_check_message(arena)\n   is its message. */\n";
      os << "#define " << upper << "_STATUS_OFFSET " << checks->statusOffset
         << "\n";
      os << "static const char *const " << p << "_check_messages[] = {";
      llvm::interleaveComma(checks->messages, os,
                            [&](const std::string &m) { writeCString(os, m); });
      os << "};\n";
      os << "static inline const char *" << p
         << "_check_message(const void *arena) {\n"
         << "  int32_t number = *(const int32_t *)((const char *)arena + "
         << upper << "_STATUS_OFFSET);\n"
         << "  return number >= 1 && number <= " << checks->messages.size()
         << " ? " << p << "_check_messages[number - 1] : \"\";\n}\n";
    }
    if (std::optional<int64_t> cache = m.bufferCacheOffset) {
      os << "/* Buffers whose sizes are known only at run time come from a "
            "cache in\n   the arena that keeps their blocks from one run to "
            "the next. Zero the\n   arena before its first run; call "
         << p << "_release_buffers(arena)\n   before freeing or reusing its "
                 "memory. */\n";
      os << "#define " << upper << "_BUFFER_CACHE_OFFSET " << *cache << "\n";
      os << "static inline void " << p
         << "_release_buffers(void *arena) {\n"
         << "  uint64_t *rows = (uint64_t *)((char *)arena + " << upper
         << "_BUFFER_CACHE_OFFSET);\n"
         << "  if (rows[0] != ((uint64_t)(uintptr_t)rows ^ 0x"
         << llvm::format_hex_no_prefix(kBufferCacheKey, 16) << "ull))\n"
         << "    return;\n"
         << "  for (int slot = 1; slot <= " << kBufferCacheSlots
         << "; ++slot) {\n"
         << "    free((void *)(uintptr_t)rows[slot * " << kBufferCacheColumns
         << "]);\n"
         << "    for (int k = 0; k < " << kBufferCacheColumns
         << "; ++k)\n      rows[slot * " << kBufferCacheColumns
         << " + k] = 0;\n  }\n  rows[0] = 0;\n}\n";
    }
    if (const std::optional<NPUCode> &npu = m.npu) {
      writeNPUEntry(os, p, upper, *npu, weights.has_value());
      os << "/* The signature above as JSON (names, dtypes, shapes, arena, "
            "NPU). */\n";
      os << "extern const char " << p << "_metadata[];\n\n";
      continue;
    }
    std::string run = p.str() + (weights ? "_run_with_weights" : "_run");
    std::string weightsParam = (symbolic ? "const int64_t *dims, " : "") +
                               std::string(weights ? "const void *weights, " : "");
    std::string weightsArg = (symbolic ? "dims, " : "") +
                             std::string(weights ? "weights, " : "");
    os << "\n/* Runs the model. inputs[k] and outputs[k] point to dense\n"
          "   row-major buffers of the k-th input/output above; the arena is\n"
          "   "
       << upper
       << (m.bufferCacheOffset
               ? "_ARENA_SIZE bytes. Buffers of run-time size come from its\n"
                 "   cache (above); nothing else is allocated. The call is\n"
               : "_ARENA_SIZE bytes. Nothing is allocated; the call is\n")
       << "   reentrant as long as concurrent calls use different arenas.\n"
          "   Returns MLC_OK"
       << (m.checks ? ", or MLC_ERROR_CHECK when a run-time check failed"
                    : "")
       << (m.perSample
               ? ",\n   or MLC_ERROR_SHAPE when dims[] is out of range "
                 "(nothing runs). The buffers\n   hold dims[] samples "
                 "each; the code runs once per sample"
           : symbolic
               ? ",\n   or MLC_ERROR_SHAPE when a value of dims[] is "
                 "negative or 2^31 or more\n   (nothing runs). The inputs "
                 "have the sizes dims[] gives their symbolic\n   dims; "
                 "buffers whose sizes depend on them are allocated while "
                 "the\n   model runs"
               : "")
       << ". */\n";
    os << "int32_t " << run << "(" << weightsParam
       << "void *arena, const void *const *inputs, void *const *outputs);\n";
    os << "/* The signature above as JSON (names, dtypes, shapes, arena). */\n";
    os << "extern const char " << p << "_metadata[];\n\n";
    os << "/* Like " << run << ", but first checks counts, dtypes, shapes"
       << (symbolic ? " (the symbols'\n   values come from the inputs' "
                      "shapes, which must agree)"
                    : "")
       << (weights ? ",\n   the weights' size and alignment" : "")
       << " and the arena; returns an MLC_ERROR_*\n"
          "   code instead of running on bad data. An output with -1 dims "
          "takes its\n   record in .data (dtype, rank and shape are not "
          "checked). */\n";
    os << "static inline int32_t " << p << "_run_checked("
       << (weights ? "const void *weights, size_t weights_size,\n    " : "")
       << "void *arena, size_t arena_size, size_t num_inputs,\n"
       << "    const mlc_tensor *inputs, size_t num_outputs,\n"
       << "    const mlc_tensor *outputs) {\n";
    os << "  const void *inputs_data[" << std::max<size_t>(m.inputs.size(), 1)
       << "];\n";
    os << "  void *outputs_data[" << std::max<size_t>(m.outputs.size(), 1)
       << "];\n";
    os << "  int32_t rc;\n";
    os << "  (void)rc; (void)inputs_data; (void)outputs_data;\n";
    os << "  if (num_inputs != " << upper << "_NUM_INPUTS || num_outputs != "
       << upper << "_NUM_OUTPUTS)\n    return MLC_ERROR_COUNT;\n";
    os << "  if ((num_inputs && !inputs) || (num_outputs && !outputs))\n"
          "    return MLC_ERROR_NULL;\n";
    if (symbolic)
      writeSymbolResolution(os, m);
    os << "  if (arena_size < " << upper << "_ARENA_SIZE || (" << upper
       << "_ARENA_SIZE && (!arena || ((uintptr_t)arena % " << upper
       << "_ARENA_ALIGNMENT) != 0)))\n    return MLC_ERROR_ARENA;\n";
    if (weights)
      os << "  if (weights_size != " << upper << "_WEIGHTS_SIZE || (" << upper
         << "_WEIGHTS_SIZE && (!weights || ((uintptr_t)weights % " << upper
         << "_WEIGHTS_ALIGNMENT) != 0)))\n    return MLC_ERROR_WEIGHTS;\n";
    writeChecks(os, p, "input", "inputs", m.inputs);
    writeChecks(os, p, "output", "outputs", m.outputs);
    os << "  return " << run << "(" << weightsArg
       << "arena, inputs_data, outputs_data);\n}\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n#endif\n";
}
