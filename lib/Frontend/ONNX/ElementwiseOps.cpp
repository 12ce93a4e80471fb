//===- ElementwiseOps.cpp - Elementwise ONNX ops --------------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unary math and activations, broadcasting binary ops (including the
// variadic Max/Min/Sum/Mean), comparisons, logic, Where, Clip, Cast and
// the ops that are identities at inference (Identity, Dropout).
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"
#include "TensorImport.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

namespace {
template <typename OpTy> ConvertFn unary() {
  return [](NodeImporter &n) -> LogicalResult {
    if (failed(n.expectInputs(1, 1)))
      return failure();
    return n.emit<OpTy>(n.getInput(0));
  };
}

template <typename OpTy> ConvertFn binary() {
  return [](NodeImporter &n) -> LogicalResult {
    if (failed(n.expectInputs(2, 2)))
      return failure();
    return n.emit<OpTy>(n.getInput(0), n.getInput(1));
  };
}

/// Max, Min, Sum: a left fold of the binary op over all inputs.
template <typename OpTy> ConvertFn variadic() {
  return [](NodeImporter &n) -> LogicalResult {
    if (failed(n.expectInputs(1, SIZE_MAX)))
      return failure();
    Value acc = n.getInput(0);
    for (size_t i = 1; i < n.getNumInputs(); ++i) {
      if (!n.hasInput(i))
        return n.fail("input " + llvm::Twine(i) + " is absent");
      FailureOr<OpTy> op = n.create<OpTy>(acc, n.getInput(i));
      if (failed(op))
        return failure();
      acc = op->getResult();
    }
    n.results.push_back(acc);
    return success();
  };
}

LogicalResult convertMean(NodeImporter &n) {
  if (failed(variadic<AddOp>()(n)))
    return failure();
  Value sum = n.results.pop_back_val();
  Type element = NodeImporter::getElementType(sum);
  if (!isa<FloatType>(element))
    return n.fail("Mean of integer tensors is not supported");
  Value count = n.getScalarConstant(element, n.getNumInputs());
  return n.emit<DivOp>(sum, count);
}

LogicalResult convertClip(NodeImporter &n) {
  if (n.opset < 11) {
    if (failed(n.expectInputs(1, 1)))
      return failure();
    Type element = NodeImporter::getElementType(n.getInput(0));
    Value lo = n.getScalarConstant(
        element, n.getFloat("min", -std::numeric_limits<float>::max()));
    Value hi = n.getScalarConstant(
        element, n.getFloat("max", std::numeric_limits<float>::max()));
    return n.emit<ClipOp>(n.getInput(0), lo, hi);
  }
  if (failed(n.expectInputs(1, 3)))
    return failure();
  return n.emit<ClipOp>(n.getInput(0), n.getInput(1), n.getInput(2));
}

/// Cast to an element type, keeping the shape.
LogicalResult castTo(NodeImporter &n, Value input, Type element) {
  auto type = cast<TensorType>(input.getType());
  Type result = type.hasRank()
                    ? Type(RankedTensorType::get(type.getShape(), element))
                    : Type(UnrankedTensorType::get(element));
  n.results.push_back(CastOp::create(n.builder, n.loc, result, input));
  return success();
}

LogicalResult convertCast(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  int64_t to = n.getInt("to", 0);
  Type element = to == onnx::TensorProto::STRING
                     ? StringType::get(n.builder.getContext())
                     : getElementType(n.builder.getContext(), to);
  if (!element)
    return n.fail("cannot cast to " + getDataTypeName(to));
  return castTo(n, n.getInput(0), element);
}

LogicalResult convertCastLike(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  return castTo(n, n.getInput(0), NodeImporter::getElementType(n.getInput(1)));
}

LogicalResult convertPow(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  Value base = n.getInput(0), exponent = n.getInput(1);
  Type element = NodeImporter::getElementType(base);
  if (NodeImporter::getElementType(exponent) != element) {
    if (failed(castTo(n, exponent, element)))
      return failure();
    exponent = n.results.pop_back_val();
  }
  return n.emit<PowOp>(base, exponent);
}

/// The one value of a constant float tensor, if `v` is one.
static std::optional<double> getConstantFloat(Value v) {
  DenseFPElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  return (*attr.getValues<APFloat>().begin()).convertToDouble();
}

/// Identity at inference, with an all-true mask. In training mode with a
/// ratio above 0 Dropout draws random numbers, which is not supported: a
/// constant training_mode and ratio make that a compile error, run-time
/// ones a run-time check (the node fails when a run asks for it).
LogicalResult convertDropout(NodeImporter &n) {
  if (failed(n.expectInputs(1, 3)))
    return failure();
  Value x = n.getInput(0);
  // Absent: inference, and the default ratio 0.5.
  std::optional<bool> training = false;
  if (n.hasInput(2)) {
    auto t = n.getConstantInts(n.getInput(2));
    training = t && t->size() == 1 ? std::optional<bool>((*t)[0] != 0)
                                   : std::nullopt;
  }
  std::optional<double> ratio =
      n.hasInput(1) ? getConstantFloat(n.getInput(1)) : 0.5;
  bool identity = training == false || ratio == 0.0;
  if (!identity && training == true && ratio)
    return n.fail("training_mode = true with a ratio above 0 draws random "
                  "numbers, which is not supported (inference only)");
  bool wantsMask = n.node.output_size() >= 2 && !n.node.output(1).empty();
  Value mask;
  if (wantsMask) {
    // Every element is kept: the mask is all true.
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !type.hasStaticShape())
      return n.fail("the mask output needs an input of static shape");
    Builder &b = n.builder;
    mask = ConstantOp::create(
        n.builder, n.loc,
        DenseElementsAttr::get(
            RankedTensorType::get(type.getShape(), b.getI1Type()), true));
  }
  SmallVector<Value> values = {x};
  if (mask)
    values.push_back(mask);
  if (identity) {
    llvm::append_range(n.results, values);
    return success();
  }
  // Decided at run time: the values pass when not training or the ratio
  // is 0; otherwise the run fails with the node's name.
  Value ok;
  if (training != true) {
    FailureOr<NotOp> notTraining = n.create<NotOp>(n.getInput(2));
    if (failed(notTraining))
      return failure();
    ok = notTraining->getResult();
  }
  if (!ratio) {
    Value zero = n.getScalarConstant(NodeImporter::getElementType(
                                         n.getInput(1)),
                                     0.0);
    FailureOr<EqualOp> none = n.create<EqualOp>(n.getInput(1), zero);
    if (failed(none))
      return failure();
    if (ok) {
      FailureOr<OrOp> either = n.create<OrOp>(ok, none->getResult());
      if (failed(either))
        return failure();
      ok = either->getResult();
    } else {
      ok = none->getResult();
    }
  }
  Region thenRegion, elseRegion;
  {
    OpBuilder::InsertionGuard guard(n.builder);
    n.builder.createBlock(&thenRegion);
    YieldOp::create(n.builder, n.loc, values);
  }
  auto name = dyn_cast<NameLoc>(n.loc);
  std::string message =
      ("Dropout node '" + (name ? name.getName().getValue() : "?") +
       "': training_mode is true and the ratio is above 0, which draws "
       "random numbers; mlc runs Dropout for inference only")
          .str();
  if (failed(IfOp::buildFailingBranch(n.builder, n.loc, elseRegion,
                                      ValueRange(values).getTypes(), message)))
    return n.fail("a run-time training_mode needs an input of static shape");
  OperationState state(n.loc, IfOp::getOperationName());
  IfOp::build(n.builder, state, ValueRange(values).getTypes(), ok);
  state.regions[0]->takeBody(thenRegion);
  state.regions[1]->takeBody(elseRegion);
  llvm::append_range(n.results, n.builder.create(state)->getResults());
  return success();
}

