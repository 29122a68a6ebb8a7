//===- AssignLayouts.cpp - Attach layout encodings to tiles ---------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-assign-layouts. It works in three steps:
//
//  1. Anchors: global loads get coalesced blocked layouts, tile.dot results
//     mma.sync accumulator layouts (the chip decides which dots qualify).
//  2. Propagation: a worklist spreads layouts forward (operands -> results)
//     and backward (a use's requirement -> its operand), first assignment
//     wins. Values nothing reaches get a default blocked layout.
//  3. Materialization: types are rewritten in program order; where an
//     operand's layout differs from what its user requires, a
//     tile.convert_layout is inserted (cheap producers such as splats and
//     constants are cloned in the required layout instead).
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/LayoutHeuristics.h"
#include "tilec/Analysis/Resources.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Pipeline.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <deque>

#define DEBUG_TYPE "tile-assign-layouts"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

namespace {
/// Drives the three steps for one kernel.
class LayoutAssignment {
public:
  LayoutAssignment(KernelOp kernel, const TargetInfo &target)
      : kernel(kernel), target(target), ctx(kernel.getContext()),
        numWarps(kernel.getNumWarps()) {}

  LogicalResult run();
  unsigned getNumConversions() const { return numConversions; }

private:
  // Step 1.
  LogicalResult seedAnchors();
  FailureOr<Attribute> chooseDotLayout(DotOp dot);
  // Step 2.
  void assign(Value v, Attribute layout);
  Attribute get(Value v) const { return layouts.lookup(v); }
  void visit(Operation *op);
  void propagate();
  // Step 3.
  void materialize(Operation *op);
  Value convertTo(Value v, Attribute layout, Operation *user);
  void sinkConversions();

  /// The layout `op` requires of operand `idx` given the layouts of its
  /// results (null: no requirement).
  Attribute getRequiredLayout(Operation *op, unsigned idx);
  Attribute getStoreLayout(StoreOp store);
  Attribute getAtomicAddLayout(AtomicAddOp add);
  /// The coalesced layout of a tile written to `view`.
  Attribute getCoalescedWriteLayout(RankedTensorType type, ViewType view);
  Attribute getDefaultLayout(RankedTensorType type);

  KernelOp kernel;
  const TargetInfo &target;
  MLIRContext *ctx;
  unsigned numWarps;
  DenseMap<Value, Attribute> layouts;
  DenseMap<Operation *, Attribute> dotLayouts;
  /// Operand layouts (A, B) of dots that do not take the mma.sync
  /// fragments of their accumulator: wgmma's shared (or RS) operands, FMA's
  /// blocked ones.
  DenseMap<Operation *, std::pair<Attribute, Attribute>> ownOperandLayouts;
  std::deque<Operation *> worklist;
  /// Values computed from a tile.dot result: elementwise ops wait for their
  /// (accumulator) layouts before choosing.
  DenseSet<Value> dotDependent;
  unsigned numConversions = 0;
};
} // namespace

static bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

static RankedTensorType withEncoding(Type type, Attribute layout) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape(), t.getElementType(), layout);
}

/// Elementwise ops of any dialect (arith, math) applied to tiles.
static bool isElementwiseOnTiles(Operation *op) {
  return isElementwiseOp(op) && llvm::any_of(op->getResults(), isTensor);
}

/// Ops whose tile results are cheaper to recreate in another layout than to
/// convert.
static bool isCheapProducer(Operation *op) {
  if (!op)
    return false;
  if (isa<SplatOp, RangeOp>(op))
    return true;
  return isa<arith::ConstantOp>(op) && isTensor(op->getResult(0));
}

static unsigned getBitWidth(Type t) {
  if (t.isIntOrFloat())
    return std::max(8u, t.getIntOrFloatBitWidth());
  return 32;
}

//===----------------------------------------------------------------------===//
// Step 1: anchors
//===----------------------------------------------------------------------===//

/// The tile dimension that is contiguous in memory for an access of `tile`
/// through `view` (the tile covers the trailing view dimensions), defaulting
/// to the last one.
static unsigned getContiguousTileDim(ViewType view, RankedTensorType tile) {
  unsigned lead = view.getRank() - tile.getRank();
  if (std::optional<unsigned> cd = view.getContiguousDim(); cd && *cd >= lead)
    return *cd - lead;
  return tile.getRank() - 1;
}

Attribute LayoutAssignment::getDefaultLayout(RankedTensorType type) {
  return getCoalescedLayout(ctx, type.getShape(), type.getRank() - 1,
                            getBitWidth(type.getElementType()), numWarps);
}

Attribute LayoutAssignment::getStoreLayout(StoreOp store) {
  auto type = cast<RankedTensorType>(store.getValue().getType());
  // An accumulator fragment of 32-bit elements is stored as it is: the
  // four lanes of a row write one full 32-byte sector per instruction, so
  // a round trip through shared memory would not pay off.
  if (auto mma = dyn_cast_or_null<MmaEncodingAttr>(get(store.getValue()));
      mma && getBitWidth(type.getElementType()) >= 32 &&
      getContiguousTileDim(store.getView().getType(), type) == 1)
    return mma;
  return getCoalescedWriteLayout(type, store.getView().getType());
}

Attribute LayoutAssignment::getAtomicAddLayout(AtomicAddOp add) {
  // Atomic adds are per element in any layout: the value is added as it is
  // computed (an accumulator fragment as it is), with no round trip through
  // shared memory.
  if (Attribute own = get(add.getValue()))
    return own;
  return getCoalescedWriteLayout(
      cast<RankedTensorType>(add.getValue().getType()),
      add.getView().getType());
}

Attribute LayoutAssignment::getCoalescedWriteLayout(RankedTensorType type,
                                                    ViewType view) {
  return getCoalescedLayout(ctx, type.getShape(),
                            getContiguousTileDim(view, type),
                            getBitWidth(type.getElementType()), numWarps);
}

