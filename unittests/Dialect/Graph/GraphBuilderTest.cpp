//===- GraphBuilderTest.cpp - Building graph ops from C++ -----------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The importer builds graph ops through the C++ API and relies on the shape
// functions to type them; these tests pin that contract down.
//
//===----------------------------------------------------------------------===//

#include "mlc/Dialect/Graph/IR/GraphOps.h"
#include "mlc/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlc::graph;

namespace {
class GraphBuilderTest : public ::testing::Test {
protected:
  GraphBuilderTest() : builder(&context) {
    DialectRegistry registry;
    mlc::registerAllMLCDialects(registry);
    registry.insert<func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A function with arguments of `types` whose body the test fills in.
  Block *makeFunction(TypeRange types) {
    auto func = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                     builder.getFunctionType(types, {}));
    Block *block = func.addEntryBlock();
    builder.setInsertionPointToStart(block);
    return block;
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(GraphBuilderTest, ConvInfersOutputShape) {
  Block *block = makeFunction({f32({1, 3, 224, 224}), f32({64, 3, 7, 7})});
  Location loc = builder.getUnknownLoc();
  auto conv = ConvOp::create(
      builder, loc, block->getArgument(0), block->getArgument(1),
      /*bias=*/Value(), builder.getDenseI64ArrayAttr({2, 2}),
      builder.getDenseI64ArrayAttr({3, 3, 3, 3}), /*dilations=*/nullptr,
      /*group=*/1, AutoPad::NotSet);
  EXPECT_EQ(conv.getType(), f32({1, 64, 112, 112}));
  auto pool = MaxPoolOp::create(builder, loc, conv,
                                builder.getDenseI64ArrayAttr({3, 3}),
                                builder.getDenseI64ArrayAttr({2, 2}),
                                builder.getDenseI64ArrayAttr({1, 1, 1, 1}),
                                nullptr, false, AutoPad::NotSet);
  EXPECT_EQ(pool.getType(), f32({1, 64, 56, 56}));
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(GraphBuilderTest, BroadcastAndCompare) {
  Block *block = makeFunction({f32({3, 1}), f32({4})});
  Location loc = builder.getUnknownLoc();
  auto add =
      AddOp::create(builder, loc, block->getArgument(0), block->getArgument(1));
  EXPECT_EQ(add.getType(), f32({3, 4}));
  auto less = LessOp::create(builder, loc, block->getArgument(0),
                             block->getArgument(1));
  EXPECT_EQ(less.getType(), RankedTensorType::get({3, 4}, builder.getI1Type()));
}

TEST_F(GraphBuilderTest, ReshapeWithConstantShapeIsStatic) {
  Block *block = makeFunction({f32({2, 3, 4})});
  Location loc = builder.getUnknownLoc();
  auto shapeType = RankedTensorType::get({2}, builder.getI64Type());
  auto shape = ConstantOp::create(
      builder, loc,
      DenseIntElementsAttr::get(shapeType, ArrayRef<int64_t>{-1, 4}));
  auto reshape = ReshapeOp::create(builder, loc, block->getArgument(0), shape,
                                   /*allowzero=*/false);
  EXPECT_EQ(reshape.getType(), f32({6, 4}));
}

TEST_F(GraphBuilderTest, InvalidShapesReportThroughDiagnostics) {
  Block *block = makeFunction({f32({2, 3}), f32({4, 5})});
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  SmallVector<Type> types;
  MatMulOp::Adaptor adaptor({block->getArgument(0), block->getArgument(1)});
  EXPECT_TRUE(failed(MatMulOp::inferReturnTypes(
      &context, builder.getUnknownLoc(), adaptor, types)));
  EXPECT_EQ(message, "'mlc_graph.matmul' op contracting dims differ: lhs 2x3 "
                     "has K = 3, rhs 4x5 has K = 4");
}
} // namespace
