//===- LoopOps.h - mlc_loop dialect -----------------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Declares the loop dialect: kernels and their schedules.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_IR_LOOPOPS_H
#define MLC_DIALECT_LOOP_IR_LOOPOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include "mlc/Dialect/Loop/IR/LoopDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mlc/Dialect/Loop/IR/LoopAttrs.h.inc"

#define GET_OP_CLASSES
#include "mlc/Dialect/Loop/IR/LoopOps.h.inc"

#endif // MLC_DIALECT_LOOP_IR_LOOPOPS_H
