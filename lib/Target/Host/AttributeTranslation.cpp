//===- AttributeTranslation.cpp - mlc attributes in LLVM IR export --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/AttributeTranslation.h"

#include "mlc/Dialect/Graph/IR/GraphDialect.h"
#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"

using namespace mlir;

namespace {
/// The attributes are metadata for the driver: nothing to translate.
class IgnoreAttributes : public LLVMTranslationDialectInterface {
public:
  using LLVMTranslationDialectInterface::LLVMTranslationDialectInterface;

  LogicalResult
  amendOperation(Operation *, ArrayRef<llvm::Instruction *>, NamedAttribute,
                 LLVM::ModuleTranslation &) const override {
    return success();
  }

  LogicalResult
  convertParameterAttr(LLVM::LLVMFuncOp, int, NamedAttribute,
                       LLVM::ModuleTranslation &) const override {
    return success();
  }
};
} // namespace

void mlc::host::registerMLCAttributeTranslation(DialectRegistry &registry) {
  registry.insert<graph::GraphDialect, loop::LoopDialect>();
  registry.addExtension(+[](MLIRContext *, graph::GraphDialect *dialect) {
    dialect->addInterfaces<IgnoreAttributes>();
  });
  registry.addExtension(+[](MLIRContext *, loop::LoopDialect *dialect) {
    dialect->addInterfaces<IgnoreAttributes>();
  });
}

void mlc::host::registerMLCAttributeTranslation(MLIRContext &context) {
  DialectRegistry registry;
  registerMLCAttributeTranslation(registry);
  context.appendDialectRegistry(registry);
}
