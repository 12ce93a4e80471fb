//===- ModelFunctions.cpp - The functions that are models -----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelFunctions.h"

#include <cctype>

using namespace mlir;

std::string mlc::host::getNodeSymbolSuffix(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto named = dyn_cast<NameLoc>(l)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  // The end of a hierarchical exporter name is the specific part: the
  // block and the op type (`.../block.1/block.1.0/Conv`).
  constexpr size_t kMaxLength = 48;
  if (name.size() > kMaxLength)
    name = name.substr(name.size() - kMaxLength);
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

