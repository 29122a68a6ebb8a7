//===- ExpandAttentionHandBuilt.cpp - The hand-built FA3 schedule -------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tile.attention's sm_90a kernel as this file writes it: the finished
// FlashAttention-3 program (TMA producer warp, mbarrier rings, async wgmma,
// ping-pong, the persistent tile loop with a double-buffered Q and O stored
// through Q's buffer), taken with `by_passes = 0`. Up to head dim 128 the
// scheduling passes build the kernel from the block program of
// ExpandAttention.cpp by default, as fast as this one (0.98-1.06x on the
// H200: bench/results/2026-12-02_attention_causal_default_by_passes_h200.json,
// 2026-12-04_wgmma_descriptor_remat_h200.json); this file stays the default
// at head dim 256 (the pass-built kernel: 0.88-0.96x on the H100,
// bench/results/2026-12-06_attention_d256_gap_h100.json). It is 7f22ed6's
// warp-specialized path, and is deleted once the passes reach it there.
//
//===----------------------------------------------------------------------===//

#include "ExpandNamedOps.h"

#include "tilec/Dialect/Tile/Transforms/NamedOpConfigs.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;
using namespace mlir::tilec::tile::expand;

/// Where a TMA-store epilogue writes C: the tensor map and a one-stage
/// shared buffer of the output tile.
namespace {
struct TmaStoreTarget {
  Value map;
  Value buffer;
};
} // namespace

/// Stores `tile` at `offsets` of `target`'s map through stage `stage` (0
/// by default) of its buffer: every thread's writes land (and reach the async
/// proxy) before the leader issues the TMA store. The buffer's other readers
/// are done before the first barrier; with `waitPrevious`, so is an earlier TMA
/// store of it.
static void emitTmaStore(ImplicitLocOpBuilder &b, Value tile,
                         const TmaStoreTarget &target, ValueRange offsets,
                         bool waitPrevious, Value stage = Value()) {
  if (!stage)
    stage = arith::ConstantIntOp::create(b, 0, 32);
  if (waitPrevious)
    TmaStoreWaitOp::create(b, 0);
  BarrierOp::create(b);
  LocalStoreOp::create(b, tile, target.buffer, stage);
  FenceAsyncSharedOp::create(b);
  BarrierOp::create(b);
  TmaStoreOp::create(b, target.map, offsets, target.buffer, stage);
}

/// The 128-byte swizzled layout TMA writes and wgmma reads, contiguous
/// along dimension `contig` of the tile.
static SharedEncodingAttr getSwizzle128Layout(MLIRContext *ctx,
                                              unsigned contig) {
  return SharedEncodingAttr::getHardwareSwizzled(ctx, /*elemBytes=*/2,
                                                 /*swizzleBytes=*/128, contig);
}

/// The ring position after stage `s` of a `stages`-deep mbarrier ring whose
/// waits expect parity `ph`: the next stage, and the parity flipped on wrap.
static std::pair<Value, Value> advanceRing(ImplicitLocOpBuilder &b, Value s,
                                           Value ph, int64_t stages) {
  Value next = arith::AddIOp::create(b, s, arith::ConstantIntOp::create(b, 1, 32));
  Value wrap = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, next,
                                     arith::ConstantIntOp::create(b, stages, 32));
  Value s2 = arith::SelectOp::create(b, wrap, arith::ConstantIntOp::create(b, 0, 32), next);
  Value ph2 = arith::XOrIOp::create(
      b, ph, arith::ExtUIOp::create(b, b.getI32Type(), wrap));
  return {s2, ph2};
}

/// The parity a producer waits for on a stage's empty barrier before refilling
/// the stage whose full barrier the consumers wait on with parity `ph`: the
/// opposite one, as a fresh barrier has completed the phase of parity 1.
static Value freeParity(ImplicitLocOpBuilder &b, Value ph) {
  return arith::XOrIOp::create(b, ph, arith::ConstantIntOp::create(b, 1, 32));
}

namespace {
/// tile.attention becomes a FlashAttention forward: one program per block
/// of BM queries of one (batch, head), grid (ceildiv(Sq, BM), Hq, B). With
/// `causal`, key j is visible to query i when j <= i + (Sk - Sq), the loop
/// stops at the last visible block and the blocks with the most keys run
/// first (across groups of heads). Rows that see no key produce 0 (and an
/// lse of -inf).
///
///   q = load Q[m0 : m0 + BM]                       // registers or smem
///   for n in [0, end) step BN:                     // split in two loops
///     s = q kᵀ(n) * scale * log2(e)                // (unmasked blocks,
///     (mask keys past Sk / the causal limit)       // then masked ones) or
///                                                  // masked in a branch
///     m' = max(m, rowmax s); p = exp2(s - m')
///     l = l * exp2(m - m') + rowsum p
///     acc = acc * exp2(m - m') + p v(n)
///   O = acc / l; lse = (m + log2 l) ln 2
///
/// Only the warp-specialized schedule (`AttentionConfig::warpSpecialize`,
/// the sm_90a default) comes here; the others are block programs
/// (ExpandAttention.cpp). A producer warp loads Q once and streams Kᵀ and V
/// with TMA (4-D maps: a box never leaves its head, rows past Sk read as zero)
/// into a ring with full and empty barriers per operand; the consumer
/// warpgroups overlap each block's softmax with the previous block's P·V
/// (FlashAttention-3's intra-warpgroup pipelining):
///
///   producer:  tma Q; for n: wait emptyK[s]; tma Kᵀ(n) -> ringK[s] (fullK)
///                            wait emptyV[s]; tma V(n) -> ringV[s] (fullV)
///   consumers: block 0: s = wgmma(Q, Kᵀ(0)); wait 0; p = softmax(s)
///              for j >= 1: s = wgmma(Q, Kᵀ(j)); acc = wgmma(p, V(j-1), acc)
///                          wait 1; arrive emptyK(j); p' = softmax(s)
///                          wait 0; arrive emptyV(j-1); acc *= alpha
///              acc = wgmma(p, V(last), acc); wait 0
///
/// Q is read from shared memory (SS) so that S, P and the accumulator of two
/// blocks fit in the 240 registers of a consumer thread. With
/// `AttentionConfig::pingpong` the two consumer warpgroups take turns
/// issuing each step's products (named barriers 3 and 4), so that one's
/// softmax runs while the other's wgmma does; with `tmaStore` O leaves
/// through Q's buffer and a TMA store. Measured on the H200 at head dim 128,
/// S = 4096 (bench/results/2026-11-30_attention_fa3_h200.json): 567 TFLOP/s
/// against 267 without the producer warp, 545 without ping-pong and 479
/// with a plain O store.
///
/// The hand-built kernel of one tile.attention, written region by region:
/// the launch grid, the tile order, the producer warp's TMA ring, the
/// consumers' tile loop, their key loops and the epilogue. The members are
/// the values those regions share; `setTile` rebinds the tile's values in
/// the region it is called in (the producer's, then the consumers').
class HandBuiltFa3 {
public:
  HandBuiltFa3(AttentionOp op, KernelOp kernel, const AttentionConfig &c)
      : op(op), kernel(kernel), ctx(op.getContext()), c(c), b(op.getLoc(), op) {
  }

