//===- Pipeline.cpp - Multistage cp.async pipelining of tile loads --------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-pipeline: the Ampere data path
//
//   GMEM --cp.async.cg 16B--> SMEM (swizzled, S stages) --ldmatrix--> regs
//        --mma.sync--> tensor cores
//
// for loads that feed tile.dot operands inside scf.for loops. Iteration i
// reads stage i % S while the copies for iteration i + S - 1 are in flight:
//
//   for s in 0 .. S-2: copy(k_s -> stage s); commit
//   for i:
//     wait_group S-2; bar.sync        // stage i landed, stage i-1 is free
//     copy(k_{i+S-1} -> stage (i+S-1) % S); commit
//     A, B = ldmatrix(stage i % S); acc = mma(A, B, acc)
//   wait_group 0; bar.sync            // shared memory is free again
//
// When both dot operands come from the ring (mma.sync), the dot is split into
// 16-wide K steps with double-buffered ldmatrix operands, the wait and
// barrier move to the last step and the copies go after the first step's mma
// (see prefetchDotOperands).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Pipeline.h"
#include "tilec/Analysis/LayoutHeuristics.h"
#include "tilec/Analysis/Resources.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-pipeline"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

namespace {
/// A load to pipeline: its tile goes to these dot-operand conversions.
struct PipelinedLoad {
  LoadOp load;
  SmallVector<ConvertLayoutOp> converts;
  SmemType bufferType;
  Value buffer;
  /// The dot reads the buffer in place (wgmma) instead of through registers.
  bool inPlace = false;
};
} // namespace

/// The facts of `load`'s tile and view that 16-byte cp.async copies need,
/// wherever the load is; `why` says what fails.
static LogicalResult checkCopyFacts(LoadOp load, std::string *why) {
  auto fail = [&](StringRef reason) {
    if (why)
      *why = reason.str();
    return failure();
  };
  if (load.getMask() || load.getPadding() != Padding::Zero)
    return fail("masked or non-zero padding");
  auto tile = cast<RankedTensorType>(load.getType());
  Type et = tile.getElementType();
  if (tile.getRank() != 2 || !(et.isBF16() || et.isF16() || isKMajorOnlyMmaType(et)))
    return fail("only 2-D tiles of 16-bit, f32, fp8 or i8 elements");
  unsigned elemBytes = getStorageBytes(et), vec = 16 / elemBytes;
  ViewType viewType = load.getView().getType();
  auto make = load.getView().getDefiningOp<MakeViewOp>();
  if (!make)
    return fail("view not made by tile.make_view");
  unsigned lead = viewType.getRank() - 2;
  std::optional<unsigned> cd = viewType.getContiguousDim();
  if (!cd || *cd < lead)
    return fail("no contiguous tile dimension");
  unsigned contig = *cd - lead;
  if (tile.getDimSize(contig) % vec != 0)
    return fail("rows shorter than 16 bytes");

  // 16-byte alignment of every chunk: base, strides, offset along the rows.
  if (getPointerAlignment(make.getBase(), elemBytes) < 16)
    return fail("base pointer not known to be 16-byte aligned");
  for (unsigned d = 0; d < viewType.getRank(); ++d) {
    if (d == *cd)
      continue;
    if (getDivisibility(make.getMixedStride(d)) % vec != 0)
      return fail("a stride is not known to be a multiple of 16 bytes");
  }
  if (getDivisibility(load.getOffsets()[*cd]) % vec != 0)
    return fail("the offset along the rows is not known to be 16-byte aligned");
  return success();
}

/// The facts of `load` itself that a 16-byte cp.async stage of `loop` needs
/// (its users are checked by analyzeLoad); `why` says what fails.
static LogicalResult checkLoadFacts(LoadOp load, scf::ForOp loop,
                                    std::string *why) {
  auto fail = [&](StringRef reason) {
    if (why)
      *why = reason.str();
    return failure();
  };
  if (load->getBlock() != loop.getBody())
    return fail("not at the top level of the loop body");
  if (failed(checkCopyFacts(load, why)))
    return failure();
  if (!loop.isDefinedOutsideOfLoop(load.getView()))
    return fail("view not made outside the loop");
  // Offsets must be recomputable for other iterations.
  for (Value off : load.getOffsets())
    if (!isRecomputableInLoop(off, loop))
      return fail("offsets depend on loop-carried values or impure ops");
  return success();
}

bool mlir::tilec::tile::canPipelineLoad(LoadOp load) {
  auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
  return loop && succeeded(checkLoadFacts(load, loop, /*why=*/nullptr));
}

