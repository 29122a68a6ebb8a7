//===- SharedMemoryOpToLLVM.cpp - cp.async rings and ldmatrix -------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers the shared-memory ops tile-pipeline creates:
//
//  * tile.local_alloc: the buffer's base in the dynamic shared memory (the
//    offset was planned by convert-tile-to-nvvm).
//  * tile.async_copy: each thread copies 16-byte chunks with
//    `cp.async.cg.shared.global [dst], [src], 16, src_size`; src_size < 16
//    zero-fills what lies past the view's edge ([PTX ISA: cp.async]
//    (https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async)).
//  * tile.async_commit / tile.async_wait / tile.barrier; tile.named_barrier
//    (`bar.sync` / `bar.arrive` id, threads) and tile.warpgroup_id.
//  * tile.local_store: vectorized st.shared at swizzled addresses.
//  * tile.local_load into mma.sync operand layouts: `ldmatrix.x4` (x2 for
//    8-wide B warp tiles), `.trans` when the buffer is contiguous along M/N
//    (16-bit only). For 8-bit (fp8) operands, contiguous along K, a matrix
//    row is 16 K elements, so one x4 covers a 16x32 A block (m16n8k32's a0-a3)
//    and the K halves below are 16 wide:
//
//        A (M x K) 16x16 block          B (K x N) 16x16 block
//        +--------+--------+            +--------+--------+
//        | m0: a0 | m2: a2 |  k0-7      | m0: b0 | m2: b0'|  k0-7
//        +--------+--------+            +--------+--------+
//        | m1: a1 | m3: a3 |  k8-15     | m1: b1 | m3: b1'|  k8-15
//        +--------+--------+            +--------+--------+
//          (rows: m0-7, m8-15)            n0-7     n8-15
//
//    Lane l gives the start of row l % 8 of matrix l / 8; matrix j lands in
//    register j of every lane, exactly the mma.sync fragment registers.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/LayoutHeuristics.h"
#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

/// Address of element `offset` of stage `stage` of a buffer, as
/// (base + offset) + stage * tile: the first part depends on the thread
/// only (LLVM hoists it out of loops), the second is one add per stage.
static Value getElementPtr(OpBuilder &b, Location loc, Value base,
                           SmemType type, Value stage, Value offset) {
  Type et = getStorageType(type.getElementType());
  return gepStage(b, loc, gepElems(b, loc, base, et, offset), type, stage);
}

/// `ldmatrix` of `numMatrices` 8x8 b16 matrices at `ptr` + `bytes` as
/// inline PTX, with the constant offset in the instruction's address.
static Value emitLdmatrixAsm(OpBuilder &b, Location loc, Type resType,
                             Value ptr, int64_t bytes, int numMatrices,
                             bool trans) {
  std::string ptx, constraints;
  llvm::raw_string_ostream os(ptx), cs(constraints);
  os << "ldmatrix.sync.aligned.m8n8.x" << numMatrices
     << (trans ? ".trans" : "") << ".shared.b16 {";
  for (int i = 0; i < numMatrices; ++i) {
    os << (i ? ", " : "") << "$" << i;
    cs << (i ? "," : "") << "=r";
  }
  os << "}, [$" << numMatrices << "+" << bytes << "];";
  cs << ",r";
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
  return LLVM::InlineAsmOp::create(
             b, loc, resType, ValueRange{addr}, b.getStringAttr(ptx),
             b.getStringAttr(constraints), /*has_side_effects=*/b.getUnitAttr(),
             /*is_align_stack=*/nullptr, LLVM::TailCallKindAttr(),
             LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/nullptr)
      .getResult(0);
}

