//===- GraphToLoop.cpp - The mlc-convert-graph-to-loop pass ---------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Conversion/GraphToLoop/GraphToLoop.h"
#include "mlc/Conversion/Passes.h"

#include "mlc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>

namespace mlc {
#define GEN_PASS_DEF_CONVERTGRAPHTOLOOP
#include "mlc/Conversion/Passes.h.inc"
} // namespace mlc

using namespace mlir;

void mlc::populateGraphToLoopConversionPatterns(RewritePatternSet &patterns) {
  populateGraphElementwiseToLinalgPatterns(patterns);
  populateGraphStructuredToLinalgPatterns(patterns);
  populateGraphMatMulToLinalgPatterns(patterns);
  populateGraphLayoutToLinalgPatterns(patterns);
  populateGraphConvPoolToLinalgPatterns(patterns);
  populateGraphNormalizationToLinalgPatterns(patterns);
  populateGraphReductionsToLinalgPatterns(patterns);
  populateGraphIndexingToLinalgPatterns(patterns);
  populateGraphDecompositionPatterns(patterns);
  populateGraphIfToSCFPatterns(patterns);
  populateGraphLoopsToSCFPatterns(patterns);
  populateGraphQuantToLinalgPatterns(patterns);
  populateGraphEinsumToLinalgPatterns(patterns);
  populateGraphRoiAlignToLinalgPatterns(patterns);
  populateGraphSignalToLinalgPatterns(patterns);
  populateGraphGridSampleToLinalgPatterns(patterns);
  populateGraphResizeToLinalgPatterns(patterns);
  populateGraphUniqueToLinalgPatterns(patterns);
  populateGraphSpectrogramToLinalgPatterns(patterns);
  populateGraphPadTileToLinalgPatterns(patterns);
  populateGraphRandomToLinalgPatterns(patterns);
  populateGraphRecurrentToLinalgPatterns(patterns);
  populateGraphGatherScatterNDToLinalgPatterns(patterns);
  populateGraphQuantComputeToLinalgPatterns(patterns);
  populateGraphConvTransposeToLinalgPatterns(patterns);
  populateGraphDataDependentToLinalgPatterns(patterns);
  populateGraphTopKToLinalgPatterns(patterns);
  populateGraphNonMaxSuppressionToLinalgPatterns(patterns);
}

namespace {
struct ConvertGraphToLoopPass
    : mlc::impl::ConvertGraphToLoopBase<ConvertGraphToLoopPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    // Graph ops are not marked illegal: partial conversion then lowers what
    // it can and collects the ops no pattern handled, which are reported by
    // kind, once each.
    ConversionTarget target(*ctx);
    // cf.assert: run-time checks (a size that cannot be, a branch that
    // cannot run at these shapes).
    target.addLegalDialect<arith::ArithDialect, cf::ControlFlowDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect>();
    // Unsigned integers are viewed as signless inside generic bodies.
    target.addLegalOp<UnrealizedConversionCastOp>();
    // Sizes computed from sizes known at run time (upstream's
    // decompositions, tensor.concat's, build them as affine maps).
    target.addLegalOp<affine::AffineApplyOp, affine::AffineMinOp,
                      affine::AffineMaxOp>();
    RewritePatternSet patterns(ctx);
    mlc::populateGraphToLoopConversionPatterns(patterns);
    DenseSet<Operation *> unlowered;
    ConversionConfig config;
    config.unlegalizedOps = &unlowered;
    if (failed(
            applyPartialConversion(func, target, std::move(patterns), config)))
      return signalPassFailure();
    std::map<std::string, std::pair<int, Operation *>> left;
    func.walk([&](Operation *op) {
      if (unlowered.contains(op) &&
          isa<mlc::graph::GraphDialect>(op->getDialect())) {
        auto &entry = left[op->getName().getStringRef().str()];
        if (entry.first++ == 0)
          entry.second = op;
      }
    });
    if (left.empty())
      return;
    for (auto &[name, entry] : left)
      entry.second->emitError()
          << "'" << name << "' (" << entry.first
          << " in this function) has no lowering to the loop level for these "
             "types and shapes yet";
    signalPassFailure();
  }
};
} // namespace