/// Checks that `load` in `loop` can become a 16-byte cp.async pipeline stage.
static std::optional<PipelinedLoad> analyzeLoad(LoadOp load, scf::ForOp loop,
                                                int64_t stages) {
  auto fail = [&](StringRef why) -> std::optional<PipelinedLoad> {
    LLVM_DEBUG(llvm::dbgs() << "not pipelining " << load << ": " << why << "\n");
    return std::nullopt;
  };
  std::string why;
  if (failed(checkLoadFacts(load, loop, &why)))
    return fail(why);
  PipelinedLoad cand;
  cand.load = load;
  SharedEncodingAttr inPlaceEncoding;
  for (Operation *user : load->getUsers()) {
    auto cvt = dyn_cast<ConvertLayoutOp>(user);
    Attribute enc =
        cvt ? cast<RankedTensorType>(cvt.getType()).getEncoding() : Attribute();
    if (auto shared = dyn_cast_or_null<SharedEncodingAttr>(enc)) {
      // The dot reads shared memory directly: the ring takes its layout.
      if (inPlaceEncoding && inPlaceEncoding != shared)
        return fail("conversions to different shared layouts");
      inPlaceEncoding = shared;
    } else if (!isa_and_nonnull<DotOperandEncodingAttr>(enc)) {
      return fail("a user is not a conversion to a dot operand");
    }
    cand.converts.push_back(cvt);
  }
  if (cand.converts.empty())
    return fail("unused");
  if (inPlaceEncoding && cand.converts.size() != 1)
    return fail("an in-place operand with several users");
  cand.inPlace = static_cast<bool>(inPlaceEncoding);
  auto tile = cast<RankedTensorType>(load.getType());
  Type et = tile.getElementType();
  unsigned elemBytes = getStorageBytes(et);
  unsigned contig = *load.getView().getType().getContiguousDim() -
                    (load.getView().getType().getRank() - 2);
  SharedEncodingAttr enc =
      inPlaceEncoding
          ? inPlaceEncoding
          : getLdmatrixSwizzle(load.getContext(), tile.getShape(), contig,
                               elemBytes);
  if (enc.getOrder()[0] != contig)
    return fail("the shared layout is not contiguous along the rows in memory");
  cand.bufferType = SmemType::get(
      load.getContext(), {stages, tile.getDimSize(0), tile.getDimSize(1)}, et,
      enc);
  return cand;
}

/// Clones the computation of `load`'s offsets at the builder's insertion
/// point with the induction variable replaced by `iv`.
static SmallVector<Value> cloneOffsets(OpBuilder &b, LoadOp load,
                                       scf::ForOp loop, Value iv) {
  return cloneForIteration(b, loop, load.getOffsets(), iv);
}

static Value constantLike(OpBuilder &b, Location loc, Type type, int64_t v) {
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
}

/// Splits dots whose operands both come from the ring into mma.sync K steps
/// (16 wide for 16-bit operands, 32 for fp8)
/// and double-buffers the operand registers: while the mma.sync of step s
/// run, ldmatrix fetches step s + 1, and the first step of the next stage is
/// fetched during the last step of this one (after the stage's wait and
/// barrier, which move from the top of the iteration to there):
///
///   prologue: wait; bar; a, b = ldmatrix(stage 0, step 0)
///   iteration: for s: [s == last: wait; bar]
///                     a', b' = ldmatrix(s == last ? next stage : this, s + 1)
///                     acc = mma(a, b, acc); a, b = a', b'
///                     [s == 0: copy(k + S - 1); commit]
///
/// The copies of the iteration are issued after the first step's mma, not at
/// the top: ptxas keeps ldmatrix behind an earlier cp.async (both touch
/// shared memory, it cannot tell the stages apart), so copies at the top held
/// the step-1 ldmatrix back until just before its mma, and the two warps of
/// a scheduler stalled on it (H200, 4096^3: short_scoreboard stalls 0.45 ->
/// 0.12 per issue, tensor pipe 76.6% -> 80.6% active). They stay before the
/// stage's wait, so its depth is unchanged. The stage refilled was last read
/// before the barrier at the end of the previous iteration. Returns the new
/// loop when applied.
static FailureOr<scf::ForOp> prefetchDotOperands(scf::ForOp loop, int64_t stages,
                                         Value readStage,
                                         AsyncWaitOp topWait,
                                         BarrierOp topBarrier,
                                         scf::IfOp copies,
                                         AsyncCommitOp commit) {
  DotOp dot;
  for (auto d : loop.getBody()->getOps<DotOp>()) {
    if (dot)
      return failure(); // one dot per loop
    dot = d;
  }
  if (!dot)
    return failure();
  auto la = dot.getA().getDefiningOp<LocalLoadOp>();
  auto lb = dot.getB().getDefiningOp<LocalLoadOp>();
  if (!la || !lb || la.getStage() != readStage || lb.getStage() != readStage ||
      !la->hasOneUse() || !lb->hasOneUse() ||
      la->getBlock() != loop.getBody() || lb->getBlock() != loop.getBody())
    return failure();
  auto aType = cast<RankedTensorType>(la.getType());
  auto bType = cast<RankedTensorType>(lb.getType());
  int64_t k = aType.getDimSize(1);
  int64_t kStep = getMmaSyncKStep(aType.getElementType());
  if (k % kStep != 0)
    return failure();
  int64_t steps = k / kStep;
  auto aStep = RankedTensorType::get({aType.getDimSize(0), kStep},
                                     aType.getElementType(), aType.getEncoding());
  auto bStep = RankedTensorType::get({kStep, bType.getDimSize(1)},
                                     bType.getElementType(), bType.getEncoding());
  Value bufA = la.getBuffer(), bufB = lb.getBuffer();
  Location loc = dot.getLoc();
  IRRewriter rewriter(loop.getContext());
  Type i32 = rewriter.getI32Type();
  auto loadStep = [&](OpBuilder &b, Value stage, int64_t s) {
    Value a = LocalLoadOp::create(b, loc, aStep, bufA, stage,
                                  b.getDenseI64ArrayAttr({0, kStep * s}));
    Value bb = LocalLoadOp::create(b, loc, bStep, bufB, stage,
                                   b.getDenseI64ArrayAttr({kStep * s, 0}));
    return std::make_pair(a, bb);
  };

  // Prologue: the first step of stage 0.
  rewriter.setInsertionPoint(loop);
  AsyncWaitOp::create(rewriter, loc, stages - 2);
  BarrierOp::create(rewriter, loc);
  auto [a0, b0] = loadStep(rewriter, constantLike(rewriter, loc, i32, 0), 0);

  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{a0, b0}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>{args[0], args[1]}; // patched below
      });
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned n = newLoop.getRegionIterArgs().size();
  Value aCur = newLoop.getRegionIterArgs()[n - 2];
  Value bCur = newLoop.getRegionIterArgs()[n - 1];
  readStage = la.getStage(); // the old loop's block argument is gone

  // The stage's wait and barrier move to the last step.
  rewriter.eraseOp(topWait);
  rewriter.eraseOp(topBarrier);
  rewriter.setInsertionPoint(dot);
  Value acc = dot.getAcc();
  for (int64_t s = 0; s < steps; ++s) {
    std::pair<Value, Value> next;
    if (s + 1 < steps) {
      next = loadStep(rewriter, readStage, s + 1);
    } else {
      AsyncWaitOp::create(rewriter, loc, stages - 2);
      BarrierOp::create(rewriter, loc);
      Value plus = arith::AddIOp::create(rewriter, loc, readStage,
                                         constantLike(rewriter, loc, i32, 1));
      Value wrap = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                         plus,
                                         constantLike(rewriter, loc, i32, stages));
      Value nextStage = arith::SelectOp::create(
          rewriter, loc, wrap, constantLike(rewriter, loc, i32, 0), plus);
      next = loadStep(rewriter, nextStage, 0);
    }
    acc = DotOp::create(rewriter, loc, dot.getType(), aCur, bCur, acc,
                        dot.getPrecision());
    if (s == 0 && steps > 1) {
      copies->moveAfter(acc.getDefiningOp());
      commit->moveAfter(copies);
      rewriter.setInsertionPointAfter(commit);
    }
    aCur = next.first;
    bCur = next.second;
  }
  rewriter.replaceOp(dot, acc);
  rewriter.eraseOp(la);
  rewriter.eraseOp(lb);
  auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
  yield->setOperand(yield.getNumOperands() - 2, aCur);
  yield->setOperand(yield.getNumOperands() - 1, bCur);
  return newLoop;
}