/// A static offset `at` into a swizzled tile, split as `lo` (below the
/// swizzle's period, so it selects one of a few per-thread offsets) plus
/// `hiElems`, a constant that folds into the instruction's address, when the
/// split holds for every coordinate of `threads` (the thread's own part of
/// the address); otherwise `lo` = `at` and `hiElems` = 0. Without it, each
/// access of a loop-invariant address gets a register of its own outside
/// the loop, which ptxas spills.
static int64_t splitSwizzledOffset(SharedEncodingAttr enc,
                                   ArrayRef<int64_t> tileShape,
                                   ArrayRef<std::array<int64_t, 2>> threads,
                                   const int64_t at[2], int64_t lo[2]) {
  unsigned contig = enc.getOrder()[0];
  int64_t period[2];
  period[contig] = enc.getVec() * enc.getMaxPhase();
  period[1 - contig] = enc.getPerPhase() * enc.getMaxPhase();
  lo[0] = at[0] % period[0];
  lo[1] = at[1] % period[1];
  int64_t hi = getSwizzledOffset(enc, tileShape, at[0] - lo[0], at[1] - lo[1]);
  bool holds = llvm::all_of(threads, [&](const std::array<int64_t, 2> &t) {
    return getSwizzledOffset(enc, tileShape, t[0] + at[0], t[1] + at[1]) ==
           getSwizzledOffset(enc, tileShape, t[0] + lo[0], t[1] + lo[1]) + hi;
  });
  if (holds)
    return hi;
  lo[0] = at[0];
  lo[1] = at[1];
  return 0;
}

namespace {

/// tile.local_alloc -> pointer into the dynamic shared memory.
struct LocalAllocOpLowering : public OpConversionPattern<LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>(kSmemOffsetAttr);
    if (!offset)
      return rewriter.notifyMatchFailure(op, "shared memory not planned");
    rewriter.replaceOp(op, getSmemPtr(rewriter, op.getLoc(), op,
                                      offset.getInt()));
    return success();
  }
};

/// tile.async_copy -> cp.async.cg 16-byte chunks with zero-fill.
struct AsyncCopyOpLowering : public OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// tile.async_commit -> cp.async.commit_group.
struct AsyncCommitOpLowering : public OpConversionPattern<AsyncCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

/// tile.async_wait -> cp.async.wait_group.
struct AsyncWaitOpLowering : public OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(
        op, rewriter.getI32IntegerAttr(op.getPending()));
    return success();
  }
};

/// tile.barrier -> bar.sync 0, or a named barrier of the executing warps.
struct BarrierOpLowering : public OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitBarrier(rewriter, op.getLoc(), op);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.named_barrier -> bar.sync / bar.arrive id, threads.
struct NamedBarrierOpLowering : public OpConversionPattern<NamedBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value threads = i32Val(rewriter, loc, op.getThreads());
    if (op.getArrive())
      NVVM::BarrierArriveOp::create(rewriter, loc, adaptor.getId(), threads);
    else
      NVVM::BarrierOp::create(rewriter, loc, TypeRange{}, adaptor.getId(),
                              threads, NVVM::BarrierReductionAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.warpgroup_id -> warp / 4 (%tid.x / 128; warp-uniform for ptxas in
/// warp-specialized kernels, see getThreadIds).
struct WarpgroupIdOpLowering : public OpConversionPattern<WarpgroupIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value warp = getThreadIds(rewriter, loc).warp;
    rewriter.replaceOpWithNewOp<arith::ShRUIOp>(op, warp,
                                                i32Val(rewriter, loc, 2));
    return success();
  }
};

/// tile.local_load -> ldmatrix into mma.sync operand registers, or one
/// ld.shared per element for other layouts.
struct LocalLoadOpLowering : public OpConversionPattern<LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;

private:
  LogicalResult lowerWithLdmatrix(LocalLoadOp op, OpAdaptor adaptor,
                                  ConversionPatternRewriter &rewriter) const;
};

/// tile.local_store -> st.shared of each thread's runs of consecutive
/// elements along the buffer's contiguous dimension (e.g. the pairs of an
/// accumulator fragment), at their swizzled addresses.
struct LocalStoreOpLowering : public OpConversionPattern<LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

} // namespace