  LogicalResult build();

private:
  Value cst(int64_t v) { return constI32(b, v); }

  LogicalResult setGrid();
  void setTile(ImplicitLocOpBuilder &tb, Value mb, Value hh, Value bb);
  std::pair<Value, Value> getCausalPairTile(ImplicitLocOpBuilder &tb, Value t);
  void setPersistentTile(ImplicitLocOpBuilder &tb, Value t);
  void setTileOrder();
  void createKTransposed();
  void createRings();
  ValueRange produce(ImplicitLocOpBuilder &pb, Value s0, Value ph0, Value qs,
                     Value qph);
  void emitProducer(WarpSpecializeOp ws, Value zeroTop);
  void startPingpong();
  void beginConsumerTile(Value zeroTop);
  void createMaskValues();
  Value applyMask(ImplicitLocOpBuilder &lb, Value sc, Value n);
  struct Softmax {
    Value p, alpha, m, l;
  };
  Softmax emitSoftmax(ImplicitLocOpBuilder &lb, Value sc, Value n, Value mi,
                      Value li, bool masked);
  Value rescale(ImplicitLocOpBuilder &lb, Value acc, Value alpha);
  scf::ForOp makeLoop(
      Value lo, Value hi, ValueRange init,
      function_ref<void(ImplicitLocOpBuilder &, Value n, ValueRange it)> body);
  Value waitK(ImplicitLocOpBuilder &lb, Value s, Value ph);
  Value waitV(ImplicitLocOpBuilder &lb, Value s, Value ph);
  void beginTurn(ImplicitLocOpBuilder &lb);
  void endTurn(ImplicitLocOpBuilder &lb);
  void emitStep(ImplicitLocOpBuilder &lb, Value n, ValueRange it, bool masked);
  void emitKeyLoops();
  void emitEpilogue();

  AttentionOp op;
  KernelOp kernel;
  MLIRContext *ctx;
  const AttentionConfig &c;
  ImplicitLocOpBuilder b;
  Type et, f32, i32;
  int64_t elemBytes, d, bm, bn, warps;
  double qkScale;
  Value q, k, v, o, batch, hq, sq, hk, sk, kT;
  RankedTensorType sType, rowType, accType, ktTile, vTile, pType;
  // The tile's query block, head and batch, and what follows from them:
  // its first query m0, the K/V head, the keys it visits [0, end) and the
  // blocks every row sees whole [0, full), with the causal offset
  // shift = Sk - Sq. Set per program, or per tile of the persistent kernel
  // (in the producer and again in the consumers, each in its region).
  Value mBlock, h, bi, m0, kvHead, zero, shift, end, full, nM;
  // The persistent kernel's tiles: [firstTile, tileEnd) in steps of
  // numPrograms; `zero` outside both regions for the loops' initial state.
  Value numTiles, tileEnd, firstTile, numPrograms, paired, numPairs;
  // The TMA ring (see createRings) and the ping-pong turns.
  Value ringK, ringV, fullK, fullV, emptyK, emptyV, tq, turnMine, turnOther;
  Value bufQ, tmO, emptyQ, fullQ, tmQ, tmK, tmV;
  SharedEncodingAttr encQ;
  int64_t tileBytes = 0;
  // The persistent kernel's consumer loop over tiles and its carried state:
  // the K/V ring position of the tile's first block and Q's buffer slot
  // (stage and parity), then the tile's first-block ring position and Q
  // slot as the body sees them.
  scf::ForOp tileLoop;
  Value ringS0, ringPh0, qSlot, qParity;
  // The mask's operands (createMaskValues).
  Value qLimitB, skB, scaleT, ninf, colsI;
  // The key loops' results.
  Value acc, m, l;
};
} // namespace

LogicalResult HandBuiltFa3::setGrid() {
  SmallVector<int64_t> params;
  FailureOr<AffineExpr> sqExpr = getParamExpr(sq, kernel, params);
  FailureOr<AffineExpr> hqExpr = getParamExpr(hq, kernel, params);
  FailureOr<AffineExpr> bExpr = getParamExpr(batch, kernel, params);
  if (failed(sqExpr) || failed(hqExpr) || failed(bExpr))
    return op.emitOpError("Q's batch, heads and sequence length must be "
                          "kernel parameters or constants (they define the "
                          "launch grid)");
  if (c.persistent) {
    // One program per tile, at most one per SM (the runtime's rule for
    // persistent kernels); each walks tiles pid, pid + programs, ...
    kernel.setGridRule(AffineMap::get(0, params.size(),
                                      sqExpr->ceilDiv(bm) * *hqExpr * *bExpr,
                                      ctx),
                       params);
    kernel.setPersistent(true);
  } else {
    kernel.setGridRule(AffineMap::get(0, params.size(),
                                      {sqExpr->ceilDiv(bm), *hqExpr, *bExpr},
                                      ctx),
                       params);
  }
  kernel.setNumWarps(warps);
  return success();
}

