//===- BlockQuantOps.cpp - Block-quantized weights -----------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// MatMulNBits and GatherBlockQuantized: weights of 2, 4 or 8 bits in blocks
// along the reduction (or quantized) axis, each block with its own scale and
// zero point, as ONNX Runtime's quantizers (MatMulNBitsQuantizer, GenAI's
// model builder) write them. The weights are constants, so they are
// dequantized here, once, into a constant of the activations' type, and the
// node becomes a MatMul or a Gather on it: the packed float kernels then
// run it, at four to eight times the weights' bytes in memory.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"
#include "TensorImport.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
/// The constant behind `v`, or null.
ElementsAttr getConstant(Value v) {
  ElementsAttr attr;
  if (v && matchPattern(v, m_Constant(&attr)))
    return attr;
  return {};
}

/// Quantized values of `bits` bits packed low bits first into bytes: value
/// `i` of a block is bits [(i % perByte) * bits, ...) of byte i / perByte.
struct PackedValues {
  ArrayRef<char> bytes;
  int64_t bits;
  int64_t at(int64_t byteOffset, int64_t i) const {
    int64_t perByte = 8 / bits;
    auto byte = static_cast<uint8_t>(bytes[byteOffset + i / perByte]);
    return (byte >> ((i % perByte) * bits)) & ((1 << bits) - 1);
  }
};

/// A node's scales and zero points, one per (row, block): zero points
/// either packed like the weights (a row's blocks padded to whole bytes) or
/// floats; absent ones are the middle of the range, 2^(bits-1).
struct BlockParams {
  std::vector<float> scales, floatZeros;
  std::vector<char> zeroStorage;
  ArrayRef<char> packedZeros;
  int64_t bits = 4, blocksPerRow = 0;

  float scale(int64_t row, int64_t block) const {
    return scales[row * blocksPerRow + block];
  }
  float zero(int64_t row, int64_t block) const {
    if (!floatZeros.empty())
      return floatZeros[row * blocksPerRow + block];
    if (packedZeros.empty())
      return static_cast<float>(1 << (bits - 1));
    int64_t rowBytes = (blocksPerRow * bits + 7) / 8;
    return static_cast<float>(
        PackedValues{packedZeros, bits}.at(row * rowBytes, block));
  }
};

/// Reads the scales and zero points of `rows` x `blocksPerRow` blocks.
LogicalResult readBlockParams(NodeImporter &n, Value scales, Value zeros,
                              int64_t rows, int64_t blocksPerRow, int64_t bits,
                              BlockParams &params) {
  params.bits = bits;
  params.blocksPerRow = blocksPerRow;
  ElementsAttr scaleAttr = getConstant(scales);
  std::optional<std::vector<float>> scaleValues =
      scaleAttr ? getConstantFloats(scaleAttr) : std::nullopt;
  if (!scaleValues)
    return n.fail("scales must be a constant (an initializer)");
  if (static_cast<int64_t>(scaleValues->size()) != rows * blocksPerRow)
    return n.fail("scales hold " + llvm::Twine(scaleValues->size()) +
                  " values, expected " + llvm::Twine(rows * blocksPerRow));
  params.scales = std::move(*scaleValues);
  if (!zeros)
    return success();
  ElementsAttr zeroAttr = getConstant(zeros);
  if (!zeroAttr)
    return n.fail("zero_points must be a constant (an initializer)");
  Type element = zeroAttr.getShapedType().getElementType();
  if (isa<FloatType>(element)) {
    std::optional<std::vector<float>> values = getConstantFloats(zeroAttr);
    if (!values || static_cast<int64_t>(values->size()) != rows * blocksPerRow)
      return n.fail("float zero_points must hold one value per block (" +
                    llvm::Twine(rows * blocksPerRow) + ")");
    params.floatZeros = std::move(*values);
    return success();
  }
  if (!element.isUnsignedInteger(8))
    return n.fail("zero_points must be uint8 (packed) or of the scales' type");
  std::optional<ArrayRef<char>> bytes =
      getConstantBytes(zeroAttr, params.zeroStorage);
  int64_t rowBytes = (blocksPerRow * bits + 7) / 8;
  if (!bytes || static_cast<int64_t>(bytes->size()) != rows * rowBytes)
    return n.fail("packed zero_points must hold " +
                  llvm::Twine(rows * rowBytes) + " bytes");
  params.packedZeros = *bytes;
  return success();
}

