//===- VectorizeRegisterTiles.cpp - The CPU's register level ----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The register level of the CPU's code generation: each op marked with a
// register tile (by mlc-cpu-tile-by-schedule or
// mlc-cpu-window-register-tiles) is tiled to it, peeled so that every tile
// has a static shape, vectorized, and its accumulators are hoisted into
// registers. For a contraction the result is an outer-product microkernel:
// per step of `k`, `m-tile` broadcasts of the left-hand side times one
// `n-tile`-wide row of the right-hand side, accumulated with FMAs.
//
// The combined passes (mlc-cpu-tile-threads-and-caches,
// mlc-cpu-tile-and-vectorize) run the steps of ScheduleTiling.h on linalg
// ops outside kernels, deciding contractions' schedules first.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlc/Dialect/Loop/Transforms/Epilogues.h"
#include "mlc/Dialect/Loop/Transforms/KernelFormation.h"
#include "mlc/Target/CPU/Passes.h"
#include "mlc/Target/CPU/TargetInfo.h"

#include "AccumulatorInits.h"
#include "ContractedMulAdd.h"
#include "ContractionStrategy.h"
#include "PairMultiplyAdds.h"
#include "mlc/Dialect/Loop/Transforms/Packing.h"
#include "ScheduleTiling.h"
#include "Schedules.h"
#include "mlc/Dialect/Loop/Utils/TensorTypes.h"

#include "llvm/ADT/bit.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlc::target {
#define GEN_PASS_DEF_CPUTILEANDVECTORIZE
#define GEN_PASS_DEF_CPUTILETHREADSANDCACHES
#define GEN_PASS_DEF_CPUVECTORIZEREGISTERTILES
#include "mlc/Target/CPU/Passes.h.inc"
} // namespace mlc::target

using namespace mlir;
using mlc::loop::isStaticF32;

namespace {
/// insert_slice(transfer_write(v, t[0, ..., 0]), d[offsets]) where `v`
/// overwrites all of `t` (whose shape is `v`'s behind unit dims) becomes
/// transfer_write(v, d[offsets]): the write then targets the loop-carried
/// tensor directly, so that the accumulator can be hoisted. Upstream's fold
/// needs `v` and `t` of the same rank.
struct FoldFullWriteIntoInsertSlice : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    auto write = insert.getSource().getDefiningOp<vector::TransferWriteOp>();
    if (!write || write.getMask() || !write.hasPureTensorSemantics() ||
        !write.getPermutationMap().isMinorIdentity() ||
        llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }) ||
        !llvm::all_of(write.getIndices(), isZeroInteger) ||
        !insert.hasUnitStride() ||
        insert.getSourceType().getRank() != insert.getDestType().getRank())
      return failure();
    VectorType vectorType = write.getVectorType();
    ArrayRef<int64_t> shape = insert.getSourceType().getShape();
    int64_t lead = shape.size() - vectorType.getRank();
    if (lead < 0 || !llvm::all_of(shape.take_front(lead),
                                  [](int64_t d) { return d == 1; }) ||
        shape.drop_front(lead) != vectorType.getShape())
      return failure();
    SmallVector<Value> indices;
    for (OpFoldResult offset : insert.getMixedOffsets())
      indices.push_back(getValueOrCreateConstantIndexOp(
          rewriter, insert.getLoc(), offset));
    SmallVector<bool> inBounds(vectorType.getRank(), true);
    rewriter.replaceOpWithNewOp<vector::TransferWriteOp>(
        insert, write.getVector(), insert.getDest(), indices,
        AffineMapAttr::get(AffineMap::getMinorIdentityMap(
            shape.size(), vectorType.getRank(), getContext())),
        /*mask=*/Value(), rewriter.getBoolArrayAttr(inBounds));
    return success();
  }
};

/// Whether `op` reads or writes whole vectors in bounds at its indices: no
/// mask, a minor identity map and every dim in bounds.
bool isPlainTransfer(VectorTransferOpInterface op) {
  return !op.getMask() && op.getPermutationMap().isMinorIdentity() &&
         llvm::all_of(op.getInBoundsValues(), [](bool b) { return b; });
}

