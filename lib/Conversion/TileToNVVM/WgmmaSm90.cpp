//===- WgmmaSm90.cpp - tile.dot on wgmma (sm_90a) -------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers tile.dot whose B operand (and A operand, or else A is a
// register tile in the mma.sync A fragment: the RS form, as inline PTX) is
// a shared-memory tile (#tile.shared, 128- or 64-byte swizzle) to
// `wgmma.mma_async.sync.aligned.m64nNk16` with 64-bit shared-memory matrix
// descriptors ([PTX ISA: Matrix
// Descriptor
// Format](https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor)).
// Each warpgroup computes 64 rows of the accumulator; per 16-wide K step one
// instruction, all under one wgmma.fence and one commit group. The
// tile.warpgroup_wait the pipeliner places decides how many groups stay in
// flight.
//
// Descriptor (bits): [0,14) start address >> 4, [16,30) leading byte
// offset >> 4, [32,46) stride byte offset >> 4, [62,64) swizzle (1 = 128B,
// 2 = 64B). With 128-byte swizzle, rows of a 64-element segment are 128
// bytes and 8 rows form a 1024-byte swizzle atom:
//
//   K-major operand (A, or B stored N x K):  start += 32 bytes per K step
//     (inside a segment), 64 K per segment; SBO = 1024 (8 rows); LBO unused.
//   MN-major operand (B stored K x N):       start += 16 rows * 128 bytes
//     per K step; LBO = bytes between 64-wide N segments; SBO = 1024.
//
// A K-major operand whose K is an odd multiple of 64 bytes (fp8 at K = 64)
// takes the 64-byte swizzle instead: 64-byte rows, 512-byte atoms (SBO).
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

namespace {

/// tile.dot on shared-memory operands -> wgmma.mma_async.
struct DotOpWgmmaLowering : public OpConversionPattern<DotOp> {
  DotOpWgmmaLowering(TileTypeConverter &converter, MLIRContext *ctx,
                     const TargetInfo &target)
      : OpConversionPattern(converter, ctx, /*benefit=*/2), target(target) {}

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;

private:
  const TargetInfo &target;
};

/// tile.warpgroup_wait -> wgmma.wait_group.sync.aligned. Values passed
/// through the wait go through the same inline-asm statement (tied
/// operands), so no use of an accumulator can be scheduled before it.
struct WarpgroupWaitOpLowering : public OpConversionPattern<WarpgroupWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getValues().empty()) {
      NVVM::WgmmaWaitGroupSyncOp::create(
          rewriter, loc, rewriter.getI64IntegerAttr(op.getPending()));
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<Value> scalars;
    SmallVector<unsigned> counts;
    for (Value v : adaptor.getValues()) {
      SmallVector<Value> elems = unpackVector(rewriter, loc, v);
      counts.push_back(elems.size());
      llvm::append_range(scalars, elems);
    }
    std::string constraints;
    llvm::raw_string_ostream os(constraints);
    for (auto [i, v] : llvm::enumerate(scalars)) {
      FailureOr<StringRef> c = getPtxConstraint(v.getType());
      if (failed(c))
        return rewriter.notifyMatchFailure(op, "unsupported element type");
      os << (i ? "," : "") << "=" << *c;
    }
    for (unsigned i = 0; i < scalars.size(); ++i)
      os << "," << i;
    SmallVector<Type> types = llvm::map_to_vector(
        scalars, [](Value v) { return v.getType(); });
    auto structType =
        LLVM::LLVMStructType::getLiteral(rewriter.getContext(), types);
    std::string ptx =
        "wgmma.wait_group.sync.aligned " + std::to_string(op.getPending()) + ";";
    auto asmOp = LLVM::InlineAsmOp::create(
        rewriter, loc, structType, scalars, rewriter.getStringAttr(ptx),
        rewriter.getStringAttr(constraints), rewriter.getUnitAttr(),
        /*is_align_stack=*/nullptr, LLVM::TailCallKindAttr(),
        LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                  LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/nullptr);
    SmallVector<Value> results;
    unsigned next = 0;
    for (auto [value, count] : llvm::zip(op.getResults(), counts)) {
      SmallVector<Value> elems;
      for (unsigned i = 0; i < count; ++i)
        elems.push_back(LLVM::ExtractValueOp::create(rewriter, loc,
                                                     asmOp.getResult(0), next++));
      results.push_back(packVector(
          rewriter, loc, getTypeConverter()->convertType(value.getType()),
          elems));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// tile.fence_async_shared -> fence.proxy.async.shared::cta.
struct FenceAsyncSharedOpLowering
    : public OpConversionPattern<FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(op.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    return success();
  }
};

} // namespace

