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
// What the program proves at compile time is not checked at run time (as
// Triton's axis analysis does): a base pointer with `tile.align`, strides and
// offsets known to be multiples of the group drop the alignment check; a
// contiguous extent known to be a multiple of the group makes every group
// wholly inside or wholly outside the view. With both and no mask, a group is
// one predicated vector access and there is no scalar fallback.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

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
               ValueRange offsets, RankedTensorType tileType, GroupFacts facts);

  /// Number of registers per vector group.
  unsigned getVectorWidth() const { return vec; }
  unsigned getNumRegs() const { return layout.getNumRegs(); }
  Type getElemType() const { return elemType; }
  unsigned getElemBytes() const { return elemBytes; }
  const GroupFacts &getFacts() const { return facts; }
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
  GroupFacts facts;
  Value base;
  SmallVector<Value> sizes, strides, threadIndex;
  Value leadOffset, leadInBounds;
};

} // namespace

/// The vector groups of `layout` through a view of type `viewType`: the
/// tile dimension along the view's contiguous one, and the number of
/// registers per group (1: none). The leading register bases must walk the
/// contiguous dimension one element at a time. Booleans are never
/// vectorized (LLVM packs i1 vectors into bits).
static std::pair<std::optional<unsigned>, unsigned>
getVectorGroups(ViewType viewType, RankedTensorType tileType,
                const LinearLayout &layout) {
  unsigned lead = viewType.getRank() - tileType.getRank();
  std::optional<unsigned> cd = viewType.getContiguousDim();
  if (!cd || *cd < lead || tileType.getElementType().isInteger(1))
    return {std::nullopt, 1};
  unsigned contig = *cd - lead;
  ArrayRef<LinearLayout::Basis> regs =
      layout.getBases(LinearLayout::In::Register);
  unsigned k = 0;
  while (k < regs.size()) {
    LinearLayout::Basis unit(layout.getRank(), 0);
    unit[contig] = int64_t(1) << k;
    if (regs[k] != unit)
      break;
    ++k;
  }
  unsigned elemBytes = getStorageBytes(tileType.getElementType());
  return {contig, std::min<unsigned>(1u << k, std::max(1u, 16 / elemBytes))};
}

/// The facts of the vector groups of a tile of `tileType` accessed through
/// `view` at `offsets`.
static GroupFacts getGroupFacts(Value view, ValueRange offsets,
                                RankedTensorType tileType) {
  auto make = view.getDefiningOp<MakeViewOp>();
  if (!make || !getDistributedLayout(tileType))
    return {};
  LinearLayout layout = getLinearLayout(tileType);
  auto [contig, vec] = getVectorGroups(make.getType(), tileType, layout);
  if (vec == 1)
    return {};
  // Every group starts at a multiple of `vec`: the bases other than the
  // group's own registers move along the contiguous dimension in whole
  // groups, and so does the tile's offset.
  unsigned groupBits = llvm::Log2_32(vec);
  for (auto in : {LinearLayout::In::Register, LinearLayout::In::Lane,
                  LinearLayout::In::Warp})
    for (auto [i, basis] : llvm::enumerate(layout.getBases(in)))
      if (!(in == LinearLayout::In::Register && i < groupBits) &&
          basis[*contig] % vec != 0)
        return {};
  unsigned cd = make.getType().getRank() - tileType.getRank() + *contig;
  if (getDivisibility(offsets[cd]) % vec != 0)
    return {};
  unsigned elemBytes = getStorageBytes(tileType.getElementType());
  GroupFacts facts;
  facts.whole = getDivisibility(make.getMixedSize(cd)) % vec == 0;
  facts.aligned =
      getPointerAlignment(make.getBase(), elemBytes) % (vec * elemBytes) == 0;
  for (unsigned d = 0, e = offsets.size(); d < e && facts.aligned; ++d)
    facts.aligned =
        d == cd || getDivisibility(make.getMixedStride(d)) % vec == 0;
  return facts;
}