/// insert_slice(w_n(... w_1(extract_slice(T)[offsets]) ...), T[offsets]),
/// where the w_i are transfer_writes into the slice (and transfer_reads may
/// read the slice between them), becomes the same writes and reads on T at
/// `offsets` plus their indices. A register tile split into a part of whole
/// vectors and a narrower rest (splitRemainderTiles) writes its slice of
/// the loop-carried tensor twice; on T directly each write is a subset of
/// its own, and both accumulators are hoisted out of the reduction loop
/// instead of stored and reloaded every step.
struct FoldSliceTransfersIntoInsertSlice
    : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    if (!insert.hasUnitStride() ||
        insert.getSourceType().getRank() != insert.getDestType().getRank())
      return failure();
    // The writes, first to last, and the slice they start from.
    SmallVector<vector::TransferWriteOp> writes;
    Value value = insert.getSource();
    while (auto write = value.getDefiningOp<vector::TransferWriteOp>()) {
      writes.push_back(write);
      value = write.getBase();
    }
    std::reverse(writes.begin(), writes.end());
    auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
    if (writes.size() < 2 || !slice ||
        slice.getSource() != insert.getDest() ||
        !slice.hasUnitStride() ||
        slice.getMixedOffsets() != insert.getMixedOffsets() ||
        slice.getMixedSizes() != insert.getMixedSizes() ||
        !insert.getSource().hasOneUse())
      return failure();
    // Every value of the chain but the last is read by plain transfer_reads
    // and written by the next write only.
    SmallVector<SmallVector<vector::TransferReadOp>> reads(writes.size());
    for (auto [i, write] : llvm::enumerate(writes)) {
      if (!isPlainTransfer(write))
        return failure();
      Value base = write.getBase();
      for (OpOperand &use : base.getUses()) {
        if (use.getOwner() == write.getOperation() &&
            use.getOperandNumber() == write.getBaseMutable().getOperandNumber())
          continue;
        auto read = dyn_cast<vector::TransferReadOp>(use.getOwner());
        if (!read || !isPlainTransfer(read))
          return failure();
        reads[i].push_back(read);
      }
    }
    Location loc = insert.getLoc();
    SmallVector<OpFoldResult> offsets = insert.getMixedOffsets();
    auto shifted = [&](ValueRange indices) {
      SmallVector<Value> result;
      for (auto [offset, index] : llvm::zip(offsets, indices)) {
        AffineExpr a, b;
        bindSymbols(rewriter.getContext(), a, b);
        result.push_back(getValueOrCreateConstantIndexOp(
            rewriter, loc,
            affine::makeComposedFoldedAffineApply(rewriter, loc, a + b,
                                                  {offset, index})));
      }
      return result;
    };
    Value current = insert.getDest();
    for (auto [i, write] : llvm::enumerate(writes)) {
      for (vector::TransferReadOp read : reads[i]) {
        rewriter.setInsertionPoint(read);
        rewriter.replaceOpWithNewOp<vector::TransferReadOp>(
            read, read.getVectorType(), current,
            shifted(read.getIndices()), read.getPermutationMapAttr(),
            read.getPadding(), /*mask=*/Value(), read.getInBoundsAttr());
      }
      rewriter.setInsertionPoint(write);
      current = vector::TransferWriteOp::create(
                    rewriter, write.getLoc(), write.getVector(), current,
                    shifted(write.getIndices()),
                    write.getPermutationMapAttr(), /*mask=*/Value(),
                    write.getInBoundsAttr())
                    .getResult();
    }
    rewriter.replaceOp(insert, current);
    for (vector::TransferWriteOp write : llvm::reverse(writes))
      rewriter.eraseOp(write);
    if (slice->use_empty())
      rewriter.eraseOp(slice);
    return success();
  }
};

using mlc::target::ContractionSchedule;
using mlc::target::isConstant;
using mlc::target::kMinPackedDepth;
using mlc::target::scheduleContraction;
using mlc::target::Tiles;

