//===- Config.cpp - An NPU described as data ------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/NPU/Config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace mlc::npu;
using nlohmann::json;

namespace {
struct TypeName {
  ElementType type;
  std::string_view name;
  unsigned bytes;
};
constexpr TypeName kTypes[] = {{ElementType::Int8, "int8", 1},
                               {ElementType::Int32, "int32", 4},
                               {ElementType::BF16, "bf16", 2},
                               {ElementType::F16, "f16", 2},
                               {ElementType::F32, "f32", 4}};

/// Gemmini's default: a 16x16 int8 array with double-buffered weights,
/// 256 KiB of scratchpad in 4 banks, 64 KiB of int32 accumulator; one DMA
/// channel.
constexpr std::string_view kEdge = R"({
  "name": "edge", "clock_mhz": 1000,
  "matrix": {"rows": 16, "cols": 16, "types": [["int8", "int32"]],
             "weight_buffers": 2},
  "vector": {"width": 16,
             "ops": ["relu", "add", "requantize", "copy", "max_pool",
                     "average_pool"]},
  "scratchpad": {"bytes": 262144, "banks": 4},
  "accumulator": {"bytes": 65536, "banks": 2},
  "dma": {"channels": 1, "bytes_per_cycle": 16, "latency_cycles": 100}
})";

/// A datacenter-sized unit: 64x64 for int8 and bf16, 8 MiB of scratchpad,
/// 2 MiB of accumulator, four DMA channels.
constexpr std::string_view kLarge = R"({
  "name": "large", "clock_mhz": 1500,
  "matrix": {"rows": 64, "cols": 64,
             "types": [["int8", "int32"], ["bf16", "f32"], ["f16", "f32"]],
             "weight_buffers": 2},
  "vector": {"width": 64,
             "ops": ["relu", "add", "requantize", "copy", "max_pool",
                     "average_pool"]},
  "scratchpad": {"bytes": 8388608, "banks": 16},
  "accumulator": {"bytes": 2097152, "banks": 8},
  "dma": {"channels": 4, "bytes_per_cycle": 64, "latency_cycles": 200}
})";

/// A positive integer at `key` of `object`, or an error naming it.
bool getPositive(const json &object, const char *key, const std::string &where,
                 int64_t &out, std::string &error) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer() ||
      it->get<int64_t>() <= 0 || it->get<int64_t>() > (int64_t(1) << 40)) {
    error = where + "." + key + " must be a positive integer";
    return false;
  }
  out = it->get<int64_t>();
  return true;
}

const json *getObject(const json &parent, const char *key,
                      const std::string &source, std::string &error) {
  auto it = parent.find(key);
  if (it == parent.end() || !it->is_object()) {
    error = source + ": '" + key + "' must be an object";
    return nullptr;
  }
  return &*it;
}
} // namespace

std::string_view mlc::npu::getElementTypeName(ElementType type) {
  for (const TypeName &t : kTypes)
    if (t.type == type)
      return t.name;
  return "?";
}

std::optional<ElementType> mlc::npu::parseElementType(std::string_view name) {
  for (const TypeName &t : kTypes)
    if (t.name == name)
      return t.type;
  return std::nullopt;
}

unsigned mlc::npu::getElementBytes(ElementType type) {
  for (const TypeName &t : kTypes)
    if (t.type == type)
      return t.bytes;
  return 0;
}

bool NPUConfig::supportsMatrix(ElementType input,
                               ElementType accumulator) const {
  return std::find(matrix.types.begin(), matrix.types.end(),
                   std::make_pair(input, accumulator)) != matrix.types.end();
}

bool NPUConfig::supportsVector(std::string_view op) const {
  return std::find(vector.ops.begin(), vector.ops.end(), op) !=
         vector.ops.end();
}

