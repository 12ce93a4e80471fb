//===- ModelSignature.cpp - What a compiled model takes and returns -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Element types, the weights checksum and the metadata reader, on the C++
// standard library and nlohmann/json (Debian's nlohmann-json3-dev).
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/ModelSignature.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

using namespace mlc::abi;

namespace {
struct DTypeName {
  DType type;
  std::string_view name;
  unsigned size;
};
constexpr DTypeName kDTypes[] = {
    {DType::Float32, "float32", 4}, {DType::UInt8, "uint8", 1},
    {DType::Int8, "int8", 1},       {DType::UInt16, "uint16", 2},
    {DType::Int16, "int16", 2},     {DType::Int32, "int32", 4},
    {DType::Int64, "int64", 8},     {DType::Bool, "bool", 1},
    {DType::Float16, "float16", 2}, {DType::Float64, "float64", 8},
    {DType::UInt32, "uint32", 4},   {DType::UInt64, "uint64", 8},
    {DType::BFloat16, "bfloat16", 2},
};
} // namespace

std::string_view mlc::abi::getDTypeName(DType type) {
  for (const DTypeName &d : kDTypes)
    if (d.type == type)
      return d.name;
  return "unknown";
}

std::optional<DType> mlc::abi::parseDTypeName(std::string_view name) {
  for (const DTypeName &d : kDTypes)
    if (d.name == name)
      return d.type;
  return std::nullopt;
}

unsigned mlc::abi::getDTypeSize(DType type) {
  for (const DTypeName &d : kDTypes)
    if (d.type == type)
      return d.size;
  return 1;
}

