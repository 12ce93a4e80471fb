//===- EinsumToLinalg.cpp - ONNX Einsum as one linalg.generic -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An einsum is a loop nest by definition: one loop per distinct subscript
// letter (and per `...` dim), the output's letters parallel, the others
// reductions, the body the product of the operands added to the output.
// That is exactly one `linalg.generic`; a repeated letter in one operand
// (`ii->i`, a diagonal) is a repeated dim in its indexing map. Contractions
// shaped like (batch) matmuls are then picked up by the CPU backend's
// contraction tiling like any other.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Dialect/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace mlc::graph;
using mlc::detail::getStaticType;

namespace {
/// One operand's (or the output's) subscripts: letters, with -1 standing
/// for the position of `...`.
using Term = SmallVector<int>;

/// Parses `equation` into its input terms and output term. Letters are
/// 'a'-'z' and 'A'-'Z'; an implicit output (no `->`) is `...` followed by
/// the letters used exactly once, in alphabetical order.
FailureOr<std::pair<SmallVector<Term>, Term>> parseEquation(StringRef eq) {
  std::string compact;
  for (char c : eq)
    if (c != ' ')
      compact += c;
  StringRef s(compact);
  auto [lhs, rhs] = s.split("->");
  bool explicitOutput = s.contains("->");
  auto parseTerm = [](StringRef t) -> FailureOr<Term> {
    Term term;
    bool ellipsis = false;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.substr(i).starts_with("...")) {
        if (ellipsis)
          return failure();
        ellipsis = true;
        term.push_back(-1);
        i += 2;
      } else if (std::isalpha(static_cast<unsigned char>(t[i]))) {
        term.push_back(t[i]);
      } else {
        return failure();
      }
    }
    return term;
  };
  SmallVector<Term> inputs;
  SmallVector<StringRef> parts;
  lhs.split(parts, ',');
  for (StringRef p : parts) {
    FailureOr<Term> t = parseTerm(p);
    if (failed(t))
      return failure();
    inputs.push_back(*t);
  }
  Term output;
  if (explicitOutput) {
    FailureOr<Term> t = parseTerm(rhs);
    if (failed(t))
      return failure();
    output = *t;
  } else {
    std::map<int, int> counts;
    bool anyEllipsis = false;
    for (const Term &t : inputs)
      for (int l : t) {
        if (l == -1)
          anyEllipsis = true;
        else
          ++counts[l];
      }
    if (anyEllipsis)
      output.push_back(-1);
    for (auto [letter, count] : counts)
      if (count == 1)
        output.push_back(letter);
  }
  return std::make_pair(inputs, output);
}

struct EinsumLowering : OpConversionPattern<EinsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = getStaticType(op.getResult());
    if (!result)
      return rewriter.notifyMatchFailure(op, "needs a static result");
    SmallVector<RankedTensorType> types;
    for (Value v : adaptor.getInputs()) {
      auto t = getStaticType(v);
      if (!t || t.getElementType() != result.getElementType())
        return rewriter.notifyMatchFailure(op, "needs static, same-type inputs");
      types.push_back(t);
    }
    Type element = result.getElementType();
    if (!isa<FloatType>(element) && !element.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "float or signless integers only");
    auto parsed = parseEquation(op.getEquation());
    if (failed(parsed) || parsed->first.size() != types.size())
      return rewriter.notifyMatchFailure(op, "malformed equation");
    auto &[inputs, output] = *parsed;

    // The `...` dims of every operand, right-aligned to the longest one.
    int64_t ellipsisRank = 0;
    SmallVector<int64_t> ellipsisRanks;
    for (auto [term, type] : llvm::zip(inputs, types)) {
      int64_t letters = llvm::count_if(term, [](int l) { return l != -1; });
      int64_t e = type.getRank() - letters;
      bool has = llvm::is_contained(term, -1);
      if (e < 0 || (!has && e != 0))
        return rewriter.notifyMatchFailure(op, "rank does not match equation");
      ellipsisRanks.push_back(e);
      ellipsisRank = std::max(ellipsisRank, e);
    }

    // Loop dims: the output's (in its order), then the reduced letters.
    // Ellipsis dim i (of ellipsisRank) is keyed as -(i + 1).
    SmallVector<int> loops;
    auto expand = [&](const Term &t) {
      SmallVector<int> keys;
      for (int l : t) {
        if (l != -1) {
          keys.push_back(l);
          continue;
        }
        for (int64_t i = 0; i < ellipsisRank; ++i)
          keys.push_back(-static_cast<int>(i) - 1);
      }
      return keys;
    };
    SmallVector<int> outKeys = expand(output);
    for (int k : outKeys) {
      if (llvm::is_contained(loops, k))
        return rewriter.notifyMatchFailure(op, "repeated output subscript");
      loops.push_back(k);
    }
    if (static_cast<int64_t>(outKeys.size()) != result.getRank())
      return rewriter.notifyMatchFailure(op, "output rank mismatch");
    int64_t numParallel = loops.size();
    for (const Term &t : inputs)
      for (int k : expand(t))
        if (!llvm::is_contained(loops, k))
          loops.push_back(k);

    MLIRContext *ctx = rewriter.getContext();
    auto dimOf = [&](int key) {
      return static_cast<unsigned>(llvm::find(loops, key) - loops.begin());
    };
    SmallVector<AffineMap> maps;
    for (auto [term, type, e] : llvm::zip(inputs, types, ellipsisRanks)) {
      SmallVector<AffineExpr> exprs;
      int64_t pos = 0;
      for (int l : term) {
        if (l != -1) {
          exprs.push_back(getAffineDimExpr(dimOf(l), ctx));
          ++pos;
          continue;
        }
        for (int64_t i = 0; i < e; ++i, ++pos) {
          int key = -static_cast<int>(ellipsisRank - e + i) - 1;
          // A broadcast (size-1) dim reads its only element.
          int64_t outPos = llvm::find(outKeys, key) - outKeys.begin();
          bool broadcast =
              type.getDimSize(pos) == 1 &&
              outPos < result.getRank() && result.getDimSize(outPos) != 1;
          exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                    : getAffineDimExpr(dimOf(key), ctx));
        }
      }
      maps.push_back(AffineMap::get(loops.size(), 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < numParallel; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    maps.push_back(AffineMap::get(loops.size(), 0, outExprs, ctx));
    SmallVector<utils::IteratorType> iterators(loops.size(),
                                               utils::IteratorType::reduction);
    for (int64_t i = 0; i < numParallel; ++i)
      iterators[i] = utils::IteratorType::parallel;

    Location loc = op.getLoc();
    bool isFloat = isa<FloatType>(element);
    Value init = isFloat ? mlc::detail::createFilledTensor(rewriter, loc,
                                                          result, 0.0)
                         : mlc::detail::createFilledTensor(
                               rewriter, loc, result,
                               APInt(element.getIntOrFloatBitWidth(), 0));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{result}, adaptor.getInputs(), init, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value product = args[0];
          for (Value v : args.drop_front().drop_back())
            product = isFloat ? Value(arith::MulFOp::create(b, l, product, v))
                              : Value(arith::MulIOp::create(b, l, product, v));
          Value acc = args.back();
          linalg::YieldOp::create(
              b, l,
              isFloat ? Value(arith::AddFOp::create(b, l, acc, product))
                      : Value(arith::AddIOp::create(b, l, acc, product)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};
} // namespace

void mlc::populateGraphEinsumToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<EinsumLowering>(patterns.getContext());
}
