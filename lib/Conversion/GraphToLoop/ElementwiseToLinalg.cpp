//===- ElementwiseToLinalg.cpp - Elementwise graph ops to linalg.generic --===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One `linalg.generic` per elementwise graph op. Broadcasting is in the
// indexing maps: an operand dim of size 1 against a larger result dim reads
// index 0, missing leading dims are dropped. The scalar body comes from
// arith and math, following ONNX's definition of each op.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlc::graph;

namespace {
/// A float constant of `type`'s semantics.
Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

/// The unsigned form of a signed integer comparison.
arith::CmpIPredicate toUnsigned(arith::CmpIPredicate p) {
  switch (p) {
  case arith::CmpIPredicate::slt:
    return arith::CmpIPredicate::ult;
  case arith::CmpIPredicate::sle:
    return arith::CmpIPredicate::ule;
  case arith::CmpIPredicate::sgt:
    return arith::CmpIPredicate::ugt;
  case arith::CmpIPredicate::sge:
    return arith::CmpIPredicate::uge;
  default:
    return p;
  }
}

/// Builds the scalar computation of `op` on `args` (one per operand), or
/// returns null when this element type is not handled.
Value buildScalar(Operation *op, OpBuilder &b, Location loc, ValueRange args,
                  Type resultElement, bool isUnsigned) {
  Type t = args.empty() ? resultElement : args[0].getType();
  bool isFloat = isa<FloatType>(t);
  bool isInt = t.isSignlessInteger();
  auto fc = [&](double v) { return floatConst(b, loc, t, v); };
  auto sigmoid = [&](Value x) {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, fc(1.0),
                                 arith::AddFOp::create(b, loc, fc(1.0), e));
  };
  auto cmp = [&](arith::CmpFPredicate f, arith::CmpIPredicate i) -> Value {
    if (isFloat)
      return arith::CmpFOp::create(b, loc, f, args[0], args[1]);
    if (isInt)
      return arith::CmpIOp::create(
          b, loc, isUnsigned ? toUnsigned(i) : i, args[0], args[1]);
    return {};
  };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](IdentityOp) { return args[0]; })
      .Case([&](AddOp) -> Value {
        if (isFloat)
          return arith::AddFOp::create(b, loc, args[0], args[1]);
        return isInt ? arith::AddIOp::create(b, loc, args[0], args[1])
                     : Value();
      })
      .Case([&](SubOp) -> Value {
        if (isFloat)
          return arith::SubFOp::create(b, loc, args[0], args[1]);
        return isInt ? arith::SubIOp::create(b, loc, args[0], args[1])
                     : Value();
      })
      .Case([&](MulOp) -> Value {
        if (isFloat)
          return arith::MulFOp::create(b, loc, args[0], args[1]);
        return isInt ? arith::MulIOp::create(b, loc, args[0], args[1])
                     : Value();
      })
      .Case([&](DivOp) -> Value {
        if (isFloat)
          return arith::DivFOp::create(b, loc, args[0], args[1]);
        if (isUnsigned)
          return arith::DivUIOp::create(b, loc, args[0], args[1]);
        return isInt ? arith::DivSIOp::create(b, loc, args[0], args[1])
                     : Value();
      })
      .Case([&](MaxOp) -> Value {
        if (isFloat)
          return arith::MaximumFOp::create(b, loc, args[0], args[1]);
        if (isUnsigned)
          return arith::MaxUIOp::create(b, loc, args[0], args[1]);
        return isInt ? arith::MaxSIOp::create(b, loc, args[0], args[1])
                     : Value();
      })
      .Case([&](MinOp) -> Value {
        if (isFloat)
          return arith::MinimumFOp::create(b, loc, args[0], args[1]);
        if (isUnsigned)
          return arith::MinUIOp::create(b, loc, args[0], args[1]);
        return isInt ? arith::MinSIOp::create(b, loc, args[0], args[1])
                     : Value();
      })
      .Case([&](PowOp) -> Value {
        if (isFloat && args[1].getType() == t)
          return math::PowFOp::create(b, loc, args[0], args[1]);
        if (!isInt)
          return {};
        // Integer powers through f64 (exact for the values ints can hold
        // without overflow), truncated back like C's pow.
        Type f64 = b.getF64Type();
        auto toF64 = [&](Value v) -> Value {
          return isa<FloatType>(v.getType())
                     ? Value(arith::ExtFOp::create(b, loc, f64, v))
                 : isUnsigned ? Value(arith::UIToFPOp::create(b, loc, f64, v))
                              : Value(arith::SIToFPOp::create(b, loc, f64, v));
        };
        Value p = math::PowFOp::create(b, loc, toF64(args[0]), toF64(args[1]));
        return isUnsigned ? Value(arith::FPToUIOp::create(b, loc, t, p))
                          : Value(arith::FPToSIOp::create(b, loc, t, p));
      })
      .Case([&](NegOp) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, args[0]);
        if (!isInt)
          return {};
        Value zero =
            arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, 0));
        return arith::SubIOp::create(b, loc, zero, args[0]);
      })
      .Case([&](AbsOp) -> Value {
        if (isFloat)
          return math::AbsFOp::create(b, loc, args[0]);
        return isInt ? math::AbsIOp::create(b, loc, args[0]) : Value();
      })
      .Case([&](ReluOp) -> Value {
        if (isFloat)
          return arith::MaximumFOp::create(b, loc, args[0], fc(0.0));
        if (!isInt)
          return {};
        Value zero =
            arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, 0));
        return arith::MaxSIOp::create(b, loc, args[0], zero);
      })
      .Case([&](ExpOp) { return math::ExpOp::create(b, loc, args[0]); })
      .Case([&](LogOp) { return math::LogOp::create(b, loc, args[0]); })
      .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, args[0]); })
      .Case([&](TanhOp) { return math::TanhOp::create(b, loc, args[0]); })
      .Case([&](ErfOp) { return math::ErfOp::create(b, loc, args[0]); })
      .Case([&](FloorOp) { return math::FloorOp::create(b, loc, args[0]); })
      .Case([&](CeilOp) { return math::CeilOp::create(b, loc, args[0]); })
      .Case([&](RoundOp) { return math::RoundEvenOp::create(b, loc, args[0]); })
      .Case([&](SinOp) { return math::SinOp::create(b, loc, args[0]); })
      .Case([&](CosOp) { return math::CosOp::create(b, loc, args[0]); })
      .Case([&](TanOp) { return math::TanOp::create(b, loc, args[0]); })
      .Case([&](SinhOp) { return math::SinhOp::create(b, loc, args[0]); })
      .Case([&](CoshOp) { return math::CoshOp::create(b, loc, args[0]); })
      .Case([&](AsinOp) { return math::AsinOp::create(b, loc, args[0]); })
      .Case([&](AcosOp) { return math::AcosOp::create(b, loc, args[0]); })
      .Case([&](AtanOp) { return math::AtanOp::create(b, loc, args[0]); })
      .Case([&](AsinhOp) { return math::AsinhOp::create(b, loc, args[0]); })
      .Case([&](AcoshOp) { return math::AcoshOp::create(b, loc, args[0]); })
      .Case([&](AtanhOp) { return math::AtanhOp::create(b, loc, args[0]); })
      .Case([&](SignOp) -> Value {
        Value x = args[0];
        if (isFloat) {
          Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                            x, fc(0.0));
          Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                            x, fc(0.0));
          return arith::SelectOp::create(
              b, loc, pos, fc(1.0),
              arith::SelectOp::create(b, loc, neg, fc(-1.0), fc(0.0)));
        }
        auto ic = [&](int64_t v) {
          return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
        };
        Value pos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x,
                                          ic(0));
        Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x,
                                          ic(0));
        return arith::SelectOp::create(
            b, loc, pos, ic(1), arith::SelectOp::create(b, loc, neg, ic(-1), ic(0)));
      })
      .Case([&](SoftsignOp) {
        Value d = arith::AddFOp::create(b, loc, fc(1.0),
                                        math::AbsFOp::create(b, loc, args[0]));
        return arith::DivFOp::create(b, loc, args[0], d);
      })
      .Case([&](SeluOp o) {
        double alpha = o.getAlpha().convertToDouble();
        double gamma = o.getGamma().convertToDouble();
        Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                          args[0], fc(0.0));
        Value neg = arith::SubFOp::create(
            b, loc,
            arith::MulFOp::create(b, loc, fc(alpha),
                                  math::ExpOp::create(b, loc, args[0])),
            fc(alpha));
        return arith::MulFOp::create(
            b, loc, fc(gamma),
            arith::SelectOp::create(b, loc, pos, args[0], neg));
      })
      .Case([&](CeluOp o) {
        double alpha = o.getAlpha().convertToDouble();
        Value e = math::ExpM1Op::create(
            b, loc, arith::DivFOp::create(b, loc, args[0], fc(alpha)));
        Value neg = arith::MinimumFOp::create(
            b, loc, fc(0.0), arith::MulFOp::create(b, loc, fc(alpha), e));
        return arith::AddFOp::create(
            b, loc, arith::MaximumFOp::create(b, loc, args[0], fc(0.0)), neg);
      })
      .Case([&](ThresholdedReluOp o) {
        Value above = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OGT, args[0],
            fc(o.getAlpha().convertToDouble()));
        return arith::SelectOp::create(b, loc, above, args[0], fc(0.0));
      })
      .Case([&](ShrinkOp o) -> Value {
        if (!isFloat)
          return {};
        double lambd = o.getLambd().convertToDouble();
        double bias = o.getBias().convertToDouble();
        Value x = args[0];
        Value low = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                          fc(-lambd));
        Value high = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                           x, fc(lambd));
        return arith::SelectOp::create(
            b, loc, low, arith::AddFOp::create(b, loc, x, fc(bias)),
            arith::SelectOp::create(
                b, loc, high, arith::SubFOp::create(b, loc, x, fc(bias)),
                fc(0.0)));
      })
      .Case([&](IsNaNOp) {
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                     args[0], args[0]);
      })
      .Case([&](IsInfOp o) {
        Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          args[0], fc(INFINITY));
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          args[0], fc(-INFINITY));
        Value no = arith::ConstantOp::create(b, loc, b.getI1Type(),
                                             b.getBoolAttr(false));
        return arith::OrIOp::create(b, loc, o.getDetectPositive() ? pos : no,
                                    o.getDetectNegative() ? neg : no);
      })
      .Case([&](ModOp o) -> Value {
        if (isFloat)
          return o.getFmod() ? arith::RemFOp::create(b, loc, args[0], args[1])
                             : Value();
        if (!isInt)
          return {};
        if (isUnsigned)
          return arith::RemUIOp::create(b, loc, args[0], args[1]);
        Value r = arith::RemSIOp::create(b, loc, args[0], args[1]);
        if (o.getFmod())
          return r;
        // Python-style modulo: the result takes the divisor's sign.
        Value zero =
            arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, 0));
        Value nonzero =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
        Value rNeg =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
        Value dNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           args[1], zero);
        Value fix = arith::AndIOp::create(
            b, loc, nonzero, arith::XOrIOp::create(b, loc, rNeg, dNeg));
        return arith::SelectOp::create(
            b, loc, fix, arith::AddIOp::create(b, loc, r, args[1]), r);
      })
      .Case([&](BitShiftOp o) -> Value {
        if (!isUnsigned)
          return {};
        unsigned width = t.getIntOrFloatBitWidth();
        Value shifted =
            o.getLeft()
                ? Value(arith::ShLIOp::create(b, loc, args[0], args[1]))
                : Value(arith::ShRUIOp::create(b, loc, args[0], args[1]));
        // LLVM's shifts by >= the width are poison; ONNX's give 0.
        Value tooFar = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::uge, args[1],
            arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, width)));
        return arith::SelectOp::create(
            b, loc, tooFar,
            arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, 0)),
            shifted);
      })
      .Case([&](PReluOp) -> Value {
        if (!isFloat)
          return {};
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          args[0], fc(0.0));
        return arith::SelectOp::create(
            b, loc, neg, arith::MulFOp::create(b, loc, args[0], args[1]),
            args[0]);
      })
      .Case([&](ReciprocalOp) {
        return arith::DivFOp::create(b, loc, fc(1.0), args[0]);
      })
      .Case([&](SigmoidOp) { return sigmoid(args[0]); })
      .Case([&](SoftplusOp) {
        return math::Log1pOp::create(b, loc,
                                     math::ExpOp::create(b, loc, args[0]));
      })
      .Case([&](LeakyReluOp o) {
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          args[0], fc(0.0));
        Value scaled = arith::MulFOp::create(
            b, loc, args[0], fc(o.getAlpha().convertToDouble()));
        return arith::SelectOp::create(b, loc, neg, scaled, args[0]);
      })
      .Case([&](EluOp o) {
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          args[0], fc(0.0));
        Value em1 = math::ExpM1Op::create(b, loc, args[0]);
        Value scaled = arith::MulFOp::create(
            b, loc, em1, fc(o.getAlpha().convertToDouble()));
        return arith::SelectOp::create(b, loc, neg, scaled, args[0]);
      })
      .Case([&](HardSigmoidOp o) {
        Value lin = arith::AddFOp::create(
            b, loc,
            arith::MulFOp::create(b, loc, args[0],
                                  fc(o.getAlpha().convertToDouble())),
            fc(o.getBeta().convertToDouble()));
        return arith::MinimumFOp::create(
            b, loc, arith::MaximumFOp::create(b, loc, lin, fc(0.0)), fc(1.0));
      })
      .Case([&](HardSwishOp) {
        Value lin = arith::AddFOp::create(
            b, loc, arith::MulFOp::create(b, loc, args[0], fc(1.0 / 6.0)),
            fc(0.5));
        Value hs = arith::MinimumFOp::create(
            b, loc, arith::MaximumFOp::create(b, loc, lin, fc(0.0)), fc(1.0));
        return arith::MulFOp::create(b, loc, args[0], hs);
      })
      .Case([&](GeluOp o) -> Value {
        Value x = args[0];
        if (o.getApproximate()) {
          // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
          Value x3 = arith::MulFOp::create(b, loc, x,
                                           arith::MulFOp::create(b, loc, x, x));
          Value inner = arith::MulFOp::create(
              b, loc, fc(std::sqrt(2.0 / M_PI)),
              arith::AddFOp::create(
                  b, loc, x, arith::MulFOp::create(b, loc, x3, fc(0.044715))));
          Value t1 = arith::AddFOp::create(b, loc, fc(1.0),
                                           math::TanhOp::create(b, loc, inner));
          return arith::MulFOp::create(
              b, loc, arith::MulFOp::create(b, loc, x, fc(0.5)), t1);
        }
        Value e = math::ErfOp::create(
            b, loc, arith::MulFOp::create(b, loc, x, fc(M_SQRT1_2)));
        Value t1 = arith::AddFOp::create(b, loc, fc(1.0), e);
        return arith::MulFOp::create(
            b, loc, arith::MulFOp::create(b, loc, x, fc(0.5)), t1);
      })
      .Case([&](ClipOp o) -> Value {
        if (!isFloat && !isInt)
          return {};
        Value v = args[0];
        size_t next = 1;
        if (o.getMin())
          v = isFloat      ? Value(arith::MaximumFOp::create(b, loc, v, args[next++]))
              : isUnsigned ? Value(arith::MaxUIOp::create(b, loc, v, args[next++]))
                           : Value(arith::MaxSIOp::create(b, loc, v, args[next++]));
        if (o.getMax())
          v = isFloat      ? Value(arith::MinimumFOp::create(b, loc, v, args[next]))
              : isUnsigned ? Value(arith::MinUIOp::create(b, loc, v, args[next]))
                           : Value(arith::MinSIOp::create(b, loc, v, args[next]));
        return v;
      })
      .Case([&](EqualOp) {
        return cmp(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq);
      })
      .Case([&](LessOp) {
        return cmp(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
      })
      .Case([&](LessOrEqualOp) {
        return cmp(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle);
      })
      .Case([&](GreaterOp) {
        return cmp(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt);
      })
      .Case([&](GreaterOrEqualOp) {
        return cmp(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge);
      })
      .Case([&](AndOp) {
        return arith::AndIOp::create(b, loc, args[0], args[1]);
      })
      .Case(
          [&](OrOp) { return arith::OrIOp::create(b, loc, args[0], args[1]); })
      .Case([&](XorOp) {
        return arith::XOrIOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](NotOp) {
        Value one = arith::ConstantOp::create(b, loc, b.getI1Type(),
                                              b.getBoolAttr(true));
        return arith::XOrIOp::create(b, loc, args[0], one);
      })
      .Case([&](WhereOp) {
        return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
      })
      .Default([](Operation *) { return Value(); });
}

