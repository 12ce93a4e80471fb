//===- NonMaxSuppressionToLinalg.cpp - ONNX NonMaxSuppression -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// NonMaxSuppression as ONNX Runtime computes it: per batch and class, the
// boxes whose score is above `score_threshold` are visited by descending
// score (equal scores by index), each pass picking the first box after the
// previous one in that order (no sort buffer); a box is taken unless its
// IoU with a box taken before for the class is above `iou_threshold` (boxes
// of no area, or that do not overlap, never suppress), until
// `max_output_boxes_per_class` are taken. The selections go into a buffer
// of batch x class x boxes rows, whose first rows are the result (its
// length decided at run time).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "RunTimeShapes.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::detail;

namespace {
/// A box's corners (y_min, x_min, y_max, x_max) from its four values.
SmallVector<Value> corners(OpBuilder &b, Location l, ArrayRef<Value> v,
                           bool center) {
  if (center) {
    // (x_center, y_center, width, height)
    Value half = arith::ConstantOp::create(
        b, l, b.getFloatAttr(v[0].getType(), 0.5));
    Value hw = arith::MulFOp::create(b, l, v[2], half);
    Value hh = arith::MulFOp::create(b, l, v[3], half);
    return {arith::SubFOp::create(b, l, v[1], hh),
            arith::SubFOp::create(b, l, v[0], hw),
            arith::AddFOp::create(b, l, v[1], hh),
            arith::AddFOp::create(b, l, v[0], hw)};
  }
  // (y1, x1, y2, x2), either corner first.
  return {arith::MinimumFOp::create(b, l, v[0], v[2]),
          arith::MinimumFOp::create(b, l, v[1], v[3]),
          arith::MaximumFOp::create(b, l, v[0], v[2]),
          arith::MaximumFOp::create(b, l, v[1], v[3])};
}

/// Whether boxes `a` and `c` (corners) overlap by more than `threshold` IoU.
Value suppresses(OpBuilder &b, Location l, ArrayRef<Value> a,
                 ArrayRef<Value> c, Value threshold) {
  auto sub = [&](Value x, Value y) {
    return arith::SubFOp::create(b, l, x, y).getResult();
  };
  auto mul = [&](Value x, Value y) {
    return arith::MulFOp::create(b, l, x, y).getResult();
  };
  auto gt = [&](Value x, Value y) {
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, y)
        .getResult();
  };
  Value zero = arith::ConstantOp::create(b, l, b.getFloatAttr(a[0].getType(), 0));
  Value areaA = mul(sub(a[2], a[0]), sub(a[3], a[1]));
  Value areaC = mul(sub(c[2], c[0]), sub(c[3], c[1]));
  Value top = arith::MaximumFOp::create(b, l, a[0], c[0]);
  Value left = arith::MaximumFOp::create(b, l, a[1], c[1]);
  Value bottom = arith::MinimumFOp::create(b, l, a[2], c[2]);
  Value right = arith::MinimumFOp::create(b, l, a[3], c[3]);
  Value overlaps = arith::AndIOp::create(b, l, gt(bottom, top), gt(right, left));
  Value inter = mul(sub(bottom, top), sub(right, left));
  Value unionArea = sub(arith::AddFOp::create(b, l, areaA, areaC), inter);
  Value valid = arith::AndIOp::create(
      b, l, arith::AndIOp::create(b, l, gt(areaA, zero), gt(areaC, zero)),
      arith::AndIOp::create(b, l, overlaps, gt(unionArea, zero)));
  Value iou = arith::DivFOp::create(b, l, inter, unionArea);
  return arith::AndIOp::create(b, l, valid, gt(iou, threshold));
}