/// Issues the copies of iteration value `k` (skipped, as a whole, past the
/// loop's upper bound: nothing would read them) and closes the group.
static std::pair<scf::IfOp, AsyncCommitOp>
emitStageCopies(OpBuilder &b, Location loc, scf::ForOp loop,
                MutableArrayRef<PipelinedLoad> cands, Value k, Value stage,
                bool unchecked) {
  Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k,
                                     loop.getUpperBound());
  auto copies = scf::IfOp::create(b, loc, live, [&](OpBuilder &ib, Location l) {
    for (PipelinedLoad &c : cands) {
      SmallVector<Value> offsets = cloneOffsets(ib, c.load, loop, k);
      auto copy = AsyncCopyOp::create(ib, l, c.load.getView(), offsets,
                                      c.buffer, stage);
      copy.setUnchecked(unchecked);
    }
    scf::YieldOp::create(ib, l);
  });
  return {copies, AsyncCommitOp::create(b, loc)};
}

/// The loads of `loop` that can be pipelined, in body order.
static SmallVector<PipelinedLoad> findCandidates(scf::ForOp loop,
                                                 int64_t stages) {
  SmallVector<PipelinedLoad> cands;
  for (auto load : loop.getBody()->getOps<LoadOp>())
    if (std::optional<PipelinedLoad> c = analyzeLoad(load, loop, stages))
      cands.push_back(*c);
  return cands;
}

