//===- Persistent.cpp - One program per SM walks the grid's tiles ---------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-persistent. A block program computes one tile of
// its grid per program; the persistent form launches at most one program
// per SM (runtimes cap the grid: `persistent` in the launch metadata) and
// each walks the tiles pid, pid + programs, ...:
//
//   grid(g0, g1, g2)                      grid(g0 * g1 * g2) persistent
//   x = program_id x             ->       for t = program_id x to g0*g1*g2
//   <body>                                      step num_programs x:
//                                           x = t % g0, y = t / g0 % g1, ...
//                                           <body>
//
// The grid is computed in the kernel from the grid rule. Loop-invariant code
// is hoisted out of the tile loop. The point is what the schedulers then do
// across tiles: the ring of a pipelined loop inside carries its position
// from one tile to the next, so a producer warp loads the next tile's first
// stages while the consumers run this tile's epilogue (a TMA store
// completing in the background).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEPERSISTENT
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kPersistentPass = "tile-persistent";

/// Ops that must stay at the top level of the kernel body.
static bool staysAtTop(Operation *op) {
  return isa<LocalAllocOp, MBarrierAllocOp, MakeTensorMapOp, ReturnOp>(op);
}

/// True when `v`'s computation (within the kernel) reads the program id.
static bool dependsOnProgram(Value v) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  (void)getBackwardSlice(v, &slice, options);
  return llvm::any_of(slice, [](Operation *op) {
    return isa<ProgramIdOp>(op);
  });
}

/// True when a tile loaded outside every loop reaches a tile.dot
/// (attention's Q): its buffer would become a ring over the tile loop whose
/// refill waits for the whole inner loop.
static bool hasPerTileDotOperand(KernelOp kernel) {
  bool found = false;
  kernel.walk([&](LoadOp load) {
    if (load->getParentOfType<scf::ForOp>())
      return;
    SmallVector<Value> work{load.getResult()};
    DenseSet<Operation *> seen;
    while (!work.empty() && !found)
      for (Operation *user : work.pop_back_val().getUsers()) {
        if (isa<DotOp>(user))
          found = true;
        else if (user->getNumRegions() == 0 && seen.insert(user).second)
          llvm::append_range(work, user->getResults());
      }
  });
  return found;
}

/// A kernel with a loop of tile.dot whose loops all run the same number of
/// iterations in every program (their bounds do not depend on the program
/// id: a GEMM's K loop, not a causal attention's key loop), and whose dots
/// read only tiles loaded in the loop. (Attention at head dim 128 ran at
/// 504 TFLOP/s persistent against 629 with a program per tile on the H200,
/// S = 4096: its query tile's one-stage ring over the tile loop stalls each
/// tile's first product.)
static bool isUniformDotProgram(KernelOp kernel) {
  if (hasPerTileDotOperand(kernel))
    return false;
  bool dotLoop = false, uniform = true;
  kernel.walk([&](scf::ForOp loop) {
    if (!loop.getBody()->getOps<DotOp>().empty())
      dotLoop = true;
    for (Value bound : {loop.getLowerBound(), loop.getUpperBound(),
                        loop.getStep()})
      if (dependsOnProgram(bound))
        uniform = false;
  });
  return dotLoop && uniform;
}