struct NonMaxSuppressionToLinalg : OpConversionPattern<NonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NonMaxSuppressionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto boxes = getStaticType(adaptor.getBoxes());
    auto scores = getStaticType(adaptor.getScores());
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!boxes || !scores || boxes.getRank() != 3 || scores.getRank() != 3 ||
        boxes.getDimSize(2) != 4 || !result || result.getRank() != 2 ||
        boxes.getElementType() != scores.getElementType())
      return rewriter.notifyMatchFailure(op, "needs static boxes and scores");
    int64_t batches = boxes.getDimSize(0), count = boxes.getDimSize(1);
    int64_t classes = scores.getDimSize(1);
    if (scores.getDimSize(0) != batches || scores.getDimSize(2) != count)
      return rewriter.notifyMatchFailure(op, "boxes and scores disagree");
    for (Value v : {adaptor.getMaxOutputBoxesPerClass(),
                    adaptor.getIouThreshold(), adaptor.getScoreThreshold()})
      if (v && (!getStaticType(v) || getStaticType(v).getNumElements() != 1))
        return rewriter.notifyMatchFailure(op, "needs one-element limits");
    Location loc = op.getLoc();
    Type f = boxes.getElementType();
    Type i64 = rewriter.getI64Type();
    Type index = rewriter.getIndexType();
    bool center = op.getCenterPointBox();
    auto constIndex = [&](OpBuilder &b, Location l, int64_t v) {
      return arith::ConstantIndexOp::create(b, l, v).getResult();
    };
    // Limits: at most `count` a class; absent: none (ONNX's default 0).
    Value limit = constIndex(rewriter, loc, 0);
    if (Value v = adaptor.getMaxOutputBoxesPerClass()) {
      Value n = extractScalar(rewriter, loc, v);
      n = arith::MinSIOp::create(
          rewriter, loc,
          arith::MaxSIOp::create(rewriter, loc, n,
                                 arith::ConstantIntOp::create(rewriter, loc,
                                                              i64, 0)),
          arith::ConstantIntOp::create(rewriter, loc, i64, count));
      limit = arith::IndexCastOp::create(rewriter, loc, index, n);
    }
    Value iouThreshold =
        adaptor.getIouThreshold()
            ? extractScalar(rewriter, loc, adaptor.getIouThreshold())
            : arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getFloatAttr(f, 0.0))
                  .getResult();
    Value scoreThreshold =
        adaptor.getScoreThreshold()
            ? extractScalar(rewriter, loc, adaptor.getScoreThreshold())
            : arith::ConstantOp::create(
                  rewriter, loc,
                  rewriter.getFloatAttr(
                      f, -std::numeric_limits<double>::infinity()))
                  .getResult();
    auto readBox = [&](OpBuilder &b, Location l, Value batch, Value box) {
      SmallVector<Value> v;
      for (int64_t k = 0; k < 4; ++k)
        v.push_back(tensor::ExtractOp::create(
            b, l, adaptor.getBoxes(),
            ValueRange{batch, box, constIndex(b, l, k)}));
      return corners(b, l, v, center);
    };
    int64_t capacity = std::max<int64_t>(batches * classes * count, 1);
    Value init = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{capacity, 3}, i64);
    Value c0 = constIndex(rewriter, loc, 0), c1 = constIndex(rewriter, loc, 1);
    Value none = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    Value yes = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    Value fzero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getFloatAttr(f, 0));
    auto perBatch = scf::ForOp::create(
        rewriter, loc, c0, constIndex(rewriter, loc, batches), c1,
        ValueRange{init, c0},
        [&](OpBuilder &b, Location l, Value batch, ValueRange outer) {
          auto perClass = scf::ForOp::create(
              b, l, c0, constIndex(b, l, classes), c1, outer,
              [&](OpBuilder &b, Location l, Value cls, ValueRange state) {
                Value first = state[1];
                // Pass p: the best box after the previous pick, if any.
                auto passes = scf::ForOp::create(
                    b, l, c0, constIndex(b, l, count), c1,
                    ValueRange{state[0], state[1], fzero, c0, none},
                    [&](OpBuilder &b, Location l, Value, ValueRange s) {
                      Value prevScore = s[2], prevIndex = s[3];
                      Value havePrev = s[4];
                      auto scan = scf::ForOp::create(
                          b, l, c0, constIndex(b, l, count), c1,
                          ValueRange{fzero, c0, none},
                          [&](OpBuilder &b, Location l, Value i,
                              ValueRange best) {
                            Value score = tensor::ExtractOp::create(
                                b, l, adaptor.getScores(),
                                ValueRange{batch, cls, i});
                            auto before = [&](Value sa, Value ia, Value sb,
                                              Value ib) {
                              Value higher = arith::CmpFOp::create(
                                  b, l, arith::CmpFPredicate::OGT, sa, sb);
                              Value same = arith::CmpFOp::create(
                                  b, l, arith::CmpFPredicate::OEQ, sa, sb);
                              Value earlier = arith::CmpIOp::create(
                                  b, l, arith::CmpIPredicate::ult, ia, ib);
                              return arith::OrIOp::create(
                                  b, l, higher,
                                  arith::AndIOp::create(b, l, same, earlier));
                            };
                            Value after = arith::OrIOp::create(
                                b, l, arith::XOrIOp::create(b, l, havePrev, yes),
                                before(prevScore, prevIndex, score, i));
                            Value improves = arith::OrIOp::create(
                                b, l, arith::XOrIOp::create(b, l, best[2], yes),
                                before(score, i, best[0], best[1]));
                            Value above = arith::CmpFOp::create(
                                b, l, arith::CmpFPredicate::OGT, score,
                                scoreThreshold);
                            Value take = arith::AndIOp::create(
                                b, l, above,
                                arith::AndIOp::create(b, l, after, improves));
                            scf::YieldOp::create(
                                b, l,
                                ValueRange{
                                    arith::SelectOp::create(b, l, take, score,
                                                            best[0]),
                                    arith::SelectOp::create(b, l, take, i,
                                                            best[1]),
                                    arith::OrIOp::create(b, l, best[2], take)});
                          });
                      Value found = scan.getResult(2);
                      Value box = scan.getResult(1);
                      Value taken = arith::SubIOp::create(b, l, s[1], first);
                      Value room = arith::CmpIOp::create(
                          b, l, arith::CmpIPredicate::ult, taken, limit);
                      auto add = scf::IfOp::create(
                          b, l, arith::AndIOp::create(b, l, found, room),
                          [&](OpBuilder &b, Location l) {
                            SmallVector<Value> candidate =
                                readBox(b, l, batch, box);
                            auto check = scf::ForOp::create(
                                b, l, first, s[1], c1, ValueRange{none},
                                [&](OpBuilder &b, Location l, Value row,
                                    ValueRange suppressed) {
                                  Value other = arith::IndexCastOp::create(
                                      b, l, index,
                                      tensor::ExtractOp::create(
                                          b, l, s[0],
                                          ValueRange{row,
                                                     constIndex(b, l, 2)}));
                                  Value hit = suppresses(
                                      b, l, candidate,
                                      readBox(b, l, batch, other),
                                      iouThreshold);
                                  scf::YieldOp::create(
                                      b, l,
                                      arith::OrIOp::create(b, l, suppressed[0],
                                                           hit)
                                          .getResult());
                                });
                            auto keep = scf::IfOp::create(
                                b, l, check.getResult(0),
                                [&](OpBuilder &b, Location l) {
                                  scf::YieldOp::create(
                                      b, l, ValueRange{s[0], s[1]});
                                },
                                [&](OpBuilder &b, Location l) {
                                  Value out = s[0];
                                  Value fields[] = {batch, cls, box};
                                  for (int64_t k = 0; k < 3; ++k)
                                    out = tensor::InsertOp::create(
                                        b, l,
                                        arith::IndexCastOp::create(b, l, i64,
                                                                   fields[k]),
                                        out,
                                        ValueRange{s[1], constIndex(b, l, k)});
                                  scf::YieldOp::create(
                                      b, l,
                                      ValueRange{out, arith::AddIOp::create(
                                                          b, l, s[1], c1)});
                                });
                            scf::YieldOp::create(b, l, keep.getResults());
                          },
                          [&](OpBuilder &b, Location l) {
                            scf::YieldOp::create(b, l, ValueRange{s[0], s[1]});
                          });
                      scf::YieldOp::create(
                          b, l,
                          ValueRange{add.getResult(0), add.getResult(1),
                                     scan.getResult(0), box, found});
                    });
                scf::YieldOp::create(
                    b, l, ValueRange{passes.getResult(0), passes.getResult(1)});
              });
          scf::YieldOp::create(b, l, perClass.getResults());
        });
    Value selected = tensor::ExtractSliceOp::create(
        rewriter, loc, perBatch.getResult(0),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{perBatch.getResult(1), rewriter.getIndexAttr(3)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                               rewriter.getIndexAttr(1)});
    if (selected.getType() != result)
      selected = tensor::CastOp::create(rewriter, loc, result, selected);
    rewriter.replaceOp(op, selected);
    return success();
  }
};
} // namespace

void mlc::populateGraphNonMaxSuppressionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<NonMaxSuppressionToLinalg>(patterns.getContext());
}