void HandBuiltFa3::setTile(ImplicitLocOpBuilder &tb, Value mb, Value hh,
                           Value bb) {
  auto c32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(tb, v, 32);
  };
  mBlock = mb;
  h = hh;
  bi = bb;
  m0 = arith::MulIOp::create(tb, mBlock, c32(bm));
  // Grouped-query attention: Hq / Hk query heads share a K/V head.
  kvHead = arith::DivSIOp::create(tb, h, arith::DivSIOp::create(tb, hq, hk));
  zero = c32(0);
  shift = arith::SubIOp::create(tb, sk, sq);
  end = sk;
  if (op.getCausal()) {
    // Keys past the block's last query (shifted) are never visible.
    Value last = arith::AddIOp::create(
        tb, arith::AddIOp::create(tb, m0, c32(bm)), shift);
    end = arith::MaxSIOp::create(tb, arith::MinSIOp::create(tb, last, sk),
                                 c32(0));
  }
  // Blocks visible to every row: keys below Sk and (causal) at most the
  // first query's limit m0 + Sk - Sq, rounded down to whole blocks.
  Value visible = sk;
  if (op.getCausal())
    visible = arith::MaxSIOp::create(
        tb,
        arith::MinSIOp::create(
            tb,
            arith::AddIOp::create(tb, arith::AddIOp::create(tb, m0, shift),
                                  c32(1)),
            sk),
        c32(0));
  full = arith::MulIOp::create(tb, arith::DivSIOp::create(tb, visible, c32(bn)),
                               c32(bn));
  if (op.getCausal() && c.persistent) {
    // The paired order's placeholder block past the last query (odd block
    // counts) visits no key.
    Value inside = arith::CmpIOp::create(tb, arith::CmpIPredicate::slt, m0, sq);
    end = arith::SelectOp::create(tb, inside, end, c32(0));
    full = arith::SelectOp::create(tb, inside, full, c32(0));
  }
}

/// Tile `t` of the persistent causal kernel: its query block and (head,
/// batch) index.
///
/// The blocks differ in work (block i of n visits i + 1 key blocks when
/// Sq = Sk and block_m = block_n). Where every program gets at least one,
/// the programs take pairs of one head's blocks round robin, the longest
/// block with the shortest (n - 1 - j, then j; with n odd, block n stands
/// in for the missing partner and visits no key): every pair is the same
/// work, and the programs running together share a few heads' K and V.
/// Program p's tiles p, p + P, ... alternate between its pair's two blocks:
/// tile t is block (t / P) % 2 of pair (t / 2P) P + t % P.
///
/// With fewer pairs than programs, the tiles run longest first across all
/// (head, batch) pairs (rank-major: the last query block of every pair,
/// then the one before, ...), and the programs take every other round of
/// numPrograms tiles in reverse order (a "snake"): a program that had one
/// of the longest tiles of a round gets one of the shortest of the next.
///
/// H200, head dim 128, S = 1k / 4k / 16k, interleaved A/B
/// (bench/results/2026-11-30_attention_sm90a_causal_pairs_h200.json):
/// pairs 380 / 508 / 567 TFLOP/s, the snake over all tiles 344 / 500 / 586,
/// pairs with the heads fastest (each program on another head) 341 / 492 /
/// 556; the non-persistent kernel 365 / 524 / 620 (see NamedOpConfigs).
std::pair<Value, Value>
HandBuiltFa3::getCausalPairTile(ImplicitLocOpBuilder &tb, Value t) {
  auto c32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(tb, v, 32);
  };
  // Round t / P of the tile loop, its first tile, the program's place in
  // it, and whether the round is odd (the second tile of a pair, or a
  // reversed round of the snake).
  Value round = arith::DivSIOp::create(tb, t, numPrograms);
  Value odd =
      arith::CmpIOp::create(tb, arith::CmpIPredicate::ne,
                            arith::AndIOp::create(tb, round, c32(1)), c32(0));
  Value roundStart = arith::MulIOp::create(tb, round, numPrograms);
  Value place = arith::SubIOp::create(tb, t, roundStart);
  Value pair = arith::AddIOp::create(
      tb,
      arith::MulIOp::create(tb, arith::ShRSIOp::create(tb, round, c32(1)),
                            numPrograms),
      place);
  Value j = arith::RemSIOp::create(tb, pair, numPairs);
  Value longer = arith::SubIOp::create(
      tb,
      arith::SubIOp::create(tb, arith::MulIOp::create(tb, numPairs, c32(2)),
                            c32(1)),
      j);
  Value mbPaired = arith::SelectOp::create(tb, odd, j, longer);
  Value hbPaired = arith::DivSIOp::create(tb, pair, numPairs);
  Value mirrored = arith::SubIOp::create(
      tb,
      arith::AddIOp::create(tb, roundStart,
                            arith::SubIOp::create(tb, numPrograms, c32(1))),
      place);
  // A round cut short by the last tile keeps its order.
  Value whole = arith::CmpIOp::create(
      tb, arith::CmpIPredicate::sle,
      arith::AddIOp::create(tb, roundStart, numPrograms), numTiles);
  Value v = arith::SelectOp::create(tb, arith::AndIOp::create(tb, odd, whole),
                                    mirrored, t);
  Value pairs = arith::MulIOp::create(tb, hq, batch);
  Value mb = arith::SubIOp::create(tb, arith::SubIOp::create(tb, nM, c32(1)),
                                   arith::DivSIOp::create(tb, v, pairs));
  Value hb = arith::RemSIOp::create(tb, v, pairs);
  mb = arith::SelectOp::create(tb, paired, mbPaired, mb);
  hb = arith::SelectOp::create(tb, paired, hbPaired, hb);
  return {mb, hb};
}

