//===- ModelLoader.h - Reading ONNX protobuf files --------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Frontend/ONNX: parsing a ModelProto from a file and
// reading external tensor data through one checked resolver.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_FRONTEND_ONNX_MODELLOADER_H
#define MLC_LIB_FRONTEND_ONNX_MODELLOADER_H

#include "onnx/onnx_pb.h"

#include <google/protobuf/io/zero_copy_stream.h>

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlc::onnx_import {

/// Parses the ModelProto in `path`. Fails with a message on unreadable,
/// truncated or malformed files.
llvm::Error loadModelProto(llvm::StringRef path, onnx::ModelProto &model);

/// Parses a model from `stream`; `name` names it in messages.
llvm::Error parseModelStream(google::protobuf::io::ZeroCopyInputStream &stream,
                             llvm::StringRef name, onnx::ModelProto &model);

/// Parses a model from the bytes of its file.
llvm::Error parseModelBuffer(llvm::StringRef data, llvm::StringRef name,
                             onnx::ModelProto &model);

/// Where a tensor's bytes live when `data_location` is EXTERNAL.
struct ExternalDataRef {
  std::string location; ///< path relative to the model's folder
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

/// Reads `tensor`'s external_data entries into an ExternalDataRef.
llvm::Expected<ExternalDataRef>
parseExternalDataRef(const onnx::TensorProto &tensor);

/// The one resolver of external data: opens `ref.location` relative to
/// `modelDir` and copies exactly `expectedBytes` bytes into `out`. Rejects
/// absolute paths, `..` components, symlinks that leave `modelDir`, and
/// offsets or lengths outside the file or different from `expectedBytes`.
/// With a null `out`, only checks.
llvm::Error readExternalData(llvm::StringRef modelDir,
                             const ExternalDataRef &ref, uint64_t expectedBytes,
                             char *out);

} // namespace mlc::onnx_import

#endif // MLC_LIB_FRONTEND_ONNX_MODELLOADER_H
