//===- PrefetchLoads.cpp - Loads a loop reads, issued an iteration ahead --===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-prefetch-loads. The rings of tile-tma-pipeline
// and tile-pipeline take the loads that feed dots; every other load of a
// loop (a document-id row beside attention's keys, a scale vector, a row a
// reduction walks) is issued where the program reads it, and each iteration
// waits the whole memory latency for it. The pass issues such a load one
// iteration ahead, into registers, as Triton's software pipeliner does for
// the loads of its loops:
//
//   x0 = load(view, f(lb))
//   for iv = lb to ub step s iter_args(x = x0) {
//     xn = load(view, f(iv + s))   // first in the body: in flight meanwhile
//     ... uses x ...
//     yield xn
//   }
//
// The offsets f(iv) are recomputed for the next iteration from the ops that
// compute them (pure ops of the induction variable and of values defined
// before the loop). The load past the last iteration reads within the
// view's bounds or reads padding, as every tile.load does, so it never
// faults. The carried tiles must fit in a thread's register budget beside
// what the loop keeps live.
//
// Reading early must not miss an earlier iteration's write. A loop that
// writes global memory (tile.store, tile.atomic_add, a TMA store) through
// views other than those it reads is versioned, as vectorizers version
// loops on a run-time alias check: where tile.views_overlap finds the
// memory read and the memory written apart (an out-of-place softmax),
// the prefetched loop runs; otherwise the loop as written. A loop that
// writes through the pointer it reads (in place), through a view made in
// the loop, by another kind of write, or that holds a dot or a
// shared-memory ring, is left as written.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/Resources.h"
#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEPREFETCHLOADS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kPrefetchLoadsPass = "tile-prefetch-loads";

/// Whether `op` may write global memory: a tile.store, tile.atomic_add or
/// TMA store, or an op of another dialect with a write effect (or unknown
/// effects). The ring ops of tile-pipeline and tile-tma-pipeline write
/// shared memory only.
static bool mayWriteGlobal(Operation *op) {
  if (isa<StoreOp, AtomicAddOp, TmaStoreOp>(op))
    return true;
  if (isa<TileDialect>(op->getDialect()) ||
      op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return !effects || effects.hasEffect<MemoryEffects::Write>();
}

/// Every op of `loop` (nested ops included) that may write global memory.
static SmallVector<Operation *> findGlobalWrites(scf::ForOp loop) {
  SmallVector<Operation *> writes;
  loop.getBody()->walk([&](Operation *op) {
    if (mayWriteGlobal(op))
      writes.push_back(op);
  });
  return writes;
}

/// The view a global write writes through (a TMA store's: the one its
/// tensor map describes); null for a write of another kind.
static Value getWrittenView(Operation *write) {
  if (auto store = dyn_cast<StoreOp>(write))
    return store.getView();
  if (auto add = dyn_cast<AtomicAddOp>(write))
    return add.getView();
  if (auto tma = dyn_cast<TmaStoreOp>(write))
    if (auto map = tma.getMap().getDefiningOp<MakeTensorMapOp>())
      return map.getView();
  return {};
}

/// The base pointer of a view made by tile.make_view, else null.
static Value getViewBase(Value view) {
  auto make = view.getDefiningOp<MakeViewOp>();
  return make ? make.getBase() : Value();
}

/// Why `loop`'s `writes` keep its loads from being issued ahead even behind
/// a run-time check, or the empty string when such a check can guard them.
static std::string whyNotVersioned(scf::ForOp loop,
                                   ArrayRef<Operation *> writes,
                                   ArrayRef<Operation *> loads) {
  auto at = [](Operation *op) {
    return "'" + op->getName().getStringRef().str() + "' at " + getLineOf(op);
  };
  auto outside = [&](Value v) {
    return v && !loop->isAncestor(v.getParentRegion()->getParentOp());
  };
  bool pipelined = false;
  loop.getBody()->walk([&](Operation *op) {
    auto isRing = [](Type t) { return isa<SmemType, MBarrierType>(t); };
    pipelined |= isa<DotOp>(op) ||
                 llvm::any_of(op->getOperandTypes(), isRing) ||
                 llvm::any_of(op->getResultTypes(), isRing);
  });
  if (pipelined)
    return "the loop writes global memory (" + at(writes.front()) +
           ") and holds a dot or a shared-memory ring, which are not "
           "versioned";
  for (Operation *write : writes) {
    Value view = getWrittenView(write);
    if (!outside(view) || !getViewBase(view))
      return "the loop writes global memory (" + at(write) +
             ") through no view made before it by tile.make_view";
    for (Operation *load : loads) {
      Value read = load->getOperand(0);
      if (!outside(read) || !getViewBase(read))
        return "the loop writes global memory (" + at(write) +
               ") and this load's view is not made before it by "
               "tile.make_view";
      if (getViewBase(read) == getViewBase(view))
        return "the loop writes the buffer it reads (" + at(write) +
               " writes through the same pointer)";
    }
  }
  return "";
}

/// The ops of `loop`'s body that the operands of `load` are computed from,
/// in program order, or failure (with the reason in `why`) when one of them
/// reads a value the loop carries, has regions or touches memory (a
/// tile.load_scalar, being pure, may be recomputed).
static FailureOr<SmallVector<Operation *>>
getOffsetSlice(Operation *load, scf::ForOp loop, std::string &why) {
  Block *body = loop.getBody();
  SetVector<Operation *> slice;
  SmallVector<Value> work(load->getOperands());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && arg != loop.getInductionVar()) {
        why = "its offsets depend on a value the loop carries";
        return failure();
      }
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isProperAncestor(def) || slice.contains(def))
      continue;
    if (def->getBlock() != body || def->getNumRegions() != 0 ||
        !isMemoryEffectFree(def)) {
      why = (Twine("its offsets are computed by '") +
             def->getName().getStringRef() + "', which cannot be recomputed")
                .str();
      return failure();
    }
    slice.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Clones `load` and the ops of `slice` at `b`'s insertion point through