std::optional<NPUConfig> mlc::npu::parseNPUConfig(std::string_view text,
                                                  const std::string &source,
                                                  std::string &error) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    error = source + ": not a JSON object";
    return std::nullopt;
  }
  NPUConfig config;
  auto name = root.find("name");
  config.name = name != root.end() && name->is_string()
                    ? name->get<std::string>()
                    : source;
  auto clock = root.find("clock_mhz");
  if (clock == root.end() || !clock->is_number() ||
      clock->get<double>() <= 0) {
    error = source + ": clock_mhz must be a positive number";
    return std::nullopt;
  }
  config.clockMHz = clock->get<double>();

  const json *matrix = getObject(root, "matrix", source, error);
  const json *vector = getObject(root, "vector", source, error);
  const json *scratchpad = getObject(root, "scratchpad", source, error);
  const json *accumulator = getObject(root, "accumulator", source, error);
  const json *dma = getObject(root, "dma", source, error);
  if (!matrix || !vector || !scratchpad || !accumulator || !dma)
    return std::nullopt;
  if (!getPositive(*matrix, "rows", source + ": matrix", config.matrix.rows,
                   error) ||
      !getPositive(*matrix, "cols", source + ": matrix", config.matrix.cols,
                   error) ||
      !getPositive(*vector, "width", source + ": vector", config.vector.width,
                   error) ||
      !getPositive(*scratchpad, "bytes", source + ": scratchpad",
                   config.scratchpad.bytes, error) ||
      !getPositive(*scratchpad, "banks", source + ": scratchpad",
                   config.scratchpad.banks, error) ||
      !getPositive(*accumulator, "bytes", source + ": accumulator",
                   config.accumulator.bytes, error) ||
      !getPositive(*accumulator, "banks", source + ": accumulator",
                   config.accumulator.banks, error) ||
      !getPositive(*dma, "channels", source + ": dma", config.dma.channels,
                   error) ||
      !getPositive(*dma, "bytes_per_cycle", source + ": dma",
                   config.dma.bytesPerCycle, error) ||
      !getPositive(*dma, "latency_cycles", source + ": dma",
                   config.dma.latencyCycles, error))
    return std::nullopt;
  auto types = matrix->find("types");
  if (types == matrix->end() || !types->is_array() || types->empty()) {
    error = source + ": matrix.types must list [input, accumulator] pairs";
    return std::nullopt;
  }
  for (const json &pair : *types) {
    std::optional<ElementType> in, acc;
    if (pair.is_array() && pair.size() == 2 && pair[0].is_string() &&
        pair[1].is_string()) {
      in = parseElementType(pair[0].get<std::string>());
      acc = parseElementType(pair[1].get<std::string>());
    }
    bool valid = in && acc &&
                 ((*in == ElementType::Int8 && *acc == ElementType::Int32) ||
                  ((*in == ElementType::BF16 || *in == ElementType::F16) &&
                   *acc == ElementType::F32));
    if (!valid) {
      error = source + ": matrix.types: " + pair.dump() +
              " is not one of [\"int8\", \"int32\"], [\"bf16\", \"f32\"], "
              "[\"f16\", \"f32\"]";
      return std::nullopt;
    }
    config.matrix.types.push_back({*in, *acc});
  }
  if (auto buffers = matrix->find("weight_buffers"); buffers != matrix->end()) {
    if (!buffers->is_number_integer() || buffers->get<int64_t>() < 1 ||
        buffers->get<int64_t>() > 2) {
      error = source + ": matrix.weight_buffers must be 1 or 2";
      return std::nullopt;
    }
    config.matrix.weightBuffers = buffers->get<int64_t>();
  }
  auto ops = vector->find("ops");
  if (ops == vector->end() || !ops->is_array()) {
    error = source + ": vector.ops must be a list";
    return std::nullopt;
  }
  for (const json &op : *ops) {
    static const char *const kOps[] = {"relu", "add",      "requantize",
                                       "copy", "max_pool", "average_pool"};
    if (!op.is_string() ||
        std::find(std::begin(kOps), std::end(kOps), op.get<std::string>()) ==
            std::end(kOps)) {
      error = source + ": vector.ops: " + op.dump() +
              " is not one of relu, add, requantize, copy, max_pool, "
              "average_pool";
      return std::nullopt;
    }
    config.vector.ops.push_back(op.get<std::string>());
  }
  return config;
}

std::string mlc::npu::printNPUConfig(const NPUConfig &config) {
  json types = json::array();
  for (auto [input, accumulator] : config.matrix.types)
    types.push_back({std::string(getElementTypeName(input)),
                     std::string(getElementTypeName(accumulator))});
  json root = {
      {"name", config.name},
      {"clock_mhz", config.clockMHz},
      {"matrix",
       {{"rows", config.matrix.rows},
        {"cols", config.matrix.cols},
        {"types", types},
        {"weight_buffers", config.matrix.weightBuffers}}},
      {"vector", {{"width", config.vector.width}, {"ops", config.vector.ops}}},
      {"scratchpad",
       {{"bytes", config.scratchpad.bytes}, {"banks", config.scratchpad.banks}}},
      {"accumulator",
       {{"bytes", config.accumulator.bytes},
        {"banks", config.accumulator.banks}}},
      {"dma",
       {{"channels", config.dma.channels},
        {"bytes_per_cycle", config.dma.bytesPerCycle},
        {"latency_cycles", config.dma.latencyCycles}}},
  };
  return root.dump();
}

std::optional<NPUConfig> mlc::npu::getBuiltinNPUConfig(std::string_view name) {
  std::string error;
  if (name == "edge")
    return parseNPUConfig(kEdge, "edge", error);
  if (name == "large")
    return parseNPUConfig(kLarge, "large", error);
  return std::nullopt;
}

std::vector<std::string> mlc::npu::getBuiltinNPUConfigNames() {
  return {"edge", "large"};
}

std::optional<NPUConfig> mlc::npu::loadNPUConfig(const std::string &nameOrPath,
                                                 std::string &error) {
  if (std::optional<NPUConfig> builtin = getBuiltinNPUConfig(nameOrPath))
    return builtin;
  std::ifstream file(nameOrPath);
  if (!file) {
    error = "'" + nameOrPath +
            "' is neither a built-in NPU (edge, large) nor a readable file";
    return std::nullopt;
  }
  std::stringstream text;
  text << file.rdbuf();
  return parseNPUConfig(text.str(), nameOrPath, error);
}