/// True for the ops buildScalar knows.
bool isElementwise(Operation *op) {
  return isa<IdentityOp, AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, NegOp,
             AbsOp, ReluOp, ExpOp, LogOp, SqrtOp, TanhOp, ErfOp, FloorOp,
             CeilOp, RoundOp, SinOp, CosOp, TanOp, ReciprocalOp, SigmoidOp,
             SoftplusOp, LeakyReluOp, EluOp, HardSigmoidOp, HardSwishOp, GeluOp,
             ClipOp, EqualOp, LessOp, LessOrEqualOp, GreaterOp,
             GreaterOrEqualOp, AndOp, OrOp, XorOp, NotOp, WhereOp, SinhOp,
             CoshOp, AsinOp, AcosOp, AtanOp, AsinhOp, AcoshOp, AtanhOp, SignOp,
             SoftsignOp, SeluOp, CeluOp, ThresholdedReluOp, ShrinkOp, IsNaNOp,
             IsInfOp, ModOp, PReluOp, BitShiftOp>(op);
}

/// True when buildScalar handles `op` on elements of type `t` (the type of
/// the operands that carry data).
bool isSupportedElementType(Operation *op, Type t) {
  if (isa<FloatType>(t))
    return !isa<AndOp, OrOp, XorOp, NotOp>(op) &&
           !(isa<ModOp>(op) && !cast<ModOp>(op).getFmod());
  if (t.isInteger(1))
    return isa<IdentityOp, AndOp, OrOp, XorOp, NotOp, WhereOp, EqualOp>(op);
  if (t.isUnsignedInteger())
    return isa<IdentityOp, AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, EqualOp,
               LessOp, LessOrEqualOp, GreaterOp, GreaterOrEqualOp, WhereOp,
               ModOp, ClipOp, PowOp, BitShiftOp>(op);
  if (t.isSignlessInteger())
    return isa<IdentityOp, AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, NegOp,
               AbsOp, ReluOp, EqualOp, LessOp, LessOrEqualOp, GreaterOp,
               GreaterOrEqualOp, WhereOp, SignOp, ModOp, ClipOp, PowOp>(op);
  return false;
}

