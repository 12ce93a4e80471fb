//===- TensorFiles.cpp - .npy and ONNX TensorProto files ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include "onnx/onnx_pb.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <type_traits>

using namespace mlc;
using namespace mlc::run;
using abi::DType;

namespace {
bool fail(std::string_view path, const std::string &message,
          std::string &error) {
  error = std::string(path) + ": " + message;
  return false;
}

/// NumPy's type string for a dtype on a little-endian machine.
struct NpyType {
  DType type;
  const char *descr;
};
constexpr NpyType kNpyTypes[] = {
    {DType::Float32, "<f4"}, {DType::Float64, "<f8"}, {DType::Float16, "<f2"},
    {DType::Int8, "|i1"},    {DType::UInt8, "|u1"},   {DType::Bool, "|b1"},
    {DType::Int16, "<i2"},   {DType::UInt16, "<u2"},  {DType::Int32, "<i4"},
    {DType::UInt32, "<u4"},  {DType::Int64, "<i8"},   {DType::UInt64, "<u8"},
    // NumPy has no bfloat16: raw 2-byte values.
    {DType::BFloat16, "<V2"},
};

std::string getNpyDescr(DType type) {
  for (const NpyType &t : kNpyTypes)
    if (t.type == type)
      return t.descr;
  return "";
}

std::optional<DType> parseNpyDescr(std::string_view descr) {
  if (descr.size() < 3)
    return std::nullopt;
  char order = descr[0];
  if (order != '<' && order != '|' && order != '=')
    return std::nullopt; // big-endian data is not converted
  for (const NpyType &t : kNpyTypes)
    if (descr.substr(1) == std::string_view(t.descr).substr(1))
      return t.type;
  return std::nullopt;
}

std::string_view trim(std::string_view text, std::string_view chars = " \t") {
  size_t first = text.find_first_not_of(chars);
  if (first == std::string_view::npos)
    return {};
  size_t last = text.find_last_not_of(chars);
  return text.substr(first, last - first + 1);
}

/// The value of `'key': ...` in a .npy header dict, up to the next
/// top-level comma.
std::optional<std::string_view> getHeaderField(std::string_view header,
                                               std::string_view key) {
  size_t at = header.find("'" + std::string(key) + "'");
  if (at == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = trim(header.substr(at + key.size() + 2));
  if (rest.empty() || rest[0] != ':')
    return std::nullopt;
  rest = trim(rest.substr(1));
  if (!rest.empty() && rest[0] == '(') {
    size_t close = rest.find(')');
    if (close == std::string_view::npos)
      return std::nullopt;
    return rest.substr(1, close - 1);
  }
  return trim(rest.substr(0, rest.find_first_of(",}")));
}

bool readNpy(std::string_view path, std::string_view bytes, HostTensor &tensor,
             std::string &error) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY")
    return fail(path, "not a .npy file (bad magic)", error);
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) |
                   (static_cast<unsigned char>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail(path, "truncated .npy header", error);
    headerLength = 0;
    for (int i = 3; i >= 0; --i)
      headerLength =
          (headerLength << 8) | static_cast<unsigned char>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return fail(path, "unsupported .npy version " + std::to_string(major),
                error);
  }
  if (headerStart + headerLength > bytes.size())
    return fail(path, "truncated .npy header", error);
  std::string_view header = bytes.substr(headerStart, headerLength);
  std::optional<std::string_view> descr = getHeaderField(header, "descr");
  std::optional<std::string_view> fortran =
      getHeaderField(header, "fortran_order");
  std::optional<std::string_view> shape = getHeaderField(header, "shape");
  if (!descr || !fortran || !shape)
    return fail(path, "malformed .npy header: " + std::string(header), error);
  std::string_view descrText = trim(*descr, "'\" ");
  std::optional<DType> dtype = parseNpyDescr(descrText);
  if (!dtype)
    return fail(path,
                "unsupported .npy dtype '" + std::string(descrText) + "'",
                error);
  if (*fortran != "False")
    return fail(path,
                "Fortran-ordered arrays are not supported; save a "
                "C-ordered array (numpy.ascontiguousarray)",
                error);
  tensor = HostTensor();
  tensor.dtype = *dtype;
  std::string_view dims = *shape;
  while (!dims.empty()) {
    size_t comma = dims.find(',');
    std::string_view d = trim(dims.substr(0, comma));
    dims = comma == std::string_view::npos ? std::string_view()
                                           : dims.substr(comma + 1);
    if (d.empty())
      continue;
    bool digits = d.size() <= 18 &&
                  d.find_first_not_of("0123456789") == std::string_view::npos;
    if (!digits)
      return fail(path,
                  "bad dimension '" + std::string(d) + "' in .npy shape",
                  error);
    tensor.shape.push_back(std::stoll(std::string(d)));
  }
  uint64_t count = 1;
  for (int64_t d : tensor.shape)
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
      return fail(path, "shape overflows", error);
  uint64_t size;
  if (__builtin_mul_overflow(count, abi::getDTypeSize(*dtype), &size))
    return fail(path, "shape overflows", error);
  std::string_view payload = bytes.substr(headerStart + headerLength);
  if (payload.size() != size)
    return fail(path,
                "holds " + std::to_string(payload.size()) +
                    " data bytes; shape " + formatShape(tensor.shape) +
                    " of " + std::string(abi::getDTypeName(*dtype)) +
                    " needs " + std::to_string(size),
                error);
  tensor.data.assign(payload.begin(), payload.end());
  return true;
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

bool readTensorProto(std::string_view path, std::string_view bytes,
                     HostTensor &tensor, std::string &error) {
  onnx::TensorProto proto;
  if (bytes.size() > INT32_MAX ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return fail(path, "not a serialized ONNX TensorProto", error);
  std::optional<DType> dtype = getDTypeOfProto(proto.data_type());
  if (!dtype)
    return fail(path,
                "unsupported TensorProto data_type " +
                    std::to_string(proto.data_type()),
                error);
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail(path,
                "TensorProto with external data is not supported as an "
                "input file",
                error);
  tensor = HostTensor();
  tensor.dtype = *dtype;
  uint64_t count = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0)
      return fail(path, "negative dimension " + std::to_string(d), error);
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
      return fail(path, "shape overflows", error);
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
    return fail(path,
                "holds " + std::to_string(tensor.data.size()) +
                    " data bytes; shape " + formatShape(tensor.shape) +
                    " of " + std::string(abi::getDTypeName(*dtype)) +
                    " needs " + std::to_string(count * elementSize),
                error);
  return true;
}
} // namespace

std::string mlc::run::formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

bool mlc::run::readTensorFile(const std::string &path, HostTensor &tensor,
                              std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(path, std::string("cannot read: ") + std::strerror(errno),
                error);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  return readTensorBytes(path, bytes, tensor, error);
}

bool mlc::run::readTensorBytes(const std::string &path, std::string_view bytes,
                               HostTensor &tensor, std::string &error) {
  bool npy = (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) ||
             bytes.substr(0, 6) == "\x93NUMPY";
  return npy ? readNpy(path, bytes, tensor, error)
             : readTensorProto(path, bytes, tensor, error);
}

bool mlc::run::writeNpy(const std::string &path, const HostTensor &tensor,
                        std::string &error) {
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
  std::ofstream os(path, std::ios::binary);
  if (!os)
    return fail(path, std::string("cannot write: ") + std::strerror(errno),
                error);
  os << "\x93NUMPY" << '\x01' << '\x00';
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>((header.size() >> 8) & 0xff);
  os << header;
  os.write(tensor.data.data(), tensor.data.size());
  if (!os)
    return fail(path, "cannot write", error);
  return true;
}