/// Swizzled (128- or 64-byte) matrix descriptors of one shared tile, one
/// per K step.
///
/// A tile read in place from a ring stage gets each step's descriptor from
/// its own address ((addr & 0x3FFFF) >> 4 | fixed fields). A tile defined
/// outside the dot's loop (`incremental`: attention's Q in the key loop) is
/// rebuilt in each iteration from its pinned base: the start field is
/// computed once and each step adds its offset / 16 (CUTLASS's descriptor
/// iterator does the same); the field cannot carry, as shared addresses are
/// below 2^18 (228 KB). Measured on the H200: the incremental form on every
/// operand cost the pass-built head-dim-64 attention 2-7%; on the pinned Q
/// alone it is what brings the head-dim-128 kernel to the hand-built one's
/// speed (bench/results/2026-12-04_wgmma_descriptor_remat_h200.json).
class SharedDescriptors {
public:
  SharedDescriptors(OpBuilder &b, Location loc, Value base,
                    int64_t leadingBytes, int64_t strideBytes,
                    int64_t swizzleBytes, bool incremental)
      : base(base) {
    // Layout type in bits [62, 64): 1 = 128-byte, 2 = 64-byte swizzle.
    uint64_t layoutType = swizzleBytes == 128 ? 1 : 2;
    fixed = (uint64_t((leadingBytes >> 4) & 0x3FFF) << 16) |
            (uint64_t((strideBytes >> 4) & 0x3FFF) << 32) | (layoutType << 62);
    if (!incremental)
      return;
    Type i32 = b.getI32Type();
    Value addr = LLVM::PtrToIntOp::create(b, loc, i32, base);
    start = arith::ShRUIOp::create(
        b, loc, arith::AndIOp::create(b, loc, addr, i32Val(b, loc, 0x3FFFF)),
        i32Val(b, loc, 4));
  }

  /// The descriptor of the matrix `offsetBytes` (a multiple of 16) past the
  /// base.
  Value at(OpBuilder &b, Location loc, int64_t offsetBytes) const {
    assert(offsetBytes % 16 == 0 && "descriptor offsets are 16-byte units");
    Type i64 = b.getI64Type();
    Value field;
    if (start) {
      field = start;
      if (offsetBytes)
        field = arith::AddIOp::create(b, loc, start,
                                      i32Val(b, loc, offsetBytes >> 4));
      field = arith::ExtUIOp::create(b, loc, i64, field);
    } else {
      Value ptr = LLVM::GEPOp::create(
          b, loc, base.getType(), b.getI8Type(), base,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offsetBytes)});
      Value addr = arith::ExtUIOp::create(
          b, loc, i64, LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr));
      field = arith::ShRUIOp::create(
          b, loc, arith::AndIOp::create(b, loc, addr, i64Val(b, loc, 0x3FFFF)),
          i64Val(b, loc, 4));
    }
    return arith::OrIOp::create(b, loc, field,
                                i64Val(b, loc, static_cast<int64_t>(fixed)));
  }

private:
  Value base;
  Value start; // the incremental form's start field
  uint64_t fixed;
};

