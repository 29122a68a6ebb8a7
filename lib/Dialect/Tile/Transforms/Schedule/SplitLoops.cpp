//===- SplitLoops.cpp - Loops split where a branch on the index flips -----===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-split-loops: a loop whose body branches on
// whether the induction variable has reached a bound computed before the
// loop,
//
//   for i in [lb, ub) step st:           p = min(ub, lb + ceil((clamp(x, lb,
//     if (i >= x) { A } else { B }   ->                 ub) - lb) / st) * st)
//                                        for i in [lb, p) step st: B
//                                        for i in [p, ub) step st: A
//
// becomes the iterations before the bound and those from it on, each with
// the branch resolved; the second loop starts from the first one's
// results. FlashAttention's key loop masks only its last blocks (keys past
// the sequence, the causal diagonal): split, the blocks before run without
// the mask, the online softmax's empty-row guard or the branch, as the
// hand-built FlashAttention-3 kernel runs them. The pass runs on the
// scheduled kernel, so that the ring positions, the rotation of
// tile-wgmma-overlap and the producer's copies, which run through all
// iterations, are those of one loop.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILESPLITLOOPS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kSplitLoopsPass = "tile-split-loops";

namespace {
/// A comparison of a loop's induction variable with `bound`, a value
/// defined before the loop: it holds from the first iteration with
/// iv >= bound on when `fromBound`, up to it otherwise.
struct SplitPoint {
  arith::CmpIOp cmp;
  Value bound;
  bool fromBound;
};
} // namespace

/// `cmp` as a split point of `loop`: iv >= x, iv < x, x <= iv or x > iv
/// (signed), with x defined outside the loop.
static std::optional<SplitPoint> matchSplitPoint(scf::ForOp loop,
                                                 arith::CmpIOp cmp) {
  Value iv = loop.getInductionVar();
  arith::CmpIPredicate pred = cmp.getPredicate();
  Value other;
  if (cmp.getLhs() == iv) {
    other = cmp.getRhs();
  } else if (cmp.getRhs() == iv) {
    // x <= iv is iv >= x; x > iv is iv < x.
    other = cmp.getLhs();
    if (pred == arith::CmpIPredicate::sle)
      pred = arith::CmpIPredicate::sge;
    else if (pred == arith::CmpIPredicate::sgt)
      pred = arith::CmpIPredicate::slt;
    else
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!loop.isDefinedOutsideOfLoop(other))
    return std::nullopt;
  if (pred == arith::CmpIPredicate::sge)
    return SplitPoint{cmp, other, true};
  if (pred == arith::CmpIPredicate::slt)
    return SplitPoint{cmp, other, false};
  return std::nullopt;
}