/// Packs the right-hand side of a contraction's cache tile into panels of
/// `panel` columns right before the register tiles that read it (see
/// Packing.h), when it is computed at run time (an im2col matrix), its
/// reduction is deep and at least two register tiles of rows reuse it.
/// Returns the op reading the packed block, with its register tiles and
/// loop order extended by the new in-panel loop, or null.
linalg::LinalgOp packCacheTile(RewriterBase &rewriter, linalg::LinalgOp op,
                               int64_t mTile, int64_t panel) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2)
    return nullptr;
  auto tiles = op->getAttrOfType<DenseI64ArrayAttr>(mlc::loop::kRegisterTilesAttr);
  auto order = op->getAttrOfType<DenseI64ArrayAttr>(mlc::loop::kLoopOrderAttr);
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (!tiles || !order || failed(dims) ||
      static_cast<size_t>(tiles.size()) != ranges.size())
    return nullptr;
  int64_t rows = 1;
  for (unsigned d : dims->m)
    rows *= ranges[d];
  if (rows < 2 * mTile)
    return nullptr;
  for (OpOperand *rhs : op.getDpsInputOperands()) {
    if (isConstant(rhs->get()))
      continue;
    std::optional<std::pair<unsigned, unsigned>> kn =
        mlc::loop::getPackableOperand(op, rhs, panel);
    if (!kn || ranges[kn->first] < kMinPackedDepth ||
        tiles[kn->second] != panel)
      continue;
    auto [kDim, nDim] = *kn;
    unsigned n0 = ranges.size();
    rewriter.setInsertionPoint(op);
    Value packed =
        mlc::loop::packPanels(rewriter, op.getLoc(), rhs->get(), panel);
    SmallVector<NamedAttribute> attrs(op->getDiscardableAttrs());
    linalg::GenericOp generic = mlc::loop::readPacked(
        rewriter, op, rhs, packed, kDim, nDim, panel);
    for (NamedAttribute attr : attrs)
      generic->setAttr(attr.getName(), attr.getValue());
    SmallVector<int64_t> newTiles(tiles.asArrayRef());
    newTiles[nDim] = 1;
    newTiles.push_back(panel);
    SmallVector<int64_t> newOrder;
    for (int64_t d : order.asArrayRef()) {
      newOrder.push_back(d);
      if (d == nDim)
        newOrder.push_back(n0);
    }
    generic->setAttr(mlc::loop::kRegisterTilesAttr, rewriter.getDenseI64ArrayAttr(newTiles));
    generic->setAttr(mlc::loop::kLoopOrderAttr, rewriter.getDenseI64ArrayAttr(newOrder));
    return cast<linalg::LinalgOp>(generic.getOperation());
  }
  return nullptr;
}

template <typename PopulateFn>
LogicalResult applyVectorPatterns(func::FuncOp func, PopulateFn populate) {
  RewritePatternSet patterns(func.getContext());
  populate(patterns);
  return applyPatternsGreedily(func, std::move(patterns));
}

/// Register tiles left over at the end of a row (ResNet's 49 and
/// SqueezeNet's 169 columns leave 1 and 9) become a tile of whole vector
/// registers plus a narrower rest: a 9-wide vector is legalized into an
/// 8-wide one and a lane put together with inserts, which made SqueezeNet's
/// classifier spend 40% of its time on 5% of its columns.
void splitRemainderTiles(RewriterBase &rewriter, func::FuncOp func,
                         int64_t lanes) {
  SmallVector<linalg::LinalgOp> ops;
  func.walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(mlc::loop::kRegisterTilesAttr))
      ops.push_back(op);
  });
  for (linalg::LinalgOp op : ops) {
    ArrayRef<int64_t> tiles =
        op->getAttrOfType<DenseI64ArrayAttr>(mlc::loop::kRegisterTilesAttr).asArrayRef();
    ArrayRef<int64_t> order =
        op->getAttrOfType<DenseI64ArrayAttr>(mlc::loop::kLoopOrderAttr).asArrayRef();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (tiles.size() != ranges.size() || order.size() != ranges.size())
      continue;
    // The vector dim: the widest register tile.
    unsigned d = std::max_element(tiles.begin(), tiles.end()) - tiles.begin();
    if (tiles[d] <= lanes || ShapedType::isDynamic(ranges[d]) ||
        ranges[d] <= lanes || ranges[d] % lanes == 0)
      continue;
    SmallVector<int64_t> sizes(ranges.size(), 0);
    sizes[d] = lanes;
    (void)mlc::loop::tileLoops(rewriter, op, sizes, order);
  }
}

