//===- NPUSimulatorTest.cpp - The NPU description, stream and simulator ---===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each command of the stream against a reference computed here, the timing
// model's arithmetic, double buffering against the same work serialized,
// and each way a program or a description can be wrong.
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/NPU/Simulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace mlc::npu;

namespace {
NPUConfig edge() { return *getBuiltinNPUConfig("edge"); }
NPUConfig large() { return *getBuiltinNPUConfig("large"); }

Command load(uint64_t dram, uint32_t local, uint32_t rows, uint32_t cols,
             ElementType type = ElementType::Int8,
             Memory memory = Memory::Scratchpad) {
  Command c;
  c.opcode = Opcode::Load;
  c.type = type;
  c.memory = memory;
  c.dram = dram;
  c.local = local;
  c.rows = rows;
  c.cols = cols;
  c.dramStride = cols * getElementBytes(type);
  return c;
}

Command store(uint64_t dram, uint32_t local, uint32_t rows, uint32_t cols,
              ElementType type, Memory memory) {
  Command c = load(dram, local, rows, cols, type, memory);
  c.opcode = Opcode::Store;
  return c;
}

Command matmul(uint32_t a, uint32_t b, uint32_t out, uint32_t m, uint32_t k,
               uint32_t n, ElementType type = ElementType::Int8) {
  Command c;
  c.opcode = Opcode::Matmul;
  c.type = type;
  c.local = a;
  c.local2 = b;
  c.local3 = out;
  c.rows = m;
  c.depth = k;
  c.cols = n;
  return c;
}

/// A vector command over one row of 8 elements.
Command vector(VectorKind op, ElementType from, ElementType to, Memory src,
               Memory dst, uint32_t s, uint32_t s2, uint32_t d) {
  Command c;
  c.opcode = Opcode::Vector;
  c.vectorOp = op;
  c.type = from;
  c.dstType = to;
  c.memory = src;
  c.dstMemory = dst;
  c.local = s;
  c.local2 = s2;
  c.local3 = d;
  c.rows = 1;
  c.cols = 8;
  return c;
}

template <typename T> void put(std::vector<uint8_t> &dram, uint64_t at,
                               const std::vector<T> &values) {
  std::memcpy(dram.data() + at, values.data(), values.size() * sizeof(T));
}

template <typename T>
std::vector<T> get(const std::vector<uint8_t> &dram, uint64_t at, size_t n) {
  std::vector<T> values(n);
  std::memcpy(values.data(), dram.data() + at, n * sizeof(T));
  return values;
}

std::vector<int8_t> randomInt8(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = int8_t(d(rng));
  return v;
}

std::vector<int32_t> referenceMatmul(const std::vector<int8_t> &a,
                                     const std::vector<int8_t> &b, int m,
                                     int k, int n) {
  std::vector<int32_t> c(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p)
        c[i * n + j] += int32_t(a[i * k + p]) * int32_t(b[p * n + j]);
  return c;
}

/// Runs `program` on `dram` with `config`; expects success.
SimulationStats run(const NPUConfig &config, const Program &program,
                    std::vector<uint8_t> &dram) {
  Simulator simulator(config);
  SimulationStats stats;
  std::string error;
  EXPECT_TRUE(simulator.run(program, dram.data(), dram.size(), stats, error))
      << error;
  return stats;
}

/// The run's error.
std::string fail(const NPUConfig &config, const Program &program,
                 std::vector<uint8_t> &dram) {
  Simulator simulator(config);
  SimulationStats stats;
  std::string error;
  EXPECT_FALSE(simulator.run(program, dram.data(), dram.size(), stats, error));
  return error;
}
} // namespace