/// Walks the values computed from `roots` (adding them to `seen`), through
/// scf.yield into what its parent defines with the yielded value: branch
/// and loop results and the next iteration's iter_args. Stops, returning
/// true, when `stopAt` holds for a user.
static bool walkForward(ArrayRef<Value> roots, DenseSet<Value> &seen,
                        function_ref<bool(Operation *)> stopAt) {
  SmallVector<Value> worklist(roots);
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (stopAt(user))
        return true;
      if (isa<scf::YieldOp>(user)) {
        Operation *parent = user->getParentOp();
        unsigned idx = use.getOperandNumber();
        if (idx < parent->getNumResults())
          worklist.push_back(parent->getResult(idx));
        if (auto forOp = dyn_cast<scf::ForOp>(parent))
          worklist.push_back(forOp.getRegionIterArgs()[idx]);
        continue;
      }
      llvm::append_range(worklist, user->getResults());
    }
  }
  return false;
}

/// True when a value computed from `op`'s result reaches another tile.dot.
static bool feedsAnotherDot(DotOp op) {
  DenseSet<Value> seen;
  return walkForward(op.getResult(), seen, [&](Operation *user) {
    return isa<DotOp>(user) && user != op.getOperation();
  });
}

/// True when the A operand of `op` is computed from another tile.dot (in
/// the same iteration: loop-carried values are not followed; branch results
/// are, through their yields). A transposed tile is not followed: it reaches
/// its dot through shared memory whatever the warps of the two dots (e.g.
/// dS = (dSᵀ)ᵀ of an attention backward's dQ product).
static bool fedByAnotherDot(DotOp op) {
  SmallVector<Value> worklist{op.getA()};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def)
      continue;
    if (isa<DotOp>(def))
      return true;
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      unsigned idx = cast<OpResult>(v).getResultNumber();
      for (Region *r : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!r->empty())
          worklist.push_back(
              cast<scf::YieldOp>(r->front().getTerminator()).getOperand(idx));
    }
    if (isa<scf::ForOp, TransOp>(def))
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// The tile dimension of `operand` that is contiguous in global memory when
/// it comes straight from a tile.load, else `fallback`.
static unsigned getOperandContiguity(Value operand, unsigned fallback) {
  if (auto load = operand.getDefiningOp<LoadOp>())
    return getContiguousTileDim(load.getView().getType(),
                                cast<RankedTensorType>(load.getType()));
  return fallback;
}

/// The swizzled shared layout wgmma reads an operand tile of
/// `elemBytes`-byte elements in, contiguous along `contig` with
/// `contigBytes` bytes a row: the 128-byte swizzle, or the 64-byte one where
/// rows are an odd multiple of 64 bytes (a K-major operand with K = 64 fp8
/// or 32 bf16 elements; getWgmmaKind admits no other).
static SharedEncodingAttr getWgmmaSharedLayout(MLIRContext *ctx,
                                               unsigned contig,
                                               unsigned elemBytes,
                                               int64_t contigBytes) {
  return SharedEncodingAttr::getHardwareSwizzled(
      ctx, elemBytes, /*swizzleBytes=*/contigBytes % 128 == 0 ? 128 : 64,
      contig);
}

/// The wgmma shared layout of a dot operand `v` loaded from global memory
/// (contiguous along its columns unless its load says otherwise).
static SharedEncodingAttr getLoadedOperandLayout(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  unsigned contig = getOperandContiguity(v, 1);
  unsigned elemBytes = getBitWidth(type.getElementType()) / 8;
  return getWgmmaSharedLayout(v.getContext(), contig, elemBytes,
                              type.getDimSize(contig) * elemBytes);
}

/// The wgmma shared layout of an operand tile `v` staged from registers
/// (K along `kDim`): the contiguity of its load where wgmma takes it (any
/// for 16-bit types, K-major for the others), else K-major, whose rows must
/// be whole 64- or 128-byte swizzle spans; null where neither order fits.
static SharedEncodingAttr getStagedOperandLayout(Value v, unsigned kDim,
                                                 bool kMajorOnly) {
  auto type = cast<RankedTensorType>(v.getType());
  unsigned elemBytes = getBitWidth(type.getElementType()) / 8;
  unsigned contig = kMajorOnly ? kDim : getOperandContiguity(v, 1 - kDim);
  int64_t kBytes = type.getDimSize(kDim) * elemBytes;
  int64_t mnBytes = type.getDimSize(1 - kDim) * elemBytes;
  // An M/N-major operand takes the 128-byte swizzle alone.
  if (contig != kDim && mnBytes % 128 == 0)
    return getWgmmaSharedLayout(v.getContext(), contig, elemBytes, mnBytes);
  if (kBytes % 64 == 0)
    return getWgmmaSharedLayout(v.getContext(), kDim, elemBytes, kBytes);
  return {};
}

