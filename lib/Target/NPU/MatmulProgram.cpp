//===- MatmulProgram.cpp - A matmul as an NPU command stream --------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The stream walks the output tiles row block by row block. Per tile t:
//
//   load queue:   [lhs rows of a new row block] rhs columns [out tile]
//   vector queue: [lhs f32 -> bf16]            [rhs f32 -> bf16]
//   compute:      matmul into accumulator tile t % n
//   store queue:  the accumulator tile to out
//
// Four tokens order them: the tile's last load signals L, which its first
// vector command (or, with none, its matmul) waits for; the last vector
// command signals V for the matmul; the matmul signals M for the store; the
// store signals S, which the first load of tile t + n waits for. Queue
// order and these waits make every reuse of a double buffer (lhs and rhs
// buffers by row block mod n, rhs buffers and accumulator tiles by tile
// mod n, with n = 2, 3 or 4 buffers of each, as timing chooses) happen
// after the last command that read it, which the simulator's hazard check
// verifies on every run, and let tile t + 1 load while tile t computes and
// tile t - 1 stores.
//
// A requantizing stream first loads its column table (signalling C for the
// first requantization); each tile's matmul then signals M to the vector
// unit, whose requantize_columns[_relu] writes the tile's int8 result
// buffer (t % n) and signals R for the store. The result buffer of tile
// t + n is written after the store of tile t, since that store's S precedes
// tile t + n's loads. A stream whose f32 sums leave as bf16 does the same
// with a copy (f32 to bf16) and no table.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/NPU/MatmulProgram.h"

#include "LocalLayout.h"

#include "mlc-runtime/NPU/Simulator.h"

#include <algorithm>
#include <limits>

using namespace mlc::npu;

namespace {
/// Every token has its signals from one queue and its waits in one queue,
/// so that the k-th wait takes the k-th signal: operands loaded for the
/// vector unit or for the matrix unit, converted, computed, stored.
constexpr int8_t kLoadedForVector = 0, kConverted = 1, kComputed = 2,
                 kStored = 3, kLoadedForMatrix = 4, kFreed = 5,
                 kRequantized = 6, kColumnsLoaded = 7;
/// Where one tile's double buffers go in local memory.
struct Footprint {
  int64_t lhsBuffer = 0, rhsBuffer = 0;       ///< one of the two, with padding
  int64_t lhsConverted = 0, rhsConverted = 0; ///< offsets inside a buffer
  int64_t accumulatorTile = 0;                ///< one of the two
  /// A requantizing stream's int8 result tiles (one of the n), after the
  /// operands' buffers, then its column table.
  int64_t resultBuffer = 0;
  int64_t scratchpad = 0, accumulator = 0;
};

/// The footprint of `tiles`: each of the four scratchpad buffers and the
/// two accumulator tiles starts a bank of its own when `banked` (units
/// working on different buffers then never wait for a bank's port),
/// otherwise they are packed.
Footprint getFootprint(const NPUConfig &config, const MatmulShape &shape,
                       ElementType input, const MatmulTiles &tiles,
                       bool banked) {
  int64_t n = tiles.buffers;
  int64_t in = getElementBytes(input);
  Footprint f;
  // A buffer holds the unit's operand, then (when converted on the NPU) the
  // f32 rows it is converted from.
  int64_t depth = tiles.getDepth(shape);
  // A direct convolution's row block holds the rows its taps reach too.
  int64_t lhs =
      (tiles.rows + shape.getMaxShift()) * depth / shape.getTaps() * in;
  int64_t rhs = depth * tiles.cols * in;
  f.lhsConverted = alignUp(lhs, kLocalAlignment);
  f.rhsConverted = alignUp(rhs, kLocalAlignment);
  if (shape.lhs != input)
    lhs = f.lhsConverted + tiles.rows * depth * getElementBytes(shape.lhs);
  if (shape.rhs != input)
    rhs = f.rhsConverted + depth * tiles.cols * getElementBytes(shape.rhs);
  int64_t acc = tiles.rows * tiles.cols * getElementBytes(shape.out);
  int64_t scratchBank = banked ? getScratchpadBank(config) : kLocalAlignment;
  int64_t accBank = banked ? std::max<int64_t>(config.accumulator.bytes /
                                                   config.accumulator.banks,
                                               kLocalAlignment)
                           : kLocalAlignment;
  f.lhsBuffer = alignUp(lhs, scratchBank);
  f.rhsBuffer = alignUp(rhs, scratchBank);
  f.accumulatorTile = alignUp(acc, accBank);
  f.scratchpad = n * f.lhsBuffer + n * f.rhsBuffer;
  if (shape.requantize || shape.roundResult) {
    f.resultBuffer = alignUp(tiles.rows * tiles.cols *
                                 getElementBytes(shape.getResultType()),
                             scratchBank);
    f.scratchpad += n * f.resultBuffer;
  }
  if (shape.requantize)
    f.scratchpad += alignUp(shape.n * 8, kLocalAlignment);
  f.accumulator = n * f.accumulatorTile;
  return f;
}

bool fits(const NPUConfig &config, const Footprint &f) {
  return f.scratchpad <= config.scratchpad.bytes &&
         f.accumulator <= config.accumulator.bytes;
}
} // namespace

