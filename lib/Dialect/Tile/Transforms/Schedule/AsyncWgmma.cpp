//===- AsyncWgmma.cpp - wgmma groups in flight across iterations ----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-async-wgmma. wgmma runs asynchronously: a
// `wgmma.wait_group 0` after every dot leaves the tensor cores idle while
// the warpgroup waits for the next stage and issues the next dot. When the
// only consumer of a dot's result is the next iteration's dot (the
// accumulator chain of a GEMM main loop), the wait can allow one group in
// flight; the dot's shared-memory operands are then free only after the
// next iteration's wait, so their releases move there:
//
//   for k:  d = dot(ring[s], acc)        for k:  d = dot(ring[s], acc)
//           acc' = wgmma.wait 0 (d)   ->         acc' = wgmma.wait 1 (d)
//           arrive empty[s]                      if k > lb: arrive
//           empty[s_prev]
//                                        acc = wgmma.wait 0 (acc)
//                                        if lb < ub: arrive empty[s_last]
//
// (The accumulator may have no other definition in the loop: ptxas
// serializes wgmma whose accumulator registers are written by other
// instructions while a group is in flight.)
//
// A loop with several independent chains (a dual GEMM: gate and up
// projections of one X tile) keeps all of an iteration's groups in flight:
// their waits become one `wgmma.wait N (d1, ..., dN)` after the last dot,
// N the number of chains, and the drain after the loop retires them all.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEASYNCWGMMA
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kAsyncWgmmaPass = "tile-async-wgmma";

namespace {
/// One accumulator chain of a loop: `acc' = wait 0 (dot(.., acc))`, with
/// `acc` the iter_arg at `index` and `acc'` yielded there.
struct Chain {
  DotOp dot;
  WarpgroupWaitOp wait;
  unsigned index;
};

/// The loop's chains, in program order (independent dots: a dual GEMM's
/// two products of one X tile), and the arrivals after the last wait: the
/// releases of what the dots read.
struct Chains {
  SmallVector<Chain> chains;
  SmallVector<MBarrierArriveOp> releases;
};
} // namespace

/// The chain that `dot` heads in `loop`, or failure with `why`.
static FailureOr<Chain> findChain(scf::ForOp loop, DotOp dot,
                                  std::string &why) {
  Block *body = loop.getBody();
  WarpgroupWaitOp wait = getWaitFor(dot);
  if (!wait) {
    why = "the dot is not followed by a wait for it alone";
    return failure();
  }
  auto arg = dyn_cast<BlockArgument>(dot.getAcc());
  if (!arg || arg.getOwner() != body || arg == loop.getInductionVar() ||
      !arg.hasOneUse()) {
    why = "the accumulator is not a loop-carried value used by the dot alone";
    return failure();
  }
  // An A operand in registers that the loop recomputes is overwritten by
  // the next iteration while the group in flight still reads it (the
  // hardware reads A fragments asynchronously; wrong results on the H200).
  if (!isa<SharedEncodingAttr>(
          cast<RankedTensorType>(dot.getA().getType()).getEncoding()) &&
      !loop.isDefinedOutsideOfLoop(dot.getA())) {
    why = "the dot's A operand is in registers the next iteration rewrites";
    return failure();
  }
  unsigned index = arg.getArgNumber() - loop.getNumInductionVars();
  Value result = wait.getResult(0);
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  if (!result.hasOneUse() || yield.getOperand(index) != result) {
    why = "the accumulator is read or rewritten between the dots";
    return failure();
  }
  return Chain{dot, wait, index};
}

/// Whether `buffer` is one of tile-pipeline's two-stage staging buffers
/// (kStagingBufferAttr): the loop stores a stage only after the wait that
/// retires the wgmma two iterations back, which a group in flight leaves
/// to the previous iteration.
static bool isStagingBuffer(Value buffer) {
  Operation *alloc = buffer.getDefiningOp<LocalAllocOp>();
  return alloc && alloc->hasAttr(kStagingBufferAttr);
}

/// The buffers `dots` read in place (wgmma's shared-memory operands).
static DenseSet<Value> getInPlaceBuffers(ArrayRef<DotOp> dots) {
  DenseSet<Value> inPlace;
  for (DotOp dot : dots)
    for (Value operand : {dot.getA(), dot.getB()})
      if (auto read = operand.getDefiningOp<LocalLoadOp>();
          read &&
          isa_and_nonnull<SharedEncodingAttr>(read.getType().getEncoding()))
        inPlace.insert(read.getBuffer());
  return inPlace;
}