/// The run-time sizes of `result`'s dynamic dims: the size of a dim of an
/// operand that does not broadcast there. Every such operand dim must have
/// that size: a dim known only at run time is not broadcast, so a run-time
/// size that differs (a 1 against 5) fails a run-time check, and the
/// result is then empty. `checked` says whether there is such a check.
FailureOr<SmallVector<Value>> getRunTimeSizes(OpBuilder &b, Operation *op,
                                              ArrayRef<Value> operands,
                                              RankedTensorType result,
                                              RankedTensorType inferred,
                                              bool &checked) {
  Location loc = op->getLoc();
  int64_t rank = result.getRank();
  Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
  SmallVector<Value> sizes;
  checked = false;
  for (int64_t d = 0; d < rank; ++d) {
    if (!result.isDynamicDim(d))
      continue;
    SmallVector<Value> candidates;
    // A size shape inference knew (the dim is computed at run time here
    // because an operand's is known only then).
    if (!inferred.isDynamicDim(d))
      candidates.push_back(
          arith::ConstantIndexOp::create(b, loc, inferred.getDimSize(d)));
    for (Value v : operands) {
      auto type = cast<RankedTensorType>(v.getType());
      int64_t i = d - (rank - type.getRank());
      if (i < 0 || type.getDimSize(i) == 1)
        continue;
      candidates.push_back(type.isDynamicDim(i)
                               ? tensor::DimOp::create(b, loc, v, i).getResult()
                               : arith::ConstantIndexOp::create(
                                     b, loc, type.getDimSize(i))
                                     .getResult());
    }
    if (candidates.empty()) {
      sizes.push_back(arith::ConstantIndexOp::create(b, loc, 1));
      continue;
    }
    for (Value other : ArrayRef<Value>(candidates).drop_front()) {
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                candidates.front(), other));
      checked = true;
    }
    sizes.push_back(candidates.front());
  }
  if (!checked)
    return sizes;
  std::string node = "?";
  if (auto name = dyn_cast<NameLoc>(loc))
    node = name.getName().str();
  cf::AssertOp::create(b, loc, ok,
                       "node '" + node + "' (" +
                           op->getName().getStringRef().drop_front(10).str() +
                           "): operands' dims known only at run time differ "
                           "(broadcasting such a dim is not supported)");
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (Value &size : sizes)
    size = arith::SelectOp::create(b, loc, ok, size, zero);
  return sizes;
}

