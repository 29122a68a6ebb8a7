//===- WarpSpecializeOpToLLVM.cpp - producer/consumer warp roles ----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers tile.warp_specialize to a branch on the warp index:
//
//   if (warp < warps) {                 // the kernel's warps: default region
//     setmaxnreg.{inc|dec} defaultRegs
//     <default region>
//   } else {                            // the added warpgroups
//     setmaxnreg.{inc|dec} partitionRegs
//     if (warp == warps) <partition region>   // its first warp runs it
//   }
//
// `setmaxnreg` must move from the register count the block was launched
// with: ptxas gives each thread (64K / threads) rounded down to a multiple of
// 8 (the kernel has .reqntid), so each side increases or decreases from that.
// Block barriers inside the regions were marked (kExecGroupAttr) to become
// named barriers of their warps.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

int64_t mlir::tilec::getLaunchRegisters(int64_t threads) {
  return std::min<int64_t>(255, (64 * 1024 / threads) / 8 * 8);
}

namespace {

struct WarpSpecializeOpLowering
    : public OpConversionPattern<WarpSpecializeOp> {
  WarpSpecializeOpLowering(TileTypeConverter &converter, MLIRContext *ctx,
                           const TargetInfo &target)
      : OpConversionPattern(converter, ctx), target(target) {}

  LogicalResult
  matchAndRewrite(WarpSpecializeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!target.hasSetmaxnreg)
      return op.emitOpError("warp specialization uses setmaxnreg, which "
                            "needs sm_90a (arch-specific features); ")
             << target.chip << " does not have it";
    Location loc = op.getLoc();
    auto kernel = op->getParentOfType<LLVM::LLVMFuncOp>();
    auto numWarps = kernel->getAttrOfType<IntegerAttr>(kNumWarpsAttr);
    if (!numWarps)
      return rewriter.notifyMatchFailure(op, "kernel warps unknown");
    int64_t warps = numWarps.getInt();
    int64_t launchRegs =
        getLaunchRegisters(32 * (warps + op.getPartitionWarps()));

    auto setMaxNReg = [&](OpBuilder &b, Location l, int64_t regs) {
      NVVM::SetMaxRegisterOp::create(
          b, l, regs,
          regs >= launchRegs ? NVVM::SetMaxRegisterAction::increase
                             : NVVM::SetMaxRegisterAction::decrease);
    };
    ThreadIds ids = getThreadIds(rewriter, loc);
    Value isDefault =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                              ids.warp, i32Val(rewriter, loc, warps));
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, isDefault,
                                  /*withElseRegion=*/true);
    // Default warps.
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    setMaxNReg(rewriter, loc, op.getDefaultRegs());
    rewriter.inlineBlockBefore(&op.getDefaultRegion().front(),
                               ifOp.thenBlock()->getTerminator());
    // Partition warps: the first one runs the region.
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    setMaxNReg(rewriter, loc, op.getPartitionRegs());
    Value isFirst =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                              ids.warp, i32Val(rewriter, loc, warps));
    auto inner = scf::IfOp::create(rewriter, loc, TypeRange{}, isFirst,
                                   /*withElseRegion=*/false);
    rewriter.inlineBlockBefore(&op.getPartitionRegion().front(),
                               inner.thenBlock()->getTerminator());
    rewriter.eraseOp(op);
    return success();
  }

private:
  const TargetInfo &target;
};

} // namespace

void mlir::tilec::markWarpSpecializeGroups(Operation *root) {
  root->walk([](WarpSpecializeOp ws) {
    auto kernel = ws->getParentOfType<KernelOp>();
    int32_t warps = kernel.getNumWarps();
    Builder b(ws.getContext());
    auto mark = [&](Region &region, int32_t barrierId, int32_t threads,
                    int32_t first) {
      auto attr = b.getDenseI32ArrayAttr({barrierId, threads, first});
      region.walk([&](Operation *op) {
        if (isa<TileDialect>(op->getDialect()))
          op->setAttr(kExecGroupAttr, attr);
      });
    };
    mark(ws.getDefaultRegion(), /*barrierId=*/1, 32 * warps, /*first=*/0);
    // Only the partition's first warp runs its region.
    mark(ws.getPartitionRegion(), /*barrierId=*/2, 32, 32 * warps);
  });
}

void mlir::tilec::populateWarpSpecializeOpToLLVMPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &target) {
  patterns.add<WarpSpecializeOpLowering>(converter, patterns.getContext(),
                                         target); // tile.warp_specialize
}