/// Checks `bits` and `block_size` as ONNX Runtime's kernels accept them.
LogicalResult checkBlocking(NodeImporter &n, int64_t bits, int64_t blockSize) {
  if (bits != 2 && bits != 4 && bits != 8)
    return n.fail("bits must be 2, 4 or 8, got " + llvm::Twine(bits));
  if (blockSize < 16 || (blockSize & (blockSize - 1)))
    return n.fail("block_size must be a power of two of at least 16, got " +
                  llvm::Twine(blockSize));
  return success();
}

/// The constant `values` (f32, row-major `shape`) as a value of `element`.
Value floatConstant(NodeImporter &n, ArrayRef<int64_t> shape,
                    const std::vector<float> &values, Type element) {
  auto f32 = RankedTensorType::get(shape, n.builder.getF32Type());
  ElementsAttr attr =
      makeConstant(f32, n.node.name() + "_dequantized", [&](char *out) {
        std::memcpy(out, values.data(), values.size() * sizeof(float));
      });
  Value constant = ConstantOp::create(n.builder, n.loc, f32, attr);
  if (element.isF32())
    return constant;
  return CastOp::create(n.builder, n.loc, f32.clone(element), constant);
}

/// MatMulNBits: Y = A x dequantize(B)^T (+ bias). B is [N, blocks, bytes
/// per block]; the weight of column n at k is
/// (q - zero(n, block)) * scale(n, block), block = k / block_size or
/// g_idx[k].
LogicalResult convertMatMulNBits(NodeImporter &n) {
  if (failed(n.expectInputs(3, 6)))
    return failure();
  int64_t k = n.getInt("K", 0), cols = n.getInt("N", 0);
  int64_t bits = n.getInt("bits", 4), blockSize = n.getInt("block_size", 0);
  if (k <= 0 || cols <= 0)
    return n.fail("attributes K and N must be positive");
  if (failed(checkBlocking(n, bits, blockSize)))
    return failure();
  if (k > (int64_t(1) << 24) || cols > (int64_t(1) << 24) ||
      k * cols > (int64_t(1) << 33))
    return n.fail("K x N = " + llvm::Twine(k) + " x " + llvm::Twine(cols) +
                  " is too large");
  int64_t blocks = (k + blockSize - 1) / blockSize;
  int64_t blockBytes = blockSize * bits / 8;
  Value a = n.getInput(0);
  Type element = NodeImporter::getElementType(a);
  if (!isa<FloatType>(element))
    return n.fail("A must be a float tensor");

  ElementsAttr packed = getConstant(n.getInput(1));
  std::vector<char> storage;
  std::optional<ArrayRef<char>> bytes =
      packed ? getConstantBytes(packed, storage) : std::nullopt;
  if (!bytes)
    return n.fail("B must be a constant (an initializer): weights computed at "
                  "run time are not supported");
  if (!packed.getShapedType().getElementType().isUnsignedInteger(8) ||
      static_cast<int64_t>(bytes->size()) != cols * blocks * blockBytes)
    return n.fail("B must be uint8 [N, blocks, block_size * bits / 8] = [" +
                  llvm::Twine(cols) + ", " + llvm::Twine(blocks) + ", " +
                  llvm::Twine(blockBytes) + "]");
  BlockParams params;
  if (failed(readBlockParams(n, n.getInput(2), n.getInput(3), cols, blocks,
                             bits, params)))
    return failure();
  std::vector<int64_t> blockOf(k);
  for (int64_t i = 0; i < k; ++i)
    blockOf[i] = i / blockSize;
  if (Value gIdx = n.getInput(4)) {
    ElementsAttr attr = getConstant(gIdx);
    std::optional<std::vector<float>> groups =
        attr ? getConstantFloats(attr) : std::nullopt;
    if (!groups || static_cast<int64_t>(groups->size()) != k)
      return n.fail("g_idx must be a constant of K values");
    for (int64_t i = 0; i < k; ++i) {
      int64_t g = static_cast<int64_t>((*groups)[i]);
      if (g < 0 || g >= blocks)
        return n.fail("g_idx[" + llvm::Twine(i) + "] = " + llvm::Twine(g) +
                      " is not a block index");
      blockOf[i] = g;
    }
  }

  // The weight as [K, N], so that Y = A x W.
  std::vector<float> weight(k * cols);
  PackedValues values{*bytes, bits};
  for (int64_t col = 0; col < cols; ++col)
    for (int64_t i = 0; i < k; ++i) {
      int64_t block = blockOf[i];
      int64_t q =
          values.at((col * blocks + i / blockSize) * blockBytes, i % blockSize);
      weight[i * cols + col] =
          (static_cast<float>(q) - params.zero(col, block)) *
          params.scale(col, block);
    }
  Value w = floatConstant(n, {k, cols}, weight, element);
  Value y = n.make<MatMulOp>(a, w);
  if (Value bias = n.getInput(5))
    y = n.make<AddOp>(y, bias);
  return n.finish({y});
}

