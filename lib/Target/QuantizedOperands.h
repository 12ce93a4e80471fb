//===- QuantizedOperands.h - Contractions of dequantized integers -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The integers behind a matmul's or convolution's float operands, as the
// strategies of the targets that compute in integers (the NPU's int8 matrix
// unit, the CPU's integer multiply-adds) see them:
//
//   (sa (qa - za)) x (sw qw) = sa sw (sum (qa - za) qw)
//
// for activations qa dequantized per tensor (a DequantizeLinear, through
// reshapes and a zero pad) and constant int8 weights qw with a zero point
// of 0, per tensor or per output channel (ONNX Runtime's quantizer writes
// both so). MatMulInteger, ConvInteger and the QLinear ops widen instead of
// dequantizing; their result is the int32 sums.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_QUANTIZEDOPERANDS_H
#define MLC_LIB_TARGET_QUANTIZEDOPERANDS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlc::target {

/// The integers of a constant integer tensor, as int64 (unsigned types
/// zero-extended), or nothing.
std::optional<llvm::SmallVector<int64_t>> getIntegers(mlir::Value value);

/// The values of a constant f32 tensor, or nothing.
std::optional<llvm::SmallVector<float>> getFloats(mlir::Value value);

/// Whether `init` is a linalg.fill of zero.
bool isZeroFill(mlir::Value init);

/// `v` as `type` where only the signedness differs (ui8 to i8: the same
/// bits), through an unrealized conversion cast.
mlir::Value castTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                   mlir::Type type);

/// Activations: 8-bit integers dequantized with one constant scale and
/// zero point.
struct Activations {
  mlir::Value integers;
  bool isUnsigned = false;
  float scale = 1;
  int64_t zeroPoint = 0;
  /// Widened, not dequantized: the consumer works on int32.
  bool widened = false;
  /// A widening's zero point known at run time only (a one-element tensor,
  /// DynamicQuantizeLinear's), in place of `zeroPoint`.
  mlir::Value zeroPointValue;
};

/// The 8-bit integers `v` dequantizes per tensor (a DequantizeLinear, or a
/// widening with a zero point), or nothing with the reason in `why`. With
/// `runTimeZeroPoint`, a widening's zero point may be known at run time only.
std::optional<Activations> getActivations(mlir::Value v, std::string &why,
                                          bool runTimeZeroPoint = false);

/// The integers of a matmul's or convolution's operands: 8-bit activations
/// with one scale and zero point, and constant int8 weights as the matmul's
/// [K, N] with a scale per column.
struct QuantizedOperands {
  mlir::Value activations;
  bool activationsUnsigned = false;
  float activationScale = 1;
  int64_t activationZeroPoint = 0;
  /// With wide matching: the activations' zero point known at run time only
  /// (a one-element tensor), in place of `activationZeroPoint`.
  mlir::Value activationZeroPointValue;
  /// The weights minus their zero points: int8 values, or with wide
  /// matching (uint8 weights or zero points other than 0) within
  /// [-255, 255].
  llvm::SmallVector<int16_t> weights;
  llvm::SmallVector<float> weightScales;
  /// The operands were widened by their zero points (MatMulInteger,
  /// ConvInteger, QLinear*), not dequantized: the result is the int32 sums.
  bool integerResult = false;
};

/// A linalg.matmul whose operands are dequantized integers; `activations`
/// before the reshapes that make them [M, K].
struct QuantizedMatmul : QuantizedOperands {
  llvm::SmallVector<mlir::Operation *> reshapes;
  int64_t m = 0, n = 0, k = 0;
};

/// The integer form of `matmul`, or nothing with the reason in `why`: its
/// lhs a per-tensor DequantizeLinear of int8 or uint8 values (through
/// tensor.collapse_shape, expand_shape and reshape ops), its rhs a
/// DequantizeLinear of constant int8 weights with a zero point of 0 (per
/// tensor or per column, directly or under a [1, 0] transpose), its init
/// zero.
/// With `wide` (a target that computes in i16 pairs), weights may be uint8
/// or have constant zero points, and a widening's activation zero point may
/// be known at run time only.
std::optional<QuantizedMatmul> matchQuantizedMatmul(mlir::linalg::MatmulOp op,
                                                    std::string &why,
                                                    bool wide = false);

/// A batch-1 convolution of dequantized integers: its activations (before
/// a zero pad) per tensor, its filter constant int8 with a zero point of 0
/// (per tensor or per output channel), as the matmul of the im2col matrix
/// [pixels, depth] and the transposed filter [depth, filters] (`weights`).
struct QuantizedConvolution : QuantizedOperands {
  /// The zero pad of the float input, or none.
  mlir::tensor::PadOp pad;
  int64_t pixels = 0, filters = 0, depth = 0;
};

std::optional<QuantizedConvolution>
matchQuantizedConvolution(mlir::linalg::Conv2DNchwFchwOp conv,
                          std::string &why, bool wide = false);

/// The im2col matrix of `conv` read from `input` (of the shape of its
/// input, of any element type): [OH * OW, C * KH * KW] of `elementType`,
/// truncating floats.
mlir::Value buildIm2col(mlir::OpBuilder &b, mlir::linalg::Conv2DNchwFchwOp conv,
                        mlir::Value input, mlir::Type elementType);

/// `product` ([OH*OW, F], f32 or int32) as `conv`'s NCHW result, as
/// buildConvolutionResult makes it.
mlir::Value buildTransposeBack(mlir::OpBuilder &b,
                               mlir::linalg::Conv2DNchwFchwOp conv,
                               mlir::Value product, mlir::Value scales,
                               mlir::Value offsets = nullptr);

/// sa * sw[c] for each of `weightScales`, as an f32 constant [c].
mlir::Value buildProductScales(mlir::OpBuilder &b, mlir::Location loc,
                               float activationScale,
                               llvm::ArrayRef<float> weightScales);

/// A contraction's result of `resultType` (f32 or int32) from its int32
/// `sums` (or f32 or bf16 products) read through `sumsMap` (from the result's
/// dims): plus `offsets[c]` (int32) when given, int32 converted for an f32
/// result, times `scales[c]` when given, plus `addend` (of `resultType`,
/// read as it is) when given, c being result dim `channelDim`.
mlir::Value buildSumsResult(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value sums, mlir::AffineMap sumsMap,
                            mlir::RankedTensorType resultType,
                            unsigned channelDim, mlir::Value offsets,
                            mlir::Value scales, mlir::Value addend);

/// `conv`'s NCHW result (f32 or int32) from `product` (f32 or int32) read
/// through `productMap` (from the result's (n, f, y, x)): plus
/// `offsets[f]` (int32) when given, int32 converted for an f32 result,
/// times `scales[f]` when given, plus `conv`'s init unless it is zero.
mlir::Value buildConvolutionResult(mlir::OpBuilder &b,
                                   mlir::linalg::Conv2DNchwFchwOp conv,
                                   mlir::Value product,
                                   mlir::AffineMap productMap,
                                   mlir::Value scales,
                                   mlir::Value offsets = nullptr);

/// `value` reshaped as `reshapes` (collapse_shape, expand_shape, reshape
/// ops of another element type) reshaped their operands, in order.
mlir::Value applyReshapes(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value,
                          llvm::ArrayRef<mlir::Operation *> reshapes);

} // namespace mlc::target

#endif // MLC_LIB_TARGET_QUANTIZEDOPERANDS_H
