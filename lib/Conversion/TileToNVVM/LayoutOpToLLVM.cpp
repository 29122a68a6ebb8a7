//===- LayoutOpToLLVM.cpp - Shape and layout changes of tiles -------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers tile.expand_dims, tile.broadcast, tile.trans,
// tile.extract_slice and tile.convert_layout. With the layouts
// tile-assign-layouts picks, the first four never move data between
// threads: in linear-layout terms the lane and warp bases of operand and
// result agree, so each result register is some operand register
// (vector.shuffle). tile.convert_layout does the same when
// it can; when elements only change lanes within their warp it exchanges
// 32-bit words with lane shuffles (planWarpShuffle); otherwise every thread
// writes its elements to shared memory and reads back the ones the new
// layout gives it.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

/// Result register r takes operand register map[r].
static Value remapRegisters(OpBuilder &b, Location loc, Value src,
                            ArrayRef<int64_t> map) {
  auto srcType = cast<VectorType>(src.getType());
  bool identity = static_cast<int64_t>(map.size()) == srcType.getNumElements();
  for (auto [i, m] : llvm::enumerate(map))
    identity &= static_cast<int64_t>(i) == m;
  if (identity)
    return src;
  return vector::ShuffleOp::create(b, loc, src, src, map);
}

/// For each register of `dst`, the register of `src` holding the element at
/// `project(coordinate in dst)`; failure when some is missing or the layouts
/// place elements on different threads.
static FailureOr<SmallVector<int64_t>>
getRegisterMap(const LinearLayout &src, const LinearLayout &dst,
               function_ref<LinearLayout::Basis(LinearLayout::Basis)> project) {
  SmallVector<int64_t> map;
  for (unsigned r = 0; r < dst.getNumRegs(); ++r) {
    std::optional<unsigned> s = src.findReg(project(dst.getRegCoord(r)));
    if (!s)
      return failure();
    map.push_back(*s);
  }
  return map;
}

namespace {

/// tile.expand_dims: result registers are operand registers (the operand
/// layout is the result layout sliced along the new axis).
struct ExpandDimsOpLowering : public OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LinearLayout src =
        getLinearLayout(cast<RankedTensorType>(op.getSrc().getType()));
    LinearLayout dst = getLinearLayout(cast<RankedTensorType>(op.getType()));
    unsigned axis = op.getAxis();
    if (!src.hasSameThreadMapping(dst.dropUnitDim(axis)))
      return op.emitOpError("operand and result layouts disagree");
    FailureOr<SmallVector<int64_t>> map =
        getRegisterMap(src, dst, [&](LinearLayout::Basis c) {
          c.erase(c.begin() + axis);
          return c;
        });
    if (failed(map))
      return op.emitOpError("operand and result layouts disagree");
    rewriter.replaceOp(
        op, remapRegisters(rewriter, op.getLoc(), adaptor.getSrc(), *map));
    return success();
  }
};

/// tile.broadcast: each result register copies the operand register at the
/// same coordinate with the broadcast dimensions set to zero.
struct BroadcastOpLowering : public OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    LinearLayout src = getLinearLayout(srcType);
    LinearLayout dst = getLinearLayout(dstType);
    SmallVector<unsigned> dims;
    for (unsigned d = 0; d < srcType.getRank(); ++d)
      if (srcType.getDimSize(d) != dstType.getDimSize(d))
        dims.push_back(d);
    if (!src.hasSameThreadMapping(dst.collapseDims(dims)))
      return op.emitOpError("operand and result layouts disagree");
    FailureOr<SmallVector<int64_t>> map =
        getRegisterMap(src, dst, [&](LinearLayout::Basis c) {
          for (unsigned d : dims)
            c[d] = 0;
          return c;
        });
    if (failed(map))
      return op.emitOpError("operand and result layouts disagree");
    rewriter.replaceOp(
        op, remapRegisters(rewriter, op.getLoc(), adaptor.getSrc(), *map));
    return success();
  }
};