/// The wgmma K steps (32 bytes of K each) of the shared-memory dot operands
/// defined outside `loop`, over the dots whose innermost loop it is: how
/// many descriptors the loop would rebuild per iteration.
static int64_t countLoopInvariantKSteps(LoopLikeOpInterface loop) {
  int64_t bytes = 0;
  loop->walk([&](DotOp dot) {
    if (dot->getParentOfType<LoopLikeOpInterface>() != loop)
      return;
    auto aType = cast<RankedTensorType>(dot.getA().getType());
    int64_t kBytes =
        aType.getDimSize(1) * getStorageBytes(aType.getElementType());
    for (Value v : {dot.getA(), dot.getB()})
      if (isa_and_nonnull<SharedEncodingAttr>(
              cast<RankedTensorType>(v.getType()).getEncoding()) &&
          loop.isDefinedOutsideOfLoop(v))
        bytes += kBytes;
  });
  return bytes / 32;
}

/// `ptr` through an empty side-effecting asm: the descriptors built from it
/// stay where the wgmma group is. For a tile defined outside the dot's loop
/// LLVM would hoist them out of the loop otherwise (2 registers per K step
/// live through the loop, as many as the accumulator of an m64n32 dot).
/// Rebuilt each iteration, as CUTLASS's descriptor iterators do, they cost
/// a few uniform instructions; hoisted, they made ptxas spill the head-dim
/// 128 attention kernel and slowed it 2-4%
/// (bench/results/2026-12-04_wgmma_descriptor_remat_h200.json).
static Value pinSharedPointer(OpBuilder &b, Location loc, Value ptr) {
  Type i32 = b.getI32Type();
  Value addr = LLVM::PtrToIntOp::create(b, loc, i32, ptr);
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, i32, addr, b.getStringAttr(""), b.getStringAttr("=r,0"),
      /*has_side_effects=*/b.getUnitAttr(), /*is_align_stack=*/nullptr,
      LLVM::TailCallKindAttr(),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/nullptr);
  return LLVM::IntToPtrOp::create(b, loc, ptr.getType(), asmOp.getResult(0));
}

/// Byte offset of element (`r`, `c`) of a shared tile with `enc` before
/// swizzling (the hardware swizzles addresses itself): segment, row, column.
static int64_t getUnswizzledOffset(SharedEncodingAttr enc,
                                   ArrayRef<int64_t> shape, int64_t r0,
                                   int64_t r1, unsigned elemBytes) {
  unsigned contig = enc.getOrder()[0];
  int64_t coord[2] = {r0, r1};
  int64_t seg = enc.getSegmentLength(shape[contig]);
  int64_t rows = shape[1 - contig];
  int64_t segIdx = coord[contig] / seg, inSeg = coord[contig] % seg;
  return (segIdx * rows * seg + coord[1 - contig] * seg + inSeg) * elemBytes;
}

/// Passes `values` (registers a wgmma group reads: the accumulator, A
/// fragments) through an empty inline-asm statement with tied operands and
/// returns its results. Emitted right before `wgmma.fence`, it pins the
/// instructions writing those registers (zeroing an accumulator, packing A
/// fragments) before the fence: LLVM otherwise sinks them down to the wgmma,
/// between the fence and the instruction that reads them, where the PTX
/// memory model leaves the read unordered (wrong results seen on the H200
/// for 128-wide K steps).
static SmallVector<Value> fenceOperands(OpBuilder &b, Location loc,
                                        ArrayRef<Value> values) {
  if (values.empty())
    return {};
  std::string constraints;
  llvm::raw_string_ostream os(constraints);
  for (auto [i, v] : llvm::enumerate(values))
    os << (i ? "," : "") << "=" << *getPtxConstraint(v.getType());
  for (unsigned i = 0; i < values.size(); ++i)
    os << "," << i;
  SmallVector<Type> types =
      llvm::map_to_vector(values, [](Value v) { return v.getType(); });
  auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, structType, values, b.getStringAttr(""),
      b.getStringAttr(constraints), /*has_side_effects=*/b.getUnitAttr(),
      /*is_align_stack=*/nullptr, LLVM::TailCallKindAttr(),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/nullptr);
  SmallVector<Value> results;
  for (unsigned i = 0; i < values.size(); ++i)
    results.push_back(
        LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
  return results;
}