TEST(NPUConfig, BuiltinsAndFiles) {
  NPUConfig e = edge();
  EXPECT_EQ(e.matrix.rows, 16);
  EXPECT_EQ(e.scratchpad.bytes, 256 * 1024);
  EXPECT_EQ(e.accumulator.bytes, 64 * 1024);
  EXPECT_TRUE(e.supportsMatrix(ElementType::Int8, ElementType::Int32));
  EXPECT_FALSE(e.supportsMatrix(ElementType::BF16, ElementType::F32));
  NPUConfig l = large();
  EXPECT_EQ(l.matrix.rows, 64);
  EXPECT_TRUE(l.supportsMatrix(ElementType::BF16, ElementType::F32));

  std::string error;
  EXPECT_FALSE(loadNPUConfig("tpu-v9", error));
  EXPECT_NE(error.find("neither a built-in NPU (edge, large)"),
            std::string::npos);
  EXPECT_FALSE(parseNPUConfig("{", "bad.json", error));
  EXPECT_EQ(error, "bad.json: not a JSON object");
  EXPECT_FALSE(parseNPUConfig(
      R"({"clock_mhz": 1, "matrix": {"rows": 0, "cols": 4, "types": []},
          "vector": {"width": 1, "ops": []}, "scratchpad": {"bytes": 1,
          "banks": 1}, "accumulator": {"bytes": 1, "banks": 1},
          "dma": {"channels": 1, "bytes_per_cycle": 1, "latency_cycles": 1}})",
      "zero.json", error));
  EXPECT_EQ(error, "zero.json: matrix.rows must be a positive integer");
  EXPECT_FALSE(parseNPUConfig(
      R"({"clock_mhz": 1, "matrix": {"rows": 4, "cols": 4,
          "types": [["int8", "f32"]]}, "vector": {"width": 1, "ops": []},
          "scratchpad": {"bytes": 1, "banks": 1},
          "accumulator": {"bytes": 1, "banks": 1},
          "dma": {"channels": 1, "bytes_per_cycle": 1, "latency_cycles": 1}})",
      "types.json", error));
  EXPECT_NE(error.find("[\"int8\",\"f32\"] is not one of"), std::string::npos)
      << error;
  EXPECT_FALSE(parseNPUConfig(
      R"({"clock_mhz": 1, "matrix": {"rows": 4, "cols": 4,
          "types": [["int8", "int32"]], "weight_buffers": 3},
          "vector": {"width": 1, "ops": []},
          "scratchpad": {"bytes": 1, "banks": 1},
          "accumulator": {"bytes": 1, "banks": 1},
          "dma": {"channels": 1, "bytes_per_cycle": 1, "latency_cycles": 1}})",
      "buffers.json", error));
  EXPECT_EQ(error, "buffers.json: matrix.weight_buffers must be 1 or 2");
  // Written and read back the same; absent, one weight register.
  EXPECT_EQ(e.matrix.weightBuffers, 2);
  std::optional<NPUConfig> again =
      parseNPUConfig(printNPUConfig(l), "again", error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(printNPUConfig(*again), printNPUConfig(l));
}