std::optional<ElementType>
mlc::npu::getMatmulInputType(const NPUConfig &config, const MatmulShape &shape,
                             std::string &why) {
  auto name = [](ElementType t) { return std::string(getElementTypeName(t)); };
  if (shape.m < 1 || shape.n < 1 || shape.k < 1 || shape.batch < 1) {
    why = "an empty matmul";
    return std::nullopt;
  }
  if (shape.lhs == ElementType::Int8 && shape.rhs == ElementType::Int8) {
    if (shape.out == ElementType::Int32 &&
        config.supportsMatrix(ElementType::Int8, ElementType::Int32))
      return ElementType::Int8;
    why = "'" + config.name + "' has no int8 -> " + name(shape.out) +
          " matrix unit";
    return std::nullopt;
  }
  if (shape.out != ElementType::F32) {
    why = name(shape.lhs) + " x " + name(shape.rhs) + " -> " + name(shape.out) +
          " is not a product the NPU computes";
    return std::nullopt;
  }
  for (ElementType input : {ElementType::BF16, ElementType::F16}) {
    bool converted = shape.lhs != input || shape.rhs != input;
    // Only f32 is converted (to bf16: f16 would overflow past 65504).
    auto operandFits = [&](ElementType t) {
      return t == input ||
             (t == ElementType::F32 && input == ElementType::BF16);
    };
    if (!operandFits(shape.lhs) || !operandFits(shape.rhs) ||
        !config.supportsMatrix(input, ElementType::F32))
      continue;
    if (converted && !config.supportsVector("copy"))
      continue;
    return input;
  }
  why = "'" + config.name + "' has no matrix unit for " + name(shape.lhs) +
        " x " + name(shape.rhs) + " -> f32 (f32 needs bf16 -> f32 and the " +
        "vector unit's copy)";
  return std::nullopt;
}

