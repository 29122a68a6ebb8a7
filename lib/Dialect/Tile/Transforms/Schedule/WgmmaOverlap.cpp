//===- WgmmaOverlap.cpp - Register work beside the tensor cores -----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-wgmma-overlap: FlashAttention-3's
// intra-warpgroup pipelining, for any loop of the same shape. A loop whose
// body chains two wgmma dots through register work,
//
//   for j:  s = dot1(.., kt(j)); s = wait 0 (s)      <- stage 0
//           p, alpha, ... = f(s, carried)            <- stage 0
//           acc = dot2(p, v(j), acc * alpha)         <- stage 1
//           acc = wait 0 (acc); release v(j)         <- stage 1
//
// leaves the tensor cores idle during f. Running stage 0 one iteration
// ahead of stage 1 lets dot2 of block j-1 run during f of block j:
//
//   S0(0); a = acc * alpha(0)              (prologue)
//   for j in [1, n):
//     s = dot1(.., kt(j))                  stage 0, head
//     acc = dot2(p(j-1), v(j-1), a)        stage 1, head
//     s = wait 1 (s); f(s) ...             stage 0: dot2 stays in flight
//     acc = wait 0 (acc); release v(j-1)   stage 1
//     p(j) = convert(...); producer work   stage 0, deferred
//     a = acc * alpha(j)                   stage 1's rescale, for j
//   S1(n-1) with a                         (epilogue)
//
// Stage 1 is the second dot, its wait, the arrivals after that wait (the
// releases of what it read), the computation of its accumulator from the
// loop-carried one (the online softmax's rescale), and the barrier wait and
// shared-memory read of its B operand. Everything else is stage 0. The
// rescale runs at the end of the iteration before, as soon as the
// accumulator is retired: it stays out of the span between the two dots
// (and out of a ping-pong turn), so the second dot issues right after the
// first. The ops
// that only convert stage 0's results into dot2's A registers, and the
// producer work after dot1 (refills, which wait for the stage dot2 reads to
// be released), run after stage 1's wait, so that the A registers of the
// group in flight are not rewritten and no warp waits for its own release.
//
// The loop is rotated by hand (a zero-trip branch around a prologue, the
// rotated loop and an epilogue) rather than by scf::pipelineForLoop, which
// does not peel an epilogue for loops with dynamic bounds.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEWGMMAOVERLAP
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kWgmmaOverlapPass = "tile-wgmma-overlap";

namespace {
/// A loop's two stages and the order of its rotated body.
struct Plan {
  DotOp first, second;
  WarpgroupWaitOp firstWait, secondWait;
  unsigned accIndex; // the iter_arg that second accumulates into
  DenseSet<Operation *> late; // stage 1
  /// The part of stage 1 that computes the second dot's accumulator operand
  /// from the carried one (the rescale), in program order: the rotated loop
  /// runs it at the end of the iteration before, once the accumulator is
  /// retired, and carries its result.
  SmallVector<Operation *> accOps;
  /// The rotated body: stage 0's head (up to first), stage 1's head (up to
  /// second), stage 0's rest, stage 1's rest, stage 0's deferred ops.
  SmallVector<Operation *> order;
};
} // namespace

