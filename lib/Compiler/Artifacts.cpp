//===- Artifacts.cpp - Writing what a compilation produces ----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Artifacts.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlc;

FailureOr<SmallVector<abi::ModelSignature, 1>>
compiler::collectSignatures(ModuleOp module) {
  SmallVector<abi::ModelSignature, 1> models;
  for (auto f : module.getOps<LLVM::LLVMFuncOp>()) {
    auto json = f->getAttrOfType<StringAttr>("mlc_loop.signature");
    auto arena = f->getAttrOfType<IntegerAttr>("mlc_loop.arena_size");
    if (!json || !arena)
      continue;
    llvm::Expected<abi::ModelSignature> signature =
        abi::parseModelSignature(json.getValue());
    if (!signature)
      return f.emitError(llvm::toString(signature.takeError()));
    signature->arenaSize = arena.getInt();
    models.push_back(std::move(*signature));
  }
  return models;
}

bool compiler::usesOpenMP(ModuleOp module) {
  bool uses = false;
  module.walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "omp") {
      uses = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return uses;
}

LogicalResult compiler::writeTextFile(MLIRContext *context, StringRef path,
                                      StringRef text) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(UnknownLoc::get(context)) << error;
  file->os() << text;
  file->keep();
  return success();
}

FailureOr<std::string> compiler::takeWeights(ModuleOp module) {
  auto weights =
      module->getAttrOfType<DenseResourceElementsAttr>("mlc_loop.weights");
  AsmResourceBlob *blob = weights ? weights.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return module.emitError("the lowering left no weights blob");
  int64_t size = cast<ShapedType>(weights.getType()).getNumElements();
  ArrayRef<char> data = blob->getData().take_front(size);
  std::string bytes(data.data(), data.size());
  module->removeAttr("mlc_loop.weights");
  return bytes;
}

LogicalResult compiler::linkSharedLibrary(MLIRContext *context,
                                          StringRef driver, StringRef object,
                                          StringRef output, bool openmp) {
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(driver);
  if (!program)
    return emitError(UnknownLoc::get(context))
           << "cannot find the linker driver '" << driver << "' to make "
           << output << " (install a C compiler or pass --linker=PATH)";
  SmallVector<StringRef> args{*program, "-shared", "-o",  output,
                              object,   "-lm",     "-Wl,-z,noexecstack",
                              "-Wl,--no-undefined"};
  std::string libDir = std::string("-L") + MLC_OPENMP_LIBRARY_DIR;
  std::string rpath = std::string("-Wl,-rpath,") + MLC_OPENMP_LIBRARY_DIR;
  if (openmp)
    args.append({libDir, "-lomp", rpath});
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*program, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0)
    return emitError(UnknownLoc::get(context))
           << "linking " << output << " with " << *program << " failed"
           << (message.empty() ? "" : ": " + message);
  return success();
}

void compiler::printMemoryPlan(ModuleOp module,
                               ArrayRef<abi::ModelSignature> models,
                               llvm::raw_ostream &os) {
  DataLayout layout(module);
  int64_t constantBytes = 0;
  for (auto global : module.getOps<LLVM::GlobalOp>())
    if (global.getConstant())
      constantBytes += layout.getTypeSize(global.getType());
  if (!models.empty() && models.front().weights)
    os << "weights in " << models.front().weights->file << ": "
       << models.front().weights->size << " bytes\n";
  for (const abi::ModelSignature &m : models) {
    // With a symbolic batch: the buffers of one sample (the arena serves
    // every sample in turn).
    std::vector<int64_t> one(m.symbols.size(), 1);
    int64_t io = 0;
    for (const auto &t : m.inputs)
      io += t.getNumBytes(one.data());
    for (const auto &t : m.outputs)
      io += t.getNumBytes(one.data());
    if (!m.symbols.empty() && !m.perSample) {
      os << m.name << ": arena " << m.arenaSize
         << " bytes (the activations of static size, planned statically; "
            "those whose sizes depend on the symbols are allocated while "
            "the model runs), inputs + outputs "
         << io << " bytes with every symbol 1\n";
      continue;
    }
    os << m.name << ": arena " << m.arenaSize
       << " bytes (all activations, planned statically), inputs + outputs "
       << io << " bytes" << (m.symbols.empty() ? "" : " per sample")
       << ", peak run memory " << m.arenaSize + io
       << " bytes besides the weights"
       << (m.symbols.empty() ? "" : " at batch 1") << "\n";
  }
  os << "constant data in the object: " << constantBytes << " bytes\n";
}