/// Pipelines the candidate loads of `loop` into `buffers` (one per
/// candidate, in body order); `unchecked` copies skip bounds tests. Returns
/// the number pipelined.
static unsigned pipelineLoopImpl(scf::ForOp loop, int64_t stages,
                                 bool unchecked, ArrayRef<Value> buffers) {
  SmallVector<PipelinedLoad> cands = findCandidates(loop, stages);
  if (cands.empty() || cands.size() != buffers.size())
    return 0;
  // wgmma reads the ring in place and asynchronously; its group is retired
  // at the end of the iteration, so the stage it read is free at the next
  // barrier and copies run S-1 stages ahead. (Keeping one group in flight
  // across iterations needs the accumulator to have no non-wgmma definition
  // in the loop; ptxas serializes otherwise, see WgmmaSm90.cpp.)
  bool inPlace =
      llvm::any_of(cands, [](const PipelinedLoad &c) { return c.inPlace; });
  int64_t ahead = stages - 1;

  Location loc = loop.getLoc();
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  Type ivType = loop.getInductionVar().getType();
  Type i32 = rewriter.getI32Type();
  for (auto [c, buffer] : llvm::zip(cands, buffers))
    c.buffer = buffer;

  // Prologue: stages 0 .. ahead-1.
  for (int64_t s = 0; s < ahead; ++s) {
    Value ks = arith::AddIOp::create(
        rewriter, loc, loop.getLowerBound(),
        arith::MulIOp::create(rewriter, loc, loop.getStep(),
                              constantLike(rewriter, loc, ivType, s)));
    emitStageCopies(rewriter, loc, loop, cands, ks,
                    constantLike(rewriter, loc, i32, s), unchecked);
  }

  // Loop-carried read and write stages.
  Value read0 = constantLike(rewriter, loc, i32, 0);
  Value write0 = constantLike(rewriter, loc, i32, ahead);
  auto advance = [&](OpBuilder &b, Location l, Value stage) -> Value {
    Value next = arith::AddIOp::create(b, l, stage, constantLike(b, l, i32, 1));
    Value wrap = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, next,
                                       constantLike(b, l, i32, stages));
    return arith::SelectOp::create(b, l, wrap, constantLike(b, l, i32, 0), next);
  };
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{read0, write0}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location l, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>{advance(b, l, args[0]), advance(b, l, args[1])};
      });
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned n = newLoop.getRegionIterArgs().size();
  Value readStage = newLoop.getRegionIterArgs()[n - 2];
  Value writeStage = newLoop.getRegionIterArgs()[n - 1];

  // Iteration: wait for the current stage, then refill the freed one.
  Block *body = newLoop.getBody();
  rewriter.setInsertionPointToStart(body);
  auto topWait = AsyncWaitOp::create(rewriter, loc, ahead - 1);
  if (inPlace)
    FenceAsyncSharedOp::create(rewriter, loc); // cp.async -> wgmma reads
  auto topBarrier = BarrierOp::create(rewriter, loc);
  Value kn = arith::AddIOp::create(
      rewriter, loc, newLoop.getInductionVar(),
      arith::MulIOp::create(rewriter, loc, newLoop.getStep(),
                            constantLike(rewriter, loc, ivType, ahead)));
  auto [copies, commit] =
      emitStageCopies(rewriter, loc, newLoop, cands, kn, writeStage, unchecked);

  // Reads come from the ring.
  for (PipelinedLoad &c : cands) {
    for (ConvertLayoutOp cvt : c.converts) {
      rewriter.setInsertionPoint(cvt);
      Value tile = LocalLoadOp::create(rewriter, cvt.getLoc(), cvt.getType(),
                                       c.buffer, readStage);
      rewriter.replaceOp(cvt, tile);
    }
    rewriter.eraseOp(c.load);
  }
  if (inPlace) {
    for (auto dot : llvm::make_early_inc_range(newLoop.getBody()->getOps<DotOp>())) {
      rewriter.setInsertionPointAfter(dot);
      auto wait = WarpgroupWaitOp::create(rewriter, loc, dot.getType(), 0,
                                          ValueRange{dot.getResult()});
      rewriter.replaceAllUsesExcept(dot.getResult(), wait.getResult(0), wait);
    }
  } else if (FailureOr<scf::ForOp> prefetched = prefetchDotOperands(
                 newLoop, stages, readStage, topWait, topBarrier, copies, commit);
             succeeded(prefetched)) {
    newLoop = *prefetched;
  }

  // Drain: in-flight wgmma and copies (zero-filled past the end) must
  // complete before accumulators are read and shared memory is reused.
  rewriter.setInsertionPointAfter(newLoop);
  if (inPlace)
    WarpgroupWaitOp::create(rewriter, loc, TypeRange{}, 0, ValueRange{});
  AsyncWaitOp::create(rewriter, loc, 0);
  BarrierOp::create(rewriter, loc);
  return cands.size();
}

/// Bounds `[lo, hi]` of `offset` over the iterations of `loop`, when the
/// offset is loop-invariant or `iv (+ invariant)`.
static std::optional<std::pair<Value, Value>>
getOffsetRange(OpBuilder &b, Location loc, scf::ForOp loop, Value offset,
               Value lastIv) {
  if (loop.isDefinedOutsideOfLoop(offset))
    return std::make_pair(offset, offset);
  Value iv = loop.getInductionVar();
  if (offset == iv)
    return std::make_pair(loop.getLowerBound(), lastIv);
  if (auto add = offset.getDefiningOp<arith::AddIOp>()) {
    Value other = add.getLhs() == iv   ? add.getRhs()
                  : add.getRhs() == iv ? add.getLhs()
                                       : Value();
    if (other && loop.isDefinedOutsideOfLoop(other))
      return std::make_pair(
          arith::AddIOp::create(b, loc, loop.getLowerBound(), other).getResult(),
          arith::AddIOp::create(b, loc, lastIv, other).getResult());
  }
  return std::nullopt;
}

