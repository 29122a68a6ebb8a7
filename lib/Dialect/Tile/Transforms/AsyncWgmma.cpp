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
//           arrive empty[s]                      if k > lb: arrive empty[s_prev]
//                                        acc = wgmma.wait 0 (acc)
//                                        if lb < ub: arrive empty[s_last]
//
// (The accumulator may have no other definition in the loop: ptxas
// serializes wgmma whose accumulator registers are written by other
// instructions while a group is in flight.)
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

static constexpr StringLiteral kPassName = "tile-async-wgmma";

namespace {
/// The accumulator chain of a loop: `acc' = wait 0 (dot(.., acc))`, with
/// `acc` the iter_arg at `index` and `acc'` yielded there.
struct Chain {
  DotOp dot;
  WarpgroupWaitOp wait;
  unsigned index;
  /// Arrivals after the wait: the releases of what the dot read.
  SmallVector<MBarrierArriveOp> releases;
};
} // namespace

/// The chain of `loop`, or failure with `why`.
static FailureOr<Chain> findChain(scf::ForOp loop, std::string &why) {
  Block *body = loop.getBody();
  SmallVector<DotOp> dots;
  for (auto dot : body->getOps<DotOp>())
    if (isWgmma(dot))
      dots.push_back(dot);
  if (dots.empty())
    return failure();
  if (dots.size() != 1) {
    why = "the loop issues " + std::to_string(dots.size()) +
          " wgmma groups per iteration";
    return failure();
  }
  DotOp dot = dots.front();
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
  Chain chain{dot, wait, index, {}};
  for (Operation *op = wait->getNextNode(); op != yield; op = op->getNextNode())
    if (auto arrive = dyn_cast<MBarrierArriveOp>(op))
      chain.releases.push_back(arrive);
  // The stages the dot reads in place must be refilled only after their
  // release: a cp.async ring rewrites a stage as soon as the wait returns.
  DenseSet<Value> inPlace;
  for (Value operand : {dot.getA(), dot.getB()})
    if (auto read = operand.getDefiningOp<LocalLoadOp>();
        read && isa_and_nonnull<SharedEncodingAttr>(read.getType().getEncoding()))
      inPlace.insert(read.getBuffer());
  bool copies = loop.walk([&](Operation *op) {
                      Value buffer;
                      if (auto copy = dyn_cast<AsyncCopyOp>(op))
                        buffer = copy.getBuffer();
                      else if (auto store = dyn_cast<LocalStoreOp>(op))
                        buffer = store.getBuffer();
                      return buffer && inPlace.contains(buffer)
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    })
                    .wasInterrupted();
  if (chain.releases.empty() || copies) {
    why = "the dot's shared-memory operands are not released through "
          "mbarriers";
    return failure();
  }
  return chain;
}

/// Applies the rewrite of the file comment to `loop`. The index of a
/// release on a ring stage the loop advances is recomputed (the previous
/// stage); any other index is carried to the next iteration. (ptxas
/// serializes the wgmma of a loop that carries the stage twice, C7514.)
static void keepInFlight(scf::ForOp loop, Chain &chain) {
  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  SmallVector<std::optional<int64_t>> depths;
  SmallVector<unsigned> carried; // releases whose index is carried
  for (auto [i, a] : llvm::enumerate(chain.releases)) {
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
          indices.push_back(chain.releases[i].getIndex());
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
    Value s = chain.releases[i].getIndex();
    if (!inLoop) // the stage after the last one
      s = newLoop.getResult(cast<BlockArgument>(s).getArgNumber() - 1);
    assert(cast<BlockArgument>(chain.releases[i].getIndex()).getArgNumber() -
               1 < ringArgs && "a ring stage is an original iter_arg");
    return getPreviousStage(b, loc, s, *depths[i]);
  };
  auto release = [&](OpBuilder &b, bool inLoop) {
    for (auto [i, a] : llvm::enumerate(chain.releases))
      MBarrierArriveOp::create(b, a.getLoc(), a.getBarriers(),
                               previous(b, i, inLoop), a.getCta());
  };

  chain.wait.setPending(1);
  rewriter.setInsertionPointAfter(chain.wait);
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
  Value acc = newLoop.getResult(chain.index);
  auto drain = WarpgroupWaitOp::create(rewriter, loc, acc.getType(), 0,
                                       ValueRange{acc});
  release(rewriter, /*inLoop=*/false);
  SmallVector<Value> results(newLoop.getResults());
  results[chain.index] = drain.getResult(0);
  scf::YieldOp::create(rewriter, loc, results);
  rewriter.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(rewriter, loc, newLoop.getInitArgs());
  for (MBarrierArriveOp a : chain.releases)
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
    FailureOr<Chain> chain = findChain(loop, why);
    if (failed(chain)) {
      if (!why.empty())
        remarkMissed(loop, kPassName, "Synchronous",
                     "wgmma waits stay at 0 pending: " + why);
      continue;
    }
    remarkPassed(loop, kPassName, "InFlight",
                 "one wgmma group stays in flight across iterations");
    keepInFlight(loop, *chain);
    ++numAsyncLoops;
  }
}
