//===- TmaPipeline.cpp - TMA rings guarded by full/empty mbarriers --------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-tma-pipeline: the Hopper data path
//
//   GMEM --cp.async.bulk.tensor (TMA, 128-byte swizzle)--> SMEM ring
//        --wgmma descriptors, in place--> tensor cores
//
// for the loads of an scf.for whose tiles a wgmma dot reads from shared
// memory (tile-assign-layouts gave them a #tile.shared operand layout).
// The loads a dot reads form a group with a `full` and an `empty` barrier
// per stage. Stage `s` of the ring is filled (by the producer) and read (by
// the consumers) in turns, each side tracking the barrier phase's parity:
//
//   prologue: for j in 0 .. S-2:  produce(k_j, position j)
//   for k (position s, ph):
//     wait full[s], ph                            // consumers
//     a, b = local_load ring[s]; d = dot(a, b, acc); wgmma.wait 0
//     arrive empty[s]                             // the stage is free
//     produce(k + (S-1) step, position s + S - 1) // producer
//
//   produce(k, (w, wph)): if k < ub:
//     wait empty[w], wph ^ 1; expect_tx full[w], bytes; tma -> ring[w]
//
// expect_tx counts the bytes of the group's boxes (TMA always writes whole
// boxes, zero-filling rows and columns outside the view). The ring position
// is carried by the loop and by the scf.for loops around it (a persistent
// tile loop), so that parities follow the barriers' phases across loops;
// the position passed on after the loop follows from its trip count. A
// query tile loaded per tile of a persistent loop lends its ring stage to
// the tile's TMA-store epilogue (stageStoresInRing).
// The producer work is marked `tile.producer`: tile-warp-specialize moves it
// to a producer warp; until then the consumer warps issue it themselves.
// The dots' waits stay at 0 pending here; tile-async-wgmma keeps groups in
// flight across iterations.
//
// In a kernel launched in clusters (cluster(n, 1, 1)), the programs that
// load the same tile share it: the rank analysis (ClusterRanks.h) proves
// which programs compute equal offsets for a load, and that all of them
// walk the loops around it in step. Each of the g programs of such a group
// copies 1/g of the tile's boxes and multicasts it to the whole group, so a
// stage of program r is written by the programs that share any of its
// tiles with r (its writers, r included). Its empty barrier then counts the
// releases of all their consumers, and r's consumers release a stage to
// each of its writers (a remote arrive):
//
//   produce: ... tma -> ring[w] of the group, part p(r) of g
//   consume: ... arrive empty[s] cta(w) for each writer w of r
//
// Cluster barriers after the barriers' initialization (no program signals
// another's barrier before it exists) and before the kernel exits (none
// leaves while others may still write to its shared memory) complete it.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/ClusterRanks.h"
#include "tilec/Analysis/Resources.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Pipeline.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-tma-pipeline"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILETMAPIPELINE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kTmaPipelinePass = "tile-tma-pipeline";

/// The deepest ring the pass builds by default: narrow tiles are bound by
/// streaming the operands, and more stages than this gain nothing.
static constexpr int64_t kMaxStages = 8;

namespace {
/// A load of the loop that becomes a TMA copy into a ring stage.
struct TmaOperand {
  LoadOp load;
  /// The conversion to the #tile.shared layout the dot reads in place.
  ConvertLayoutOp cvt;
  TensorMapType mapType;
  SmemType ringType;
  Value map, ring;
  /// In a cluster: the programs loading the same tile split it into
  /// `parts` runs of boxes; this program's part and the group's rank mask,
  /// per rank of the cluster (and as values once built).
  int64_t parts = 1;
  std::vector<int64_t> part, mask;
  Value partValue, maskValue;
  /// With the schedule's share_tiles: the index in its group of an earlier
  /// operand copying the same bytes, whose ring stage this one reads (no
  /// copy of its own); -1 for an operand with its own copy.
  int alias = -1;

  /// The bytes one copy of the tile moves.
  int64_t tileBytes() {
    auto tile = cast<RankedTensorType>(cvt.getType());
    return tile.getNumElements() * getStorageBytes(tile.getElementType());
  }
};

/// The loads one dot reads (or, with shared tiles, several dots): they
/// share a full and an empty barrier per stage, and the retirement of the
/// last of the dots frees their stage.
struct TmaGroup {
  SmallVector<DotOp, 1> dots;
  SmallVector<TmaOperand> operands;
  int64_t bytes = 0;
  Value full, empty;
  /// In a cluster: the programs writing into this program's stages, per
  /// rank (writers[j][r]: the j-th writer of rank r); empty when only the
  /// program itself does. Consumers release a stage to each of them.
  std::vector<std::vector<int64_t>> writers;
  std::vector<Value> writerValues;
};
} // namespace

/// Whether every use of `v` is a tile.dot reading it as the same operand
/// (all as A or all as B), in one block: the dots that read one tile in
/// place (a dual GEMM's X tile, read by its gate and up products).
static bool isReadByDotsOnly(Value v) {
  if (v.use_empty())
    return false;
  OpOperand &first = *v.getUses().begin();
  return llvm::all_of(v.getUses(), [&](OpOperand &use) {
    return isa<DotOp>(use.getOwner()) && use.getOperandNumber() < 2 &&
           use.getOperandNumber() == first.getOperandNumber() &&
           use.getOwner()->getBlock() == first.getOwner()->getBlock();
  });
}

/// The dots that read `load`'s tile in place from shared memory, through a
/// conversion to a #tile.shared layout (one dot, or several reading it as
/// the same operand), or none (and `cvt` unset).
static SmallVector<DotOp> getInPlaceDots(LoadOp load, ConvertLayoutOp &cvt) {
  if (!load->hasOneUse())
    return {};
  cvt = dyn_cast<ConvertLayoutOp>(*load->getUsers().begin());
  if (!cvt || !isa_and_nonnull<SharedEncodingAttr>(
                  cast<RankedTensorType>(cvt.getType()).getEncoding()))
    return {};
  if (!isReadByDotsOnly(cvt.getResult()))
    return {};
  return llvm::map_to_vector(cvt->getUsers(),
                             [](Operation *u) { return cast<DotOp>(u); });
}

/// Makes the identical conversions of a load (one per dot that reads the
/// tile: tile-assign-layouts converts each use) one conversion, so that
/// the tile is copied once.
static void mergeConversions(LoadOp load) {
  ConvertLayoutOp kept;
  for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
    auto cvt = dyn_cast<ConvertLayoutOp>(user);
    if (!cvt || !isa_and_nonnull<SharedEncodingAttr>(
                    cast<RankedTensorType>(cvt.getType()).getEncoding()))
      return;
    if (!kept) {
      kept = cvt;
      continue;
    }
    if (cvt.getType() != kept.getType() || cvt->getBlock() != kept->getBlock())
      return;
    if (cvt->isBeforeInBlock(kept))
      kept->moveBefore(cvt);
    cvt.getResult().replaceAllUsesWith(kept.getResult());
    cvt.erase();
  }
}

