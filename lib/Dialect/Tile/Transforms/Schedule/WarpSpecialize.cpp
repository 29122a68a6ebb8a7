//===- WarpSpecialize.cpp - Producer and consumer warps -------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-warp-specialize. The pipeliners leave the work
// of filling ring stages in place, marked `tile.producer`: the consumer
// warps wait for a free stage and issue its copies between their own
// products. This pass gives that work to an added warpgroup:
//
//   allocations, tensor maps, scalar code       (before the op: both see it)
//   tile.warp_specialize regs(C) {
//     the program without its producer work     (the kernel's warps)
//   } partition warps(4) regs(P) {
//     the producer work, in a copy of the loops and branches around it that
//     keeps only what that work needs: bounds, offsets, ring positions
//   }
//
// The copy is a slice of the program: starting from the producer ops, it
// keeps every op computing a value they use, the loops and branches that
// contain them, and of those loops only the carried values that are needed
// (the producer carries the ring position, not the accumulators). Ring
// protocols stay valid in both roles: the consumers release stages through
// the empty barriers the producer waits on, and the producer completes the
// full barriers the consumers wait on.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/Resources.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kWarpSpecializePass = "tile-warp-specialize";

/// Ops that stay outside the tile.warp_specialize: allocations (barriers
/// must be initialized by all threads), tensor maps, and cluster barriers
/// (every thread of the cluster takes part; one after the program stays
/// after the op).
static bool isSetupOp(Operation *op) {
  return isa<LocalAllocOp, MBarrierAllocOp, MakeTensorMapOp, MakeViewOp,
             ClusterBarrierOp>(op);
}

static bool hasTensorType(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return isa<RankedTensorType>(t); });
}

namespace {
/// The slice of a block's ops (and of the ops nested in them) that a set of
/// root ops needs. Roots are kept whole; scf.for and scf.if around kept ops
/// are kept with only the carried values and results that are needed.
class ProducerSlice {
public:
  /// `available`: values defined outside the sliced block that the slice
  /// may use as they are.
  ProducerSlice(Block &block, function_ref<bool(Value)> available)
      : block(block), available(available) {}

  /// Adds `root` (kept whole) and what it needs; failure (with `why`) when
  /// that includes a tile value or an op with side effects.
  LogicalResult addRoot(Operation *root, std::string &why);

  /// Clones the slice of `block` into `dest` at the builder's point.
  void clone(OpBuilder &b);

private:
  LogicalResult need(Value v, std::string &why);
  LogicalResult keepWhole(Operation *op, std::string &why);
  LogicalResult keepAncestors(Operation *op, std::string &why);
  void cloneBlock(OpBuilder &b, Block &src, IRMapping &map);

  Block &block;
  function_ref<bool(Value)> available;
  DenseSet<Operation *> whole, partial;
  DenseSet<Value> needed;
};
} // namespace

LogicalResult ProducerSlice::addRoot(Operation *root, std::string &why) {
  if (failed(keepAncestors(root, why)))
    return failure();
  whole.insert(root);
  // Everything the root's regions use from outside it.
  SmallVector<Value> uses;
  root->walk([&](Operation *op) {
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      Block *owner = def ? def->getBlock() : cast<BlockArgument>(v).getOwner();
      if (!root->isAncestor(owner->getParentOp()))
        uses.push_back(v);
    }
  });
  for (Value v : uses)
    if (failed(need(v, why)))
      return failure();
  return success();
}

LogicalResult ProducerSlice::keepAncestors(Operation *op, std::string &why) {
  for (Operation *p = op->getParentOp(); p && p != block.getParentOp();
       p = p->getParentOp()) {
    if (whole.contains(p) || !partial.insert(p).second)
      return success();
    if (auto forOp = dyn_cast<scf::ForOp>(p)) {
      for (Value v : {forOp.getLowerBound(), forOp.getUpperBound(),
                      forOp.getStep()})
        if (failed(need(v, why)))
          return failure();
    } else if (auto ifOp = dyn_cast<scf::IfOp>(p)) {
      if (failed(need(ifOp.getCondition(), why)))
        return failure();
    } else {
      why = ("the producer work is inside '" + p->getName().getStringRef() +
             "'")
                .str();
      return failure();
    }
  }
  return success();
}

