//===- LoopToCPUPipeline.cpp - Loop level to the LLVM dialect -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Builds `mlc-loop-to-cpu-pipeline` from pass constructors. The tile sizes
// come from the CPU's description (TargetInfo.h); the model ABI records the
// CPU the code needs.
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/CPU/LoopToCPUPipeline.h"
#include "mlc/Dialect/Loop/Transforms/Passes.h"
#include "mlc/Target/CPU/Passes.h"
#include "mlc/Target/Host/Passes.h"
#include "mlc/Target/Host/Pipelines.h"
#include "mlc/Target/CPU/TargetInfo.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlc;
using namespace mlc::target;

CPUTargetOptions LoopToCPUPipelineOptions::toTargetOptions() const {
  CPUTargetOptions options;
  options.triple = triple;
  options.cpu = cpu;
  options.features = features;
  options.parallel = parallel;
  options.sharedLibrary = sharedLibrary;
  options.weightsFile = weightsFile;
  options.scheduleFile = scheduleFile;
  options.printSchedules = printSchedules;
  options.profile = profile;
  return options;
}

namespace {
/// The CPU description's tiles, as the strategy's and the tiling pass's
/// options share them.
template <typename Options>
void setTileOptions(Options &target, const CPUTargetOptions &options,
                    const CPUTargetInfo &info, const ContractionTiles &tiles,
                    const ContractionTiles &unpacked) {
  target.parallel = options.parallel;
  target.mTile = tiles.mTile;
  target.nTile = tiles.nTile;
  target.kTile = tiles.kTile;
  target.nBlock = tiles.nBlock;
  target.unpackedTilesOption = {unpacked.mTile, unpacked.nTile, unpacked.kTile,
                                unpacked.nBlock};
  if (unpacked.registerRows)
    target.unpackedTilesOption.append(
        {unpacked.registerRows, unpacked.registerColumns});
  target.vectorWidth = info.lanes();
}

/// What the metadata records about the code's target: the triple, the CPU
/// and the features turned on (host CPUs list every feature they lack as
/// well; those say nothing about where the code runs).
host::HostEmitEntryPointsOptions getEntryPointOptions(const CPUTargetOptions &options) {
  host::HostEmitEntryPointsOptions entry;
  entry.sharedAliases = options.sharedLibrary;
  entry.targetTriple = llvm::Triple::normalize(
      options.triple.empty() ? llvm::sys::getDefaultTargetTriple()
                             : options.triple);
  ResolvedCPU resolved = resolveCPU(options);
  entry.targetCPU = resolved.cpu;
  llvm::SubtargetFeatures user(options.features);
  llvm::SubtargetFeatures all(resolved.features);
  llvm::SmallVector<std::string> recorded;
  for (const std::string &feature : all.getFeatures())
    if (llvm::StringRef(feature).starts_with("+") ||
        llvm::is_contained(user.getFeatures(), feature))
      recorded.push_back(feature);
  llvm::sort(recorded);
  entry.targetFeatures = llvm::join(recorded, ",");
  return entry;
}
} // namespace

void mlc::target::buildCPUKernelPipeline(OpPassManager &pm,
                                         const CPUTargetOptions &options) {
  CPUTargetInfo info = getCPUTargetInfo(options);
  ContractionTiles tiles = chooseContractionTiles(info);
  ContractionTiles unpacked = chooseContractionTiles(info, kCacheLineFloats);
  if (options.printSchedules)
    llvm::outs() << "// target: " << describe(info, tiles, unpacked) << "\n";

  // Target-independent rewrites, the CPU strategy's layout choices done by
  // the generic layout passes (convolutions on small maps as matmuls,
  // narrow depthwise convolutions channels-last, weights packed for its
  // register tiles, convolutions as im2col contractions), kernels, and the
  // CPU strategy's schedule for each.
  OpPassManager &loops = pm.nest<func::FuncOp>();
  loops.addPass(loop::createLoopSimplifyShapes());
  loops.addPass(createCPUIntegerContractions(
      CPUIntegerContractionsOptions{tiles.nTile}));
  loops.addPass(loop::createLoopFoldWeightTransposes());
  loops.addPass(loop::createLoopFuseElementwise());
  CPUChooseLayoutsOptions layouts;
  layouts.panel = tiles.nTile;
  layouts.lanes = info.lanes();
  loops.addPass(createCPUChooseLayouts(layouts));
  loops.addPass(loop::createLoopConvolutionsAsMatmuls());
  loops.addPass(loop::createLoopChannelsLastDepthwise());
  loops.addPass(loop::createLoopFoldWeightTransposes());
  loops.addPass(createCPUApproximateMath());
  loops.addPass(createCPUReassociateSums());
  loops.addPass(loop::createLoopPackWeights());
  loops.addPass(loop::createLoopConvolutionsAsContractions());
  loops.addPass(loop::createLoopSimplifyShapes());
  loops.addPass(loop::createLoopFormKernels());
  loops.addPass(createCPUCollapseElementwiseRows(
      CPUCollapseElementwiseRowsOptions{kLongRow}));
  CPUSetSchedulesOptions strategy;
  setTileOptions(strategy, options, info, tiles, unpacked);
  strategy.printSchedules = options.printSchedules;
  strategy.scheduleFile = options.scheduleFile;
  loops.addPass(createCPUSetSchedules(strategy));
  loops.addPass(loop::createLoopVerifyKernels());
}

