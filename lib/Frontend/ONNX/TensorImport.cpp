//===- TensorImport.cpp - ONNX tensors and types to MLIR ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "TensorImport.h"
#include "ModelLoader.h"

#include "mlc/Dialect/Graph/IR/GraphDialect.h"
#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;
using llvm::Error;
using llvm::Twine;

namespace {
Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Tensors up to this many elements are `dense` (foldable, printable).
constexpr int64_t kMaxInlineElements = 64;

/// Storage bytes of one element as ONNX lays it out.
int64_t getByteWidth(Type type) {
  return type.isInteger(1) ? 1 : type.getIntOrFloatBitWidth() / 8;
}

/// A name usable as a resource key (the attribute keeps blobs apart even when
/// names repeat: the manager uniques them).
std::string sanitize(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    out += (llvm::isAlnum(c) || c == '_' || c == '.') ? c : '_';
  return out.empty() ? std::string("tensor") : out;
}

/// memcpy of `n` bytes; nothing when `n` is 0 (an empty tensor's buffer
/// may be null, which memcpy may not be given).
void copyBytes(char *out, const void *in, size_t n) {
  if (n)
    std::memcpy(out, in, n);
}

/// The number of values in the typed (non-raw) field that holds
/// `dataType`'s data, or -1 for a type no such field holds.
int64_t getTypedCount(const onnx::TensorProto &t, int32_t dataType) {
  using TP = onnx::TensorProto;
  switch (dataType) {
  case TP::FLOAT:
    return t.float_data_size();
  case TP::DOUBLE:
    return t.double_data_size();
  case TP::INT64:
    return t.int64_data_size();
  case TP::UINT32:
  case TP::UINT64:
    return t.uint64_data_size();
  case TP::INT32:
  case TP::INT16:
  case TP::INT8:
  case TP::UINT16:
  case TP::UINT8:
  case TP::BOOL:
  case TP::FLOAT16:
  case TP::BFLOAT16:
    return t.int32_data_size();
  default:
    return -1;
  }
}

/// Fails unless the typed field for `dataType` holds exactly `count` values.
Error checkTypedData(const onnx::TensorProto &t, int32_t dataType,
                     int64_t count) {
  int64_t have = getTypedCount(t, dataType);
  if (have < 0)
    return makeError("has unsupported data type " + Twine(dataType));
  if (have != count)
    return makeError("holds " + Twine(have) + " values but its shape needs " +
                     Twine(count));
  return Error::success();
}

/// Copies the typed (non-raw) field that holds `type`'s data into `out`
/// (little-endian, `count` elements). Fails when the field has another
/// count.
Error copyTypedData(const onnx::TensorProto &t, int32_t dataType, int64_t count,
                    char *out) {
  if (Error e = checkTypedData(t, dataType, count))
    return e;
  using TP = onnx::TensorProto;
  switch (dataType) {
  case TP::FLOAT:
    copyBytes(out, t.float_data().data(), count * 4);
    return Error::success();
  case TP::DOUBLE:
    copyBytes(out, t.double_data().data(), count * 8);
    return Error::success();
  case TP::INT64:
    copyBytes(out, t.int64_data().data(), count * 8);
    return Error::success();
  case TP::UINT32:
  case TP::UINT64: {
    for (int64_t i = 0; i < count; ++i) {
      uint64_t v = t.uint64_data(i);
      if (dataType == TP::UINT32) {
        uint32_t narrow = static_cast<uint32_t>(v);
        std::memcpy(out + 4 * i, &narrow, 4);
      } else {
        std::memcpy(out + 8 * i, &v, 8);
      }
    }
    return Error::success();
  }
  case TP::INT32:
  case TP::INT16:
  case TP::INT8:
  case TP::UINT16:
  case TP::UINT8:
  case TP::BOOL:
  case TP::FLOAT16:
  case TP::BFLOAT16: {
    int width =
        dataType == TP::INT32 ? 4
        : dataType == TP::INT8 || dataType == TP::UINT8 || dataType == TP::BOOL
            ? 1
            : 2;
    for (int64_t i = 0; i < count; ++i) {
      int32_t v = t.int32_data(i);
      if (dataType == TP::BOOL)
        v = v != 0;
      std::memcpy(out + width * i, &v, width); // little-endian low bytes
    }
    return Error::success();
  }
  default:
    return makeError("has unsupported data type " + Twine(dataType));
  }
}
} // namespace

