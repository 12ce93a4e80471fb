//===- Layouts.h - What the layout passes share -----------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A layout pass does what a target's strategy wrote as `mlc_loop.layout`
// (#mlc_loop.layout) on the ops it is about, and nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_LOOP_TRANSFORMS_LAYOUTS_H
#define MLC_DIALECT_LOOP_TRANSFORMS_LAYOUTS_H

#include "mlc/Dialect/Loop/IR/LoopOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlc::loop {

/// The ops of type `OpTy` in `func` whose layout is `kind`, each with its
/// layout, which is taken off the op: the decision is used up whether or
/// not the pass can carry it out.
template <typename OpTy>
llvm::SmallVector<std::pair<OpTy, LayoutAttr>>
takeLayouts(mlir::func::FuncOp func, llvm::StringRef kind) {
  llvm::SmallVector<std::pair<OpTy, LayoutAttr>> taken;
  func.walk([&](OpTy op) {
    auto layout =
        op->template getAttrOfType<LayoutAttr>(LoopDialect::getLayoutAttrName());
    if (!layout || layout.getKind() != kind)
      return;
    op->removeAttr(LoopDialect::getLayoutAttrName());
    taken.emplace_back(op, layout);
  });
  return taken;
}

} // namespace mlc::loop

#endif // MLC_DIALECT_LOOP_TRANSFORMS_LAYOUTS_H