/// True for a pure op without regions (it may move within an iteration).
static bool isMovable(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// The barriers completing the copies into `buffer` (TMA loads).
static SmallVector<Value> getFullBarriers(KernelOp kernel, Value buffer) {
  SmallVector<Value> bars;
  kernel.walk([&](TmaLoadOp load) {
    if (load.getBuffer() == buffer && !llvm::is_contained(bars, load.getBarriers()))
      bars.push_back(load.getBarriers());
  });
  return bars;
}

/// Collects stage 1 of `loop` into `plan.late`; failure with `why`.
static LogicalResult findLateStage(scf::ForOp loop, Plan &plan,
                                   std::string &why) {
  Block *body = loop.getBody();
  DotOp second = plan.second;
  // The accumulator: the loop-carried value the second dot's wait is
  // yielded as, read only by the dot and the pure ops that rescale it.
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  Value result = plan.secondWait.getResult(0);
  auto carried = llvm::find(yield.getOperands(), result);
  if (carried == yield.getOperands().end() || !result.hasOneUse()) {
    why = "the second dot's result is read in the loop, or not carried";
    return failure();
  }
  plan.accIndex = carried - yield.getOperands().begin();
  BlockArgument arg = loop.getRegionIterArgs()[plan.accIndex];
  // Ops leading to the dot's accumulator operand...
  DenseSet<Operation *> candidates;
  SmallVector<Value> work{second.getAcc()};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body || !isMovable(def) ||
        !candidates.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  // ... and on the path from the carried value (in program order, so that
  // operands come first). The factors (alpha) stay in stage 0.
  DenseSet<Operation *> onAccPath;
  for (Operation &op : body->without_terminator())
    if (candidates.contains(&op) &&
        llvm::any_of(op.getOperands(), [&](Value v) {
          Operation *d = v.getDefiningOp();
          return v == arg || (d && onAccPath.contains(d));
        })) {
      onAccPath.insert(&op);
      plan.late.insert(&op);
      plan.accOps.push_back(&op);
    }
  Operation *accDef = second.getAcc().getDefiningOp();
  if (second.getAcc() != arg && !(accDef && onAccPath.contains(accDef))) {
    why = "the second dot does not accumulate into a loop-carried value";
    return failure();
  }
  for (Operation *user : arg.getUsers())
    if (user != second && !plan.late.contains(user)) {
      why = "the accumulator is read by more than its rescale";
      return failure();
    }
  plan.late.insert(second);
  plan.late.insert(plan.secondWait);

  // The B operand: read in place from a TMA-filled stage, after a wait on
  // the barrier the copy completes.
  auto read = second.getB().getDefiningOp<LocalLoadOp>();
  if (!read || read->getBlock() != body) {
    why = "the second dot's B operand is not read from a ring stage in the "
          "loop";
    return failure();
  }
  SmallVector<Value> full =
      getFullBarriers(loop->getParentOfType<KernelOp>(), read.getBuffer());
  bool waited = false;
  for (Operation *op = read->getPrevNode(); op; op = op->getPrevNode())
    if (auto wait = dyn_cast<MBarrierWaitOp>(op);
        wait && llvm::is_contained(full, wait.getBarriers())) {
      plan.late.insert(wait);
      waited = true;
    }
  if (!waited) {
    why = "the second dot's B stage is not guarded by an mbarrier (TMA ring)";
    return failure();
  }
  plan.late.insert(read);
  // The releases after the second dot's wait.
  for (Operation *op = plan.secondWait->getNextNode(); op != yield;
       op = op->getNextNode())
    if (isa<MBarrierArriveOp>(op) && !op->hasAttr(kProducerAttr))
      plan.late.insert(op);
  return success();
}

/// Checks that no stage 0 op reads a stage 1 result, and that the second
/// dot reads the first one's result; fills `plan.order`.
static LogicalResult orderStages(scf::ForOp loop, Plan &plan,
                                 std::string &why) {
  Block *body = loop.getBody();
  auto isLate = [&](Value v) {
    Operation *d = v.getDefiningOp();
    if (!d)
      return false;
    Operation *top = body->findAncestorOpInBlock(*d);
    return top && plan.late.contains(top);
  };
  for (Operation &op : body->without_terminator()) {
    if (plan.late.contains(&op))
      continue;
    bool readsLate = false;
    op.walk([&](Operation *nested) {
      readsLate |= llvm::any_of(nested->getOperands(), isLate);
    });
    if (readsLate) {
      why = "an op outside the second dot's stage reads its result";
      return failure();
    }
  }
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (auto [i, v] : llvm::enumerate(yield.getOperands()))
    if (i != plan.accIndex && isLate(v)) {
      why = "the loop carries a value of the second dot's stage";
      return failure();
    }

  // The second dot must depend on the first (else both simply overlap).
  SetVector<Operation *> chain;
  SmallVector<Value> work{plan.second.getA()};
  bool dependent = false;
  while (!work.empty() && !dependent) {
    Value v = work.pop_back_val();
    Operation *d = v.getDefiningOp();
    if (!d || d->getBlock() != body || !chain.insert(d))
      continue;
    dependent = d == plan.firstWait.getOperation();
    llvm::append_range(work, d->getOperands());
    d->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        work.push_back(operand);
    });
  }
  // Independent dots (a dual GEMM's two products): no register work between
  // them to overlap, and nothing to say; tile-async-wgmma keeps both groups
  // in flight.
  if (!dependent)
    return failure();

  // Deferred: the pure ops that only feed the second dot's A operand, and
  // the producer work after the first dot.
  DenseSet<Operation *> deferred;
  SmallVector<Operation *> feed;
  if (Operation *d = plan.second.getA().getDefiningOp())
    feed.push_back(d);
  while (!feed.empty()) {
    Operation *op = feed.pop_back_val();
    if (op->getBlock() != body || plan.late.contains(op) ||
        deferred.contains(op) || !isMovable(op) ||
        !llvm::all_of(op->getUsers(), [&](Operation *u) {
          Operation *top = body->findAncestorOpInBlock(*u);
          return plan.late.contains(top) || deferred.contains(top);
        }))
      continue;
    deferred.insert(op);
    for (Value operand : op->getOperands())
      if (Operation *d = operand.getDefiningOp())
        feed.push_back(d);
  }
  bool afterFirst = false;
  for (Operation &op : body->without_terminator()) {
    if (afterFirst && op.hasAttr(kProducerAttr) && !plan.late.contains(&op))
      deferred.insert(&op);
    afterFirst |= &op == plan.first.getOperation();
  }

  SmallVector<Operation *> head0, head1, rest0, rest1, last0;
  bool firstSeen = false, secondSeen = false;
  for (Operation &op : body->without_terminator()) {
    if (plan.late.contains(&op)) {
      (secondSeen ? rest1 : head1).push_back(&op);
      secondSeen |= &op == plan.second.getOperation();
    } else if (deferred.contains(&op)) {
      last0.push_back(&op);
    } else {
      (firstSeen ? rest0 : head0).push_back(&op);
      firstSeen |= &op == plan.first.getOperation();
    }
  }
  // Stage 1's head runs before stage 0's rest: it may not depend on it
  // within an iteration (it reads the previous iteration's values), and
  // stage 0's rest may not wait for stage 1 (checked above).
  for (ArrayRef<Operation *> part : {ArrayRef(head0), ArrayRef(head1),
                                     ArrayRef(rest0), ArrayRef(rest1),
                                     ArrayRef(last0)})
    llvm::append_range(plan.order, part);
  return success();
}