TEST(NPUProgram, RoundTripsAndRefusesBadStreams) {
  Program program;
  program.commands.push_back(load(64, 128, 3, 5));
  Command m = matmul(0, 256, 512, 4, 8, 16);
  m.accumulate = true;
  m.waitMask = 0x5;
  m.signal = 3;
  program.commands.push_back(m);
  Command v;
  v.opcode = Opcode::Vector;
  v.vectorOp = VectorKind::Requantize;
  v.type = ElementType::Int32;
  v.dstType = ElementType::Int8;
  v.scale = 0.25f;
  v.zeroPoint = -3;
  v.rows = v.cols = 2;
  program.commands.push_back(v);
  std::vector<uint8_t> bytes = serializeProgram(program);
  ASSERT_EQ(bytes.size(), 16u + 3 * 64);
  std::string error;
  std::optional<Program> parsed =
      parseProgram(bytes.data(), bytes.size(), error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(serializeProgram(*parsed), bytes);
  EXPECT_EQ(parsed->commands[1].waitMask, 0x5);
  EXPECT_EQ(parsed->commands[2].zeroPoint, -3);

  EXPECT_FALSE(parseProgram(bytes.data(), bytes.size() - 1, error));
  EXPECT_NE(error.find("cannot hold the 3 commands"), std::string::npos);
  std::vector<uint8_t> wrong = bytes;
  wrong[8] = 9;
  EXPECT_FALSE(parseProgram(wrong.data(), wrong.size(), error));
  EXPECT_EQ(error, "NPU command stream version 9; this simulator reads "
                   "version 1");
  wrong = bytes;
  wrong[16] = 0x77;
  EXPECT_FALSE(parseProgram(wrong.data(), wrong.size(), error));
  EXPECT_EQ(error, "NPU command 0: bad opcode");
  EXPECT_FALSE(parseProgram(bytes.data(), 4, error));
  // Vector ops 1-9 (7 dequantize, 8 max_pool with its window, 9
  // average_pool); 10 is none.
  program.commands[2].vectorOp = VectorKind::Dequantize;
  bytes = serializeProgram(program);
  parsed = parseProgram(bytes.data(), bytes.size(), error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->commands[2].vectorOp, VectorKind::Dequantize);
  program.commands[2].vectorOp = VectorKind::MaxPool;
  program.commands[2].depth = 300;
  program.commands[2].window = {3, 2, 2, 1, 1, 0, 1000, 40000};
  bytes = serializeProgram(program);
  parsed = parseProgram(bytes.data(), bytes.size(), error);
  ASSERT_TRUE(parsed) << error;
  const Window &w = parsed->commands[2].window;
  EXPECT_EQ(parsed->commands[2].vectorOp, VectorKind::MaxPool);
  EXPECT_EQ(parsed->commands[2].depth, 300u);
  EXPECT_EQ(std::vector<int>({w.rows, w.cols, w.strideRows, w.strideCols,
                              w.padTop, w.padLeft, w.outRows, w.outCols}),
            std::vector<int>({3, 2, 2, 1, 1, 0, 1000, 40000}));
  EXPECT_EQ(serializeProgram(*parsed), bytes);
  bytes[16 + 2 * 64 + 3] = 9;
  parsed = parseProgram(bytes.data(), bytes.size(), error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->commands[2].vectorOp, VectorKind::AveragePool);
  bytes[16 + 2 * 64 + 3] = 10;
  EXPECT_FALSE(parseProgram(bytes.data(), bytes.size(), error));
  EXPECT_EQ(error, "NPU command 2: bad vector op");
}

TEST(NPUSimulator, LoadAndStoreMoveStridedRows) {
  // A 3x4 int8 block out of a 3x10 DRAM matrix and back elsewhere.
  std::vector<uint8_t> dram(1024);
  for (int i = 0; i < 30; ++i)
    dram[i] = uint8_t(i);
  Program program;
  Command in = load(2, 0, 3, 4);
  in.dramStride = 10;
  in.signal = 0;
  program.commands.push_back(in);
  Command out = store(512, 0, 3, 4, ElementType::Int8, Memory::Scratchpad);
  out.waitMask = 1;
  program.commands.push_back(out);
  SimulationStats stats = run(edge(), program, dram);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(dram[512 + r * 4 + c], uint8_t(r * 10 + 2 + c));
  // Two transfers of 12 bytes: latency + ceil(12/16) each, one channel.
  EXPECT_EQ(stats.cycles, 2 * (100 + 1));
  EXPECT_EQ(stats.bytesLoaded, 12);
  EXPECT_EQ(stats.bytesStored, 12);

  // large's four 64-byte channels: loads own two and stores two, and a
  // transfer's rows are spread over its queue's (a row is not split).
  Simulator simulator(large());
  EXPECT_EQ(simulator.getCycles(load(0, 0, 8, 256)), 200 + 4 * 256 / 64);
  EXPECT_EQ(simulator.getCycles(load(0, 0, 7, 256)), 200 + 4 * 256 / 64);
  EXPECT_EQ(simulator.getCycles(load(0, 0, 1, 256)), 200 + 256 / 64);
  EXPECT_EQ(simulator.getCycles(
                store(0, 0, 8, 64, ElementType::F32, Memory::Accumulator)),
            200 + 4 * 256 / 64);
  NPUConfig three = large();
  three.dma.channels = 3;
  EXPECT_EQ(Simulator(three).getCycles(load(0, 0, 8, 256)),
            200 + 4 * 256 / 64);
  EXPECT_EQ(Simulator(three).getCycles(
                store(0, 0, 8, 64, ElementType::F32, Memory::Accumulator)),
            200 + 8 * 256 / 64);
}

TEST(NPUSimulator, Int8MatmulIsExact) {
  const int m = 20, k = 37, n = 24;
  std::vector<int8_t> a = randomInt8(m * k, 1), b = randomInt8(k * n, 2);
  std::vector<uint8_t> dram(64 * 1024);
  put(dram, 0, a);
  put(dram, 4096, b);
  Program p;
  Command la = load(0, 0, m, k), lb = load(4096, 8192, k, n);
  la.signal = 0;
  lb.signal = 1;
  Command mm = matmul(0, 8192, 0, m, k, n);
  mm.waitMask = 0x3;
  mm.signal = 2;
  // Twice, accumulating: C = 2 A B.
  Command again = mm;
  again.accumulate = true;
  again.waitMask = 0;
  Command out = store(16384, 0, m, n, ElementType::Int32, Memory::Accumulator);
  out.waitMask = 0x4;
  p.commands = {la, lb, mm, again, out};
  // The second matmul runs after the first on the compute queue, but the
  // store waits only for the first one's token: that is a hazard.
  std::string error = fail(edge(), p, dram);
  EXPECT_NE(error.find("hazard: command 4 and command 3 touch accumulator"),
            std::string::npos)
      << error;
  p.commands[2].signal = -1;
  p.commands[3].signal = 2;
  SimulationStats stats = run(edge(), p, dram);
  std::vector<int32_t> want = referenceMatmul(a, b, m, k, n);
  std::vector<int32_t> got = get<int32_t>(dram, 16384, m * n);
  for (int i = 0; i < m * n; ++i)
    ASSERT_EQ(got[i], 2 * want[i]) << i;
  EXPECT_EQ(stats.multiplyAccumulates, 2 * m * k * n);
  // ceil(37/16) * ceil(24/16) weight tiles: with edge's double-buffered
  // weights the first preload (16), then 20 rows per tile while the next
  // one preloads, + 31 fill; with one weight register, each tile's preload
  // stalls the array.
  EXPECT_EQ(Simulator(edge()).getCycles(mm), 16 + 3 * 2 * 20 + 31);
  NPUConfig single = edge();
  single.matrix.weightBuffers = 1;
  EXPECT_EQ(Simulator(single).getCycles(mm), 3 * 2 * (16 + 20) + 31);
  // Fewer rows than the preload takes: the preload bounds each tile.
  Command few = matmul(0, 0, 0, 5, 64, 16);
  EXPECT_EQ(Simulator(edge()).getCycles(few), 16 + 4 * 16 + 31);
}

TEST(NPUSimulator, BF16MatmulAccumulatesInF32) {
  // Values exact in bf16, so the f32 sums are exact too.
  const int m = 3, k = 5, n = 2;
  std::vector<uint16_t> a(m * k), b(k * n);
  std::vector<float> fa(m * k), fb(k * n);
  for (int i = 0; i < m * k; ++i) {
    fa[i] = float(i % 7) - 3.0f;
    uint32_t bits;
    std::memcpy(&bits, &fa[i], 4);
    a[i] = uint16_t(bits >> 16);
  }
  for (int i = 0; i < k * n; ++i) {
    fb[i] = 0.5f * float(i % 5);
    uint32_t bits;
    std::memcpy(&bits, &fb[i], 4);
    b[i] = uint16_t(bits >> 16);
  }
  std::vector<uint8_t> dram(4096);
  put(dram, 0, a);
  put(dram, 1024, b);
  Program p;
  Command la = load(0, 0, m, k, ElementType::BF16);
  Command lb = load(1024, 1024, k, n, ElementType::BF16);
  la.signal = 0;
  lb.signal = 1;
  Command mm = matmul(0, 1024, 0, m, k, n, ElementType::BF16);
  mm.waitMask = 3;
  mm.signal = 2;
  Command out = store(2048, 0, m, n, ElementType::F32, Memory::Accumulator);
  out.waitMask = 4;
  p.commands = {la, lb, mm, out};
  run(large(), p, dram);
  std::vector<float> got = get<float>(dram, 2048, m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int q = 0; q < k; ++q)
        want += fa[i * k + q] * fb[q * n + j];
      EXPECT_EQ(got[i * n + j], want);
    }
  // The edge NPU has no bf16 matrix unit.
  std::string error = fail(edge(), p, dram);
  EXPECT_EQ(error, "command 2 (compute): the matrix unit of 'edge' has no "
                   "bf16 -> f32");
}

