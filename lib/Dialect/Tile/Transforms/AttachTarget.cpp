//===- AttachTarget.cpp - Wrap kernels into gpu.modules with a target -----===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-attach-target: every top-level tile.kernel moves
// into its own gpu.module carrying #nvvm.target<chip, +ptxNN>, so that each
// kernel becomes one PTX/cubin and later passes read the chip from the IR.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEATTACHTARGET
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

namespace {
struct TileAttachTargetPass
    : tile::impl::TileAttachTargetBase<TileAttachTargetPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// Checks that the modules (the root, nested ones and gpu.modules) hold at
/// their top only symbols (kernels, functions, globals, gpu.modules) and
/// nested symbol tables. Another op there (a tile op outside its kernel)
/// would be translated to LLVM outside any function.
static LogicalResult verifyModuleTops(ModuleOp module) {
  auto check = [](Block &block) {
    for (Operation &op : block)
      if (!isa<SymbolOpInterface>(op) && !op.hasTrait<OpTrait::SymbolTable>() &&
          !op.hasTrait<OpTrait::IsTerminator>())
        return op.emitOpError(
                   "is at the top level of a module, outside every kernel "
                   "and function (a module holds tile.kernel, functions, "
                   "globals and gpu.modules)"),
               failure();
    return success();
  };
  WalkResult result = module.walk([&](Operation *op) {
    if (!isa<ModuleOp, gpu::GPUModuleOp>(op))
      return WalkResult::advance();
    if (failed(check(op->getRegion(0).front())))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void TileAttachTargetPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (failed(verifyModuleTops(module)))
    return signalPassFailure();
  FailureOr<TargetInfo> info = TargetInfo::get(chip);
  if (failed(info)) {
    module.emitError("unknown chip '")
        << chip << "'; expected one of " << TargetInfo::getSupportedChips();
    return signalPassFailure();
  }
  MLIRContext *ctx = &getContext();
  auto target = NVVM::NVVMTargetAttr::get(
      ctx, optLevel, "nvptx64-nvidia-cuda", info->chip,
      info->getPtxFeatures());
  // Kernels already in a gpu.module keep its target, which must be the
  // chip asked for: the driver's --chip is never silently ignored.
  WalkResult mismatch = module.walk([&](gpu::GPUModuleOp gpuModule) {
    ArrayAttr targets = gpuModule.getTargetsAttr();
    if (gpuModule.getOps<KernelOp>().empty() || !targets)
      return WalkResult::advance();
    for (Attribute t : targets) {
      auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(t);
      if (nvvm && nvvm.getChip() == info->chip) {
        // Its PTX ISA must reach the chip's (LLVM aborts otherwise).
        unsigned ptx = 0;
        for (StringRef f : llvm::split(nvvm.getFeatures(), ','))
          if (f.consume_front("+ptx"))
            f.getAsInteger(10, ptx);
        if (ptx >= info->ptxVersion)
          continue;
        gpuModule.emitError("gpu.module @")
            << gpuModule.getName() << " targets " << info->chip
            << " with PTX ISA " << ptx / 10 << "." << ptx % 10 << "; "
            << info->chip << " needs " << info->ptxVersion / 10 << "."
            << info->ptxVersion % 10 << " (features \"" << info->getPtxFeatures()
            << "\")";
        return WalkResult::interrupt();
      }
      gpuModule.emitError("gpu.module @")
          << gpuModule.getName() << " already targets " << t
          << ", not the chip asked for (" << info->chip
          << "); remove its target or ask for its chip";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (mismatch.wasInterrupted())
    return signalPassFailure();
  SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
  if (!kernels.empty())
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
  OpBuilder builder(ctx);
  for (KernelOp kernel : kernels) {
    builder.setInsertionPoint(kernel);
    auto gpuModule = gpu::GPUModuleOp::create(
        builder, kernel.getLoc(), kernel.getSymName(),
        builder.getArrayAttr({target}));
    kernel->moveBefore(&gpuModule.getBodyRegion().front(),
                       gpuModule.getBodyRegion().front().end());
  }
}