/// Checks that `load` (read in place through `cvt`) can be a TMA copy into
/// a ring stage of `loop`; `why` says what fails.
static FailureOr<TmaOperand> analyzeLoad(LoadOp load, ConvertLayoutOp cvt,
                                         scf::ForOp loop, std::string &why) {
  auto fail = [&](const Twine &reason) -> FailureOr<TmaOperand> {
    why = reason.str();
    return failure();
  };
  if (loop && load->getBlock() != loop.getBody())
    return fail("the load is not at the top level of the loop body");
  if (load.getMask() || load.getPadding() != Padding::Zero)
    return fail("the load is masked or pads with a non-zero value (TMA "
                "fills with zeros only)");
  if (loop && !loop.isDefinedOutsideOfLoop(load.getView()))
    return fail("the view is not made outside the loop");
  auto tile = cast<RankedTensorType>(cvt.getType());
  auto enc = cast<SharedEncodingAttr>(tile.getEncoding());
  Type et = tile.getElementType();
  unsigned bits = et.getIntOrFloatBitWidth();
  if (tile.getRank() != 2 || (bits != 32 && bits != 16 && bits != 8))
    return fail("only 2-D tiles of 32-bit, 16-bit or 8-bit elements are "
                "pipelined");
  // One box row is a swizzle segment: 128 bytes (32 32-bit, 64 16-bit or
  // 128 8-bit elements), or 64 bytes for K-major operands whose K is an odd
  // multiple of 64 bytes.
  unsigned elemBytes = bits / 8;
  std::optional<int64_t> swizzle = enc.getSegmentSwizzleBytes(elemBytes);
  if (!swizzle)
    return fail("the operand layout is not a 128- or 64-byte swizzle TMA "
                "writes");
  int64_t seg = *swizzle / elemBytes;
  unsigned contig = enc.getOrder()[0];
  ViewType view = load.getView().getType();
  unsigned lead = view.getRank() - 2;
  std::string problem =
      MakeTensorMapOp::getViewProblem(load.getView(), lead + contig);
  if (!problem.empty())
    return fail(problem);
  if (loop)
    for (Value off : load.getOffsets())
      if (!isRecomputableInLoop(off, loop))
        return fail("the offsets depend on values the loop carries or on "
                    "impure ops");
  // One box spans a row segment (the swizzle span) and at most 256 rows.
  int64_t rows = tile.getDimSize(1 - contig);
  int64_t boxRows = std::min<int64_t>(256, rows);
  if (tile.getDimSize(contig) % seg != 0 || rows % boxRows != 0)
    return fail("the tile is not a whole number of " + Twine(*swizzle) +
                "-byte boxes");
  SmallVector<int64_t> box(lead, 1);
  box.push_back(contig == 0 ? seg : boxRows);
  box.push_back(contig == 1 ? seg : boxRows);
  TmaOperand op;
  op.load = load;
  op.cvt = cvt;
  op.mapType = TensorMapType::get(load.getContext(), box, et, enc);
  op.ringType = SmemType::get(load.getContext(),
                              {1, tile.getDimSize(0), tile.getDimSize(1)}, et,
                              enc);
  return op;
}

bool mlir::tilec::tile::canTmaLoad(LoadOp load, const TargetInfo &target) {
  if (!target.hasTma || !target.hasWgmma)
    return false;
  if (ScheduleAttr schedule = ScheduleAttr::of(load);
      schedule && !ScheduleAttr::flag(schedule.getTma(), true))
    return false;
  if (!isReadByDotsOnly(load.getResult()) || load.getMask() ||
      load.getPadding() != Padding::Zero)
    return false;
  auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
  if (!loop && !isa<KernelOp>(load->getParentOp()))
    return false;
  auto tile = cast<RankedTensorType>(load.getType());
  unsigned bits = tile.getElementType().getIntOrFloatBitWidth();
  if (tile.getRank() != 2 || (bits != 16 && bits != 8))
    return false;
  ViewType view = load.getView().getType();
  std::optional<unsigned> cd = view.getContiguousDim();
  unsigned lead = view.getRank() - 2;
  // Rows of whole 64-byte segments at least (tile-assign-layouts picks the
  // 128-byte swizzle where they are whole 128-byte ones).
  if (!cd || *cd < lead || tile.getDimSize(*cd - lead) % (64 / (bits / 8)) != 0)
    return false;
  if (!MakeTensorMapOp::getViewProblem(load.getView(), *cd).empty())
    return false;
  if (loop && (!loop.isDefinedOutsideOfLoop(load.getView()) ||
               !llvm::all_of(load.getOffsets(), [&](Value off) {
                 return isRecomputableInLoop(off, loop);
               })))
    return false;
  return true;
}

/// Whether `v` and `w` are the same offset: one value, or equal constants.
static bool isSameOffset(Value v, Value w) {
  if (v == w)
    return true;
  std::optional<int64_t> a = getConstantIntValue(v), b = getConstantIntValue(w);
  return a && b && *a == *b;
}

/// Whether `a` and `b` copy the same bytes into shared memory: loads of
/// one tile.make_view's memory (the same base, sizes and strides, with the
/// last two dimensions in either order: a view and its transposed twin) at
/// the same offsets, whose tiles lay the same view dimension out
/// contiguously in the same swizzle. Their tiles are then equal or each
/// other's transpose (LocalLoadOp::isInPlaceRead).
static bool copySameBytes(const TmaOperand &a, const TmaOperand &b) {
  LoadOp la = a.load, lb = b.load;
  auto ma = la.getView().getDefiningOp<MakeViewOp>();
  auto mb = lb.getView().getDefiningOp<MakeViewOp>();
  // (The stage's type is the tile's: its conversion may be gone.)
  ArrayRef<int64_t> ta = a.ringType.getTileShape(),
                    tb = b.ringType.getTileShape();
  if (!ma || !mb || ma.getBase() != mb.getBase() ||
      a.ringType.getElementType() != b.ringType.getElementType() ||
      ma.getViewType().getRank() != mb.getViewType().getRank())
    return false;
  SharedEncodingAttr ea = a.ringType.getEncoding(),
                     eb = b.ringType.getEncoding();
  if (ea.getVec() != eb.getVec() || ea.getPerPhase() != eb.getPerPhase() ||
      ea.getMaxPhase() != eb.getMaxPhase() ||
      ea.getSegment() != eb.getSegment())
    return false;
  unsigned lead = ma.getViewType().getRank() - 2;
  // View dimensions in memory order: the leading ones, then the tile's
  // contiguous one, then its other one.
  auto physical = [&](SharedEncodingAttr enc) {
    unsigned contig = enc.getOrder()[0];
    SmallVector<unsigned> dims = llvm::to_vector(llvm::seq(0u, lead));
    dims.push_back(lead + contig);
    dims.push_back(lead + 1 - contig);
    return dims;
  };
  SmallVector<unsigned> da = physical(ea), db = physical(eb);
  for (auto [i, j] : llvm::zip(da, db)) {
    int64_t extentA = i < lead ? 1 : ta[i - lead];
    int64_t extentB = j < lead ? 1 : tb[j - lead];
    if (ma.getMixedSize(i) != mb.getMixedSize(j) ||
        ma.getMixedStride(i) != mb.getMixedStride(j) || extentA != extentB ||
        !isSameOffset(la.getOffsets()[i], lb.getOffsets()[j]))
      return false;
  }
  return true;
}

