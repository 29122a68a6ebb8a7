//===- LoadStoreOpToLLVM.cpp - Global tile loads and stores ---------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers tile.load, tile.store and tile.atomic_add on views of
// global memory.
//
// Each thread accesses the elements its layout gives it. Registers that are
// consecutive along the view's contiguous dimension form vector groups of up
// to 16 bytes (ld.global.v4.b32 / st.global.v4.b32). Whether a group may use
// the vector instruction is decided at run time, per group: all of its
// elements must be in bounds (and unmasked) and its address aligned to the
// vector size. Otherwise the group falls back to one predicated scalar access
// per element, so ragged edges, odd leading dimensions and unaligned base
// pointers are all correct, and the common case stays vectorized. In a warp,
// the fallback is taken only by the threads at the edge.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

/// The fields of a lowered view of rank `rank`: its base pointer, and its
/// sizes and strides (i32, in elements).
static Value unpackView(OpBuilder &b, Location loc, Value view, unsigned rank,
                        SmallVectorImpl<Value> &sizes,
                        SmallVectorImpl<Value> &strides) {
  Value base = LLVM::ExtractValueOp::create(b, loc, view, ArrayRef<int64_t>{0});
  for (unsigned i = 0; i < rank; ++i) {
    sizes.push_back(LLVM::ExtractValueOp::create(
        b, loc, view, ArrayRef<int64_t>{1 + static_cast<int64_t>(i)}));
    strides.push_back(LLVM::ExtractValueOp::create(
        b, loc, view, ArrayRef<int64_t>{1 + rank + static_cast<int64_t>(i)}));
  }
  return base;
}

/// The i64 element offset of `indices` (one per leading dimension, with
/// those dimensions' `sizes` and `strides`) and whether all of them lie
/// inside the sizes (null for no index).
static std::pair<Value, Value> getIndexedOffset(OpBuilder &b, Location loc,
                                                ValueRange indices,
                                                ArrayRef<Value> sizes,
                                                ArrayRef<Value> strides) {
  Value offset = i64Val(b, loc, 0), inBounds;
  for (auto [i, index] : llvm::enumerate(indices)) {
    offset = addNsw(
        b, loc, offset,
        mulNsw(b, loc, extIndex(b, loc, index), extIndex(b, loc, strides[i])));
    Value inb = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                                      sizes[i]);
    inBounds = inBounds ? arith::AndIOp::create(b, loc, inBounds, inb) : inb;
  }
  return {offset, inBounds};
}

namespace {

/// Addressing of one tile access through a view, and the per-thread parts
/// that every register shares.
class GlobalAccess {
public:
  GlobalAccess(OpBuilder &b, Location loc, Value view, ViewType viewType,
               ValueRange offsets, RankedTensorType tileType);

  /// Number of registers per vector group.
  unsigned getVectorWidth() const { return vec; }
  unsigned getNumRegs() const { return layout.getNumRegs(); }
  Type getElemType() const { return elemType; }
  unsigned getElemBytes() const { return elemBytes; }
  const LinearLayout &getLayout() const { return layout; }
  const ThreadIds &getThreadIds() const { return ids; }

  /// Address of register `reg`'s element and whether each of the elements
  /// `reg .. reg + count - 1` (consecutive along the contiguous dimension)
  /// is inside the view.
  Value getAddress(unsigned reg);
  SmallVector<Value> getInBounds(unsigned reg, unsigned count);
  /// Whether all `count` elements from register `reg` lie in bounds: two
  /// compares along the contiguous dimension (the group's first and last
  /// element), not one per element, so that the per-element predicates
  /// are only computed where a group needs them (its scalar fallback).
  Value getGroupInBounds(unsigned reg, unsigned count);

private:
  /// `acc` (null: true) and whether coordinate `at` of tile dimension `d`
  /// (plus this thread's index) lies inside the view.
  Value andInside(Value acc, unsigned d, int64_t at);

  OpBuilder &b;
  Location loc;
  LinearLayout layout;
  ThreadIds ids;
  Type elemType;
  unsigned elemBytes;
  unsigned lead;
  std::optional<unsigned> contigDim;
  unsigned vec = 1;
  Value base;
  SmallVector<Value> sizes, strides, threadIndex;
  Value leadOffset, leadInBounds;
};

} // namespace