/// How `dot` runs on wgmma, if it can: M = 64 rows per warpgroup, B in
/// 128-byte swizzled shared memory (already there, or loaded from global
/// memory), A either there too (SS) or in registers (RS: an A computed by
/// the program, in the mma.sync A fragment of each warp's 16 rows).
/// `why` says why not (for the remark of a dot on a wgmma chip that stays
/// on mma.sync).
enum class WgmmaKind { None, SS, RS };
static WgmmaKind getWgmmaKind(DotOp dot, const TargetInfo &target,
                              unsigned numWarps, std::string &why,
                              SharedEncodingAttr &aLayout,
                              SharedEncodingAttr &bLayout) {
  auto none = [&](const Twine &reason) {
    why = reason.str();
    return WgmmaKind::None;
  };
  if (!target.hasWgmma)
    return none(Twine(target.chip) + " has no wgmma");
  if (numWarps % 4 != 0)
    return none("the kernel's " + Twine(numWarps) +
                " warps are not whole warpgroups");
  auto a = cast<RankedTensorType>(dot.getA().getType());
  auto b = cast<RankedTensorType>(dot.getB().getType());
  Type et = a.getElementType();
  // tile.dot's verifier pins B and the accumulator to A's type: bf16/f16,
  // fp8 (either of B) -> f32, f16 -> f16, f32 -> f32, i8 -> i32. The 8-bit
  // operands (fp8, i8) and f32 (as TF32) share the K-major rules below.
  bool kMajorOnly = isKMajorOnlyMmaType(et);
  Type accType =
      cast<RankedTensorType>(dot.getAcc().getType()).getElementType();
  if (!(kMajorOnly || et.isBF16() || et.isF16()) || accType.isF16())
    return none("wgmma is used for bf16/f16, fp8 and tf32 operands with an "
                "f32 accumulator and i8 operands with an i32 one only");
  // (ieee never gets here: chooseDotLayout puts it on FMA first.)
  if (et.isF32() && dot.getPrecision() == DotPrecision::TF32x3)
    return none("precision(tf32x3) splits both operands in registers, and "
                "wgmma reads B from shared memory");
  int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = b.getDimSize(1);
  // Warpgroups stack along M, 64 rows each; more rows than the warpgroups'
  // repeat (each warpgroup issues one m64 instruction per 64 * groups rows:
  // Triton's 128 rows on 4 warps); where the rows are fewer (64 queries of
  // the attention backward's dS K on two warpgroups), the warpgroups left
  // over split N.
  int64_t groups = numWarps / 4;
  bool repeatM = m % 64 == 0 && m / 64 > groups && (m / 64) % groups == 0;
  if (m % 64 != 0 || (!repeatM && groups % (m / 64) != 0))
    return none("its " + Twine(m) + " rows are not a multiple of 64 per "
                "warpgroup (" + Twine(16 * numWarps) + " with " +
                Twine(numWarps) + " warps) or a divisor of them in whole "
                "warpgroups");
  int64_t nGroups = repeatM ? 1 : groups / (m / 64);
  int64_t nPer = n / nGroups;
  // One instruction takes 32 bytes of K; a 128-byte swizzle segment holds
  // 32 32-bit, 64 16-bit or 128 8-bit elements.
  unsigned elemBytes = getBitWidth(et) / 8;
  int64_t kStep = 32 / elemBytes, seg = 128 / elemBytes;
  if (n % nGroups != 0 || nPer > 256 || nPer % 8 != 0 || k % kStep != 0)
    return none(
        "N = " + Twine(n) + " (over " + Twine(nGroups) +
        " warpgroup(s): at most 256 each, a multiple of 8) or K = " + Twine(k) +
        " (a multiple of " + Twine(kStep) + ") does not fit wgmma");
  // 8-bit and tf32 wgmma read both operands K-major (PTX ISA: wgmma's
  // transpose is for 16-bit types only).
  StringRef kind = et.isF32() ? "tf32" : "8-bit (fp8, i8)";
  if (kMajorOnly && getOperandContiguity(dot.getB(), 0) != 0)
    return none(kind + " wgmma reads B K-major, and this B is "
                "contiguous along N: load it as an N x K tile (K contiguous) "
                "and tile.trans it" +
                (et.isF32() ? "" : ", the layout torch._scaled_mm takes"));
  if (kMajorOnly && getOperandContiguity(dot.getA(), 1) != 1)
    return none(kind + " wgmma reads A K-major, and this A is "
                "contiguous along M");
  bool aShared = isa_and_nonnull<SharedEncodingAttr>(a.getEncoding());
  bool bShared = isa_and_nonnull<SharedEncodingAttr>(b.getEncoding());
  // Loaded tiles reach shared memory only through tile-pipeline's cp.async
  // ring (in 64-element swizzle segments), which a dot reads in place only
  // as the tile's one user; a dot whose loads it cannot serve so stays on
  // mma.sync.
  // On chips with TMA, tile-tma-pipeline brings such tiles in too (also
  // loads outside the loop: a query tile loaded once); A must then be
  // contiguous along K.
  auto isRingLoad = [&](Value v) {
    auto load = v.getDefiningOp<LoadOp>();
    return load && load->hasOneUse() && canPipelineLoad(load);
  };
  // (kMajor: contiguous along K, dimension 1 of A and 0 of B.)
  auto isTmaLoad = [&](Value v, bool kMajor) {
    auto load = v.getDefiningOp<LoadOp>();
    unsigned kDim = v == dot.getA() ? 1 : 0;
    return load && canTmaLoad(load, target) &&
           (!kMajor || getOperandContiguity(v, kDim) == kDim);
  };
  // A loaded operand's rows are whole swizzle segments: 128 bytes, or
  // 64 bytes where the operand is K-major and K is a multiple of 64 bytes
  // (fp8 attention's Q K^T at head dim 64).
  auto segmentsFit = [&](Value v, unsigned kDim) {
    return k % seg == 0 ||
           (getOperandContiguity(v, kDim) == kDim && (k * elemBytes) % 64 == 0);
  };
  // An N-major B's rows are 64-element swizzle segments of N; a K-major
  // B's rows are its N columns (in 8-row swizzle atoms, as A's rows are),
  // so any N that wgmma takes fits (e.g. 16 tokens of a swap-AB decode
  // GEMM).
  bool bKMajor = getOperandContiguity(dot.getB(), 1) == 0;
  // Warpgroups splitting an N-major B start at its 64-element segments.
  if (nGroups > 1 && !bKMajor && nPer % seg != 0)
    return none("its " + Twine(nGroups) + " warpgroups split N = " + Twine(n) +
                " of an N-major B into " + Twine(nPer) +
                " columns each, not whole " + Twine(seg) +
                "-element swizzle segments");
  bool bLoaded =
      (isRingLoad(dot.getB()) || isTmaLoad(dot.getB(), kMajorOnly)) &&
      (bKMajor || n % 64 == 0) && segmentsFit(dot.getB(), 0);
  // A contiguous along M (16-bit types only, as checked above: wgmma's
  // transposed A; Bᵀ of a swapped product with a row-major B) holds each
  // warpgroup's 64 rows in one 64-element swizzle segment, so any such A
  // fits.
  bool aKMajor = getOperandContiguity(dot.getA(), 1) == 1;
  bool aLoaded =
      (isRingLoad(dot.getA()) || isTmaLoad(dot.getA(), kMajorOnly)) &&
      (!aKMajor || segmentsFit(dot.getA(), 1));
  aLayout = aShared ? cast<SharedEncodingAttr>(a.getEncoding())
                    : getLoadedOperandLayout(dot.getA());
  bLayout = bShared ? cast<SharedEncodingAttr>(b.getEncoding())
                    : getLoadedOperandLayout(dot.getB());
  if ((aShared && bShared) || (aLoaded && bLoaded))
    return WgmmaKind::SS;
  // Any other A is in registers (computed, or loaded outside a ring).
  if (!aShared && !aLoaded && (bShared || bLoaded))
    return WgmmaKind::RS;
  // A B no ring brings (a load not known to be 16-byte aligned, or a tile
  // the program computes) is staged: the threads store it to a swizzled
  // buffer that wgmma reads (tile-pipeline's stageThroughSharedMemory), as
  // Triton stages such operands, instead of the whole dot falling back to
  // mma.sync. So is such an A where it is loaded (one store where a
  // register A would cross shared memory into the fragment layout); a
  // computed A stays in registers (RS).
  if (!bShared && !bLoaded)
    bLayout = getStagedOperandLayout(dot.getB(), 0, kMajorOnly);
  if (!bLayout)
    return none(
        "B reaches shared memory neither through a TMA or cp.async "
        "ring nor through a staging buffer, whose rows are whole "
        "swizzle spans: K a multiple of " +
        Twine(64 / elemBytes) + " (K-major)" +
        (kMajorOnly ? Twine("") : " or N of " + Twine(seg) + " (N-major)") +
        ", and this B is " + Twine(k) + " x " + Twine(n));
  if (aShared || aLoaded)
    return WgmmaKind::SS;
  aLayout = dot.getA().getDefiningOp<LoadOp>()
                ? getStagedOperandLayout(dot.getA(), 1, kMajorOnly)
                : SharedEncodingAttr();
  return aLayout ? WgmmaKind::SS : WgmmaKind::RS;
}

