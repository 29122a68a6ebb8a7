//===- Pipelines.h - tilec's named pass pipelines ---------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the end-to-end pipelines:
//   tilec-to-nvvm{chip=...}  tile program -> gpu.modules of LLVM/NVVM ops
//   tilec-to-ptx{chip=...}   ... -> gpu.binary with the PTX of each kernel
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PIPELINES_PIPELINES_H
#define TILEC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::tilec {

struct TilecPipelineOptions
    : public PassPipelineOptions<TilecPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target chip (sm_80, sm_86, sm_89, sm_90, sm_90a)"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<unsigned> optLevel{
      *this, "O", llvm::cl::desc("LLVM optimization level"),
      llvm::cl::init(3)};
  PassOptions::Option<bool> fastMath{
      *this, "fast-math",
      llvm::cl::desc("Approximate divides, square roots and math functions "
                     "in every kernel (afn, arcp, contract on each float op; "
                     "see tile-fast-math)"),
      llvm::cl::init(false)};
};

struct TilecHostPipelineOptions
    : public PassPipelineOptions<TilecHostPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The object of each gpu.binary to launch (empty: the "
                     "only one)"),
      llvm::cl::init("")};
};

/// The tile-level passes, per kernel in its gpu.module: target attachment,
/// named-op expansion, layouts, the scheduling passes and tile-verify-async.
/// The kernels stay tile dialect ops (the stage to read a schedule at).
void buildTilecSchedulePipeline(OpPassManager &pm,
                                const TilecPipelineOptions &options);

/// tilec-schedule, then the lowering to NVVM/LLVM dialect ops.
void buildTilecToNVVMPipeline(OpPassManager &pm,
                              const TilecPipelineOptions &options);

/// tilec-to-nvvm followed by gpu-module-to-binary{format=isa}.
void buildTilecToPTXPipeline(OpPassManager &pm,
                             const TilecPipelineOptions &options);

/// The host side: one-shot bufferization of the host functions, buffer
/// deallocation, tile-lower-launches (runtime calls), and the upstream
/// conversions to the LLVM dialect (allocations through the host runtime's
/// managed memory).
void buildTilecHostToLLVMPipeline(OpPassManager &pm,
                                  const TilecHostPipelineOptions &options);

/// Registers the pipelines with the global pass registry.
void registerTilecPipelines();

} // namespace mlir::tilec

#endif // TILEC_PIPELINES_PIPELINES_H
