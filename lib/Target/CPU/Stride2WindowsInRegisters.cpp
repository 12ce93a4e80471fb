//===- Stride2WindowsInRegisters.cpp - Stride-2 windows in registers ------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/TargetInfo.h"
#include "Stride2WindowsInRegisters.h"
#include "WindowSchedules.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;

namespace {
using mlc::target::kMinParallelWindowElements;

/// What one stride-2 depthwise convolution or max pool computes, read off
/// the op.
struct Window {
  Value input;  // the unpadded input, [N, C, H, W]
  Value filter; // [C, KH, KW], or a pool's [KH, KW] window
  Value init;   // [N, C, OH, OW]
  bool isMax;   // a max pool (the filter is only the window's shape)
  // The batch and map sizes may be known only at run time (then
  // ShapedType::kDynamic here; sizes() builds their values).
  int64_t n, c, h, w, oh, ow, kh, kw, rowStride, padTop, padLeft;

  /// N, H, W, OH and OW as values at `b`'s insertion point.
  struct Sizes {
    Value n, h, w, oh, ow;
  };
  Sizes sizes(OpBuilder &b, Location loc) const {
    auto size = [&](Value v, int64_t dim, int64_t known) -> Value {
      if (!ShapedType::isDynamic(known))
        return arith::ConstantIndexOp::create(b, loc, known);
      return tensor::DimOp::create(b, loc, v, dim);
    };
    return {size(input, 0, n), size(input, 2, h), size(input, 3, w),
            size(init, 2, oh), size(init, 3, ow)};
  }
};

/// Whether `type` holds f32s with static channels (dim 1), the rest of
/// its shape possibly known only at run time.
bool isF32WithStaticChannels(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32() &&
         (tensor.getRank() < 2 || !tensor.isDynamicDim(1));
}

/// The window op `op` as a Window, when it is one this rewrite takes.
std::optional<Window> matchWindow(linalg::LinalgOp op, int64_t lanes) {
  Window win;
  win.isMax = isa<linalg::PoolingNchwMaxOp>(op.getOperation());
  if (!win.isMax && !isa<linalg::DepthwiseConv2DNchwChwOp>(op.getOperation()))
    return std::nullopt;
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
  if (!strides || !dilations || !op.hasPureTensorSemantics() ||
      !llvm::all_of(op->getOperandTypes(), isF32WithStaticChannels))
    return std::nullopt;
  // A pool's window bounds are checked against static sizes below.
  if (win.isMax &&
      !llvm::all_of(op->getOperandTypes(), mlc::loop::isStaticF32))
    return std::nullopt;
  SmallVector<int64_t> s(strides.getValues<int64_t>());
  SmallVector<int64_t> d(dilations.getValues<int64_t>());
  if (s.size() != 2 || s[1] != 2 || d[0] != 1 || d[1] != 1)
    return std::nullopt;
  win.rowStride = s[0];
  win.input = op.getDpsInputs()[0];
  win.filter = op.getDpsInputs()[1];
  win.init = op.getDpsInits()[0];
  win.padTop = win.padLeft = 0;
  // The padding (zeros for a convolution, -inf for a max pool) is read
  // through the masks.
  if (auto pad = win.input.getDefiningOp<tensor::PadOp>()) {
    Value value = pad.getConstantPaddingValue();
    FloatAttr padValue;
    SmallVector<int64_t> low(pad.getStaticLow());
    // The end padding is what the masks leave out past the row's end and
    // the row test past the last row: its size does not matter.
    if (!value || !matchPattern(value, m_Constant(&padValue)) ||
        low.size() != 4 || low[0] != 0 || low[1] != 0 ||
        ShapedType::isDynamic(low[2]) || ShapedType::isDynamic(low[3]))
      return std::nullopt;
    const APFloat &v = padValue.getValue();
    if (win.isMax ? !(v.isInfinity() && v.isNegative()) : !v.isZero())
      return std::nullopt;
    win.padTop = low[2];
    win.padLeft = low[3];
    win.input = pad.getSource();
  }
  auto inputType = cast<RankedTensorType>(win.input.getType());
  auto initType = cast<RankedTensorType>(win.init.getType());
  auto filterType = cast<RankedTensorType>(win.filter.getType());
  if (inputType.getRank() != 4 || initType.getRank() != 4)
    return std::nullopt;
  win.n = inputType.getDimSize(0);
  win.c = inputType.getDimSize(1);
  win.h = inputType.getDimSize(2);
  win.w = inputType.getDimSize(3);
  win.oh = initType.getDimSize(2);
  win.ow = initType.getDimSize(3);
  win.kh = filterType.getDimSize(filterType.getRank() - 2);
  win.kw = filterType.getDimSize(filterType.getRank() - 1);
  if (ShapedType::isDynamic(win.kh) || ShapedType::isDynamic(win.kw))
    return std::nullopt;
  // Even 7-column rows (16 lanes) beat the phases: MobileNetV2's 576 x 14
  // x 14 stride-2 convolution 0.044 -> 0.030 ms, EfficientNet's 5x5 on
  // 672 x 14 x 14 0.098 -> 0.043 ms (Zen 5, one thread).
  // (Rows known at run time are assumed wide.)
  if (!ShapedType::isDynamic(win.ow) && win.ow * 4 < lanes)
    return std::nullopt;
  if (win.isMax) {
    // A pool's rows are clamped into the image (a repeated row does not
    // change a maximum), so every window must overlap it; its columns come
    // from the two or three loads per block that a window of at most
    // three columns needs.
    if (win.kw > 3 || win.padTop >= win.kh || win.padLeft >= win.kw ||
        (win.oh - 1) * win.rowStride - win.padTop >= win.h ||
        (win.ow - 1) * 2 - win.padLeft >= win.w)
      return std::nullopt;
  }
  return win;
}

/// Offsets, sizes and unit strides of the [rows, cols] plane of image `n`,
/// channel `c` in an NCHW tensor.
struct PlaneSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};
PlaneSlice planeSlice(OpBuilder &b, Value n, Value c, Value rows,
                      Value cols) {
  MLIRContext *ctx = b.getContext();
  return {{n, c, b.getIndexAttr(0), b.getIndexAttr(0)},
          {b.getIndexAttr(1), b.getIndexAttr(1), getAsOpFoldResult(rows),
           getAsOpFoldResult(cols)},
          getAsIndexOpFoldResult(ctx, {1, 1, 1, 1})};
}