/// tile.trans: the result layout is the operand layout with its dimensions
/// swapped, so registers keep their values.
struct TransOpLowering : public OpConversionPattern<TransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LinearLayout src =
        getLinearLayout(cast<RankedTensorType>(op.getSrc().getType()));
    LinearLayout dst = getLinearLayout(cast<RankedTensorType>(op.getType()));
    LinearLayout swapped = src.permuteDims({1, 0});
    if (!swapped.hasSameThreadMapping(dst))
      return op.emitOpError("result layout is not the transposed operand "
                            "layout");
    FailureOr<SmallVector<int64_t>> map =
        getRegisterMap(src, dst, [](LinearLayout::Basis c) {
          return LinearLayout::Basis{c[1], c[0]};
        });
    if (failed(map))
      return op.emitOpError("result layout is not the transposed operand "
                            "layout");
    rewriter.replaceOp(
        op, remapRegisters(rewriter, op.getLoc(), adaptor.getSrc(), *map));
    return success();
  }
};

/// tile.extract_slice: with the source's lane and warp bases (offsets are
/// multiples of the slice size, so they only set register bits), each
/// result register is the source register at the offset coordinate.
struct ExtractSliceOpLowering : public OpConversionPattern<ExtractSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExtractSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LinearLayout src =
        getLinearLayout(cast<RankedTensorType>(op.getSource().getType()));
    LinearLayout dst = getLinearLayout(cast<RankedTensorType>(op.getType()));
    using In = LinearLayout::In;
    auto fail = [&]() {
      return op.emitOpError("the slice's layout places elements on other "
                            "threads than the source's (only slices that "
                            "keep every element in its thread are "
                            "supported)");
    };
    if (src.getBases(In::Lane) != dst.getBases(In::Lane) ||
        src.getBases(In::Warp) != dst.getBases(In::Warp))
      return fail();
    ArrayRef<int64_t> offsets = op.getOffsets();
    FailureOr<SmallVector<int64_t>> map =
        getRegisterMap(src, dst, [&](LinearLayout::Basis c) {
          for (auto [x, off] : llvm::zip(c, offsets))
            x += off;
          return c;
        });
    if (failed(map))
      return fail();
    rewriter.replaceOp(
        op, remapRegisters(rewriter, op.getLoc(), adaptor.getSource(), *map));
    return success();
  }
};

/// tile.convert_layout: a register permutation when both layouts put each
/// element on the same thread, lane shuffles when they put it in the same
/// warp and planWarpShuffle finds a plan, else a round trip through shared
/// memory.
struct ConvertLayoutOpLowering : public OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    if (!getDistributedLayout(srcType) || !getDistributedLayout(dstType))
      return rewriter.notifyMatchFailure(op, "not between distributed layouts");
    LinearLayout src = getLinearLayout(srcType);
    LinearLayout dst = getLinearLayout(dstType);
    Location loc = op.getLoc();
    if (isRegisterPermutation(src, dst)) {
      FailureOr<SmallVector<int64_t>> map =
          getRegisterMap(src, dst, [](LinearLayout::Basis c) { return c; });
      rewriter.replaceOp(op,
                         remapRegisters(rewriter, loc, adaptor.getSrc(), *map));
      return success();
    }
    if (std::optional<WarpShufflePlan> plan =
            planWarpShuffle(src, dst, srcType.getElementTypeBitWidth())) {
      rewriter.replaceOp(
          op, convertWithShuffles(rewriter, op, *plan, adaptor.getSrc()));
      return success();
    }
    rewriter.replaceOp(op, convertThroughSharedMemory(rewriter, op, src, dst,
                                                      adaptor.getSrc()));
    return success();
  }

private:
  Value convertWithShuffles(ConversionPatternRewriter &b, ConvertLayoutOp op,
                            const WarpShufflePlan &plan, Value vals) const;
  Value convertThroughSharedMemory(ConversionPatternRewriter &b,
                                   ConvertLayoutOp op, const LinearLayout &src,
                                   const LinearLayout &dst, Value vals) const;
};

} // namespace

/// Linear index of `coord` (thread part + register offset) in a staging
/// buffer with `strides`.
static Value linearIndex(OpBuilder &b, Location loc, ArrayRef<Value> thread,
                         const LinearLayout::Basis &reg,
                         ArrayRef<int64_t> strides) {
  Value idx;
  for (unsigned d = 0; d < strides.size(); ++d) {
    Value c = thread[d];
    if (reg[d] != 0)
      c = arith::AddIOp::create(b, loc, c, i32Val(b, loc, reg[d]));
    if (strides[d] != 1)
      c = arith::MulIOp::create(b, loc, c, i32Val(b, loc, strides[d]));
    idx = idx ? arith::AddIOp::create(b, loc, idx, c).getResult() : c;
  }
  return idx;
}

