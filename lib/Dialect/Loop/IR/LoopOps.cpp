//===- LoopOps.cpp - mlc_loop operations ----------------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Loop/IR/LoopOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlc::loop;

#define GET_OP_CLASSES
#include "mlc/Dialect/Loop/IR/LoopOps.cpp.inc"

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

YieldOp KernelOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

/// mlc_loop.kernel "name" ins(%a, ... : types) outs(%o, ... : types)
///     [schedule = #mlc_loop.schedule<...>] [attributes {...}] region
///     -> (result types)
ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  SmallVector<OpAsmParser::UnresolvedOperand> ins, outs;
  SmallVector<Type> inTypes, outTypes;
  if (parser.parseAttribute(name, "sym_name", result.attributes))
    return failure();
  auto parseGroup = [&](StringRef keyword,
                        SmallVectorImpl<OpAsmParser::UnresolvedOperand> &ops,
                        SmallVectorImpl<Type> &types) -> ParseResult {
    if (parser.parseKeyword(keyword) || parser.parseLParen())
      return failure();
    if (succeeded(parser.parseOptionalRParen()))
      return success();
    if (parser.parseOperandList(ops) || parser.parseColonTypeList(types) ||
        parser.parseRParen())
      return failure();
    return success();
  };
  SMLoc loc = parser.getCurrentLocation();
  if (parseGroup("ins", ins, inTypes) || parseGroup("outs", outs, outTypes) ||
      parser.resolveOperands(ins, inTypes, loc, result.operands) ||
      parser.resolveOperands(outs, outTypes, loc, result.operands))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("schedule"))) {
    ScheduleAttr schedule;
    if (parser.parseEqual() || parser.parseAttribute(schedule))
      return failure();
    result.addAttribute("schedule", schedule);
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  result.addAttribute(getOperandSegmentSizesAttrName(result.name),
                      parser.getBuilder().getDenseI32ArrayAttr(
                          {static_cast<int32_t>(ins.size()),
                           static_cast<int32_t>(outs.size())}));
  Region *body = result.addRegion();
  if (parser.parseRegion(*body))
    return failure();
  KernelOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  if (parser.parseArrow() || parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen()) &&
      (parser.parseTypeList(result.types) || parser.parseRParen()))
    return failure();
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(getSymNameAttr());
  auto printGroup = [&](StringRef keyword, OperandRange ops) {
    p << ' ' << keyword << '(';
    if (!ops.empty())
      p << ops << " : " << ops.getTypes();
    p << ')';
  };
  printGroup("ins", getInputs());
  printGroup("outs", getOutputs());
  if (ScheduleAttr schedule = getScheduleAttr())
    p << " schedule = " << schedule;
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getSymNameAttrName(), getScheduleAttrName(),
                            getOperandSegmentSizesAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true,
                /*printBlockTerminators=*/true);
  p << " -> (" << getResultTypes() << ')';
}

LogicalResult KernelOp::verify() {
  Block &block = getBody().front();
  size_t numIns = getInputs().size(), numOuts = getOutputs().size();
  if (block.getNumArguments() != numIns + numOuts)
    return emitOpError("body has ")
           << block.getNumArguments() << " arguments, expected " << numIns
           << " ins + " << numOuts << " outs";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(block.getArgumentTypes(), getOperandTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError("body argument ")
             << i << " has type " << std::get<0>(pair) << ", expected "
             << std::get<1>(pair);
  if (getNumResults() != numOuts)
    return emitOpError("has ")
           << getNumResults() << " results but " << numOuts << " outs";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getResultTypes(), getOutputs().getTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError("result ") << i << " has type " << std::get<0>(pair)
                                    << ", expected the type of outs operand "
                                    << i << ", " << std::get<1>(pair);
  YieldOp yield = getYield();
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError("yields (")
           << yield.getValues().getTypes() << "), expected ("
           << getResultTypes() << ")";
  return success();
}

namespace {
/// A result that just yields an input of the same type is that input.
struct ForwardYieldedInputs : OpRewritePattern<KernelOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(KernelOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    Block &block = op.getBody().front();
    for (auto [result, yielded] :
         llvm::zip(op.getResults(), op.getYield().getValues())) {
      auto arg = dyn_cast<BlockArgument>(yielded);
      if (!arg || arg.getOwner() != &block || result.use_empty() ||
          arg.getArgNumber() >= op.getInputs().size())
        continue;
      Value input = op.getInputs()[arg.getArgNumber()];
      if (input.getType() != result.getType())
        continue;
      rewriter.replaceAllUsesWith(result, input);
      changed = true;
    }
    return success(changed);
  }
};
} // namespace

void KernelOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<ForwardYieldedInputs>(context);
}
