//===- SpectrogramToLinalg.cpp - STFT and MelWeightMatrix -----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The signal ops whose result sizes their scalar operands decide, read when
// the model runs:
//
// STFT: frames of L = frame_length (else the window's length) samples every
// frame_step, each multiplied by the window and transformed by the DFT's
// definition, summed in f64 with the angle reduced mod L in integers (as
// SignalToLinalg's DFT): [batch, (length - L) / step + 1, L / 2 + 1 when
// onesided else L, 2].
//
// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] triangular filters,
// with ONNX's definition (the mel scale split into num_mel_bins + 2 steps,
// edges floored to DFT bins); each element evaluates its filter's edges in
// f64.
//
//===----------------------------------------------------------------------===//

#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::detail;

namespace {
/// A scalar operand as i64.
Value scalarI64(OpBuilder &b, Location loc, Value tensor) {
  Value v = extractScalar(b, loc, tensor);
  return toI64(b, loc, v, getElementTypeOrSelf(tensor.getType()));
}

struct STFTLowering : OpConversionPattern<STFTOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(STFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto signal = getStaticType(adaptor.getSignal());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!signal || signal.getRank() != 3 || !result || result.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs a static [B, N, 1|2]");
    int64_t channels = signal.getDimSize(2);
    if (channels != 1 && channels != 2)
      return rewriter.notifyMatchFailure(op, "signal is real or complex");
    Value window = adaptor.getWindow();
    auto windowType = window ? getStaticType(window) : RankedTensorType();
    if (window && (!windowType || windowType.getRank() != 1))
      return rewriter.notifyMatchFailure(op, "needs a static 1-D window");
    if (!window && !adaptor.getFrameLength())
      return rewriter.notifyMatchFailure(op, "needs a window or a length");
    Location loc = op.getLoc();
    Type element = result.getElementType();
    int64_t length = signal.getDimSize(1);
    DimBuilder c(rewriter, loc);
    Value step = scalarI64(rewriter, loc, adaptor.getFrameStep());
    Value frame = adaptor.getFrameLength()
                      ? scalarI64(rewriter, loc, adaptor.getFrameLength())
                      : c.i64(windowType.getDimSize(0));
    if (window && adaptor.getFrameLength())
      c.require(c.eq(frame, c.i64(windowType.getDimSize(0))));
    c.require(c.cmp(arith::CmpIPredicate::sgt, step, c.i64(0)));
    c.require(c.cmp(arith::CmpIPredicate::sgt, frame, c.i64(0)));
    c.require(c.cmp(arith::CmpIPredicate::sle, frame, c.i64(length)));
    Value safeStep = c.select(c.ok, step, c.i64(1));
    Value safeFrame = c.select(c.ok, frame, c.i64(1));
    Value frames = c.add(
        arith::DivSIOp::create(rewriter, loc,
                               arith::SubIOp::create(rewriter, loc,
                                                     c.i64(length), safeFrame),
                               safeStep),
        c.i64(1));
    Value bins = op.getOnesided()
                     ? c.add(arith::DivSIOp::create(rewriter, loc, safeFrame,
                                                    c.i64(2)),
                             c.i64(1))
                     : safeFrame;
    SmallVector<Value> dims = {c.i64(signal.getDimSize(0)), frames, bins,
                               c.i64(2)};
    SmallVector<Value> safe = checkedResultDims(
        c, result, dims,
        describe(op, "STFT") +
            ": frame_step must be positive and the frame length between 1 "
            "and the signal's length (and the window's, when both are "
            "given)");
    Value init = createEmpty(rewriter, loc, result, safe);
    Value input = adaptor.getSignal();
    Value frameIndex = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(), safeFrame);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, ValueRange{}, init,
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(4)},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          Value batch = linalg::IndexOp::create(b, l, 0);
          Value f = linalg::IndexOp::create(b, l, 1);
          Value k = linalg::IndexOp::create(b, l, 2);
          Value part = linalg::IndexOp::create(b, l, 3);
          Value c0 = arith::ConstantIndexOp::create(b, l, 0);
          Value c1 = arith::ConstantIndexOp::create(b, l, 1);
          Value stepIndex = arith::IndexCastOp::create(b, l, b.getIndexType(),
                                                       safeStep);
          Value start = arith::MulIOp::create(b, l, f, stepIndex);
          Value zero = arith::ConstantOp::create(b, l, b.getF64FloatAttr(0));
          Value scale = arith::DivFOp::create(
              b, l,
              arith::ConstantOp::create(b, l,
                                        b.getF64FloatAttr(2 * llvm::numbers::pi)),
              toF64(b, l, frameIndex));
          auto sum = scf::ForOp::create(
              b, l, c0, frameIndex, c1, ValueRange{zero, zero},
              [&](OpBuilder &sb, Location sl, Value n, ValueRange acc) {
                Value at = arith::AddIOp::create(sb, sl, start, n);
                Value re = toF64(sb, sl, tensor::ExtractOp::create(
                                             sb, sl, input,
                                             ValueRange{batch, at, c0}));
                Value im = channels == 2
                               ? toF64(sb, sl,
                                       tensor::ExtractOp::create(
                                           sb, sl, input,
                                           ValueRange{batch, at, c1}))
                               : zero;
                if (window) {
                  Value w = toF64(sb, sl, tensor::ExtractOp::create(
                                              sb, sl, window, ValueRange{n}));
                  re = arith::MulFOp::create(sb, sl, re, w);
                  im = arith::MulFOp::create(sb, sl, im, w);
                }
                // The angle of (k n mod L) / L, reduced in integers.
                Value kn = arith::RemUIOp::create(
                    sb, sl, arith::MulIOp::create(sb, sl, k, n), frameIndex);
                Value angle =
                    arith::MulFOp::create(sb, sl, toF64(sb, sl, kn), scale);
                Value cos = math::CosOp::create(sb, sl, angle);
                Value sin = math::SinOp::create(sb, sl, angle);
                Value real = arith::AddFOp::create(
                    sb, sl, arith::MulFOp::create(sb, sl, re, cos),
                    arith::MulFOp::create(sb, sl, im, sin));
                Value imag = arith::SubFOp::create(
                    sb, sl, arith::MulFOp::create(sb, sl, im, cos),
                    arith::MulFOp::create(sb, sl, re, sin));
                scf::YieldOp::create(
                    sb, sl,
                    ValueRange{arith::AddFOp::create(sb, sl, acc[0], real),
                               arith::AddFOp::create(sb, sl, acc[1], imag)});
              });
          Value isReal = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                               part, c0);
          Value v = arith::SelectOp::create(b, l, isReal, sum.getResult(0),
                                            sum.getResult(1));
          linalg::YieldOp::create(b, l, fromF64(b, l, v, element));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct MelWeightMatrixLowering : OpConversionPattern<MelWeightMatrixOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MelWeightMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!result || result.getRank() != 2 ||
        !isa<FloatType>(result.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a 2-D float result");
    Location loc = op.getLoc();
    Type element = result.getElementType();
    DimBuilder c(rewriter, loc);
    Value mels = scalarI64(rewriter, loc, adaptor.getNumMelBins());
    Value dft = scalarI64(rewriter, loc, adaptor.getDftLength());
    Value rate = scalarI64(rewriter, loc, adaptor.getSampleRate());
    Value lower = toF64(rewriter, loc,
                        extractScalar(rewriter, loc,
                                      adaptor.getLowerEdgeHertz()));
    Value upper = toF64(rewriter, loc,
                        extractScalar(rewriter, loc,
                                      adaptor.getUpperEdgeHertz()));
    c.require(c.cmp(arith::CmpIPredicate::sge, mels, c.i64(0)));
    c.require(c.cmp(arith::CmpIPredicate::sgt, dft, c.i64(0)));
    c.require(c.cmp(arith::CmpIPredicate::sgt, rate, c.i64(0)));
    Value spectrum = c.add(
        arith::DivSIOp::create(rewriter, loc, dft, c.i64(2)), c.i64(1));
    SmallVector<Value> dims = {spectrum, mels};
    SmallVector<Value> safe = checkedResultDims(
        c, result, dims,
        describe(op, "MelWeightMatrix") +
            ": num_mel_bins must not be negative, dft_length and sample_rate "
            "must be positive");
    Value init = createEmpty(rewriter, loc, result, safe);
    auto f64 = [&](OpBuilder &b, Location l, double v) -> Value {
      return arith::ConstantOp::create(b, l, b.getF64FloatAttr(v));
    };
    // The mel scale's ends and step (num_mel_bins + 2 steps, as ONNX's
    // definition divides by the count of edges).
    auto toMel = [&](OpBuilder &b, Location l, Value hertz) -> Value {
      Value ratio = arith::AddFOp::create(
          b, l, f64(b, l, 1), arith::DivFOp::create(b, l, hertz,
                                                    f64(b, l, 700)));
      return arith::MulFOp::create(b, l, f64(b, l, 2595),
                                   math::Log10Op::create(b, l, ratio));
    };
    Value low = toMel(rewriter, loc, lower);
    Value high = toMel(rewriter, loc, upper);
    Value edges = toF64(rewriter, loc, c.add(mels, c.i64(2)));
    Value melStep = arith::DivFOp::create(
        rewriter, loc, arith::SubFOp::create(rewriter, loc, high, low), edges);
    Value dftPlus = toF64(rewriter, loc, c.add(dft, c.i64(1)));
    Value rateF = toF64(rewriter, loc, rate);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, ValueRange{}, init,
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(2)},
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          Value j = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, 0));
          Value i = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, 1));
          // The DFT bin of edge e: floor((dft + 1) * hertz(e) / rate).
          auto edge = [&](int64_t offset) -> Value {
            Value e = toF64(b, l,
                            arith::AddIOp::create(
                                b, l, i,
                                arith::ConstantIntOp::create(
                                    b, l, b.getI64Type(), offset)));
            Value mel = arith::AddFOp::create(
                b, l, arith::MulFOp::create(b, l, e, melStep), low);
            Value hertz = arith::MulFOp::create(
                b, l, f64(b, l, 700),
                arith::SubFOp::create(
                    b, l,
                    math::PowFOp::create(
                        b, l, f64(b, l, 10),
                        arith::DivFOp::create(b, l, mel, f64(b, l, 2595))),
                    f64(b, l, 1)));
            Value bin = math::FloorOp::create(
                b, l,
                arith::DivFOp::create(
                    b, l, arith::MulFOp::create(b, l, dftPlus, hertz), rateF));
            return toF64(b, l,
                         arith::FPToSIOp::create(b, l, b.getI64Type(), bin));
          };
          Value left = edge(0), center = edge(1), right = edge(2);
          Value x = toF64(b, l, j);
          auto cmp = [&](arith::CmpFPredicate p, Value a, Value v) -> Value {
            return arith::CmpFOp::create(b, l, p, a, v);
          };
          auto both = [&](Value a, Value v) -> Value {
            return arith::AndIOp::create(b, l, a, v);
          };
          Value zero = f64(b, l, 0), one = f64(b, l, 1);
          // Rising edge [left, center] (a single 1 at center when they
          // coincide), then the falling edge [center, right) over it.
          Value rise = arith::SubFOp::create(b, l, center, left);
          Value rising = both(cmp(arith::CmpFPredicate::OGE, x, left),
                              cmp(arith::CmpFPredicate::OLE, x, center));
          Value value = arith::SelectOp::create(
              b, l, cmp(arith::CmpFPredicate::OEQ, rise, zero),
              arith::SelectOp::create(
                  b, l, cmp(arith::CmpFPredicate::OEQ, x, center), one, zero),
              arith::SelectOp::create(
                  b, l, rising,
                  arith::DivFOp::create(
                      b, l, arith::SubFOp::create(b, l, x, left), rise),
                  zero));
          Value fall = arith::SubFOp::create(b, l, right, center);
          Value falling =
              both(cmp(arith::CmpFPredicate::OGT, fall, zero),
                   both(cmp(arith::CmpFPredicate::OGE, x, center),
                        cmp(arith::CmpFPredicate::OLT, x, right)));
          value = arith::SelectOp::create(
              b, l, falling,
              arith::DivFOp::create(
                  b, l, arith::SubFOp::create(b, l, right, x), fall),
              value);
          linalg::YieldOp::create(b, l, fromF64(b, l, value, element));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};
} // namespace

void mlc::populateGraphSpectrogramToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<STFTLowering, MelWeightMatrixLowering>(patterns.getContext());
}