/// The number of consecutive registers of `layout` that hold consecutive,
/// equally aligned elements along `dim` in every thread, at most `maxVec`.
static unsigned getContiguousRegs(const LinearLayout &layout, unsigned dim,
                                  unsigned maxVec) {
  ArrayRef<LinearLayout::Basis> regs =
      layout.getBases(LinearLayout::In::Register);
  unsigned vec = 1;
  for (const LinearLayout::Basis &basis : regs) {
    if (vec >= maxVec)
      break;
    LinearLayout::Basis expected(layout.getRank(), 0);
    expected[dim] = vec;
    if (basis != expected)
      break;
    vec *= 2;
  }
  // Lanes and warps must start runs at multiples of the run length.
  for (LinearLayout::In in : {LinearLayout::In::Lane, LinearLayout::In::Warp})
    for (const LinearLayout::Basis &basis : layout.getBases(in))
      while (basis[dim] % vec != 0)
        vec /= 2;
  return vec;
}

LogicalResult
AsyncCopyOpLowering::matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                                     ConversionPatternRewriter &rewriter) const {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  SmemType bufType = op.getBuffer().getType();
  ViewType viewType = op.getView().getType();
  SharedEncodingAttr enc = bufType.getEncoding();
  ArrayRef<int64_t> shape = bufType.getTileShape();
  Type et = getStorageType(bufType.getElementType());
  unsigned elemBytes = getStorageBytes(bufType.getElementType());
  unsigned contig = enc.getOrder()[0];
  unsigned vec = 16 / elemBytes;
  unsigned rank = viewType.getRank(), lead = rank - 2;

  // Which thread copies which chunks: the coalesced layout of the tile.
  BlockedEncodingAttr copyLayout = getCoalescedLayout(
      ctx, shape, contig, elemBytes * 8, getNumWarps(op));
  LinearLayout layout = copyLayout.toLinearLayout(shape);
  if (copyLayout.getSizePerThread()[contig] != vec)
    return op.emitOpError("tile rows are too short for 16-byte copies");

  Value view = adaptor.getView();
  Value base = LLVM::ExtractValueOp::create(rewriter, loc, view, 0);
  SmallVector<Value> sizes, strides;
  for (unsigned i = 0; i < rank; ++i) {
    sizes.push_back(LLVM::ExtractValueOp::create(rewriter, loc, view, 1 + i));
    strides.push_back(
        LLVM::ExtractValueOp::create(rewriter, loc, view, 1 + rank + i));
  }
  ValueRange offsets = adaptor.getOffsets();
  Value leadOffset = i64Val(rewriter, loc, 0);
  Value leadInBounds;
  for (unsigned i = 0; i < lead; ++i) {
    Value prod = mulNsw(rewriter, loc, extIndex(rewriter, loc, offsets[i]),
                        extIndex(rewriter, loc, strides[i]));
    leadOffset = addNsw(rewriter, loc, leadOffset, prod);
    Value inb = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                      offsets[i], sizes[i]);
    leadInBounds = leadInBounds
                       ? arith::AndIOp::create(rewriter, loc, leadInBounds, inb)
                       : inb;
  }

  ThreadIds ids = getThreadIds(rewriter, loc);
  SmallVector<Value> thread = emitThreadCoord(rewriter, loc, layout, ids);
  Value bufBase = adaptor.getBuffer();
  Value zero = i32Val(rewriter, loc, 0);

  // Address = (base + the tile's offset) + the chunk's offset in the tile.
  // The second term depends on the thread only, so it is computed once per
  // kernel; only the first changes from one iteration to the next.
  Value tileOffset = leadOffset;
  for (unsigned d = 0; d < 2; ++d)
    tileOffset = addNsw(rewriter, loc, tileOffset,
                        mulNsw(rewriter, loc,
                               extIndex(rewriter, loc, offsets[lead + d]),
                               extIndex(rewriter, loc, strides[lead + d])));
  Value tileBase = gepElems(rewriter, loc, base, et, tileOffset);

  // With static strides a chunk's offset is the thread's plus a constant,
  // which stays in the instruction's address: one register per thread for
  // all chunks instead of one per chunk (kept live through the loop).
  ArrayRef<int64_t> viewStrides = viewType.getStrides();
  bool staticStrides = !ShapedType::isDynamic(viewStrides[lead]) &&
                       !ShapedType::isDynamic(viewStrides[lead + 1]);
  Value threadBase;
  if (staticStrides) {
    Value threadOffset = i64Val(rewriter, loc, 0);
    for (unsigned d = 0; d < 2; ++d)
      threadOffset =
          addNsw(rewriter, loc, threadOffset,
                 mulNsw(rewriter, loc, extIndex(rewriter, loc, thread[d]),
                        i64Val(rewriter, loc, viewStrides[lead + d])));
    threadBase = gepElems(rewriter, loc, tileBase, et, threadOffset);
  }
  // The same split of the swizzled destination (splitSwizzledOffset).
  SmallVector<std::array<int64_t, 2>> threads;
  for (unsigned w = 0; w < layout.getNumWarps(); ++w)
    for (unsigned l = 0; l < layout.getNumLanes(); ++l) {
      LinearLayout::Basis c = layout.apply(0, l, w);
      threads.push_back({c[0], c[1]});
    }

  // Emits the copies; `checked` adds the per-chunk zero-fill sizes.
  auto emitCopies = [&](OpBuilder &b, Location l, bool checked) {
    for (unsigned reg = 0; reg < layout.getNumRegs(); reg += vec) {
      LinearLayout::Basis rc = layout.getRegCoord(reg);
      SmallVector<Value> tc;
      for (unsigned d = 0; d < 2; ++d)
        tc.push_back(addNsw(b, l, thread[d], i32Val(b, l, rc[d])));
      Value src;
      if (threadBase) {
        src = gepElems(
            b, l, threadBase, et,
            i64Val(b, l,
                   rc[0] * viewStrides[lead] + rc[1] * viewStrides[lead + 1]));
      } else {
        Value chunkOffset = i64Val(b, l, 0);
        for (unsigned d = 0; d < 2; ++d)
          chunkOffset = addNsw(b, l, chunkOffset,
                               mulNsw(b, l, extIndex(b, l, tc[d]),
                                      extIndex(b, l, strides[lead + d])));
        src = gepElems(b, l, tileBase, et, chunkOffset);
      }
      Value bytes;
      if (checked) {
        SmallVector<Value> gi;
        for (unsigned d = 0; d < 2; ++d)
          gi.push_back(addNsw(b, l, offsets[lead + d], tc[d]));
        // Bytes of this chunk inside the view: 16, a partial row end, or 0.
        Value inb = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                          gi[1 - contig],
                                          sizes[lead + 1 - contig]);
        if (leadInBounds)
          inb = arith::AndIOp::create(b, l, inb, leadInBounds);
        Value remaining =
            arith::SubIOp::create(b, l, sizes[lead + contig], gi[contig]);
        bytes = arith::MulIOp::create(b, l, remaining, i32Val(b, l, elemBytes));
        bytes = arith::MinSIOp::create(b, l, bytes, i32Val(b, l, 16));
        bytes = arith::MaxSIOp::create(b, l, bytes, zero);
        bytes = arith::SelectOp::create(b, l, inb, bytes, zero);
        // Nothing is read for a zero-byte copy; point it at the base anyway.
        Value any = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt,
                                          bytes, zero);
        src = arith::SelectOp::create(b, l, any, src, base);
      }
      int64_t at[2] = {rc[0], rc[1]}, lo[2];
      int64_t hiElems = splitSwizzledOffset(enc, shape, threads, at, lo);
      Value dstOff = emitSwizzledOffset(
          b, l, enc, shape, addNsw(b, l, thread[0], i32Val(b, l, lo[0])),
          addNsw(b, l, thread[1], i32Val(b, l, lo[1])));
      if (hiElems != 0)
        dstOff = arith::AddIOp::create(b, l, dstOff, i32Val(b, l, hiElems));
      Value dst = getElementPtr(b, l, bufBase, bufType, adaptor.getStage(),
                                dstOff);
      NVVM::CpAsyncOp::create(
          b, l, dst, src, b.getI32IntegerAttr(16),
          NVVM::LoadCacheModifierKindAttr::get(ctx,
                                               NVVM::LoadCacheModifierKind::CG),
          bytes);
    }
  };
  // tile-pipeline marks copies of tiles known to be inside the view.
  emitCopies(rewriter, loc, /*checked=*/!op.getUnchecked());
  rewriter.eraseOp(op);
  return success();
}