/// With the schedule's share_tiles: merges the groups of `groups` whose
/// operands copy the same bytes (every dot at the top level of `loop`'s
/// body, where the last one's retirement frees the stage), and makes each
/// such operand after the first an alias of it (no copy of its own; the
/// group's bytes count it once).
static void shareTiles(scf::ForOp loop, SmallVectorImpl<TmaGroup> &groups) {
  auto atTop = [&](const TmaGroup &g) {
    return llvm::all_of(
        g.dots, [&](DotOp d) { return d->getBlock() == loop.getBody(); });
  };
  auto overlap = [](const TmaGroup &g, const TmaGroup &h) {
    return llvm::any_of(g.operands, [&](const TmaOperand &a) {
      return llvm::any_of(
          h.operands, [&](const TmaOperand &b) { return copySameBytes(a, b); });
    });
  };
  for (size_t i = 0; i < groups.size(); ++i)
    for (size_t j = i + 1; j < groups.size();) {
      if (!atTop(groups[i]) || !atTop(groups[j]) ||
          !overlap(groups[i], groups[j])) {
        ++j;
        continue;
      }
      llvm::append_range(groups[i].dots, groups[j].dots);
      llvm::append_range(groups[i].operands, groups[j].operands);
      groups.erase(groups.begin() + j);
    }
  for (TmaGroup &g : groups) {
    g.bytes = 0;
    for (size_t k = 0; k < g.operands.size(); ++k) {
      for (size_t p = 0; p < k; ++p)
        if (g.operands[p].alias < 0 &&
            copySameBytes(g.operands[p], g.operands[k])) {
          g.operands[k].alias = static_cast<int>(p);
          break;
        }
      if (g.operands[k].alias < 0)
        g.bytes += g.operands[k].tileBytes();
    }
  }
}

/// Adds `op`, read by `dots`, to the group of those dots: a new one, or the
/// union of the groups that hold any of them (a tile read by several dots
/// makes their groups one, released when the last of them retires).
static void addToGroups(SmallVectorImpl<TmaGroup> &groups, ArrayRef<DotOp> dots,
                        TmaOperand op) {
  TmaGroup *target = nullptr;
  for (size_t i = 0; i < groups.size();) {
    bool holds = llvm::any_of(
        dots, [&](DotOp d) { return llvm::is_contained(groups[i].dots, d); });
    if (!holds) {
      ++i;
      continue;
    }
    if (!target) {
      target = &groups[i++];
      continue;
    }
    llvm::append_range(target->dots, groups[i].dots);
    llvm::append_range(target->operands, groups[i].operands);
    target->bytes += groups[i].bytes;
    groups.erase(groups.begin() + i);
  }
  if (!target) {
    groups.push_back(TmaGroup{{}, {}, 0, {}, {}, {}, {}});
    target = &groups.back();
  }
  for (DotOp d : dots)
    if (!llvm::is_contained(target->dots, d))
      target->dots.push_back(d);
  target->bytes += op.tileBytes();
  target->operands.push_back(op);
}

/// The groups of `loop`'s in-place dot operand loads, in body order, when
/// all of them can be TMA copies; `why` says why not (empty when the loop
/// has no such load). With `share`, loads of the same bytes share a copy
/// (shareTiles).
static FailureOr<SmallVector<TmaGroup>>
analyzeLoop(scf::ForOp loop, std::string &why, bool share = false) {
  SmallVector<TmaGroup> groups;
  for (auto load : loop.getBody()->getOps<LoadOp>()) {
    ConvertLayoutOp cvt;
    SmallVector<DotOp> dots = getInPlaceDots(load, cvt);
    if (dots.empty())
      continue;
    FailureOr<TmaOperand> op = analyzeLoad(load, cvt, loop, why);
    if (failed(op))
      return failure();
    addToGroups(groups, dots, *op);
  }
  if (groups.empty())
    return failure();
  if (share)
    shareTiles(loop, groups);
  if (!loop.getInductionVar().getType().isInteger(32)) {
    why = "the induction variable is not i32 (TMA coordinates are i32)";
    return failure();
  }
  for (Operation *p = loop->getParentOp(); !isa<KernelOp>(p);
       p = p->getParentOp())
    if (!isa<scf::ForOp>(p)) {
      why = ("the loop is inside '" + p->getName().getStringRef() +
             "' (a ring position is carried through scf.for loops only)")
                .str();
      return failure();
    }
  return groups;
}

/// `value` where it is usable before `top` (a top-level op of the kernel):
/// itself, or a clone of what computes it. That is pure arithmetic on kernel
/// parameters and constants for the views of tensor maps (see
/// MakeTensorMapOp::getViewProblem).
static Value cloneBefore(OpBuilder &b, Value value, Operation *top,
                         IRMapping &map) {
  if (isAvailableBefore(value, top) || map.contains(value))
    return map.lookupOrDefault(value);
  Operation *def = value.getDefiningOp();
  assert(def && "a block argument of another block than the kernel's");
  for (Value operand : def->getOperands())
    cloneBefore(b, operand, top, map);
  b.clone(*def, map);
  return map.lookup(value);
}

/// `view` where it is usable before `top`, see cloneBefore.
static Value getViewBefore(OpBuilder &b, Value view, Operation *top) {
  IRMapping map;
  return cloneBefore(b, view, top, map);
}

/// Issues the copies of loop iteration value `k` into ring position
/// (`s`, `ph`) when `k` is below the loop's upper bound: waits until the
/// stage is free, arms each group's full barrier with its bytes and starts
/// the copies. The whole is one scf.if marked as producer work.
static void emitProduce(OpBuilder &b, Location loc, scf::ForOp loop,
                        MutableArrayRef<TmaGroup> groups, Value k, Value s,
                        Value ph) {
  Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k,
                                     loop.getUpperBound());
  auto ifOp = scf::IfOp::create(b, loc, live, [&](OpBuilder &ib, Location l) {
    Value free = getFreeParity(ib, l, ph);
    for (TmaGroup &g : groups) {
      MBarrierWaitOp::create(ib, l, g.empty, s, free);
      MBarrierExpectTxOp::create(ib, l, g.full, s, g.bytes);
      for (TmaOperand &op : g.operands) {
        if (op.alias >= 0)
          continue; // its bytes come with an earlier operand's copy
        SmallVector<Value> offsets =
            cloneForIteration(ib, loop, op.load.getOffsets(), k);
        if (op.parts == 1)
          TmaLoadOp::create(ib, l, op.map, offsets, op.ring, s, g.full, s);
        else
          TmaLoadOp::create(ib, l, op.map, offsets, op.ring, s, g.full, s,
                            op.maskValue, op.partValue, op.parts);
      }
    }
    scf::YieldOp::create(ib, l);
  });
  ifOp->setAttr(kProducerAttr, b.getUnitAttr());
}