/// Tile `t` of the persistent kernel: query blocks fastest, then heads,
/// then batches (with the causal mask, getCausalPairTile's order).
void HandBuiltFa3::setPersistentTile(ImplicitLocOpBuilder &tb, Value t) {
  Value mb, hb;
  if (op.getCausal()) {
    std::tie(mb, hb) = getCausalPairTile(tb, t);
  } else {
    mb = arith::RemSIOp::create(tb, t, nM);
    hb = arith::DivSIOp::create(tb, t, nM);
  }
  setTile(tb, mb, arith::RemSIOp::create(tb, hb, hq),
          arith::DivSIOp::create(tb, hb, hq));
}

/// The persistent kernel's tile range, or the program's tile.
void HandBuiltFa3::setTileOrder() {
  if (c.persistent) {
    nM = arith::CeilDivSIOp::create(b, sq, cst(bm));
    numTiles =
        arith::MulIOp::create(b, nM, arith::MulIOp::create(b, hq, batch));
    firstTile = ProgramIdOp::create(b, Dim::X);
    numPrograms = NumProgramsOp::create(b, Dim::X);
    zero = cst(0);
    tileEnd = numTiles;
    if (op.getCausal()) {
      // Pairs of blocks per (head, batch), all pairs, and whether every
      // program gets one; then this program's pairs p, p + P, ... (two tiles
      // each) end at tile p + 2 P ceil((pairs - p) / P).
      numPairs = arith::CeilDivSIOp::create(b, nM, cst(2));
      Value allPairs = arith::MulIOp::create(
          b, numPairs, arith::MulIOp::create(b, hq, batch));
      paired = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, allPairs,
                                     numPrograms);
      Value mine = arith::CeilDivSIOp::create(
          b,
          arith::MaxSIOp::create(
              b, arith::SubIOp::create(b, allPairs, firstTile), cst(0)),
          numPrograms);
      Value pairedEnd = arith::AddIOp::create(
          b, firstTile,
          arith::MulIOp::create(b, arith::MulIOp::create(b, mine, cst(2)),
                                numPrograms));
      tileEnd = arith::SelectOp::create(b, paired, pairedEnd, numTiles);
    }
  } else {
    Value mb = ProgramIdOp::create(b, Dim::X);
    Value hh = ProgramIdOp::create(b, Dim::Y);
    Value bb = ProgramIdOp::create(b, Dim::Z);
    nM = arith::CeilDivSIOp::create(b, sq, cst(bm));
    // With the causal mask the blocks differ in work: each head's blocks
    // launch longest first, so that the short ones fill the tail of the grid
    // (one program per SM).
    if (op.getCausal())
      mb = arith::SubIOp::create(b, arith::SubIOp::create(b, nM, cst(1)), mb);
    setTile(b, mb, hh, bb);
  }
}

/// Kᵀ as a view ([B, Hk, D, Sk], contiguous along D): its tiles are K-major
/// like a GEMM's column-major B.
void HandBuiltFa3::createKTransposed() {
  auto kMake = k.getDefiningOp<MakeViewOp>();
  ViewType kType = kMake.getViewType();
  ArrayRef<int64_t> ks = kType.getShape(), kst = kType.getStrides();
  auto ktType = ViewType::get(ctx, {ks[0], ks[1], ks[3], ks[2]}, et,
                              {kst[0], kst[1], kst[3], kst[2]});
  kT = MakeViewOp::create(b, ktType, kMake.getBase(), kMake.getSizes(),
                          kMake.getStrides());
  // cp.async and TMA copy 16-byte chunks of K and V.
  requireChunkAligned(kernel, k);
  requireChunkAligned(kernel, v);
}

/// The TMA ring (warp-specialized schedule): Kᵀ and V tiles, each with
/// full and empty barriers of its own, so that a K stage is refilled once
/// its QKᵀ has retired while the V stage of the same block is still read.
/// Q comes once, through its own buffer and barrier: wgmma reads it from
/// shared memory (SS), which leaves the registers to S, P and the
/// accumulator of two blocks in flight.
void HandBuiltFa3::createRings() {
  SharedEncodingAttr encK = getSwizzle128Layout(ctx, 0); // along D
  SharedEncodingAttr encV = getSwizzle128Layout(ctx, 1); // along D
  encQ = encV;
  requireChunkAligned(kernel, q);
  tmQ = MakeTensorMapOp::create(
      b, TensorMapType::get(ctx, {1, 1, bm, 64}, et, encQ), q);
  // The persistent kernel double-buffers Q: the producer loads the next
  // tile's while the consumers still read this one's (or store O from it).
  int64_t qStages = c.persistent ? 2 : 1;
  bufQ =
      LocalAllocOp::create(b, SmemType::get(ctx, {qStages, bm, d}, et, encQ));
  if (c.tmaStore) {
    requireChunkAligned(kernel, o);
    tmO = MakeTensorMapOp::create(
        b, TensorMapType::get(ctx, {1, 1, bm, 64}, et, encQ), o);
  }
  fullQ = MBarrierAllocOp::create(b, MBarrierType::get(ctx, qStages), 1);
  if (c.persistent)
    emptyQ = MBarrierAllocOp::create(b, MBarrierType::get(ctx, qStages), warps);
  tmK = MakeTensorMapOp::create(
      b, TensorMapType::get(ctx, {1, 1, 64, bn}, et, encK), kT);
  tmV = MakeTensorMapOp::create(
      b, TensorMapType::get(ctx, {1, 1, bn, 64}, et, encV), v);
  ringK =
      LocalAllocOp::create(b, SmemType::get(ctx, {c.stages, d, bn}, et, encK));
  ringV =
      LocalAllocOp::create(b, SmemType::get(ctx, {c.stages, bn, d}, et, encV));
  auto barsType = MBarrierType::get(ctx, c.stages);
  fullK = MBarrierAllocOp::create(b, barsType, 1);
  fullV = MBarrierAllocOp::create(b, barsType, 1);
  emptyK = MBarrierAllocOp::create(b, barsType, warps);
  emptyV = MBarrierAllocOp::create(b, barsType, warps);
  tileBytes = bn * d * elemBytes;
  ktTile = RankedTensorType::get({d, bn}, et, encK);
  vTile = RankedTensorType::get({bn, d}, et, encV);
}

