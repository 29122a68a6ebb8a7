//===- TmaOpToLLVM.cpp - tensor maps, TMA copies, mbarriers, clusters -----===//
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
//  * tile.tma_load -> one `cp.async.bulk.tensor.Nd` per box (N = the map's
//    rank), issued by the
//    leader thread, completing as transaction bytes on an mbarrier; with
//    `multicast`, `.multicast::cluster` copies of this program's part of the
//    boxes;
//  * tile.tma_store -> one shared-to-global `cp.async.bulk.tensor.Nd` per
//    box and a bulk commit group on the leader thread;
//    tile.tma_store_wait -> `cp.async.bulk.wait_group.read` there;
//  * tile.mbarrier_* -> `mbarrier.init` / `arrive.expect_tx` / `arrive` /
//    `try_wait.parity` on 8-byte barriers in the planned shared memory
//    (`mapa` + `arrive.shared::cluster` for another program's barrier);
//  * tile.cluster_rank -> %cluster_ctarank; tile.cluster_barrier ->
//    `barrier.cluster.arrive.aligned` + `barrier.cluster.wait.aligned`.
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
  emitIf(b, loc, emitIsLeaderThread(b, loc, op), body);
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

/// Calls `fn(byteOffset, coord)` for each box of a TMA copy of one stage of
/// `buffer`: `coord` is the box's position in the tile, `byteOffset` where
/// its bytes start in the stage. A box spans one row segment, so its bytes
/// are the contiguous rows of that segment.
static void forEachBox(TensorMapType map, SmemType buffer,
                       function_ref<void(int32_t, ArrayRef<int64_t>)> fn) {
  SharedEncodingAttr enc = buffer.getEncoding();
  ArrayRef<int64_t> box = map.getTileBox(), tile = buffer.getTileShape();
  unsigned contig = enc.getOrder()[0];
  unsigned elemBytes = map.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t seg = enc.getSegmentLength(tile[contig]);
  int64_t rows = tile[1 - contig];
  for (int64_t r = 0; r < tile[0]; r += box[0]) {
    for (int64_t c = 0; c < tile[1]; c += box[1]) {
      int64_t coord[2] = {r, c};
      int32_t start = ((coord[contig] / seg) * rows * seg +
                       coord[1 - contig] * seg) *
                      elemBytes;
      fn(start, coord);
    }
  }
}

/// The box's global coordinates, innermost (contiguous) dimension first:
/// the tile's two dimensions, then the leading ones (one element each).
static SmallVector<Value> getBoxCoords(OpBuilder &b, Location loc,
                                       SmemType buffer, ValueRange offsets,
                                       ArrayRef<int64_t> coord) {
  unsigned contig = buffer.getEncoding().getOrder()[0];
  ValueRange tile = offsets.take_back(2);
  SmallVector<Value> coords = {
      addNsw(b, loc, tile[contig], i32Val(b, loc, coord[contig])),
      addNsw(b, loc, tile[1 - contig], i32Val(b, loc, coord[1 - contig]))};
  for (Value leading : llvm::reverse(offsets.drop_back(2)))
    coords.push_back(leading);
  return coords;
}