/// Consumers release stage `s` of `g`: to this program, or to each program
/// writing into it.
static void emitRelease(OpBuilder &b, Location loc, const TmaGroup &g,
                        Value s) {
  if (g.writerValues.empty()) {
    MBarrierArriveOp::create(b, loc, g.empty, s);
    return;
  }
  for (Value peer : g.writerValues)
    MBarrierArriveOp::create(b, loc, g.empty, s, peer);
}

namespace {
/// A ring position carried by the scf.for loops around a pipelined loop:
/// `entry` holds it right before the loop; `finish` passes the position
/// after the loop back out through the enclosing loops' yields.
class CarriedPosition {
public:
  CarriedPosition(scf::ForOp loop, Operation *top, RewriterBase &rewriter);
  ValueRange getEntry() const { return entry; }
  /// True when loops around the pipelined one carry its position.
  bool isCarried() const { return !ancestors.empty(); }
  void finish(ValueRange exit);

private:
  SmallVector<scf::ForOp> ancestors; // outermost first
  SmallVector<Value> entry;
};
} // namespace

CarriedPosition::CarriedPosition(scf::ForOp loop, Operation *top,
                                 RewriterBase &rewriter) {
  for (auto p = loop->getParentOfType<scf::ForOp>(); p;
       p = p->getParentOfType<scf::ForOp>())
    ancestors.insert(ancestors.begin(), p);
  rewriter.setInsertionPoint(top);
  Value zero = createI32(rewriter, loop.getLoc(), 0);
  entry = {zero, zero};
  for (scf::ForOp &a : ancestors) {
    FailureOr<LoopLikeOpInterface> replaced = a.replaceWithAdditionalYields(
        rewriter, entry, /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>(args.begin(), args.end()); // patched
        });
    a = cast<scf::ForOp>(replaced->getOperation());
    entry = SmallVector<Value>(a.getRegionIterArgs().take_back(2));
  }
}

void CarriedPosition::finish(ValueRange exit) {
  SmallVector<Value> out(exit);
  for (scf::ForOp a : llvm::reverse(ancestors)) {
    auto yield = cast<scf::YieldOp>(a.getBody()->getTerminator());
    unsigned n = yield.getNumOperands();
    yield->setOperand(n - 2, out[0]);
    yield->setOperand(n - 1, out[1]);
    out = SmallVector<Value>(a.getResults().take_back(2));
  }
}

//===----------------------------------------------------------------------===//
// Sharing tiles across a cluster
//===----------------------------------------------------------------------===//

/// The map type of `op` with boxes small enough that the tile splits into a
/// multiple of `parts` of them (8-row multiples: whole swizzle atoms), or
/// nullopt.
static std::optional<TensorMapType> splitBoxes(TmaOperand &op,
                                               int64_t parts) {
  auto tile = cast<RankedTensorType>(op.cvt.getType());
  unsigned contig =
      cast<SharedEncodingAttr>(tile.getEncoding()).getOrder()[0];
  int64_t rows = tile.getDimSize(1 - contig);
  int64_t segments = tile.getDimSize(contig) / 64;
  SmallVector<int64_t> box(op.mapType.getShape());
  unsigned rowDim = box.size() - 2 + (1 - contig);
  for (int64_t boxRows = std::min<int64_t>(256, rows); boxRows >= 8;
       boxRows /= 2) {
    if (rows % boxRows != 0 || (rows / boxRows * segments) % parts != 0)
      continue;
    box[rowDim] = boxRows;
    return TensorMapType::get(op.mapType.getContext(), box,
                              op.mapType.getElementType(),
                              op.mapType.getEncoding());
  }
  return std::nullopt;
}

/// Decides which programs of the cluster share `op`'s tile: those whose
/// offsets are equal (the rank analysis gives each offset's table). Sets
/// `op.parts`, `op.part` and `op.mask`; leaves `op` unshared when the
/// offsets are not known, the groups differ in size or the tile does not
/// split into that many parts.
static void planSharing(TmaOperand &op, ClusterRankAnalysis &ranks) {
  int64_t n = ranks.getClusterSize();
  SmallVector<SmallVector<int64_t>> key(n);
  for (Value offset : op.load.getOffsets()) {
    std::optional<RankValue> v = ranks.lookup(offset);
    if (!v) {
      remarkMissed(op.load, kTmaPipelinePass, "NotShared",
                   "each program of the cluster loads its own tile: how its "
                   "offsets differ between the programs is not known");
      return;
    }
    for (int64_t r = 0; r < n; ++r)
      key[r].push_back(v->f[r]);
  }
  std::vector<int64_t> part(n), mask(n);
  int64_t parts = 0;
  for (int64_t r = 0; r < n; ++r) {
    int64_t members = 0;
    for (int64_t q = 0; q < n; ++q) {
      if (key[q] != key[r])
        continue;
      if (q == r)
        part[r] = members;
      mask[r] |= int64_t(1) << q;
      ++members;
    }
    if (parts && members != parts)
      return;
    parts = members;
  }
  if (parts == 1)
    return;
  std::optional<TensorMapType> map = splitBoxes(op, parts);
  if (!map)
    return;
  op.mapType = *map;
  op.parts = parts;
  op.part = std::move(part);
  op.mask = std::move(mask);
}

/// Plans the sharing of `groups`' tiles in a cluster kernel (see the file
/// comment); true when some tile is shared. Nothing is shared unless every
/// program runs `loop` and the loops around it the same number of times.
static bool planMulticast(scf::ForOp loop, MutableArrayRef<TmaGroup> groups,
                          ClusterRankAnalysis &ranks) {
  int64_t n = ranks.getClusterSize();
  if (n <= 1)
    return false;
  for (scf::ForOp l = loop; l; l = l->getParentOfType<scf::ForOp>())
    if (!ranks.hasUniformTripCount(l)) {
      remarkMissed(loop, kTmaPipelinePass, "NotShared",
                   "each program of the cluster loads its own tiles: the "
                   "programs may run this loop or one around it a different "
                   "number of times");
      return false;
    }
  bool shared = false;
  for (TmaGroup &g : groups) {
    SmallVector<TensorMapType> unsplit;
    for (TmaOperand &op : g.operands) {
      unsplit.push_back(op.mapType);
      planSharing(op, ranks);
    }
    // The writers of rank r: the programs of any group r shares a tile of
    // this stage with. Every rank needs as many (the barrier count).
    SmallVector<int64_t> writerMask(n);
    for (int64_t r = 0; r < n; ++r) {
      writerMask[r] = int64_t(1) << r;
      for (TmaOperand &op : g.operands)
        if (op.parts > 1)
          writerMask[r] |= op.mask[r];
    }
    int64_t count = llvm::popcount(static_cast<uint64_t>(writerMask[0]));
    bool even = llvm::all_of(writerMask, [&](int64_t m) {
      return llvm::popcount(static_cast<uint64_t>(m)) == count;
    });
    if (!even || count == 1) {
      // Unshared after all: whole boxes again.
      for (auto [op, map] : llvm::zip(g.operands, unsplit)) {
        op.parts = 1;
        op.mapType = map;
      }
      continue;
    }
    g.writers.assign(count, std::vector<int64_t>(n));
    for (int64_t r = 0; r < n; ++r)
      for (int64_t q = 0, j = 0; q < n; ++q)
        if (writerMask[r] & (int64_t(1) << q))
          g.writers[j++][r] = q;
    shared = true;
  }
  return shared;
}

