//===- Pipelines.cpp - tilec's named pass pipelines -----------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipelines/Pipelines.h"
#include "tilec/Conversion/Passes.h"
#include "tilec/Conversion/TileToHostRuntime/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tilec;

/// Passes on the tile dialect, per kernel (tilec-schedule).
void mlir::tilec::buildTilecSchedulePipeline(
    OpPassManager &pm, const TilecPipelineOptions &options) {
  tile::TileAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.optLevel = options.optLevel;
  // A kernel of a named op that runs as several kernels (the attention
  // backward, split-K GEMMs) becomes one kernel per stage before
  // the kernels are wrapped into gpu.modules.
  pm.addPass(tile::createTileSplitStages());
  pm.addPass(tile::createTileAttachTarget(attach));
  OpPassManager &kernelPm =
      pm.nest<gpu::GPUModuleOp>().nest<tile::KernelOp>();
  kernelPm.addPass(tile::createTileExpandNamedOps());
  kernelPm.addPass(createCanonicalizerPass());
  // Float semantics: fast-math flags where asked, remarks on the IEEE math
  // that loops pay for elsewhere.
  tile::TileFastMathOptions fastMath;
  fastMath.all = options.fastMath;
  kernelPm.addPass(tile::createTileFastMath(fastMath));
  kernelPm.addPass(tile::createTileAssignLayouts());
  // Layout conversions of values defined before a loop (attention's Q into
  // the mma.sync A fragment, through shared memory) run once, not per step.
  kernelPm.addPass(createLoopInvariantCodeMotionPass());
  // Index masks (attention's keys past the end, the causal diagonal) in a
  // branch on the loop index, which tile-split-loops splits on.
  kernelPm.addPass(tile::createTileMaskBounds());
  // Schedules (each pass reads the kernel's schedule<...> and the chip):
  // the order of the output tiles, the persistent tile loop, the TMA-store
  // epilogue (sm_90a), then sm_90a: TMA rings for wgmma operands (other chips:
  // no-op), then the cp.async ring for what is left; wgmma groups in flight;
  // the copies of TMA rings moved to a producer warpgroup. tile-wgmma-overlap
  // runs a loop's register work (softmax) beside its next wgmma first.
  // GEMM-like programs' output tiles in grouped order (L2 reuse).
  kernelPm.addPass(tile::createTileGroupTiles());
  kernelPm.addPass(tile::createTilePersistent());
  kernelPm.addPass(tile::createTileTmaStore());
  kernelPm.addPass(tile::createTileTmaPipeline());
  kernelPm.addPass(tile::createTilePipeline());
  // The loads of loops that no ring took, issued an iteration ahead.
  kernelPm.addPass(tile::createTilePrefetchLoads());
  kernelPm.addPass(tile::createTileWgmmaOverlap());
  kernelPm.addPass(tile::createTileAsyncWgmma());
  kernelPm.addPass(tile::createTileWarpSpecialize());
  // Loops whose last iterations take a branch (attention's masked key
  // blocks) run the iterations before without it.
  kernelPm.addPass(tile::createTileSplitLoops());
  // The scheduled kernel simplified: the passes above leave ring
  // arithmetic on constants and branches on constant conditions, and
  // loop-invariant values inside the loops they build.
  kernelPm.addPass(createCanonicalizerPass());
  kernelPm.addPass(createLoopInvariantCodeMotionPass());
  // Operand reads from shared memory per mma.sync K step (attention's Kᵀ,
  // V and Q tiles would otherwise each take a whole tile of registers).
  kernelPm.addPass(tile::createTileSplitDots());
  // The scheduled kernel's barriers, rings and async groups, checked before
  // they become PTX (an error names the op, the barrier or buffer, the path).
  kernelPm.addPass(tile::createTileVerifyAsync());
}

/// Per-thread lowering and the upstream conversions to the LLVM dialect.
static void buildLLVMPasses(OpPassManager &pm) {
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createConvertTileToNVVM());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(createTileLegalizeMath());
  gpuPm.addPass(createTileScalarizeElementwise());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createSCFToControlFlowPass());
  gpuPm.addPass(createConvertVectorToLLVMPass());
  gpuPm.addPass(createArithToLLVMConversionPass());
  // Math functions NVPTX cannot select: libdevice calls (linked in by the
  // serialization); the rest: LLVM intrinsics.
  gpuPm.addPass(createTileConvertMathToLibdevice());
  gpuPm.addPass(createConvertMathToLLVMPass());
  gpuPm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  OpPassManager &cleanup = pm.nest<gpu::GPUModuleOp>();
  cleanup.addPass(createCanonicalizerPass());
  cleanup.addPass(createCSEPass());
}

void mlir::tilec::buildTilecToNVVMPipeline(
    OpPassManager &pm, const TilecPipelineOptions &options) {
  buildTilecSchedulePipeline(pm, options);
  buildLLVMPasses(pm);
}

void mlir::tilec::buildTilecToPTXPipeline(OpPassManager &pm,
                                          const TilecPipelineOptions &options) {
  buildTilecToNVVMPipeline(pm, options);
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
}

void mlir::tilec::buildTilecHostToLLVMPipeline(
    OpPassManager &pm, const TilecHostPipelineOptions &options) {
  // Tensors to buffers, function signatures included (identity layouts, so
  // C callers pass plain descriptors); every allocation freed once dead,
  // results owned by the caller.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  // Launches to runtime calls; what the host computes itself to loops.
  tile::TileLowerLaunchesOptions lower;
  lower.chip = options.chip;
  pm.addPass(tile::createTileLowerLaunches(lower));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Clones the deallocation pipeline left (a returned argument buffer) to
  // an allocation and a copy.
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // Allocations through _mlir_memref_to_llvm_alloc, which the host runtime
  // implements with CUDA managed memory: kernels see every host buffer.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::tilec::registerTilecPipelines() {
  PassPipelineRegistration<TilecPipelineOptions>(
      "tilec-schedule",
      "The tile-level stage of tilec-to-nvvm: kernels in gpu.modules with "
      "their target, named ops expanded, layouts assigned, the schedules "
      "built and the async protocol checked, still in tile dialect ops",
      buildTilecSchedulePipeline);
  PassPipelineRegistration<TilecPipelineOptions>(
      "tilec-to-nvvm",
      "Lower tile programs to gpu.modules of NVVM/LLVM dialect ops",
      buildTilecToNVVMPipeline);
  PassPipelineRegistration<TilecPipelineOptions>(
      "tilec-to-ptx", "Lower tile programs to gpu.binary ops holding PTX",
      buildTilecToPTXPipeline);
  PassPipelineRegistration<TilecHostPipelineOptions>(
      "tilec-host-to-llvm",
      "Lower host functions that launch kernels (tile.launch on tensors, "
      "kernels in gpu.binary ops) to the LLVM dialect",
      buildTilecHostToLLVMPipeline);
}