/// The input and result planes of one channel, and the masked column loads
/// that both kinds of window read them with.
struct PlaneReader {
  PlaneReader(OpBuilder &b, Location loc, const Window &win,
              const Window::Sizes &sizes, Value n, Value c, Value out,
              int64_t lanes, float padding)
      : loc(loc) {
    Type f32 = b.getF32Type();
    auto planeOf = [&](Value source, Value rows, Value cols) {
      PlaneSlice slice = planeSlice(b, n, c, rows, cols);
      auto type = tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
          2, cast<RankedTensorType>(source.getType()), slice.sizes);
      return tensor::ExtractSliceOp::create(b, loc, type, source,
                                            slice.offsets, slice.sizes,
                                            slice.strides);
    };
    input = planeOf(win.input, sizes.h, sizes.w);
    result = planeOf(out, sizes.oh, sizes.ow);
    vecType = VectorType::get({lanes}, f32);
    i32Vec = VectorType::get({lanes}, b.getI32Type());
    SmallVector<int32_t> iotaValues;
    for (int64_t i = 0; i < lanes; ++i)
      iotaValues.push_back(static_cast<int32_t>(i));
    iota = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(i32Vec, ArrayRef<int32_t>(iotaValues)));
    zeroLanes = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(i32Vec, int32_t(0)));
    widthLanes = vector::BroadcastOp::create(
        b, loc, i32Vec,
        arith::IndexCastOp::create(b, loc, b.getI32Type(), sizes.w));
    pad = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(padding));
    for (int64_t i = 0; i < lanes; ++i) {
      evens.push_back(2 * i);
      odds.push_back(2 * i + 1);
    }
  }

  /// Lanes `col + l` inside the row [0, W).
  Value maskFrom(OpBuilder &b, Value col) const {
    Value col32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), col);
    Value at = arith::AddIOp::create(
        b, loc, iota, vector::BroadcastOp::create(b, loc, i32Vec, col32));
    return arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, at,
                              zeroLanes),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at,
                              widthLanes));
  }

  /// `lanes` input columns of `row` from `col` on (which may start left of
  /// the row or run past its end: those lanes read the padding).
  Value load(OpBuilder &b, Value row, Value col, Value mask) const {
    MLIRContext *ctx = b.getContext();
    auto map = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
    return vector::TransferReadOp::create(
        b, loc, vecType, input, ValueRange{row, col}, AffineMapAttr::get(map),
        pad, mask, b.getBoolArrayAttr({true}));
  }

  Location loc;
  Value input, result; // [H, W] and [OH, OW]
  VectorType vecType, i32Vec;
  Value iota, zeroLanes, widthLanes, pad;
  SmallVector<int64_t> evens, odds;
};