LogicalResult
LocalLoadOpLowering::matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                                     ConversionPatternRewriter &rewriter) const {
  auto type = cast<RankedTensorType>(op.getType());
  if (isa_and_nonnull<SharedEncodingAttr>(type.getEncoding())) {
    // Read in place (wgmma): the address of the stage (seen as itself or
    // as its transpose: the same bytes).
    SmemType bufType = op.getBuffer().getType();
    if (!LocalLoadOp::isInPlaceRead(type, bufType))
      return op.emitOpError("an in-place read must be a whole stage in the "
                            "buffer's layout, or its transpose");
    rewriter.replaceOp(op, getElementPtr(rewriter, op.getLoc(),
                                         adaptor.getBuffer(), bufType,
                                         adaptor.getStage(),
                                         i32Val(rewriter, op.getLoc(), 0)));
    return success();
  }
  // ldmatrix reads 8x8 matrices of 16-bit elements, 8x16 of 8-bit ones and
  // 8x4 of 32-bit ones (transposed only for 16-bit: 8-bit and tf32 operands
  // must be contiguous along K, as mma.sync m16n8k32 and m16n8k8.tf32 read
  // them; others take the generic path).
  auto dotOp = dyn_cast<DotOperandEncodingAttr>(type.getEncoding());
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  bool kContiguous = op.getBuffer().getType().getEncoding().getOrder()[0] ==
                     (dotOp && dotOp.getOpIdx() == 0 ? 1u : 0u);
  if (dotOp && (bits == 16 || ((bits == 8 || bits == 32) && kContiguous)))
    return lowerWithLdmatrix(op, adaptor, rewriter);

  // Generic: each run of consecutive registers along the buffer's
  // contiguous dimension from its swizzled address.
  Location loc = op.getLoc();
  SmemType bufType = op.getBuffer().getType();
  SharedEncodingAttr enc = bufType.getEncoding();
  LinearLayout layout = getLinearLayout(type);
  ThreadIds ids = getThreadIds(rewriter, loc);
  SmallVector<Value> thread = emitThreadCoord(rewriter, loc, layout, ids);
  Type et = getStorageType(type.getElementType());
  unsigned elemBytes = getStorageBytes(type.getElementType());
  ArrayRef<int64_t> base = op.getOffsets();
  unsigned contig = enc.getOrder()[0];
  // Runs must also start on a run boundary of the sub-tile's offset.
  unsigned vec = getContiguousRegs(layout, contig, enc.getVec());
  while (base[contig] % vec != 0)
    vec /= 2;
  SmallVector<Value> elems;
  for (unsigned r = 0; r < layout.getNumRegs(); r += vec) {
    LinearLayout::Basis rc = layout.getRegCoord(r);
    Value c0 = arith::AddIOp::create(rewriter, loc, thread[0],
                                     i32Val(rewriter, loc, base[0] + rc[0]));
    Value c1 = arith::AddIOp::create(rewriter, loc, thread[1],
                                     i32Val(rewriter, loc, base[1] + rc[1]));
    Value off = emitSwizzledOffset(rewriter, loc, enc, bufType.getTileShape(),
                                   c0, c1);
    Value ptr = getElementPtr(rewriter, loc, adaptor.getBuffer(), bufType,
                              adaptor.getStage(), off);
    if (vec == 1) {
      elems.push_back(LLVM::LoadOp::create(rewriter, loc, et, ptr));
      continue;
    }
    Value run = LLVM::LoadOp::create(rewriter, loc, VectorType::get({vec}, et),
                                     ptr, vec * elemBytes);
    llvm::append_range(elems, unpackVector(rewriter, loc, run));
  }
  rewriter.replaceOp(op, packVector(rewriter, loc,
                                    getTypeConverter()->convertType(type),
                                    elems));
  return success();
}