/// Producer: Q into slot qs, then the blocks [0, end) in the consumers'
/// order from ring position (s, ph); returns the position after them.
ValueRange HandBuiltFa3::produce(ImplicitLocOpBuilder &pb, Value s0, Value ph0,
                                 Value qs, Value qph) {
  Value z = arith::ConstantIntOp::create(pb, 0, 32);
  if (emptyQ)
    MBarrierWaitOp::create(pb, emptyQ, qs, freeParity(pb, qph));
  MBarrierExpectTxOp::create(pb, fullQ, qs, bm * d * elemBytes);
  TmaLoadOp::create(pb, tmQ, ValueRange{bi, h, m0, z}, bufQ, qs, fullQ, qs);
  return scf::ForOp::create(
             pb, z, end, arith::ConstantIntOp::create(pb, bn, 32),
             ValueRange{s0, ph0},
             [&](OpBuilder &ob, Location loc, Value n, ValueRange it) {
               ImplicitLocOpBuilder lb(loc, ob);
               Value s = it[0], ph = it[1];
               Value free = freeParity(lb, ph);
               MBarrierWaitOp::create(lb, emptyK, s, free);
               MBarrierExpectTxOp::create(lb, fullK, s, tileBytes);
               TmaLoadOp::create(lb, tmK, ValueRange{bi, kvHead, z, n}, ringK,
                                 s, fullK, s);
               MBarrierWaitOp::create(lb, emptyV, s, free);
               MBarrierExpectTxOp::create(lb, fullV, s, tileBytes);
               TmaLoadOp::create(lb, tmV, ValueRange{bi, kvHead, n, z}, ringV,
                                 s, fullV, s);
               auto [s2, ph2] = advanceRing(lb, s, ph, c.stages);
               scf::YieldOp::create(lb, ValueRange{s2, ph2});
             })
      .getResults();
}

/// The producer warp's region: every tile's Q and K/V blocks.
void HandBuiltFa3::emitProducer(WarpSpecializeOp ws, Value zeroTop) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ws.getPartitionRegion().front());
  if (c.persistent) {
    scf::ForOp::create(
        b, firstTile, tileEnd, numPrograms,
        ValueRange{zeroTop, zeroTop, zeroTop, zeroTop},
        [&](OpBuilder &ob, Location loc, Value t, ValueRange it) {
          ImplicitLocOpBuilder tb(loc, ob);
          setPersistentTile(tb, t);
          ValueRange ring = produce(tb, it[0], it[1], it[2], it[3]);
          auto [qs2, qph2] = advanceRing(tb, it[2], it[3], 2);
          scf::YieldOp::create(tb, ValueRange{ring[0], ring[1], qs2, qph2});
        });
  } else {
    produce(b, zeroTop, zeroTop, zeroTop, zeroTop);
  }
}

/// Ping-pong: warpgroup w waits on barrier 3 + w before issuing its
/// products and arrives at the other's after; warpgroup 1 lets warpgroup 0
/// go first. The turns carry over from one tile to the next (both
/// warpgroups take the same number per tile).
void HandBuiltFa3::startPingpong() {
  if (!c.pingpong)
    return;
  Value wg = WarpgroupIdOp::create(b);
  turnMine = arith::AddIOp::create(b, wg, cst(3));
  turnOther = arith::SubIOp::create(b, cst(4), wg);
  Value second = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, wg, cst(1));
  scf::IfOp::create(b, second, [&](OpBuilder &ib, Location l) {
    NamedBarrierOp::create(ib, l, arith::ConstantIntOp::create(ib, l, 3, 32),
                           32 * warps, /*arrive=*/true);
    scf::YieldOp::create(ib, l);
  });
}

/// The consumers' start of a tile (inside the persistent kernel's tile
/// loop, which this opens): Q's slot waited for and read.
void HandBuiltFa3::beginConsumerTile(Value zeroTop) {
  ringS0 = ringPh0 = qSlot = qParity = zeroTop;
  if (c.persistent) {
    startPingpong();
    tileLoop =
        scf::ForOp::create(b, firstTile, tileEnd, numPrograms,
                           ValueRange{zeroTop, zeroTop, zeroTop, zeroTop});
    b.setInsertionPointToStart(tileLoop.getBody());
    Value t = tileLoop.getInductionVar();
    ringS0 = tileLoop.getRegionIterArgs()[0];
    ringPh0 = tileLoop.getRegionIterArgs()[1];
    qSlot = tileLoop.getRegionIterArgs()[2];
    qParity = tileLoop.getRegionIterArgs()[3];
    setPersistentTile(b, t);
    if (c.tmaStore) {
      // The previous tile's O left through the other Q slot: once its TMA
      // store has read it, the producer may load a later Q there.
      Value notFirst =
          arith::CmpIOp::create(b, arith::CmpIPredicate::ne, t, firstTile);
      scf::IfOp::create(b, notFirst, [&](OpBuilder &ib, Location l) {
        ImplicitLocOpBuilder lb(l, ib);
        TmaStoreWaitOp::create(lb, 0);
        BarrierOp::create(lb);
        MBarrierArriveOp::create(
            lb, emptyQ,
            arith::SubIOp::create(lb, arith::ConstantIntOp::create(lb, 1, 32),
                                  qSlot));
        scf::YieldOp::create(lb);
      });
    }
  }
  MBarrierWaitOp::create(b, fullQ, qSlot, qParity);
  tq = LocalLoadOp::create(b, RankedTensorType::get({bm, d}, et, encQ), bufQ,
                           qSlot);
  if (!c.persistent)
    startPingpong();
}