/// A condition, computed before `loop`, under which every pipelined tile of
/// every iteration lies inside its view; null when it cannot be expressed.
static Value buildInteriorCondition(OpBuilder &b, scf::ForOp loop,
                                    MutableArrayRef<PipelinedLoad> cands) {
  Location loc = loop.getLoc();
  Type type = loop.getInductionVar().getType();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  auto cst = [&](int64_t v) { return constantLike(b, loc, type, v); };
  // Last iteration value: lb + ((ub - lb - 1) / step) * step.
  Value span = arith::SubIOp::create(
      b, loc, arith::SubIOp::create(b, loc, ub, lb), cst(1));
  Value lastIv = arith::AddIOp::create(
      b, loc, lb,
      arith::MulIOp::create(b, loc, arith::DivSIOp::create(b, loc, span, step),
                            step));
  Value cond;
  for (PipelinedLoad &c : cands) {
    auto make = c.load.getView().getDefiningOp<MakeViewOp>();
    ViewType viewType = make.getViewType();
    auto tile = cast<RankedTensorType>(c.load.getType());
    unsigned lead = viewType.getRank() - tile.getRank();
    for (auto [d, off] : llvm::enumerate(c.load.getOffsets())) {
      if (off.getType() != type)
        return {};
      std::optional<std::pair<Value, Value>> range =
          getOffsetRange(b, loc, loop, off, lastIv);
      if (!range)
        return {};
      int64_t extent = d < lead ? 1 : tile.getDimSize(d - lead);
      OpFoldResult sizeOfr = make.getMixedSize(d);
      Value size = isa<Value>(sizeOfr)
                       ? cast<Value>(sizeOfr)
                       : cst(cast<IntegerAttr>(cast<Attribute>(sizeOfr)).getInt());
      Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                       range->first, cst(0));
      Value end = arith::AddIOp::create(b, loc, range->second, cst(extent));
      Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, end,
                                       size);
      Value both = arith::AndIOp::create(b, loc, lo, hi);
      cond = cond ? arith::AndIOp::create(b, loc, cond, both).getResult() : both;
    }
  }
  return cond;
}

/// Pipelines the loads of `loop`. When the tiles of a program may stay
/// inside their views for the whole loop (the interior of a GEMM), the loop
/// is versioned: the common case runs a copy without any bounds test; edge
/// programs run the zero-filling copy.
static unsigned pipelineLoop(scf::ForOp loop, int64_t stages) {
  SmallVector<PipelinedLoad> cands = findCandidates(loop, stages);
  if (cands.empty())
    return 0;
  OpBuilder b(loop);
  SmallVector<Value> buffers;
  for (PipelinedLoad &c : cands)
    buffers.push_back(LocalAllocOp::create(b, loop.getLoc(), c.bufferType));
  Value interior = buildInteriorCondition(b, loop, cands);
  if (!interior)
    return pipelineLoopImpl(loop, stages, /*unchecked=*/false, buffers);

  Location loc = loop.getLoc();
  auto ifOp = scf::IfOp::create(b, loc, loop.getResultTypes(), interior,
                                /*withElseRegion=*/true);
  loop->replaceAllUsesWith(ifOp.getResults());
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto fast = cast<scf::ForOp>(b.clone(*loop));
  scf::YieldOp::create(b, loc, fast.getResults());
  b.setInsertionPointToStart(ifOp.elseBlock());
  auto yield = scf::YieldOp::create(b, loc, loop.getResults());
  loop->moveBefore(yield);
  unsigned n = pipelineLoopImpl(fast, stages, /*unchecked=*/true, buffers);
  pipelineLoopImpl(loop, stages, /*unchecked=*/false, buffers);
  return n;
}

int64_t mlir::tilec::tile::getMinCpAsyncRingBytes(
    scf::ForOp loop, const llvm::DenseSet<Operation *> &broughtElsewhere) {
  int64_t bytes = 0;
  for (PipelinedLoad &c : findCandidates(loop, /*stages=*/2))
    if (!broughtElsewhere.contains(c.load))
      bytes += llvm::alignTo(c.bufferType.getSizeInBytes(), 1024);
  return bytes;
}

/// The deepest ring of at most `stages` (and at least 2) stages for the
/// loads of `loop` that fits in the shared memory the kernel's buffers
/// leave.
static int64_t fitStages(scf::ForOp loop, int64_t stages,
                         const TargetInfo &target) {
  SmallVector<PipelinedLoad> cands = findCandidates(loop, stages);
  if (cands.empty())
    return stages;
  int64_t stageBytes = 0;
  for (PipelinedLoad &c : cands)
    stageBytes += c.bufferType.getSizeInBytes() / stages;
  // The kernel's buffers, and the scratch areas of the ops in the loop's
  // top-level op: the shared-memory planner tracks live ranges at the kernel
  // body's top level, so an epilogue after the loop reuses the ring's memory,
  // but one inside the same persistent tile loop does not.
  int64_t buffers = 0, scratch = 0;
  auto kernel = loop->getParentOfType<KernelOp>();
  kernel.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<LocalAllocOp>(op))
      buffers += llvm::alignTo(alloc.getType().getSizeInBytes(), 1024);
    else if (auto bars = dyn_cast<MBarrierAllocOp>(op))
      buffers += 8 * bars.getType().getSize();
  });
  DenseSet<Operation *> replaced; // the candidates' conversions
  for (PipelinedLoad &c : cands)
    for (ConvertLayoutOp cvt : c.converts)
      replaced.insert(cvt);
  kernel.getBody().front().findAncestorOpInBlock(*loop)->walk(
      [&](Operation *op) {
        if (!replaced.contains(op))
          scratch = std::max(scratch, getScratchBytes(op));
      });
  buffers += scratch;
  int64_t left = static_cast<int64_t>(target.maxSmemPerBlock) - buffers -
                 1024 * static_cast<int64_t>(cands.size());
  int64_t fit = std::min(stages, left / stageBytes);
  if (fit < 2) {
    remarkMissed(loop, "tile-pipeline", "NotPipelined",
                 "loads stay synchronous: two stages of " + Twine(stageBytes) +
                     " bytes do not fit in the " + Twine(std::max<int64_t>(left, 0)) +
                     " bytes of shared memory left on " + target.chip);
    return 0;
  }
  return fit;
}