LogicalResult LocalLoadOpLowering::lowerWithLdmatrix(
    LocalLoadOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  auto type = cast<RankedTensorType>(op.getType());
  auto dotOp = cast<DotOperandEncodingAttr>(type.getEncoding());
  SmemType bufType = op.getBuffer().getType();
  SharedEncodingAttr enc = bufType.getEncoding();
  ArrayRef<int64_t> shape = type.getShape();
  LinearLayout layout = getLinearLayout(type);
  bool isA = dotOp.getOpIdx() == 0;
  unsigned outerDim = isA ? 0 : 1, kDim = 1 - outerDim;
  bool trans = enc.getOrder()[0] == outerDim;

  // Extent of one warp's registers along the outer dimension.
  int64_t outerExtent = 1;
  for (const LinearLayout::Basis &bs : layout.getBases(LinearLayout::In::Register))
    outerExtent = std::max(outerExtent, 2 * bs[outerDim]);
  outerExtent = std::max<int64_t>(outerExtent, isA ? 16 : 8);
  int64_t outerBlock = (isA || outerExtent >= 16) ? 16 : 8;
  int numMatrices = outerBlock == 16 ? 4 : 2;

  ThreadIds ids = getThreadIds(rewriter, loc);
  SmallVector<Value> warp = emitWarpCoord(rewriter, loc, layout, ids);
  // Lane l addresses row l % 8 of matrix l / 8 (lanes past the last matrix
  // repeat the first ones).
  Value lane = ids.lane;
  Value rowInMat = arith::AndIOp::create(rewriter, loc, lane, i32Val(rewriter, loc, 7));
  Value mat = arith::ShRUIOp::create(rewriter, loc, lane, i32Val(rewriter, loc, 3));
  mat = arith::AndIOp::create(rewriter, loc, mat, i32Val(rewriter, loc, numMatrices - 1));
  Value matLo = arith::AndIOp::create(rewriter, loc, mat, i32Val(rewriter, loc, 1));
  Value matHi = arith::ShRUIOp::create(rewriter, loc, mat, i32Val(rewriter, loc, 1));
  // A: matrix j covers (outer half j % 2, k half j / 2); B the other way.
  Value outerHalf = isA ? matLo : matHi, kHalf = isA ? matHi : matLo;
  auto times8 = [&](Value v) {
    return arith::ShLIOp::create(rewriter, loc, v, i32Val(rewriter, loc, 3));
  };
  // A matrix row is 16 bytes: 4 32-bit, 8 16-bit or 16 8-bit elements along
  // K (or 8 rows of K when transposed, 16-bit only).
  int64_t elemBytes = getStorageBytes(type.getElementType());
  int64_t kPerMat = trans ? 8 : 16 / elemBytes;
  unsigned kWidth = 4 / elemBytes;
  Value outerLane = times8(outerHalf);
  Value kLane = arith::ShLIOp::create(
      rewriter, loc, kHalf, i32Val(rewriter, loc, llvm::Log2_64(kPerMat)));
  // The 8 contiguous elements of a row run along the buffer's contiguous
  // dimension; the row index walks the other one.
  if (trans)
    kLane = arith::AddIOp::create(rewriter, loc, kLane, rowInMat);
  else
    outerLane = arith::AddIOp::create(rewriter, loc, outerLane, rowInMat);

  // Each ldmatrix reads at the thread's coordinate plus a static offset,
  // split by splitSwizzledOffset.
  ArrayRef<int64_t> tileShape = bufType.getTileShape();
  SmallVector<std::array<int64_t, 2>> threads;
  for (unsigned w = 0; w < layout.getNumWarps(); ++w) {
    LinearLayout::Basis wc = layout.getWarpCoord(w);
    for (int64_t l = 0; l < 32; ++l) {
      int64_t m = (l >> 3) & (numMatrices - 1);
      int64_t half[2] = {m & 1, m >> 1}; // (lo, hi) matrix bit
      std::array<int64_t, 2> t;
      t[outerDim] = wc[outerDim] + (isA ? half[0] : half[1]) * 8;
      t[kDim] = wc[kDim] + (isA ? half[1] : half[0]) * kPerMat;
      t[trans ? kDim : outerDim] += l & 7;
      threads.push_back(t);
    }
  }

  auto i32 = rewriter.getI32Type();
  SmallVector<Type> fields(numMatrices, i32);
  Type resType = numMatrices == 1 ? Type(i32)
                                  : LLVM::LLVMStructType::getLiteral(ctx, fields);
  Type et = getStorageType(type.getElementType());
  auto wordType = VectorType::get({kWidth}, et);
  SmallVector<Value> elems(layout.getNumRegs());
  for (int64_t ob = 0; ob < outerExtent; ob += outerBlock) {
    for (int64_t kb = 0; kb < shape[kDim]; kb += 2 * kPerMat) {
      ArrayRef<int64_t> base = op.getOffsets();
      int64_t at[2];
      at[outerDim] = base[outerDim] + ob;
      at[kDim] = base[kDim] + kb;
      int64_t lo[2];
      int64_t hiElems = splitSwizzledOffset(enc, tileShape, threads, at, lo);
      SmallVector<Value> coord(2);
      coord[outerDim] = arith::AddIOp::create(
          rewriter, loc, warp[outerDim],
          arith::AddIOp::create(rewriter, loc, outerLane,
                                i32Val(rewriter, loc, lo[outerDim])));
      coord[kDim] = arith::AddIOp::create(
          rewriter, loc, warp[kDim],
          arith::AddIOp::create(rewriter, loc, kLane,
                                i32Val(rewriter, loc, lo[kDim])));
      Value off = emitSwizzledOffset(rewriter, loc, enc, tileShape, coord[0],
                                     coord[1]);
      Value ld;
      if (hiElems != 0 && bufType.getNumStages() == 1) {
        // A one-stage buffer (loop-invariant addresses, e.g. attention's
        // Q): LLVM would hoist each instruction's full address out of the
        // loop, a register apiece; the offset stays in the instruction.
        Value ptr = getElementPtr(rewriter, loc, adaptor.getBuffer(), bufType,
                                  adaptor.getStage(), off);
        ld = emitLdmatrixAsm(rewriter, loc, resType, ptr, hiElems * elemBytes,
                             numMatrices, trans);
      } else {
        if (hiElems != 0)
          off = arith::AddIOp::create(rewriter, loc, off,
                                      i32Val(rewriter, loc, hiElems));
        Value ptr = getElementPtr(rewriter, loc, adaptor.getBuffer(), bufType,
                                  adaptor.getStage(), off);
        ld = NVVM::LdMatrixOp::create(
            rewriter, loc, resType, ptr,
            rewriter.getI32IntegerAttr(numMatrices),
            NVVM::MMALayoutAttr::get(ctx, trans ? NVVM::MMALayout::col
                                                : NVVM::MMALayout::row),
            NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
            NVVM::LdStMatrixEltTypeAttr::get(ctx,
                                             NVVM::LdStMatrixEltType::B16));
      }
      for (int j = 0; j < numMatrices; ++j) {
        Value word = LLVM::ExtractValueOp::create(rewriter, loc, ld, j);
        Value packed = LLVM::BitcastOp::create(rewriter, loc, wordType, word);
        int64_t jo = isA ? j % 2 : j / 2, jk = isA ? j / 2 : j % 2;
        for (unsigned e = 0; e < kWidth; ++e) {
          LinearLayout::Basis c(2);
          c[outerDim] = ob + jo * 8;
          c[kDim] = kb + jk * kPerMat + e;
          std::optional<unsigned> reg = layout.findReg(c);
          if (!reg)
            return op.emitOpError("ldmatrix fragment outside the operand layout");
          elems[*reg] = vector::ExtractOp::create(rewriter, loc, packed, e);
        }
      }
    }
  }
  if (llvm::any_of(elems, [](Value v) { return !v; }))
    return op.emitOpError("operand layout not covered by ldmatrix fragments");
  rewriter.replaceOp(op, packVector(rewriter, loc,
                                    getTypeConverter()->convertType(type),
                                    elems));
  return success();
}