LogicalResult convertLeakyRelu(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<LeakyReluOp>(
      n.getInput(0), n.builder.getF32FloatAttr(n.getFloat("alpha", 0.01f)));
}

LogicalResult convertElu(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<EluOp>(n.getInput(0),
                       n.builder.getF32FloatAttr(n.getFloat("alpha", 1.0f)));
}

LogicalResult convertSelu(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<SeluOp>(n.getInput(0),
                        n.builder.getF32FloatAttr(
                            n.getFloat("alpha", 1.67326319217681884765625f)),
                        n.builder.getF32FloatAttr(
                            n.getFloat("gamma", 1.05070102214813232421875f)));
}

LogicalResult convertHardSigmoid(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<HardSigmoidOp>(
      n.getInput(0), n.builder.getF32FloatAttr(n.getFloat("alpha", 0.2f)),
      n.builder.getF32FloatAttr(n.getFloat("beta", 0.5f)));
}

LogicalResult convertGelu(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  std::string approximate = n.getString("approximate").value_or("none");
  if (approximate != "none" && approximate != "tanh")
    return n.fail("approximate must be 'none' or 'tanh', got '" + approximate +
                  "'");
  return n.emit<GeluOp>(n.getInput(0),
                        n.builder.getBoolAttr(approximate == "tanh"));
}