std::optional<MatmulTiles> mlc::npu::chooseMatmulTiles(const NPUConfig &config,
                                                       const MatmulShape &shape,
                                                       std::string &why,
                                                       int64_t *cycles) {
  std::optional<ElementType> input = getMatmulInputType(config, shape, why);
  if (!input)
    return std::nullopt;
  int64_t r = config.matrix.rows, c = config.matrix.cols;
  // Row blocks: all of M (lhs loaded once), or multiples of the array's
  // rows up to 1024: powers of two and the largest. Columns: N, or N in 2,
  // 4, 8 or 16 parts, in multiples of the array's columns: more tiles
  // overlap more of their loads and stores with the matmuls, larger ones
  // preload fewer weights per row streamed.
  std::vector<int64_t> rowChoices{shape.m};
  int64_t maxRows = std::min(shape.m - 1, int64_t(1024)) / r * r;
  if (maxRows >= r)
    rowChoices.push_back(maxRows);
  for (int64_t rows = r; rows < maxRows; rows *= 2)
    rowChoices.push_back(rows);
  std::vector<int64_t> colChoices{shape.n};
  for (int64_t parts : {2, 4, 8, 16}) {
    int64_t cols = alignUp(ceilDiv(shape.n, parts), c);
    if (cols < shape.n && cols != colChoices.back())
      colChoices.push_back(cols);
  }
  // Every candidate whose buffers fit (in banks of their own when they
  // can, else packed), timed as the simulator would run it; the fastest
  // wins, the first on a tie.
  std::optional<MatmulTiles> best;
  int64_t bestCycles = 0;
  // Times `tiles` when their buffers fit, and says whether they did.
  auto consider = [&](const MatmulTiles &tiles) {
    if (!fits(config, getFootprint(config, shape, *input, tiles, false)))
      return false;
    std::string ignored;
    std::optional<Program> program =
        buildMatmulProgram(config, shape, tiles, {0, 0, 0}, ignored);
    // Timed only when its busiest unit alone would not make it slower.
    if (program && best &&
        getProgramCyclesBound(config, *program) >= bestCycles)
      return true;
    int64_t cycles = program ? getProgramCycles(config, *program) : -1;
    if (cycles > 0 && (!best || cycles < bestCycles)) {
      best = tiles;
      bestCycles = cycles;
    }
    return true;
  };
  for (int64_t buffers : {3, 2})
    for (int64_t rows : rowChoices)
      for (int64_t cols : colChoices)
        consider(MatmulTiles{rows, cols, buffers});
  // A fourth buffer of each lets a tile load while three others compute,
  // requantize and store: tried for the fastest tiles, taken where it is
  // faster still.
  if (best)
    consider(MatmulTiles{best->rows, best->cols, 4});
  // K in chunks (multiples of the array's rows) summed in the accumulator:
  // for each row and column choice the deepest chunks that fit, and
  // shallower ones (the array's rows times powers of two) with two and
  // three buffers of each, timed likewise. Deep chunks let larger tiles
  // fit where K is deep, and are the only choice where the whole of K fits
  // no tile; shallow ones start the first matrix command after a chunk of
  // each operand rather than a whole row block.
  if (colChoices.back() > c)
    colChoices.push_back(c);
  if (shape.getTaps() > 1)
    rowChoices.clear(); // a direct convolution's taps take all of K at once
  for (int64_t rows : rowChoices)
    for (int64_t cols : colChoices) {
      int64_t deepest = (shape.k - 1) / r * r;
      for (; deepest >= r; deepest -= r)
        if (consider(MatmulTiles{rows, cols, 2, deepest}))
          break;
      // At most 128 chunks (K = 4608 in chunks of 64): more pay a matrix
      // command's fill and drain too often, and take long to time.
      int64_t shallowest = r;
      while (ceilDiv(shape.k, shallowest) > 128)
        shallowest *= 2;
      for (int64_t buffers : {2, 3})
        for (int64_t depth = shallowest; depth < deepest; depth *= 2)
          consider(MatmulTiles{rows, cols, buffers, depth});
    }
  if (best) {
    if (cycles)
      *cycles = bestCycles;
    return best;
  }
  MatmulTiles smallest{std::min(shape.m, r), std::min(shape.n, c), 2,
                       std::min(shape.k, r)};
  Footprint f = getFootprint(config, shape, *input, smallest, false);
  why = "K = " + std::to_string(shape.k) + " does not fit: the smallest " +
        "tiles (" + std::to_string(smallest.rows) + "x" +
        std::to_string(smallest.cols) + ", K in chunks of " +
        std::to_string(smallest.getDepth(shape)) + ") need " +
        std::to_string(f.scratchpad) + " bytes of scratchpad and " +
        std::to_string(f.accumulator) + " of accumulator, '" + config.name +
        "' has " + std::to_string(config.scratchpad.bytes) + " and " +
        std::to_string(config.accumulator.bytes);
  return std::nullopt;
}