GlobalAccess::GlobalAccess(OpBuilder &b, Location loc, Value view,
                           ViewType viewType, ValueRange offsets,
                           RankedTensorType tileType)
    : b(b), loc(loc), layout(getLinearLayout(tileType)),
      ids(mlir::tilec::getThreadIds(b, loc)),
      elemType(getStorageType(tileType.getElementType())),
      elemBytes(getStorageBytes(tileType.getElementType())) {
  unsigned rank = viewType.getRank();
  lead = rank - tileType.getRank();
  base = unpackView(b, loc, view, rank, sizes, strides);

  // Vector groups: the leading register bases must walk the contiguous
  // dimension one element at a time. Booleans are never vectorized (LLVM
  // packs i1 vectors into bits).
  if (std::optional<unsigned> cd = viewType.getContiguousDim();
      cd && *cd >= lead && !tileType.getElementType().isInteger(1)) {
    contigDim = *cd - lead;
    ArrayRef<LinearLayout::Basis> regs =
        layout.getBases(LinearLayout::In::Register);
    unsigned k = 0;
    while (k < regs.size()) {
      LinearLayout::Basis unit(layout.getRank(), 0);
      unit[*contigDim] = int64_t(1) << k;
      if (regs[k] != unit)
        break;
      ++k;
    }
    vec = std::min<unsigned>(1u << k, std::max(1u, 16 / elemBytes));
  }

  // Leading view dimensions are indexed by their offset alone.
  std::tie(leadOffset, leadInBounds) =
      getIndexedOffset(b, loc, offsets.take_front(lead), sizes, strides);
  SmallVector<Value> threadCoord = emitThreadCoord(b, loc, layout, ids);
  for (unsigned d = 0; d < tileType.getRank(); ++d)
    threadIndex.push_back(addNsw(b, loc, offsets[lead + d], threadCoord[d]));
}

/// Index of dimension `d` of register `reg`: the thread's index plus the
/// register's compile-time offset.
static Value addConst(OpBuilder &b, Location loc, Value v, int64_t c) {
  if (c == 0)
    return v;
  return addNsw(b, loc, v, i32Val(b, loc, c));
}

Value GlobalAccess::getAddress(unsigned reg) {
  LinearLayout::Basis c = layout.getRegCoord(reg);
  Type i64 = b.getI64Type();
  Value offset = leadOffset;
  for (unsigned d = 0; d < c.size(); ++d)
    offset = addNsw(
        b, loc, offset,
        mulNsw(b, loc, extIndex(b, loc, addConst(b, loc, threadIndex[d], c[d])),
               extIndex(b, loc, strides[lead + d])));
  return gepElems(b, loc, base, elemType, offset);
}

Value GlobalAccess::andInside(Value acc, unsigned d, int64_t at) {
  Value inb = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                    addConst(b, loc, threadIndex[d], at),
                                    sizes[lead + d]);
  return acc ? arith::AndIOp::create(b, loc, acc, inb).getResult() : inb;
}

SmallVector<Value> GlobalAccess::getInBounds(unsigned reg, unsigned count) {
  LinearLayout::Basis c = layout.getRegCoord(reg);
  Value common = leadInBounds;
  for (unsigned d = 0; d < c.size(); ++d)
    if (!contigDim || d != *contigDim || count == 1)
      common = andInside(common, d, c[d]);
  SmallVector<Value> result;
  for (unsigned j = 0; j < count; ++j) {
    Value inb = common;
    if (contigDim && count > 1)
      inb = andInside(inb, *contigDim, c[*contigDim] + j);
    result.push_back(inb ? inb : arith::ConstantIntOp::create(b, loc, 1, 1));
  }
  return result;
}

Value GlobalAccess::getGroupInBounds(unsigned reg, unsigned count) {
  if (!contigDim || count == 1)
    return getInBounds(reg, count).front();
  LinearLayout::Basis c = layout.getRegCoord(reg);
  Value common = leadInBounds;
  for (unsigned d = 0; d < c.size(); ++d) {
    common = andInside(common, d, c[d]);
    if (d == *contigDim)
      common = andInside(common, d, c[d] + count - 1);
  }
  return common;
}

