//===- TensorFiles.cpp - .npy and ONNX TensorProto files ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include "onnx/onnx_pb.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlc;
using namespace mlc::run;
using abi::DType;

namespace {
llvm::Error fail(llvm::StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + message);
}

/// NumPy's type string for a dtype on a little-endian machine.
std::string getNpyDescr(DType type) {
  switch (type) {
  case DType::Float32:
    return "<f4";
  case DType::Float64:
    return "<f8";
  case DType::Float16:
    return "<f2";
  case DType::Int8:
    return "|i1";
  case DType::UInt8:
    return "|u1";
  case DType::Bool:
    return "|b1";
  case DType::Int16:
    return "<i2";
  case DType::UInt16:
    return "<u2";
  case DType::Int32:
    return "<i4";
  case DType::UInt32:
    return "<u4";
  case DType::Int64:
    return "<i8";
  case DType::UInt64:
    return "<u8";
  case DType::BFloat16:
    return "<V2"; // NumPy has no bfloat16: raw 2-byte values.
  }
  return "";
}

std::optional<DType> parseNpyDescr(llvm::StringRef descr) {
  if (descr.size() < 3)
    return std::nullopt;
  char order = descr[0];
  if (order != '<' && order != '|' && order != '=')
    return std::nullopt; // big-endian data is not converted
  llvm::StringRef kind = descr.drop_front();
  return llvm::StringSwitch<std::optional<DType>>(kind)
      .Case("f4", DType::Float32)
      .Case("f8", DType::Float64)
      .Case("f2", DType::Float16)
      .Case("i1", DType::Int8)
      .Case("u1", DType::UInt8)
      .Case("b1", DType::Bool)
      .Case("i2", DType::Int16)
      .Case("u2", DType::UInt16)
      .Case("i4", DType::Int32)
      .Case("u4", DType::UInt32)
      .Case("i8", DType::Int64)
      .Case("u8", DType::UInt64)
      .Case("V2", DType::BFloat16) // what writeNpy writes for bfloat16
      .Default(std::nullopt);
}

/// The value of `'key': ...` in a .npy header dict, up to the next
/// top-level comma.
std::optional<llvm::StringRef> getHeaderField(llvm::StringRef header,
                                              llvm::StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    if (close == llvm::StringRef::npos)
      return std::nullopt;
    return rest.slice(1, close);
  }
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).trim();
}

llvm::Expected<HostTensor> readNpy(llvm::StringRef path,
                                   llvm::StringRef bytes) {
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return fail(path, "not a .npy file (bad magic)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) |
                   (static_cast<unsigned char>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail(path, "truncated .npy header");
    headerLength = 0;
    for (int i = 3; i >= 0; --i)
      headerLength = (headerLength << 8) | static_cast<unsigned char>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return fail(path, "unsupported .npy version " + llvm::Twine(major));
  }
  if (headerStart + headerLength > bytes.size())
    return fail(path, "truncated .npy header");
  llvm::StringRef header = bytes.substr(headerStart, headerLength);
  std::optional<llvm::StringRef> descr = getHeaderField(header, "descr");
  std::optional<llvm::StringRef> fortran =
      getHeaderField(header, "fortran_order");
  std::optional<llvm::StringRef> shape = getHeaderField(header, "shape");
  if (!descr || !fortran || !shape)
    return fail(path, "malformed .npy header: " + header);
  llvm::StringRef descrText = descr->trim("'\" ");
  std::optional<DType> dtype = parseNpyDescr(descrText);
  if (!dtype)
    return fail(path, "unsupported .npy dtype '" + descrText + "'");
  if (*fortran != "False")
    return fail(path, "Fortran-ordered arrays are not supported; save a "
                      "C-ordered array (numpy.ascontiguousarray)");
  HostTensor tensor;
  tensor.dtype = *dtype;
  llvm::SmallVector<llvm::StringRef> dims;
  shape->split(dims, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef d : dims) {
    d = d.trim();
    if (d.empty())
      continue;
    int64_t value;
    if (d.getAsInteger(10, value) || value < 0)
      return fail(path, "bad dimension '" + d + "' in .npy shape");
    tensor.shape.push_back(value);
  }
  uint64_t count = 1;
  for (int64_t d : tensor.shape)
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
      return fail(path, "shape overflows");
  uint64_t size = count * abi::getDTypeSize(*dtype);
  llvm::StringRef payload = bytes.drop_front(headerStart + headerLength);
  if (payload.size() != size)
    return fail(path, "holds " + llvm::Twine(payload.size()) +
                          " data bytes; shape " + formatShape(tensor.shape) +
                          " of " + abi::getDTypeName(*dtype) + " needs " +
                          llvm::Twine(size));
  tensor.data.assign(payload.begin(), payload.end());
  return tensor;
}

std::optional<DType> getDTypeOfProto(int32_t type) {
  switch (type) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
  case onnx::TensorProto::BFLOAT16:
    return static_cast<DType>(type);
  default:
    return std::nullopt;
  }
}

