//===- Program.cpp - The NPU's command stream -----------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/NPU/Program.h"

#include <cstring>

using namespace mlc::npu;

namespace {
constexpr char kMagic[8] = {'M', 'L', 'C', 'N', 'P', 'U', 0, 0};
/// Bytes of one command in the stream.
constexpr size_t kCommandBytes = 64;

/// Little-endian fields at fixed offsets.
struct Writer {
  uint8_t *at;
  template <typename T> void put(size_t offset, T value) {
    std::memcpy(at + offset, &value, sizeof(T));
  }
};
struct Reader {
  const uint8_t *at;
  template <typename T> T get(size_t offset) const {
    T value;
    std::memcpy(&value, at + offset, sizeof(T));
    return value;
  }
};
} // namespace

Queue Command::getQueue() const {
  switch (opcode) {
  case Opcode::Load:
    return Queue::Load;
  case Opcode::Store:
    return Queue::Store;
  case Opcode::Matmul:
    return Queue::Compute;
  case Opcode::Vector:
    return Queue::Vector;
  }
  return Queue::Compute;
}

std::vector<uint8_t> mlc::npu::serializeProgram(const Program &program) {
  std::vector<uint8_t> bytes(16 + kCommandBytes * program.commands.size());
  Writer header{bytes.data()};
  std::memcpy(bytes.data(), kMagic, sizeof kMagic);
  header.put<uint32_t>(8, kProgramVersion);
  header.put<uint32_t>(12, static_cast<uint32_t>(program.commands.size()));
  for (size_t i = 0; i < program.commands.size(); ++i) {
    const Command &c = program.commands[i];
    Writer w{bytes.data() + 16 + i * kCommandBytes};
    w.put<uint8_t>(0, static_cast<uint8_t>(c.opcode));
    w.put<uint8_t>(1, static_cast<uint8_t>(c.type));
    w.put<uint8_t>(2, static_cast<uint8_t>(c.dstType));
    w.put<uint8_t>(3, static_cast<uint8_t>(c.vectorOp));
    w.put<uint8_t>(4, static_cast<uint8_t>(c.memory));
    w.put<uint8_t>(5, static_cast<uint8_t>(c.dstMemory));
    w.put<uint8_t>(6, c.accumulate ? 1 : 0);
    w.put<int8_t>(7, c.signal);
    w.put<uint16_t>(8, c.waitMask);
    w.put<uint8_t>(10, c.window.rows);
    w.put<uint8_t>(11, c.window.cols);
    w.put<uint8_t>(12, c.window.strideRows);
    w.put<uint8_t>(13, c.window.strideCols);
    w.put<uint8_t>(14, c.window.padTop);
    w.put<uint8_t>(15, c.window.padLeft);
    w.put<uint64_t>(16, c.dram);
    w.put<uint32_t>(24, c.local);
    w.put<uint32_t>(28, c.local2);
    w.put<uint32_t>(32, c.local3);
    w.put<uint32_t>(36, c.rows);
    w.put<uint32_t>(40, c.cols);
    w.put<uint32_t>(44, c.depth);
    w.put<uint32_t>(48, c.dramStride);
    w.put<float>(52, c.scale);
    w.put<int32_t>(56, c.zeroPoint);
    w.put<uint16_t>(60, c.window.outRows);
    w.put<uint16_t>(62, c.window.outCols);
  }
  return bytes;
}

std::optional<Program> mlc::npu::parseProgram(const uint8_t *data, size_t size,
                                              std::string &error) {
  if (size < 16 || std::memcmp(data, kMagic, sizeof kMagic) != 0) {
    error = "not an NPU command stream (no MLCNPU header)";
    return std::nullopt;
  }
  Reader header{data};
  uint32_t version = header.get<uint32_t>(8);
  if (version != kProgramVersion) {
    error = "NPU command stream version " + std::to_string(version) +
            "; this simulator reads version " +
            std::to_string(kProgramVersion);
    return std::nullopt;
  }
  uint64_t count = header.get<uint32_t>(12);
  if ((size - 16) / kCommandBytes != count || (size - 16) % kCommandBytes) {
    error = "NPU command stream of " + std::to_string(size) +
            " bytes cannot hold the " + std::to_string(count) +
            " commands its header announces";
    return std::nullopt;
  }
  Program program;
  for (uint64_t i = 0; i < count; ++i) {
    Reader r{data + 16 + i * kCommandBytes};
    Command c;
    uint8_t opcode = r.get<uint8_t>(0), type = r.get<uint8_t>(1),
            dstType = r.get<uint8_t>(2), vectorOp = r.get<uint8_t>(3),
            memory = r.get<uint8_t>(4), dstMemory = r.get<uint8_t>(5);
    auto bad = [&](const char *what) {
      error = "NPU command " + std::to_string(i) + ": bad " + what;
      return std::nullopt;
    };
    if (opcode < 1 || opcode > 4)
      return bad("opcode");
    if (type < 1 || type > 5 || dstType < 1 || dstType > 5)
      return bad("element type");
    if (vectorOp < 1 || vectorOp > 9)
      return bad("vector op");
    if (memory > 1 || dstMemory > 1)
      return bad("memory");
    int8_t signal = r.get<int8_t>(7);
    if (signal < -1 || signal >= int8_t(kNumTokens))
      return bad("token");
    c.opcode = static_cast<Opcode>(opcode);
    c.type = static_cast<ElementType>(type);
    c.dstType = static_cast<ElementType>(dstType);
    c.vectorOp = static_cast<VectorKind>(vectorOp);
    c.memory = static_cast<Memory>(memory);
    c.dstMemory = static_cast<Memory>(dstMemory);
    c.accumulate = r.get<uint8_t>(6) != 0;
    c.signal = signal;
    c.waitMask = r.get<uint16_t>(8);
    c.dram = r.get<uint64_t>(16);
    c.local = r.get<uint32_t>(24);
    c.local2 = r.get<uint32_t>(28);
    c.local3 = r.get<uint32_t>(32);
    c.rows = r.get<uint32_t>(36);
    c.cols = r.get<uint32_t>(40);
    c.depth = r.get<uint32_t>(44);
    c.dramStride = r.get<uint32_t>(48);
    c.scale = r.get<float>(52);
    c.zeroPoint = r.get<int32_t>(56);
    c.window.rows = r.get<uint8_t>(10);
    c.window.cols = r.get<uint8_t>(11);
    c.window.strideRows = r.get<uint8_t>(12);
    c.window.strideCols = r.get<uint8_t>(13);
    c.window.padTop = r.get<uint8_t>(14);
    c.window.padLeft = r.get<uint8_t>(15);
    c.window.outRows = r.get<uint16_t>(60);
    c.window.outCols = r.get<uint16_t>(62);
    program.commands.push_back(c);
  }
  return program;
}