TEST(NPUSimulator, VectorOps) {
  std::vector<uint8_t> dram(4096);
  put(dram, 0, std::vector<int32_t>{-7, 0, 5, 1000, -1000, 6, 10, -10});
  put(dram, 64, std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8});
  Program p;
  Command l1 = load(0, 0, 1, 8, ElementType::Int32, Memory::Accumulator);
  Command l2 = load(64, 64, 1, 8, ElementType::Int32, Memory::Accumulator);
  l1.signal = 0;
  l2.signal = 1;
  Command add = vector(VectorKind::Add, ElementType::Int32, ElementType::Int32,
                       Memory::Accumulator, Memory::Accumulator, 0, 64, 128);
  add.waitMask = 3; // both loads; the vector queue is in order after that
  Command relu = vector(VectorKind::Relu, ElementType::Int32, ElementType::Int32,
                        Memory::Accumulator, Memory::Accumulator, 0, 0, 192);
  // Requantize the sums: round half to even, then add -1 and saturate.
  Command requant =
      vector(VectorKind::Requantize, ElementType::Int32, ElementType::Int8,
             Memory::Accumulator, Memory::Scratchpad, 128, 0, 0);
  requant.scale = 0.5f;
  requant.zeroPoint = -1;
  requant.signal = 2;
  Command toF32 = vector(VectorKind::Copy, ElementType::Int32, ElementType::F32,
                         Memory::Accumulator, Memory::Accumulator, 192, 0, 256);
  toF32.signal = 3;
  Command o1 = store(1024, 0, 1, 8, ElementType::Int8, Memory::Scratchpad);
  Command o2 = store(2048, 256, 1, 8, ElementType::F32, Memory::Accumulator);
  o1.waitMask = 1 << 2;
  o2.waitMask = 1 << 3;
  p.commands = {l1, l2, add, relu, requant, toF32, o1, o2};
  run(edge(), p, dram);
  // Sums: -6 2 8 1004 -995 12 17 -2; halves rounded to even, minus 1.
  std::vector<int8_t> q = get<int8_t>(dram, 1024, 8);
  EXPECT_EQ(q, (std::vector<int8_t>{-4, 0, 3, 127, -128, 5, 7, -2}));
  std::vector<float> r = get<float>(dram, 2048, 8);
  EXPECT_EQ(r, (std::vector<float>{0, 0, 5, 1000, 0, 6, 10, 0}));
}

