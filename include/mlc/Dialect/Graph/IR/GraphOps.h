//===- GraphOps.h - mlc_graph operations ------------------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Declares the graph dialect's ops and the shape-function helpers their
// generated code calls.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_GRAPH_IR_GRAPHOPS_H
#define MLC_DIALECT_GRAPH_IR_GRAPHOPS_H

#include "mlc/Dialect/Graph/IR/GraphDialect.h"
#include "mlc/Dialect/Graph/Utils/ShapeUtils.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlc::graph {

namespace OpTrait {
/// Marks ops that compute each result element from the operand elements at
/// the same (broadcast) index only (Graph_Elementwise in GraphBase.td).
template <typename ConcreteType>
class Elementwise
    : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {};
} // namespace OpTrait

/// True when `a` and `b` are tensor types of one element type and
/// compatible shapes, or sequences or optionals of such types.
bool areCompatibleValueTypes(mlir::Type a, mlir::Type b);

/// True when each type in `declared` is a tensor type that refines (or
/// equals) the matching type in `inferred`: same element type, compatible
/// shape. Shared by every op's `isCompatibleReturnTypes`.
bool areRefinableTypes(mlir::TypeRange declared, mlir::TypeRange inferred);

/// Shape function of the broadcasting elementwise ops: the numpy broadcast of
/// `lhs` and `rhs`, with the lhs element type or i1 when `isPredicate`.
/// Emits a diagnostic naming `opName` at `loc` when the shapes cannot
/// broadcast or the element types differ.
llvm::LogicalResult inferBroadcastResultType(
    mlir::MLIRContext *ctx, std::optional<mlir::Location> loc,
    llvm::StringRef opName, mlir::Type lhs, mlir::Type rhs, bool isPredicate,
    llvm::SmallVectorImpl<mlir::Type> &results);

/// The ShapeUtils padding rule of an `auto_pad` attribute value.
WindowPadding getWindowPadding(AutoPad autoPad);

} // namespace mlc::graph

#define GET_OP_CLASSES
#include "mlc/Dialect/Graph/IR/GraphOps.h.inc"

#endif // MLC_DIALECT_GRAPH_IR_GRAPHOPS_H
