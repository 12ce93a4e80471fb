//===- Serialize.cpp - mlc_npu.program to its binary command stream -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/NPU/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace mlc::npu {
#define GEN_PASS_DEF_NPUSERIALIZE
#include "mlc/Dialect/NPU/Transforms/Passes.h.inc"
} // namespace mlc::npu

using namespace mlir;
using namespace mlc::npu;

namespace {
struct NPUSerializePass
    : mlc::npu::impl::NPUSerializeBase<NPUSerializePass> {
  void runOnOperation() override {
    SmallVector<ProgramOp> programs;
    getOperation().walk([&](ProgramOp p) { programs.push_back(p); });
    for (ProgramOp program : programs) {
      FailureOr<Program> commands = getCommands(program);
      if (failed(commands))
        return signalPassFailure();
      std::vector<uint8_t> bytes = serializeProgram(*commands);
      OpBuilder b(program);
      auto type = RankedTensorType::get({int64_t(bytes.size())},
                                        b.getIntegerType(8));
      auto data = DenseElementsAttr::getFromRawBuffer(
          type, ArrayRef<char>(reinterpret_cast<const char *>(bytes.data()),
                               bytes.size()));
      BinaryOp::create(b, program.getLoc(), program.getSymNameAttr(),
                       program.getNpuAttr(), data);
      program.erase();
    }
  }
};
} // namespace