Type mlc::onnx_import::getElementType(MLIRContext *ctx, int32_t dataType) {
  Builder b(ctx);
  using TP = onnx::TensorProto;
  switch (dataType) {
  case TP::FLOAT:
    return b.getF32Type();
  case TP::DOUBLE:
    return b.getF64Type();
  case TP::FLOAT16:
    return b.getF16Type();
  case TP::BFLOAT16:
    return b.getBF16Type();
  case TP::INT8:
    return b.getIntegerType(8);
  case TP::INT16:
    return b.getIntegerType(16);
  case TP::INT32:
    return b.getIntegerType(32);
  case TP::INT64:
    return b.getIntegerType(64);
  case TP::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case TP::UINT16:
    return b.getIntegerType(16, false);
  case TP::UINT32:
    return b.getIntegerType(32, false);
  case TP::UINT64:
    return b.getIntegerType(64, false);
  case TP::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

std::string mlc::onnx_import::getDataTypeName(int32_t dataType) {
  if (onnx::TensorProto::DataType_IsValid(dataType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(dataType));
  return "data type " + std::to_string(dataType);
}

/// The dims of `tensor`, none negative.
static llvm::Expected<llvm::SmallVector<int64_t>>
importDims(const onnx::TensorProto &tensor) {
  llvm::SmallVector<int64_t> dims;
  for (int64_t d : tensor.dims()) {
    if (d < 0)
      return makeError("has a negative dim " + Twine(d));
    dims.push_back(d);
  }
  return dims;
}

/// A STRING tensor (its `string_data`, never raw or external data) as a
/// DenseStringElementsAttr of `!mlc_graph.string` elements.
static llvm::Expected<ElementsAttr>
importStringTensor(const onnx::TensorProto &tensor, MLIRContext *ctx) {
  auto dimsOrError = importDims(tensor);
  if (!dimsOrError)
    return dimsOrError.takeError();
  llvm::SmallVector<int64_t> dims = std::move(*dimsOrError);
  std::optional<int64_t> count = mlc::graph::getNumElements(dims);
  if (!count || *count != tensor.string_data_size())
    return makeError("has " + Twine(tensor.string_data_size()) +
                     " strings but its shape needs " +
                     (count ? Twine(*count) : Twine("too many")));
  llvm::SmallVector<StringRef> values(tensor.string_data().begin(),
                                      tensor.string_data().end());
  auto type = RankedTensorType::get(dims, mlc::graph::StringType::get(ctx));
  return cast<ElementsAttr>(DenseStringElementsAttr::get(type, values));
}

llvm::Expected<ElementsAttr>
mlc::onnx_import::importTensor(const onnx::TensorProto &tensor,
                               MLIRContext *ctx, llvm::StringRef modelDir,
                               int64_t maxBytes) {
  int32_t dataType = tensor.data_type();
  if (dataType == onnx::TensorProto::STRING)
    return importStringTensor(tensor, ctx);
  Type element = getElementType(ctx, dataType);
  if (!element)
    return makeError("has unsupported element type " +
                     getDataTypeName(dataType));
  auto dimsOrError = importDims(tensor);
  if (!dimsOrError)
    return dimsOrError.takeError();
  llvm::SmallVector<int64_t> dims = std::move(*dimsOrError);
  std::optional<int64_t> count = mlc::graph::getNumElements(dims);
  int64_t width = getByteWidth(element);
  if (!count || *count > std::numeric_limits<int64_t>::max() / width)
    return makeError("has dims whose product overflows");
  uint64_t bytes = static_cast<uint64_t>(*count) * width;
  auto type = RankedTensorType::get(dims, element);

  if (bytes > static_cast<uint64_t>(maxBytes))
    return makeError("holds " + Twine(bytes) +
                     " bytes, over the limit of " + Twine(maxBytes) +
                     " (--max-tensor-bytes)");

  // Where the data is must hold all of it before anything is allocated.
  bool external = tensor.data_location() == onnx::TensorProto::EXTERNAL;
  if (!external && tensor.has_raw_data() && tensor.raw_data().size() != bytes)
    return makeError("has " + Twine(tensor.raw_data().size()) +
                     " bytes of raw_data but its shape and type need " +
                     Twine(bytes));
  if (external) {
    auto ref = parseExternalDataRef(tensor);
    if (!ref)
      return ref.takeError();
    if (Error e = readExternalData(modelDir, *ref, bytes, /*out=*/nullptr))
      return std::move(e);
  } else if (!tensor.has_raw_data()) {
    if (Error e = checkTypedData(tensor, dataType, *count))
      return std::move(e);
  }

  // Fills `out` (exactly `bytes` long) from whichever field holds the data.
  auto fill = [&](char *out) -> Error {
    if (external) {
      auto ref = parseExternalDataRef(tensor);
      if (!ref)
        return ref.takeError();
      return readExternalData(modelDir, *ref, bytes, out);
    }
    if (tensor.has_raw_data()) {
      copyBytes(out, tensor.raw_data().data(), bytes);
      return Error::success();
    }
    return copyTypedData(tensor, dataType, *count, out);
  };

  if (element.isInteger(1)) {
    std::vector<char> raw(bytes);
    if (Error e = fill(raw.data()))
      return std::move(e);
    llvm::SmallVector<bool> values;
    for (char c : raw)
      values.push_back(c != 0);
    return cast<ElementsAttr>(DenseElementsAttr::get(type, values));
  }
  if (*count <= kMaxInlineElements) {
    std::vector<char> raw(bytes);
    if (Error e = fill(raw.data()))
      return std::move(e);
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, raw));
  }
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(bytes, alignof(uint64_t),
                                                       /*dataIsMutable=*/true);
  if (Error e = fill(blob.getMutableData().data()))
    return std::move(e);
  return cast<ElementsAttr>(DenseResourceElementsAttr::get(
      type, sanitize(tensor.name()), std::move(blob)));
}

std::optional<llvm::ArrayRef<char>>
mlc::onnx_import::getConstantBytes(ElementsAttr attr,
                                   std::vector<char> &storage) {
  auto type = dyn_cast<RankedTensorType>(attr.getShapedType());
  if (!type || !type.hasStaticShape() || type.getElementType().isInteger(1) ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  size_t bytes = type.getNumElements() * getByteWidth(type.getElementType());
  ArrayRef<char> raw;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    raw = dense.getRawData();
    if (dense.isSplat() && bytes != raw.size()) {
      storage.resize(bytes);
      for (size_t at = 0; raw.size() && at < bytes; at += raw.size())
        std::memcpy(storage.data() + at, raw.data(), raw.size());
      return ArrayRef<char>(storage);
    }
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    raw = blob->getData();
  }
  if (raw.size() != bytes)
    return std::nullopt;
  return raw;
}

std::optional<std::vector<float>>
mlc::onnx_import::getConstantFloats(ElementsAttr attr) {
  std::vector<char> storage;
  std::optional<ArrayRef<char>> raw = getConstantBytes(attr, storage);
  if (!raw)
    return std::nullopt;
  Type element = attr.getShapedType().getElementType();
  int64_t width = getByteWidth(element);
  size_t count = raw->size() / width;
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    const char *at = raw->data() + i * width;
    uint64_t bits = 0;
    std::memcpy(&bits, at, width);
    if (auto f = dyn_cast<FloatType>(element)) {
      llvm::APFloat v(f.getFloatSemantics(), llvm::APInt(width * 8, bits));
      bool lost;
      v.convert(llvm::APFloat::IEEEsingle(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      values[i] = v.convertToFloat();
    } else if (element.isUnsignedInteger()) {
      values[i] = static_cast<float>(bits);
    } else {
      values[i] = static_cast<float>(
          llvm::APInt(width * 8, bits).getSExtValue());
    }
  }
  return values;
}

ElementsAttr mlc::onnx_import::makeConstant(RankedTensorType type,
                                            llvm::StringRef name,
                                            llvm::function_ref<void(char *)> fill) {
  size_t bytes = type.getNumElements() * getByteWidth(type.getElementType());
  if (type.getNumElements() <= kMaxInlineElements) {
    std::vector<char> raw(bytes);
    fill(raw.data());
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, raw));
  }
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(bytes, alignof(uint64_t),
                                                       /*dataIsMutable=*/true);
  fill(blob.getMutableData().data());
  return cast<ElementsAttr>(
      DenseResourceElementsAttr::get(type, sanitize(name), std::move(blob)));
}