FailureOr<Attribute> LayoutAssignment::chooseDotLayout(DotOp dot) {
  auto a = cast<RankedTensorType>(dot.getA().getType());
  auto c = cast<RankedTensorType>(dot.getAcc().getType());
  Type et = a.getElementType();
  // f32 in ieee precision: exact products, on FMA instructions.
  if (et.isF32() && dot.getPrecision() == DotPrecision::IEEE) {
    remarkMissed(dot, "tile-assign-layouts", "Fma",
                 "this dot runs on FMA instructions: f32 operands in ieee "
                 "precision (exact products) have no tensor-core instruction "
                 "(precision(tf32x3) is about as accurate, on tensor cores)");
    BlockedEncodingAttr acc =
        getFmaAccumulatorLayout(ctx, c.getShape(), numWarps);
    int64_t k = a.getDimSize(1);
    ownOperandLayouts[dot] = {getFmaOperandLayout(acc, 0, k),
                              getFmaOperandLayout(acc, 1, k)};
    return Attribute(acc);
  }
  std::string why;
  SharedEncodingAttr aShared, bShared;
  WgmmaKind kind = getWgmmaKind(dot, target, numWarps, why, aShared, bShared);
  if (kind == WgmmaKind::None && target.hasWgmma)
    remarkMissed(dot, "tile-assign-layouts", "NoWgmma",
                 "this dot runs on mma.sync: " + why);
  if (kind != WgmmaKind::None) {
    // wgmma: warpgroups stack along M, each warp owns 16 rows; the
    // accumulator fragment is the mma.sync one with warps along M, and so
    // is a register A operand's. Warpgroups beyond the rows' split N
    // (numbered along M first, as wgmma's warps are).
    // More rows than the warps' 16 each: 16-row slices per warp, repeated
    // down M (one m64 instruction per repetition).
    unsigned rowWarps = a.getDimSize(0) / 16;
    auto mma = rowWarps == numWarps ? MmaEncodingAttr::get(ctx, {numWarps, 1})
               : rowWarps > numWarps
                   ? MmaEncodingAttr::get(ctx, {numWarps, 1}, /*mFirst=*/false,
                                          /*warpRows=*/16)
                   : MmaEncodingAttr::get(ctx, {rowWarps, numWarps / rowWarps},
                                          /*mFirst=*/true);
    Attribute aLayout =
        kind == WgmmaKind::RS
            ? Attribute(DotOperandEncodingAttr::get(
                  ctx, 0, mma, 32 / getBitWidth(a.getElementType())))
            : Attribute(aShared);
    ownOperandLayouts[dot] = {aLayout, bShared};
    return Attribute(mma);
  }
  bool is16 = et.isBF16() || et.isF16();
  bool fp8 = isFp8Type(et);
  bool int8 = et.isInteger(8);
  if (is16 && !target.hasMmaBf16)
    return dot.emitOpError("needs mma.sync for ")
           << et << ", which " << target.chip << " does not have";
  if (fp8 && !target.hasMmaFp8)
    return dot.emitOpError("fp8 operands need mma.sync m16n8k32 (sm_89 or "
                           "later) or wgmma (sm_90a); ")
           << target.chip << " has neither: use bf16/f16 operands there";
  if (!is16 && !fp8 && !int8 && !et.isF32())
    return dot.emitOpError("only bf16, f16, f32 (as TF32), fp8 and i8 "
                           "operands are lowered to tensor cores, got ")
           << et;
  int64_t k = a.getDimSize(1);
  int64_t instrK = getMmaSyncKStep(et);
  if (k % instrK != 0)
    return dot.emitOpError("K = ")
           << k << " must be a multiple of the mma.sync K (" << instrK << ")";
  // Chained dots stack their warps along M, so that a result feeds the
  // next dot from the registers it is in; where the rows are too few for
  // the warps, the warps split N too and the result crosses warps through
  // shared memory (the attention backward's dK/dV at head dim 256: warps
  // along M alone would hold 256 accumulator values a thread).
  bool chained = feedsAnotherDot(dot) || fedByAnotherDot(dot);
  FailureOr<std::pair<unsigned, unsigned>> warps =
      chooseMmaWarps(c.getDimSize(0), c.getDimSize(1), numWarps, chained);
  if (failed(warps) && chained) {
    warps = chooseMmaWarps(c.getDimSize(0), c.getDimSize(1), numWarps,
                           /*rowsOnly=*/false);
    if (succeeded(warps))
      remarkMissed(dot, "tile-assign-layouts", "WarpsSplitN",
                   "this chained dot's " + Twine(c.getDimSize(0)) +
                       " rows are fewer than 16 for each of the " +
                       Twine(numWarps) +
                       " warps: the warps split N too, and its operand or "
                       "result crosses warps through shared memory");
  }
  if (failed(warps))
    return dot.emitOpError("a ")
           << c.getDimSize(0) << "x" << c.getDimSize(1)
           << " accumulator cannot be split over " << numWarps
           << " warps of mma.sync (each warp needs at least 16x8)";
  return Attribute(
      MmaEncodingAttr::get(ctx, {warps->first, warps->second}));
}

