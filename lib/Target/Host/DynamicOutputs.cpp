//===- DynamicOutputs.cpp - Outputs the model allocates -------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An output whose size the data decides is returned as a record (address,
// dims) of a buffer the model allocated; see the pass description.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/ModelABI.h"
#include "mlc/Target/Host/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlc::host {
#define GEN_PASS_DEF_HOSTDYNAMICOUTPUTS
#include "mlc/Target/Host/Passes.h.inc"
} // namespace mlc::host

using namespace mlir;

namespace {
/// Rewrites the out-parameter `arg` (a dynamic memref that one
/// `memref.copy` fills) into the record of a caller-owned buffer.
LogicalResult rewriteOutput(func::FuncOp f, BlockArgument arg) {
  auto type = cast<MemRefType>(arg.getType());
  if (!arg.hasOneUse())
    return f.emitError("dynamic output argument ")
           << arg.getArgNumber() << " has " << llvm::range_size(arg.getUses())
           << " uses; expected the one copy buffer-results-to-out-params "
              "makes";
  auto copy = dyn_cast<memref::CopyOp>(*arg.getUsers().begin());
  if (!copy || copy.getTarget() != arg || copy->getBlock() != &f.front())
    return f.emitError("dynamic output argument ")
           << arg.getArgNumber()
           << " is not filled by one memref.copy in the function body";
  Location loc = copy.getLoc();
  OpBuilder b(copy);
  Value source = copy.getSource();
  SmallVector<Value> dims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    dims.push_back(memref::DimOp::create(b, loc, source, d));

  // A buffer of the function's own, allocated where it is used only by the
  // writes before this copy, is handed over; anything else is copied.
  auto alloc = source.getDefiningOp<memref::AllocOp>();
  bool own = alloc && alloc->getBlock() == &f.front() &&
             alloc.getType().getLayout().isIdentity() &&
             llvm::all_of(alloc->getUsers(), [&](Operation *user) {
               return user == copy || user->isBeforeInBlock(copy);
             });
  Value buffer;
  if (own) {
    alloc.setAlignmentAttr(nullptr); // malloc's pointer, which free takes
    buffer = alloc;
  } else {
    SmallVector<Value> dynamicDims;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamicDims.push_back(dims[d]);
    alloc = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()),
        dynamicDims);
    // Only a memref of the default layout copies without MLIR's runtime
    // library (a strided one, even of row-major strides, calls memrefCopy);
    // casts to the default layout fold away later, so look through them.
    while (auto cast = source.getDefiningOp<memref::CastOp>())
      source = cast.getSource();
    auto sourceType = cast<MemRefType>(source.getType());
    if (sourceType == MemRefType::get(sourceType.getShape(),
                                      sourceType.getElementType())) {
      memref::CopyOp::create(b, loc, source, alloc);
    } else {
      // A strided view of a size known at run time: element by element
      // (a memref.copy of it would need MLIR's runtime library).
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      SmallVector<Value> lower(type.getRank(), zero),
          steps(type.getRank(), one);
      scf::buildLoopNest(b, loc, lower, dims, steps,
                         [&](OpBuilder &nb, Location l, ValueRange at) {
                           Value v = memref::LoadOp::create(nb, l, source, at);
                           memref::StoreOp::create(nb, l, v, alloc, at);
                         });
    }
    buffer = alloc;
  }
  alloc->setAttr("mlc_loop.caller_owned", b.getUnitAttr());

  auto i64 = b.getI64Type();
  auto recordType = MemRefType::get({1 + type.getRank()}, i64);
  arg.setType(recordType);
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  auto store = [&](Value index, int64_t at) {
    Value word = arith::IndexCastOp::create(b, loc, i64, index);
    Value position = arith::ConstantIndexOp::create(b, loc, at);
    memref::StoreOp::create(b, loc, word, arg, position);
  };
  store(address, 0);
  for (auto [d, dim] : llvm::enumerate(dims))
    store(dim, 1 + d);
  copy.erase();
  return success();
}

LogicalResult rewriteFunction(func::FuncOp f) {
  auto json = f->getAttrOfType<StringAttr>("mlc_loop.signature");
  if (!json)
    return success();
  llvm::Expected<mlc::abi::ModelSignature> signature =
      mlc::abi::parseModelSignature(json.getValue());
  if (!signature)
    return f.emitError("bad mlc_loop.signature: ")
           << llvm::toString(signature.takeError());
  size_t numInputs = signature->inputs.size();
  size_t numOutputs = signature->outputs.size();
  if (f.getNumArguments() != numInputs + numOutputs || f.getNumResults() != 0)
    return f.emitError("expected ")
           << numInputs << " inputs and " << numOutputs
           << " out-parameters; run buffer-results-to-out-params first";
  bool changed = false;
  for (auto [k, output] : llvm::enumerate(signature->outputs)) {
    if (!output.isDynamic())
      continue;
    if (failed(rewriteOutput(f, f.getArgument(numInputs + k))))
      return failure();
    changed = true;
  }
  if (changed)
    f.setFunctionType(FunctionType::get(
        f.getContext(), f.front().getArgumentTypes(), TypeRange()));
  return success();
}

struct HostDynamicOutputsPass
    : mlc::host::impl::HostDynamicOutputsBase<HostDynamicOutputsPass> {
  void runOnOperation() override {
    for (func::FuncOp f : getOperation().getOps<func::FuncOp>())
      if (!f.isExternal() && f.isPublic() && failed(rewriteFunction(f)))
        return signalPassFailure();
  }
};
} // namespace
