//===- TmaOpToLLVM.cpp - tensor maps, TMA copies, mbarriers ---------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers the Hopper data-movement ops to NVVM:
//
//  * tile.make_tensor_map -> the hidden `__grid_constant__` CUtensorMap
//    parameter the kernel lowering added for it (a generic pointer to the
//    parameter; the host encodes the map, see `tensor_maps` in the launch
//    metadata);
//  * tile.tma_load -> one `cp.async.bulk.tensor.2d` per box, issued by the
//    leader thread, completing as transaction bytes on an mbarrier;
//  * tile.mbarrier_* -> `mbarrier.init` / `arrive.expect_tx` / `arrive` /
//    `try_wait.parity` on 8-byte barriers in the planned shared memory.
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

/// Address of barrier `index` of an mbarrier array.
static Value getBarrierPtr(OpBuilder &b, Location loc, Value base,
                           Value index) {
  return gepElems(b, loc, base, b.getI64Type(), index);
}

/// Runs `body` on the leader thread of the threads executing `op`.
static void emitOnLeader(OpBuilder &b, Location loc, Operation *op,
                         function_ref<void(OpBuilder &, Location)> body) {
  scf::IfOp::create(b, loc, emitIsLeaderThread(b, loc, op),
                    [&](OpBuilder &then, Location l) {
                      body(then, l);
                      scf::YieldOp::create(then, l);
                    });
}

namespace {

/// tile.make_tensor_map -> the kernel's hidden tensor-map parameter.
struct MakeTensorMapOpLowering : public OpConversionPattern<MakeTensorMapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MakeTensorMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto index = op->getAttrOfType<IntegerAttr>(kParamIndexAttr);
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!index || !func)
      return rewriter.notifyMatchFailure(op, "no tensor-map parameter");
    rewriter.replaceOp(op, func.getArgument(index.getInt()));
    return success();
  }
};

/// tile.tma_load -> cp.async.bulk.tensor.2d per box, on the leader thread.
struct TmaLoadOpLowering : public OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TensorMapType map = op.getMap().getType();
    SmemType buffer = op.getBuffer().getType();
    SharedEncodingAttr enc = buffer.getEncoding();
    ArrayRef<int64_t> box = map.getShape(), tile = buffer.getTileShape();
    unsigned contig = enc.getOrder()[0];
    unsigned elemBytes = map.getElementType().getIntOrFloatBitWidth() / 8;
    int64_t seg = enc.getSegmentLength(tile[contig]);

    Value stageBase = gepElems(
        rewriter, loc, adaptor.getBuffer(), rewriter.getI8Type(),
        mulNsw(rewriter, loc, adaptor.getStage(),
               i32Val(rewriter, loc, buffer.getTileElems() * elemBytes)));
    Value bar =
        getBarrierPtr(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    Value desc = adaptor.getMap();
    SmallVector<Value> offsets(adaptor.getOffsets());
    emitOnLeader(rewriter, loc, op, [&](OpBuilder &b, Location l) {
      for (int64_t r = 0; r < tile[0]; r += box[0]) {
        for (int64_t c = 0; c < tile[1]; c += box[1]) {
          // A box starts a segment (row `rows`, column 0 of it): its bytes
          // are the contiguous rows of that segment.
          int64_t coord[2] = {r, c};
          int64_t rows = tile[1 - contig];
          int32_t start = ((coord[contig] / seg) * rows * seg +
                           coord[1 - contig] * seg) *
                          elemBytes;
          Value dst = LLVM::GEPOp::create(b, l, stageBase.getType(),
                                          b.getI8Type(), stageBase,
                                          ArrayRef<LLVM::GEPArg>{start});
          // This CTA's shared memory, addressed in the cluster window.
          dst = LLVM::AddrSpaceCastOp::create(
              b, l, LLVM::LLVMPointerType::get(b.getContext(), 7), dst);
          // Coordinates innermost (contiguous) dimension first.
          Value x = addNsw(b, l, offsets[contig],
                           i32Val(b, l, coord[contig]));
          Value y = addNsw(b, l, offsets[1 - contig],
                           i32Val(b, l, coord[1 - contig]));
          NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
              b, l, dst, desc, ValueRange{x, y}, bar,
              /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/Value(),
              /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
              /*isCTAOnly=*/false, /*group=*/NVVM::CTAGroupKindAttr(),
              /*predicate=*/Value());
        }
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.mbarrier_alloc -> the planned shared memory, initialized by thread
/// 0, then a block-wide barrier.
struct MBarrierAllocOpLowering : public OpConversionPattern<MBarrierAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>(kSmemOffsetAttr);
    if (!offset)
      return rewriter.notifyMatchFailure(op, "shared memory not planned");
    Location loc = op.getLoc();
    Value base = getSmemPtr(rewriter, loc, op, offset.getInt());
    int64_t size = op.getType().getSize();
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        tid, i32Val(rewriter, loc, 0));
    scf::IfOp::create(rewriter, loc, first, [&](OpBuilder &b, Location l) {
      for (int64_t i = 0; i < size; ++i)
        NVVM::MBarrierInitOp::create(
            b, l, getBarrierPtr(b, l, base, i32Val(b, l, i)),
            i32Val(b, l, op.getCount()), /*predicate=*/Value());
      // Makes the initialization visible to the async proxy (TMA).
      NVVM::FenceMbarrierInitOp::create(b, l);
      scf::YieldOp::create(b, l);
    });
    NVVM::Barrier0Op::create(rewriter, loc);
    rewriter.replaceOp(op, base);
    return success();
  }
};

