//===- HostCPU.cpp - Whether this machine runs a model's code -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/HostCPU.h"

#include <cstring>

using namespace mlc::abi;

namespace {
/// An LLVM feature name and whether this CPU has it.
struct Feature {
  const char *name;
  bool (*present)();
};

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define MLC_FEATURE(NAME)                                                      \
  Feature{NAME, [] { return bool(__builtin_cpu_supports(NAME)); }}
const Feature kFeatures[] = {
    MLC_FEATURE("sse3"),         MLC_FEATURE("ssse3"),
    MLC_FEATURE("sse4.1"),       MLC_FEATURE("sse4.2"),
    MLC_FEATURE("sse4a"),        MLC_FEATURE("popcnt"),
    MLC_FEATURE("avx"),          MLC_FEATURE("avx2"),
    MLC_FEATURE("fma"),          MLC_FEATURE("f16c"),
    MLC_FEATURE("bmi"),          MLC_FEATURE("bmi2"),
    MLC_FEATURE("lzcnt"),        MLC_FEATURE("movbe"),
    MLC_FEATURE("adx"),          MLC_FEATURE("aes"),
    MLC_FEATURE("pclmul"),       MLC_FEATURE("sha"),
    MLC_FEATURE("gfni"),         MLC_FEATURE("vaes"),
    MLC_FEATURE("vpclmulqdq"),   MLC_FEATURE("avxvnni"),
    MLC_FEATURE("avx512f"),      MLC_FEATURE("avx512bw"),
    MLC_FEATURE("avx512dq"),     MLC_FEATURE("avx512vl"),
    MLC_FEATURE("avx512cd"),     MLC_FEATURE("avx512vnni"),
    MLC_FEATURE("avx512bf16"),   MLC_FEATURE("avx512fp16"),
    MLC_FEATURE("avx512vbmi"),   MLC_FEATURE("avx512vbmi2"),
    MLC_FEATURE("avx512ifma"),   MLC_FEATURE("avx512bitalg"),
    MLC_FEATURE("avx512vpopcntdq"), MLC_FEATURE("amx-tile"),
    MLC_FEATURE("amx-int8"),     MLC_FEATURE("amx-bf16"),
};
#undef MLC_FEATURE
constexpr const char *kHostArch = "x86_64";
#else
const Feature kFeatures[] = {{"", nullptr}};
constexpr const char *kHostArch = "";
#endif
} // namespace

std::vector<std::string>
mlc::abi::getMissingFeatures(const CodeTarget &target) {
  std::vector<std::string> missing;
  if (!*kHostArch || target.triple.rfind(kHostArch, 0) != 0)
    return missing;
  size_t at = 0;
  while (at <= target.features.size()) {
    size_t end = target.features.find(',', at);
    if (end == std::string::npos)
      end = target.features.size();
    std::string feature = target.features.substr(at, end - at);
    at = end + 1;
    if (feature.size() < 2 || feature[0] != '+')
      continue;
    for (const Feature &known : kFeatures)
      if (known.present && feature.compare(1, std::string::npos, known.name) == 0 &&
          !known.present())
        missing.push_back(feature.substr(1));
  }
  return missing;
}