/// `map` (which maps the loop's induction variable to the iteration to
/// load); ops `map` already cloned (another candidate's offsets, or the
/// candidate a later one's offsets read) are reused. Returns the clone's
/// result.
static Value cloneAt(OpBuilder &b, Operation *load, ArrayRef<Operation *> slice,
                     IRMapping &map) {
  for (Operation *op :
       llvm::concat<Operation *const>(slice, ArrayRef<Operation *>(load)))
    if (!map.contains(op))
      b.clone(*op, map);
  return map.lookup(load->getResult(0));
}

/// 32-bit registers a thread holds of `type` in its layout (copies of a
/// broadcast row included; one for a scalar).
static int64_t getHeldRegisters(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 1;
  int64_t bits = std::max<int64_t>(8, tensor.getElementTypeBitWidth());
  return llvm::divideCeil(getElemsPerThread(type) * bits, 32);
}

namespace {
/// A load of a loop and the ops its offsets come from.
struct PrefetchedLoad {
  Operation *load;
  SmallVector<Operation *> slice;
  int64_t regs;
};

struct TilePrefetchLoadsPass
    : tile::impl::TilePrefetchLoadsBase<TilePrefetchLoadsPass> {
  using Base::Base;
  void runOnOperation() override;
  void prefetchLoop(scf::ForOp loop, const TargetInfo &target);
};
} // namespace

/// Issues `candidates` (loads of `loop`) one iteration ahead: the first
/// iteration's before the loop, each next iteration's first in the body,
/// carried to the iteration that reads it.
static void prefetch(scf::ForOp loop, ArrayRef<PrefetchedLoad> candidates) {
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  Value loopIv = loop.getInductionVar();
  IRMapping before;
  before.map(loopIv, loop.getLowerBound());
  SmallVector<Value> first;
  for (const PrefetchedLoad &c : candidates)
    first.push_back(cloneAt(rewriter, c.load, c.slice, before));
  Block *body = loop.getBody();
  auto yieldNext = [&](OpBuilder &b, Location loc,
                       ArrayRef<BlockArgument>) -> SmallVector<Value> {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    IRMapping ahead;
    ahead.map(loopIv, arith::AddIOp::create(b, loc, loopIv, loop.getStep()));
    SmallVector<Value> values;
    for (const PrefetchedLoad &c : candidates)
      values.push_back(cloneAt(b, c.load, c.slice, ahead));
    return values;
  };
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, first, /*replaceInitOperandUsesInLoop=*/false, yieldNext);
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  unsigned carried = newLoop.getNumRegionIterArgs() - candidates.size();
  for (auto [i, c] : llvm::enumerate(candidates)) {
    rewriter.replaceAllUsesWith(c.load->getResult(0),
                                newLoop.getRegionIterArgs()[carried + i]);
    rewriter.eraseOp(c.load);
  }
}

/// Guards `loop` by a run-time check that the memory of `reads` (views) is
/// apart from the memory `writes` write: `loop` moves to the branch where
/// it is, and a copy of it, as written, runs where it is not.
static void versionLoop(scf::ForOp loop, ArrayRef<Value> reads,
                        ArrayRef<Operation *> writes) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SetVector<Value> readSet(reads.begin(), reads.end()), writeSet;
  for (Operation *write : writes)
    writeSet.insert(getWrittenView(write));
  Value overlap;
  for (Value read : readSet)
    for (Value write : writeSet) {
      Value v = ViewsOverlapOp::create(b, loc, read, write);
      overlap = overlap ? arith::OrIOp::create(b, loc, overlap, v) : v;
    }
  auto ifOp = scf::IfOp::create(
      b, loc, overlap,
      [&](OpBuilder &tb, Location l) {
        Operation *asWritten = tb.clone(*loop);
        scf::YieldOp::create(tb, l, asWritten->getResults());
      },
      [&](OpBuilder &eb, Location l) {
        scf::YieldOp::create(eb, l, loop.getResults());
      });
  Operation *elseYield = ifOp.elseYield();
  loop->replaceUsesWithIf(ifOp.getResults(), [&](OpOperand &use) {
    return use.getOwner() != elseYield;
  });
  loop->moveBefore(elseYield);
}