TEST(NPUSimulator, RequantizeByColumn) {
  // Two rows of int32 sums plus each column's bias, relu or not, scaled
  // by the column's own scale: a table of (int32, f32) pairs loaded into
  // the scratchpad.
  std::vector<uint8_t> dram(1024);
  put(dram, 0, std::vector<int32_t>{100, -7, 300, 9, -100, 7, -300, -90});
  for (int j = 0; j < 4; ++j) {
    int32_t bias = (j - 1) * 10;
    float scale = std::vector<float>{0.5f, 1.0f, 0.25f, 2.0f}[j];
    put(dram, 64 + 8 * j, std::vector<int32_t>{bias});
    put(dram, 68 + 8 * j, std::vector<float>{scale});
  }
  auto program = [&](VectorKind kind) {
    Program p;
    Command sums = load(0, 0, 2, 4, ElementType::Int32, Memory::Accumulator);
    sums.signal = 0;
    Command table = load(64, 512, 1, 8, ElementType::Int32);
    table.signal = 1;
    Command q;
    q.opcode = Opcode::Vector;
    q.vectorOp = kind;
    q.type = ElementType::Int32;
    q.dstType = ElementType::Int8;
    q.memory = Memory::Accumulator;
    q.local = 0;
    q.local2 = 512;
    q.local3 = 0;
    q.rows = 2;
    q.cols = 4;
    q.zeroPoint = 3;
    q.waitMask = 3;
    q.signal = 2;
    Command out = store(256, 0, 2, 4, ElementType::Int8, Memory::Scratchpad);
    out.waitMask = 1 << 2;
    p.commands = {sums, table, q, out};
    return p;
  };
  run(edge(), program(VectorKind::RequantizeColumns), dram);
  // (100 - 10) * 0.5 + 3, -7 * 1 + 3, (300 + 10) * 0.25 + 3 (77.5 to
  // even), (9 + 20) * 2 + 3; then the second row, (-90 + 20) * 2 + 3
  // saturating at -128.
  EXPECT_EQ(get<int8_t>(dram, 256, 8),
            (std::vector<int8_t>{48, -4, 81, 61, -52, 10, -69, -128}));
  run(edge(), program(VectorKind::RequantizeColumnsRelu), dram);
  EXPECT_EQ(get<int8_t>(dram, 256, 8),
            (std::vector<int8_t>{48, 3, 81, 61, 3, 10, 3, 3}));
  // The table must be inside the scratchpad.
  Program bad = program(VectorKind::RequantizeColumns);
  bad.commands[2].waitMask = 0;
  bad.commands[2].local2 = 262144 - 8;
  bad.commands = {bad.commands[2]};
  EXPECT_NE(fail(edge(), bad, dram).find(
                "column table [262136, +32) is outside"),
            std::string::npos)
      << fail(edge(), bad, dram);
}

TEST(NPUSimulator, DequantizeAddRequantize) {
  // A quantized residual add as the vector unit runs it: both int8
  // operands dequantized to f32 in the accumulator, added, requantized to
  // int8 with the result's scale (1 / its scale) and zero point.
  std::vector<uint8_t> dram(1024);
  put(dram, 0, std::vector<int8_t>{-128, -3, 0, 5, 127, 20, -60, 1});
  put(dram, 64, std::vector<int8_t>{4, 4, 4, 4, 4, -128, 127, 0});
  Program p;
  Command a = load(0, 0, 1, 8), b = load(64, 64, 1, 8);
  b.signal = 0;
  // a: (qa + 3) * 0.5; b: (qb - 4) * 0.25.
  Command da =
      vector(VectorKind::Dequantize, ElementType::Int8, ElementType::F32,
             Memory::Scratchpad, Memory::Accumulator, 0, 0, 0);
  da.scale = 0.5f;
  da.zeroPoint = -3;
  da.waitMask = 1;
  Command db =
      vector(VectorKind::Dequantize, ElementType::Int8, ElementType::F32,
             Memory::Scratchpad, Memory::Accumulator, 64, 0, 64);
  db.scale = 0.25f;
  db.zeroPoint = 4;
  Command sum = vector(VectorKind::Add, ElementType::F32, ElementType::F32,
                       Memory::Accumulator, Memory::Accumulator, 0, 64, 0);
  // y / 0.5 + 1, rounded half to even and saturated.
  Command q =
      vector(VectorKind::Requantize, ElementType::F32, ElementType::Int8,
             Memory::Accumulator, Memory::Scratchpad, 0, 0, 128);
  q.scale = 2.0f;
  q.zeroPoint = 1;
  q.signal = 1;
  Command out = store(256, 128, 1, 8, ElementType::Int8, Memory::Scratchpad);
  out.waitMask = 1 << 1;
  p.commands = {a, b, da, db, sum, q, out};
  run(edge(), p, dram);
  // Sums: -62.5, 0, 1.5, 4, 65, -21.5, 2.25, 1; doubled, halves to even.
  EXPECT_EQ(get<int8_t>(dram, 256, 8),
            (std::vector<int8_t>{-124, 1, 4, 9, 127, -42, 5, 3}));
  // Dequantize goes from int8 to f32 only.
  Program bad;
  bad.commands = {da};
  bad.commands[0].waitMask = 0;
  bad.commands[0].dstType = ElementType::Int32;
  EXPECT_NE(fail(edge(), bad, dram).find("dequantize goes from int8 to f32"),
            std::string::npos);
}