/// In a register tile of a gather of rows (one element in every loop but
/// the row's), what the tile reads from inputs that do not vary along the
/// row is one element: read it once before the op. The row index then
/// comes from outside the op, uniform over the vector, and the vectorizer
/// reads the row contiguously instead of gathering it element by element.
void hoistUniformInputs(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rank = ranges.size();
  bool reads = false;
  op.getBody()->walk([&](tensor::ExtractOp) { reads = true; });
  if (!reads || rank == 0 ||
      llvm::any_of(ArrayRef<int64_t>(ranges).drop_back(),
                   [](int64_t r) { return r != 1; }))
    return;
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(input);
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (arg.use_empty() || !type || !type.hasStaticShape() ||
        type.getNumElements() != 1 ||
        op.getMatchingIndexingMap(input).isFunctionOfDim(rank - 1))
      continue;
    rewriter.setInsertionPoint(op);
    Value zero = arith::ConstantIndexOp::create(rewriter, op.getLoc(), 0);
    Value element = tensor::ExtractOp::create(
        rewriter, op.getLoc(), input->get(),
        SmallVector<Value>(type.getRank(), zero));
    rewriter.replaceAllUsesWith(arg, element);
  }
}

/// A contraction's cache tile whose rows (or another parallel loop with a
/// register tile) are known only at run time, split so that every register
/// tile has a static size: a loop over pieces of one register tile's rows,
/// then one over the rows left, a row at a time. Each piece is the op's own
/// tile (TilingInterface) of the rows it covers, so it is register-tiled
/// and vectorized as a static tile is, its accumulators in registers across
/// the reduction. (Pieces halving in size, 8 + 4 + 2 + 1 rows, made BERT's
/// compile 5x slower: one-shot bufferization compares every pair of their
/// slices with value-bounds queries through the model's size
/// computations.) Before,
/// the last register tile kept a size known only at run time and ran as
/// scalar loops: BERT's 16-row matmuls (one 14-row tile and 2 rows left)
/// took 3x their static compile's time; a decoder's one-token step would
/// have been all remainder. Returns whether `op` was split.
bool splitRunTimeRows(RewriterBase &rewriter, linalg::LinalgOp op) {
  auto tilesAttr =
      op->getAttrOfType<DenseI64ArrayAttr>(mlc::loop::kRegisterTilesAttr);
  if (!tilesAttr || !op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return false;
  ArrayRef<int64_t> tiles = tilesAttr.asArrayRef();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (tiles.size() != ranges.size())
    return false;
  std::optional<unsigned> dim;
  for (auto [d, range] : llvm::enumerate(ranges))
    if (ShapedType::isDynamic(range) && tiles[d] > 1 &&
        iterators[d] == utils::IteratorType::parallel) {
      dim = d;
      break;
    }
  if (!dim)
    return false;
  unsigned d = *dim;
  int64_t tile = tiles[d];
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto tiling = cast<TilingInterface>(op.getOperation());
  SmallVector<Range> loopRanges = tiling.getIterationDomain(rewriter);
  SmallVector<OpFoldResult> offsets, sizes;
  for (const Range &range : loopRanges) {
    offsets.push_back(range.offset);
    sizes.push_back(range.size);
  }
  Value count = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]);
  unsigned initNumber = op.getDpsInitOperand(0)->getOperandNumber();
  // The op's tile of `size` rows at `offset`, its init read from and its
  // result inserted into `into` (the pieces before it written in place).
  auto piece = [&](OpBuilder &b, Value offset, OpFoldResult size,
                   Value into) -> FailureOr<Value> {
    offsets[d] = offset;
    sizes[d] = size;
    Operation *onto = b.clone(*op);
    onto->setOperand(initNumber, into);
    auto ontoTiling = cast<TilingInterface>(onto);
    FailureOr<TilingResult> tiled =
        ontoTiling.getTiledImplementation(b, offsets, sizes);
    SmallVector<OpFoldResult> at, extent;
    bool placed = succeeded(tiled) && tiled->tiledValues.size() == 1 &&
                  succeeded(ontoTiling.getResultTilePosition(
                      b, 0, offsets, sizes, at, extent));
    rewriter.eraseOp(onto);
    if (!placed)
      return failure();
    SmallVector<OpFoldResult> strides(at.size(), b.getIndexAttr(1));
    return tensor::InsertSliceOp::create(b, loc, tiled->tiledValues[0], into,
                                         at, extent, strides)
        .getResult();
  };
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value whole = arith::SubIOp::create(
      rewriter, loc, count,
      arith::RemUIOp::create(rewriter, loc, count,
                             arith::ConstantIndexOp::create(rewriter, loc,
                                                            tile)));
  // Loops over pieces of `size` rows from `from` to `to`, each written in
  // place into the carried result.
  auto pieces = [&](Value from, Value to, int64_t size,
                    Value into) -> FailureOr<Value> {
    bool ok = true;
    auto loop = scf::ForOp::create(
        rewriter, loc, from, to,
        arith::ConstantIndexOp::create(rewriter, loc, size), ValueRange{into},
        [&](OpBuilder &b, Location, Value row, ValueRange carried) {
          FailureOr<Value> part =
              piece(b, row, b.getIndexAttr(size), carried.front());
          ok &= succeeded(part);
          scf::YieldOp::create(b, loc,
                               succeeded(part) ? *part : carried.front());
        });
    if (!ok)
      return failure();
    return loop.getResult(0);
  };
  Value acc = op.getDpsInitOperand(0)->get();
  FailureOr<Value> rows = pieces(zero, whole, tile, acc);
  if (failed(rows))
    return false;
  FailureOr<Value> rest = pieces(whole, count, 1, *rows);
  if (failed(rest))
    return false;
  acc = *rest;
  rewriter.replaceOp(op, acc);
  return true;
}