/// Query indices (as rows), shifted by Sk - Sq: each one's last key; and
/// the mask's other operands.
void HandBuiltFa3::createMaskValues() {
  auto rowsI = RangeOp::create(b, RankedTensorType::get({bm}, i32), 0, bm);
  Value qi = arith::AddIOp::create(
      b, rowsI, SplatOp::create(b, RankedTensorType::get({bm}, i32), m0));
  Value qLimit = arith::AddIOp::create(
      b, qi, SplatOp::create(b, RankedTensorType::get({bm}, i32), shift));
  qLimitB = broadcastAlong(b, qLimit, 1, {bm, bn});
  skB = SplatOp::create(b, RankedTensorType::get({bm, bn}, i32), sk);
  scaleT = splatF32(b, sType.getShape(), qkScale);
  ninf = splatF32(b, sType.getShape(), -INFINITY);
  colsI = RangeOp::create(b, RankedTensorType::get({bn}, i32), 0, bn);
  pType = RankedTensorType::get({bm, bn}, et);
}

/// Keys past Sk and, with causal, past each query's limit score -inf.
Value HandBuiltFa3::applyMask(ImplicitLocOpBuilder &lb, Value sc, Value n) {
  Value kj = arith::AddIOp::create(
      lb, colsI, SplatOp::create(lb, RankedTensorType::get({bn}, i32), n));
  Value kjB = broadcastAlong(lb, kj, 0, {bm, bn});
  Value keep = arith::CmpIOp::create(lb, arith::CmpIPredicate::slt, kjB, skB);
  if (op.getCausal())
    keep = arith::AndIOp::create(
        lb, keep,
        arith::CmpIOp::create(lb, arith::CmpIPredicate::sle, kjB, qLimitB));
  return arith::SelectOp::create(lb, keep, sc, ninf);
}

/// The online softmax of the scores `sc` of keys [n, n + bn): the new row
/// max and sum, P (in the input type) and the factor exp2(m - m') that
/// rescales the accumulator. Only blocks that reach past Sk or (causal)
/// past the first query's limit need the mask (and rows that may have seen
/// no key yet).
HandBuiltFa3::Softmax HandBuiltFa3::emitSoftmax(ImplicitLocOpBuilder &lb,
                                                Value sc, Value n, Value mi,
                                                Value li, bool masked) {
  // The row max of the raw scores, scaled (scale > 0), is the max in the
  // log2 domain; each element then takes one fma and one exp2:
  // p = exp2(s * scale - m).
  auto rowMaxScaled = [&](Value x) -> Value {
    Value rowMax = ReduceOp::create(lb, rowType, ReduceKind::Max, x, 1);
    return arith::MulFOp::create(lb, rowMax,
                                 splatF32(lb, rowType.getShape(), qkScale));
  };
  Value mUse, mNew;
  if (masked) {
    sc = applyMask(lb, sc, n);
    mNew = arith::MaximumFOp::create(lb, mi, rowMaxScaled(sc));
    // A row that has seen no key yet keeps m = -inf; subtract 0 then.
    Value noKey =
        arith::CmpFOp::create(lb, arith::CmpFPredicate::OEQ, mNew,
                              splatF32(lb, rowType.getShape(), -INFINITY));
    mUse = arith::SelectOp::create(lb, noKey,
                                   splatF32(lb, rowType.getShape(), 0.0), mNew);
  } else {
    // Every row sees every key of the block: m is finite from here on.
    mNew = mUse = arith::MaximumFOp::create(lb, mi, rowMaxScaled(sc));
  }
  // exp2 with `afn`: flush-to-zero ex2 (probabilities below 2^-126 are 0).
  auto afn = arith::FastMathFlags::afn;
  Value alpha =
      math::Exp2Op::create(lb, arith::SubFOp::create(lb, mi, mUse), afn);
  Value negM = broadcastAlong(lb, arith::NegFOp::create(lb, mUse), 1, {bm, bn});
  Value p =
      math::Exp2Op::create(lb, math::FmaOp::create(lb, sc, scaleT, negM), afn);
  Value rowSum = ReduceOp::create(lb, rowType, ReduceKind::Sum, p, 1);
  Value lNew =
      arith::AddFOp::create(lb, arith::MulFOp::create(lb, li, alpha), rowSum);
  return {arith::TruncFOp::create(lb, pType, p), alpha, mNew, lNew};
}

Value HandBuiltFa3::rescale(ImplicitLocOpBuilder &lb, Value acc, Value alpha) {
  return arith::MulFOp::create(lb, acc, broadcastAlong(lb, alpha, 1, {bm, d}));
}

scf::ForOp HandBuiltFa3::makeLoop(
    Value lo, Value hi, ValueRange init,
    function_ref<void(ImplicitLocOpBuilder &, Value n, ValueRange it)> body) {
  auto loop = scf::ForOp::create(
      b, lo, hi, cst(bn), init,
      [&](OpBuilder &ob, Location loc, Value n, ValueRange it) {
        ImplicitLocOpBuilder lb(loc, ob);
        body(lb, n, it);
      });
  loop->setAttr(kMasksBoundedAttr, b.getUnitAttr());
  return loop;
}