TEST(NPUSimulator, MaxPool) {
  // Two planes of 5x6 f32, pooled by 3x3 windows every 2 rows and columns
  // from one before the first (ResNet's stem pooling): the windows at the
  // edges take only what lies inside, NaN wins, and the type is kept.
  const int planes = 2, h = 5, w = 6, oh = 3, ow = 3;
  std::vector<float> x(planes * h * w);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-100, 100);
  for (float &v : x)
    v = d(rng);
  x[1 * h * w + 4 * w + 5] = std::nanf("");
  std::vector<uint8_t> dram(4096);
  put(dram, 0, x);
  Command in = load(0, 0, planes, h * w, ElementType::F32);
  in.dramStride = h * w * 4;
  in.signal = 0;
  Command pool = vector(VectorKind::MaxPool, ElementType::F32, ElementType::F32,
                        Memory::Scratchpad, Memory::Scratchpad, 0, 0, 1024);
  pool.rows = planes;
  pool.depth = h;
  pool.cols = w;
  pool.window = {3, 3, 2, 2, 1, 1, oh, ow};
  pool.waitMask = 1;
  pool.signal = 1;
  Command out =
      store(2048, 1024, planes, oh * ow, ElementType::F32, Memory::Scratchpad);
  out.waitMask = 1 << 1;
  Program p;
  p.commands = {in, pool, out};
  SimulationStats stats = run(large(), p, dram);
  std::vector<float> got = get<float>(dram, 2048, planes * oh * ow);
  for (int c = 0; c < planes; ++c)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < ow; ++j) {
        float best = -INFINITY;
        for (int y = std::max(2 * i - 1, 0); y < std::min(2 * i + 2, h); ++y)
          for (int z = std::max(2 * j - 1, 0); z < std::min(2 * j + 2, w); ++z)
            best = std::isnan(x[(c * h + y) * w + z]) ? x[(c * h + y) * w + z]
                   : std::isnan(best)                 ? best
                                      : std::max(best, x[(c * h + y) * w + z]);
        float v = got[(c * oh + i) * ow + j];
        if (std::isnan(best))
          EXPECT_TRUE(std::isnan(v)) << c << " " << i << " " << j;
        else
          EXPECT_EQ(v, best) << c << " " << i << " " << j;
      }
  EXPECT_TRUE(std::isnan(got[1 * oh * ow + 2 * ow + 2]));
  // Each output compares its window's nine elements, 64 lanes a cycle.
  EXPECT_EQ(getCommandCycles(large(), pool),
            (planes * oh * ow * 9 + 63) / 64 + 4);
  EXPECT_EQ(stats.busyCycles[unsigned(Queue::Vector)],
            getCommandCycles(large(), pool));

  // Windows that would lie wholly in the padding, a type change and a
  // vector unit without max_pool are refused.
  Program bad;
  bad.commands = {pool};
  bad.commands[0].waitMask = 0;
  bad.commands[0].window.padLeft = 3;
  EXPECT_NE(fail(large(), bad, dram).find("lies outside the 5x6 plane"),
            std::string::npos);
  bad.commands[0] = pool;
  bad.commands[0].waitMask = 0;
  bad.commands[0].window.outRows = 4;
  EXPECT_NE(fail(large(), bad, dram).find("lies outside"), std::string::npos);
  bad.commands[0] = pool;
  bad.commands[0].waitMask = 0;
  bad.commands[0].dstType = ElementType::BF16;
  EXPECT_NE(fail(large(), bad, dram).find("pooling keeps the element type"),
            std::string::npos);
  NPUConfig plain = large();
  plain.vector.ops = {"copy"};
  bad.commands[0] = pool;
  bad.commands[0].waitMask = 0;
  EXPECT_NE(fail(plain, bad, dram).find("has no max_pool"), std::string::npos);
}