/// Computes every output row of the channel plane of image `n`, channel
/// `c` of the max pool `win` into `out` (the [N, C, OH, OW] result so far)
/// and returns the plane's [OH, OW] result. Per block of `lanes` output
/// columns the window's rows are combined first, in the two or three
/// column vectors the block reads (rows clamped into the image: a repeated
/// row does not change a maximum); then column taps 0 and 1 are their even
/// and odd lanes and tap 2 the even lanes one lane on. `readInit` combines
/// the result with what `out` holds.
Value planeMaxRows(OpBuilder &b, Location loc, const Window &win,
                   const Window::Sizes &sizes, Value n, Value c, Value out,
                   int64_t lanes, bool readInit) {
  PlaneReader reader(b, loc, win, sizes, n, c, out, lanes,
                     -std::numeric_limits<float>::infinity());
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Lanes 1 .. lanes - 1 of the even taps, then the third load's first.
  SmallVector<int64_t> shifted;
  for (int64_t i = 1; i <= lanes; ++i)
    shifted.push_back(i);
  // The third load is needed for its first lane only.
  Value firstLane = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, reader.iota, reader.zeroLanes);
  int64_t vectors = win.kw == 3 ? 3 : 2;
  Value zeroIndex = index(0), one = index(1);
  Value lastRow = arith::SubIOp::create(b, loc, sizes.h, one);
  auto rows = scf::ForOp::create(
      b, loc, zeroIndex, sizes.oh, one, ValueRange{reader.result},
      [&](OpBuilder &rb, Location, Value oh, ValueRange rowArgs) {
        Value firstRow = arith::SubIOp::create(
            rb, loc, arith::MulIOp::create(rb, loc, oh, index(win.rowStride)),
            index(win.padTop));
        SmallVector<Value> rowIndices;
        for (int64_t i = 0; i < win.kh; ++i) {
          Value row = arith::AddIOp::create(rb, loc, firstRow, index(i));
          rowIndices.push_back(arith::MinSIOp::create(
              rb, loc, arith::MaxSIOp::create(rb, loc, row, zeroIndex),
              lastRow));
        }
        auto blocks = scf::ForOp::create(
            rb, loc, zeroIndex, sizes.ow, index(lanes), rowArgs,
            [&](OpBuilder &cb, Location, Value ob, ValueRange blockArgs) {
              Value firstCol = arith::SubIOp::create(
                  cb, loc, arith::MulIOp::create(cb, loc, ob, index(2)),
                  index(win.padLeft));
              SmallVector<Value> columns;
              for (int64_t v = 0; v < vectors; ++v) {
                Value col = arith::AddIOp::create(cb, loc, firstCol,
                                                  index(v * lanes));
                Value mask = reader.maskFrom(cb, col);
                if (v == 2)
                  mask = arith::AndIOp::create(cb, loc, mask, firstLane);
                Value column;
                for (Value row : rowIndices) {
                  Value loaded = reader.load(cb, row, col, mask);
                  column = column ? arith::MaximumFOp::create(cb, loc, column,
                                                              loaded)
                                        .getResult()
                                  : loaded;
                }
                columns.push_back(column);
              }
              Value even = vector::ShuffleOp::create(
                  cb, loc, columns[0], columns[1], reader.evens);
              // A window one column wide has tap 0 only.
              Value acc = even;
              if (win.kw >= 2)
                acc = arith::MaximumFOp::create(
                    cb, loc, even,
                    vector::ShuffleOp::create(cb, loc, columns[0], columns[1],
                                              reader.odds));
              if (vectors == 3)
                acc = arith::MaximumFOp::create(
                    cb, loc, acc,
                    vector::ShuffleOp::create(cb, loc, even, columns[2],
                                              shifted));
              if (readInit)
                acc = arith::MaximumFOp::create(
                    cb, loc, acc,
                    vector::TransferReadOp::create(
                        cb, loc, reader.vecType, blockArgs[0],
                        ValueRange{oh, ob}, reader.pad,
                        ArrayRef<bool>{false}));
              Value written = vector::TransferWriteOp::create(
                                  cb, loc, acc, blockArgs[0],
                                  ValueRange{oh, ob}, ArrayRef<bool>{false})
                                  .getResult();
              scf::YieldOp::create(cb, loc, written);
            });
        scf::YieldOp::create(rb, loc, blocks.getResults());
      });
  return rows.getResult(0);
}