/// True for an scf.for whose body runs a tile.dot.
static bool isDotLoop(Operation *op) {
  auto loop = dyn_cast_or_null<scf::ForOp>(op);
  return loop && !loop.getBody()->getOps<DotOp>().empty();
}

/// True when `kernel` computes a tile.dot.
static bool hasDot(KernelOp kernel) {
  return kernel.walk([](DotOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// True when `v` (a 1-D tile) is only broadcast against larger tiles: its
/// users are tile.expand_dims, or elementwise casts whose results are.
static bool isOnlyBroadcast(Value v) {
  if (v.use_empty())
    return false;
  return llvm::all_of(v.getUsers(), [](Operation *user) {
    if (isa<ExpandDimsOp>(user))
      return true;
    return isa<CastOpInterface>(user) && user->getNumOperands() == 1 &&
           isTensor(user->getResult(0)) && isOnlyBroadcast(user->getResult(0));
  });
}

/// A 1-D load that only scales or shifts the accumulators of a loop that
/// runs a tile.dot (e.g. the per-K-block scales of a block-scaled GEMM):
/// in the loop's body, combined elementwise, broadcast or carried to the
/// next iteration, or before the loop as the first iteration's value. It
/// takes its layout from its users, a slice of the accumulator's: each
/// thread loads the few elements it needs, where a coalesced load would be
/// converted through shared memory, with a barrier, every iteration. Also,
/// in a kernel without dots (`kernelHasDot` false), a 1-D load only
/// broadcast against tiles.
static bool takesLayoutFromUsers(LoadOp load, bool kernelHasDot) {
  if (cast<RankedTensorType>(load.getType()).getRank() != 1)
    return false;
  // A kernel without products (a norm, a softmax): a weight row loaded in
  // the tile's slice layout, a few elements a thread, where a coalesced
  // load would cross shared memory (a GEMM's epilogue vectors keep their
  // coalesced loads).
  if (!kernelHasDot && isOnlyBroadcast(load.getResult()))
    return true;
  Operation *parent = load->getParentOp();
  bool inDotLoop = isDotLoop(parent);
  bool used = false;
  for (Operation *user : load->getUsers()) {
    used = true;
    bool combined = isElementwiseOnTiles(user) ||
                    isa<BroadcastOp, ExpandDimsOp>(user) ||
                    (isa<scf::YieldOp>(user) && user->getParentOp() == parent);
    if (combined ? !inDotLoop : !isDotLoop(user))
      return false;
  }
  return used;
}

/// The element width each load of `kernel` is laid out for: the narrowest
/// among the loads of its shape and contiguous dimension that meet it in
/// elementwise ops. Such loads then share one coalesced layout (each still
/// moves whole 16-byte vectors, the wider ones several) instead of one
/// being converted through shared memory where they meet: rope's bf16 rows
/// times its f32 cos and sin tables.
static DenseMap<Operation *, unsigned> getSharedLoadWidths(KernelOp kernel) {
  SmallVector<LoadOp> loads;
  kernel.walk([&](LoadOp load) { loads.push_back(load); });
  auto keyOf = [](LoadOp load) {
    auto type = cast<RankedTensorType>(load.getType());
    return std::make_pair(SmallVector<int64_t>(type.getShape()),
                          getContiguousTileDim(load.getView().getType(), type));
  };
  // Each elementwise op of the load's shape that a load's value reaches
  // belongs to the first load that reached it; a later one joins its class.
  llvm::EquivalenceClasses<Operation *> classes;
  DenseMap<Operation *, LoadOp> reachedBy;
  for (LoadOp load : loads) {
    classes.insert(load);
    auto shape = cast<RankedTensorType>(load.getType()).getShape();
    SmallVector<Value> work = {load.getResult()};
    DenseSet<Operation *> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (!isElementwiseOnTiles(user) || !seen.insert(user).second ||
            cast<RankedTensorType>(user->getResult(0).getType()).getShape() !=
                shape)
          continue;
        auto [it, first] = reachedBy.try_emplace(user, load);
        if (!first && keyOf(it->second) == keyOf(load))
          classes.unionSets(it->second.getOperation(), load.getOperation());
        llvm::append_range(work, user->getResults());
      }
    }
  }
  DenseMap<Operation *, unsigned> widths;
  for (auto it = classes.begin(); it != classes.end(); ++it) {
    if (!(*it)->isLeader())
      continue;
    unsigned width = ~0u;
    for (auto m = classes.member_begin(**it); m != classes.member_end(); ++m)
      width = std::min(
          width, getBitWidth(getElementTypeOrSelf(cast<LoadOp>(*m).getType())));
    for (auto m = classes.member_begin(**it); m != classes.member_end(); ++m)
      widths[*m] = width;
  }
  return widths;
}

LogicalResult LayoutAssignment::seedAnchors() {
  bool kernelHasDot = hasDot(kernel);
  DenseMap<Operation *, unsigned> loadWidths = getSharedLoadWidths(kernel);
  WalkResult result = kernel.walk([&](Operation *op) -> WalkResult {
    // Tiles may already carry layouts (hand-written or from an earlier
    // pass); they are kept.
    for (Value v : op->getResults())
      if (auto t = dyn_cast<RankedTensorType>(v.getType()); t && t.getEncoding())
        assign(v, t.getEncoding());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (auto t = dyn_cast<RankedTensorType>(arg.getType());
              t && t.getEncoding())
            assign(arg, t.getEncoding());

    for (Value v : op->getResults())
      if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
        if (!llvm::isPowerOf2_64(t.getNumElements()) ||
            llvm::any_of(t.getShape(),
                         [](int64_t d) { return !llvm::isPowerOf2_64(d); })) {
          op->emitOpError("tile shape ")
              << t << " is not made of powers of two";
          return WalkResult::interrupt();
        }
      }
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (takesLayoutFromUsers(load, kernelHasDot))
        return WalkResult::advance();
      auto type = cast<RankedTensorType>(load.getType());
      assign(load.getResult(),
             getCoalescedLayout(
                 ctx, type.getShape(),
                 getContiguousTileDim(load.getView().getType(), type),
                 loadWidths.lookup(load), numWarps));
    } else if (auto dot = dyn_cast<DotOp>(op)) {
      FailureOr<Attribute> layout = chooseDotLayout(dot);
      if (failed(layout))
        return WalkResult::interrupt();
      dotLayouts[dot] = *layout;
      assign(dot.getResult(), *layout);
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Step 2: propagation
//===----------------------------------------------------------------------===//

void LayoutAssignment::assign(Value v, Attribute layout) {
  if (!layout || !isTensor(v) || layouts.count(v))
    return;
  LLVM_DEBUG(llvm::dbgs() << "assign " << layout << " to " << v << "\n");
  layouts[v] = layout;
  if (Operation *def = v.getDefiningOp()) {
    worklist.push_back(def);
  } else {
    // A loop's iter_arg: the loop, and the yield that feeds it (its
    // operand takes the layout backward, e.g. a value loaded for the next
    // iteration).
    Block *owner = cast<BlockArgument>(v).getOwner();
    worklist.push_back(owner->getParentOp());
    if (isa<scf::ForOp>(owner->getParentOp()))
      worklist.push_back(owner->getTerminator());
  }
  for (Operation *user : v.getUsers()) {
    worklist.push_back(user);
    if (isa<scf::YieldOp>(user))
      worklist.push_back(user->getParentOp());
  }
}

Attribute LayoutAssignment::getRequiredLayout(Operation *op, unsigned idx) {
  Value operand = op->getOperand(idx);
  if (!isTensor(operand))
    return {};
  if (isElementwiseOnTiles(op))
    return get(op->getResult(0));
  if (auto b = dyn_cast<BroadcastOp>(op))
    return get(b.getResult());
  if (auto e = dyn_cast<ExpandDimsOp>(op)) {
    Attribute res = get(e.getResult());
    return res ? SliceEncodingAttr::get(ctx, e.getAxis(), res) : Attribute();
  }
  if (auto t = dyn_cast<TransOp>(op)) {
    auto res = dyn_cast_or_null<BlockedEncodingAttr>(get(t.getResult()));
    if (!res)
      return {};
    auto perm = [](ArrayRef<unsigned> v) {
      return SmallVector<unsigned>{v[1], v[0]};
    };
    SmallVector<unsigned> order;
    for (unsigned d : res.getOrder())
      order.push_back(1 - d);
    return BlockedEncodingAttr::get(ctx, perm(res.getSizePerThread()),
                                    perm(res.getThreadsPerWarp()),
                                    perm(res.getWarpsPerCTA()), order);
  }
  if (auto slice = dyn_cast<ExtractSliceOp>(op))
    return get(slice.getResult());
  if (auto load = dyn_cast<LoadOp>(op))
    return get(load.getResult()); // the mask
  if (auto store = dyn_cast<StoreOp>(op))
    return getStoreLayout(store);
  if (auto add = dyn_cast<AtomicAddOp>(op))
    return getAtomicAddLayout(add);
  if (auto dot = dyn_cast<DotOp>(op)) {
    Attribute acc = dotLayouts.lookup(dot);
    if (idx == 2)
      return acc;
    auto own = ownOperandLayouts.find(dot);
    if (own != ownOperandLayouts.end())
      return idx == 0 ? own->second.first : own->second.second;
    Type et = cast<RankedTensorType>(operand.getType()).getElementType();
    unsigned kWidth = 32 / getBitWidth(et);
    return DotOperandEncodingAttr::get(ctx, idx, acc, kWidth);
  }
  if (auto wait = dyn_cast<WarpgroupWaitOp>(op))
    return get(wait.getResult(idx));
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    if (idx < forOp.getNumControlOperands())
      return {};
    return get(forOp.getRegionIterArgs()[idx - forOp.getNumControlOperands()]);
  }
  if (auto yield = dyn_cast<scf::YieldOp>(op)) {
    Operation *parent = yield->getParentOp();
    if (auto forOp = dyn_cast<scf::ForOp>(parent))
      return get(forOp.getRegionIterArgs()[idx]);
    if (isa<scf::IfOp>(parent))
      return get(parent->getResult(idx));
  }
  return {};
}

void LayoutAssignment::visit(Operation *op) {
  // Forward rules: result layouts from operand layouts.
  if (isElementwiseOnTiles(op)) {
    // Decide once every operand that is not constant-like has a layout
    // (the op is revisited as they arrive); prefer an accumulator layout
    // (the largest, most expensive to convert), then any operand that does
    // not come from a constant-like producer.
    bool pending = llvm::any_of(op->getOperands(), [&](Value v) {
      return isTensor(v) && !get(v) && dotDependent.contains(v) &&
             !isCheapProducer(v.getDefiningOp()) &&
             !v.getDefiningOp<BroadcastOp>();
    });
    Attribute chosen;
    int chosenRank = -1;
    for (Value operand : op->getOperands()) {
      Attribute l = get(operand);
      if (!l)
        continue;
      int rank = isa<MmaEncodingAttr>(l)                    ? 2
                 : !isCheapProducer(operand.getDefiningOp()) ? 1
                                                             : 0;
      if (rank > chosenRank) {
        chosen = l;
        chosenRank = rank;
      }
    }
    if (!pending || chosenRank == 2)
      for (Value r : op->getResults())
        assign(r, chosen);
  } else if (isa<BroadcastOp>(op)) {
    // A broadcast result takes its layout from its users (converting the
    // small source is cheaper than the broadcast tile); only when none
    // decides does it inherit the source's (see propagate()).
  } else if (auto e = dyn_cast<ExpandDimsOp>(op)) {
    if (Attribute src = get(e.getSrc())) {
      auto slice = dyn_cast<SliceEncodingAttr>(src);
      if (slice && slice.getDim() == static_cast<unsigned>(e.getAxis()))
        assign(e.getResult(), slice.getParent());
      else
        assign(e.getResult(),
               getDefaultLayout(cast<RankedTensorType>(e.getType())));
    }
  } else if (auto r = dyn_cast<ReduceOp>(op)) {
    if (Attribute src = get(r.getSrc()))
      assign(r.getResult(), SliceEncodingAttr::get(ctx, r.getAxis(), src));
  } else if (auto t = dyn_cast<TransOp>(op)) {
    if (auto src = dyn_cast_or_null<BlockedEncodingAttr>(get(t.getSrc()))) {
      SmallVector<unsigned> order;
      for (unsigned d : src.getOrder())
        order.push_back(1 - d);
      auto swap = [](ArrayRef<unsigned> v) {
        return SmallVector<unsigned>{v[1], v[0]};
      };
      assign(t.getResult(),
             BlockedEncodingAttr::get(ctx, swap(src.getSizePerThread()),
                                      swap(src.getThreadsPerWarp()),
                                      swap(src.getWarpsPerCTA()), order));
    }
  } else if (auto slice = dyn_cast<ExtractSliceOp>(op)) {
    assign(slice.getResult(), get(slice.getSource()));
  } else if (auto wait = dyn_cast<WarpgroupWaitOp>(op)) {
    for (auto [v, r] : llvm::zip(wait.getValues(), wait.getResults()))
      assign(r, get(v));
  } else if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    for (auto [init, arg, res, next] :
         llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                   forOp.getResults(), yield.getOperands())) {
      assign(arg, get(init));
      assign(arg, get(next));
      assign(res, get(arg));
    }
  } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
      if (region->empty())
        continue;
      auto yield = cast<scf::YieldOp>(region->front().getTerminator());
      for (auto [res, v] : llvm::zip(ifOp.getResults(), yield.getOperands()))
        assign(res, get(v));
    }
  }

  // Backward rules: operands from what this op requires of them.
  if (auto r = dyn_cast<ReduceOp>(op)) {
    auto slice = dyn_cast_or_null<SliceEncodingAttr>(get(r.getResult()));
    if (slice && slice.getDim() == static_cast<unsigned>(r.getAxis()))
      assign(r.getSrc(), slice.getParent());
    return;
  }
  // A store converts its value right before it (where the element type is
  // narrowest, e.g. after an epilogue's truncation) rather than pulling its
  // coalesced layout back into the computation.
  if (isa<StoreOp, AtomicAddOp>(op))
    return;
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i) {
    Attribute required = getRequiredLayout(op, i);
    // An 8-bit register operand of a dot (P of an FP8 attention) keeps the
    // layout its computation has: the conversion to the operand layout is
    // then made on the 8-bit tile at the dot, not on the f32 values the
    // computation would otherwise be pulled into (4x the data moved).
    if (isa_and_nonnull<DotOperandEncodingAttr>(required) &&
        getBitWidth(cast<RankedTensorType>(op->getOperand(i).getType())
                        .getElementType()) == 8 &&
        dotDependent.contains(op->getOperand(i)))
      continue;
    // tile.trans produces blocked layouts only (the transpose of its
    // source's); other requirements are met by a conversion after it.
    if (op->getOperand(i).getDefiningOp<TransOp>() &&
        !isa_and_nonnull<BlockedEncodingAttr>(required))
      continue;
    // A wgmma operand's shared layout is met by a conversion at the dot (a
    // ring's copy, or tile-pipeline's staging buffer), never by the ops
    // computing it.
    if (isa_and_nonnull<SharedEncodingAttr>(required))
      continue;
    assign(op->getOperand(i), required);
  }
}