/// The per-rank tables of the plan as values, at the builder's point (the
/// top level of the kernel, before the program).
static void emitMulticastTables(OpBuilder &b, Location loc,
                                MutableArrayRef<TmaGroup> groups) {
  Value rank;
  auto getRank = [&] {
    if (!rank)
      rank = ClusterRankOp::create(b, loc);
    return rank;
  };
  for (TmaGroup &g : groups) {
    for (TmaOperand &op : g.operands)
      if (op.parts > 1) {
        op.maskValue = createRankTable(b, loc, getRank(), op.mask);
        op.partValue = createRankTable(b, loc, getRank(), op.part);
      }
    for (ArrayRef<int64_t> writer : g.writers)
      g.writerValues.push_back(createRankTable(b, loc, getRank(), writer));
  }
}

/// Cluster barriers after the last barrier initialization and before the
/// kernel exits, unless there already.
static void addClusterBarriers(KernelOp kernel) {
  Block &body = kernel.getBody().front();
  Operation *lastAlloc = nullptr;
  for (Operation &op : body)
    if (isa<MBarrierAllocOp>(op))
      lastAlloc = &op;
  OpBuilder b(kernel.getContext());
  if (!isa_and_nonnull<ClusterBarrierOp>(lastAlloc->getNextNode())) {
    b.setInsertionPointAfter(lastAlloc);
    ClusterBarrierOp::create(b, kernel.getLoc());
  }
  Operation *ret = body.getTerminator();
  if (!isa_and_nonnull<ClusterBarrierOp>(ret->getPrevNode())) {
    b.setInsertionPoint(ret);
    ClusterBarrierOp::create(b, kernel.getLoc());
  }
}

/// Whether every TMA-store epilogue's write or store (tile-tma-store) of
/// `buffer` sits in an op of `scope` that comes after the one holding
/// `reader` (a tile's last read in place): the tile is dead by the time the
/// epilogue stages its own tile in the buffer. With `onlyEpilogue`, the
/// buffer may have no other users either.
static bool epilogueWritesAfter(Value buffer, Block *scope, Operation *reader,
                                bool onlyEpilogue) {
  Operation *readerTop = scope->findAncestorOpInBlock(*reader);
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    if (!isa<LocalStoreOp, TmaStoreOp>(user))
      return !onlyEpilogue;
    Operation *top = scope->findAncestorOpInBlock(*user);
    return top && readerTop->isBeforeInBlock(top);
  });
}

/// The staging buffer of a TMA-store epilogue (tile-tma-store) in `loop`
/// that a stage of `op`'s ring can replace: a one-stage buffer of the ring's
/// type whose only accesses are the epilogue's writes and stores at the top
/// level of the body, after `user` (the op reading the stage: the tile is
/// dead by then), each write right after a barrier of the program's warps.
/// Null when there is none.
static LocalAllocOp findStagingInLoop(scf::ForOp loop, const TmaOperand &op,
                                      Operation *user) {
  auto kernel = loop->getParentOfType<KernelOp>();
  ArrayRef<int64_t> ring = op.ringType.getShape();
  SmemType oneStage =
      SmemType::get(loop.getContext(), {1, ring[1], ring[2]},
                    op.ringType.getElementType(), op.ringType.getEncoding());
  Block *body = loop.getBody();
  for (auto alloc : kernel.getBody().front().getOps<LocalAllocOp>()) {
    if (alloc.getType() != oneStage || alloc->use_empty() ||
        !epilogueWritesAfter(alloc, body, user, /*onlyEpilogue=*/true))
      continue;
    bool atTop = llvm::all_of(alloc->getUsers(), [&](Operation *u) {
      return u->getBlock() == body &&
             (isa<TmaStoreOp>(u) || isa_and_nonnull<BarrierOp>(u->getPrevNode()));
    });
    if (atTop)
      return alloc;
  }
  return {};
}

/// A tile loaded per iteration of `loop` (a persistent tile loop) for dots
/// in inner loops, whose last reader is `user`: where a TMA-store epilogue
/// later in the iteration stages its tile, it stages it in the tile's stage
/// `s` instead of a buffer of its own (FlashAttention-3 stores O through
/// Q's buffer), and the stage is released at the start of the next
/// iteration, once the store has read it:
///
///   for t (stage s):                     if t != first:
///     ..., user; wgmma wait 0              tma_store_wait 0; barrier
///     barrier; local_store o -> ring[s]    release ring[s - 1]
///     tma_store ring[s]                  ...
///
/// The write needs no wait for an earlier store: the stage was refilled
/// only after its previous store's wait. True when done (the caller then
/// releases nothing after `user`). Only for a loop that no loop encloses
/// (its first iteration releases nothing).
static bool stageStoresInRing(RewriterBase &rewriter, scf::ForOp loop,
                              const TmaGroup &g, Operation *user, Value s,
                              int64_t stages) {
  if (g.operands.size() != 1 || loop->getParentOfType<scf::ForOp>())
    return false;
  const TmaOperand &op = g.operands.front();
  LocalAllocOp staging = findStagingInLoop(loop, op, user);
  if (!staging)
    return false;
  for (Operation *u : llvm::make_early_inc_range(staging->getUsers())) {
    if (auto store = dyn_cast<LocalStoreOp>(u)) {
      auto wait = dyn_cast_or_null<TmaStoreWaitOp>(
          store->getPrevNode()->getPrevNode());
      if (wait && wait.getPending() == 0)
        rewriter.eraseOp(wait);
      rewriter.modifyOpInPlace(store, [&] {
        store.getBufferMutable().assign(op.ring);
        store.getStageMutable().assign(s);
      });
    } else {
      auto tmaStore = cast<TmaStoreOp>(u);
      rewriter.modifyOpInPlace(tmaStore, [&] {
        tmaStore.getBufferMutable().assign(op.ring);
        tmaStore.getStageMutable().assign(s);
      });
    }
  }
  rewriter.eraseOp(staging);
  // The release of the previous iteration's stage, before the iteration's
  // first memory access (after its index math).
  Block *body = loop.getBody();
  auto it = llvm::find_if(*body, [](Operation &o) {
    return o.getNumRegions() != 0 || !isMemoryEffectFree(&o);
  });
  Operation *first = it == body->end() ? body->getTerminator() : &*it;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(first);
  Value later = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                      loop.getInductionVar(),
                                      loop.getLowerBound());
  scf::IfOp::create(rewriter, loc, later, [&](OpBuilder &b, Location l) {
    TmaStoreWaitOp::create(b, l, 0);
    BarrierOp::create(b, l);
    emitRelease(b, l, g, getPreviousStage(b, l, s, stages));
    scf::YieldOp::create(b, l);
  });
  return true;
}