/// AND of all values (true when empty).
static Value andAll(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value acc;
  for (Value v : values)
    if (v)
      acc = acc ? arith::AndIOp::create(b, loc, acc, v).getResult() : v;
  return acc ? acc : arith::ConstantIntOp::create(b, loc, 1, 1).getResult();
}

/// True when `ptr` is aligned to `bytes`.
static Value isAligned(OpBuilder &b, Location loc, Value ptr, unsigned bytes) {
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
  Value low = arith::AndIOp::create(b, loc, addr, i64Val(b, loc, bytes - 1));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                               i64Val(b, loc, 0));
}

static Value getPaddingValue(OpBuilder &b, Location loc, Type type,
                             Padding padding) {
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    APFloat v = APFloat::getZero(sem);
    if (padding == Padding::NegInf)
      v = APFloat::getInf(sem, /*Negative=*/true);
    else if (padding == Padding::PosInf)
      v = APFloat::getInf(sem);
    else if (padding == Padding::NaN)
      v = APFloat::getQNaN(sem);
    return arith::ConstantFloatOp::create(b, loc, ft, v);
  }
  return arith::ConstantIntOp::create(b, loc, type, 0);
}

namespace {

/// tile.load -> per vector group: a vector load when the group is in bounds
/// and aligned, predicated scalar loads with padding otherwise.
struct LoadOpLowering : public OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tileType = cast<RankedTensorType>(op.getType());
    if (!getDistributedLayout(tileType))
      return rewriter.notifyMatchFailure(op, "tile has no layout");
    GlobalAccess access(rewriter, loc, adaptor.getView(),
                        op.getView().getType(), adaptor.getOffsets(),
                        tileType);
    Type elemType = access.getElemType();
    SmallVector<Value> mask;
    if (adaptor.getMask())
      mask = unpackVector(rewriter, loc, adaptor.getMask());
    Value pad = getPaddingValue(rewriter, loc, elemType, op.getPadding());
    unsigned vec = access.getVectorWidth();
    unsigned align = access.getElemBytes();

    // Loads one element if `pred`, else yields the padding value.
    auto loadScalar = [&](Value pred, Value ptr) -> Value {
      auto ifOp = scf::IfOp::create(
          rewriter, loc, pred,
          [&](OpBuilder &b, Location l) {
            Value v = LLVM::LoadOp::create(b, l, elemType, ptr, align);
            scf::YieldOp::create(b, l, v);
          },
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, pad); });
      return ifOp.getResult(0);
    };

    // The element predicates of the group at `reg`: in bounds and unmasked.
    auto getPredicates = [&](unsigned reg) {
      SmallVector<Value> inb = access.getInBounds(reg, vec);
      SmallVector<Value> preds;
      for (unsigned j = 0; j < vec; ++j)
        preds.push_back(mask.empty()
                            ? inb[j]
                            : arith::AndIOp::create(rewriter, loc, inb[j],
                                                    mask[reg + j])
                                  .getResult());
      return preds;
    };

    SmallVector<Value> elems;
    for (unsigned reg = 0; reg < access.getNumRegs(); reg += vec) {
      Value ptr = access.getAddress(reg);
      if (vec == 1) {
        elems.push_back(loadScalar(getPredicates(reg)[0], ptr));
        continue;
      }
      auto vecType = VectorType::get({vec}, elemType);
      unsigned vecBytes = vec * access.getElemBytes();
      SmallVector<Value> conds = {access.getGroupInBounds(reg, vec),
                                  isAligned(rewriter, loc, ptr, vecBytes)};
      if (!mask.empty())
        llvm::append_range(conds, ArrayRef(mask).slice(reg, vec));
      Value fast = andAll(rewriter, loc, conds);
      auto ifOp = scf::IfOp::create(
          rewriter, loc, fast,
          [&](OpBuilder &b, Location l) {
            Value v = LLVM::LoadOp::create(b, l, vecType, ptr, vecBytes);
            scf::YieldOp::create(b, l, v);
          },
          [&](OpBuilder &b, Location l) {
            // `b` is the rewriter, inside this block: the predicates are
            // computed on this path only.
            SmallVector<Value> preds = getPredicates(reg);
            SmallVector<Value> parts;
            for (unsigned j = 0; j < vec; ++j) {
              Value pj = gepElems(b, l, ptr, elemType, i32Val(b, l, j));
              parts.push_back(loadScalar(preds[j], pj));
            }
            scf::YieldOp::create(b, l, packVector(b, l, vecType, parts));
          });
      llvm::append_range(elems,
                         unpackVector(rewriter, loc, ifOp.getResult(0)));
    }
    Type resultType = getTypeConverter()->convertType(tileType);
    rewriter.replaceOp(op, packVector(rewriter, loc, resultType, elems));
    return success();
  }
};

