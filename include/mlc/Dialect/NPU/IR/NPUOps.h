//===- NPUOps.h - mlc_npu accelerator dialect -------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Declares the accelerator dialect: DMA and matrix-unit ops, and command
// streams (`mlc_npu.program`) that mirror the NPU's binary format.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_NPU_IR_NPUOPS_H
#define MLC_DIALECT_NPU_IR_NPUOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mlc/Dialect/NPU/IR/NPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES

#define GET_OP_CLASSES
#include "mlc/Dialect/NPU/IR/NPUOps.h.inc"

#include "mlc-runtime/NPU/Program.h"

namespace mlc::npu {

/// The commands of `program` in stream order, as the simulator and the
/// binary format take them; a diagnostic on the offending op and failure
/// when one does not convert.
mlir::FailureOr<Program> getCommands(ProgramOp program);

/// The NPU's element type for an MLIR type (i8, i32, bf16, f16, f32), or
/// nothing.
std::optional<ElementType> getNPUElementType(mlir::Type type);

/// Appends one command op per command of `program` at `builder`'s insertion
/// point (inside an `mlc_npu.program`): the inverse of getCommands.
void createCommandOps(mlir::OpBuilder &builder, mlir::Location loc,
                      const Program &program);

} // namespace mlc::npu

#endif // MLC_DIALECT_NPU_IR_NPUOPS_H