/// Builds the ring of `groups` for `loop` (`stages` deep, released by the
/// arrivals of `numWarps` warps) and rewrites the loop to read it.
static void pipelineLoop(scf::ForOp loop, MutableArrayRef<TmaGroup> groups,
                         int64_t stages, unsigned numWarps) {
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  IRRewriter rewriter(ctx);
  auto kernel = loop->getParentOfType<KernelOp>();
  Operation *top = kernel.getBody().front().findAncestorOpInBlock(*loop);

  // Maps, rings and barriers live for the whole kernel.
  rewriter.setInsertionPoint(top);
  for (TmaGroup &g : groups) {
    for (TmaOperand &op : g.operands) {
      if (op.alias >= 0) {
        op.ring = g.operands[op.alias].ring;
        continue;
      }
      Value view = getViewBefore(rewriter, op.load.getView(), top);
      op.map = MakeTensorMapOp::create(rewriter, loc, op.mapType, view);
      ArrayRef<int64_t> shape = op.ringType.getShape();
      op.ringType = SmemType::get(ctx, {stages, shape[1], shape[2]},
                                  op.ringType.getElementType(),
                                  op.ringType.getEncoding());
      op.ring = LocalAllocOp::create(rewriter, loc, op.ringType);
    }
    auto bars = MBarrierType::get(ctx, stages);
    g.full = MBarrierAllocOp::create(rewriter, loc, bars, 1);
    int64_t writers = std::max<int64_t>(1, g.writers.size());
    g.empty = MBarrierAllocOp::create(rewriter, loc, bars, numWarps * writers);
  }
  emitMulticastTables(rewriter, loc, groups);
  CarriedPosition position(loop, top, rewriter);

  // Prologue: the first S - 1 iterations' copies.
  rewriter.setInsertionPoint(loop);
  Value s0 = position.getEntry()[0], ph0 = position.getEntry()[1];
  Type ivType = loop.getInductionVar().getType();
  for (int64_t j = 0; j + 1 < stages; ++j) {
    Value kj = arith::AddIOp::create(
        rewriter, loc, loop.getLowerBound(),
        arith::MulIOp::create(
            rewriter, loc, loop.getStep(),
            arith::ConstantOp::create(rewriter, loc, ivType,
                                      rewriter.getIntegerAttr(ivType, j))));
    Value sj = s0, phj = ph0;
    if (j > 0)
      std::tie(sj, phj) = advanceRingBy(rewriter, loc, s0, ph0, j, stages);
    emitProduce(rewriter, loc, loop, groups, kj, sj, phj);
  }

  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{s0, ph0}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location l, ArrayRef<BlockArgument> args) {
        auto [s, ph] = advanceRing(b, l, args[0], args[1], stages);
        return SmallVector<Value>{s, ph};
      });
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned n = newLoop.getRegionIterArgs().size();
  Value s = newLoop.getRegionIterArgs()[n - 2];
  Value ph = newLoop.getRegionIterArgs()[n - 1];

  // Consumers: wait for the stage, read it in place, release it once the
  // dot has retired.
  for (TmaGroup &g : groups) {
    Operation *first = g.operands.front().cvt;
    for (TmaOperand &op : g.operands)
      if (op.cvt->isBeforeInBlock(first))
        first = op.cvt;
    rewriter.setInsertionPoint(first);
    MBarrierWaitOp::create(rewriter, loc, g.full, s, ph);
    for (TmaOperand &op : g.operands) {
      rewriter.setInsertionPoint(op.cvt);
      rewriter.replaceOpWithNewOp<LocalLoadOp>(op.cvt, op.cvt.getType(),
                                               op.ring, s);
    }
    DotOp dot = g.dots.front();
    if (dot->getBlock() != newLoop.getBody()) {
      // The dot is in a loop (or branch) of the body, reading the stage
      // every time: the stage is free once that op is done and its groups
      // have retired (a query tile per tile of a persistent loop).
      Operation *user = newLoop.getBody()->findAncestorOpInBlock(*dot);
      rewriter.setInsertionPointAfter(user);
      WarpgroupWaitOp::create(rewriter, loc, TypeRange{}, 0, ValueRange{});
      if (!stageStoresInRing(rewriter, newLoop, g, user, s, stages))
        emitRelease(rewriter, loc, g, s);
      continue;
    }
    // Each dot retires before its result is read; the stage is free once
    // the last of them has.
    Operation *lastWait = nullptr;
    for (DotOp d : g.dots) {
      rewriter.setInsertionPointAfter(d);
      auto wait = WarpgroupWaitOp::create(rewriter, loc, d.getType(), 0,
                                          ValueRange{d.getResult()});
      rewriter.replaceAllUsesExcept(d.getResult(), wait.getResult(0), wait);
      if (!lastWait || lastWait->isBeforeInBlock(wait))
        lastWait = wait;
    }
    rewriter.setInsertionPointAfter(lastWait);
    emitRelease(rewriter, loc, g, s);
  }
  // Producer: the copies S - 1 iterations ahead, into the stage the
  // previous iteration released (with one stage: this iteration's, at the
  // top of the body, once the previous iteration has released it).
  if (stages == 1)
    rewriter.setInsertionPointToStart(newLoop.getBody());
  else
    rewriter.setInsertionPoint(newLoop.getBody()->getTerminator());
  Value ahead = arith::AddIOp::create(
      rewriter, loc, newLoop.getInductionVar(),
      arith::MulIOp::create(
          rewriter, loc, newLoop.getStep(),
          arith::ConstantOp::create(
              rewriter, loc, ivType,
              rewriter.getIntegerAttr(ivType, stages - 1))));
  Value w = s, wph = ph;
  if (stages > 1)
    std::tie(w, wph) = advanceRingBy(rewriter, loc, s, ph, stages - 1, stages);
  emitProduce(rewriter, loc, newLoop, groups, ahead, w, wph);
  for (TmaGroup &g : groups)
    for (TmaOperand &op : g.operands)
      rewriter.eraseOp(op.load);

  // The position after the loop, for the loops around it, follows from the
  // trip count: one stage per iteration. It is not read from the loop's
  // results, which a later pass may route through a branch (the zero-trip
  // guard of a rotated loop); there the join of the branch merges with the
  // lane-0 guard of the last release, and ptxas keeps the position (and the
  // next tile's key loop math with it) off the uniform datapath: the
  // persistent attention kernel ran at 0.92x of the same IR with the
  // position computed (H200, bench/results/2026-12-02_attention_persistent_
  // pass_built_variants_h200.json, "ctr").
  if (position.isCarried()) {
    // Where the enclosing loop passes it on, after the rest of its body.
    rewriter.setInsertionPoint(
        newLoop->getParentOfType<scf::ForOp>().getBody()->getTerminator());
    Value trips = getTripCount(rewriter, loc, newLoop);
    auto [s1, ph1] = advanceRingByCount(rewriter, loc, s0, ph0, trips, stages);
    position.finish({s1, ph1});
  }
}