/// Whether the loop rewrites a shared-memory stage of `inPlace` (the
/// buffers its dots read in place) with copies of its own (a cp.async ring
/// refills a stage as soon as the wait returns, not after a release), other
/// than by staging it (isStagingBuffer).
static bool refillsOperands(scf::ForOp loop, const DenseSet<Value> &inPlace) {
  return loop
      .walk([&](Operation *op) {
        Value buffer;
        if (auto copy = dyn_cast<AsyncCopyOp>(op))
          buffer = copy.getBuffer();
        else if (auto store = dyn_cast<LocalStoreOp>(op);
                 store && !isStagingBuffer(store.getBuffer()))
          buffer = store.getBuffer();
        return buffer && inPlace.contains(buffer) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
      })
      .wasInterrupted();
}

static FailureOr<Chains> findChains(scf::ForOp loop, std::string &why) {
  Block *body = loop.getBody();
  SmallVector<DotOp> dots;
  for (auto dot : body->getOps<DotOp>())
    if (isWgmma(dot))
      dots.push_back(dot);
  if (dots.empty())
    return failure();
  Chains result;
  for (DotOp dot : dots) {
    FailureOr<Chain> chain = findChain(loop, dot, why);
    if (failed(chain)) {
      if (dots.size() > 1)
        why = "of the loop's " + std::to_string(dots.size()) +
              " wgmma groups, one cannot stay in flight: " + why;
      return failure();
    }
    result.chains.push_back(*chain);
  }
  auto yield = body->getTerminator();
  WarpgroupWaitOp lastWait = result.chains.back().wait;
  // The merged wait comes after the last dot: a release between the dots
  // would free a stage an earlier dot still reads.
  for (Operation *op = result.chains.front().dot; op != lastWait;
       op = op->getNextNode())
    if (isa<MBarrierArriveOp>(op)) {
      why = "a shared-memory stage is released between the loop's wgmma "
            "groups";
      return failure();
    }
  for (Operation *op = lastWait->getNextNode(); op != yield;
       op = op->getNextNode())
    if (auto arrive = dyn_cast<MBarrierArriveOp>(op))
      result.releases.push_back(arrive);
  // Staged operands need no release: their stores wait for the group in
  // flight themselves.
  DenseSet<Value> inPlace = getInPlaceBuffers(dots);
  bool staged = !inPlace.empty() && llvm::all_of(inPlace, isStagingBuffer);
  if ((result.releases.empty() && !staged) || refillsOperands(loop, inPlace)) {
    why = std::string(dots.size() == 1 ? "the dot's" : "the dots'") +
          " shared-memory operands are not released through mbarriers";
    return failure();
  }
  return result;
}

/// Makes the waits of `chains` one wait after the last dot that lets the
/// iteration's groups stay in flight (`pending` = their number). With one
/// chain, its own wait. Returns that wait.
static WarpgroupWaitOp mergeWaits(Chains &chains) {
  unsigned n = chains.chains.size();
  if (n == 1) {
    chains.chains.front().wait.setPending(1);
    return chains.chains.front().wait;
  }
  WarpgroupWaitOp last = chains.chains.back().wait;
  OpBuilder b(last);
  b.setInsertionPointAfter(last);
  SmallVector<Value> values;
  for (Chain &c : chains.chains)
    values.push_back(c.dot.getResult());
  auto merged = WarpgroupWaitOp::create(
      b, last.getLoc(), ValueRange(values).getTypes(), n, values);
  for (auto [i, c] : llvm::enumerate(chains.chains)) {
    c.wait.getResult(0).replaceAllUsesWith(merged.getResult(i));
    c.wait.erase();
    c.wait = merged;
  }
  return merged;
}