/// tile.mbarrier_expect_tx -> mbarrier.arrive.expect_tx on the leader.
struct MBarrierExpectTxOpLowering
    : public OpConversionPattern<MBarrierExpectTxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar =
        getBarrierPtr(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    emitOnLeader(rewriter, loc, op, [&](OpBuilder &b, Location l) {
      NVVM::MBarrierArriveExpectTxOp::create(
          b, l, TypeRange{}, bar, i32Val(b, l, op.getBytes()),
          NVVM::MemScopeKind::CTA, /*relaxed=*/false, /*predicate=*/Value());
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.mbarrier_arrive -> mbarrier.arrive on lane 0 of each warp.
struct MBarrierArriveOpLowering : public OpConversionPattern<MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar =
        getBarrierPtr(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    ThreadIds ids = getThreadIds(rewriter, loc);
    Value lane0 = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        ids.lane, i32Val(rewriter, loc, 0));
    scf::IfOp::create(rewriter, loc, lane0, [&](OpBuilder &b, Location l) {
      NVVM::MBarrierArriveOp::create(b, l, TypeRange{}, bar, /*count=*/Value(),
                                     NVVM::MemScopeKind::CTA,
                                     /*relaxed=*/false);
      scf::YieldOp::create(b, l);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.mbarrier_wait -> mbarrier.try_wait.parity loop.
struct MBarrierWaitOpLowering : public OpConversionPattern<MBarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar =
        getBarrierPtr(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    // Suspend-time hint: 10 ms, as the CUDA headers use.
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
        op, bar, adaptor.getParity(), i32Val(rewriter, loc, 10000000));
    return success();
  }
};

} // namespace

void mlir::tilec::populateTmaOpToLLVMPatterns(TileTypeConverter &converter,
                                              RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MakeTensorMapOpLowering,    // tile.make_tensor_map
               TmaLoadOpLowering,          // tile.tma_load
               MBarrierAllocOpLowering,    // tile.mbarrier_alloc
               MBarrierExpectTxOpLowering, // tile.mbarrier_expect_tx
               MBarrierArriveOpLowering,   // tile.mbarrier_arrive
               MBarrierWaitOpLowering      // tile.mbarrier_wait
               >(converter, ctx);
}