/// True when every use of `cvt` is inside a loop that does not hold it.
static bool isReadOnlyInLoops(ConvertLayoutOp cvt) {
  return llvm::all_of(cvt->getUsers(), [&](Operation *user) {
    auto loop = user->getParentOfType<scf::ForOp>();
    return loop && !loop->isAncestor(cvt);
  });
}

/// A conversion of a tile to a register dot-operand layout.
static bool isDotOperandConversion(Operation *op) {
  auto cvt = dyn_cast<ConvertLayoutOp>(op);
  return cvt && isa_and_nonnull<DotOperandEncodingAttr>(
                    cast<RankedTensorType>(cvt.getType()).getEncoding());
}

/// The loop-invariant dot operands of `loop`: the conversions to a register
/// dot-operand layout, made before the loop, of the tiles the returned
/// tile.loads read. Each load's every use is such a conversion, read only
/// inside loops (attention's Q, converted once for each of its key loops).
static SetVector<LoadOp>
getInvariantOperands(scf::ForOp loop, SmallVectorImpl<ConvertLayoutOp> &cvts) {
  SetVector<LoadOp> loads;
  loop.walk([&](DotOp dot) {
    for (Value operand : {dot.getA(), dot.getB()}) {
      auto cvt = operand.getDefiningOp<ConvertLayoutOp>();
      if (!cvt || loop->isAncestor(cvt) || !isDotOperandConversion(cvt))
        continue;
      auto load = cvt.getSrc().getDefiningOp<LoadOp>();
      if (!load || failed(checkCopyFacts(load, /*why=*/nullptr)) ||
          !llvm::all_of(load->getUsers(), [](Operation *user) {
            return isDotOperandConversion(user) &&
                   isReadOnlyInLoops(cast<ConvertLayoutOp>(user));
          }))
        continue;
      loads.insert(load);
      if (!llvm::is_contained(cvts, cvt))
        cvts.push_back(cvt);
    }
  });
  return loads;
}

/// Moves the tile `load` reads to shared memory: one cp.async copy where the
/// load was (its own group, committed before the ring's prologue, so the
/// loop's first wait covers it) and an ldmatrix read at each use of its
/// conversions.
static void stageInSharedMemory(LoadOp load) {
  auto tile = cast<RankedTensorType>(load.getType());
  ViewType viewType = load.getView().getType();
  unsigned contig = *viewType.getContiguousDim() - (viewType.getRank() - 2);
  OpBuilder b(load);
  Location loc = load.getLoc();
  Value buffer = LocalAllocOp::create(
      b, loc,
      SmemType::get(b.getContext(), {1, tile.getDimSize(0), tile.getDimSize(1)},
                    tile.getElementType(),
                    getLdmatrixSwizzle(b.getContext(), tile.getShape(), contig,
                                       tile.getElementTypeBitWidth() / 8)));
  Value zero = constantLike(b, loc, b.getI32Type(), 0);
  AsyncCopyOp::create(b, loc, load.getView(), load.getOffsets(), buffer, zero);
  AsyncCommitOp::create(b, loc);
  for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
    auto cvt = cast<ConvertLayoutOp>(user);
    for (OpOperand &use : llvm::make_early_inc_range(cvt->getUses())) {
      b.setInsertionPoint(use.getOwner());
      use.set(LocalLoadOp::create(b, cvt.getLoc(), cvt.getType(), buffer, zero));
    }
    cvt.erase();
  }
  load.erase();
}

/// Loop-invariant dot operands of `loop` (getInvariantOperands) go to shared
/// memory (stageInSharedMemory), as FlashAttention-2 keeps Q at head dim 128
/// on mma.sync, where the schedule's `operands_in_smem` says so, or, unset,
/// where their registers, beside what the loop keeps live, would not fit in
/// a thread's budget. The estimate per thread: estimateLoopRegisters, the
/// invariant operands and kRegisterReserve. Returns the number of operands
/// staged.
static unsigned stageInvariantOperands(scf::ForOp loop,
                                       const TargetInfo &target,
                                       BoolAttr operandsInSmem) {
  if (operandsInSmem && !operandsInSmem.getValue())
    return 0;
  auto kernel = loop->getParentOfType<KernelOp>();
  int64_t threads = kernel.getNumWarps() * 32;
  SmallVector<ConvertLayoutOp> cvts;
  SetVector<LoadOp> loads = getInvariantOperands(loop, cvts);
  if (loads.empty())
    return 0;
  int64_t live = estimateLoopRegisters(loop, threads);
  int64_t operands = 0;
  for (ConvertLayoutOp cvt : cvts)
    operands += getRegistersPerThread(cvt.getType(), threads);
  int64_t budget = getThreadRegisterBudget(target, threads);
  if (!operandsInSmem && live + operands + kRegisterReserve <= budget)
    return 0;

  for (LoadOp load : loads) {
    if (operandsInSmem)
      remarkPassed(load, "tile-pipeline", "OperandInSharedMemory",
                   "this loop-invariant dot operand waits in shared memory "
                   "and is read anew at each use, as the schedule's "
                   "operands_in_smem asks");
    else
      remarkPassed(load, "tile-pipeline", "OperandInSharedMemory",
                   "this loop-invariant dot operand waits in shared memory "
                   "and is read anew at each use: the loop keeps " +
                       Twine(live) + " registers a thread live, the operands " +
                       Twine(operands) + " more, over the budget of " +
                       Twine(budget) + " (less " + Twine(kRegisterReserve) +
                       " in reserve)");
    stageInSharedMemory(load);
  }
  return loads.size();
}