/// GatherBlockQuantized with uint8 data (2, 4 or 8 bits packed along the
/// last dim, which is the quantized one; gathered along dim 0): the table
/// is dequantized once and gathered in the scales' type.
LogicalResult convertGatherBlockQuantized(NodeImporter &n) {
  if (failed(n.expectInputs(3, 4)))
    return failure();
  int64_t bits = n.getInt("bits", 4), blockSize = n.getInt("block_size", 128);
  if (failed(checkBlocking(n, bits, blockSize)))
    return failure();
  ElementsAttr packed = getConstant(n.getInput(0));
  auto type = packed ? dyn_cast<RankedTensorType>(packed.getShapedType())
                     : RankedTensorType();
  if (!type || !type.getElementType().isUnsignedInteger(8) ||
      type.getRank() < 2)
    return n.fail("data must be a constant uint8 tensor of rank 2 or more "
                  "(int4/uint4 data are not supported)");
  int64_t rank = type.getRank();
  int64_t gatherAxis = n.getInt("gather_axis", 0);
  int64_t quantizeAxis = n.getInt("quantize_axis", 1);
  if (gatherAxis < 0)
    gatherAxis += rank;
  if (quantizeAxis < 0)
    quantizeAxis += rank;
  if (gatherAxis != 0 || quantizeAxis != rank - 1)
    return n.fail("uint8 data must be gathered along dim 0 and quantized "
                  "along the last dim");
  Type element = NodeImporter::getElementType(n.getInput(2));
  if (!isa<FloatType>(element))
    return n.fail("scales must be float");
  int64_t cols = type.getShape().back() * (8 / bits);
  int64_t rows = type.getNumElements() / type.getShape().back();
  if (rows * cols > (int64_t(1) << 32))
    return n.fail("the table is too large to dequantize");
  int64_t blocks = (cols + blockSize - 1) / blockSize;
  std::vector<char> storage;
  std::optional<ArrayRef<char>> bytes = getConstantBytes(packed, storage);
  if (!bytes)
    return n.fail("data holds no readable bytes");
  BlockParams params;
  if (failed(readBlockParams(n, n.getInput(2), n.getInput(3), rows, blocks,
                             bits, params)))
    return failure();
  std::vector<float> table(rows * cols);
  PackedValues values{*bytes, bits};
  int64_t rowBytes = type.getShape().back();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      table[r * cols + c] = (static_cast<float>(values.at(r * rowBytes, c)) -
                             params.zero(r, c / blockSize)) *
                            params.scale(r, c / blockSize);
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = cols;
  Value dequantized = floatConstant(n, shape, table, element);
  return n.emit<GatherOp>(dequantized, n.getInput(1),
                          n.builder.getI64IntegerAttr(0));
}
} // namespace

void mlc::onnx_import::addBlockQuantConverters(ConverterTable &t) {
  t.add("com.microsoft.MatMulNBits", 1, convertMatMulNBits);
  t.add("com.microsoft.GatherBlockQuantized", 1, convertGatherBlockQuantized);
}