/// The steps of the CPU's tiling and vectorization, shared by
/// mlc-cpu-tile-and-vectorize (both) and the passes that run each alone;
/// the fields are the passes' options.
struct Tiling {
  int64_t mTile, nTile, kTile, nBlock;
  SmallVector<int64_t> unpackedTilesOption;
  int64_t vectorWidth;
  bool parallel, printSchedules;
  std::string scheduleFile;
  bool lowerContractions, fuseEpilogues, stride2Windows, packBlocks;
  std::string pairMultiplyAdd;

  /// Applies the schedule file's entries to the contractions they name and
  /// prints every contraction's schedule when asked to. Kernels are named
  /// after their ONNX node; a node's second contraction gets `#1`, and so on.
  LogicalResult overrideAndPrint(
      func::FuncOp func,
      std::vector<std::pair<linalg::LinalgOp, ContractionSchedule>> &work) {
    std::optional<mlc::target::ScheduleOverrides> overrides;
    if (!scheduleFile.empty()) {
      auto loaded = mlc::target::ScheduleOverrides::load(
          scheduleFile, func.getContext(), func.getLoc());
      if (failed(loaded))
        return failure();
      overrides = std::move(*loaded);
    }
    llvm::StringMap<unsigned> seen;
    for (auto &[op, schedule] : work) {
      std::string name = mlc::loop::getKernelName(op.getLoc());
      if (unsigned earlier = seen[name]++)
        name += "#" + std::to_string(earlier);
      if (overrides)
        if (auto attr = overrides->lookup(name))
          if (failed(mlc::target::applyOverride(op, name, attr, schedule)))
            return failure();
      if (!printSchedules)
        continue;
      mlc::loop::printKernelSchedule(
          llvm::outs(), name, op.getStaticLoopRanges(),
          mlc::target::toAttr(func.getContext(), schedule));
    }
    return success();
  }

  /// The tiles for packed weights and for right-hand sides read in rows.
  LogicalResult getTiles(func::FuncOp func, Tiles &packed,
                         Tiles &unpacked) const {
    return mlc::target::getContractionTiles(func, mTile, nTile, kTile, nBlock,
                                            unpackedTilesOption, packed,
                                            unpacked);
  }

  /// Decides, as mlc-cpu-set-schedules does for kernels, the schedule of
  /// every contraction that has none (the passes run on linalg ops outside
  /// kernels), with the options' file and printing.
  LogicalResult decideContractions(func::FuncOp func) {
    Tiles packedTiles, unpackedTiles;
    if (failed(getTiles(func, packedTiles, unpackedTiles)))
      return failure();
    std::vector<std::pair<linalg::LinalgOp, ContractionSchedule>> undecided;
    func.walk([&](linalg::LinalgOp op) {
      if (mlc::loop::getDecidedSchedule(op))
        return;
      if (std::optional<ContractionSchedule> schedule = scheduleContraction(
              op, packedTiles, unpackedTiles, vectorWidth, parallel))
        undecided.emplace_back(op, *schedule);
    });
    if (failed(overrideAndPrint(func, undecided)))
      return failure();
    for (auto &[op, schedule] : undecided)
      op->setAttr(mlc::loop::LoopDialect::getScheduleAttrName(),
                  mlc::target::toAttr(func.getContext(), schedule));
    return success();
  }