/// `operands` cut to the checked run-time `sizes` of the result's dynamic
/// dims (each operand dim that `maps` does not broadcast). Where the check
/// fails the sizes are 0, so the loop nest reads nothing; and no operand
/// keeps a static size at those dims, from which canonicalization would
/// assume the sizes agree (linalg requires it) and fold the check away.
SmallVector<Value> sliceToCheckedSizes(OpBuilder &b, Location loc,
                                       ArrayRef<Value> operands,
                                       ArrayRef<AffineMap> maps,
                                       RankedTensorType result,
                                       ArrayRef<Value> sizes) {
  SmallVector<Value> runTimeSize(result.getRank());
  for (int64_t d = 0, k = 0; d < result.getRank(); ++d)
    if (result.isDynamicDim(d))
      runTimeSize[d] = sizes[k++];
  SmallVector<Value> sliced;
  for (auto [v, map] : llvm::zip(operands, maps)) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
        strides(type.getRank(), b.getIndexAttr(1)), cut;
    SmallVector<int64_t> shape;
    bool changed = false;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
      if (dim && runTimeSize[dim.getPosition()]) {
        cut.push_back(runTimeSize[dim.getPosition()]);
        shape.push_back(ShapedType::kDynamic);
        changed = true;
        continue;
      }
      cut.push_back(type.isDynamicDim(i)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, v, i)
                                           .getResult())
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(i))));
      shape.push_back(type.getDimSize(i));
    }
    sliced.push_back(
        changed ? tensor::ExtractSliceOp::create(
                      b, loc,
                      RankedTensorType::get(shape, type.getElementType()), v,
                      offsets, cut, strides)
                      .getResult()
                : v);
  }
  return sliced;
}