Value ConvertLayoutOpLowering::convertThroughSharedMemory(
    ConversionPatternRewriter &b, ConvertLayoutOp op, const LinearLayout &src,
    const LinearLayout &dst, Value vals) const {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  Type elemType = getStorageType(srcType.getElementType());
  int64_t numElems;
  SmallVector<int64_t> strides = getPaddedStrides(
      srcType.getShape(), getStorageBytes(srcType.getElementType()), &numElems);
  ThreadIds ids = getThreadIds(b, loc);
  Value scratch = getScratchPtr(b, loc, op);
  SmallVector<Value> srcThread = emitThreadCoord(b, loc, src, ids);
  SmallVector<Value> dstThread = emitThreadCoord(b, loc, dst, ids);
  SmallVector<Value> elems = unpackVector(b, loc, vals);

  // Earlier users of the scratch area must be done before it is rewritten:
  // the block's (or warp group's) threads, or for a warp-local conversion,
  // which has the area to itself, the warp's lanes.
  bool warpLocal = isWarpLocalConversion(op);
  auto sync = [&] {
    if (warpLocal)
      NVVM::SyncWarpOp::create(b, loc, i32Val(b, loc, -1));
    else
      emitBarrier(b, loc, op);
  };
  sync();
  auto writeAll = [&](OpBuilder &w, Location l) {
    for (unsigned r = 0; r < src.getNumRegs(); ++r) {
      Value idx = linearIndex(w, l, srcThread, src.getRegCoord(r), strides);
      LLVM::StoreOp::create(w, l, elems[r],
                            gepElems(w, l, scratch, elemType, idx));
    }
  };
  if (Value canonical = emitIsCanonicalThread(b, loc, src, ids)) {
    scf::IfOp::create(b, loc, canonical, [&](OpBuilder &w, Location l) {
      writeAll(w, l);
      scf::YieldOp::create(w, l);
    });
  } else {
    writeAll(b, loc);
  }
  sync();
  SmallVector<Value> result;
  for (unsigned r = 0; r < dst.getNumRegs(); ++r) {
    Value idx = linearIndex(b, loc, dstThread, dst.getRegCoord(r), strides);
    result.push_back(LLVM::LoadOp::create(
        b, loc, elemType, gepElems(b, loc, scratch, elemType, idx)));
  }
  return packVector(b, loc, getTypeConverter()->convertType(op.getType()),
                    result);
}

/// Bit `i` of `v`.
static unsigned bitOf(unsigned v, unsigned i) { return (v >> i) & 1; }

/// Bit `i` of a lane id, as an i1.
static Value laneBit(OpBuilder &b, Location loc, Value lane, unsigned i) {
  Value shifted = arith::ShRUIOp::create(b, loc, lane, i32Val(b, loc, i));
  return arith::TruncIOp::create(b, loc, b.getI1Type(), shifted);
}

/// values[sel] where bit i of `sel` is `bits[i]` (a tree of selects).
static Value selectByBits(OpBuilder &b, Location loc, ArrayRef<Value> values,
                          ArrayRef<Value> bits) {
  SmallVector<Value> level(values);
  for (Value bit : bits) {
    SmallVector<Value> next;
    for (unsigned j = 0; j < level.size(); j += 2)
      next.push_back(
          arith::SelectOp::create(b, loc, bit, level[j + 1], level[j]));
    level = std::move(next);
  }
  return level.front();
}