/// The ring depth for `groups` in `loop`: the loop's `tile.num_stages`, the
/// pass option, or as many stages as the shared memory left allows (up to
/// kMaxStages; for `twoPrograms`, a second program's share left over);
/// failure (with `why`) when fewer than two fit.
static FailureOr<int64_t>
chooseStages(scf::ForOp loop, ArrayRef<TmaGroup> groups, int64_t option,
             bool twoPrograms, const TargetInfo &target, std::string &why) {
  if (auto attr = loop->getAttrOfType<IntegerAttr>(tile::kNumStagesAttr))
    option = attr.getInt();
  int64_t stageBytes = 0;
  for (const TmaGroup &g : groups)
    stageBytes += g.bytes;
  auto kernel = loop->getParentOfType<KernelOp>();
  // Every alloc rounds up to 1024 bytes; barriers take 16 bytes a stage.
  int64_t used = estimateSharedMemory(kernel) + 1024 * (1 + 2 * groups.size());
  // The loop's other loads that tile-pipeline rings later (for dots left to
  // mma.sync), at its smallest ring: without that room the TMA ring took it
  // all (a 6-stage ring beside a 2-stage cp.async one, 247296 bytes).
  llvm::DenseSet<Operation *> onTma;
  for (const TmaGroup &g : groups)
    for (const TmaOperand &op : g.operands)
      onTma.insert(op.load);
  used += getMinCpAsyncRingBytes(loop, onTma);
  // A tile the loop's inner loops read (a query tile per tile): the inner
  // loops' rings (two stages each) come first, and one tile ahead is all
  // the producer can use.
  bool nested = llvm::any_of(groups, [&](const TmaGroup &g) {
    return g.dots.front()->getBlock() != loop.getBody();
  });
  if (nested)
    loop.getBody()->walk([&](scf::ForOp inner) {
      std::string ignored;
      FailureOr<SmallVector<TmaGroup>> innerGroups = analyzeLoop(inner, ignored);
      if (succeeded(innerGroups))
        for (const TmaGroup &g : *innerGroups)
          used += 2 * g.bytes + 1024;
    });
  int64_t budget = static_cast<int64_t>(target.maxSmemPerBlock) - used;
  int64_t fit = (budget - 16 * static_cast<int64_t>(groups.size()) *
                              kMaxStages) /
                stageBytes;
  int64_t least = nested ? 1 : 2;
  if (option > 0) {
    if (option < least) {
      why = "a ring needs at least 2 stages";
      return failure();
    }
    return option;
  }
  if (nested)
    fit = std::min<int64_t>(fit, 2);
  if (fit < least) {
    why = (Twine(least) + " stage(s) of " + Twine(stageBytes) +
           " bytes do not fit in the " + Twine(std::max<int64_t>(budget, 0)) +
           " bytes of shared memory left")
              .str();
    return failure();
  }
  // Two programs per SM: as deep a ring as leaves room for the second
  // (its shared memory is the per-block maximum plus the 1 KB the system
  // keeps per block; each program keeps 1 KB).
  if (twoPrograms) {
    int64_t perProgram =
        (static_cast<int64_t>(target.maxSmemPerBlock) + 1024) / 2 - 1024;
    int64_t twoFit = (perProgram - used -
                      16 * static_cast<int64_t>(groups.size()) * kMaxStages) /
                     stageBytes;
    if (twoFit >= least)
      fit = std::min(fit, twoFit);
  }
  return std::min(fit, kMaxStages);
}

/// A one-stage buffer of `type` that a TMA-store epilogue (tile-tma-store)
/// stages its tile in and that a tile loaded once may share: every access to
/// it comes after the top-level op holding `reader` (the tile's last read in
/// place), so the tile is dead when the epilogue writes the buffer. The
/// epilogue writes it after a barrier of all the program's warps, which
/// each retired their wgmma groups (the tile's reads) before it. Null when
/// there is none (or another tile took it).
static Value findReusableStaging(KernelOp kernel, SmemType type,
                                 Operation *reader,
                                 const llvm::DenseSet<Value> &taken) {
  Block &body = kernel.getBody().front();
  for (auto alloc : body.getOps<LocalAllocOp>())
    if (alloc.getType() == type && !taken.contains(alloc.getResult()) &&
        !alloc->use_empty() &&
        epilogueWritesAfter(alloc, &body, reader, /*onlyEpilogue=*/true))
      return alloc.getResult();
  return Value();
}

/// `dot` reads `op`'s tile in place from `buffer` once barrier `full`
/// (one stage) has completed: the conversion becomes the wait and an
/// in-place read (the load is left to the caller to erase). A dot in a loop
/// gets its wait from tile-pipeline (its ring's schedule, or, when no ring
/// forms, a wait right after it); one outside any loop needs its own before the
/// accumulator is read (once, when both operands were loaded once).
static void readLoadedOnce(TmaOperand &op, Value buffer, Value full,
                           DotOp dot) {
  IRRewriter rewriter(op.load.getContext());
  Location loc = op.load.getLoc();
  rewriter.setInsertionPoint(op.cvt);
  Value zero = createI32(rewriter, loc, 0);
  MBarrierWaitOp::create(rewriter, loc, full, zero, zero);
  rewriter.replaceOpWithNewOp<LocalLoadOp>(op.cvt, op.cvt.getType(), buffer,
                                           zero);
  // (The caller erases the load once no later load compares with it.)
  if (dot->getParentOfType<scf::ForOp>() || getWaitFor(dot))
    return;
  rewriter.setInsertionPointAfter(dot);
  auto wait = WarpgroupWaitOp::create(rewriter, loc, dot.getType(), 0,
                                      ValueRange{dot.getResult()});
  rewriter.replaceAllUsesExcept(dot.getResult(), wait.getResult(0), wait);
}

/// A load at the top level of the kernel whose tile a dot (in a loop, say)
/// reads in place: one TMA copy into a buffer, whose barrier the consumers
/// wait on before their first read (a FlashAttention query tile). The
/// buffer is the staging buffer of a later TMA-store epilogue where one
/// fits (FlashAttention-3 stores O through Q's buffer), else its own.
/// Returns the barrier.
static Value loadOnce(TmaOperand &op, DotOp dot,
                      llvm::DenseSet<Value> &takenStaging) {
  MLIRContext *ctx = op.load.getContext();
  Location loc = op.load.getLoc();
  IRRewriter rewriter(ctx);
  rewriter.setInsertionPoint(op.load);
  op.map = MakeTensorMapOp::create(rewriter, loc, op.mapType, op.load.getView());
  auto kernel = op.load->getParentOfType<KernelOp>();
  op.ring = findReusableStaging(kernel, op.ringType, dot, takenStaging);
  if (op.ring) {
    // The buffer now holds the tile first: allocated before its load.
    takenStaging.insert(op.ring);
    op.ring.getDefiningOp()->moveBefore(op.load);
  } else {
    op.ring = LocalAllocOp::create(rewriter, loc, op.ringType);
  }
  Value full =
      MBarrierAllocOp::create(rewriter, loc, MBarrierType::get(ctx, 1), 1);
  Value zero = createI32(rewriter, loc, 0);
  int64_t bytes = op.tileBytes();
  Value yes = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
  auto ifOp = scf::IfOp::create(rewriter, loc, yes, [&](OpBuilder &b, Location l) {
    MBarrierExpectTxOp::create(b, l, full, zero, bytes);
    TmaLoadOp::create(b, l, op.map, op.load.getOffsets(), op.ring, zero, full,
                      zero);
    scf::YieldOp::create(b, l);
  });
  ifOp->setAttr(kProducerAttr, rewriter.getUnitAttr());
  readLoadedOnce(op, op.ring, full, dot);
  return full;
}