LogicalResult
LocalStoreOpLowering::matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                                      ConversionPatternRewriter &rewriter) const {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getValue().getType());
  if (!getDistributedLayout(type))
    return rewriter.notifyMatchFailure(op, "tile has no layout");
  SmemType bufType = op.getBuffer().getType();
  SharedEncodingAttr enc = bufType.getEncoding();
  LinearLayout layout = getLinearLayout(type);
  unsigned contig = enc.getOrder()[0];
  // A run stays inside one swizzled chunk of `vec` elements.
  unsigned vec = getContiguousRegs(layout, contig, enc.getVec());
  ThreadIds ids = getThreadIds(rewriter, loc);
  SmallVector<Value> thread = emitThreadCoord(rewriter, loc, layout, ids);
  Type et = getStorageType(type.getElementType());
  unsigned elemBytes = getStorageBytes(type.getElementType());
  SmallVector<Value> values = unpackVector(rewriter, loc, adaptor.getValue());

  auto emitStores = [&](OpBuilder &b, Location l) {
    for (unsigned r = 0; r < layout.getNumRegs(); r += vec) {
      LinearLayout::Basis rc = layout.getRegCoord(r);
      Value c0 = addNsw(b, l, thread[0], i32Val(b, l, rc[0]));
      Value c1 = addNsw(b, l, thread[1], i32Val(b, l, rc[1]));
      Value off = emitSwizzledOffset(b, l, enc, bufType.getTileShape(), c0, c1);
      Value ptr = getElementPtr(b, l, adaptor.getBuffer(), bufType,
                                adaptor.getStage(), off);
      Value v = values[r];
      if (vec > 1)
        v = packVector(b, l, VectorType::get({vec}, et),
                       ArrayRef(values).slice(r, vec));
      LLVM::StoreOp::create(b, l, v, ptr, vec * elemBytes);
    }
  };
  // Threads holding copies of an element leave the store to one of them.
  if (Value canonical = emitIsCanonicalThread(rewriter, loc, layout, ids)) {
    scf::IfOp::create(rewriter, loc, canonical,
                      [&](OpBuilder &b, Location l) {
                        emitStores(b, l);
                        scf::YieldOp::create(b, l);
                      });
  } else {
    emitStores(rewriter, loc);
  }
  rewriter.eraseOp(op);
  return success();
}

void mlir::tilec::populateSharedMemoryOpToLLVMPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<LocalAllocOpLowering,  // tile.local_alloc
               AsyncCopyOpLowering,   // tile.async_copy
               AsyncCommitOpLowering, // tile.async_commit
               AsyncWaitOpLowering,   // tile.async_wait
               BarrierOpLowering,     // tile.barrier
               NamedBarrierOpLowering, // tile.named_barrier
               WarpgroupIdOpLowering, // tile.warpgroup_id
               LocalLoadOpLowering,   // tile.local_load
               LocalStoreOpLowering   // tile.local_store
               >(converter, patterns.getContext());
}