  /// The thread and cache levels, as mlc-cpu-window-register-tiles,
  /// mlc-cpu-tile-by-schedule and mlc-cpu-parallelize-loop-nests do them.
  LogicalResult tileThreadsAndCaches(func::FuncOp func) {
    Tiles packedTiles, unpackedTiles;
    if (failed(getTiles(func, packedTiles, unpackedTiles)) ||
        failed(decideContractions(func)))
      return failure();
    mlc::target::prepareWindowRegisterTiles(
        func, {vectorWidth, unpackedTiles.n, parallel, stride2Windows,
               fuseEpilogues});
    std::unique_ptr<mlc::loop::TilingPolicy> policy =
        mlc::target::createCPUTilingPolicy(func, fuseEpilogues);
    if (failed(mlc::loop::tileBySchedules(func, *policy)))
      return failure();
    return mlc::target::parallelizeLoopNests(func, parallel);
  }

  /// The register level: every marked op tiled to its register tile (and
  /// cache tiles of read-in-rows right-hand sides packed with
  /// `packBlocks`), accumulators started in registers, remainders split,
  /// vectorized, accumulators hoisted, contractions lowered to FMAs.
  LogicalResult vectorizeRegisterTiles(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    Tiles packedTiles, unpackedTiles;
    if (failed(getTiles(func, packedTiles, unpackedTiles)))
      return failure();
    // Register level.
    llvm::DenseSet<int64_t> failedInits;
    SmallVector<linalg::LinalgOp> cacheTiles;
    // Rows known only at run time: static pieces of whole register tiles
    // and of single rows, one such dim at a time (each piece is static in
    // the dims already split).
    auto collect = [&] {
      cacheTiles.clear();
      func.walk([&](linalg::LinalgOp op) {
        if (op->hasAttr(mlc::loop::kRegisterTilesAttr))
          cacheTiles.push_back(op);
      });
    };
    for (int round = 0; round < 8; ++round) {
      collect();
      bool split = false;
      for (linalg::LinalgOp op : cacheTiles)
        split |= splitRunTimeRows(rewriter, op);
      if (!split)
        break;
    }
    collect();
    for (linalg::LinalgOp op : cacheTiles) {
      if (packBlocks)
        if (linalg::LinalgOp packed = packCacheTile(rewriter, op, unpackedTiles.m,
                                                          unpackedTiles.n))
          op = packed;
      auto sizes = op->getAttrOfType<DenseI64ArrayAttr>(mlc::loop::kRegisterTilesAttr);
      auto order = op->getAttrOfType<DenseI64ArrayAttr>(mlc::loop::kLoopOrderAttr);
      // Contractions had theirs at the cache level.
      linalg::GenericOp epilogue;
      if (!linalg::isaContractionOpInterface(op))
        epilogue = mlc::loop::findEpilogue(op);
      mlc::loop::TiledNest nest;
      FailureOr<Operation *> tiled =
          mlc::loop::tileLoops(rewriter, op, sizes.asArrayRef(), order.asArrayRef(),
                      /*forall=*/false, &nest);
      if (failed(tiled))
        return failure();
      if (epilogue && nest.tile && *tiled != op.getOperation()) {
        linalg::GenericOp row = mlc::loop::fuseEpilogue(
            rewriter, epilogue, epilogue.getDpsInitOperand(0)->get(), nest);
        // A window's epilogue runs on one output row: vectorized whole
        // with it, it reads the row's last register tile straight from the
        // registers that computed it (LLVM, vectorizing it alone, reloaded
        // the row just stored in pieces: a store-forwarding stall per row).
        // (A partial last tile of rows has a dynamic size until peeled.)
        SmallVector<int64_t> rowShape = row.getStaticLoopRanges();
        for (auto [i, e] : llvm::enumerate(nest.resultMap.getResults()))
          if (i < rowShape.size() && ShapedType::isDynamic(rowShape[i]))
            rowShape[i] = nest.sizes[cast<AffineDimExpr>(e).getPosition()];
        if (!llvm::any_of(rowShape, ShapedType::isDynamic)) {
          row->setAttr(mlc::loop::kRegisterTilesAttr, rewriter.getDenseI64ArrayAttr(rowShape));
          row->setAttr(mlc::loop::kLoopOrderAttr,
                       rewriter.getDenseI64ArrayAttr(llvm::to_vector(
                           llvm::seq<int64_t>(0, rowShape.size()))));
        }
      }
      // The tile's accumulators start from its init (vectorized with it).
      if (linalg::LinalgOp start =
              mlc::target::startAccumulators(rewriter, nest, failedInits)) {
        auto tile = cast<linalg::LinalgOp>(nest.tile);
        tile->removeAttr(mlc::target::kAccumulatesOntoAttr);
        AffineMap resultMap = tile.getIndexingMapMatchingResult(
            tile->getResult(0));
        SmallVector<int64_t> startTiles;
        for (AffineExpr e : resultMap.getResults())
          startTiles.push_back(
              sizes[cast<AffineDimExpr>(e).getPosition()]);
        start->setAttr(mlc::loop::kRegisterTilesAttr,
                       rewriter.getDenseI64ArrayAttr(startTiles));
        start->setAttr(mlc::loop::kLoopOrderAttr,
                       rewriter.getDenseI64ArrayAttr(llvm::to_vector(
                           llvm::seq<int64_t>(0, startTiles.size()))));
      }
    }
    // Inits every tile now starts from go; those left run as before, on
    // threads when large.
    for (Operation *kept :
         mlc::target::dropAccumulatorInits(rewriter, func, failedInits))
      if (parallel && !isa<linalg::FillOp>(kept))
        mlc::target::parallelizeLoopNest(rewriter, cast<linalg::LinalgOp>(kept));
    mlc::loop::peelMarkedLoops(rewriter, func);
    if (failed(mlc::loop::canonicalizeFunction(func)))
      return failure();
    splitRemainderTiles(rewriter, func, std::max<int64_t>(1, vectorWidth));
    mlc::loop::peelMarkedLoops(rewriter, func);
    if (failed(mlc::loop::canonicalizeFunction(func)))
      return failure();

    // Vectorize the register tiles: every marked op now has static shapes.
    SmallVector<linalg::LinalgOp> tiles;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(mlc::loop::kRegisterTilesAttr))
        tiles.push_back(op);
    });
    for (linalg::LinalgOp op : tiles) {
      if (!op.hasPureTensorSemantics() ||
          llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic)) {
        op->removeAttr(mlc::loop::kRegisterTilesAttr);
        op->removeAttr(mlc::loop::kLoopOrderAttr);
        continue;
      }
      // Contractions of i16 pairs: multiply-adds of pairs.
      if (std::optional<unsigned> pair = mlc::target::getPairDim(op))
        if (succeeded(mlc::target::vectorizePairTile(
                rewriter, op, *pair, std::max<int64_t>(1, vectorWidth),
                pairMultiplyAdd)))
          continue;
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
        hoistUniformInputs(rewriter, generic);
      rewriter.setInsertionPoint(op);
      // Window tiles index their input with sums of loop dims; with every
      // dim but the columns of size one, dropping the unit dims leaves
      // plain row accesses the vectorizer takes.
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
          generic && !llvm::all_of(generic.getIndexingMapsArray(),
                                   [](AffineMap m) {
                                     return m.isProjectedPermutation();
                                   })) {
        linalg::ControlDropUnitDims control;
        control.rankReductionStrategy = linalg::ControlDropUnitDims::
            RankReductionStrategy::ExtractInsertSlice;
        FailureOr<linalg::DropUnitDimsResult> dropped =
            linalg::dropUnitDims(rewriter, generic, control);
        if (failed(dropped))
          continue;
        rewriter.replaceOp(generic, dropped->replacements);
        op = cast<linalg::LinalgOp>(dropped->resultOp.getOperation());
        rewriter.setInsertionPoint(op);
      }
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, op, /*inputVectorSizes=*/{},
                            /*inputScalableVecDims=*/{},
                            /*vectorizeNDExtract=*/true,
                            /*flatten1DDepthwiseConv=*/false,
                            /*assumeDynamicDimsMatchVecSizes=*/false,
                            /*createNamedContraction=*/true);
      if (failed(vectorized)) {
        op->removeAttr(mlc::loop::kRegisterTilesAttr);
        op->removeAttr(mlc::loop::kLoopOrderAttr);
        continue;
      }
      rewriter.replaceOp(op, vectorized->replacements);
    }

    // Turn the vectorized bodies into contractions reading and writing the
    // loop-carried tensors directly, then hoist the accumulators.
    if (failed(applyVectorPatterns(func, [](RewritePatternSet &p) {
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
          vector::populateVectorReductionToContractPatterns(p);
          tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(p);
          p.add<FoldFullWriteIntoInsertSlice,
                FoldSliceTransfersIntoInsertSlice>(p.getContext());
          vector::TransferReadOp::getCanonicalizationPatterns(p,
                                                              p.getContext());
          vector::TransferWriteOp::getCanonicalizationPatterns(
              p, p.getContext());
        })))
      return failure();
    if (failed(applyVectorPatterns(func, [](RewritePatternSet &p) {
          vector::populateCastAwayVectorLeadingOneDimPatterns(p);
        })))
      return failure();
    if (failed(mlc::loop::canonicalizeFunction(func)))
      return failure();
    // Only loops of static bounds: the register level's reductions and
    // window taps, whose accumulators hoist. Their tile loops over sizes
    // known at run time hold nothing to hoist, and each query of upstream's
    // subset analysis there walks the sizes' whole chain of layers.
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (getConstantIntValue(loop.getLowerBound()) &&
          getConstantIntValue(loop.getUpperBound()) &&
          getConstantIntValue(loop.getStep()))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      (void)hoistLoopInvariantSubsets(
          rewriter, cast<LoopLikeOpInterface>(loop.getOperation()));

    // Outer products, then FMAs.
    if (lowerContractions && failed(applyVectorPatterns(func, [&](RewritePatternSet &p) {
          vector::populateVectorContractLoweringPatterns(
              p, vector::VectorContractLowering::OuterProduct);
          vector::populateVectorTransposeLoweringPatterns(
              p, vectorWidth == 16
                     ? vector::VectorTransposeLowering::Shuffle16x16
                     : vector::VectorTransposeLowering::EltWise);
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
        })))
      return failure();
    if (lowerContractions && failed(applyVectorPatterns(func, [](RewritePatternSet &p) {
          vector::populateVectorOuterProductLoweringPatterns(p);
          vector::populateVectorBroadcastLoweringPatterns(p);
          // Rows of the left-hand side are single loads + broadcasts, not
          // a gathered vector taken apart again.
          vector::populateScalarVectorTransferLoweringPatterns(
              p, /*benefit=*/1, /*allowMultipleUses=*/true);
        })))
      return failure();
    if (lowerContractions &&
        failed(applyVectorPatterns(func, [](RewritePatternSet &p) {
          p.add<mlc::target::FmaToContractedMulAdd<vector::FMAOp>>(
              p.getContext());
        })))
      return failure();
    func.walk([](Operation *op) {
      op->removeAttr(mlc::loop::kRegisterTilesAttr);
      op->removeAttr(mlc::loop::kLoopOrderAttr);
      op->removeAttr(mlc::loop::kEpilogueAttr);
      op->removeAttr(mlc::loop::LoopDialect::getScheduleAttrName());
    });
    if (failed(mlc::loop::canonicalizeFunction(func)))
      return failure();
    return success();
  }
};