/// The stage of a two-stage staging buffer an iteration of `loop` writes:
/// the parity of its iteration number, ((iv - lb) / step) % 2.
static Value getIterationParity(OpBuilder &b, Location loc, scf::ForOp loop) {
  Value n = arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                  loop.getLowerBound());
  n = arith::DivUIOp::create(b, loc, n, loop.getStep());
  Value one = constantLike(b, loc, n.getType(), 1);
  Value parity = arith::AndIOp::create(b, loc, n, one);
  if (parity.getType() != b.getI32Type())
    parity = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), parity);
  return parity;
}

/// Whether the conversions `cvts` of one dot are computed by each iteration
/// of the loop they sit in (their staging buffers then take a stage per
/// iteration parity); the loop, or null.
static scf::ForOp getStagingLoop(ArrayRef<ConvertLayoutOp> cvts) {
  auto loop = dyn_cast<scf::ForOp>(cvts.front()->getParentOp());
  if (loop && llvm::any_of(cvts, [&](ConvertLayoutOp cvt) {
        return !loop.isDefinedOutsideOfLoop(cvt.getSrc());
      }))
    return loop;
  return {};
}

/// Writes the tiles that conversions to #tile.shared layouts bring to one
/// dot (read in place), when no ring serves them (a load not known to be
/// aligned, a tile the program computes): every thread stores its elements,
/// fences them for the async proxy (wgmma), and the dot reads the buffers.
/// The conversions of one dot share the waits and barriers. With `loop`
/// (the loop that computes them, getStagingLoop), each buffer has two
/// stages, one per iteration parity: a stage is rewritten only once the
/// wgmma two iterations back retired (at the wait before the stores, which
/// lets the loop's `inFlight` wgmma groups of the previous iteration run
/// on), so tile-async-wgmma can keep a group in flight while the next tiles
/// are stored. Without, one stage, free once every wgmma group retired.
static void stageThroughSharedMemory(MutableArrayRef<ConvertLayoutOp> cvts,
                                     scf::ForOp loop) {
  ConvertLayoutOp last = cvts.front();
  for (ConvertLayoutOp cvt : cvts)
    if (last->isBeforeInBlock(cvt))
      last = cvt;
  auto kernel = last->getParentOfType<KernelOp>();
  Operation *top = kernel.getBody().front().findAncestorOpInBlock(*last);
  // The wgmma groups an iteration of the loop issues (before the next
  // iteration's stores: tile-async-wgmma's wait after its last dot).
  unsigned inFlight = 0;
  if (loop)
    for (DotOp dot : loop.getBody()->getOps<DotOp>())
      inFlight += isWgmma(dot);
  Location loc = last.getLoc();
  OpBuilder b(top);
  SmallVector<Value> buffers;
  for (ConvertLayoutOp cvt : cvts) {
    auto type = cast<RankedTensorType>(cvt.getType());
    auto alloc = LocalAllocOp::create(
        b, cvt.getLoc(),
        SmemType::get(cvt.getContext(),
                      {loop ? 2 : 1, type.getDimSize(0), type.getDimSize(1)},
                      type.getElementType(),
                      cast<SharedEncodingAttr>(type.getEncoding())));
    if (loop)
      alloc->setAttr(kStagingBufferAttr, b.getUnitAttr());
    buffers.push_back(alloc);
  }
  b.setInsertionPointAfter(last);
  Value stage = loop ? getIterationParity(b, loc, loop)
                     : constantLike(b, loc, b.getI32Type(), 0);
  WarpgroupWaitOp::create(b, loc, TypeRange{}, inFlight, ValueRange{});
  BarrierOp::create(b, loc);
  for (unsigned i = 0; i < cvts.size(); ++i)
    LocalStoreOp::create(b, cvts[i].getLoc(), cvts[i].getSrc(), buffers[i],
                         stage);
  FenceAsyncSharedOp::create(b, loc);
  BarrierOp::create(b, loc);
  for (unsigned i = 0; i < cvts.size(); ++i) {
    Value tile = LocalLoadOp::create(b, cvts[i].getLoc(), cvts[i].getType(),
                                     buffers[i], stage);
    cvts[i].replaceAllUsesWith(tile);
  }
  for (ConvertLayoutOp cvt : cvts)
    cvt.erase();
}