/// A tile loaded once earlier in the kernel: its copy, barrier and reader.
namespace {
struct LoadedOnce {
  TmaOperand op;
  Value full;
  DotOp dot;
};
} // namespace

/// With the schedule's share_tiles: an earlier tile loaded once whose copy
/// `op` (read by `dot`) can read instead of a copy of its own: the same
/// bytes, in a buffer that, when a TMA-store epilogue stages its tile in it
/// later, is dead by then for `dot` too. Null when there is none.
static const LoadedOnce *findSharedCopy(ArrayRef<LoadedOnce> loaded,
                                        const TmaOperand &op, DotOp dot,
                                        const llvm::DenseSet<Value> &staging,
                                        KernelOp kernel) {
  for (const LoadedOnce &prev : loaded) {
    if (!copySameBytes(prev.op, op))
      continue;
    // The epilogue's writes and stores come after `dot` too (the buffer's
    // other users are the tile's copy and reads).
    if (!staging.contains(prev.op.ring) ||
        epilogueWritesAfter(prev.op.ring, &kernel.getBody().front(), dot,
                            /*onlyEpilogue=*/false))
      return &prev;
  }
  return nullptr;
}

namespace {
struct TileTmaPipelinePass
    : tile::impl::TileTmaPipelineBase<TileTmaPipelinePass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileTmaPipelinePass::runOnOperation() {
  KernelOp kernel = getOperation();
  FailureOr<TargetInfo> target = resolveTarget(kernel, chip);
  if (failed(target))
    return signalPassFailure();
  if (!target->hasTma || !target->hasWgmma)
    return;
  ScheduleAttr schedule = kernel.getScheduleAttr();
  if (schedule && !ScheduleAttr::flag(schedule.getTma(), true))
    return;
  int64_t stagesOption = numStages;
  if (schedule && schedule.getStages())
    stagesOption = *schedule.getStages();
  // Loads of the same tile read by several dots share one copy, where the
  // schedule asks (no sharing of copies across a cluster's programs then).
  bool share = schedule &&
               ScheduleAttr::flag(schedule.getShareTiles(), false) &&
               ClusterRankAnalysis(kernel).getClusterSize() <= 1;
  // A tile several dots read: one conversion, so one copy.
  kernel.walk([](LoadOp load) { mergeConversions(load); });
  // Tiles loaded once, at the top level, for dots in loops.
  llvm::DenseSet<Value> takenStaging;
  SmallVector<LoadedOnce, 2> loadedOnce;
  SmallVector<LoadOp> copied; // erased once all are compared
  for (auto load : llvm::make_early_inc_range(
           kernel.getBody().front().getOps<LoadOp>())) {
    ConvertLayoutOp cvt;
    SmallVector<DotOp> dots = getInPlaceDots(load, cvt);
    if (dots.size() != 1)
      continue;
    DotOp dot = dots.front();
    std::string why;
    FailureOr<TmaOperand> op = analyzeLoad(load, cvt, scf::ForOp(), why);
    if (failed(op)) {
      remarkMissed(load, kTmaPipelinePass, "NotLoaded",
                   "left to the threads: " + why);
      continue;
    }
    Location loc = load.getLoc();
    copied.push_back(load);
    if (const LoadedOnce *prev =
            share ? findSharedCopy(loadedOnce, *op, dot, takenStaging, kernel)
                  : nullptr) {
      readLoadedOnce(*op, prev->op.ring, prev->full, dot);
      remarkPassed(loc, kTmaPipelinePass, "SharedCopy",
                   "the dot reads an earlier TMA copy of the same tile in "
                   "place (share_tiles)");
      continue;
    }
    Value full = loadOnce(*op, dot, takenStaging);
    loadedOnce.push_back({*op, full, dot});
    remarkPassed(loc, kTmaPipelinePass, "LoadedOnce",
                 takenStaging.contains(op->ring)
                     ? "one TMA copy into the buffer a later TMA store "
                       "stages its tile in, which the dot reads in place"
                     : "one TMA copy into a buffer the dot reads in place");
    ++numTmaLoads;
  }
  for (LoadOp load : copied)
    load.erase();
  // Outer loops first: pipelining a loop replaces it and the loops around
  // it (which carry its ring position), never the loops inside it.
  SmallVector<scf::ForOp> loops;
  kernel.walk<WalkOrder::PreOrder>(
      [&](scf::ForOp loop) { loops.push_back(loop); });
  bool multicast = false;
  for (scf::ForOp loop : loops) {
    std::string why;
    FailureOr<SmallVector<TmaGroup>> groups = analyzeLoop(loop, why, share);
    if (failed(groups)) {
      if (!why.empty())
        remarkMissed(loop, kTmaPipelinePass, "NotPipelined",
                     "loop left to cp.async: " + why);
      continue;
    }
    // A softmax loop that runs as two programs per SM, unless the schedule
    // asks for warp specialization, says so for tile-warp-specialize and
    // the lowering (see isTwoProgramSoftmaxLoop).
    bool twoPrograms =
        !(schedule &&
          ScheduleAttr::flag(schedule.getWarpSpecialize(), false)) &&
        isTwoProgramSoftmaxLoop(loop, *target);
    if (twoPrograms)
      kernel->setAttr(tile::kProgramsPerSMAttr,
                      IntegerAttr::get(IntegerType::get(&getContext(), 64), 2));
    FailureOr<int64_t> stages =
        chooseStages(loop, *groups, stagesOption, twoPrograms, *target, why);
    if (failed(stages)) {
      if (loop->hasAttr(tile::kNumStagesAttr)) {
        loop.emitError("tile-tma-pipeline: ") << why;
        return signalPassFailure();
      }
      remarkMissed(loop, kTmaPipelinePass, "NotPipelined",
                   "loop left to cp.async: " + why);
      continue;
    }
    unsigned loads = 0, sharedLoads = 0, aliases = 0;
    for (TmaGroup &g : *groups)
      for (TmaOperand &op : g.operands)
        ++(op.alias >= 0 ? aliases : loads);
    // A fresh analysis per loop: pipelining replaces the loops around.
    ClusterRankAnalysis ranks(kernel);
    if (planMulticast(loop, *groups, ranks)) {
      multicast = true;
      for (TmaGroup &g : *groups)
        for (TmaOperand &op : g.operands)
          sharedLoads += op.parts > 1;
    }
    std::string shared =
        sharedLoads ? ", " + std::to_string(sharedLoads) +
                          " shared across the cluster"
                    : "";
    if (aliases)
      shared += ", " + std::to_string(aliases) +
                " more read(s) of the same tiles sharing their copies";
    remarkPassed(loop, kTmaPipelinePass, "Pipelined",
                 Twine(loads) + " loads on TMA in a " + Twine(*stages) +
                     "-stage ring" + shared);
    pipelineLoop(loop, *groups, *stages, kernel.getNumWarps());
    numTmaLoads += loads;
    ++numRings;
  }
  if (multicast)
    addClusterBarriers(kernel);
}
