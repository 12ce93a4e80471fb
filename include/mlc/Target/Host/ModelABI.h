//===- ModelABI.h - The C ABI of a compiled model ---------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The compiler's side of the compiled model's C ABI (described in
// mlc-runtime/ModelSignature.h, which the runtime shares): the metadata
// JSON writer, a reader with LLVM's error type, and the C header writer.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_CPU_MODELABI_H
#define MLC_TARGET_CPU_MODELABI_H

#include "mlc-runtime/ModelSignature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace mlc::abi {

/// Serializes `signature` as the JSON stored in `<name>_metadata`.
std::string toJSON(const ModelSignature &signature);
/// Parses the JSON that toJSON wrote (the runtime's reader).
llvm::Expected<ModelSignature> parseModelSignature(llvm::StringRef json);

/// Writes the C header for the models of one object file. `source` is the
/// model file it came from.
void writeCHeader(llvm::ArrayRef<ModelSignature> models, llvm::StringRef source,
                  llvm::raw_ostream &os);

} // namespace mlc::abi

#endif // MLC_TARGET_CPU_MODELABI_H