namespace {
struct TilePersistentPass
    : tile::impl::TilePersistentBase<TilePersistentPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TilePersistentPass::runOnOperation() {
  KernelOp kernel = getOperation();
  ScheduleAttr schedule = kernel.getScheduleAttr();
  bool requested = schedule && schedule.getPersistent();
  if (requested && !schedule.getPersistent().getValue())
    return;
  // Default: persistent where every tile is the same work (a static round
  // robin then keeps the SMs evenly busy) and there is a main loop of dots
  // whose ring a producer can run ahead in.
  if (!requested && !isUniformDotProgram(kernel))
    return;
  auto decline = [&](const Twine &why) {
    if (requested)
      remarkMissed(kernel, kPersistentPass, "NotPersistent",
                   "one program per tile: " + why);
  };
  FailureOr<TargetInfo> target = resolveTarget(kernel, chip);
  if (failed(target))
    return signalPassFailure();
  // A tile loop pays off where a producer warp runs ahead into the next
  // tile and the epilogue's store completes asynchronously; elsewhere it
  // only keeps the ring and the epilogue's scratch live together.
  if (!target->hasTma || !target->hasSetmaxnreg)
    return decline(Twine(target->chip) +
                   " has no TMA producer warps to overlap tiles with");
  if (kernel.getPersistent())
    return decline("the kernel is persistent already");
  std::optional<AffineMap> grid = kernel.getGrid();
  if (!grid)
    return decline("the kernel has no grid rule to walk");
  // The programs of a cluster walk the tiles in step when the grid is one
  // dimension of whole clusters (the runtime launches a multiple of the
  // cluster size): t = pid + i * programs keeps the rank t % n.
  if (std::optional<ArrayRef<int32_t>> cluster = kernel.getCluster();
      cluster && kernel.getClusterSize() > 1 &&
      ((*cluster)[1] != 1 || (*cluster)[2] != 1 || grid->getNumResults() != 1))
    return decline("the kernel runs in clusters and its grid or cluster has "
                   "more than one dimension");
  Block &body = kernel.getBody().front();
  for (Operation &op : body) {
    if (!staysAtTop(&op) || isa<ReturnOp>(op))
      continue;
    for (Value v : op.getOperands()) {
      if (isa<BlockArgument>(v))
        continue;
      // The op stays before the tile loop; what it reads would move into it.
      return decline(Twine("'") + op.getName().getStringRef() + "' " +
                     (dependsOnProgram(v)
                          ? "depends on the program's tile"
                          : "reads values the tile loop would define (it "
                            "must run before the passes that create it)"));
    }
  }

  Location loc = kernel.getLoc();
  OpBuilder b(&body, body.begin());
  SmallVector<int64_t> gridArgs(*kernel.getGridArgs());
  SmallVector<Value> dims = emitGridSizes(b, loc, kernel);
  Value total = dims[0];
  for (Value d : ArrayRef<Value>(dims).drop_front())
    total = arith::MulIOp::create(b, loc, total, d);
  Value first = ProgramIdOp::create(b, loc, Dim::X);
  Value programs = NumProgramsOp::create(b, loc, Dim::X);
  auto loop = scf::ForOp::create(b, loc, first, total, programs);
  loop->setAttr(kPersistentLoopAttr, b.getUnitAttr());
  Block *loopBody = loop.getBody();
  // The program's ops (all after the new loop) move into it.
  for (Operation *op = loop->getNextNode(), *next; op; op = next) {
    next = op->getNextNode();
    if (!staysAtTop(op))
      op->moveBefore(loopBody->getTerminator());
  }

  // The tile's position in the grid: x fastest, then y, then z.
  b.setInsertionPointToStart(loopBody);
  Value t = loop.getInductionVar();
  SmallVector<Value> coords;
  Value rest = t;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d + 1 == dims.size()) {
      coords.push_back(rest);
      break;
    }
    coords.push_back(arith::RemSIOp::create(b, loc, rest, dims[d]));
    rest = arith::DivSIOp::create(b, loc, rest, dims[d]);
  }
  SmallVector<Operation *> ids;
  loop.walk([&](Operation *op) {
    if (isa<ProgramIdOp, NumProgramsOp>(op))
      ids.push_back(op);
  });
  for (Operation *op : ids) {
    if (auto pid = dyn_cast<ProgramIdOp>(op)) {
      unsigned d = static_cast<unsigned>(pid.getDim());
      op->getResult(0).replaceAllUsesWith(
          d < coords.size() ? coords[d] : createI32(b, loc, 0));
    } else {
      unsigned d = static_cast<unsigned>(cast<NumProgramsOp>(op).getDim());
      op->getResult(0).replaceAllUsesWith(d < dims.size() ? dims[d]
                                                          : createI32(b, loc, 1));
    }
    op->erase();
  }
  moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));

  // One grid dimension: the tiles the programs walk.
  AffineExpr product = grid->getResult(0);
  for (AffineExpr e : grid->getResults().drop_front())
    product = product * e;
  kernel.setGridRule(
      AffineMap::get(0, grid->getNumSymbols(), product, kernel.getContext()),
      gridArgs);
  kernel.setPersistent(true);
  remarkPassed(kernel, kPersistentPass, "Persistent",
               "one program per SM walks the grid's tiles");
  ++numPersistent;
}