/// Computes every output row of the channel plane of image `n`, channel
/// `c` of the depthwise convolution `win` into `out` (the [N, C, OH, OW]
/// result so far) and returns the plane's [OH, OW] result.
Value planeRows(OpBuilder &b, Location loc, const Window &win,
                const Window::Sizes &sizes, Value n, Value c, Value out,
                int64_t lanes) {
  PlaneReader reader(b, loc, win, sizes, n, c, out, lanes, 0.0f);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value result = reader.result;
  Value zero = reader.pad;
  VectorType vecType = reader.vecType;
  const SmallVector<int64_t> &evens = reader.evens, &odds = reader.odds;

  // Taps 2m and 2m + 1 of a row are the even and odd lanes of the 2 *
  // lanes columns from firstCol + 2m on.
  int64_t pairs = (win.kw + 1) / 2;
  Value zeroIndex = index(0), one = index(1);
  auto rows = scf::ForOp::create(
      b, loc, zeroIndex, sizes.oh, one, ValueRange{result},
      [&](OpBuilder &rb, Location, Value oh, ValueRange rowArgs) {
        Value firstRow = arith::SubIOp::create(
            rb, loc, arith::MulIOp::create(rb, loc, oh, index(win.rowStride)),
            index(win.padTop));
        auto blocks = scf::ForOp::create(
            rb, loc, zeroIndex, sizes.ow, index(lanes), rowArgs,
            [&](OpBuilder &cb, Location, Value ob, ValueRange blockArgs) {
              Value acc = vector::TransferReadOp::create(
                  cb, loc, vecType, blockArgs[0], ValueRange{oh, ob},
                  zero, ArrayRef<bool>{false});
              Value firstCol = arith::SubIOp::create(
                  cb, loc, arith::MulIOp::create(cb, loc, ob, index(2)),
                  index(win.padLeft));
              SmallVector<Value> cols, masks;
              for (int64_t m = 0; m < pairs; ++m)
                for (int64_t half = 0; half < 2; ++half) {
                  cols.push_back(arith::AddIOp::create(
                      cb, loc, firstCol, index(2 * m + half * lanes)));
                  masks.push_back(reader.maskFrom(cb, cols.back()));
                }
              // Each row's taps make a sum of their own, added to the
              // accumulator after them: one chain of dependent FMAs per
              // row instead of one through the whole window.
              for (int64_t i = 0; i < win.kh; ++i) {
                Value row =
                    arith::AddIOp::create(cb, loc, firstRow, index(i));
                Value inside = arith::AndIOp::create(
                    cb, loc,
                    arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::sge,
                                          row, zeroIndex),
                    arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::slt,
                                          row, sizes.h));
                auto step = scf::IfOp::create(
                    cb, loc, inside,
                    [&](OpBuilder &tb, Location) {
                      SmallVector<Value> loaded;
                      for (auto [col, mask] : llvm::zip(cols, masks))
                        loaded.push_back(reader.load(tb, row, col, mask));
                      Value sum;
                      for (int64_t j = 0; j < win.kw; ++j) {
                        Value tap = vector::ShuffleOp::create(
                            tb, loc, loaded[2 * (j / 2)],
                            loaded[2 * (j / 2) + 1], j % 2 ? odds : evens);
                        Value weight = tensor::ExtractOp::create(
                            tb, loc, win.filter,
                            ValueRange{c, index(i), index(j)});
                        Value weights =
                            vector::BroadcastOp::create(tb, loc, vecType,
                                                        weight);
                        sum = sum ? vector::FMAOp::create(tb, loc, tap,
                                                          weights, sum)
                                        .getResult()
                                  : arith::MulFOp::create(tb, loc, tap,
                                                          weights)
                                        .getResult();
                      }
                      scf::YieldOp::create(
                          tb, loc,
                          ValueRange{arith::AddFOp::create(tb, loc, acc, sum)});
                    },
                    [&](OpBuilder &eb, Location) {
                      scf::YieldOp::create(eb, loc, acc);
                    });
                acc = step.getResult(0);
              }
              Value written = vector::TransferWriteOp::create(
                  cb, loc, acc, blockArgs[0], ValueRange{oh, ob},
                  ArrayRef<bool>{false})
                                  .getResult();
              scf::YieldOp::create(cb, loc, written);
            });
        scf::YieldOp::create(rb, loc, blocks.getResults());
      });
  return rows.getResult(0);
}