/// `wgmma.mma_async` with A in registers (the NVVM op only takes shared
/// A descriptors), as inline PTX: the accumulator struct `inout` (`regs`
/// f32) in and out, the A fragment, B's descriptor; scale-d = 1 (a
/// predicate set from a register), imm-scale-a/b = 1, imm-trans-b.
static Value emitWgmmaRS(OpBuilder &b, Location loc, Value inout,
                         int64_t regs, int64_t n, Type aType, Type bType,
                         ArrayRef<Value> aFrag, Value descB, bool transB) {
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  // One instruction reads 32 bytes of K.
  unsigned elemBytes = getStorageBytes(aType);
  bool int8 = aType.isInteger(8);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << 2 * regs + 5 << ", 0;\n"
     << "wgmma.mma_async.sync.aligned.m64n" << n << "k" << 32 / elemBytes
     << (int8 ? ".s32." : ".f32.") << getPtxTypeName(aType) << "."
     << getPtxTypeName(bType) << " {";
  for (int64_t i = 0; i < regs; ++i)
    os << (i ? ", " : "") << "$" << i;
  os << "}, {$" << 2 * regs << ", $" << 2 * regs + 1 << ", $" << 2 * regs + 2
     << ", $" << 2 * regs + 3 << "}, $" << 2 * regs + 4 << ", p";
  // Integer wgmma has no scale operands; the transpose operand exists for
  // 16-bit types only.
  if (!int8)
    os << ", 1, 1";
  if (elemBytes == 2)
    os << ", " << (transB ? 1 : 0);
  os << ";\n}";
  std::string constraints;
  llvm::raw_string_ostream cs(constraints);
  for (int64_t i = 0; i < regs; ++i)
    cs << (i ? "," : "") << (int8 ? "=r" : "=f");
  for (int64_t i = 0; i < regs; ++i)
    cs << "," << i;
  cs << ",r,r,r,r,l,r";
  SmallVector<Value> operands;
  for (int64_t i = 0; i < regs; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, inout, i));
  llvm::append_range(operands, aFrag);
  operands.push_back(descB);
  operands.push_back(i32Val(b, loc, 1));
  return LLVM::InlineAsmOp::create(
             b, loc, inout.getType(), operands, b.getStringAttr(ptx),
             b.getStringAttr(constraints), /*has_side_effects=*/b.getUnitAttr(),
             /*is_align_stack=*/nullptr, LLVM::TailCallKindAttr(),
             LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/nullptr)
      .getResult(0);
}

namespace {
/// What the lowering of one wgmma dot needs to know about its operands.
struct WgmmaOperands {
  RankedTensorType aType, bType, cType;
  SharedEncodingAttr aEnc, bEnc; // aEnc is null for a register A (RS)
  DotOperandEncodingAttr aRegs;  // the register A's layout, or null
  Type et, bt;                   // A's and B's element types
  int64_t n, k;                  // n: one warpgroup's columns (instruction N)
  unsigned mGroups, nGroups;     // warpgroups along M and N
  unsigned mReps;                // m64 instructions per warpgroup and K step
  unsigned elemBytes;
  int64_t kStep;              // K per instruction (32 bytes)
  int64_t aSwizzle, bSwizzle; // swizzle spans in bytes
  bool aKMajor, bKMajor;
};
} // namespace

