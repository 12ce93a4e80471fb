//===- AttributeTranslation.h - mlc attributes in LLVM IR export -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The LLVM dialect keeps the attributes that describe the model's ABI
// (`mlc_graph.name` on arguments, `mlc_loop.signature` and the arena size on
// model functions) until the end, for the driver that writes the header.
// They have no meaning in LLVM IR: translation to LLVM IR ignores them
// instead of warning about each.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_HOST_ATTRIBUTETRANSLATION_H
#define MLC_TARGET_HOST_ATTRIBUTETRANSLATION_H

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace mlc::host {

/// Adds LLVM IR translation interfaces for mlc's dialects to `registry`.
void registerMLCAttributeTranslation(mlir::DialectRegistry &registry);

/// The same, for the dialects of `context`.
void registerMLCAttributeTranslation(mlir::MLIRContext &context);

} // namespace mlc::host

#endif // MLC_TARGET_HOST_ATTRIBUTETRANSLATION_H