Value ConvertLayoutOpLowering::convertWithShuffles(ConversionPatternRewriter &b,
                                                   ConvertLayoutOp op,
                                                   const WarpShufflePlan &plan,
                                                   Value vals) const {
  Location loc = op.getLoc();
  using Bit = WarpShufflePlan::ElementBit;
  SmallVector<Value> elems = unpackVector(b, loc, vals);
  Type elemType = elems.front().getType();
  Type i32 = b.getI32Type();
  Value lane = getThreadIds(b, loc).lane;
  ArrayRef<Bit> wordBits = ArrayRef(plan.regReg).take_front(plan.wordBits);
  ArrayRef<Bit> restBits = ArrayRef(plan.regReg).drop_front(plan.wordBits);
  unsigned numRounds = 1u << plan.regLane.size();
  unsigned perWord = 1u << plan.wordBits;
  auto wordType = VectorType::get({perWord}, elemType);

  // Index of the register (source or result side) of the element whose
  // bits in `bits` are `value`.
  auto regIndex = [](ArrayRef<Bit> bits, unsigned value, bool source) {
    unsigned reg = 0;
    for (auto [i, bit] : llvm::enumerate(bits))
      reg |= bitOf(value, i) << (source ? bit.srcIndex : bit.dstIndex);
    return reg;
  };
  // The source's word of the elements whose other register bits are `rest`
  // and whose register bits bound for lanes are `x`.
  auto sourceWord = [&](unsigned rest, unsigned x) {
    SmallVector<Value> word;
    for (unsigned e = 0; e < perWord; ++e)
      word.push_back(
          elems[regIndex(wordBits, e, true) | regIndex(restBits, rest, true) |
                regIndex(plan.regLane, x, true)]);
    return packRegister(b, loc, word, /*f16AsVector=*/false);
  };
  // The bits of this lane that pick what a lane sends (its lane bits bound
  // for registers) and what it keeps (its lane bits that came from
  // registers).
  SmallVector<Value> sendBits, keepBits;
  for (const Bit &bit : plan.laneReg)
    sendBits.push_back(laneBit(b, loc, lane, bit.srcIndex));
  for (const Bit &bit : plan.regLane)
    keepBits.push_back(laneBit(b, loc, lane, bit.dstIndex));
  // The lane this lane reads in round k: its shared lane bits moved to the
  // source's positions, and the source lane bits bound for registers set to
  // this lane's bits that came from registers, XOR k.
  auto sourceLane = [&](unsigned k) {
    Value src = i32Val(b, loc, 0);
    auto place = [&](unsigned from, unsigned to, unsigned flip) {
      Value bit = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, lane, i32Val(b, loc, from)),
          i32Val(b, loc, 1));
      if (flip)
        bit = arith::XOrIOp::create(b, loc, bit, i32Val(b, loc, 1));
      src = arith::OrIOp::create(
          b, loc, src, arith::ShLIOp::create(b, loc, bit, i32Val(b, loc, to)));
    };
    for (const Bit &bit : plan.laneLane)
      place(bit.dstIndex, bit.srcIndex, 0);
    for (auto [i, bit] : llvm::enumerate(plan.laneReg))
      place(plan.regLane[i].dstIndex, bit.srcIndex, bitOf(k, i));
    return src;
  };

  SmallVector<Value> laneOf;
  for (unsigned k = 0; k < numRounds; ++k)
    laneOf.push_back(sourceLane(k));
  unsigned numRest = 1u << restBits.size();
  // received[rest][k]: the word round k brings in for register bits `rest`.
  SmallVector<SmallVector<Value>> received(numRest);
  for (unsigned rest = 0; rest < numRest; ++rest) {
    SmallVector<Value> words;
    for (unsigned x = 0; x < numRounds; ++x)
      words.push_back(sourceWord(rest, x));
    for (unsigned k = 0; k < numRounds; ++k) {
      SmallVector<Value> candidates;
      for (unsigned y = 0; y < numRounds; ++y)
        candidates.push_back(words[y ^ k]);
      Value send = selectByBits(b, loc, candidates, sendBits);
      received[rest].push_back(NVVM::ShflOp::create(
          b, loc, i32, i32Val(b, loc, -1), send, laneOf[k],
          i32Val(b, loc, 0x1f),
          NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::idx),
          UnitAttr()));
    }
  }
  // The result's word for register bits (rest, y) came in round x ^ y,
  // where x are this lane's bits that came from registers.
  SmallVector<Value> result(elems.size());
  for (unsigned rest = 0; rest < numRest; ++rest) {
    for (unsigned y = 0; y < numRounds; ++y) {
      SmallVector<Value> candidates;
      for (unsigned x = 0; x < numRounds; ++x)
        candidates.push_back(received[rest][x ^ y]);
      Value word = LLVM::BitcastOp::create(
          b, loc, wordType, selectByBits(b, loc, candidates, keepBits));
      for (unsigned e = 0; e < perWord; ++e)
        result[regIndex(wordBits, e, false) | regIndex(restBits, rest, false) |
               regIndex(plan.laneReg, y, false)] =
            vector::ExtractOp::create(b, loc, word, e);
    }
  }
  return packVector(b, loc, getTypeConverter()->convertType(op.getType()),
                    result);
}

void mlir::tilec::populateLayoutOpToLLVMPatterns(TileTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<ExpandDimsOpLowering,   // tile.expand_dims
               BroadcastOpLowering,    // tile.broadcast
               TransOpLowering,        // tile.trans
               ExtractSliceOpLowering, // tile.extract_slice
               ConvertLayoutOpLowering // tile.convert_layout
               >(converter, patterns.getContext());
}