void LayoutAssignment::propagate() {
  while (true) {
    while (!worklist.empty()) {
      Operation *op = worklist.front();
      worklist.pop_front();
      visit(op);
    }
    // A value nothing reached that an elementwise op combines with a value
    // that has a layout takes that layout (a running row sum carried by a
    // loop, combined with the rescale factor's slice layout, would otherwise
    // get a default layout and two conversions through shared memory per
    // iteration).
    Value inherit;
    Attribute inherited;
    kernel.walk([&](Operation *op) {
      auto consider = [&](Value v) {
        if (inherit || !isTensor(v) || layouts.count(v))
          return;
        for (Operation *user : v.getUsers()) {
          if (!isElementwiseOnTiles(user))
            continue;
          for (Value other : user->getOperands())
            if (Attribute l = get(other);
                l && other != v && !isCheapProducer(other.getDefiningOp()) &&
                cast<RankedTensorType>(other.getType()).getShape() ==
                    cast<RankedTensorType>(v.getType()).getShape()) {
              inherit = v;
              inherited = l;
              return;
            }
        }
      };
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            consider(arg);
      for (Value v : op->getResults())
        consider(v);
    });
    if (inherit) {
      assign(inherit, inherited);
      continue;
    }
    // Give the first value nothing reached a default layout, then go on.
    Value unassigned;
    kernel.walk([&](Operation *op) {
      if (unassigned)
        return;
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (!unassigned && isTensor(arg) && !layouts.count(arg))
              unassigned = arg;
      for (Value v : op->getResults())
        if (!unassigned && isTensor(v) && !layouts.count(v))
          unassigned = v;
    });
    if (!unassigned)
      return;
    if (auto bc = unassigned.getDefiningOp<BroadcastOp>())
      if (Attribute src = get(bc.getSrc())) {
        assign(unassigned, src);
        continue;
      }
    assign(unassigned,
           getDefaultLayout(cast<RankedTensorType>(unassigned.getType())));
  }
}