/// The plan for `loop`, or failure (with `why` when the loop has dots).
static FailureOr<Plan> analyze(scf::ForOp loop, std::string &why) {
  Block *body = loop.getBody();
  // Innermost loops only: an outer loop's own dots (a rotated inner loop's
  // prologue and epilogue) are not a chain of its iterations.
  if (body->walk([](scf::ForOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return failure();
  SmallVector<DotOp> dots;
  loop.walk([&](DotOp dot) {
    if (dot->getParentOfType<scf::ForOp>() == loop && isWgmma(dot))
      dots.push_back(dot);
  });
  if (dots.size() < 2)
    return failure();
  if (dots.size() != 2 || dots[0]->getBlock() != body ||
      dots[1]->getBlock() != body) {
    why = "the loop body does not hold exactly two wgmma dots at its top "
          "level";
    return failure();
  }
  Plan plan;
  plan.first = dots[0];
  plan.second = dots[1];
  plan.firstWait = getWaitFor(plan.first);
  plan.secondWait = getWaitFor(plan.second);
  if (!plan.firstWait || !plan.secondWait) {
    why = "a dot is not followed by a wait for it alone";
    return failure();
  }
  if (failed(findLateStage(loop, plan, why)) ||
      failed(orderStages(loop, plan, why)))
    return failure();
  return plan;
}

/// True when the loop's dots split their rows over two warpgroups of an
/// 8-warp kernel (64 rows each: each warpgroup's wgmma is its own) and the
/// body has no block-wide barrier (which would undo the turns' offset).
static bool canPingpong(scf::ForOp loop, Plan &plan) {
  auto kernel = loop->getParentOfType<KernelOp>();
  if (kernel.getNumWarps() != 8)
    return false;
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(
      cast<RankedTensorType>(plan.second.getType()).getEncoding());
  if (!mma || mma.getWarpsPerCTA().size() != 2 || mma.getWarpsPerCTA()[0] != 8)
    return false;
  return !loop.getBody()
              ->walk([](Operation *op) {
                return isa<BarrierOp, NamedBarrierOp>(op)
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted();
}

namespace {
/// The named barriers of the two warpgroups' turns (ids 3 and 4): each waits
/// on its own before issuing products and arrives at the other's after.
struct Turns {
  Value mine, other;
  void begin(OpBuilder &b, Location loc) const {
    NamedBarrierOp::create(b, loc, mine, 256, /*arrive=*/false);
  }
  void end(OpBuilder &b, Location loc) const {
    NamedBarrierOp::create(b, loc, other, 256, /*arrive=*/true);
  }
};
} // namespace

/// Sets up the turns at the start of the kernel (once per kernel: both
/// warpgroups run the same loops, so the turns carry over from one rotated
/// loop, or tile, to the next); warpgroup 1 lets warpgroup 0 go first.
static Turns createTurns(KernelOp kernel) {
  Block &body = kernel.getBody().front();
  OpBuilder b(&body, body.begin());
  Location loc = kernel.getLoc();
  Value wg = WarpgroupIdOp::create(b, loc);
  Value mine = arith::AddIOp::create(b, loc, wg, createI32(b, loc, 3));
  Value other = arith::SubIOp::create(b, loc, createI32(b, loc, 4), wg);
  Value second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wg,
                                       createI32(b, loc, 1));
  scf::IfOp::create(b, loc, second, [&](OpBuilder &ib, Location l) {
    NamedBarrierOp::create(ib, l, createI32(ib, l, 3), 256, /*arrive=*/true);
    scf::YieldOp::create(ib, l);
  });
  return Turns{mine, other};
}

/// Rotates `loop` as the file comment shows; with `turns`, each clone of the
/// products takes a turn.
static void rotate(scf::ForOp loop, Plan &plan, const Turns *turns) {
  Block *body = loop.getBody();
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  unsigned numArgs = loop.getNumRegionIterArgs();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  Value iv = loop.getInductionVar();

  // What stage 1 reads from stage 0 of its iteration: results of stage 0
  // ops, stage-0-owned iter_args and the induction variable. They are
  // carried one iteration by the rotated loop.
  DenseSet<Operation *> accOps(plan.accOps.begin(), plan.accOps.end());
  SetVector<Value> crossing;
  for (Operation *op : plan.order) {
    if (!plan.late.contains(op) || accOps.contains(op))
      continue;
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        if (auto a = dyn_cast<BlockArgument>(v)) {
          if (a.getOwner() == body && a != loop.getRegionIterArgs()[plan.accIndex])
            crossing.insert(v);
          continue;
        }
        Operation *d = v.getDefiningOp();
        Operation *top = d ? body->findAncestorOpInBlock(*d) : nullptr;
        if (top && !plan.late.contains(top))
          crossing.insert(v);
      }
    });
  }

  // Clones the ops of plan.order: stage 0 with `early`, stage 1 with `late`
  // (null: the stage is left out). In the rotated body (both stages) the
  // second dot, of the previous iteration, is issued between the first dot
  // and its wait, which leaves it in flight. With turns, one turn spans the
  // first stage wait or product to the last product cloned.
  auto cloneStages = [&](OpBuilder &ob, IRMapping *early, IRMapping *late) {
    Operation *turnEnd = late ? plan.second : plan.first;
    bool taken = false;
    for (Operation *op : plan.order) {
      IRMapping *map = plan.late.contains(op) ? late : early;
      if (!map || accOps.contains(op))
        continue;
      if (turns && !taken && isa<MBarrierWaitOp, DotOp>(op)) {
        turns->begin(ob, loc);
        taken = true;
      }
      Operation *clone = ob.clone(*op, *map);
      if (early && late && op == plan.firstWait.getOperation())
        cast<WarpgroupWaitOp>(clone).setPending(1);
      if (turns && op == turnEnd)
        turns->end(ob, loc);
    }
  };

  // The second dot's accumulator operand from the retired accumulator `acc`
  // and the factors stage 0 computed (through `early`).
  Value accArg = loop.getRegionIterArgs()[plan.accIndex];
  auto cloneAccOps = [&](OpBuilder &ob, const IRMapping &early, Value acc) {
    IRMapping map = early;
    map.map(accArg, acc);
    for (Operation *op : plan.accOps)
      ob.clone(*op, map);
    return map.lookupOrDefault(plan.second.getAcc());
  };

  Value ran = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                    loop.getLowerBound(), loop.getUpperBound());
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), ran,
                                 /*withElseRegion=*/true);
  OpBuilder tb = OpBuilder::atBlockBegin(guard.thenBlock());

  // Prologue: stage 0 of the first iteration.
  IRMapping pro;
  pro.map(iv, loop.getLowerBound());
  for (auto [a, init] : llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    pro.map(a, init);
  cloneStages(tb, &pro, nullptr);

  // The rotated loop: iter_args are the original ones (the accumulator as
  // stage 1 left it) and the crossing values of the previous iteration.
  SmallVector<Value> inits;
  for (auto [i, v] : llvm::enumerate(yield.getOperands()))
    inits.push_back(i == plan.accIndex
                        ? cloneAccOps(tb, pro, loop.getInitArgs()[i])
                        : pro.lookupOrDefault(v));
  for (Value v : crossing)
    inits.push_back(pro.lookupOrDefault(v));
  Value lb = arith::AddIOp::create(tb, loc, loop.getLowerBound(), loop.getStep());
  auto kernel = scf::ForOp::create(tb, loc, lb, loop.getUpperBound(),
                                   loop.getStep(), inits);
  kernel->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  {
    Block *kb = kernel.getBody();
    OpBuilder kbld = OpBuilder::atBlockBegin(kb);
    if (!kb->empty())
      kb->getTerminator()->erase();
    kbld.setInsertionPointToEnd(kb);
    ValueRange args = kernel.getRegionIterArgs();
    IRMapping cur, prev;
    cur.map(iv, kernel.getInductionVar());
    for (unsigned i = 0; i < numArgs; ++i)
      cur.map(loop.getRegionIterArgs()[i], args[i]);
    prev.map(plan.second.getAcc(), args[plan.accIndex]);
    for (auto [i, v] : llvm::enumerate(crossing))
      prev.map(v, args[numArgs + i]);
    // Interleaved, each op with its stage's mapping: stage 0 reads this
    // iteration's values, stage 1 the previous iteration's. The next
    // iteration's accumulator operand is made last, outside the turn.
    cloneStages(kbld, &cur, &prev);
    SmallVector<Value> yields;
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      yields.push_back(i == plan.accIndex
                           ? cloneAccOps(kbld, cur, prev.lookup(v))
                           : cur.lookupOrDefault(v));
    for (Value v : crossing)
      yields.push_back(cur.lookupOrDefault(v));
    scf::YieldOp::create(kbld, loc, yields);
  }

  // Epilogue: stage 1 of the last iteration.
  IRMapping epi;
  epi.map(plan.second.getAcc(), kernel.getResult(plan.accIndex));
  for (auto [i, v] : llvm::enumerate(crossing))
    epi.map(v, kernel.getResult(numArgs + i));
  cloneStages(tb, nullptr, &epi);
  SmallVector<Value> results;
  for (unsigned i = 0; i < numArgs; ++i)
    results.push_back(i == plan.accIndex
                          ? epi.lookup(yield.getOperand(i))
                          : kernel.getResult(i));
  scf::YieldOp::create(tb, loc, results);

  OpBuilder eb = OpBuilder::atBlockBegin(guard.elseBlock());
  scf::YieldOp::create(eb, loc, loop.getInitArgs());
  loop->replaceAllUsesWith(guard.getResults());
  loop->erase();
}