/// The operands of `op` on wgmma, or failure with a diagnostic naming the
/// rule they break.
static FailureOr<WgmmaOperands> checkWgmmaOperands(DotOp op,
                                                   const TargetInfo &target) {
  WgmmaOperands w;
  w.aType = cast<RankedTensorType>(op.getA().getType());
  w.bType = cast<RankedTensorType>(op.getB().getType());
  w.cType = cast<RankedTensorType>(op.getAcc().getType());
  w.aEnc = dyn_cast_or_null<SharedEncodingAttr>(w.aType.getEncoding());
  w.bEnc = dyn_cast_or_null<SharedEncodingAttr>(w.bType.getEncoding());
  // RS: A in registers, in each warp's mma.sync A fragment of its 16 rows.
  w.aRegs = dyn_cast_or_null<DotOperandEncodingAttr>(w.aType.getEncoding());
  if (!target.hasWgmma)
    return op.emitOpError("wgmma needs sm_90a (arch-specific features); ")
           << target.chip << " does not have it";
  w.et = w.aType.getElementType();
  w.bt = w.bType.getElementType();
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(w.cType.getEncoding());
  int64_t m = w.cType.getDimSize(0);
  w.n = w.cType.getDimSize(1);
  w.k = w.aType.getDimSize(1);
  unsigned numWarps = getNumWarps(op);
  // tile.dot's verifier pins B and the accumulator to A's type: bf16/f16,
  // fp8 (either of B) -> f32, f16 -> f16, f32 -> f32, i8 -> i32.
  Type accType = w.cType.getElementType();
  // fp8, i8 and tf32 read both operands K-major.
  bool kMajorOnly = isKMajorOnlyMmaType(w.et);
  bool tf32 = w.et.isF32();
  if (tf32 && op.getPrecision() != DotPrecision::TF32)
    return op.emitOpError("wgmma multiplies f32 operands as TF32 only; this "
                          "dot asks for precision(")
           << stringifyDotPrecision(op.getPrecision()) << ")";
  // One instruction reads 32 bytes of K: 8 32-bit, 16 16-bit or 32 8-bit
  // elements.
  w.elemBytes = getStorageBytes(w.et);
  w.kStep = 32 / w.elemBytes;
  // Warpgroups stack along M (64 rows each); more of them split N, with
  // warps numbered along M first (#tile.mma's mFirst).
  unsigned wm = mma ? mma.getWarpsPerCTA()[0] : 0;
  unsigned wn = mma ? mma.getWarpsPerCTA()[1] : 0;
  // With warpRows = 16, the warps' 16 * wm rows repeat down M: one m64
  // instruction per repetition.
  w.mReps = mma && mma.getWarpRows() == 16 && wm && m % (16 * wm) == 0
                ? m / (16 * wm)
                : 1;
  if (!(kMajorOnly || w.et.isBF16() || w.et.isF16()) || accType.isF16() ||
      !mma || (wn != 1 && !mma.getMFirst()) || wm % 4 != 0 ||
      wm * wn != numWarps || m != 16 * wm * w.mReps ||
      (w.mReps > 1 && wn != 1) || w.n % wn != 0 ||
      (w.n / wn) % 8 != 0 || w.n / wn > 256 || w.k % w.kStep != 0)
    return op.emitOpError("unsupported wgmma operands: ")
           << w.aType << " x " << w.bType << " -> " << w.cType;
  w.mGroups = wm / 4;
  w.nGroups = wn;
  w.n /= wn;
  // Descriptors take segments of one hardware swizzle span: 128 bytes
  // (32 32-bit, 64 16-bit or 128 8-bit elements), or 64 bytes for K-major
  // operands; rows start at swizzle atoms (8 rows of a span).
  w.aSwizzle =
      w.aEnc ? w.aEnc.getSegmentSwizzleBytes(w.elemBytes).value_or(0) : 128;
  w.bSwizzle = w.bEnc.getSegmentSwizzleBytes(w.elemBytes).value_or(0);
  if (!w.aSwizzle || !w.bSwizzle)
    return op.emitOpError("wgmma operands need a 128- or 64-byte swizzled "
                          "layout (16-byte vec, perPhase 1 and maxPhase 8, "
                          "or perPhase 2 and maxPhase 4; segments of the "
                          "swizzle span)");
  // A: M x K, K-major when contiguous along K (order[0] == 1).
  w.aKMajor = !w.aEnc || w.aEnc.getOrder()[0] == 1;
  // B: K x N, K-major when contiguous along K (order[0] == 0).
  w.bKMajor = w.bEnc.getOrder()[0] == 0;
  if (!w.aKMajor && w.aSwizzle != 128)
    return op.emitOpError("an M-major A operand needs the 128-byte swizzle");
  if (kMajorOnly && !w.aKMajor)
    return op.emitOpError(tf32 ? "tf32" : "8-bit (fp8, i8)")
           << " wgmma needs A contiguous along K (the transpose is for "
              "16-bit types only)";
  if (!w.bKMajor && w.bSwizzle != 128)
    return op.emitOpError("an N-major B operand needs the 128-byte swizzle");
  if (!w.bKMajor && w.nGroups > 1 && (w.n * w.elemBytes) % w.bSwizzle != 0)
    return op.emitOpError("warpgroups splitting an N-major B must start at "
                          "its swizzle segments, got ")
           << w.n << " columns each";
  if (kMajorOnly && !w.bKMajor)
    return op.emitOpError(tf32 ? "tf32" : "8-bit (fp8, i8)")
           << " wgmma needs B contiguous along K (the transpose is for "
              "16-bit types only)";
  if (w.aRegs && (w.aRegs.getOpIdx() != 0 || w.aRegs.getParent() != mma))
    return op.emitOpError("a register A operand must be the dot_operand "
                          "(opIdx 0) of the accumulator's layout, got ")
           << w.aType;
  return w;
}