/// Appends the low `size` bytes of each value (little-endian host).
template <typename Range>
void appendValues(std::vector<char> &out, const Range &values, unsigned size) {
  for (auto v : values) {
    char bytes[8] = {};
    if constexpr (std::is_floating_point_v<decltype(v)>) {
      if (size == sizeof(float)) {
        float f = static_cast<float>(v);
        std::memcpy(bytes, &f, sizeof(f));
      } else {
        double d = static_cast<double>(v);
        std::memcpy(bytes, &d, sizeof(d));
      }
    } else {
      uint64_t u = static_cast<uint64_t>(v);
      std::memcpy(bytes, &u, sizeof(u));
    }
    out.insert(out.end(), bytes, bytes + size);
  }
}

llvm::Expected<HostTensor> readTensorProto(llvm::StringRef path,
                                           llvm::StringRef bytes) {
  onnx::TensorProto proto;
  if (bytes.size() > INT32_MAX ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return fail(path, "not a serialized ONNX TensorProto");
  std::optional<DType> dtype = getDTypeOfProto(proto.data_type());
  if (!dtype)
    return fail(path, "unsupported TensorProto data_type " +
                          llvm::Twine(proto.data_type()));
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail(path, "TensorProto with external data is not supported as "
                      "an input file");
  HostTensor tensor;
  tensor.dtype = *dtype;
  uint64_t count = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0)
      return fail(path, "negative dimension " + llvm::Twine(d));
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
      return fail(path, "shape overflows");
    tensor.shape.push_back(d);
  }
  unsigned elementSize = abi::getDTypeSize(*dtype);
  if (proto.has_raw_data()) {
    tensor.data.assign(proto.raw_data().begin(), proto.raw_data().end());
  } else {
    switch (proto.data_type()) {
    case onnx::TensorProto::FLOAT:
      appendValues(tensor.data, proto.float_data(), 4);
      break;
    case onnx::TensorProto::DOUBLE:
      appendValues(tensor.data, proto.double_data(), 8);
      break;
    case onnx::TensorProto::INT64:
      appendValues(tensor.data, proto.int64_data(), 8);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      appendValues(tensor.data, proto.uint64_data(), elementSize);
      break;
    default: // int32_data carries the 8/16/32-bit types and f16/bf16 bits.
      appendValues(tensor.data, proto.int32_data(), elementSize);
      break;
    }
  }
  if (tensor.data.size() != count * elementSize)
    return fail(path, "holds " + llvm::Twine(tensor.data.size()) +
                          " data bytes; shape " + formatShape(tensor.shape) +
                          " of " + abi::getDTypeName(*dtype) + " needs " +
                          llvm::Twine(count * elementSize));
  return tensor;
}
} // namespace

std::string mlc::run::formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    text += (i ? ", " : "") + std::to_string(d);
  return text + "]";
}

llvm::Expected<HostTensor> mlc::run::readTensorFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(path, "cannot read: " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (llvm::sys::path::extension(path) == ".npy" ||
      bytes.starts_with("\x93NUMPY"))
    return readNpy(path, bytes);
  return readTensorProto(path, bytes);
}

llvm::Error mlc::run::writeNpy(llvm::StringRef path, const HostTensor &tensor) {
  std::string shape = "(";
  for (int64_t d : tensor.shape)
    shape += std::to_string(d) + ",";
  if (tensor.shape.size() > 1)
    shape.pop_back();
  shape += ")";
  std::string header = "{'descr': '" + getNpyDescr(tensor.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail(path, "cannot write: " + ec.message());
  os << "\x93NUMPY" << '\x01' << '\x00';
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>((header.size() >> 8) & 0xff);
  os << header;
  os.write(tensor.data.data(), tensor.data.size());
  return llvm::Error::success();
}