TEST(NPUSimulator, AveragePool) {
  // The mean of each window's elements inside the plane: the f32 sum in
  // row-major order times the reciprocal of their count rounded to f32, so
  // that a clipped window at the edge divides by fewer. A global average
  // pooling is the window of the whole plane.
  const int planes = 3, h = 7, w = 7;
  std::vector<float> x(planes * h * w);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-10, 10);
  for (float &v : x)
    v = d(rng);
  std::vector<uint8_t> dram(8192);
  put(dram, 0, x);
  Command in = load(0, 0, planes, h * w, ElementType::F32);
  in.dramStride = h * w * 4;
  in.signal = 0;
  Command global =
      vector(VectorKind::AveragePool, ElementType::F32, ElementType::F32,
             Memory::Scratchpad, Memory::Scratchpad, 0, 0, 2048);
  global.rows = planes;
  global.depth = h;
  global.cols = w;
  global.window = {h, w, 1, 1, 0, 0, 1, 1};
  global.waitMask = 1;
  // 3x3 windows every 2 from one before: 4x4 outputs.
  Command padded = global;
  padded.local3 = 2112;
  padded.window = {3, 3, 2, 2, 1, 1, 4, 4};
  padded.waitMask = 0;
  padded.signal = 1;
  Command out = store(4096, 2048, 1, 16 + planes * 16, ElementType::F32,
                      Memory::Scratchpad);
  out.waitMask = 1 << 1;
  Program p;
  p.commands = {in, global, padded, out};
  run(large(), p, dram);
  std::vector<float> got = get<float>(dram, 4096, planes);
  std::vector<float> windows = get<float>(dram, 4096 + 64, planes * 16);
  for (int c = 0; c < planes; ++c) {
    float sum = 0;
    for (int i = 0; i < h * w; ++i)
      sum += x[c * h * w + i];
    EXPECT_EQ(got[c], sum * float(1.0 / 49)) << c;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        float s = 0;
        int count = 0;
        for (int y = std::max(2 * i - 1, 0); y < std::min(2 * i + 2, h); ++y)
          for (int z = std::max(2 * j - 1, 0); z < std::min(2 * j + 2, w);
               ++z, ++count)
            s += x[(c * h + y) * w + z];
        EXPECT_EQ(windows[c * 16 + i * 4 + j], s * float(1.0 / count))
            << c << " " << i << " " << j;
      }
  }
  // Integers are not averaged.
  Program bad;
  bad.commands = {global};
  bad.commands[0].waitMask = 0;
  bad.commands[0].type = bad.commands[0].dstType = ElementType::Int8;
  EXPECT_NE(fail(large(), bad, dram).find("average_pool takes floats"),
            std::string::npos);
}

TEST(NPUSimulator, DoubleBufferingOverlapsTransfersWithCompute) {
  // C[64x16] = A[64x64] B[64x16] in four 16-row blocks of A, int8 on the
  // edge NPU. Serialized, every command waits for the one before. Double
  // buffered (two A buffers, two C buffers), block i+1 loads while block i
  // multiplies and block i-1 is stored. Same answer, fewer cycles.
  const int m = 64, k = 64, n = 16, block = 16;
  std::vector<int8_t> a = randomInt8(m * k, 3), b = randomInt8(k * n, 4);
  // A blocks and C blocks at `aBase + buffer * aStep`, `cBase + buffer *
  // cStep`; B at 0.
  uint32_t aBase = 4096, aStep = 4096, cStep = 4096;
  auto blockCommands = [&](int i, int buffer) {
    return std::vector<Command>{
        load(uint64_t(i) * block * k, aBase + buffer * aStep, block, k),
        matmul(aBase + buffer * aStep, 0, buffer * cStep, block, k, n),
        store(16384 + uint64_t(i) * block * n * 4, buffer * cStep, block, n,
              ElementType::Int32, Memory::Accumulator)};
  };
  Program serial;
  serial.commands.push_back(load(8192, 0, k, n));
  for (int i = 0; i < m / block; ++i)
    for (Command &c : blockCommands(i, 0))
      serial.commands.push_back(c);
  // A chain: command i signals token i % 16, which only command i + 1
  // waits for.
  for (size_t i = 0; i < serial.commands.size(); ++i) {
    serial.commands[i].signal = int8_t(i % kNumTokens);
    serial.commands[i].waitMask =
        i ? uint16_t(1u << ((i - 1) % kNumTokens)) : 0;
  }

  // Tokens: 0 B loaded, 1 an A block loaded, 2 a C block computed, 6 + j
  // C buffer j stored (and so A buffer j read: its store came after its
  // matmul).
  auto doubleBuffered = [&]() {
    Program p;
    p.commands.push_back(load(8192, 0, k, n));
    p.commands[0].signal = 0;
    for (int i = 0; i < m / block; ++i) {
      int buffer = i % 2;
      std::vector<Command> c = blockCommands(i, buffer);
      c[0].signal = 1;
      if (i >= 2)
        c[0].waitMask = uint16_t(1 << (6 + buffer));
      c[1].waitMask = uint16_t((i == 0 ? 1 : 0) | 2);
      c[1].signal = 2;
      c[2].waitMask = 1 << 2;
      c[2].signal = int8_t(6 + buffer);
      for (Command &command : c)
        p.commands.push_back(command);
    }
    return p;
  };
  // All buffers in the first bank of each memory: the units take turns.
  Program sameBanks = doubleBuffered();
  // A's buffers in scratchpad banks 1 and 2 (B stays in bank 0), C's in
  // the accumulator's two banks.
  aBase = 65536;
  aStep = 65536;
  cStep = 32768;
  Program overlapped = doubleBuffered();

  std::vector<uint8_t> dram1(32768), dram2(32768), dram3(32768);
  for (std::vector<uint8_t> *dram : {&dram1, &dram2, &dram3}) {
    put(*dram, 0, a);
    put(*dram, 8192, b);
  }
  SimulationStats s1 = run(edge(), serial, dram1);
  SimulationStats s2 = run(edge(), overlapped, dram2);
  SimulationStats s3 = run(edge(), sameBanks, dram3);
  std::vector<int32_t> want = referenceMatmul(a, b, m, k, n);
  EXPECT_EQ(get<int32_t>(dram1, 16384, m * n), want);
  EXPECT_EQ(get<int32_t>(dram2, 16384, m * n), want);
  EXPECT_EQ(get<int32_t>(dram3, 16384, m * n), want);
  EXPECT_EQ(s2.bankConflictCycles, 0);
  EXPECT_GT(s3.bankConflictCycles, 0);
  EXPECT_LT(s2.cycles, s3.cycles);
  // Serialized: the sum of every command's cycles.
  int64_t sum = 0;
  Simulator simulator(edge());
  for (const Command &c : serial.commands)
    sum += simulator.getCycles(c);
  EXPECT_EQ(s1.cycles, sum);
  EXPECT_LT(s2.cycles, s1.cycles);
  EXPECT_EQ(s1.multiplyAccumulates, int64_t(m) * k * n);
  EXPECT_GT(s2.getMatrixUtilization(edge()), s1.getMatrixUtilization(edge()));
  EXPECT_DOUBLE_EQ(s1.getSeconds(edge()), double(s1.cycles) / 1e9);
}