/// The first split point of `loop` that decides a branch in its body; none
/// for a loop around other loops (the split would copy them).
static std::optional<SplitPoint> findSplitPoint(scf::ForOp loop) {
  std::optional<SplitPoint> found;
  if (loop.getBody()
          ->walk([](scf::ForOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return found;
  loop.getBody()->walk([&](arith::CmpIOp cmp) {
    std::optional<SplitPoint> point = matchSplitPoint(loop, cmp);
    if (!point)
      return WalkResult::advance();
    bool decides = llvm::any_of(cmp->getUses(), [](OpOperand &use) {
      return isa<scf::IfOp>(use.getOwner());
    });
    if (!decides)
      return WalkResult::advance();
    found = point;
    return WalkResult::interrupt();
  });
  return found;
}

/// Replaces `cmp` (in a clone of the loop) by `value`: the branches it
/// decides are inlined.
static void resolve(RewriterBase &rewriter, arith::CmpIOp cmp, bool value) {
  for (OpOperand &use : llvm::make_early_inc_range(cmp->getUses())) {
    auto ifOp = dyn_cast<scf::IfOp>(use.getOwner());
    if (!ifOp)
      continue;
    Region &taken = value ? ifOp.getThenRegion() : ifOp.getElseRegion();
    if (taken.empty()) { // an scf.if without results or else region
      rewriter.eraseOp(ifOp);
      continue;
    }
    Block *block = &taken.front();
    auto yield = cast<scf::YieldOp>(block->getTerminator());
    SmallVector<Value> results(yield.getOperands());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(block, ifOp);
    rewriter.replaceOp(ifOp, results);
  }
  if (cmp->use_empty()) {
    rewriter.eraseOp(cmp);
    return;
  }
  rewriter.setInsertionPoint(cmp);
  rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(cmp, value, 1);
}

/// Splits `loop` at `point` as the file comment shows; returns the two
/// loops.
static std::pair<scf::ForOp, scf::ForOp> split(scf::ForOp loop,
                                               const SplitPoint &point) {
  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        st = loop.getStep();
  // The first iteration at or past the bound, within [lb, ub]. The bound is
  // clamped to [lb, ub] first: then lb + ceil((x - lb) / st) * st stays
  // below ub + st, which the loop's own increment reaches anyway; an
  // unclamped bound near the type's maximum wrapped it, and the second
  // loop started below lb.
  Value clamped = arith::MinSIOp::create(
      rewriter, loc, arith::MaxSIOp::create(rewriter, loc, point.bound, lb),
      ub);
  Value ahead = arith::SubIOp::create(rewriter, loc, clamped, lb);
  Value iters = arith::CeilDivSIOp::create(rewriter, loc, ahead, st);
  Value at = arith::MinSIOp::create(
      rewriter, loc, ub,
      arith::AddIOp::create(rewriter, loc, lb,
                            arith::MulIOp::create(rewriter, loc, iters, st)));

  arith::CmpIOp cmp = point.cmp;
  auto cloneWith = [&](Value from, Value to, ValueRange inits, bool value) {
    IRMapping map;
    auto clone = cast<scf::ForOp>(rewriter.clone(*loop, map));
    clone.getLowerBoundMutable().assign(from);
    clone.getUpperBoundMutable().assign(to);
    clone.getInitArgsMutable().assign(inits);
    resolve(rewriter, cast<arith::CmpIOp>(map.lookup(cmp.getOperation())), value);
    rewriter.setInsertionPointAfter(clone);
    return clone;
  };
  scf::ForOp before = cloneWith(lb, at, loop.getInitArgs(), !point.fromBound);
  scf::ForOp after =
      cloneWith(at, ub, before.getResults(), point.fromBound);
  rewriter.replaceOp(loop, after.getResults());
  return {before, after};
}

/// The shallowest ring `loop` carries the stage of (0 when none).
static int64_t getShallowestRing(scf::ForOp loop) {
  int64_t depth = 0;
  for (Value arg : loop.getRegionIterArgs())
    if (std::optional<int64_t> d = getCarriedRingDepth(loop, arg))
      depth = depth ? std::min(depth, *d) : *d;
  return depth;
}

/// Why tile-mask-bounds's branches of `loop` stay as written (resolved to
/// the masked branch): a remark name and the reason; empty where the loop
/// is split:
/// - a TMA ring of at most two stages: split, such loops ran slower than
///   unsplit on an H100 (128-key blocks, a 2-stage TMA ring, 8 warps:
///   causal hd128 380 TFLOP/s against 415, grouped-query 435 against 491),
///   where 5-stage rings gained up to 1.4x
///   (bench/results/2026-12-06_mask_bounds_h100.json); the cp.async rings
///   of mma.sync chips gained from the split at two stages too
///   (grouped-query 238 against 222 on sm_80 PTX);
/// - a loop that starts where loaded data says (a skip to the first
///   visible block): it runs a few blocks, and the split's second loop
///   cost more than the mask it saves (attention_document_skip 115 TFLOP/s
///   split against 130 as written, where attention_document, whose loop
///   starts at 0, gained 1.24x: bench/results/2026-12-06_two_programs_
///   split_h100.json).
static std::pair<StringRef, std::string> getKeepMaskedReason(scf::ForOp loop) {
  if (dependsOnLoadedData(loop.getLowerBound()))
    return {"LoadedStart",
            "the loop starts where loaded data says (a skip to the visible "
            "blocks), so few iterations precede the bound; split, such a "
            "loop ran slower than as written"};
  // TMA rings: their waits are mbarrier waits.
  bool tma = loop.getBody()
                 ->walk([](MBarrierWaitOp) { return WalkResult::interrupt(); })
                 .wasInterrupted();
  int64_t ring = getShallowestRing(loop);
  if (tma && ring > 0 && ring <= 2)
    return {"ShallowRing", ("split at its bounds, a loop on a " + Twine(ring) +
                            "-stage ring ran slower than as written")
                               .str()};
  return {};
}

/// tile-mask-bounds's branches of `loop` resolved to the masked branch (the
/// program as written) where getKeepMaskedReason says so.
static void keepMasked(scf::ForOp loop) {
  SmallVector<arith::CmpIOp> bounds;
  loop.getBody()->walk([&](arith::CmpIOp cmp) {
    if (cmp->hasAttr(kMaskBoundAttr))
      bounds.push_back(cmp);
  });
  if (bounds.empty())
    return;
  auto [name, why] = getKeepMaskedReason(loop);
  if (why.empty())
    return;
  IRRewriter rewriter(loop.getContext());
  for (arith::CmpIOp cmp : bounds)
    resolve(rewriter, cmp, false);
  remarkMissed(loop, kSplitLoopsPass, name,
               "the mask stays in every iteration: " + why);
}

namespace {
struct TileSplitLoopsPass
    : tile::impl::TileSplitLoopsBase<TileSplitLoopsPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileSplitLoopsPass::runOnOperation() {
  ScheduleAttr schedule = getOperation().getScheduleAttr();
  if (schedule && !ScheduleAttr::flag(schedule.getSplitLoops(), true))
    return;
  // `split_loops = true` splits wherever a bound allows.
  bool asked = schedule && schedule.getSplitLoops();
  // Each loop the split makes is split again at its next branch (a sliding
  // window's mask: the first blocks, the full ones, the diagonal), at most
  // kMaxSplits times per loop of the program.
  constexpr int kMaxSplits = 3;
  SmallVector<std::pair<scf::ForOp, int>> work;
  getOperation().walk([&](scf::ForOp loop) { work.push_back({loop, 0}); });
  if (!asked)
    for (auto &entry : work)
      keepMasked(entry.first);
  while (!work.empty()) {
    auto [loop, splits] = work.pop_back_val();
    if (splits >= kMaxSplits)
      continue;
    std::optional<SplitPoint> point = findSplitPoint(loop);
    if (!point)
      continue;
    remarkPassed(loop, kSplitLoopsPass, "Split",
                 "the iterations before the bound its branch compares the "
                 "induction variable with, and those from it on, run in two "
                 "loops without the branch");
    auto [before, after] = split(loop, *point);
    ++numSplitLoops;
    work.push_back({before, splits + 1});
    work.push_back({after, splits + 1});
  }
}