Value HandBuiltFa3::waitK(ImplicitLocOpBuilder &lb, Value s, Value ph) {
  MBarrierWaitOp::create(lb, fullK, s, ph);
  return LocalLoadOp::create(lb, ktTile, ringK, s);
}

Value HandBuiltFa3::waitV(ImplicitLocOpBuilder &lb, Value s, Value ph) {
  MBarrierWaitOp::create(lb, fullV, s, ph);
  return LocalLoadOp::create(lb, vTile, ringV, s);
}

/// Ping-pong: this warpgroup's turn to issue products, and its end.
void HandBuiltFa3::beginTurn(ImplicitLocOpBuilder &lb) {
  if (c.pingpong)
    NamedBarrierOp::create(lb, turnMine, 32 * warps, /*arrive=*/false);
}

void HandBuiltFa3::endTurn(ImplicitLocOpBuilder &lb) {
  if (c.pingpong)
    NamedBarrierOp::create(lb, turnOther, 32 * warps, /*arrive=*/true);
}

static Value retire(ImplicitLocOpBuilder &lb, Value x, int64_t pending) {
  return WarpgroupWaitOp::create(lb, TypeRange{x.getType()}, pending,
                                 ValueRange{x})
      .getResult(0);
}

/// Step j >= 1 of the key loops, carrying (acc, m, l, p, stage and parity
/// of block j - 1).
void HandBuiltFa3::emitStep(ImplicitLocOpBuilder &lb, Value n, ValueRange it,
                            bool masked) {
  Value sPrev = it[4], phPrev = it[5];
  auto [s, ph] = advanceRing(lb, sPrev, phPrev, c.stages);
  beginTurn(lb);
  Value sc = DotOp::create(lb, sType, tq, waitK(lb, s, ph),
                           splatF32(lb, sType.getShape(), 0.0));
  Value accP =
      DotOp::create(lb, accType, it[3], waitV(lb, sPrev, phPrev), it[0]);
  endTurn(lb);
  sc = retire(lb, sc, 1);
  MBarrierArriveOp::create(lb, emptyK, s);
  Softmax sm = emitSoftmax(lb, sc, n, it[1], it[2], masked);
  accP = retire(lb, accP, 0);
  MBarrierArriveOp::create(lb, emptyV, sPrev);
  scf::YieldOp::create(
      lb, ValueRange{rescale(lb, accP, sm.alpha), sm.m, sm.l, sm.p, s, ph});
}

/// The key loops, software-pipelined across blocks (FlashAttention-3's
/// intra-warpgroup overlap): step j issues QKᵀ of block j and P·V of block
/// j - 1, and computes the softmax of block j while P·V still runs. The
/// blocks every row sees whole, [0, full), need no mask; the rest,
/// [full, end), do.
///
///   s = wait(q kᵀ(0)); (p, m, l) = softmax(s)            // peeled
///   for j in [1, blocks):
///     s = q kᵀ(j)           (issued)
///     acc = acc + p v(j-1)  (issued)
///     wgmma.wait 1; release K(j); (p', m', l', alpha) = softmax(s)
///     wgmma.wait 0; release V(j-1); acc = acc * alpha; p = p'
///   acc = wait(acc + p v(last)); release V(last)
void HandBuiltFa3::emitKeyLoops() {
  Value any = arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, end, zero);
  // Block 0 (masked: it may be the only one), when there is one.
  auto first = scf::IfOp::create(
      b, any,
      [&](OpBuilder &ob, Location loc) {
        ImplicitLocOpBuilder lb(loc, ob);
        Value z = arith::ConstantIntOp::create(lb, 0, 32);
        beginTurn(lb);
        Value sc0 = DotOp::create(lb, sType, tq, waitK(lb, ringS0, ringPh0),
                                  splatF32(lb, sType.getShape(), 0.0));
        endTurn(lb);
        Value sc = retire(lb, sc0, 0);
        MBarrierArriveOp::create(lb, emptyK, ringS0);
        Softmax sm =
            emitSoftmax(lb, sc, z, splatF32(lb, rowType.getShape(), -INFINITY),
                        splatF32(lb, rowType.getShape(), 0.0), /*masked=*/true);
        scf::YieldOp::create(lb, ValueRange{sm.p, sm.m, sm.l});
      },
      [&](OpBuilder &ob, Location loc) {
        ImplicitLocOpBuilder lb(loc, ob);
        auto pZero = RankedTensorType::get({bm, bn}, et);
        scf::YieldOp::create(
            lb, ValueRange{arith::ConstantOp::create(
                               lb, pZero,
                               DenseElementsAttr::get(
                                   pZero, lb.getFloatAttr(et, 0.0))),
                           splatF32(lb, rowType.getShape(), -INFINITY),
                           splatF32(lb, rowType.getShape(), 0.0)});
      });
  auto step = [&](bool masked) {
    return [this, masked](ImplicitLocOpBuilder &lb, Value n, ValueRange it) {
      emitStep(lb, n, it, masked);
    };
  };
  Value lo = cst(bn);
  Value mid = arith::MaxSIOp::create(b, full, lo);
  auto unmasked =
      makeLoop(lo, mid,
               {splatF32(b, accType.getShape(), 0.0), first.getResult(1),
                first.getResult(2), first.getResult(0), ringS0, ringPh0},
               step(false));
  auto masked = makeLoop(mid, end, unmasked.getResults(), step(true));
  // P·V of the last block.
  auto last = scf::IfOp::create(
      b, any,
      [&](OpBuilder &ob, Location loc) {
        ImplicitLocOpBuilder lb(loc, ob);
        Value s = masked.getResult(4), ph = masked.getResult(5);
        beginTurn(lb);
        Value pv = DotOp::create(lb, accType, masked.getResult(3),
                                 waitV(lb, s, ph), masked.getResult(0));
        endTurn(lb);
        Value accNew = retire(lb, pv, 0);
        MBarrierArriveOp::create(lb, emptyV, s);
        scf::YieldOp::create(lb, accNew);
      },
      [&](OpBuilder &ob, Location loc) {
        scf::YieldOp::create(ob, loc, masked.getResult(0));
      });
  acc = last.getResult(0);
  m = masked.getResult(1);
  l = masked.getResult(2);
  if (tileLoop) {
    // The next tile's first block comes after this tile's last one.
    auto [sNext, phNext] =
        advanceRing(b, masked.getResult(4), masked.getResult(5), c.stages);
    ringS0 = arith::SelectOp::create(b, any, sNext, ringS0);
    ringPh0 = arith::SelectOp::create(b, any, phNext, ringPh0);
  }
}