/// The wgmma type of element type `t`.
static NVVM::WGMMATypes getWgmmaType(Type t) {
  if (t.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (t.isF16())
    return NVVM::WGMMATypes::f16;
  if (t.isInteger(8))
    return NVVM::WGMMATypes::s8;
  if (t.isF32())
    return NVVM::WGMMATypes::tf32;
  return isa<Float8E4M3FNType>(t) ? NVVM::WGMMATypes::e4m3
                                  : NVVM::WGMMATypes::e5m2;
}

/// `wgmma.mma_async` with both operands in shared memory (the NVVM op): the
/// accumulator struct `inout` in and out.
static Value emitWgmmaSS(OpBuilder &b, Location loc, Value inout,
                         const WgmmaOperands &w, Value descA, Value descB) {
  MLIRContext *ctx = b.getContext();
  return NVVM::WgmmaMmaAsyncOp::create(
      b, loc, inout.getType(), inout, descA, descB,
      NVVM::MMAShapeAttr::get(ctx, 64, w.n, w.kStep),
      NVVM::WGMMATypesAttr::get(ctx, getWgmmaType(w.et)),
      NVVM::WGMMATypesAttr::get(ctx, getWgmmaType(w.bt)),
      NVVM::WGMMATypesAttr::get(ctx, w.et.isInteger(8) ? NVVM::WGMMATypes::s32
                                                       : NVVM::WGMMATypes::f32),
      NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
      NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
      NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
      NVVM::MMALayoutAttr::get(ctx, w.aKMajor ? NVVM::MMALayout::row
                                              : NVVM::MMALayout::col),
      NVVM::MMALayoutAttr::get(ctx, w.bKMajor ? NVVM::MMALayout::col
                                              : NVVM::MMALayout::row),
      /*satfinite=*/nullptr);
}

/// This warpgroup's operand bases, warpgroups numbered along M first, then
/// along N. A (null for a register A): its 64 rows start 64 * row group
/// rows in, 64 rows of a segment (K-major) or the next 64-element segment
/// of all K rows (M-major). B: its w.n columns start w.n * column group
/// columns in, w.n rows of a K-major B or whole 64-element segments (all K
/// rows each) of an N-major one.
static std::pair<Value, Value> getWarpgroupBases(OpBuilder &b, Location loc,
                                                 const WgmmaOperands &w,
                                                 Value a, Value bBase) {
  ThreadIds ids = getThreadIds(b, loc);
  Value warpgroup = arith::ShRUIOp::create(b, loc, ids.warp, i32Val(b, loc, 2));
  Value rowGroup = warpgroup, colGroup;
  if (w.nGroups > 1 && w.mGroups == 1) {
    rowGroup = i32Val(b, loc, 0);
    colGroup = warpgroup;
  } else if (w.nGroups > 1) {
    rowGroup =
        arith::RemUIOp::create(b, loc, warpgroup, i32Val(b, loc, w.mGroups));
    colGroup =
        arith::DivUIOp::create(b, loc, warpgroup, i32Val(b, loc, w.mGroups));
  }
  auto offset = [&](Value base, Value group, int64_t groupBytes) -> Value {
    Value bytes =
        arith::MulIOp::create(b, loc, group, i32Val(b, loc, groupBytes));
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ValueRange{bytes});
  };
  Value aBase;
  if (!w.aRegs)
    aBase = offset(
        a, rowGroup,
        getUnswizzledOffset(w.aEnc, w.aType.getShape(), 64, 0, w.elemBytes));
  if (colGroup)
    bBase = offset(
        bBase, colGroup,
        getUnswizzledOffset(w.bEnc, w.bType.getShape(), 0, w.n, w.elemBytes));
  return {aBase, bBase};
}

