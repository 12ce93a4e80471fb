//===- GraphDialect.h - mlc_graph dialect -----------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Declares the graph dialect, its enums and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHDIALECT_H
#define MLC_DIALECT_GRAPH_IR_GRAPHDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "mlc/Dialect/Graph/IR/GraphDialect.h.inc"
#include "mlc/Dialect/Graph/IR/GraphEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mlc/Dialect/Graph/IR/GraphAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "mlc/Dialect/Graph/IR/GraphTypes.h.inc"

#endif // MLC_DIALECT_GRAPH_IR_GRAPHDIALECT_H