LogicalResult ProducerSlice::keepWhole(Operation *op, std::string &why) {
  if (whole.contains(op))
    return success();
  if (hasTensorType(op->getResultTypes()) ||
      hasTensorType(op->getOperandTypes())) {
    why = ("it needs the tile computed by '" + op->getName().getStringRef() +
           "'")
              .str();
    return failure();
  }
  if (!isMemoryEffectFree(op) || op->getNumRegions() != 0) {
    why = ("it needs the value of '" + op->getName().getStringRef() +
           "', which has side effects")
              .str();
    return failure();
  }
  whole.insert(op);
  if (failed(keepAncestors(op, why)))
    return failure();
  for (Value v : op->getOperands())
    if (failed(need(v, why)))
      return failure();
  return success();
}

LogicalResult ProducerSlice::need(Value v, std::string &why) {
  if (available(v) || !needed.insert(v).second)
    return success();
  if (isa<RankedTensorType>(v.getType())) {
    why = "it needs a tile value";
    return failure();
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    auto forOp = dyn_cast<scf::ForOp>(owner);
    if (!forOp) {
      why = ("it needs an argument of '" + owner->getName().getStringRef() +
             "'")
                .str();
      return failure();
    }
    if (failed(keepAncestors(forOp.getBody()->getTerminator(), why)))
      return failure();
    if (arg == forOp.getInductionVar())
      return success();
    unsigned i = arg.getArgNumber() - 1;
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    if (failed(need(forOp.getInitArgs()[i], why)) ||
        failed(need(yield.getOperand(i), why)))
      return failure();
    return success();
  }
  auto result = cast<OpResult>(v);
  Operation *def = result.getOwner();
  unsigned i = result.getResultNumber();
  if (auto forOp = dyn_cast<scf::ForOp>(def)) {
    if (failed(keepAncestors(forOp.getBody()->getTerminator(), why)))
      return failure();
    return need(forOp.getRegionIterArgs()[i], why);
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    for (Region *r : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
      if (r->empty())
        continue;
      Operation *yield = r->front().getTerminator();
      if (failed(keepAncestors(yield, why)) ||
          failed(need(yield->getOperand(i), why)))
        return failure();
    }
    return success();
  }
  return keepWhole(def, why);
}

void ProducerSlice::clone(OpBuilder &b) {
  IRMapping map;
  cloneBlock(b, block, map);
}

void ProducerSlice::cloneBlock(OpBuilder &b, Block &src, IRMapping &map) {
  for (Operation &op : src) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    if (whole.contains(&op)) {
      b.clone(op, map);
      continue;
    }
    if (!partial.contains(&op))
      continue;
    Location loc = op.getLoc();
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      SmallVector<unsigned> kept;
      SmallVector<Value> init;
      for (auto [i, arg] : llvm::enumerate(forOp.getRegionIterArgs()))
        if (needed.contains(arg) || needed.contains(forOp.getResult(i))) {
          kept.push_back(i);
          init.push_back(map.lookupOrDefault(forOp.getInitArgs()[i]));
        }
      auto newFor = scf::ForOp::create(
          b, loc, map.lookupOrDefault(forOp.getLowerBound()),
          map.lookupOrDefault(forOp.getUpperBound()),
          map.lookupOrDefault(forOp.getStep()), init);
      map.map(forOp.getInductionVar(), newFor.getInductionVar());
      for (auto [j, i] : llvm::enumerate(kept)) {
        map.map(forOp.getRegionIterArgs()[i], newFor.getRegionIterArgs()[j]);
        map.map(forOp.getResult(i), newFor.getResult(j));
      }
      OpBuilder::InsertionGuard guard(b);
      Block *body = newFor.getBody();
      if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
        body->back().erase();
      b.setInsertionPointToEnd(body);
      cloneBlock(b, *forOp.getBody(), map);
      auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
      SmallVector<Value> yielded;
      for (unsigned i : kept)
        yielded.push_back(map.lookupOrDefault(yield.getOperand(i)));
      scf::YieldOp::create(b, loc, yielded);
      continue;
    }
    auto ifOp = cast<scf::IfOp>(op);
    SmallVector<unsigned> kept;
    SmallVector<Type> types;
    for (auto [i, r] : llvm::enumerate(ifOp.getResults()))
      if (needed.contains(r)) {
        kept.push_back(i);
        types.push_back(r.getType());
      }
    bool hasElse = !ifOp.getElseRegion().empty();
    auto newIf = scf::IfOp::create(
        b, loc, types, map.lookupOrDefault(ifOp.getCondition()), hasElse);
    for (auto [j, i] : llvm::enumerate(kept))
      map.map(ifOp.getResult(i), newIf.getResult(j));
    auto fill = [&](Region &from, Region &to) {
      OpBuilder::InsertionGuard guard(b);
      Block *dst = &to.front();
      if (!dst->empty() && dst->back().hasTrait<OpTrait::IsTerminator>())
        dst->back().erase();
      b.setInsertionPointToEnd(dst);
      cloneBlock(b, from.front(), map);
      Operation *yield = from.front().getTerminator();
      SmallVector<Value> yielded;
      for (unsigned i : kept)
        yielded.push_back(map.lookupOrDefault(yield->getOperand(i)));
      scf::YieldOp::create(b, loc, yielded);
    };
    fill(ifOp.getThenRegion(), newIf.getThenRegion());
    if (hasElse)
      fill(ifOp.getElseRegion(), newIf.getElseRegion());
  }
}

