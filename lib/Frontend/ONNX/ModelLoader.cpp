//===- ModelLoader.cpp - Reading ONNX protobuf files ----------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <climits>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace {
Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// Closes a file descriptor on scope exit.
struct FileCloser {
  int fd;
  ~FileCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};
} // namespace

Error mlc::onnx_import::loadModelProto(StringRef path,
                                       onnx::ModelProto &model) {
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(path, status))
    return makeError("cannot open '" + path + "': " + ec.message());
  if (!sys::fs::is_regular_file(status))
    return makeError("'" + path + "' is not a regular file");
  int fd = ::open(path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return makeError("cannot open '" + path + "': " +
                     std::error_code(errno, std::generic_category()).message());
  FileCloser closer{fd};
  google::protobuf::io::FileInputStream fileStream(fd);
  return parseModelStream(fileStream, path, model);
}

Error mlc::onnx_import::parseModelStream(
    google::protobuf::io::ZeroCopyInputStream &stream, StringRef name,
    onnx::ModelProto &model) {
  google::protobuf::io::CodedInputStream coded(&stream);
  // Protobuf caps messages at 2 GiB; larger models keep weights outside.
  coded.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return makeError("'" + name +
                     "' is not a valid ONNX model (the protobuf is truncated "
                     "or malformed)");
  if (!model.has_graph())
    return makeError("'" + name + "' has no graph");
  return Error::success();
}

Error mlc::onnx_import::parseModelBuffer(StringRef data, StringRef name,
                                         onnx::ModelProto &model) {
  if (data.size() > static_cast<size_t>(INT_MAX))
    return makeError("'" + name + "' is larger than protobuf's 2 GiB limit");
  google::protobuf::io::ArrayInputStream stream(data.data(),
                                                static_cast<int>(data.size()));
  return parseModelStream(stream, name, model);
}

Expected<mlc::onnx_import::ExternalDataRef>
mlc::onnx_import::parseExternalDataRef(const onnx::TensorProto &tensor) {
  ExternalDataRef ref;
  bool hasLocation = false;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    StringRef key = entry.key(), value = entry.value();
    if (key == "location") {
      ref.location = value.str();
      hasLocation = true;
    } else if (key == "offset" || key == "length") {
      uint64_t number;
      if (value.getAsInteger(10, number))
        return makeError("external data " + key + " '" + value +
                         "' is not a non-negative integer");
      if (key == "offset")
        ref.offset = number;
      else
        ref.length = number;
    }
  }
  if (!hasLocation || ref.location.empty())
    return makeError("external data has no location");
  return ref;
}

Error mlc::onnx_import::readExternalData(StringRef modelDir,
                                         const ExternalDataRef &ref,
                                         uint64_t expectedBytes, char *out) {
  StringRef location = ref.location;
  if (sys::path::is_absolute(location))
    return makeError("external data location '" + location +
                     "' is an absolute path");
  for (StringRef component :
       make_range(sys::path::begin(location), sys::path::end(location)))
    if (component == "..")
      return makeError("external data location '" + location +
                       "' leaves the model's folder");
  SmallString<256> dir, file, candidate(modelDir.empty() ? "." : modelDir);
  sys::path::append(candidate, location);
  if (sys::fs::real_path(modelDir.empty() ? "." : modelDir, dir) ||
      sys::fs::real_path(candidate, file))
    return makeError("external data file '" + location + "' does not exist");
  // A symlink may point anywhere: the real path must stay inside.
  SmallString<256> prefix(dir);
  sys::path::append(prefix, "");
  if (!StringRef(file).starts_with(prefix))
    return makeError("external data location '" + location +
                     "' resolves outside the model's folder");
  sys::fs::file_status status;
  if (sys::fs::status(file, status) || !sys::fs::is_regular_file(status))
    return makeError("external data location '" + location +
                     "' is not a regular file");
  uint64_t size = status.getSize();
  uint64_t length = ref.length.value_or(expectedBytes);
  if (length != expectedBytes)
    return makeError("external data length " + Twine(length) +
                     " differs from the tensor's size of " +
                     Twine(expectedBytes) + " bytes");
  if (ref.offset > size || length > size - ref.offset)
    return makeError("external data range [" + Twine(ref.offset) + ", " +
                     Twine(ref.offset) + " + " + Twine(length) +
                     ") is outside '" + location + "' (" + Twine(size) +
                     " bytes)");
  if (!out)
    return Error::success();
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return makeError("cannot open external data '" + location + "'");
  FileCloser closer{fd};
  uint64_t done = 0;
  while (done < length) {
    ssize_t n = ::pread(fd, out + done, length - done, ref.offset + done);
    if (n <= 0)
      return makeError("cannot read external data '" + location + "'");
    done += n;
  }
  return Error::success();
}