/// Applies the rewrite of the file comment to `loop`. The index of a
/// release on a ring stage the loop advances is recomputed (the previous
/// stage); any other index is carried to the next iteration. (ptxas
/// serializes the wgmma of a loop that carries the stage twice, C7514.)
static void keepInFlight(scf::ForOp loop, Chains &chains) {
  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  SmallVector<std::optional<int64_t>> depths;
  SmallVector<unsigned> carried; // releases whose index is carried
  for (auto [i, a] : llvm::enumerate(chains.releases)) {
    depths.push_back(getCarriedRingDepth(loop, a.getIndex()));
    if (!depths.back())
      carried.push_back(i);
  }
  rewriter.setInsertionPoint(loop);
  Value zero = createI32(rewriter, loc, 0);
  SmallVector<Value> init(carried.size(), zero);
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        SmallVector<Value> indices;
        for (unsigned i : carried)
          indices.push_back(chains.releases[i].getIndex());
        return indices;
      });
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  ValueRange carriedArgs = newLoop.getRegionIterArgs().take_back(carried.size());
  ValueRange carriedResults = newLoop.getResults().take_back(carried.size());
  unsigned ringArgs = newLoop.getNumRegionIterArgs() - carried.size();
  (void)ringArgs;

  // The index a release had one iteration earlier (`inLoop`), or at the
  // loop's last iteration (after it).
  auto previous = [&](OpBuilder &b, unsigned i, bool inLoop) -> Value {
    auto *c = llvm::find(carried, i);
    if (c != carried.end())
      return inLoop ? carriedArgs[c - carried.begin()]
                    : carriedResults[c - carried.begin()];
    Value s = chains.releases[i].getIndex();
    if (!inLoop) // the stage after the last one
      s = newLoop.getResult(cast<BlockArgument>(s).getArgNumber() - 1);
    assert(cast<BlockArgument>(chains.releases[i].getIndex()).getArgNumber() -
                   1 <
               ringArgs &&
           "a ring stage is an original iter_arg");
    return getPreviousStage(b, loc, s, *depths[i]);
  };
  auto release = [&](OpBuilder &b, bool inLoop) {
    for (auto [i, a] : llvm::enumerate(chains.releases))
      MBarrierArriveOp::create(b, a.getLoc(), a.getBarriers(),
                               previous(b, i, inLoop), a.getCta());
  };

  WarpgroupWaitOp wait = mergeWaits(chains);
  rewriter.setInsertionPointAfter(wait);
  Value notFirst =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                            newLoop.getInductionVar(), newLoop.getLowerBound());
  scf::IfOp::create(rewriter, loc, notFirst, [&](OpBuilder &b, Location l) {
    release(b, /*inLoop=*/true);
    scf::YieldOp::create(b, l);
  });

  // After the loop: retire the last group, then release its stage. Both
  // happen only when the loop ran; the loop and they sit in a branch on
  // that, so no path without a wgmma reaches the drain (ptxas serializes
  // the loop's wgmma otherwise, C7514).
  rewriter.setInsertionPointAfter(newLoop);
  Value ran = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                    newLoop.getLowerBound(),
                                    newLoop.getUpperBound());
  auto ifOp = scf::IfOp::create(rewriter, loc, newLoop.getResultTypes(), ran,
                                /*withElseRegion=*/true);
  newLoop->replaceAllUsesWith(ifOp.getResults());
  rewriter.setInsertionPointToStart(ifOp.thenBlock());
  newLoop->moveBefore(ifOp.thenBlock(), ifOp.thenBlock()->begin());
  SmallVector<Value> accs;
  for (Chain &c : chains.chains)
    accs.push_back(newLoop.getResult(c.index));
  auto drain = WarpgroupWaitOp::create(rewriter, loc,
                                       ValueRange(accs).getTypes(), 0, accs);
  release(rewriter, /*inLoop=*/false);
  SmallVector<Value> results(newLoop.getResults());
  for (auto [i, c] : llvm::enumerate(chains.chains))
    results[c.index] = drain.getResult(i);
  scf::YieldOp::create(rewriter, loc, results);
  rewriter.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(rewriter, loc, newLoop.getInitArgs());
  for (MBarrierArriveOp a : chains.releases)
    rewriter.eraseOp(a);
}

namespace {
struct TileAsyncWgmmaPass
    : tile::impl::TileAsyncWgmmaBase<TileAsyncWgmmaPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileAsyncWgmmaPass::runOnOperation() {
  ScheduleAttr schedule = getOperation().getScheduleAttr();
  if (schedule && !ScheduleAttr::flag(schedule.getAsyncWgmma(), true))
    return;
  SmallVector<scf::ForOp> loops;
  getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    std::string why;
    FailureOr<Chains> chains = findChains(loop, why);
    if (failed(chains)) {
      if (!why.empty())
        remarkMissed(loop, kAsyncWgmmaPass, "Synchronous",
                     "wgmma waits stay at 0 pending: " + why);
      continue;
    }
    size_t n = chains->chains.size();
    remarkPassed(loop, kAsyncWgmmaPass, "InFlight",
                 n == 1 ? std::string("one wgmma group stays in flight "
                                      "across iterations")
                        : "the " + std::to_string(n) +
                              " wgmma groups of an iteration (independent "
                              "accumulators) stay in flight across "
                              "iterations");
    keepInFlight(loop, *chains);
    ++numAsyncLoops;
  }
}