/// Stages the conversions to #tile.shared layouts that no ring took
/// (stageThroughSharedMemory), those of one dot together; with two stages
/// per loop-computed buffer where all of them fit in the block's shared
/// memory beside the kernel's other buffers.
static void stageLeftConversions(KernelOp kernel, const TargetInfo &target) {
  // (In program order; keyed by the dot, or the conversion itself.)
  llvm::MapVector<Operation *, SmallVector<ConvertLayoutOp>> groups;
  kernel.walk([&](ConvertLayoutOp cvt) {
    auto dst = cast<RankedTensorType>(cvt.getType());
    if (!isa_and_nonnull<SharedEncodingAttr>(dst.getEncoding()) ||
        !getDistributedLayout(cvt.getSrc().getType()))
      return;
    remarkMissed(cvt, "tile-pipeline", "Staged",
                 "no ring brings this tile to shared memory: each use stages "
                 "it through a buffer");
    Operation *user = cvt->hasOneUse() ? *cvt->user_begin() : nullptr;
    auto dot = dyn_cast_or_null<DotOp>(user);
    Operation *key =
        dot && dot->getBlock() == cvt->getBlock() ? dot : cvt.getOperation();
    groups[key].push_back(cvt);
  });
  if (groups.empty())
    return;
  int64_t bytes = estimateSharedMemory(kernel);
  bool twoStages = false;
  SmallVector<scf::ForOp> loops;
  for (auto &[key, cvts] : groups) {
    loops.push_back(getStagingLoop(cvts));
    bool perIteration = static_cast<bool>(loops.back());
    twoStages |= perIteration;
    for (ConvertLayoutOp cvt : cvts) {
      auto type = cast<RankedTensorType>(cvt.getType());
      bytes = llvm::alignTo(bytes, 1024) +
              (perIteration ? 2 : 1) * type.getNumElements() *
                  getStorageBytes(type.getElementType());
    }
  }
  if (twoStages && bytes > target.maxSmemPerBlock) {
    twoStages = false;
    remarkMissed(kernel, "tile-pipeline", "StagedOnce",
                 "the staging buffers keep one stage (the loop's wgmma waits "
                 "for each group): two stages would need " +
                     Twine(bytes) + " bytes of shared memory, more than " +
                     Twine(target.maxSmemPerBlock));
  }
  for (auto [group, loop] : llvm::zip(groups, loops))
    stageThroughSharedMemory(group.second, twoStages ? loop : scf::ForOp());
}

/// Waits for each wgmma no ring schedules right after it: a dot in a loop
/// whose loads stayed synchronous (operands staged per use, or loaded once
/// before the loop) is issued asynchronously like any wgmma, and nothing
/// else retires its group before the accumulator is read. tile-async-wgmma
/// may later relax these waits where groups can stay in flight.
static void waitForUnscheduledWgmma(KernelOp kernel) {
  kernel.walk([](DotOp dot) {
    // Only a wait, or another wgmma taking it as accumulator, may read a
    // result still in flight.
    auto readsInFlight = [&](Operation *user) {
      if (isa<WarpgroupWaitOp>(user))
        return false;
      auto next = dyn_cast<DotOp>(user);
      return !next || !isWgmma(next) || next.getAcc() != dot.getResult() ||
             next.getA() == dot.getResult() || next.getB() == dot.getResult();
    };
    if (!isWgmma(dot) || !llvm::any_of(dot->getUsers(), readsInFlight))
      return;
    OpBuilder b(dot->getContext());
    b.setInsertionPointAfter(dot);
    auto wait = WarpgroupWaitOp::create(b, dot.getLoc(), dot.getType(), 0,
                                        ValueRange{dot.getResult()});
    dot.getResult().replaceAllUsesExcept(wait.getResult(0), wait);
  });
}

namespace {
struct TilePipelinePass : tile::impl::TilePipelineBase<TilePipelinePass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TilePipelinePass::runOnOperation() {
  FailureOr<TargetInfo> target = resolveTarget(getOperation(), chip);
  if (failed(target))
    return signalPassFailure();
  SmallVector<scf::ForOp> loops;
  getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
  ScheduleAttr schedule = getOperation().getScheduleAttr();
  for (scf::ForOp loop : loops) {
    int64_t stages = numStages;
    if (schedule && schedule.getStages())
      stages = *schedule.getStages();
    if (auto attr = loop->getAttrOfType<IntegerAttr>(tile::kNumStagesAttr))
      stages = attr.getInt();
    if (stages < 2) {
      loop.emitError("tile.num_stages must be at least 2, got ") << stages;
      return signalPassFailure();
    }
    // The pass's default depth shrinks to what fits next to the kernel's
    // other buffers (a ring of 128x256x64 tiles takes 48 KB a stage; sm_89
    // has 99 KB); an explicit depth is kept (the planner then diagnoses).
    bool explicitDepth = loop->hasAttr(tile::kNumStagesAttr) ||
                         (schedule && schedule.getStages());
    unsigned staged =
        target->hasWgmma
            ? 0
            : stageInvariantOperands(
                  loop, *target,
                  schedule ? schedule.getOperandsInSmem() : BoolAttr());
    numStagedOperands += staged;
    if (!explicitDepth)
      stages = fitStages(loop, stages, *target);
    Location loc = loop.getLoc(); // pipelineLoop replaces the loop
    unsigned n = stages ? pipelineLoop(loop, stages) : 0;
    numPipelinedLoads += n;
    if (n > 0)
      remarkPassed(loc, "tile-pipeline", "Pipelined",
                   Twine(n) + (n == 1 ? " load" : " loads") +
                       " on cp.async in a " + Twine(stages) + "-stage ring");
    // A loop meant for the ring whose loads stay synchronous still may read
    // buffers filled by earlier copies (attention's Q), which the ring's
    // first wait would have covered: wait for them before the loop.
    if (n == 0 && (staged || loop->hasAttr(tile::kNumStagesAttr))) {
      OpBuilder b(loop);
      AsyncWaitOp::create(b, loop.getLoc(), 0);
      BarrierOp::create(b, loop.getLoc());
    }
  }
  // Conversions into shared layouts no ring took (register tiles read in
  // place by wgmma) go through a staging buffer.
  stageLeftConversions(getOperation(), *target);
  waitForUnscheduledWgmma(getOperation());
}