LogicalResult convertCelu(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<CeluOp>(n.getInput(0),
                        n.builder.getF32FloatAttr(n.getFloat("alpha", 1.0f)));
}

LogicalResult convertThresholdedRelu(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<ThresholdedReluOp>(
      n.getInput(0), n.builder.getF32FloatAttr(n.getFloat("alpha", 1.0f)));
}

LogicalResult convertShrink(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<ShrinkOp>(n.getInput(0),
                          n.builder.getF32FloatAttr(n.getFloat("bias", 0.0f)),
                          n.builder.getF32FloatAttr(n.getFloat("lambd", 0.5f)));
}

LogicalResult convertIsInf(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  return n.emit<IsInfOp>(
      n.getInput(0), n.builder.getBoolAttr(n.getInt("detect_negative", 1) != 0),
      n.builder.getBoolAttr(n.getInt("detect_positive", 1) != 0));
}

LogicalResult convertMod(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  bool fmod = n.getInt("fmod", 0) != 0;
  if (!fmod && isa<FloatType>(NodeImporter::getElementType(n.getInput(0))))
    return n.fail("fmod = 0 is not allowed for floating-point inputs");
  return n.emit<ModOp>(n.getInput(0), n.getInput(1),
                       n.builder.getBoolAttr(fmod));
}

LogicalResult convertBitShift(NodeImporter &n) {
  if (failed(n.expectInputs(2, 2)))
    return failure();
  std::optional<std::string> direction = n.getString("direction");
  if (!direction || (*direction != "LEFT" && *direction != "RIGHT"))
    return n.fail("direction must be \"LEFT\" or \"RIGHT\"");
  if (!NodeImporter::getElementType(n.getInput(0)).isUnsignedInteger())
    return n.fail("BitShift takes unsigned integers");
  return n.emit<BitShiftOp>(n.getInput(0), n.getInput(1),
                            n.builder.getBoolAttr(*direction == "LEFT"));
}

LogicalResult convertWhere(NodeImporter &n) {
  if (failed(n.expectInputs(3, 3)))
    return failure();
  return n.emit<WhereOp>(n.getInput(0), n.getInput(1), n.getInput(2));
}
/// Identity; sequences and optionals pass through as they are.
LogicalResult convertIdentity(NodeImporter &n) {
  if (failed(n.expectInputs(1, 1)))
    return failure();
  if (!isa<TensorType>(n.getInput(0).getType())) {
    n.results.push_back(n.getInput(0));
    return success();
  }
  return n.emit<IdentityOp>(n.getInput(0));
}
} // namespace

