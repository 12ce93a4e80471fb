//===- Generate.cpp - A decoding loop over a compiled decoder -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlc_model_generate: prefill with the prompt, then one token at a time,
// each step's present keys and values fed back as the next step's past.
// The decoder is recognized by the names exporters give its tensors
// (Optimum's and ONNX Runtime GenAI's alike): input_ids, attention_mask,
// optional position_ids, past_key_values.{i}.{key,value} in; logits and
// present.{i}.{key,value} out.
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/mlc_runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {
constexpr int32_t kFloat = 1, kInt64 = 7;

void copyError(const std::string &message, char *error, size_t size) {
  if (!error || !size)
    return;
  size_t n = std::min(message.size(), size - 1);
  std::memcpy(error, message.data(), n);
  error[n] = '\0';
}

/// Where the decoder's tensors are among the model's inputs and outputs.
struct Layout {
  size_t ids = 0, mask = 0, logits = 0;
  long positions = -1;
  struct Cache {
    size_t past, present;
    int64_t heads, headSize;
  };
  std::vector<Cache> caches;
};

/// A tensor of a step: its bytes and dims; `owned` data came from a run
/// (an output whose size the data decides) and is released with mlc_free.
struct Tensor {
  std::vector<char> bytes;
  void *owned = nullptr;
  std::vector<int64_t> dims;
  Tensor() = default;
  Tensor(const Tensor &) = delete;
  Tensor &operator=(const Tensor &) = delete;
  Tensor(Tensor &&other) noexcept { *this = std::move(other); }
  Tensor &operator=(Tensor &&other) noexcept {
    std::swap(bytes, other.bytes);
    std::swap(owned, other.owned);
    std::swap(dims, other.dims);
    return *this;
  }
  ~Tensor() { mlc_free(owned); }
  const void *data() const { return owned ? owned : bytes.data(); }
};

bool findLayout(const mlc_model *model, Layout &layout, std::string &why) {
  auto find = [&](int output, const std::string &name) -> long {
    for (size_t i = 0, e = mlc_model_num_tensors(model, output); i < e; ++i)
      if (name == mlc_model_tensor_name(model, output, i))
        return static_cast<long>(i);
    return -1;
  };
  long ids = find(0, "input_ids"), mask = find(0, "attention_mask");
  long logits = find(1, "logits");
  if (ids < 0 || mask < 0 || logits < 0) {
    why = "the model is not a decoder: it needs inputs 'input_ids' and "
          "'attention_mask' and an output 'logits'";
    return false;
  }
  layout.ids = ids;
  layout.mask = mask;
  layout.logits = logits;
  layout.positions = find(0, "position_ids");
  if (mlc_model_tensor_dtype(model, 0, ids) != kInt64 ||
      mlc_model_tensor_dtype(model, 0, mask) != kInt64 ||
      (layout.positions >= 0 &&
       mlc_model_tensor_dtype(model, 0, layout.positions) != kInt64) ||
      mlc_model_tensor_dtype(model, 1, logits) != kFloat ||
      mlc_model_tensor_rank(model, 1, logits) != 3) {
    why = "input_ids, attention_mask and position_ids must be int64 and "
          "logits float [batch, sequence, vocabulary]";
    return false;
  }
  for (size_t i = 0, e = mlc_model_num_tensors(model, 0); i < e; ++i) {
    std::string name = mlc_model_tensor_name(model, 0, i);
    const std::string prefix = "past_key_values.";
    if (name.compare(0, prefix.size(), prefix))
      continue;
    long present = find(1, "present." + name.substr(prefix.size()));
    if (present < 0) {
      why = "input '" + name + "' has no output 'present." +
            name.substr(prefix.size()) + "'";
      return false;
    }
    int64_t heads = mlc_model_tensor_dim(model, 0, i, 1);
    int64_t headSize = mlc_model_tensor_dim(model, 0, i, 3);
    if (mlc_model_tensor_rank(model, 0, i) != 4 ||
        mlc_model_tensor_dtype(model, 0, i) != kFloat ||
        mlc_model_tensor_dim_symbol(model, 0, i, 1) >= 0 ||
        mlc_model_tensor_dim_symbol(model, 0, i, 3) >= 0 || heads <= 0 ||
        headSize <= 0) {
      why = "input '" + name +
            "' must be float [batch, heads, past, head size] with static "
            "heads and head size";
      return false;
    }
    layout.caches.push_back({i, static_cast<size_t>(present), heads, headSize});
  }
  if (mlc_model_num_symbols(model) == 0) {
    why = "the model has no symbolic dims: compile the decoder with its "
          "sequence and past lengths symbolic";
    return false;
  }
  return true;
}

/// The next token from `logits` (one row of `vocab`).
int64_t pick(const float *logits, int64_t vocab,
             const mlc_generate_config &config, std::mt19937_64 &rng) {
  if (config.temperature <= 0.0f || config.top_k == 1)
    return std::max_element(logits, logits + vocab) - logits;
  std::vector<int64_t> order(vocab);
  std::iota(order.begin(), order.end(), 0);
  int64_t keep =
      config.top_k > 0 ? std::min<int64_t>(config.top_k, vocab) : vocab;
  std::partial_sort(
      order.begin(), order.begin() + keep, order.end(),
      [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  order.resize(keep);
  std::vector<double> probs(keep);
  double top = logits[order[0]], sum = 0;
  for (int64_t i = 0; i < keep; ++i)
    sum += probs[i] = std::exp((logits[order[i]] - top) / config.temperature);
  // Nucleus: the fewest most likely tokens whose mass reaches top_p.
  if (config.top_p > 0.0f && config.top_p < 1.0f) {
    double mass = 0;
    int64_t cut = keep;
    for (int64_t i = 0; i < keep; ++i) {
      mass += probs[i] / sum;
      if (mass >= config.top_p) {
        cut = i + 1;
        break;
      }
    }
    probs.resize(cut);
    sum = std::accumulate(probs.begin(), probs.end(), 0.0);
  }
  double u = std::uniform_real_distribution<double>(0.0, sum)(rng);
  for (size_t i = 0; i < probs.size(); ++i) {
    u -= probs[i];
    if (u <= 0)
      return order[i];
  }
  return order[probs.size() - 1];
}
} // namespace

void mlc_generate_config_init(mlc_generate_config *config) {
  if (!config)
    return;
  config->max_new_tokens = 32;
  config->top_k = 0;
  config->top_p = 1.0f;
  config->temperature = 0.0f;
  config->seed = 0;
  config->eos_token_id = -1;
}

int32_t mlc_model_generate(const mlc_model *model, mlc_arena *arena,
                           const int64_t *prompt, size_t prompt_length,
                           const mlc_generate_config *config, int64_t *tokens,
                           size_t *num_tokens, mlc_generate_stats *stats,
                           char *error, size_t error_size) {
  constexpr int32_t kErrorArgument = 1, kErrorShape = 4;
  if (num_tokens)
    *num_tokens = 0;
  if (!model || !arena || !prompt || !prompt_length || !config ||
      (config->max_new_tokens > 0 && !tokens) || !num_tokens) {
    copyError("a null model, arena, prompt, config or token buffer, or an "
              "empty prompt",
              error, error_size);
    return kErrorArgument;
  }
  Layout layout;
  std::string why;
  if (!findLayout(model, layout, why)) {
    copyError(why, error, error_size);
    return kErrorArgument;
  }
  size_t numInputs = mlc_model_num_tensors(model, 0);
  size_t numOutputs = mlc_model_num_tensors(model, 1);
  size_t numSymbols = mlc_model_num_symbols(model);
  std::vector<Tensor> caches(layout.caches.size());
  for (size_t c = 0; c < caches.size(); ++c) {
    // An empty past; one byte so that its address is not null.
    caches[c].dims = {1, layout.caches[c].heads, 0, layout.caches[c].headSize};
    caches[c].bytes.resize(1);
  }
  std::vector<int64_t> ids(prompt, prompt + prompt_length);
  std::mt19937_64 rng(config->seed);
  int64_t length = 0;
  mlc_generate_stats local{};
  using Clock = std::chrono::steady_clock;
  for (int32_t step = 0; step < std::max(config->max_new_tokens, 0); ++step) {
    auto start = Clock::now();
    int64_t seq = static_cast<int64_t>(ids.size());
    std::vector<int64_t> mask(length + seq, 1), positions(seq);
    std::iota(positions.begin(), positions.end(), length);
    // Inputs: ids, mask, positions, caches; any other input is an error.
    std::vector<const void *> inputs(numInputs, nullptr);
    std::vector<std::vector<int64_t>> shapes(numInputs);
    inputs[layout.ids] = ids.data();
    shapes[layout.ids] = {1, seq};
    inputs[layout.mask] = mask.data();
    shapes[layout.mask] = {1, length + seq};
    if (layout.positions >= 0) {
      inputs[layout.positions] = positions.data();
      shapes[layout.positions] = {1, seq};
    }
    for (size_t c = 0; c < caches.size(); ++c) {
      inputs[layout.caches[c].past] = caches[c].data();
      shapes[layout.caches[c].past] = caches[c].dims;
    }
    std::vector<const int64_t *> shapePointers;
    for (size_t i = 0; i < numInputs; ++i) {
      if (!inputs[i]) {
        copyError(std::string("input '") + mlc_model_tensor_name(model, 0, i) +
                      "' is not one a decoding loop knows how to feed",
                  error, error_size);
        return kErrorArgument;
      }
      shapePointers.push_back(shapes[i].data());
    }
    std::vector<int64_t> dims(numSymbols);
    if (int32_t code = mlc_model_resolve_dims(model, shapePointers.data(),
                                              dims.data(), error, error_size))
      return code;
    // Outputs: static-size buffers, or records for sizes the data decides.
    std::vector<Tensor> outputs(numOutputs);
    std::vector<void *> outputPointers(numOutputs);
    std::vector<std::vector<int64_t>> records(numOutputs);
    for (size_t o = 0; o < numOutputs; ++o) {
      int32_t rank = mlc_model_tensor_rank(model, 1, o);
      bool dataDependent = false;
      for (int32_t d = 0; d < rank; ++d)
        dataDependent |= mlc_model_tensor_dim(model, 1, o, d) < 0;
      int64_t bytes = mlc_model_tensor_bytes_at(model, 1, o, dims.data());
      if (dataDependent || bytes < 0) {
        records[o].assign(1 + rank, 0);
        outputPointers[o] = records[o].data();
        continue;
      }
      outputs[o].bytes.resize(std::max<int64_t>(bytes, 1));
      for (int32_t d = 0; d < rank; ++d)
        outputs[o].dims.push_back(
            mlc_model_tensor_dim_at(model, 1, o, d, dims.data()));
      outputPointers[o] = outputs[o].bytes.data();
    }
    int32_t code = mlc_model_run_dims(model, arena, dims.data(), inputs.data(),
                                      outputPointers.data());
    for (size_t o = 0; o < numOutputs; ++o)
      if (!records[o].empty()) {
        outputs[o].owned = reinterpret_cast<void *>(records[o][0]);
        outputs[o].dims.assign(records[o].begin() + 1, records[o].end());
      }
    if (code) {
      const char *check = mlc_model_check_message(model, arena);
      copyError(std::string(mlc_status_message(code)) +
                    (check && *check ? std::string(": ") + check : ""),
                error, error_size);
      return code;
    }
    const Tensor &logits = outputs[layout.logits];
    if (logits.dims.size() != 3 || logits.dims[0] != 1 ||
        logits.dims[1] != seq) {
      copyError("logits are not [1, sequence, vocabulary]", error, error_size);
      return kErrorShape;
    }
    int64_t vocab = logits.dims[2];
    const float *last =
        static_cast<const float *>(logits.data()) + (seq - 1) * vocab;
    int64_t token = pick(last, vocab, *config, rng);
    tokens[step] = token;
    *num_tokens = step + 1;
    for (size_t c = 0; c < caches.size(); ++c)
      caches[c] = std::move(outputs[layout.caches[c].present]);
    length += seq;
    ids.assign(1, token);
    double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (step == 0)
      local.prefill_ms = ms;
    else
      local.decode_ms += ms;
    if (token == config->eos_token_id)
      break;
  }
  local.prompt_tokens = static_cast<int64_t>(prompt_length);
  local.new_tokens = static_cast<int64_t>(*num_tokens);
  if (stats)
    *stats = local;
  return 0;
}