//===----------------------------------------------------------------------===//
// Step 3: materialization
//===----------------------------------------------------------------------===//

Value LayoutAssignment::convertTo(Value v, Attribute layout, Operation *user) {
  auto type = withEncoding(v.getType(), layout);
  OpBuilder builder(user);
  Operation *def = v.getDefiningOp();
  if (isCheapProducer(def)) {
    Operation *clone = builder.clone(*def);
    clone->getResult(0).setType(type);
    if (auto cst = dyn_cast<arith::ConstantOp>(clone)) {
      auto dense = cast<DenseElementsAttr>(cst.getValue());
      cst.setValueAttr(dense.reshape(type));
    }
    return clone->getResult(0);
  }
  ++numConversions;
  return ConvertLayoutOp::create(builder, user->getLoc(), type, v);
}

void LayoutAssignment::materialize(Operation *op) {
  // Results first, so that ops inside regions see final types of values
  // defined by this op's regions' arguments.
  if (auto r = dyn_cast<ReduceOp>(op)) {
    Attribute src = cast<RankedTensorType>(r.getSrc().getType()).getEncoding();
    r.getResult().setType(withEncoding(
        r.getType(), SliceEncodingAttr::get(ctx, r.getAxis(), src)));
  } else {
    for (Value v : op->getResults())
      if (isTensor(v))
        v.setType(withEncoding(v.getType(), layouts.lookup(v)));
  }
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (isTensor(arg))
          arg.setType(withEncoding(arg.getType(), layouts.lookup(arg)));
  if (auto cst = dyn_cast<arith::ConstantOp>(op); cst && isTensor(cst)) {
    auto dense = cast<DenseElementsAttr>(cst.getValue());
    cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
  }
  // A loop result keeps its iter_arg's layout (users after the loop may
  // have chosen another one first: they get a conversion).
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    OpBuilder after(op->getContext());
    after.setInsertionPointAfter(op);
    for (auto [arg, res] :
         llvm::zip(forOp.getRegionIterArgs(), forOp.getResults())) {
      if (!isTensor(res) || arg.getType() == res.getType())
        continue;
      Type userType = res.getType();
      res.setType(arg.getType());
      auto cvt = ConvertLayoutOp::create(after, op->getLoc(), userType, res);
      res.replaceAllUsesExcept(cvt.getResult(), cvt);
      ++numConversions;
    }
  }

  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i) {
    Value operand = op->getOperand(i);
    if (!isTensor(operand))
      continue;
    Attribute required = getRequiredLayout(op, i);
    Attribute actual = cast<RankedTensorType>(operand.getType()).getEncoding();
    if (required && required != actual)
      op->setOperand(i, convertTo(operand, required, op));
  }
}