/// Replaces the depthwise convolution `op` (matched as `win`) by loops over
/// its planes.
void lowerWindow(RewriterBase &rewriter, linalg::LinalgOp op,
                 const Window &win, int64_t lanes, bool parallel) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(op);
  Window::Sizes sizes = win.sizes(rewriter, loc);
  Value planes = arith::MulIOp::create(
      rewriter, loc, sizes.n,
      arith::ConstantIndexOp::create(rewriter, loc, win.c));
  auto imageAndChannel = [&](OpBuilder &b, Value plane) {
    Value cIndex = arith::ConstantIndexOp::create(b, loc, win.c);
    return std::make_pair(arith::DivUIOp::create(b, loc, plane, cIndex),
                          arith::RemUIOp::create(b, loc, plane, cIndex));
  };
  auto insertPlane = [&](OpBuilder &b, Value rows, Value into, Value n,
                         Value c, bool inParallel) -> Value {
    PlaneSlice slice = planeSlice(b, n, c, sizes.oh, sizes.ow);
    if (inParallel) {
      tensor::ParallelInsertSliceOp::create(b, loc, rows, into, slice.offsets,
                                            slice.sizes, slice.strides);
      return {};
    }
    return tensor::InsertSliceOp::create(b, loc, rows, into, slice.offsets,
                                         slice.sizes, slice.strides);
  };
  // A max pool whose result starts as -inf everywhere (as ONNX MaxPool's
  // does) writes its windows' maxima without reading the start back.
  Value init = win.init;
  bool readInit = true;
  if (auto fill = init.getDefiningOp<linalg::FillOp>(); fill && win.isMax) {
    FloatAttr value;
    if (matchPattern(fill.value(), m_Constant(&value)) &&
        value.getValue().isInfinity() && value.getValue().isNegative()) {
      init = tensor::EmptyOp::create(
          rewriter, loc, cast<RankedTensorType>(init.getType()).getShape(),
          rewriter.getF32Type());
      readInit = false;
    }
  }
  auto computeRows = [&](OpBuilder &b, Value n, Value c, Value into) {
    return win.isMax
               ? planeMaxRows(b, loc, win, sizes, n, c, into, lanes, readInit)
               : planeRows(b, loc, win, sizes, n, c, into, lanes);
  };
  Value result;
  // Sizes known at run time count as large.
  int64_t elements = 1;
  for (int64_t size : {win.n * win.c, win.oh, win.ow})
    elements = ShapedType::isDynamic(size) || size < 0
                   ? kMinParallelWindowElements
                   : elements * size;
  if (parallel && elements >= kMinParallelWindowElements &&
      (ShapedType::isDynamic(win.n) || win.n * win.c >= 2)) {
    auto forall = scf::ForallOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{getAsOpFoldResult(planes)},
        ValueRange{init}, std::nullopt);
    Block *body = forall.getBody();
    Value plane = body->getArgument(0);
    Value shared = body->getArgument(1);
    OpBuilder b(ctx);
    b.setInsertionPoint(forall.getTerminator());
    auto [n, c] = imageAndChannel(b, plane);
    Value rows = computeRows(b, n, c, shared);
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    insertPlane(b, rows, shared, n, c, /*inParallel=*/true);
    result = forall.getResult(0);
  } else {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, planes, one, ValueRange{init},
        [&](OpBuilder &b, Location, Value plane, ValueRange args) {
          auto [n, c] = imageAndChannel(b, plane);
          Value rows = computeRows(b, n, c, args[0]);
          scf::YieldOp::create(
              b, loc, insertPlane(b, rows, args[0], n, c, false));
        });
    result = loop.getResult(0);
  }
  Operation *pad = op.getDpsInputs()[0].getDefiningOp<tensor::PadOp>();
  Operation *start = win.init.getDefiningOp();
  rewriter.replaceOp(op, result);
  for (Operation *dead : {pad, start})
    if (dead && dead->use_empty() && isa<tensor::PadOp, linalg::FillOp>(dead))
      rewriter.eraseOp(dead);
}
} // namespace

bool mlc::target::isSplitInRegisters(linalg::LinalgOp op, int64_t lanes) {
  return lanes >= 4 && matchWindow(op, lanes).has_value();
}

void mlc::target::lowerStride2Windows(RewriterBase &rewriter,
                                      func::FuncOp func, int64_t lanes,
                                      bool parallel) {
  if (lanes < 4)
    return;
  SmallVector<std::pair<linalg::LinalgOp, int64_t>> windows;
  func.walk([&](linalg::LinalgOp op) {
    // The strategy's columns per vector, when it decided them.
    int64_t opLanes = lanes;
    if (std::optional<WindowTile> tile = getWindowTile(op))
      opLanes = tile->columns;
    if (opLanes >= 4 && matchWindow(op, opLanes))
      windows.emplace_back(op, opLanes);
  });
  // Each window is matched again just before it is lowered: lowering one
  // replaces its op, and a window that reads its result (a stride-2
  // depthwise convolution after a stride-2 max pool, as in ShuffleNet) must
  // see the replacement, not the erased op's value.
  for (auto &[op, opLanes] : windows)
    if (std::optional<Window> win = matchWindow(op, opLanes))
      lowerWindow(rewriter, op, *win, opLanes, parallel);
}