GroupFactsMap mlir::tilec::analyzeGroupFacts(Operation *root) {
  GroupFactsMap map;
  root->walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op))
      map[op] =
          getGroupFacts(load.getView(), load.getOffsets(), load.getType());
    else if (auto store = dyn_cast<StoreOp>(op))
      map[op] = getGroupFacts(store.getView(), store.getOffsets(),
                              store.getValue().getType());
    else if (auto add = dyn_cast<AtomicAddOp>(op))
      map[op] = getGroupFacts(add.getView(), add.getOffsets(),
                              add.getValue().getType());
  });
  return map;
}

GlobalAccess::GlobalAccess(OpBuilder &b, Location loc, Value view,
                           ViewType viewType, ValueRange offsets,
                           RankedTensorType tileType, GroupFacts facts)
    : b(b), loc(loc), layout(getLinearLayout(tileType)),
      ids(mlir::tilec::getThreadIds(b, loc)),
      elemType(getStorageType(tileType.getElementType())),
      elemBytes(getStorageBytes(tileType.getElementType())), facts(facts) {
  unsigned rank = viewType.getRank();
  lead = rank - tileType.getRank();
  base = unpackView(b, loc, view, rank, sizes, strides);

  std::tie(contigDim, vec) = getVectorGroups(viewType, tileType, layout);

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
    if (d == *contigDim && !(facts.whole && count == vec))
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

/// The lowering of a global tile access, given the facts of every access.
template <typename Op>
struct GlobalAccessLowering : public OpConversionPattern<Op> {
  GlobalAccessLowering(TileTypeConverter &converter, MLIRContext *ctx,
                       const GroupFactsMap &facts)
      : OpConversionPattern<Op>(converter, ctx), facts(facts) {}

protected:
  const GroupFactsMap &facts;
};

/// tile.load -> per vector group: a vector load when the group is in bounds
/// and aligned, predicated scalar loads with padding otherwise.
struct LoadOpLowering : public GlobalAccessLowering<LoadOp> {
  using GlobalAccessLowering::GlobalAccessLowering;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tileType = cast<RankedTensorType>(op.getType());
    if (!getDistributedLayout(tileType))
      return rewriter.notifyMatchFailure(op, "tile has no layout");
    GlobalAccess access(rewriter, loc, adaptor.getView(),
                        op.getView().getType(), adaptor.getOffsets(), tileType,
                        facts.lookup(op));
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
      const GroupFacts &facts = access.getFacts();
      SmallVector<Value> conds = {access.getGroupInBounds(reg, vec)};
      if (!facts.aligned)
        conds.push_back(isAligned(rewriter, loc, ptr, vecBytes));
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
            // A group wholly outside the view, at an aligned address and
            // unmasked, is all padding.
            if (facts.aligned && facts.whole && mask.empty()) {
              SmallVector<Value> parts(vec, pad);
              scf::YieldOp::create(b, l, packVector(b, l, vecType, parts));
              return;
            }
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
struct StoreOpLowering : public GlobalAccessLowering<StoreOp> {
  using GlobalAccessLowering::GlobalAccessLowering;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tileType = cast<RankedTensorType>(op.getValue().getType());
    if (!getDistributedLayout(tileType))
      return rewriter.notifyMatchFailure(op, "tile has no layout");
    GlobalAccess access(rewriter, loc, adaptor.getView(),
                        op.getView().getType(), adaptor.getOffsets(), tileType,
                        facts.lookup(op));
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
      const GroupFacts &facts = access.getFacts();
      SmallVector<Value> conds = {access.getGroupInBounds(reg, vec), canonical};
      if (!facts.aligned)
        conds.push_back(isAligned(rewriter, loc, ptr, vecBytes));
      if (!mask.empty())
        llvm::append_range(conds, ArrayRef(mask).slice(reg, vec));
      Value fast = andAll(rewriter, loc, conds);
      // A group wholly outside the view, at an aligned address and
      // unmasked, has nothing to write.
      if (facts.aligned && facts.whole && mask.empty()) {
        scf::IfOp::create(rewriter, loc, fast, [&](OpBuilder &b, Location l) {
          LLVM::StoreOp::create(b, l, group, ptr, vecBytes);
          scf::YieldOp::create(b, l);
        });
        continue;
      }
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
struct AtomicAddOpLowering : public GlobalAccessLowering<AtomicAddOp> {
  using GlobalAccessLowering::GlobalAccessLowering;
  LogicalResult
  matchAndRewrite(AtomicAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tileType = cast<RankedTensorType>(op.getValue().getType());
    if (!getDistributedLayout(tileType))
      return rewriter.notifyMatchFailure(op, "tile has no layout");
    GlobalAccess access(rewriter, loc, adaptor.getView(),
                        op.getView().getType(), adaptor.getOffsets(), tileType,
                        facts.lookup(op));
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

/// tile.views_overlap -> the byte ranges of both views, compared: each
/// spans from its base plus the negative parts of (size - 1) * stride to its
/// base plus the positive parts, one element more; an empty view (a size
/// of zero or less) spans nothing.
struct ViewsOverlapOpLowering : public OpConversionPattern<ViewsOverlapOp> {
  using OpConversionPattern::OpConversionPattern;

  /// [first byte, last byte + 1) of a view, and whether it is empty.
  static std::tuple<Value, Value, Value> getSpan(OpBuilder &b, Location loc,
                                                 Value view, ViewType type) {
    SmallVector<Value> sizes, strides;
    Value base = unpackView(b, loc, view, type.getRank(), sizes, strides);
    Value zero = i64Val(b, loc, 0), one = i32Val(b, loc, 1);
    Value lo = zero, hi = zero, empty;
    for (auto [size, stride] : llvm::zip(sizes, strides)) {
      Value last = extIndex(b, loc, arith::SubIOp::create(b, loc, size, one));
      Value step = extIndex(b, loc, stride);
      Value extent = mulNsw(b, loc, last, step);
      Value down = arith::MinSIOp::create(b, loc, extent, zero);
      Value up = arith::MaxSIOp::create(b, loc, extent, zero);
      lo = addNsw(b, loc, lo, down);
      hi = addNsw(b, loc, hi, up);
      Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                         size, i32Val(b, loc, 0));
      empty = empty ? arith::OrIOp::create(b, loc, empty, none) : none;
    }
    Value bytes = i64Val(b, loc, getStorageBytes(type.getElementType()));
    Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), base);
    Value loBytes = arith::MulIOp::create(b, loc, lo, bytes);
    Value first = arith::AddIOp::create(b, loc, addr, loBytes);
    Value past = addNsw(b, loc, hi, i64Val(b, loc, 1));
    Value pastBytes = arith::MulIOp::create(b, loc, past, bytes);
    Value end = arith::AddIOp::create(b, loc, addr, pastBytes);
    if (!empty)
      empty = arith::ConstantIntOp::create(b, loc, 0, 1);
    return {first, end, empty};
  }

  LogicalResult
  matchAndRewrite(ViewsOverlapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [lhsFirst, lhsEnd, lhsEmpty] =
        getSpan(rewriter, loc, adaptor.getLhs(), op.getLhs().getType());
    auto [rhsFirst, rhsEnd, rhsEmpty] =
        getSpan(rewriter, loc, adaptor.getRhs(), op.getRhs().getType());
    auto ult = [&](Value a, Value b) {
      return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, a,
                                   b);
    };
    // Separate statements: the IR's order must not depend on the order a
    // compiler evaluates arguments in.
    Value lhsBelow = ult(lhsFirst, rhsEnd);
    Value rhsBelow = ult(rhsFirst, lhsEnd);
    Value meet = arith::AndIOp::create(rewriter, loc, lhsBelow, rhsBelow);
    Value anyEmpty = arith::OrIOp::create(rewriter, loc, lhsEmpty, rhsEmpty);
    Value nonEmpty = arith::XOrIOp::create(
        rewriter, loc, anyEmpty,
        arith::ConstantIntOp::create(rewriter, loc, 1, 1));
    rewriter.replaceOp(op,
                       arith::AndIOp::create(rewriter, loc, meet, nonEmpty));
    return success();
  }
};

} // namespace

void mlir::tilec::populateLoadStoreOpToLLVMPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns,
    const GroupFactsMap &facts) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<LoadOpLowering,     // tile.load
               StoreOpLowering,    // tile.store
               AtomicAddOpLowering // tile.atomic_add
               >(converter, ctx, facts);
  patterns.add<LoadScalarOpLowering,  // tile.load_scalar
               ViewsOverlapOpLowering // tile.views_overlap
               >(converter, ctx);
}