void TilePrefetchLoadsPass::prefetchLoop(scf::ForOp loop,
                                         const TargetInfo &target) {
  SmallVector<Operation *> loads;
  for (Operation &op : loop.getBody()->getOperations())
    if (isa<LoadOp, LoadScalarOp>(op))
      loads.push_back(&op);
  if (loads.empty())
    return;
  SmallVector<Operation *> writes = findGlobalWrites(loop);
  if (!writes.empty()) {
    std::string why = whyNotVersioned(loop, writes, loads);
    if (!why.empty()) {
      for (Operation *load : loads)
        remarkMissed(load, kPrefetchLoadsPass, "LoopWrites",
                     "this load waits for memory in every iteration: " + why +
                         ", so the next iteration's load is not issued ahead");
      return;
    }
  }
  auto kernel = loop->getParentOfType<KernelOp>();
  int64_t threads = kernel.getNumWarps() * 32;
  int64_t budget = getThreadRegisterBudget(target, threads);
  int64_t need = estimateLoopRegisters(loop, threads) + kRegisterReserve;
  Operation *yield = loop.getBody()->getTerminator();
  SmallVector<PrefetchedLoad> candidates;
  for (Operation *load : loads) {
    std::string why;
    FailureOr<SmallVector<Operation *>> slice = getOffsetSlice(load, loop, why);
    if (failed(slice)) {
      remarkMissed(load, kPrefetchLoadsPass, "NotRecomputable",
                   "this load waits for memory in every iteration: " + why);
      continue;
    }
    // A load of the induction variable that the loop only yields is
    // already issued ahead (by the program, as attention backwards carry
    // the next block's row statistics).
    if (llvm::all_of(load->getUsers(),
                     [&](Operation *user) { return user == yield; }))
      continue;
    int64_t regs = getHeldRegisters(load->getResult(0).getType());
    if (need + regs > budget) {
      remarkMissed(load, kPrefetchLoadsPass, "OverRegisterBudget",
                   "this load waits for memory in every iteration: issued "
                   "ahead, its tile would take " +
                       Twine(regs) + " registers a thread beside the loop's " +
                       Twine(need) + ", over the budget of " + Twine(budget));
      continue;
    }
    need += regs;
    candidates.push_back({load, std::move(*slice), regs});
  }
  // A candidate read only by other candidates' offsets (a block index from
  // a table) is recomputed with them, not carried.
  DenseSet<Operation *> offsetOps, candidateLoads;
  for (const PrefetchedLoad &c : candidates) {
    offsetOps.insert(c.slice.begin(), c.slice.end());
    candidateLoads.insert(c.load);
  }
  // Where the loop writes global memory, every load issued ahead is read
  // before the writes of the iteration before: the loop is versioned on
  // their views.
  std::string guarded;
  SmallVector<Value> readViews;
  if (!writes.empty() && !candidates.empty()) {
    guarded = ", where a run-time check finds the memory the loop writes "
              "apart from the memory it reads (else the loop runs as written)";
    for (const PrefetchedLoad &c : candidates)
      readViews.push_back(c.load->getOperand(0));
  }
  SmallVector<PrefetchedLoad> carried;
  for (PrefetchedLoad &c : candidates) {
    bool onlyOffset =
        offsetOps.contains(c.load) &&
        llvm::all_of(c.load->getUsers(), [&](Operation *user) {
          return offsetOps.contains(user) || candidateLoads.contains(user);
        });
    if (onlyOffset) {
      remarkPassed(c.load, kPrefetchLoadsPass, "Prefetched",
                   "issued one iteration ahead with the loads whose offsets "
                   "it gives" +
                       guarded);
      continue;
    }
    remarkPassed(c.load, kPrefetchLoadsPass, "Prefetched",
                 "issued one iteration ahead, into " + Twine(c.regs) +
                     (c.regs == 1 ? " register" : " registers") + " a thread" +
                     guarded);
    carried.push_back(std::move(c));
  }
  candidates = std::move(carried);
  if (candidates.empty())
    return;
  numPrefetched += candidates.size();
  if (!writes.empty())
    versionLoop(loop, readViews, writes);
  prefetch(loop, candidates);
}

void TilePrefetchLoadsPass::runOnOperation() {
  FailureOr<TargetInfo> target = resolveTarget(getOperation(), chip);
  if (failed(target))
    return signalPassFailure();
  SmallVector<scf::ForOp> loops;
  // Not tile-persistent's tile loop: its loads are each tile's epilogue
  // operands, read beside the tile's stores.
  getOperation().walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kPersistentLoopAttr))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops)
    prefetchLoop(loop, *target);
}