uint64_t mlc::abi::hashWeights(const char *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

bool TensorSignature::isDynamic() const {
  for (int64_t d : shape)
    if (d < 0)
      return true;
  return false;
}

bool TensorSignature::hasSymbols() const {
  for (int32_t s : dimSymbols)
    if (s >= 0)
      return true;
  return false;
}

int64_t TensorSignature::getNumElements() const {
  if (isDynamic() || hasSymbols())
    return -1;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t>
TensorSignature::getShape(const int64_t *symbolValues) const {
  std::vector<int64_t> dims = shape;
  for (size_t d = 0; d < dims.size(); ++d)
    if (int32_t s = getDimSymbol(d); s >= 0)
      dims[d] = symbolValues ? dims[d] * symbolValues[s] : -1;
  return dims;
}

int64_t TensorSignature::getNumBytes(const int64_t *symbolValues) const {
  if (isDynamic())
    return getDynamicOutputRecordBytes(shape.size());
  if (hasSymbols() && !symbolValues)
    return -1;
  int64_t n = getDTypeSize(dtype);
  for (int64_t d : getShape(symbolValues))
    n *= d;
  return n;
}

bool mlc::abi::resolveSymbols(
    const ModelSignature &signature,
    const std::vector<std::vector<int64_t>> &inputShapes,
    std::vector<int64_t> &values, std::string &error) {
  auto format = [](const std::vector<int64_t> &dims) {
    std::string text = "[";
    for (size_t d = 0; d < dims.size(); ++d)
      text += (d ? "," : "") + std::to_string(dims[d]);
    return text + "]";
  };
  auto formatSignature = [&](const TensorSignature &t) {
    std::string text = "[";
    for (size_t d = 0; d < t.shape.size(); ++d) {
      text += d ? "," : "";
      int32_t s = t.getDimSymbol(d);
      if (s < 0)
        text += std::to_string(t.shape[d]);
      else
        text += (t.shape[d] == 1 ? "" : std::to_string(t.shape[d]) + "*") +
                signature.symbols[s];
    }
    return text + "]";
  };
  if (inputShapes.size() != signature.inputs.size()) {
    error = "the model has " + std::to_string(signature.inputs.size()) +
            " inputs; " + std::to_string(inputShapes.size()) + " given";
    return false;
  }
  values.assign(signature.symbols.size(), -1);
  std::vector<std::string> setBy(signature.symbols.size());
  for (size_t i = 0; i < inputShapes.size(); ++i) {
    const TensorSignature &t = signature.inputs[i];
    const std::vector<int64_t> &dims = inputShapes[i];
    std::string which = "input '" + t.name + "' has shape " + format(dims) +
                        "; the model takes " + formatSignature(t);
    if (dims.size() != t.shape.size()) {
      error = which + " (rank " + std::to_string(t.shape.size()) + ")";
      return false;
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      int32_t s = t.getDimSymbol(d);
      if (s < 0) {
        if (dims[d] != t.shape[d]) {
          error = which + " (dim " + std::to_string(d) + " differs)";
          return false;
        }
        continue;
      }
      const std::string &symbol = signature.symbols[s];
      if (dims[d] < 0 || t.shape[d] <= 0 || dims[d] % t.shape[d] != 0) {
        error = which + " (dim " + std::to_string(d) +
                " must be a non-negative multiple of " +
                std::to_string(t.shape[d]) + ")";
        return false;
      }
      int64_t value = dims[d] / t.shape[d];
      if (values[s] >= 0 && values[s] != value) {
        error = which + ": its dim " + std::to_string(d) + " makes '" +
                symbol + "' " + std::to_string(value) + ", but " + setBy[s] +
                " made it " + std::to_string(values[s]);
        return false;
      }
      values[s] = value;
      setBy[s] = "input '" + t.name + "'";
    }
  }
  for (size_t s = 0; s < values.size(); ++s)
    if (values[s] < 0) {
      error = "no input gives symbolic dim '" + signature.symbols[s] + "'";
      return false;
    }
  // Every buffer's bytes must fit 62 bits at these values.
  auto fits = [&](const TensorSignature &t) {
    uint64_t bytes = getDTypeSize(t.dtype);
    for (size_t d = 0; d < t.shape.size(); ++d) {
      int64_t dim = t.shape[d];
      if (int32_t s = t.getDimSymbol(d); s >= 0 &&
          __builtin_mul_overflow(dim, values[s], &dim))
        return false;
      if (dim >= 0 && (__builtin_mul_overflow(bytes, uint64_t(dim), &bytes) ||
                       bytes > (uint64_t(1) << 62)))
        return false;
    }
    return true;
  };
  for (const std::vector<TensorSignature> *list :
       {&signature.inputs, &signature.outputs})
    for (const TensorSignature &t : *list)
      if (!fits(t)) {
        error = "at these input shapes, tensor '" + t.name +
                "' would have more than 2^62 bytes";
        return false;
      }
  return true;
}

namespace {
using nlohmann::json;

/// The string member `key` of `object`, or null.
const std::string *getString(const json &object, const char *key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string()
             ? it->get_ptr<const std::string *>()
             : nullptr;
}

/// The integer member `key` of `object`.
std::optional<int64_t> getInteger(const json &object, const char *key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer())
    return std::nullopt;
  return it->get<int64_t>();
}

bool parseTensors(const json &root, const char *what,
                  const std::vector<std::string> &symbols,
                  std::vector<TensorSignature> &out, std::string &error) {
  auto list = root.find(what);
  if (list == root.end() || !list->is_array()) {
    error = std::string("model metadata has no '") + what + "' list";
    return false;
  }
  for (const json &entry : *list) {
    const std::string *name = entry.is_object() ? getString(entry, "name") : nullptr;
    const std::string *dtype =
        entry.is_object() ? getString(entry, "dtype") : nullptr;
    std::optional<DType> type =
        dtype ? parseDTypeName(*dtype) : std::optional<DType>();
    auto shape = entry.is_object() ? entry.find("shape") : entry.end();
    if (!name || !type || shape == entry.end() || !shape->is_array()) {
      error = std::string("malformed ") + what + " entry in model metadata";
      return false;
    }
    TensorSignature t{*name, *type, {}, {}};
    bool output = std::string_view(what) == "outputs";
    for (const json &d : *shape) {
      if (d.is_string()) {
        // A symbolic dim: "batch" or "K*batch".
        std::string text = d.get<std::string>();
        int64_t factor = 1;
        size_t star = text.find('*');
        if (star != std::string::npos) {
          std::string digits = text.substr(0, star);
          if (digits.empty() || digits.size() > 12 ||
              digits.find_first_not_of("0123456789") != std::string::npos) {
            error = std::string("bad symbolic dimension '") + text + "' of " +
                    what + " '" + t.name + "'";
            return false;
          }
          factor = std::stoll(digits);
          text = text.substr(star + 1);
        }
        auto it = std::find(symbols.begin(), symbols.end(), text);
        if (it == symbols.end() || factor <= 0) {
          error = std::string("dimension '") + d.get<std::string>() + "' of " +
                  what + " '" + t.name +
                  "' names no symbol of the model's 'symbols'";
          return false;
        }
        t.dimSymbols.resize(t.shape.size(), -1);
        t.dimSymbols.push_back(static_cast<int32_t>(it - symbols.begin()));
        t.shape.push_back(factor);
        continue;
      }
      if (!d.is_number_integer() ||
          (d.get<int64_t>() < 0 &&
           !(output && d.get<int64_t>() == kDynamicDim))) {
        error = std::string("bad dimension of ") + what + " '" + t.name + "'";
        return false;
      }
      t.shape.push_back(d.get<int64_t>());
    }
    if (!t.dimSymbols.empty())
      t.dimSymbols.resize(t.shape.size(), -1);
    // Sizes are computed from these dims later: refuse any whose bytes do
    // not fit 62 bits, as no tensor of a compiled model can.
    uint64_t bytes = getDTypeSize(t.dtype);
    for (int64_t d : t.shape)
      if ((d >= 0 && __builtin_mul_overflow(bytes, uint64_t(d), &bytes)) ||
          bytes > (uint64_t(1) << 62)) {
        error = "tensor '" + t.name + "' of the model's " + what +
                " in its metadata is too large (its bytes overflow 2^62)";
        return false;
      }
    out.push_back(std::move(t));
  }
  return true;
}
} // namespace

bool mlc::abi::parseModelSignature(std::string_view text,
                                   ModelSignature &signature,
                                   std::string &error) {
  json root = json::parse(text.begin(), text.end(), /*cb=*/nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    error = "model metadata is not valid JSON";
    return false;
  }
  if (!root.is_object()) {
    error = "model metadata is not a JSON object";
    return false;
  }
  signature = ModelSignature();
  if (const std::string *name = getString(root, "name"))
    signature.name = *name;
  std::optional<int64_t> arena = getInteger(root, "arena_size");
  if (!arena || *arena < 0) {
    error = "model metadata has no arena_size";
    return false;
  }
  signature.arenaSize = *arena;
  if (auto list = root.find("symbols"); list != root.end()) {
    if (!list->is_array()) {
      error = "malformed 'symbols' in model metadata";
      return false;
    }
    for (const json &s : *list) {
      if (!s.is_string() || s.get<std::string>().empty()) {
        error = "malformed 'symbols' in model metadata";
        return false;
      }
      signature.symbols.push_back(s.get<std::string>());
    }
  }
  if (auto perSample = root.find("per_sample"); perSample != root.end()) {
    if (!perSample->is_boolean() || signature.symbols.size() != 1) {
      error = "malformed 'per_sample' in model metadata";
      return false;
    }
    signature.perSample = perSample->get<bool>();
  }
  if (!parseTensors(root, "inputs", signature.symbols, signature.inputs,
                    error) ||
      !parseTensors(root, "outputs", signature.symbols, signature.outputs,
                    error))
    return false;
  if (auto w = root.find("weights"); w != root.end()) {
    const std::string *file = w->is_object() ? getString(*w, "file") : nullptr;
    std::optional<int64_t> size =
        w->is_object() ? getInteger(*w, "size") : std::nullopt;
    const std::string *hash =
        w->is_object() ? getString(*w, "fnv1a64") : nullptr;
    ExternalWeights weights;
    bool hexHash = hash && !hash->empty() && hash->size() <= 16 &&
                   hash->find_first_not_of("0123456789abcdefABCDEF") ==
                       std::string::npos;
    if (!file || !size || *size < 0 || !hexHash) {
      error = "malformed 'weights' in model metadata";
      return false;
    }
    weights.file = *file;
    weights.size = *size;
    weights.hash = std::stoull(*hash, nullptr, 16);
    signature.weights = std::move(weights);
  }
  if (auto t = root.find("target"); t != root.end()) {
    const std::string *triple = t->is_object() ? getString(*t, "triple") : nullptr;
    const std::string *cpu = t->is_object() ? getString(*t, "cpu") : nullptr;
    const std::string *features =
        t->is_object() ? getString(*t, "features") : nullptr;
    if (!triple || !cpu || !features) {
      error = "malformed 'target' in model metadata";
      return false;
    }
    signature.target = CodeTarget{*triple, *cpu, *features};
  }
  if (auto g = root.find("gpu"); g != root.end()) {
    const std::string *arch = g->is_object() ? getString(*g, "arch") : nullptr;
    const std::string *format =
        g->is_object() ? getString(*g, "format") : nullptr;
    auto kernels = g->is_object() ? g->find("kernels") : g->end();
    if (!arch || !format || kernels == g->end() || !kernels->is_array()) {
      error = "malformed 'gpu' in model metadata";
      return false;
    }
    GPUCode gpu{*arch, *format, {}};
    if (auto h = g->find("host_access"); h != g->end()) {
      if (!h->is_boolean()) {
        error = "malformed 'host_access' in the model metadata's 'gpu'";
        return false;
      }
      gpu.hostAccess = h->get<bool>();
    }
    for (const json &k : *kernels) {
      if (!k.is_string()) {
        error = "malformed kernel name in the model metadata's 'gpu'";
        return false;
      }
      gpu.kernels.push_back(k.get<std::string>());
    }
    signature.gpu = std::move(gpu);
  }
  if (auto n = root.find("npu"); n != root.end()) {
    const std::string *config = n->is_object() ? getString(*n, "config") : nullptr;
    auto programs = n->is_object() ? n->find("programs") : n->end();
    if (!config || programs == n->end() || !programs->is_array()) {
      error = "malformed 'npu' in model metadata";
      return false;
    }
    NPUCode npu{*config, {}};
    for (const json &p : *programs) {
      std::optional<int64_t> offset =
          p.is_object() ? getInteger(p, "offset") : std::nullopt;
      std::optional<int64_t> size =
          p.is_object() ? getInteger(p, "size") : std::nullopt;
      auto buffers = p.is_object() ? p.find("buffers") : p.end();
      if (!offset || !size || *offset < 0 || *size < 0 ||
          buffers == p.end() || !buffers->is_array()) {
        error = "malformed program in the model metadata's 'npu'";
        return false;
      }
      NPUCode::Program program{*offset, *size, {}, {}};
      if (auto node = p.find("node"); node != p.end()) {
        if (!node->is_string()) {
          error = "malformed program in the model metadata's 'npu'";
          return false;
        }
        program.node = node->get<std::string>();
      }
      for (const json &b : *buffers) {
        std::optional<int64_t> dram =
            b.is_object() ? getInteger(b, "dram") : std::nullopt;
        std::optional<int64_t> bytes =
            b.is_object() ? getInteger(b, "bytes") : std::nullopt;
        auto write = b.is_object() ? b.find("write") : b.end();
        if (!dram || !bytes || *dram < 0 || *bytes < 0 ||
            *dram > (int64_t(1) << 48) || *bytes > (int64_t(1) << 48) ||
            write == b.end() || !write->is_boolean()) {
          error = "malformed buffer in the model metadata's 'npu'";
          return false;
        }
        program.buffers.push_back({*dram, *bytes, write->get<bool>()});
      }
      npu.programs.push_back(std::move(program));
    }
    signature.npu = std::move(npu);
  }
  if (auto c = root.find("checks"); c != root.end()) {
    std::optional<int64_t> offset =
        c->is_object() ? getInteger(*c, "status_offset") : std::nullopt;
    auto messages = c->is_object() ? c->find("messages") : c->end();
    if (!offset || *offset < 0 || *offset % 4 != 0 ||
        *offset + 4 > signature.arenaSize || messages == c->end() ||
        !messages->is_array()) {
      error = "malformed 'checks' in model metadata";
      return false;
    }
    RunTimeChecks checks{*offset, {}};
    for (const json &m : *messages) {
      if (!m.is_string()) {
        error = "malformed message in the model metadata's 'checks'";
        return false;
      }
      checks.messages.push_back(m.get<std::string>());
    }
    signature.checks = std::move(checks);
  }
  if (root.contains("buffer_cache_offset")) {
    std::optional<int64_t> offset = getInteger(root, "buffer_cache_offset");
    if (!offset || *offset < 0 || *offset % 8 != 0 ||
        *offset + kBufferCacheBytes > signature.arenaSize) {
      error = "malformed 'buffer_cache_offset' in model metadata";
      return false;
    }
    signature.bufferCacheOffset = *offset;
  }
  return true;
}

const char *mlc::abi::getCheckMessage(const ModelSignature &signature,
                                      const void *arena) {
  if (!signature.checks || !arena)
    return "";
  int32_t number;
  std::memcpy(&number,
              static_cast<const char *>(arena) + signature.checks->statusOffset,
              sizeof(number));
  if (number < 1 || size_t(number) > signature.checks->messages.size())
    return "";
  return signature.checks->messages[number - 1].c_str();
}

void mlc::abi::releaseBufferCache(int64_t offset, void *arena) {
  if (!arena)
    return;
  auto *rows =
      reinterpret_cast<uint64_t *>(static_cast<char *>(arena) + offset);
  if (rows[0] != (reinterpret_cast<uintptr_t>(rows) ^ kBufferCacheKey))
    return;
  for (int64_t slot = 1; slot <= kBufferCacheSlots; ++slot) {
    uint64_t *row = rows + slot * kBufferCacheColumns;
    std::free(reinterpret_cast<void *>(row[0]));
    std::fill(row, row + kBufferCacheColumns, 0);
  }
  rows[0] = 0;
}