LogicalResult LayoutAssignment::run() {
  // Forward from every dot result, through loop and branch yields.
  SmallVector<Value> dotResults;
  kernel.walk([&](DotOp dot) { dotResults.push_back(dot.getResult()); });
  walkForward(dotResults, dotDependent, [](Operation *) { return false; });
  if (failed(seedAnchors()))
    return failure();
  propagate();
  // Pre-order: an op is materialized before the ops in its regions, and
  // operands are always defined (and materialized) before their users.
  SmallVector<Operation *> ops;
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != kernel.getOperation())
      ops.push_back(op);
  });
  for (Operation *op : ops)
    materialize(op);
  sinkConversions();
  return success();
}

/// Moves layout conversions toward their sources through single-use
/// elementwise chains: convert(f(x, splat)) -> f(convert(x), splat'), so
/// that e.g. an epilogue converts a loaded bf16 tile rather than its f32
/// extension. Only rewrites that keep one conversion (at most one operand
/// that is not constant-like) are made.
void LayoutAssignment::sinkConversions() {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<ConvertLayoutOp> converts;
    kernel.walk([&](ConvertLayoutOp c) { converts.push_back(c); });
    for (ConvertLayoutOp cvt : converts) {
      Operation *def = cvt.getSrc().getDefiningOp();
      // A tile loaded only to be converted into an accumulator fragment
      // (e.g. C for beta) is loaded in that layout: for 32-bit elements a
      // lane quad reads full sectors; for 16-bit ones half sectors, once per
      // tile, which beats a shared-memory round trip (and needs no scratch
      // next to a TMA-store epilogue's staging tile).
      if (auto load = dyn_cast_or_null<LoadOp>(def)) {
        auto type = cast<RankedTensorType>(cvt.getType());
        if (isa<MmaEncodingAttr>(type.getEncoding()) &&
            getBitWidth(type.getElementType()) >= 16 &&
            load->hasOneUse() && !load.getMask() &&
            getContiguousTileDim(load.getView().getType(), type) == 1) {
          load.getResult().setType(type);
          cvt.replaceAllUsesWith(load.getResult());
          cvt.erase();
          --numConversions;
          changed = true;
        }
        continue;
      }
      // (Elementwise ops run on distributed tiles only: a conversion into a
      // shared layout, a staged wgmma operand, stays at the dot.)
      if (!def || !isElementwiseOnTiles(def) || def->getNumResults() != 1 ||
          isa<SharedEncodingAttr>(
              cast<RankedTensorType>(cvt.getType()).getEncoding()) ||
          !def->getResult(0).hasOneUse() || def->getBlock() != cvt->getBlock())
        continue;
      // At most one operand to convert, and no wider than the result.
      unsigned heavy = 0;
      bool wider = false;
      unsigned resultBits =
          getBitWidth(getElementTypeOrSelf(cvt.getType()));
      for (Value v : def->getOperands())
        if (isTensor(v) && !isCheapProducer(v.getDefiningOp())) {
          ++heavy;
          wider |= getBitWidth(getElementTypeOrSelf(v.getType())) > resultBits;
        }
      if (heavy > 1 || wider)
        continue;
      Attribute layout = cast<RankedTensorType>(cvt.getType()).getEncoding();
      OpBuilder builder(def);
      SmallVector<Value> operands;
      for (Value v : def->getOperands()) {
        if (!isTensor(v)) {
          operands.push_back(v);
          continue;
        }
        Attribute actual = cast<RankedTensorType>(v.getType()).getEncoding();
        operands.push_back(actual == layout ? v : convertTo(v, layout, def));
      }
      Operation *clone = builder.clone(*def);
      clone->setOperands(operands);
      clone->getResult(0).setType(cvt.getType());
      cvt.replaceAllUsesWith(clone->getResult(0));
      cvt.erase();
      def->erase();
      --numConversions;
      changed = true;
    }
  }
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct TileAssignLayoutsPass
    : tile::impl::TileAssignLayoutsBase<TileAssignLayoutsPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileAssignLayoutsPass::runOnOperation() {
  KernelOp kernel = getOperation();
  FailureOr<TargetInfo> target = resolveTarget(kernel, chip);
  if (failed(target))
    return signalPassFailure();
  LayoutAssignment assignment(kernel, *target);
  if (failed(assignment.run()))
    return signalPassFailure();
  numConversions += assignment.getNumConversions();
  if (failed(checkRegisterPressure(kernel, *target)))
    return signalPassFailure();
}