/// tile.tma_load -> cp.async.bulk.tensor.Nd per box, on the leader thread.
/// With `part(%p of n)` the boxes split into n runs in order, and the
/// leader issues run %p; with `multicast(%mask)` each copy lands in every
/// program of the mask.
struct TmaLoadOpLowering : public OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmemType buffer = op.getBuffer().getType();
    Value stageBase = gepStage(rewriter, loc, adaptor.getBuffer(), buffer,
                               adaptor.getStage());
    Value bar =
        getBarrierPtr(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    Value desc = adaptor.getMap();
    SmallVector<Value> offsets(adaptor.getOffsets());
    Value mask;
    if (Value m = adaptor.getCtaMask())
      mask = arith::TruncIOp::create(rewriter, loc, rewriter.getI16Type(), m);
    SmallVector<std::pair<int32_t, SmallVector<int64_t>>> boxes;
    forEachBox(op.getMap().getType(), buffer,
               [&](int32_t start, ArrayRef<int64_t> coord) {
                 boxes.push_back({start, llvm::to_vector(coord)});
               });
    int64_t perPart = boxes.size() / op.getParts();
    auto issue = [&](OpBuilder &b, Location l, int64_t part) {
      for (auto &[start, coord] :
           ArrayRef(boxes).slice(part * perPart, perPart)) {
        Value dst = LLVM::GEPOp::create(b, l, stageBase.getType(),
                                        b.getI8Type(), stageBase,
                                        ArrayRef<LLVM::GEPArg>{start});
        // This CTA's shared memory, addressed in the cluster window (the
        // same offset in each program of a multicast).
        dst = LLVM::AddrSpaceCastOp::create(
            b, l, LLVM::LLVMPointerType::get(b.getContext(), 7), dst);
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, l, dst, desc, getBoxCoords(b, l, buffer, offsets, coord), bar,
            /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/mask,
            /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
            /*isCTAOnly=*/false, /*group=*/NVVM::CTAGroupKindAttr(),
            /*predicate=*/Value());
      }
    };
    emitOnLeader(rewriter, loc, op, [&](OpBuilder &b, Location l) {
      if (!adaptor.getPart())
        return issue(b, l, 0);
      for (int64_t part = 0; part < op.getParts(); ++part) {
        Value mine = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                           adaptor.getPart(),
                                           i32Val(b, l, part));
        emitIf(b, l, mine, [&](OpBuilder &then, Location tl) {
          issue(then, tl, part);
        });
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.tma_store -> cp.async.bulk.tensor.Nd shared::cta -> global per box
/// (cp.reduce.async.bulk.tensor.Nd ... .add with `add`) and one bulk commit
/// group, on the leader thread.
struct TmaStoreOpLowering : public OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmemType buffer = op.getBuffer().getType();
    Value stageBase = gepStage(rewriter, loc, adaptor.getBuffer(), buffer,
                               adaptor.getStage());
    Value desc = adaptor.getMap();
    SmallVector<Value> offsets(adaptor.getOffsets());
    emitOnLeader(rewriter, loc, op, [&](OpBuilder &b, Location l) {
      forEachBox(op.getMap().getType(), buffer,
                 [&](int32_t start, ArrayRef<int64_t> coord) {
        Value src = LLVM::GEPOp::create(b, l, stageBase.getType(),
                                        b.getI8Type(), stageBase,
                                        ArrayRef<LLVM::GEPArg>{start});
        SmallVector<Value> coords =
            getBoxCoords(b, l, buffer, offsets, coord);
        if (op.getAdd())
          NVVM::CpAsyncBulkTensorReduceOp::create(
              b, l, desc, src, NVVM::TMAReduxKind::ADD,
              NVVM::TMAStoreMode::TILE, coords, /*l2CacheHint=*/Value());
        else
          NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
              b, l, desc, src, coords, /*l2CacheHint=*/Value(),
              NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
      });
      NVVM::CpAsyncBulkCommitGroupOp::create(b, l);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.tma_store_wait -> cp.async.bulk.wait_group.read on the leader.
struct TmaStoreWaitOpLowering : public OpConversionPattern<TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitOnLeader(rewriter, op.getLoc(), op, [&](OpBuilder &b, Location l) {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, l, op.getPending(),
                                           b.getUnitAttr());
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
    emitIf(rewriter, loc, first, [&](OpBuilder &b, Location l) {
      for (int64_t i = 0; i < size; ++i)
        NVVM::MBarrierInitOp::create(
            b, l, getBarrierPtr(b, l, base, i32Val(b, l, i)),
            i32Val(b, l, op.getCount()), /*predicate=*/Value());
      // Makes the initialization visible to the async proxy (TMA).
      NVVM::FenceMbarrierInitOp::create(b, l);
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

/// tile.mbarrier_arrive -> mbarrier.arrive on lane 0 of each warp; with
/// `cta(%r)`, on the barrier's copy in program %r of the cluster. Both with
/// the default .release.cta semantics, as CUTLASS's ClusterBarrier does: a
/// consumer releasing a stage only orders its own, already completed reads
/// before the other program's TMA overwrites them. (.release.cluster costs
/// a MEMBAR.ALL.GPU per arrival: 446 instead of 703 TFLOP/s at 4096^3.)
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
    emitIf(rewriter, loc, lane0, [&](OpBuilder &b, Location l) {
      Value target = bar;
      if (Value cta = adaptor.getCta())
        target = NVVM::MapaOp::create(
            b, l, LLVM::LLVMPointerType::get(b.getContext(), 7), bar, cta);
      NVVM::MBarrierArriveOp::create(b, l, TypeRange{}, target,
                                     /*count=*/Value(), NVVM::MemScopeKind::CTA,
                                     /*relaxed=*/false);
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

/// tile.cluster_rank -> %cluster_ctarank.
struct ClusterRankOpLowering : public OpConversionPattern<ClusterRankOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterRankOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ClusterId>(op, rewriter.getI32Type());
    return success();
  }
};

/// tile.cluster_barrier -> barrier.cluster.arrive.aligned (release) and
/// barrier.cluster.wait.aligned (acquire) on every thread.
struct ClusterBarrierOpLowering : public OpConversionPattern<ClusterBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::ClusterArriveOp::create(rewriter, loc, rewriter.getUnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, loc, rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tilec::populateTmaOpToLLVMPatterns(TileTypeConverter &converter,
                                              RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MakeTensorMapOpLowering,    // tile.make_tensor_map
               TmaLoadOpLowering,          // tile.tma_load
               TmaStoreOpLowering,         // tile.tma_store
               TmaStoreWaitOpLowering,     // tile.tma_store_wait
               MBarrierAllocOpLowering,    // tile.mbarrier_alloc
               MBarrierExpectTxOpLowering, // tile.mbarrier_expect_tx
               MBarrierArriveOpLowering,   // tile.mbarrier_arrive
               MBarrierWaitOpLowering,     // tile.mbarrier_wait
               ClusterRankOpLowering,      // tile.cluster_rank
               ClusterBarrierOpLowering    // tile.cluster_barrier
               >(converter, ctx);
}