void mlc::target::buildCPUScheduledKernelsPipeline(
    OpPassManager &pm, const CPUTargetOptions &options) {
  CPUTargetInfo info = getCPUTargetInfo(options);
  ContractionTiles tiles = chooseContractionTiles(info);
  ContractionTiles unpacked = chooseContractionTiles(info, kCacheLineFloats);

  // The kernels' schedules applied: windows' register tiles, the generic
  // tiling of thread and cache levels, the other loop nests on threads, the
  // register level.
  OpPassManager &loops = pm.nest<func::FuncOp>();
  loops.addPass(loop::createLoopDissolveKernels());
  CPUWindowRegisterTilesOptions windows;
  windows.vectorWidth = info.lanes();
  windows.columns = unpacked.nTile;
  windows.parallel = options.parallel;
  loops.addPass(createCPUWindowRegisterTiles(windows));
  loops.addPass(createCPUTileBySchedule());
  loops.addPass(createCPUParallelizeLoopNests(
      CPUParallelizeLoopNestsOptions{options.parallel}));
  CPUVectorizeRegisterTilesOptions registerLevel;
  setTileOptions(registerLevel, options, info, tiles, unpacked);
  registerLevel.pairMultiplyAdd = info.pairMultiplyAdd;
  loops.addPass(createCPUVectorizeRegisterTiles(registerLevel));
  loops.addPass(host::createHostFlattenConstants());
  loops.addPass(loop::createLoopConcatInPlace());
}

void mlc::target::buildCPULoweringPipeline(OpPassManager &pm,
                                           const CPUTargetOptions &options) {
  buildCPUScheduledKernelsPipeline(pm, options);
  // The model ABI, bufferization into destination arguments and the arena
  // (with the cache of run-time-sized buffers).
  host::buildBufferizeModelPipeline(pm, kMaxStackScratchBytes,
                                    /*cacheHeapBuffers=*/true);
  buildCPUBuffersToLLVMPipeline(pm, options);
}

void mlc::target::buildCPUBuffersToLLVMPipeline(OpPassManager &pm,
                                                const CPUTargetOptions &options) {
  if (!options.weightsFile.empty())
    pm.addPass(host::createHostExternalizeWeights(
        host::HostExternalizeWeightsOptions{options.weightsFile}));
  pm.addPass(createCPULowerCopies());
  // A profile times each kernel call by its own node: no sharing then.
  pm.addPass(host::createHostOutlineKernels(
      host::HostOutlineKernelsOptions{/*shareIdentical=*/!options.profile}));
  if (options.profile)
    pm.addPass(host::createHostInstrumentKernels());
  pm.addPass(host::createHostByteWeights());

  // Loops, threads and the upstream conversions to the LLVM dialect.
  OpPassManager &toLoops = pm.nest<func::FuncOp>();
  toLoops.addPass(createConvertLinalgToLoopsPass());
  VectorTransferToSCFOptions unroll;
  unroll.unroll = true;
  toLoops.addPass(createConvertVectorToSCFPass(unroll));
  pm.nest<func::FuncOp>().addPass(createForallToParallelLoopPass());
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.nest<func::FuncOp>().addPass(createCanonicalizerPass());
  pm.addPass(createCPUStackScratch(
      CPUStackScratchOptions{kMaxStackScratchBytes}));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.nest<func::FuncOp>().addPass(host::createHostExpandDynamicReshapes());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createCPUScalarMinMax());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(host::createHostEmitEntryPoints(getEntryPointOptions(options)));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(host::createHostVerifyLLVM());
}

void mlc::target::buildLoopToCPUPipeline(OpPassManager &pm,
                                         const CPUTargetOptions &options) {
  buildCPUKernelPipeline(pm, options);
  buildCPULoweringPipeline(pm, options);
}