/// A tiling pass: its options as a Tiling.
template <typename PassBase>
struct TilingPass : PassBase {
  using PassBase::PassBase;
  Tiling getTiling() const {
    return Tiling{this->mTile,
                  this->nTile,
                  this->kTile,
                  this->nBlock,
                  SmallVector<int64_t>(this->unpackedTilesOption.begin(),
                                       this->unpackedTilesOption.end()),
                  this->vectorWidth,
                  this->parallel,
                  this->printSchedules,
                  this->scheduleFile,
                  this->lowerContractions,
                  this->fuseEpilogues,
                  this->stride2Windows,
                  this->packBlocks,
                  this->pairMultiplyAdd};
  }
};

struct CPUTileAndVectorizePass
    : TilingPass<mlc::target::impl::CPUTileAndVectorizeBase<
          CPUTileAndVectorizePass>> {
  using TilingPass::TilingPass;
  void runOnOperation() override {
    Tiling tiling = getTiling();
    if (failed(tiling.tileThreadsAndCaches(getOperation())) ||
        failed(tiling.vectorizeRegisterTiles(getOperation())))
      signalPassFailure();
  }
};

struct CPUTileThreadsAndCachesPass
    : TilingPass<mlc::target::impl::CPUTileThreadsAndCachesBase<
          CPUTileThreadsAndCachesPass>> {
  using TilingPass::TilingPass;
  void runOnOperation() override {
    if (failed(getTiling().tileThreadsAndCaches(getOperation())))
      signalPassFailure();
  }
};

struct CPUVectorizeRegisterTilesPass
    : TilingPass<mlc::target::impl::CPUVectorizeRegisterTilesBase<
          CPUVectorizeRegisterTilesPass>> {
  using TilingPass::TilingPass;
  void runOnOperation() override {
    if (failed(getTiling().vectorizeRegisterTiles(getOperation())))
      signalPassFailure();
  }
};
} // namespace