struct ElementwiseToGeneric : ConversionPattern {
  ElementwiseToGeneric(MLIRContext *ctx)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isElementwise(op))
      return failure();
    Value data = isa<WhereOp>(op) ? operands[1] : operands[0];
    Type dataElement = cast<TensorType>(data.getType()).getElementType();
    if (!isSupportedElementType(op, dataElement))
      return rewriter.notifyMatchFailure(op, "element type not supported");
    bool isUnsigned = dataElement.isUnsignedInteger();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked result");
    int64_t rank = resultType.getRank();
    Location loc = op->getLoc();
    SmallVector<AffineMap> maps;
    // A dim of size 1 broadcasts; a dim known only at run time does not
    // (dims read at run time: see below).
    for (Value v : operands) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || type.getRank() > rank)
        return rewriter.notifyMatchFailure(op, "needs ranked operands");
      int64_t offset = rank - type.getRank();
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < type.getRank(); ++i) {
        bool broadcast =
            type.getDimSize(i) == 1 && resultType.getDimSize(i + offset) != 1;
        exprs.push_back(broadcast ? rewriter.getAffineConstantExpr(0)
                                  : rewriter.getAffineDimExpr(i + offset));
      }
      maps.push_back(AffineMap::get(rank, 0, exprs, rewriter.getContext()));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    // A static dim of the result where an operand's is known only at run
    // time is computed at run time, checked against the operand's (which
    // is not broadcast): otherwise a 1 there would be read as the whole
    // dim, out of its bounds.
    RankedTensorType inferred = resultType;
    SmallVector<int64_t> shape(resultType.getShape());
    for (Value v : operands) {
      auto type = cast<RankedTensorType>(v.getType());
      int64_t offset = rank - type.getRank();
      for (int64_t i = 0; i < type.getRank(); ++i)
        if (type.isDynamicDim(i))
          shape[i + offset] = ShapedType::kDynamic;
    }
    resultType = RankedTensorType::get(shape, resultType.getElementType());
    SmallVector<Value> dynamicSizes;
    SmallVector<Value> inputs(operands);
    if (!resultType.hasStaticShape()) {
      bool checked = false;
      FailureOr<SmallVector<Value>> sizes = getRunTimeSizes(
          rewriter, op, operands, resultType, inferred, checked);
      if (failed(sizes))
        return rewriter.notifyMatchFailure(op, "a dim without a source");
      dynamicSizes = std::move(*sizes);
      if (checked)
        inputs = sliceToCheckedSizes(rewriter, loc, operands, maps,
                                     resultType, dynamicSizes);
    }
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType(),
                                         dynamicSizes);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          // arith works on signless integers: unsigned values are viewed as
          // signless of the same width (free once lowered to LLVM) and the
          // unsigned forms of division, comparison, min/max are used.
          using mlc::detail::getSignlessType;
          auto view = [&](Value v, Type type) {
            return mlc::detail::viewAs(b, l, v, type);
          };
          SmallVector<Value> scalars;
          for (Value a : args.drop_back())
            scalars.push_back(view(a, getSignlessType(a.getType())));
          Type resultElement = resultType.getElementType();
          // isSupportedElementType guarantees a body.
          Value v = buildScalar(op, b, l, scalars, getSignlessType(resultElement),
                                isUnsigned);
          linalg::YieldOp::create(b, l, view(v, resultElement));
        });
    rewriter.replaceOp(op, mlc::detail::castTo(rewriter, loc,
                                               generic.getResult(0), inferred));
    return success();
  }
};
} // namespace

void mlc::populateGraphElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ElementwiseToGeneric>(patterns.getContext());
}