TEST(NPUSimulator, UnitsSharingABankTakeTurns) {
  // A matmul reads A and B from scratchpad bank 0 (edge: 4 banks of 64 KiB)
  // while the next A block loads: into bank 0 it conflicts, into bank 1 it
  // does not, and the answer is the same.
  std::vector<int8_t> a = randomInt8(16 * 64, 5), b = randomInt8(64 * 16, 6);
  auto program = [&](uint32_t nextBlock) {
    Program p;
    Command la = load(0, 0, 16, 64), lb = load(1024, 1024, 64, 16);
    la.signal = 0;
    lb.signal = 1;
    Command mm = matmul(0, 1024, 0, 16, 64, 16);
    mm.waitMask = 3;
    Command next = load(2048, nextBlock, 16, 64);
    p.commands = {la, lb, mm, next};
    return p;
  };
  std::vector<uint8_t> dram(4096);
  put(dram, 0, a);
  put(dram, 1024, b);
  put(dram, 2048, a);
  SimulationStats same = run(edge(), program(4096), dram);
  SimulationStats apart = run(edge(), program(65536 + 4096), dram);
  // The channel issues A, B and the next block 64 cycles apart (1024 bytes
  // at 16 a cycle, the 100 cycles of latency overlapped): the next block's
  // load holds its bank from 128 to 292, and the matmul, which starts when
  // B is in at 228, waits out the 64 cycles they share.
  EXPECT_EQ(same.bankConflictCycles, 64);
  EXPECT_EQ(apart.bankConflictCycles, 0);
  EXPECT_GT(same.cycles, apart.cycles);
}

TEST(NPUSimulator, RefusesBadPrograms) {
  std::vector<uint8_t> dram(1024);
  Program p;
  p.commands = {load(0, 262144 - 8, 1, 16)};
  EXPECT_EQ(fail(edge(), p, dram),
            "command 0 (load): destination [262136, +16) is outside the "
            "scratchpad (262144 bytes)");
  p.commands = {load(1000, 0, 2, 16)};
  EXPECT_NE(fail(edge(), p, dram).find("is outside the 1024 bytes given"),
            std::string::npos);
  Command huge = load(0, 0, 0xffffffffu, 0xffffffffu);
  huge.dramStride = 0xffffffffu;
  p.commands = {huge};
  EXPECT_NE(fail(edge(), p, dram).find("outside"), std::string::npos);
  Command waits = load(0, 0, 1, 1);
  waits.waitMask = 1 << 9;
  p.commands = {waits};
  EXPECT_EQ(fail(edge(), p, dram),
            "deadlock: command 0 (load) waits for tokens no command left will "
            "signal; ");
  // A store reading what a load writes, with no token between them, is a
  // hazard.
  // hazard (with more than one DMA channel; with one, the engine orders
  // them).
  Command in = load(0, 0, 1, 16);
  Command out = store(512, 0, 1, 16, ElementType::Int8, Memory::Scratchpad);
  p.commands = {in, out};
  EXPECT_NE(fail(large(), p, dram).find("hazard: command 1 and command 0 "
                                        "touch scratchpad bytes [0, 16)"),
            std::string::npos);
}