namespace {
struct TileWgmmaOverlapPass
    : tile::impl::TileWgmmaOverlapBase<TileWgmmaOverlapPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileWgmmaOverlapPass::runOnOperation() {
  ScheduleAttr schedule = getOperation().getScheduleAttr();
  if (schedule && !ScheduleAttr::flag(schedule.getAsyncWgmma(), true))
    return;
  SmallVector<scf::ForOp> loops;
  getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
  std::optional<Turns> turns; // made once, for the first loop that takes them
  for (scf::ForOp loop : loops) {
    std::string why;
    FailureOr<Plan> plan = analyze(loop, why);
    if (failed(plan)) {
      if (!why.empty())
        remarkMissed(loop, kWgmmaOverlapPass, "NotOverlapped",
                     "the loop's dots run one after the other: " + why);
      continue;
    }
    // Default: turns where the register work is a large share of an
    // iteration, i.e. the first dot's K (attention's head dim) is at most
    // 64. H200, attention block program, S = 4k / 16k: head dim 64 432 /
    // 466 TFLOP/s with turns against 378 / 404 without; head dim 128 613 /
    // 651 against 614 / 663.
    int64_t k = cast<RankedTensorType>(plan->first.getA().getType()).getShape()[1];
    BoolAttr knob = schedule ? schedule.getPingpong() : BoolAttr();
    bool pingpong = ScheduleAttr::flag(knob, k <= 64) && canPingpong(loop, *plan);
    if (pingpong && !turns)
      turns = createTurns(getOperation());
    remarkPassed(loop, kWgmmaOverlapPass, "Overlapped",
                 "the next iteration's first dot is issued before this "
                 "iteration's register work, which runs beside the second "
                 "dot" +
                     std::string(pingpong ? "; its two warpgroups take turns "
                                            "issuing the products"
                                          : ""));
    rotate(loop, *plan, pingpong ? &*turns : nullptr);
    ++numOverlappedLoops;
  }
}