void mlc::onnx_import::addElementwiseConverters(ConverterTable &t) {
  t.add("Identity", 1, convertIdentity, Accepts::Anything);
  t.add("Neg", 6, unary<NegOp>());
  t.add("Abs", 6, unary<AbsOp>());
  t.add("Exp", 6, unary<ExpOp>());
  t.add("Log", 6, unary<LogOp>());
  t.add("Sqrt", 6, unary<SqrtOp>());
  t.add("Reciprocal", 6, unary<ReciprocalOp>());
  t.add("Tanh", 6, unary<TanhOp>());
  t.add("Sigmoid", 6, unary<SigmoidOp>());
  t.add("Relu", 6, unary<ReluOp>());
  t.add("Erf", 9, unary<ErfOp>());
  t.add("Floor", 6, unary<FloorOp>());
  t.add("Ceil", 6, unary<CeilOp>());
  t.add("Round", 11, unary<RoundOp>());
  t.add("Sin", 7, unary<SinOp>());
  t.add("Cos", 7, unary<CosOp>());
  t.add("Softplus", 1, unary<SoftplusOp>());
  t.add("HardSwish", 14, unary<HardSwishOp>());
  t.add("Not", 1, unary<NotOp>());
  t.add("Tan", 7, unary<TanOp>());
  t.add("Sinh", 9, unary<SinhOp>());
  t.add("Cosh", 9, unary<CoshOp>());
  t.add("Asin", 7, unary<AsinOp>());
  t.add("Acos", 7, unary<AcosOp>());
  t.add("Atan", 7, unary<AtanOp>());
  t.add("Asinh", 9, unary<AsinhOp>());
  t.add("Acosh", 9, unary<AcoshOp>());
  t.add("Atanh", 9, unary<AtanhOp>());
  t.add("Sign", 9, unary<SignOp>());
  t.add("Softsign", 1, unary<SoftsignOp>());
  t.add("Mish", 18, unary<MishOp>());
  t.add("IsNaN", 9, unary<IsNaNOp>());
  t.add("IsInf", 10, convertIsInf);
  t.add("Celu", 12, convertCelu);
  t.add("ThresholdedRelu", 10, convertThresholdedRelu);
  t.add("Shrink", 9, convertShrink);
  t.add("LeakyRelu", 6, convertLeakyRelu);
  t.add("Elu", 6, convertElu);
  t.add("Selu", 6, convertSelu);
  t.add("HardSigmoid", 6, convertHardSigmoid);
  t.add("Gelu", 20, convertGelu);
  t.add("Clip", 6, convertClip);
  t.add("Cast", 6, convertCast, Accepts::Strings);
  t.add("CastLike", 15, convertCastLike, Accepts::Strings);
  t.add("Dropout", 7, convertDropout);

  t.add("Add", 7, binary<AddOp>());
  t.add("Sub", 7, binary<SubOp>());
  t.add("Mul", 7, binary<MulOp>());
  t.add("Div", 7, binary<DivOp>());
  t.add("Pow", 7, convertPow);
  t.add("Mod", 10, convertMod);
  t.add("PRelu", 7, binary<PReluOp>());
  t.add("BitShift", 11, convertBitShift);
  t.add("Max", 6, variadic<MaxOp>());
  t.add("Min", 6, variadic<MinOp>());
  t.add("Sum", 6, variadic<AddOp>());
  t.add("Mean", 6, convertMean);
  t.add("Equal", 7, binary<EqualOp>());
  t.add("Less", 7, binary<LessOp>());
  t.add("Greater", 7, binary<GreaterOp>());
  t.add("LessOrEqual", 12, binary<LessOrEqualOp>());
  t.add("GreaterOrEqual", 12, binary<GreaterOrEqualOp>());
  t.add("And", 7, binary<AndOp>());
  t.add("Or", 7, binary<OrOp>());
  t.add("Xor", 7, binary<XorOp>());
  t.add("Where", 9, convertWhere);
}