LogicalResult
DotOpWgmmaLowering::matchAndRewrite(DotOp op, OpAdaptor adaptor,
                                    ConversionPatternRewriter &rewriter) const {
  auto aEncoding = cast<RankedTensorType>(op.getA().getType()).getEncoding();
  if (!isa_and_nonnull<SharedEncodingAttr>(
          cast<RankedTensorType>(op.getB().getType()).getEncoding()) ||
      !isa_and_nonnull<SharedEncodingAttr, DotOperandEncodingAttr>(aEncoding))
    return rewriter.notifyMatchFailure(op, "operands are not in shared memory");
  FailureOr<WgmmaOperands> checked = checkWgmmaOperands(op, target);
  if (failed(checked))
    return failure();
  const WgmmaOperands &w = *checked;

  Location loc = op.getLoc();
  auto [aBase, bBase] =
      getWarpgroupBases(rewriter, loc, w, adaptor.getA(), adaptor.getB());
  SmallVector<Value> aValues;
  LinearLayout aLL;
  if (w.aRegs) {
    aValues = unpackVector(rewriter, loc, adaptor.getA());
    aLL = getLinearLayout(w.aType);
    if (w.et.isF32())
      aValues = convertToTf32(rewriter, loc, aValues, /*rest=*/nullptr);
  }

  // The accumulator: one instruction's struct of f32 per M repetition
  // (registers [r * regs, (r + 1) * regs) hold repetition r).
  SmallVector<Value> acc = unpackVector(rewriter, loc, adaptor.getAcc());
  int64_t regs = w.n / 2;
  if (static_cast<int64_t>(acc.size()) != regs * w.mReps)
    return op.emitOpError("accumulator has ")
           << acc.size() << " registers per thread, " << w.mReps
           << " wgmma m64n" << w.n << " need " << regs * w.mReps;
  SmallVector<Type> fields(regs, w.cType.getElementType());
  auto structType = LLVM::LLVMStructType::getLiteral(op.getContext(), fields);
  // The rows of M repetition r start 16 * wm * r = 64 * mGroups * r rows in.
  int64_t repRows = 64 * w.mGroups;

  // Register A fragments are packed before the fence: a register written
  // between the fence and the wgmma reading it makes ptxas inject another
  // warpgroup.arrive (C7519). Indexed [rep * kSteps + kk / kStep].
  SmallVector<SmallVector<Value>> aFrags;
  if (w.aRegs)
    for (unsigned r = 0; r < w.mReps; ++r)
      for (int64_t kk = 0; kk < w.k; kk += w.kStep)
        aFrags.push_back(getMmaAFragment(
            rewriter, loc, aValues, aLL, /*row0=*/repRows * r, kk,
            /*kWidth=*/4 / w.elemBytes, /*f16AsVector=*/false));
  // Every register the group reads is final before the fence.
  SmallVector<Value> operands(acc);
  for (ArrayRef<Value> frag : aFrags)
    llvm::append_range(operands, frag);
  SmallVector<Value> fenced = fenceOperands(rewriter, loc, operands);
  for (size_t i = 0; i < acc.size(); ++i)
    acc[i] = fenced[i];
  unsigned next = acc.size();
  for (SmallVector<Value> &frag : aFrags)
    for (Value &v : frag)
      v = fenced[next++];
  SmallVector<Value> inouts;
  for (unsigned r = 0; r < w.mReps; ++r) {
    Value inout = LLVM::PoisonOp::create(rewriter, loc, structType);
    for (int64_t i = 0; i < regs; ++i)
      inout = LLVM::InsertValueOp::create(rewriter, loc, inout,
                                          acc[r * regs + i], i);
    inouts.push_back(inout);
  }
  NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
  // Tiles defined outside the dot's loop: pinned and rebuilt incrementally
  // when the loop's dots have at most 8 such K steps in all. Hoisted, their
  // descriptors hold 2 registers per K step through the loop; rebuilt, they
  // cost an add per step and iteration. Measured on the H200 (the results
  // above): at 8 steps (attention's Q at head dim 128) the rebuild won 2-4%;
  // at 16 it lost 1-2.5% (Q at head dim 256 in the hand-built causal
  // kernel; Q and dO, or K and V, in the head-dim-128 backward kernels).
  auto loop = op->getParentOfType<LoopLikeOpInterface>();
  bool fewSteps = loop && countLoopInvariantKSteps(loop) <= 8;
  bool aInvariant =
      fewSteps && aBase && loop.isDefinedOutsideOfLoop(op.getA());
  bool bInvariant = fewSteps && loop.isDefinedOutsideOfLoop(op.getB());
  if (aInvariant)
    aBase = pinSharedPointer(rewriter, loc, aBase);
  if (bInvariant)
    bBase = pinSharedPointer(rewriter, loc, bBase);
  int64_t bRows = w.bType.getDimSize(w.bKMajor ? 1 : 0);
  // MN-major: LBO steps between 64-wide N segments of all K rows.
  SharedDescriptors bDescs(rewriter, loc, bBase,
                           /*leading=*/w.bKMajor ? 16 : bRows * 128,
                           /*stride=*/8 * w.bSwizzle, w.bSwizzle, bInvariant);
  std::optional<SharedDescriptors> aDescs;
  // M-major: LBO steps between 64-wide M segments of all K rows.
  if (!w.aRegs)
    aDescs.emplace(rewriter, loc, aBase,
                   /*leading=*/w.aKMajor ? 16 : w.k * 128,
                   /*stride=*/8 * w.aSwizzle, w.aSwizzle, aInvariant);
  int64_t kSteps = w.k / w.kStep;
  for (int64_t kk = 0; kk < w.k; kk += w.kStep) {
    Value descB = bDescs.at(
        rewriter, loc,
        getUnswizzledOffset(w.bEnc, w.bType.getShape(), kk, 0, w.elemBytes));
    for (unsigned r = 0; r < w.mReps; ++r) {
      Value &inout = inouts[r];
      if (w.aRegs) {
        inout = emitWgmmaRS(rewriter, loc, inout, regs, w.n, w.et, w.bt,
                            aFrags[r * kSteps + kk / w.kStep], descB,
                            !w.bKMajor);
        continue;
      }
      Value descA = aDescs->at(
          rewriter, loc,
          getUnswizzledOffset(w.aEnc, w.aType.getShape(), repRows * r, kk,
                              w.elemBytes));
      inout = emitWgmmaSS(rewriter, loc, inout, w, descA, descB);
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
  for (unsigned r = 0; r < w.mReps; ++r)
    for (int64_t i = 0; i < regs; ++i)
      acc[r * regs + i] =
          LLVM::ExtractValueOp::create(rewriter, loc, inouts[r], i);
  rewriter.replaceOp(
      op,
      packVector(rewriter, loc, getTypeConverter()->convertType(w.cType), acc));
  return success();
}

void mlir::tilec::populateWgmmaSm90Patterns(TileTypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            const TargetInfo &target) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<DotOpWgmmaLowering>(converter, ctx, target); // tile.dot (smem)
  patterns.add<WarpgroupWaitOpLowering,   // tile.warpgroup_wait
               FenceAsyncSharedOpLowering // tile.fence_async_shared
               >(converter, ctx);
}