std::optional<Program> mlc::npu::buildMatmulProgram(
    const NPUConfig &config, const MatmulShape &shape, const MatmulTiles &tiles,
    const std::array<uint64_t, 4> &dram, std::string &why) {
  std::optional<ElementType> input = getMatmulInputType(config, shape, why);
  if (!input)
    return std::nullopt;
  if (shape.requantize &&
      (*input != ElementType::Int8 || shape.accumulate ||
       !config.supportsVector("requantize") ||
       (shape.relu && !config.supportsVector("relu")))) {
    why = "requantizing on the NPU needs an int8 matmul that does not "
          "accumulate and a vector unit with requantize (and relu)";
    return std::nullopt;
  }
  if (shape.roundResult &&
      (shape.requantize || shape.out != ElementType::F32 || shape.accumulate ||
       !config.supportsVector("copy"))) {
    why = "rounding the result to bf16 on the NPU needs f32 sums that do not "
          "accumulate and a vector unit with copy";
    return std::nullopt;
  }
  Footprint f = getFootprint(config, shape, *input, tiles, true);
  if (!fits(config, f))
    f = getFootprint(config, shape, *input, tiles, false);
  if (tiles.rows < 1 || tiles.cols < 1 || tiles.buffers < 2 ||
      !fits(config, f)) {
    why = "tiles of " + std::to_string(tiles.rows) + "x" +
          std::to_string(tiles.cols) + " do not fit '" + config.name + "'";
    return std::nullopt;
  }
  constexpr int64_t kField = std::numeric_limits<uint32_t>::max();
  int64_t lhsBytes = getElementBytes(shape.lhs);
  int64_t rhsBytes = getElementBytes(shape.rhs);
  int64_t outBytes = getElementBytes(shape.getResultType());
  if (shape.k * lhsBytes > kField || shape.n * outBytes > kField ||
      tiles.depth < 0 || shape.n * rhsBytes > kField || shape.m > kField ||
      shape.k > kField) {
    why = "a row of the matmul does not fit a command's 32-bit fields";
    return std::nullopt;
  }
  int64_t accTile = f.accumulatorTile;
  int64_t n = tiles.buffers;
  auto lhsBase = [&](int64_t index) { return index * f.lhsBuffer; };
  auto rhsBase = [&](int64_t index) {
    return n * f.lhsBuffer + index * f.rhsBuffer;
  };
  int64_t resultBase = n * (f.lhsBuffer + f.rhsBuffer);
  int64_t columnsBase = resultBase + n * f.resultBuffer;

  Program program;
  auto add = [&](Command c) { program.commands.push_back(c); };
  if (shape.requantize) {
    // The column table (8 bytes a column), once, for the first
    // requantization.
    Command columns;
    columns.opcode = Opcode::Load;
    columns.type = ElementType::Int32;
    columns.dram = dram[3];
    columns.local = uint32_t(columnsBase);
    columns.rows = 1;
    columns.cols = uint32_t(2 * shape.n);
    columns.dramStride = uint32_t(shape.n * 8);
    columns.signal = kColumnsLoaded;
    add(columns);
  }
  int64_t depth = tiles.getDepth(shape);
  int64_t chunks = ceilDiv(shape.k, depth);
  int64_t taps = shape.getTaps(), tapDepth = shape.getLhsCols();
  if (taps > 1 && (chunks > 1 || shape.k % taps != 0 || shape.lhs != *input ||
                   shape.rhs != *input || shape.batch != 1 ||
                   std::any_of(shape.rowShifts.begin(), shape.rowShifts.end(),
                               [](int64_t shift) { return shift < 0; }))) {
    why = "a direct convolution needs the whole of each tap's depth at once, "
          "operands in the matrix unit's type and no batch";
    return std::nullopt;
  }
  int64_t rowBlocks = ceilDiv(shape.m, tiles.rows);
  int64_t colTiles = ceilDiv(shape.n, tiles.cols);
  int64_t count = shape.batch * rowBlocks * colTiles;
  int64_t total = count * chunks;
  // The highest tile whose "stored" signal the load queue has taken (they
  // come in tile order), and each store's command index.
  int64_t stored = -1;
  std::vector<size_t> stores;
  for (int64_t g = 0; g < total; ++g) {
    int64_t t = g / chunks, chunk = g % chunks;
    // Row blocks count on across the matrices of a batch.
    int64_t block = t / colTiles, column = t % colTiles;
    int64_t matrix = block / rowBlocks;
    int64_t i0 = (block % rowBlocks) * tiles.rows, j0 = column * tiles.cols;
    uint64_t lhsMatrix =
        dram[0] + uint64_t(matrix * shape.m * shape.k * lhsBytes);
    uint64_t rhsMatrix =
        dram[1] + uint64_t(matrix * shape.k * shape.n * rhsBytes);
    uint64_t outMatrix =
        dram[2] + uint64_t(matrix * shape.m * shape.n * outBytes);
    int64_t k0 = chunk * depth;
    uint32_t rows = uint32_t(std::min(tiles.rows, shape.m - i0));
    uint32_t cols = uint32_t(std::min(tiles.cols, shape.n - j0));
    uint32_t kd = uint32_t(std::min(depth, shape.k - k0));
    bool first = chunk == 0, last = chunk == chunks - 1;
    // With the whole of K at once, a row block's lhs rows are loaded once,
    // into buffer block % n; with chunks, each chunk's into g % n.
    bool loadLhs = chunks > 1 || column == 0;
    int64_t a = lhsBase(chunks > 1 ? g % n : block % n);
    int64_t b = rhsBase(chunks > 1 ? g % n : t % n);
    int64_t acc = (t % n) * accTile;

    // A load of `r` rows of `c` elements of `type`, `stride` bytes apart
    // in DRAM from `from`, into local `to`.
    auto load = [](ElementType type, uint64_t from, int64_t to, uint32_t r,
                   uint32_t c, int64_t stride) {
      Command load;
      load.opcode = Opcode::Load;
      load.type = type;
      load.dram = from;
      load.local = uint32_t(to);
      load.rows = r;
      load.cols = c;
      load.dramStride = uint32_t(stride);
      return load;
    };
    std::vector<Command> loads;
    if (loadLhs && taps > 1)
      // The row block and the rows its taps reach, once.
      loads.push_back(load(shape.lhs,
                           lhsMatrix + uint64_t(i0 * tapDepth * lhsBytes), a,
                           uint32_t(std::min(tiles.rows + shape.getMaxShift(),
                                             shape.getLhsRows() - i0)),
                           uint32_t(tapDepth), tapDepth * lhsBytes));
    else if (loadLhs)
      loads.push_back(load(shape.lhs,
                           lhsMatrix + uint64_t((i0 * shape.k + k0) * lhsBytes),
                           shape.lhs == *input ? a : a + f.lhsConverted, rows,
                           kd, shape.k * lhsBytes));
    loads.push_back(load(shape.rhs,
                         rhsMatrix + uint64_t((k0 * shape.n + j0) * rhsBytes),
                         shape.rhs == *input ? b : b + f.rhsConverted, kd, cols,
                         shape.n * rhsBytes));
    Command out;
    out.type = shape.getResultType();
    out.memory = Memory::Accumulator;
    out.dram = outMatrix + uint64_t((i0 * shape.n + j0) * outBytes);
    out.local = uint32_t(acc);
    out.rows = rows;
    out.cols = cols;
    out.dramStride = uint32_t(shape.n * outBytes);
    if (shape.accumulate && first) {
      Command init = out;
      init.opcode = Opcode::Load;
      loads.push_back(init);
    }


    // What the loads must wait for: the accumulator tile (a new tile's)
    // stored n tiles back; the buffers read by the matrix command of chunk
    // g - n, whose end a "stored" signal says when it was its tile's last
    // chunk and a "freed" one otherwise.
    int64_t needStored = first ? t - n : -1;
    bool needFreed = false;
    if (g >= n) {
      int64_t previous = g - n;
      if (previous % chunks == chunks - 1)
        needStored = std::max(needStored, previous / chunks);
      else
        needFreed = true;
    }
    if (needFreed)
      loads.front().waitMask |= uint16_t(1u << kFreed);
    for (size_t l = 0; stored < needStored; ++l, ++stored) {
      if (l == loads.size()) {
        why = "the stream's synchronization does not fit its loads";
        return std::nullopt;
      }
      loads[l].waitMask |= uint16_t(1u << kStored);
    }

    // Conversions of the operands loaded as f32.
    std::vector<Command> converts;
    auto convert = [&](ElementType from, int64_t base, int64_t offset,
                       uint32_t r, uint32_t c) {
      Command v;
      v.opcode = Opcode::Vector;
      v.vectorOp = VectorKind::Copy;
      v.type = from;
      v.dstType = *input;
      v.local = uint32_t(base + offset);
      v.local3 = uint32_t(base);
      v.rows = r;
      v.cols = c;
      converts.push_back(v);
    };
    if (loadLhs && shape.lhs != *input)
      convert(shape.lhs, a, f.lhsConverted, rows, kd);
    if (shape.rhs != *input)
      convert(shape.rhs, b, f.rhsConverted, kd, cols);
    loads.back().signal =
        converts.empty() ? kLoadedForMatrix : kLoadedForVector;
    if (!converts.empty()) {
      converts.front().waitMask |= uint16_t(1u << kLoadedForVector);
      converts.back().signal = kConverted;
    }
    for (const Command &c : loads)
      add(c);
    for (const Command &c : converts)
      add(c);

    // One matrix command, or one per tap, each reading the row block
    // shifted and its own rows of the rhs, summed in the accumulator.
    for (int64_t tap = 0; tap < taps; ++tap) {
      Command mma;
      mma.opcode = Opcode::Matmul;
      mma.type = *input;
      mma.local = uint32_t(taps > 1 ? a + shape.rowShifts[size_t(tap)] *
                                              tapDepth * lhsBytes
                                    : a);
      mma.local2 = uint32_t(b + tap * tapDepth * cols * rhsBytes);
      mma.local3 = uint32_t(acc);
      mma.rows = rows;
      mma.cols = cols;
      mma.depth = taps > 1 ? uint32_t(tapDepth) : kd;
      mma.accumulate = !first || shape.accumulate || tap > 0;
      if (tap == 0)
        mma.waitMask =
            uint16_t(1u << (converts.empty() ? kLoadedForMatrix : kConverted));
      // The last chunk's end goes to the store; another's frees its
      // buffers for chunk g + n.
      if (tap == taps - 1)
        mma.signal = last ? kComputed : g + n < total ? kFreed : int8_t(-1);
      add(mma);
    }

    bool finished = shape.requantize || shape.roundResult;
    if (last && finished) {
      // The sums plus each column's bias, relu, scaled to int8 (or the
      // sums rounded to bf16) into a result buffer.
      int64_t result = resultBase + (t % n) * f.resultBuffer;
      Command v;
      v.opcode = Opcode::Vector;
      v.vectorOp = shape.roundResult ? VectorKind::Copy
                   : shape.relu      ? VectorKind::RequantizeColumnsRelu
                                     : VectorKind::RequantizeColumns;
      v.type =
          shape.out == ElementType::F32 ? ElementType::F32 : ElementType::Int32;
      v.dstType = shape.getResultType();
      v.memory = Memory::Accumulator;
      v.dstMemory = Memory::Scratchpad;
      v.local = uint32_t(acc);
      if (shape.requantize)
        v.local2 = uint32_t(columnsBase + j0 * 8);
      v.local3 = uint32_t(result);
      v.rows = rows;
      v.cols = cols;
      v.zeroPoint = shape.zeroPoint;
      v.waitMask = uint16_t(1u << kComputed);
      if (t == 0 && shape.requantize)
        v.waitMask |= uint16_t(1u << kColumnsLoaded);
      v.signal = kRequantized;
      add(v);
      out.memory = Memory::Scratchpad;
      out.local = uint32_t(result);
    }
    if (last) {
      out.opcode = Opcode::Store;
      out.waitMask = uint16_t(1u << (finished ? kRequantized : kComputed));
      out.signal = kStored;
      stores.push_back(program.commands.size());
      add(out);
    }
  }
  // Only the "stored" signals the loads take.
  for (size_t t = size_t(stored + 1); t < stores.size(); ++t)
    program.commands[stores[t]].signal = -1;
  if (!checkProgram(config, program, why))
    return std::nullopt;
  return program;
}

bool mlc::npu::checkProgram(const NPUConfig &config, const Program &program,
                            std::string &why) {
  for (size_t i = 0; i < program.commands.size(); ++i) {
    std::string problem = validateCommand(config, program.commands[i]);
    if (!problem.empty()) {
      why = "command " + std::to_string(i) + ": " + problem;
      return false;
    }
  }
  return true;
}

int64_t mlc::npu::getProgramCycles(const NPUConfig &config,
                                   const Program &program) {
  SimulationStats stats;
  std::string error;
  if (!Simulator(config).time(program, stats, error))
    return -1;
  return stats.cycles;
}