/// O = acc / l (0 for rows that saw no key) and the lse, stored; the
/// persistent kernel's tile loop closed.
void HandBuiltFa3::emitEpilogue() {
  Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l,
                                      splatF32(b, rowType.getShape(), 0.0));
  Value lSafe = arith::SelectOp::create(
      b, empty, splatF32(b, rowType.getShape(), 1.0), l);
  // One division per row, then a multiply per element (FlashAttention's
  // order): a division per element (div.rn.f32, about ten instructions
  // each) was a tenth of a program's instructions at S = 1024.
  Value inv =
      arith::DivFOp::create(b, splatF32(b, rowType.getShape(), 1.0), lSafe);
  Value out = arith::MulFOp::create(b, acc, broadcastAlong(b, inv, 1, {bm, d}));
  out = arith::TruncFOp::create(b, RankedTensorType::get({bm, d}, et), out);
  if (c.tmaStore) {
    // Q's buffer (slot) is free once both warpgroups' last Q Kᵀ has retired
    // (the first barrier); TMA clips rows past Sq, and the block waits for
    // the store to have read the buffer before it exits (the persistent
    // kernel before it releases the slot, at the next tile).
    emitTmaStore(b, out, TmaStoreTarget{tmO, bufQ}, ValueRange{bi, h, m0, zero},
                 /*waitPrevious=*/false, qSlot);
    if (!tileLoop)
      TmaStoreWaitOp::create(b, 0);
  } else {
    StoreOp::create(b, out, o, ValueRange{bi, h, m0, zero}, Value());
    // Every warp's reads of Q's slot have retired.
    if (tileLoop)
      MBarrierArriveOp::create(b, emptyQ, qSlot);
  }
  if (Value lse = op.getLse()) {
    // Natural log: (m + log2 l) * ln 2; -inf for rows that saw no key.
    Value lse2 = arith::AddFOp::create(
        b, m, math::Log2Op::create(b, l, arith::FastMathFlags::afn));
    Value lseN =
        arith::MulFOp::create(b, lse2, splatF32(b, rowType.getShape(), M_LN2));
    StoreOp::create(b, lseN, lse, ValueRange{bi, h, m0}, Value());
  }
  if (tileLoop) {
    auto [qs2, qph2] = advanceRing(b, qSlot, qParity, 2);
    scf::YieldOp::create(b, ValueRange{ringS0, ringPh0, qs2, qph2});
    b.setInsertionPointAfter(tileLoop);
    if (c.tmaStore)
      TmaStoreWaitOp::create(b, 0);
  }
}

LogicalResult HandBuiltFa3::build() {
  // The one expansion that writes hardware-level ops itself (see the level
  // check of tile-expand-named-ops).
  kernel->setAttr(kHandScheduledAttr, StringAttr::get(ctx, "fa3"));
  et = op.getQ().getType().getElementType();
  f32 = b.getF32Type();
  i32 = b.getI32Type();
  elemBytes = et.getIntOrFloatBitWidth() / 8;
  d = op.getQ().getType().getShape()[3];
  bm = c.blockM;
  bn = c.blockN;
  warps = c.warps;
  q = op.getQ();
  k = op.getK();
  v = op.getV();
  o = op.getO();
  batch = getViewSize(b, q, 0);
  hq = getViewSize(b, q, 1);
  sq = getViewSize(b, q, 2);
  hk = getViewSize(b, k, 1);
  sk = getViewSize(b, k, 2);
  if (failed(setGrid()))
    return failure();
  float scale = op.getScale() ? op.getScale()->convertToFloat()
                              : 1.0f / std::sqrt(static_cast<float>(d));
  qkScale = scale * M_LOG2E;
  setTileOrder();
  createKTransposed();
  sType = RankedTensorType::get({bm, bn}, f32);
  rowType = RankedTensorType::get({bm}, f32);
  accType = RankedTensorType::get({bm, d}, f32);
  createRings();
  auto ws = WarpSpecializeOp::create(b, /*partitionWarps=*/4, c.consumerRegs,
                                     c.producerRegs);
  ws.getDefaultRegion().emplaceBlock();
  ws.getPartitionRegion().emplaceBlock();
  // The loops' initial state (setTile rebinds `zero` inside each region).
  Value zeroTop = zero;
  emitProducer(ws, zeroTop);
  // The consumers run everything below (per tile, in the persistent
  // kernel's loop).
  b.setInsertionPointToStart(&ws.getDefaultRegion().front());
  beginConsumerTile(zeroTop);
  createMaskValues();
  emitKeyLoops();
  emitEpilogue();
  op.erase();
  return success();
}

LogicalResult expand::expandAttentionHandBuilt(AttentionOp op, KernelOp kernel,
                                               const AttentionConfig &config) {
  return HandBuiltFa3(op, kernel, config).build();
}