/// The registers of a tile write's value and mask (none without a mask);
/// returns whether this thread writes its elements (threads holding copies
/// of an element leave the write to one of them).
static Value unpackWrite(OpBuilder &b, Location loc, const GlobalAccess &access,
                         Value value, Value mask,
                         SmallVectorImpl<Value> &values,
                         SmallVectorImpl<Value> &maskValues) {
  values = unpackVector(b, loc, value);
  if (mask)
    maskValues = unpackVector(b, loc, mask);
  return emitIsCanonicalThread(b, loc, access.getLayout(),
                               access.getThreadIds());
}

/// The predicates of the `vec` elements of the write's vector group at
/// register `reg`: in bounds, unmasked, and this thread's to write.
static SmallVector<Value> getWritePredicates(OpBuilder &b, Location loc,
                                             GlobalAccess &access, unsigned reg,
                                             unsigned vec, ArrayRef<Value> mask,
                                             Value canonical) {
  SmallVector<Value> inb = access.getInBounds(reg, vec);
  SmallVector<Value> preds;
  for (unsigned j = 0; j < vec; ++j)
    preds.push_back(andAll(
        b, loc, {inb[j], mask.empty() ? Value() : mask[reg + j], canonical}));
  return preds;
}

/// tile.store -> per vector group: a vector store when the group is in
/// bounds and aligned, predicated scalar stores otherwise. Threads holding
/// copies of an element leave the store to one of them.
struct StoreOpLowering : public OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tileType = cast<RankedTensorType>(op.getValue().getType());
    if (!getDistributedLayout(tileType))
      return rewriter.notifyMatchFailure(op, "tile has no layout");
    GlobalAccess access(rewriter, loc, adaptor.getView(),
                        op.getView().getType(), adaptor.getOffsets(),
                        tileType);
    Type elemType = access.getElemType();
    SmallVector<Value> values, mask;
    Value canonical = unpackWrite(rewriter, loc, access, adaptor.getValue(),
                                  adaptor.getMask(), values, mask);
    unsigned vec = access.getVectorWidth();
    unsigned align = access.getElemBytes();

    auto storeScalar = [&](OpBuilder &b, Location l, Value pred, Value v,
                           Value ptr) {
      scf::IfOp::create(b, l, pred, [&](OpBuilder &bb, Location ll) {
        LLVM::StoreOp::create(bb, ll, v, ptr, align);
        scf::YieldOp::create(bb, ll);
      });
    };

    for (unsigned reg = 0; reg < access.getNumRegs(); reg += vec) {
      Value ptr = access.getAddress(reg);
      if (vec == 1) {
        SmallVector<Value> preds = getWritePredicates(
            rewriter, loc, access, reg, vec, mask, canonical);
        storeScalar(rewriter, loc, preds[0], values[reg], ptr);
        continue;
      }
      auto vecType = VectorType::get({vec}, elemType);
      unsigned vecBytes = vec * access.getElemBytes();
      Value group = packVector(rewriter, loc, vecType,
                               ArrayRef(values).slice(reg, vec));
      SmallVector<Value> conds = {access.getGroupInBounds(reg, vec),
                                  isAligned(rewriter, loc, ptr, vecBytes),
                                  canonical};
      if (!mask.empty())
        llvm::append_range(conds, ArrayRef(mask).slice(reg, vec));
      Value fast = andAll(rewriter, loc, conds);
      scf::IfOp::create(
          rewriter, loc, fast,
          [&](OpBuilder &b, Location l) {
            LLVM::StoreOp::create(b, l, group, ptr, vecBytes);
            scf::YieldOp::create(b, l);
          },
          [&](OpBuilder &b, Location l) {
            // Computed on this path only (`b` is the rewriter, here).
            SmallVector<Value> preds = getWritePredicates(
                rewriter, loc, access, reg, vec, mask, canonical);
            for (unsigned j = 0; j < vec; ++j) {
              Value pj = gepElems(b, l, ptr, elemType, i32Val(b, l, j));
              storeScalar(b, l, preds[j], values[reg + j], pj);
            }
            scf::YieldOp::create(b, l);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.atomic_add -> per element, under its bounds, mask and canonical-
/// thread predicate, a relaxed device-scope atomic add whose result is
/// unused (ptxas makes it red.global.add.f32). The value keeps its layout
/// (an accumulator fragment as it is): the adds are per element whatever
/// the layout, so converting it first would only cost a round trip through
/// shared memory.
struct AtomicAddOpLowering : public OpConversionPattern<AtomicAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AtomicAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tileType = cast<RankedTensorType>(op.getValue().getType());
    if (!getDistributedLayout(tileType))
      return rewriter.notifyMatchFailure(op, "tile has no layout");
    GlobalAccess access(rewriter, loc, adaptor.getView(),
                        op.getView().getType(), adaptor.getOffsets(), tileType);
    Type elemType = access.getElemType();
    SmallVector<Value> values, mask;
    Value canonical = unpackWrite(rewriter, loc, access, adaptor.getValue(),
                                  adaptor.getMask(), values, mask);
    unsigned vec = access.getVectorWidth();
    for (unsigned reg = 0; reg < access.getNumRegs(); reg += vec) {
      Value ptr = access.getAddress(reg);
      SmallVector<Value> preds =
          getWritePredicates(rewriter, loc, access, reg, vec, mask, canonical);
      for (unsigned j = 0; j < vec; ++j) {
        Value pj = j == 0 ? ptr
                          : gepElems(rewriter, loc, ptr, elemType,
                                     i32Val(rewriter, loc, j));
        Value v = values[reg + j];
        scf::IfOp::create(
            rewriter, loc, preds[j], [&](OpBuilder &b, Location l) {
              LLVM::AtomicRMWOp::create(b, l, LLVM::AtomicBinOp::fadd, pj, v,
                                        LLVM::AtomicOrdering::monotonic,
                                        /*syncscope=*/"device",
                                        /*alignment=*/4);
              scf::YieldOp::create(b, l);
            });
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.load_scalar -> one load of invariant memory (ld.global.nc) when
/// every index is inside the view, else zero.
struct LoadScalarOpLowering : public OpConversionPattern<LoadScalarOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadScalarOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elemType = getTypeConverter()->convertType(op.getType());
    SmallVector<Value> sizes, strides;
    Value base = unpackView(rewriter, loc, adaptor.getView(),
                            op.getView().getType().getRank(), sizes, strides);
    auto [offset, inBounds] =
        getIndexedOffset(rewriter, loc, adaptor.getIndices(), sizes, strides);
    Value ptr = gepElems(rewriter, loc, base, elemType, offset);
    Value zero = getPaddingValue(rewriter, loc, elemType, Padding::Zero);
    unsigned align = getStorageBytes(op.getType());
    auto ifOp = scf::IfOp::create(
        rewriter, loc, inBounds,
        [&](OpBuilder &b, Location l) {
          Value v = LLVM::LoadOp::create(b, l, elemType, ptr, align,
                                         /*isVolatile=*/false,
                                         /*isNonTemporal=*/false,
                                         /*isInvariant=*/true);
          scf::YieldOp::create(b, l, v);
        },
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, zero); });
    rewriter.replaceOp(op, ifOp.getResult(0));
    return success();
  }
};

} // namespace

void mlir::tilec::populateLoadStoreOpToLLVMPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<LoadOpLowering,       // tile.load
               LoadScalarOpLowering, // tile.load_scalar
               StoreOpLowering,      // tile.store
               AtomicAddOpLowering   // tile.atomic_add
               >(converter, patterns.getContext());
}