/// setmaxnreg's smallest budget.
static constexpr int64_t kMinSetmaxnreg = 24;

/// Registers per consumer thread: what the register file leaves after the
/// producer warpgroup, in multiples of 8, at most 256.
static int64_t getConsumerRegs(const TargetInfo &target, int64_t warps,
                               int64_t producerRegs) {
  int64_t left = target.regsPerSM - producerRegs * 128;
  return std::min<int64_t>(256, left / (32 * warps) / 8 * 8);
}

namespace {
struct TileWarpSpecializePass
    : tile::impl::TileWarpSpecializeBase<TileWarpSpecializePass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileWarpSpecializePass::runOnOperation() {
  KernelOp kernel = getOperation();
  SmallVector<Operation *> roots;
  kernel.walk([&](Operation *op) {
    if (op->hasAttr(kProducerAttr))
      roots.push_back(op);
  });
  if (roots.empty())
    return;
  FailureOr<TargetInfo> target = resolveTarget(kernel, chip);
  if (failed(target))
    return signalPassFailure();
  ScheduleAttr schedule = kernel.getScheduleAttr();
  if (schedule && !ScheduleAttr::flag(schedule.getWarpSpecialize(), true))
    return;
  auto decline = [&](const Twine &why) {
    remarkMissed(kernel, kWarpSpecializePass, "NotSpecialized",
                 "the consumer warps issue the copies themselves: " + why);
  };
  // Unless the schedule asks for it: a softmax loop that runs as two
  // programs per SM (tile-tma-pipeline sized its ring for them; see
  // isTwoProgramSoftmaxLoop) keeps its copies in the consumer warps.
  bool asked = schedule && schedule.getWarpSpecialize();
  if (!asked && kernel->hasAttr(tile::kProgramsPerSMAttr))
    return decline(kernel.getNumWarps() == 4
                       ? "its one warpgroup's softmax loop runs as two "
                         "programs per SM, which a producer warpgroup's "
                         "register split leaves no room for"
                       : "its softmax loop's registers fit two programs per "
                         "SM, which a producer warpgroup's register split "
                         "leaves no room for");
  if (!target->hasSetmaxnreg)
    return decline(Twine(target->chip) + " has no setmaxnreg");
  int64_t warps = kernel.getNumWarps();
  if (warps % 4 != 0)
    return decline("the kernel's " + Twine(warps) +
                   " warps are not whole warpgroups");
  if (kernel->walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return decline("the kernel is already warp-specialized");
  // Budgets: the producer keeps `producer-regs` (40, CUTLASS's choice) and
  // the consumers take what is left, unless their estimated need (the
  // loops' live tensors plus the reserve) exceeds that: the producer, which
  // only holds scalars, then drops to setmaxnreg's minimum of 24
  // (FlashAttention-3's split: 240 a consumer thread with two warpgroups).
  int64_t need = 0;
  kernel.walk([&](scf::ForOp loop) {
    need = std::max(need, estimateLoopRegisters(loop, warps * 32));
  });
  need += kRegisterReserve;
  bool explicitProducer =
      (schedule && schedule.getProducerRegs()) || producerRegs.hasValue();
  int64_t producer = producerRegs;
  int64_t consumer = consumerRegs;
  if (schedule && schedule.getProducerRegs())
    producer = *schedule.getProducerRegs();
  if (schedule && schedule.getConsumerRegs())
    consumer = *schedule.getConsumerRegs();
  if (consumer == 0) {
    consumer = getConsumerRegs(*target, warps, producer);
    if (!explicitProducer && need > consumer) {
      producer = kMinSetmaxnreg;
      consumer = getConsumerRegs(*target, warps, producer);
    }
  }
  if (producer < kMinSetmaxnreg || producer > 256 || producer % 8 != 0 ||
      consumer < kMinSetmaxnreg ||
      consumer > 256 || consumer % 8 != 0 ||
      consumer * 32 * warps + producer * 128 >
          static_cast<int64_t>(target->regsPerSM)) {
    kernel.emitError("tile-warp-specialize: register budgets ")
        << consumer << " (consumers) and " << producer
        << " (producer) must be multiples of 8 in [24, 256] within the "
        << target->regsPerSM << " registers of an SM";
    return signalPassFailure();
  }

  // What stays before the op: setup and scalar code on values from before.
  Block &body = kernel.getBody().front();
  DenseSet<Operation *> outside;
  auto isOutside = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return def ? outside.contains(def) : v.getParentBlock() == &body;
  };
  for (Operation &op : body.without_terminator()) {
    bool scalar = isMemoryEffectFree(&op) && op.getNumRegions() == 0 &&
                  !hasTensorType(op.getResultTypes()) &&
                  llvm::all_of(op.getOperands(), isOutside);
    if (isSetupOp(&op) || scalar)
      outside.insert(&op);
  }
  ProducerSlice slice(body, isOutside);
  for (Operation *root : roots) {
    std::string why;
    if (failed(slice.addRoot(root, why))) {
      remarkMissed(root, kWarpSpecializePass, "NotSpecialized",
                   "the consumer warps issue the copies themselves: this "
                   "producer work cannot run alone: " +
                       why);
      return;
    }
  }

  // Cluster barriers after the program's first effect stay after the op.
  SmallVector<Operation *> after;
  bool inProgram = false;
  for (Operation &op : body.without_terminator()) {
    inProgram |= !outside.contains(&op) &&
                 (op.getNumRegions() != 0 || !isMemoryEffectFree(&op));
    if (inProgram && isa<ClusterBarrierOp>(op))
      after.push_back(&op);
  }

  Operation *ret = body.getTerminator();
  OpBuilder b(ret);
  auto ws = WarpSpecializeOp::create(b, kernel.getLoc(), /*partitionWarps=*/4,
                                     consumer, producer);
  Block *consumers = &ws.getDefaultRegion().emplaceBlock();
  Block *producers = &ws.getPartitionRegion().emplaceBlock();
  b.setInsertionPointToEnd(producers);
  slice.clone(b);
  producers->walk([](Operation *op) { op->removeAttr(kProducerAttr); });
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
    if (&op != ws.getOperation() && !outside.contains(&op))
      op.moveBefore(consumers, consumers->end());
  for (Operation *root : roots)
    root->erase();
  for (Operation *op : after)
    op->moveBefore(ret);
  remarkPassed(kernel, kWarpSpecializePass, "Specialized",
               "producer warpgroup (" + Twine(producer) + " registers) and " +
                   Twine(warps) + " consumer warps (" + Twine(consumer) +
                   " registers; estimated need " + Twine(need) + ")");
  ++numSpecialized;
}
