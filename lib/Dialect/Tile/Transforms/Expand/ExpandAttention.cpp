//===- ExpandAttention.cpp - tile.attention to a block program ------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tile.attention becomes a FlashAttention forward block program: one program
// per block of BM queries of one (batch, head), grid (ceildiv(Sq, BM), Hq,
// B). With `causal`, key j is visible to query i when j <= i + (Sk - Sq);
// the key loop stops at the block's last visible key and the blocks with the
// most keys run first. Rows that see no key produce 0 (and an lse of -inf).
//
//   q = load Q[m0 : m0 + BM]
//   for n in [0, end) step BN:
//     s = q kᵀ(n)
//     (keys past Sk / the causal limit score -inf; only in the blocks that
//      reach past the keys every row sees, [full, end))
//     m' = max(m, rowmax s * scale log2 e); p = exp2(s * scale log2 e - m')
//     l = l * exp2(m - m') + rowsum p
//     acc = acc * exp2(m - m') + p v(n)
//   O = acc / l; lse = (m + log2 l) ln 2
//
// The program holds no hardware op. Its schedule attribute says what the
// config chose, and the scheduling passes build the kernel from it. (On
// sm_90a at head dim 256 the default is still the hand-built
// FlashAttention-3 kernel of ExpandAttentionHandBuilt.cpp, which is faster
// there; config `by_passes = 1` takes the path below for it too.)
//  * sm_90a (the warp-specialized schedule): tile-tma-pipeline turns the
//    loads of Q, Kᵀ and V into TMA copies into mbarrier rings read in place
//    by wgmma; tile-wgmma-overlap runs each block's softmax beside the
//    previous block's P·V (FlashAttention-3's intra-warpgroup pipelining)
//    and, with `pingpong`, lets the two consumer warpgroups take turns
//    issuing their products; tile-warp-specialize gives the copies to a
//    producer warpgroup; tile-persistent walks the tiles with one program
//    per SM (non-causal), and tile-tma-store sends O out through TMA. The
//    persistent causal program walks its tiles itself, in pairs of equal
//    work (see emitCausalPairTile).
//  * sm_80 / sm_89 (and sm_90a's cp.async schedule): tile-pipeline turns the
//    loads of Kᵀ and V into a cp.async ring read by ldmatrix and mma.sync,
//    and keeps Q in shared memory, read per block (config `q_in_smem`, the
//    schedule's `operands_in_smem`).
//
//===----------------------------------------------------------------------===//

#include "ExpandNamedOps.h"

#include "tilec/Dialect/Tile/Transforms/NamedOpConfigs.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;
using namespace mlir::tilec::tile::expand;

namespace {

/// The operands of one tile.attention and its sizes (i32 values).
struct AttentionProblem {
  AttentionOp op;
  Value q, k, kT, v, o, lse;
  Value batch, hq, sq, hk, sk;
  int64_t d;
  /// Q/K/V's element type, P's (the second dot's A: e4m3 for FP8 inputs)
  /// and O's.
  Type et, pType, oType;
  /// Softmax scale times log2(e): scores live in the log2 domain.
  double qkScale;
  /// FP8 with per-tensor descales: qkScale * q_descale * k_descale (the
  /// scores' multiplier, an f32 value computed once) and v_descale (O's rows
  /// are multiplied by it with 1 / l); null otherwise.
  Value scoreScale, vDescale;
  /// FP8 with descale views [B, Hk] (per batch and K/V head): the three
  /// views, read by each query block (see getDescaleRows); empty otherwise.
  SmallVector<Value, 3> descaleViews;
  bool causal;
  /// The op's score_mod block (null without one) and the softmax scale it
  /// sees the scores multiplied by (qkScale is then log2(e) alone); its
  /// mask_mod block (null without one).
  Block *scoreMod = nullptr, *maskMod = nullptr;
  double scale;
  /// Serving: each batch's key count (a [batch] i32 view, or null); with
  /// `packed`, q, o and lse are views [B, Hk, G, ...] whose rows are the G
  /// query heads of each K/V head (one query each), sq is G and causal is
  /// off (one query sees every key). `heads` is the grid's heads: Hq, or Hk
  /// packed.
  Value seqUsedK, heads;
  bool packed = false;
  /// A paged KV cache: the [batch, max_pages] table (null otherwise) and the
  /// keys per page; k, kT and v are views of the page pool.
  Value blockTable;
  int64_t pageSize = 0;
  /// Split-KV's split stage: the key ranges, and the workspace as views
  /// [S, B * heads, sq, D] and [S, B * heads, sq] (null otherwise).
  int64_t splits = 1;
  Value partialO, partialLse;
  /// Varlen: the [batch + 1] cumulative query and key lengths (null
  /// otherwise) and their extent (batch + 1, the grid's); q, k, v, o and
  /// lse are views of one packed batch, `batch` is the sequences and `sq`
  /// max_seqlen_q.
  Value cuSeqlensQ, cuSeqlensK, cuExtent;
  /// A block list (FlexAttention's block mask): each 128-query block's
  /// number of 128-key blocks [B, H, QB] and their indices [B, H, QB, N]
  /// (null otherwise).
  Value kvNum, kvIndices;
  /// Its counts of wholly visible blocks, listed first (null otherwise).
  Value kvFull;
};

/// The query block a program (or one tile of a persistent program) computes
/// and what follows from it.
struct QueryBlock {
  Value h, bi;   // query head and batch
  Value m0;      // first query
  Value kvHead;  // K/V head of h (grouped-query attention: Hq / Hk share one)
  Value qLimit;  // causal: per query row, its last visible key (i32 tile)
  Value end;     // keys [0, end) are visited
  Value full;    // keys [0, full) are visible to every row (whole blocks)
  Value sk;      // the keys: Sk, or this batch's seqused_k
  /// Split-KV's split stage: the range (null otherwise), whose keys [start,
  /// end) are visited.
  Value split, start;
  /// Where the block lies in the views: their batch index (bi, or 0 for
  /// packed varlen sequences), Q's and O's first row (m0, or m0 past the
  /// sequence's first token) and the sequence's first key (null unless
  /// varlen).
  Value viewBatch, qRow, kStart;
  /// Varlen: this sequence's queries (O's rows past them are not stored;
  /// null otherwise).
  Value sq;
  /// A block list's row for this block: m0 / kListBlock (null without one).
  Value listRow;
  /// The table reads of the score_mod / mask_mod that need no key (a
  /// value, or a [bm] row along the query index), loaded once before the
  /// key loop (by the region's tile.load_scalar).
  DenseMap<Operation *, Value> tableRows;
};

} // namespace

/// The keys of batch `bi` (`keys`: Sk, or a varlen sequence's): `keys`,
/// or its seqused_k within [0, keys].
static Value getBatchKeys(ImplicitLocOpBuilder &b, const AttentionProblem &p,
                          Value bi, Value keys) {
  if (!p.seqUsedK)
    return keys;
  Value used = LoadScalarOp::create(b, b.getI32Type(), p.seqUsedK, bi);
  return arith::MaxSIOp::create(b, arith::MinSIOp::create(b, used, keys),
                                constI32(b, 0));
}

/// Varlen: sequence `bi`'s first token and length (at least 0) from its
/// cumulative lengths `cu`.
static std::pair<Value, Value> getSequenceSpan(ImplicitLocOpBuilder &b,
                                               Value cu, Value bi) {
  Value first = LoadScalarOp::create(b, b.getI32Type(), cu, bi);
  Value after = arith::AddIOp::create(b, bi, constI32(b, 1));
  Value next = LoadScalarOp::create(b, b.getI32Type(), cu, after);
  Value len = arith::MaxSIOp::create(b, arith::SubIOp::create(b, next, first),
                                     constI32(b, 0));
  return {first, len};
}

/// Split-KV: the keys [0, t.end) of query block `t` cut into `splits`
/// ranges of whole key blocks; range `split` becomes t's [start, end).
static void restrictToSplit(ImplicitLocOpBuilder &b, QueryBlock &t, Value split,
                            int64_t splits, int64_t bn) {
  Value blocks = arith::CeilDivSIOp::create(b, t.end, constI32(b, bn));
  Value perSplit = arith::MulIOp::create(
      b, arith::CeilDivSIOp::create(b, blocks, constI32(b, splits)),
      constI32(b, bn));
  t.split = split;
  t.start = arith::MulIOp::create(b, split, perSplit);
  t.end = arith::MinSIOp::create(b, t.end,
                                 arith::AddIOp::create(b, t.start, perSplit));
}

/// Query block `mb` of head `h`, batch `bi`. With `placeholder`, block nM
/// (past the last query) may come up and visits no key.
static QueryBlock getQueryBlock(ImplicitLocOpBuilder &b,
                                const AttentionProblem &p,
                                const AttentionConfig &c, Value mb, Value h,
                                Value bi, bool placeholder) {
  QueryBlock t;
  t.h = h;
  t.bi = bi;
  t.m0 = arith::MulIOp::create(b, mb, constI32(b, c.blockM));
  t.kvHead =
      p.packed
          ? h
          : arith::DivSIOp::create(b, h, arith::DivSIOp::create(b, p.hq, p.hk));
  t.viewBatch = bi;
  t.qRow = t.m0;
  if (p.kvNum)
    t.listRow =
        arith::DivSIOp::create(b, t.m0, constI32(b, AttentionOp::kListBlock));
  Value keys = p.sk, queries = p.sq;
  if (p.cuSeqlensQ) {
    // A packed sequence: its tokens' rows of the one batch.
    Value qStart;
    std::tie(qStart, t.sq) = getSequenceSpan(b, p.cuSeqlensQ, bi);
    std::tie(t.kStart, keys) = getSequenceSpan(b, p.cuSeqlensK, bi);
    queries = t.sq;
    t.viewBatch = constI32(b, 0);
    t.qRow = arith::AddIOp::create(b, qStart, t.m0);
  }
  t.sk = getBatchKeys(b, p, bi, keys);
  // The causal offset: query i sees keys up to i + Sk - Sq.
  Value shift = arith::SubIOp::create(b, t.sk, queries);
  t.end = t.sk;
  Value visible = t.sk;
  if (p.causal) {
    auto rowType = RankedTensorType::get({c.blockM}, b.getI32Type());
    Value rows = RangeOp::create(b, rowType, 0, c.blockM);
    Value qi =
        arith::AddIOp::create(b, rows, SplatOp::create(b, rowType, t.m0));
    t.qLimit = arith::AddIOp::create(b, qi, SplatOp::create(b, rowType, shift));
    // Keys past the block's last query (shifted) are never visible; every
    // row sees the keys up to the first query's limit.
    Value last = arith::AddIOp::create(
        b, arith::AddIOp::create(b, t.m0, constI32(b, c.blockM)), shift);
    t.end = arith::MaxSIOp::create(b, arith::MinSIOp::create(b, last, t.sk),
                                   constI32(b, 0));
    Value first = arith::AddIOp::create(
        b, arith::AddIOp::create(b, t.m0, shift), constI32(b, 1));
    visible = arith::MaxSIOp::create(b, arith::MinSIOp::create(b, first, t.sk),
                                     constI32(b, 0));
  }
  t.full = arith::MulIOp::create(
      b, arith::DivSIOp::create(b, visible, constI32(b, c.blockN)),
      constI32(b, c.blockN));
  if (placeholder || t.sq) {
    Value inside =
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, t.m0, queries);
    t.end = arith::SelectOp::create(b, inside, t.end, constI32(b, 0));
    t.full = arith::SelectOp::create(b, inside, t.full, constI32(b, 0));
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Tile orders
//===----------------------------------------------------------------------===//

namespace {
/// The (query block, head, batch) of a tile.
struct QueryTileCoords {
  Value mb, h, bi;
};
} // namespace

/// Causal blocks differ in work: programs launch in (x, y, z) order, so the
/// blocks with the most keys go first and the short ones fill the tail of
/// the grid. With one program per SM at a time (the warp-specialized
/// schedule) each head's blocks run longest first. With two programs per
/// SM (the cp.async schedule) the (block, head, batch) triples run longest
/// first across groups of (batch, head) pairs whose K and V fit in about
/// 32 MB, so that the blocks running together share them in L2. H200,
/// causal, S = 4096 (bench/results/2026-11-30_attention_causal_lpt_h200.json):
/// sm_80 path head dim 128 310/312 TFLOP/s against 290; on sm_90a the
/// groups were 4% slower at S = 1024 and even at 4096.
static QueryTileCoords emitLongestFirstOrder(ImplicitLocOpBuilder &b,
                                             const AttentionProblem &p,
                                             const AttentionConfig &c) {
  Value nM = arith::CeilDivSIOp::create(b, p.sq, constI32(b, c.blockM));
  Value mb = ProgramIdOp::create(b, Dim::X);
  Value hh = ProgramIdOp::create(b, Dim::Y);
  Value bb = ProgramIdOp::create(b, Dim::Z);
  Value one = constI32(b, 1);
  if (c.warpSpecialize)
    return {arith::SubIOp::create(b, arith::SubIOp::create(b, nM, one), mb), hh,
            bb};
  Value nHB = arith::MulIOp::create(b, p.hq, p.batch);
  Value pid = arith::AddIOp::create(
      b, mb,
      arith::MulIOp::create(
          b, nM, arith::AddIOp::create(b, hh, arith::MulIOp::create(b, p.hq, bb))));
  int64_t kvBytes = 2 * p.d * (p.et.getIntOrFloatBitWidth() / 8);
  Value perGroup = arith::MaxSIOp::create(
      b,
      arith::DivSIOp::create(b, constI32(b, (int64_t(1) << 25) / kvBytes),
                             arith::MaxSIOp::create(b, p.sk, one)),
      one);
  perGroup = arith::MinSIOp::create(b, perGroup, nHB);
  Value groupPrograms = arith::MulIOp::create(b, perGroup, nM);
  Value group = arith::DivSIOp::create(b, pid, groupPrograms);
  Value inGroup = arith::RemSIOp::create(b, pid, groupPrograms);
  Value firstPair = arith::MulIOp::create(b, group, perGroup);
  Value pairs = arith::MinSIOp::create(
      b, perGroup, arith::SubIOp::create(b, nHB, firstPair));
  Value rank = arith::DivSIOp::create(b, inGroup, pairs);
  Value pair = arith::AddIOp::create(b, firstPair,
                                     arith::RemSIOp::create(b, inGroup, pairs));
  return {arith::SubIOp::create(b, arith::SubIOp::create(b, nM, one), rank),
          arith::RemSIOp::create(b, pair, p.hq),
          arith::DivSIOp::create(b, pair, p.hq)};
}

namespace {
/// The persistent causal program's walk over its tiles: tiles t = pid, pid +
/// P, ... below `end` (P programs), and what decodes a tile.
struct CausalPairWalk {
  Value nM, numPairs, paired, numTiles, programs, first, end;
};
} // namespace

/// The tiles of the persistent causal program. Where every program gets at
/// least one pair, the programs take pairs of one head's query blocks round
/// robin, the longest block with the shortest (n - 1 - j, then j; with n
/// odd, block n stands in for the missing partner and visits no key):
/// every pair is the same work, and the programs running together share a
/// few heads' K and V. Program p's tiles p, p + P, ... alternate between its
/// pair's two blocks, and end at p + 2 P ceil((pairs - p) / P).
static CausalPairWalk emitCausalPairWalk(ImplicitLocOpBuilder &b,
                                         const AttentionProblem &p,
                                         const AttentionConfig &c) {
  CausalPairWalk w;
  w.nM = arith::CeilDivSIOp::create(b, p.sq, constI32(b, c.blockM));
  Value heads = arith::MulIOp::create(b, p.hq, p.batch);
  w.numTiles = arith::MulIOp::create(b, w.nM, heads);
  w.programs = NumProgramsOp::create(b, Dim::X);
  w.numPairs = arith::CeilDivSIOp::create(b, w.nM, constI32(b, 2));
  Value allPairs = arith::MulIOp::create(b, w.numPairs, heads);
  w.paired = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, allPairs,
                                   w.programs);
  Value first = w.first = ProgramIdOp::create(b, Dim::X);
  Value mine = arith::CeilDivSIOp::create(
      b,
      arith::MaxSIOp::create(b, arith::SubIOp::create(b, allPairs, first),
                             constI32(b, 0)),
      w.programs);
  Value pairedEnd = arith::AddIOp::create(
      b, first,
      arith::MulIOp::create(b, arith::MulIOp::create(b, mine, constI32(b, 2)),
                            w.programs));
  w.end = arith::SelectOp::create(b, w.paired, pairedEnd, w.numTiles);
  return w;
}

/// Tile `t` of the persistent causal walk. In pairs (above): round t / P,
/// and tile t is block (t / P) % 2 of pair (t / 2P) P + t % P. With fewer
/// pairs than programs, the tiles run longest first across all (head,
/// batch) pairs (rank-major: the last query block of every pair, then the
/// one before, ...), and the programs take every other round of P tiles in
/// reverse order (a "snake"): a program that had one of the longest tiles
/// of a round gets one of the shortest of the next.
///
/// H200, head dim 128, S = 1k / 4k / 16k, interleaved A/B
/// (bench/results/2026-11-30_attention_sm90a_causal_pairs_h200.json):
/// pairs 380 / 508 / 567 TFLOP/s, the snake over all tiles 344 / 500 / 586,
/// pairs with the heads fastest (each program on another head) 341 / 492 /
/// 556; the non-persistent kernel 365 / 524 / 620 (see NamedOpConfigs).
static QueryTileCoords emitCausalPairTile(ImplicitLocOpBuilder &b,
                                          const AttentionProblem &p,
                                          const CausalPairWalk &w, Value t) {
  Value one = constI32(b, 1);
  Value round = arith::DivSIOp::create(b, t, w.programs);
  Value odd = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ne, arith::AndIOp::create(b, round, one),
      constI32(b, 0));
  Value roundStart = arith::MulIOp::create(b, round, w.programs);
  Value place = arith::SubIOp::create(b, t, roundStart);
  Value pair = arith::AddIOp::create(
      b, arith::MulIOp::create(b, arith::ShRSIOp::create(b, round, one), w.programs),
      place);
  Value j = arith::RemSIOp::create(b, pair, w.numPairs);
  Value longer = arith::SubIOp::create(
      b,
      arith::SubIOp::create(
          b, arith::MulIOp::create(b, w.numPairs, constI32(b, 2)), one),
      j);
  Value mbPaired = arith::SelectOp::create(b, odd, j, longer);
  Value hbPaired = arith::DivSIOp::create(b, pair, w.numPairs);
  Value mirrored = arith::SubIOp::create(
      b,
      arith::AddIOp::create(b, roundStart,
                            arith::SubIOp::create(b, w.programs, one)),
      place);
  // A round cut short by the last tile keeps its order.
  Value whole = arith::CmpIOp::create(
      b, arith::CmpIPredicate::sle,
      arith::AddIOp::create(b, roundStart, w.programs), w.numTiles);
  Value v = arith::SelectOp::create(b, arith::AndIOp::create(b, odd, whole),
                                    mirrored, t);
  Value heads = arith::MulIOp::create(b, p.hq, p.batch);
  Value mb = arith::SubIOp::create(b, arith::SubIOp::create(b, w.nM, one),
                                   arith::DivSIOp::create(b, v, heads));
  Value hb = arith::RemSIOp::create(b, v, heads);
  mb = arith::SelectOp::create(b, w.paired, mbPaired, mb);
  hb = arith::SelectOp::create(b, w.paired, hbPaired, hb);
  return {mb, arith::RemSIOp::create(b, hb, p.hq),
          arith::DivSIOp::create(b, hb, p.hq)};
}

//===----------------------------------------------------------------------===//
// Online softmax
//===----------------------------------------------------------------------===//

namespace {
/// FlashAttention's online softmax over blocks of `bn` keys, for `bm` query
/// rows, in the log2 domain: the running row max `m` (of scaled scores) and
/// row sum `l`, carried by the key loop. Attention variants (and the
/// backward pass, which recomputes P from the saved lse) build on it.
class OnlineSoftmax {
public:
  /// Scores are multiplied by qkScale (or by `scoreScale` when given: FP8's
  /// qkScale times its descales); O's rows by 1 / l (times `vDescale` when
  /// given). Each factor is an f32 value or a bm-row f32 tile (one factor
  /// per query row).
  OnlineSoftmax(int64_t bm, int64_t bn, double qkScale, Type pType,
                Value scoreScale = Value(), Value vDescale = Value())
      : bm(bm), bn(bn), qkScale(qkScale), pType(pType), scoreScale(scoreScale),
        vDescale(vDescale) {}

  /// The state before the first block: m = -inf, l = 0.
  SmallVector<Value> init(ImplicitLocOpBuilder &b) const {
    return {splatF32(b, {bm}, -INFINITY), splatF32(b, {bm}, 0.0)};
  }

  struct Step {
    Value p;     // exp2(s * scale - m'), in pType (the second dot's A)
    Value alpha; // exp2(m - m'): the factor that rescales the accumulator
    Value m, l;  // the new state
  };

  /// One block of raw scores `s` (f32, bm x bn) from state (m, l). With
  /// `mayBeEmpty`, a row may have seen no key yet (its m stays -inf; the
  /// block is masked); with `emptyOnlyIf` too, only where that i1 holds
  /// (the branch that masks the block): the guard then sits in a branch on
  /// it, which a loop split at the mask (tile-split-loops) resolves.
  Step step(ImplicitLocOpBuilder &b, Value s, Value m, Value l,
            bool mayBeEmpty, Value emptyOnlyIf = Value()) const {
    auto rowType = RankedTensorType::get({bm}, b.getF32Type());
    // The row max of the raw scores, scaled (scale > 0), is the max in the
    // log2 domain; each element then takes one fma and one exp2.
    Value rowMax = ReduceOp::create(b, rowType, ReduceKind::Max, s, 1);
    Value mNew = arith::MaximumFOp::create(
        b, m, arith::MulFOp::create(b, rowMax, scaleSplat(b, {bm})));
    Value mUse = mNew;
    // A row that has seen no key yet keeps m = -inf; subtract 0 then.
    auto guard = [&](ImplicitLocOpBuilder &gb) -> Value {
      Value noKey = arith::CmpFOp::create(gb, arith::CmpFPredicate::OEQ, mNew,
                                          splatF32(gb, {bm}, -INFINITY));
      return arith::SelectOp::create(gb, noKey, splatF32(gb, {bm}, 0.0), mNew);
    };
    if (mayBeEmpty && emptyOnlyIf) {
      mUse = scf::IfOp::create(
                 b, emptyOnlyIf,
                 [&](OpBuilder &ib, Location loc) {
                   ImplicitLocOpBuilder gb(loc, ib);
                   scf::YieldOp::create(gb, guard(gb));
                 },
                 [&](OpBuilder &ib, Location loc) {
                   scf::YieldOp::create(ib, loc, mNew);
                 })
                 .getResult(0);
    } else if (mayBeEmpty) {
      mUse = guard(b);
    }
    // exp2 with `afn`: flush-to-zero ex2 (probabilities below 2^-126 are 0).
    auto afn = arith::FastMathFlags::afn;
    Value alpha = math::Exp2Op::create(b, arith::SubFOp::create(b, m, mUse), afn);
    Value negM = broadcastAlong(b, arith::NegFOp::create(b, mUse), 1, {bm, bn});
    Value e = math::Exp2Op::create(
        b, math::FmaOp::create(b, s, scaleSplat(b, {bm, bn}), negM), afn);
    Value rowSum = ReduceOp::create(b, rowType, ReduceKind::Sum, e, 1);
    Value lNew =
        arith::AddFOp::create(b, arith::MulFOp::create(b, l, alpha), rowSum);
    return {arith::TruncFOp::create(b, pType, e), alpha, mNew, lNew};
  }

  /// acc (bm x d) scaled row by row by `alpha`.
  Value rescale(ImplicitLocOpBuilder &b, Value acc, Value alpha) const {
    auto shape = cast<RankedTensorType>(acc.getType()).getShape();
    return arith::MulFOp::create(b, acc, broadcastAlong(b, alpha, 1, shape));
  }

  /// The output acc / l (one division per row, then a multiply per element,
  /// FlashAttention's order: a division per element was a tenth of a
  /// program's instructions at S = 1024); rows that saw no key give 0.
  Value normalize(ImplicitLocOpBuilder &b, Value acc, Value l) const {
    auto shape = cast<RankedTensorType>(acc.getType()).getShape();
    Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l,
                                        splatF32(b, {bm}, 0.0));
    Value lSafe = arith::SelectOp::create(b, empty, splatF32(b, {bm}, 1.0), l);
    Value numerator =
        vDescale ? rowFactor(b, vDescale, {bm}) : splatF32(b, {bm}, 1.0);
    Value inv = arith::DivFOp::create(b, numerator, lSafe);
    return arith::MulFOp::create(b, acc, broadcastAlong(b, inv, 1, shape));
  }

  /// The natural-log row log-sum-exp (m + log2 l) ln 2; -inf for rows that
  /// saw no key.
  Value logSumExp(ImplicitLocOpBuilder &b, Value m, Value l) const {
    Value lse2 = arith::AddFOp::create(
        b, m, math::Log2Op::create(b, l, arith::FastMathFlags::afn));
    return arith::MulFOp::create(b, lse2, splatF32(b, {bm}, M_LN2));
  }

private:
  /// The scores' multiplier, splat to `shape`.
  Value scaleSplat(ImplicitLocOpBuilder &b, ArrayRef<int64_t> shape) const {
    if (!scoreScale)
      return splatF32(b, shape, qkScale);
    return rowFactor(b, scoreScale, shape);
  }

  /// A factor (an f32 value, or one per row: a bm tile) as a `shape` tile
  /// whose rows each hold their factor.
  static Value rowFactor(ImplicitLocOpBuilder &b, Value factor,
                         ArrayRef<int64_t> shape) {
    if (!isa<RankedTensorType>(factor.getType()))
      return SplatOp::create(b, RankedTensorType::get(shape, b.getF32Type()),
                             factor);
    return shape.size() == 1 ? factor : broadcastAlong(b, factor, 1, shape);
  }

  int64_t bm, bn;
  double qkScale;
  Type pType;
  Value scoreScale, vDescale;
};
} // namespace

namespace {
/// The mask of a key block: keys past Sk and, causal, past each query's
/// limit score -inf. The tiles it compares against are made once, before
/// the key loop.
class KeyMask {
public:
  KeyMask(ImplicitLocOpBuilder &b, const AttentionProblem &p,
          const QueryBlock &t, int64_t bm, int64_t bn)
      : bm(bm), bn(bn) {
    auto i32 = b.getI32Type();
    cols = RangeOp::create(b, RankedTensorType::get({bn}, i32), 0, bn);
    skB = SplatOp::create(b, RankedTensorType::get({bm, bn}, i32), t.sk);
    if (p.causal)
      qLimitB = broadcastAlong(b, t.qLimit, 1, {bm, bn});
    ninf = splatF32(b, {bm, bn}, -INFINITY);
  }

  /// Scores `s` of keys [n, n + bn), masked.
  Value apply(ImplicitLocOpBuilder &b, Value s, Value n) const {
    auto i32 = b.getI32Type();
    Value kj = arith::AddIOp::create(
        b, cols, SplatOp::create(b, RankedTensorType::get({bn}, i32), n));
    Value kjB = broadcastAlong(b, kj, 0, {bm, bn});
    Value keep = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, kjB, skB);
    if (qLimitB)
      keep = arith::AndIOp::create(
          b, keep,
          arith::CmpIOp::create(b, arith::CmpIPredicate::sle, kjB, qLimitB));
    return arith::SelectOp::create(b, keep, s, ninf);
  }

private:
  int64_t bm, bn;
  Value cols, skB, qLimitB, ninf;
};
} // namespace

namespace {
/// Applies a score_mod / mask_mod block to one [bm, bn] block of scores:
/// values the same across the block (the batch, the head, values from
/// above, ops on those, and table reads at them) stay scalars; the query
/// and key indices and what depends on them become tiles. A table read at
/// the query or key index (plus a uniform offset, the view's last index)
/// loads the block's row of the table and broadcasts it.
class ModRegionApplier {
public:
  ModRegionApplier(ImplicitLocOpBuilder &b, Block *block, const QueryBlock &t,
                   Value n, int64_t bm, int64_t bn)
      : b(b), block(block), m0(t.m0), n(n), bm(bm), bn(bn), rows(&t.tableRows) {
    unsigned first = block->getNumArguments() - 4;
    scalars[block->getArgument(first)] = t.bi;
    scalars[block->getArgument(first + 1)] = t.h;
    along[block->getArgument(first + 2)] = {0, Value()};
    along[block->getArgument(first + 3)] = {1, Value()};
  }

  /// The block's result, with `lead` (the scores) as its first argument
  /// when it has one.
  Value apply(Value lead) {
    if (lead)
      tiles.map(block->getArgument(0), lead);
    for (Operation &op : block->without_terminator())
      applyOp(op);
    return tile(cast<YieldOp>(block->getTerminator()).getValues()[0]);
  }

  /// The table reads of `block` that need no key (emitted here, before the
  /// key loop): at values the same across the block, or along the query
  /// index at such values (a [bm] row); with the ops on such values.
  DenseMap<Operation *, Value> loadQueryRows() {
    DenseMap<Operation *, Value> loaded;
    for (Operation &op : block->without_terminator()) {
      if (auto load = dyn_cast<LoadScalarOp>(op)) {
        if (std::optional<std::pair<Value, int>> read = readTable(load, true))
          loaded[load] = read->first;
        continue;
      }
      if (!trackAlong(op))
        cloneScalar(op);
    }
    return loaded;
  }

private:
  RankedTensorType tileType(Type et) {
    return RankedTensorType::get({bm, bn}, et);
  }

  /// `v`'s scalar where it is the same across the block, else null.
  Value scalar(Value v) {
    if (Value s = scalars.lookup(v))
      return s;
    bool inside = v.getParentBlock() == block;
    return inside ? Value() : v;
  }

  /// `v` as a [bm, bn] tile.
  Value tile(Value v) {
    if (Value x = tiles.lookupOrNull(v))
      return x;
    Value x;
    if (auto it = along.find(v); it != along.end()) {
      auto [axis, offset] = it->second;
      int64_t size = axis == 0 ? bm : bn;
      auto type = RankedTensorType::get({size}, b.getI32Type());
      Value first = axis == 0 ? m0 : n;
      if (offset)
        first = arith::AddIOp::create(b, first, offset);
      x = broadcastAlong(
          b,
          arith::AddIOp::create(b, RangeOp::create(b, type, 0, size),
                                SplatOp::create(b, type, first)),
          axis == 0 ? 1 : 0, {bm, bn});
    } else {
      x = SplatOp::create(b, tileType(v.getType()), scalar(v));
    }
    tiles.map(v, x);
    return x;
  }

  void applyOp(Operation &op) {
    if (auto load = dyn_cast<LoadScalarOp>(op))
      return applyLoad(load);
    if (trackAlong(op) || cloneScalar(op))
      return;
    IRMapping m;
    for (Value v : op.getOperands())
      m.map(v, tile(v));
    Operation *clone = b.clone(op, m);
    for (OpResult r : clone->getResults())
      r.setType(tileType(r.getType()));
    tiles.map(op.getResult(0), clone->getResult(0));
  }

  /// `op` on scalars where its operands are all the same across the block
  /// (and whether they are).
  bool cloneScalar(Operation &op) {
    if (!llvm::all_of(op.getOperands(), [&](Value v) { return scalar(v); }))
      return false;
    IRMapping m;
    for (Value v : op.getOperands())
      m.map(v, scalar(v));
    scalars[op.getResult(0)] = b.clone(op, m)->getResult(0);
    return true;
  }

  /// index + uniform (or - uniform) keeps an index's axis.
  bool trackAlong(Operation &op) {
    if (!isa<arith::AddIOp, arith::SubIOp>(op))
      return false;
    Value l = op.getOperand(0), r = op.getOperand(1);
    bool sub = isa<arith::SubIOp>(op);
    auto it = along.find(l);
    Value u = scalar(r);
    if ((it == along.end() || !u) && !sub) {
      it = along.find(r);
      u = scalar(l);
    }
    if (it == along.end() || !u)
      return false;
    auto [axis, offset] = it->second;
    Value delta = sub ? Value(arith::SubIOp::create(b, constI32(b, 0), u)) : u;
    along[op.getResult(0)] = {
        axis, offset ? Value(arith::AddIOp::create(b, offset, delta)) : delta};
    return true;
  }

  /// Table read `load` for the block: its value (axis -1) where every
  /// index is the same across the block, else the block's row of the
  /// table (its last dimension) along the query (axis 0, [bm]) or key
  /// (axis 1, [bn]) index. With `keyFree` (loadQueryRows), none and
  /// nothing emitted where the read needs a key or an index is neither.
  std::optional<std::pair<Value, int>> readTable(LoadScalarOp load,
                                                 bool keyFree) {
    int axis = -1;
    for (Value i : load.getIndices()) {
      if (scalar(i))
        continue;
      auto it = along.find(i);
      axis = it == along.end() ? 0 : it->second.first;
      if (keyFree && (it == along.end() || axis != 0))
        return std::nullopt;
    }
    SmallVector<Value> indices;
    for (Value i : load.getIndices()) {
      if (Value s = scalar(i)) {
        indices.push_back(s);
        continue;
      }
      auto [a, offset] = along.lookup(i);
      Value first = a == 0 ? m0 : n;
      indices.push_back(offset ? Value(arith::AddIOp::create(b, first, offset))
                               : first);
    }
    Type et = load.getType();
    if (axis < 0)
      return std::pair<Value, int>(
          LoadScalarOp::create(b, et, load.getView(), indices), -1);
    auto type = RankedTensorType::get({axis == 0 ? bm : bn}, et);
    return std::pair<Value, int>(LoadOp::create(b, type, load.getView(),
                                                indices, Value(),
                                                Padding::Zero),
                                 axis);
  }

  /// A table read (readTable; a read made before the key loop, tableRows,
  /// where there is one): a scalar, or the row broadcast over the block.
  void applyLoad(LoadScalarOp load) {
    std::pair<Value, int> read;
    if (Value pre = rows->lookup(load))
      read = {pre, isa<RankedTensorType>(pre.getType()) ? 0 : -1};
    else
      read = *readTable(load, false);
    if (read.second < 0)
      scalars[load.getResult()] = read.first;
    else
      tiles.map(
          load.getResult(),
          broadcastAlong(b, read.first, read.second == 0 ? 1 : 0, {bm, bn}));
  }

  ImplicitLocOpBuilder &b;
  Block *block;
  Value m0, n;
  int64_t bm, bn;
  const DenseMap<Operation *, Value> *rows;
  IRMapping tiles;
  DenseMap<Value, Value> scalars;
  DenseMap<Value, std::pair<int, Value>> along;
};
} // namespace

/// Query block `t`'s table reads of the op's regions that need no key
/// (QueryBlock::tableRows), loaded here.
static DenseMap<Operation *, Value> loadTableRows(ImplicitLocOpBuilder &b,
                                                  const AttentionProblem &p,
                                                  const QueryBlock &t,
                                                  int64_t bm, int64_t bn) {
  DenseMap<Operation *, Value> rows;
  for (Block *block : {p.scoreMod, p.maskMod})
    if (block)
      for (auto [op, row] :
           ModRegionApplier(b, block, t, Value(), bm, bn).loadQueryRows())
        rows[op] = row;
  return rows;
}

/// The value a score_mod / mask_mod `block` yields for keys [n, n + bn) of
/// query block `t` (ModRegionApplier), with `lead` (the scores, or none) as
/// its first argument.
static Value applyModRegion(ImplicitLocOpBuilder &b, Block *block,
                            const QueryBlock &t, Value lead, Value n,
                            int64_t bm, int64_t bn) {
  return ModRegionApplier(b, block, t, n, bm, bn).apply(lead);
}

/// The scores `s` (Q Kᵀ) of keys [n, n + bn) through the op's score_mod
/// (on the scaled scores), then its mask_mod (-inf where it is false).
static Value applyMods(ImplicitLocOpBuilder &b, const AttentionProblem &p,
                       const QueryBlock &t, Value s, Value n, int64_t bm,
                       int64_t bn, bool withMaskMod = true) {
  if (p.scoreMod)
    s = applyModRegion(
        b, p.scoreMod, t,
        arith::MulFOp::create(b, s, splatF32(b, {bm, bn}, p.scale)), n, bm, bn);
  if (p.maskMod && withMaskMod)
    s = arith::SelectOp::create(
        b, applyModRegion(b, p.maskMod, t, Value(), n, bm, bn), s,
        splatF32(b, {bm, bn}, -INFINITY));
  return s;
}

namespace {
/// An index of a mask_mod as q * query + kv * key + constant + the signed
/// scalars from above it (kernel parameters) in `terms`.
struct IndexForm {
  int64_t q = 0, kv = 0, constant = 0;
  SmallVector<std::pair<int64_t, Value>> terms;

  /// this + sign * o.
  IndexForm plus(const IndexForm &o, int64_t sign = 1) const {
    IndexForm d = *this;
    d.q += sign * o.q;
    d.kv += sign * o.kv;
    d.constant += sign * o.constant;
    for (auto [s, v] : o.terms)
      d.terms.push_back({sign * s, v});
    return d;
  }
};
} // namespace

/// `v` of mask_mod `block` (arguments batch, head, query, key) as an
/// IndexForm: sums and differences of the query, the key, constants and
/// i32 values from above; none for anything else.
static std::optional<IndexForm> getIndexForm(Value v, Block *block) {
  IndexForm f;
  if (v == block->getArgument(2) || v == block->getArgument(3)) {
    (v == block->getArgument(2) ? f.q : f.kv) = 1;
    return f;
  }
  Operation *def = v.getDefiningOp();
  if (!def ? cast<BlockArgument>(v).getOwner() == block
           : def->getBlock() == block) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c))) {
      f.constant = c.getSExtValue();
      return f;
    }
    if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
      return std::nullopt;
    auto l = getIndexForm(def->getOperand(0), block);
    auto r = getIndexForm(def->getOperand(1), block);
    if (!l || !r)
      return std::nullopt;
    return l->plus(*r, isa<arith::SubIOp>(def) ? -1 : 1);
  }
  if (!v.getType().isInteger(32))
    return std::nullopt;
  f.terms.push_back({1, v});
  return f;
}

namespace {
/// Keys a mask_mod may keep for a query block: [lo, hi), either end an
/// i64 value or null (unbounded).
struct KeyRange {
  Value lo, hi;
};
} // namespace

/// The keys comparison `cmp` of mask_mod `block` may keep for the queries
/// [m0, mLast]: `key > f(query)` bounds them below (a sliding window),
/// `key < g(query)` above (causal, a prefix), where f and g are sums and
/// differences of the query, constants and i32 values from above (taken
/// not to overflow); other comparisons bound nothing. Bounds are i64.
static KeyRange getCmpKeyRange(ImplicitLocOpBuilder &b, arith::CmpIOp cmp,
                               Block *block, Value m0, Value mLast) {
  auto l = getIndexForm(cmp.getLhs(), block);
  auto r = getIndexForm(cmp.getRhs(), block);
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  if (!l || !r ||
      (pred != P::slt && pred != P::sle && pred != P::sgt && pred != P::sge))
    return {};
  // As d < k: L - R < 0 (slt), < 1 (sle); R - L < 0 (sgt), < 1 (sge).
  bool swap = pred == P::sgt || pred == P::sge;
  int64_t k = pred == P::sle || pred == P::sge ? 1 : 0;
  IndexForm d = swap ? r->plus(*l, -1) : l->plus(*r, -1);
  if (d.kv != 1 && d.kv != -1)
    return {};
  // kv = -1: key >= q * query + off - k + 1, least at the query that
  // minimizes q * query; kv = 1: key < -q * query - off + k, largest at the
  // query that maximizes -q * query.
  bool lower = d.kv == -1;
  int64_t q = lower ? d.q : -d.q, sign = lower ? 1 : -1;
  auto i64 = b.getI64Type();
  Value bound = arith::ConstantOp::create(
      b, b.getI64IntegerAttr(lower ? d.constant - k + 1 : k - d.constant));
  auto add = [&](int64_t times, Value x) {
    Value wide = arith::ExtSIOp::create(b, i64, x);
    if (times != 1 && times != -1)
      wide = arith::MulIOp::create(
          b, wide,
          arith::ConstantOp::create(b, b.getI64IntegerAttr(std::abs(times))));
    bound = times > 0 ? Value(arith::AddIOp::create(b, bound, wide))
                      : Value(arith::SubIOp::create(b, bound, wide));
  };
  if (q != 0)
    add(q, (q > 0) == lower ? m0 : mLast);
  for (auto [s, x] : d.terms)
    add(sign * s, x);
  return lower ? KeyRange{bound, Value()} : KeyRange{Value(), bound};
}

/// The keys mask_mod `block`'s i1 `v` may keep for the queries [m0,
/// mLast]: comparisons' bounds through `and` (the tighter of each end) and
/// `or` (the looser, where both are bounded).
static KeyRange getKeyRange(ImplicitLocOpBuilder &b, Value v, Block *block,
                            Value m0, Value mLast) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != block)
    return {};
  if (auto cmp = dyn_cast<arith::CmpIOp>(def))
    return getCmpKeyRange(b, cmp, block, m0, mLast);
  if (!isa<arith::AndIOp, arith::OrIOp>(def))
    return {};
  KeyRange x = getKeyRange(b, def->getOperand(0), block, m0, mLast);
  KeyRange y = getKeyRange(b, def->getOperand(1), block, m0, mLast);
  bool both = isa<arith::AndIOp>(def);
  auto join = [&](Value p, Value q, bool lower) -> Value {
    if (!p || !q)
      return both ? (p ? p : q) : Value();
    // and: the larger start and the smaller end; or: the opposite.
    if (lower == both)
      return arith::MaxSIOp::create(b, p, q);
    return arith::MinSIOp::create(b, p, q);
  };
  return {join(x.lo, y.lo, true), join(x.hi, y.hi, false)};
}

/// The keys query block `t`'s loop must visit under the op's mask_mod, as
/// i32 [start, end) within [0, t.end): the blocks outside are masked for
/// every row, so skipping them changes nothing. The start is rounded down
/// to whole blocks of `bn`; either is null where the mask bounds nothing.
static std::pair<Value, Value> getMaskModKeys(ImplicitLocOpBuilder &b,
                                              const AttentionProblem &p,
                                              const QueryBlock &t, int64_t bm,
                                              int64_t bn) {
  auto i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c64 = [&](int64_t x) -> Value {
    return arith::ConstantOp::create(b, b.getI64IntegerAttr(x));
  };
  Value mLast = arith::AddIOp::create(b, t.m0, constI32(b, bm - 1));
  KeyRange r =
      getKeyRange(b, cast<YieldOp>(p.maskMod->getTerminator()).getValues()[0],
                  p.maskMod, t.m0, mLast);
  Value end = arith::ExtSIOp::create(b, i64, t.end);
  auto clamp = [&](Value x) -> Value {
    return arith::MinSIOp::create(b, arith::MaxSIOp::create(b, x, c64(0)), end);
  };
  Value start, stop;
  if (r.lo) {
    Value lo = clamp(r.lo);
    lo = arith::MulIOp::create(b, arith::DivSIOp::create(b, lo, c64(bn)),
                               c64(bn));
    start = arith::TruncIOp::create(b, i32, lo);
  }
  if (r.hi)
    stop = arith::TruncIOp::create(b, i32, clamp(r.hi));
  return {start, stop};
}

//===----------------------------------------------------------------------===//
// The program of one query block
//===----------------------------------------------------------------------===//

/// Q's tile, loaded once for the key loop. The scheduling passes place it:
/// in registers, in shared memory read per key block (`qInSmem`, the
/// schedule's operands_in_smem, tile-pipeline), or a TMA copy into shared
/// memory read in place by wgmma.
static Value emitQueryTile(ImplicitLocOpBuilder &b, const AttentionProblem &p,
                           const AttentionConfig &c, const QueryBlock &t) {
  return LoadOp::create(b, RankedTensorType::get({c.blockM, p.d}, p.et), p.q,
                        ValueRange{t.viewBatch, t.h, t.qRow, constI32(b, 0)},
                        Value(), Padding::Zero);
}

/// A block list's key block `iv` of query block `t` (its 128-key blocks
/// cut into blocks of `bn`): its first key.
static Value getListedKey(ImplicitLocOpBuilder &b, const AttentionProblem &p,
                          const QueryBlock &t, Value iv, int64_t bn) {
  int64_t list = AttentionOp::kListBlock, parts = list / bn;
  Value entry = arith::DivSIOp::create(b, iv, constI32(b, parts));
  Value block = LoadScalarOp::create(b, b.getI32Type(), p.kvIndices,
                                     ValueRange{t.bi, t.h, t.listRow, entry});
  Value part = arith::RemSIOp::create(b, iv, constI32(b, parts));
  return arith::AddIOp::create(
      b, arith::MulIOp::create(b, block, constI32(b, list)),
      arith::MulIOp::create(b, part, constI32(b, bn)));
}

/// A block list's count of wholly visible blocks for query block `t`, in
/// blocks of `bn` keys.
static Value getListedFullEnd(ImplicitLocOpBuilder &b,
                              const AttentionProblem &p, const QueryBlock &t,
                              int64_t bn) {
  Value full = LoadScalarOp::create(b, b.getI32Type(), p.kvFull,
                                    ValueRange{t.bi, t.h, t.listRow});
  return arith::MulIOp::create(b, full,
                               constI32(b, AttentionOp::kListBlock / bn));
}

/// The op's regions on the scores `s` of listed block `iv` (first key
/// `n`): the score_mod, and the mask_mod from block `fullEnd` on.
static Value applyListedMods(ImplicitLocOpBuilder &b, const AttentionProblem &p,
                             const QueryBlock &t, Value s, Value n, Value iv,
                             Value fullEnd, int64_t bm, int64_t bn) {
  Value partial =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, iv, fullEnd);
  auto branch = [&](bool withMask) {
    return [&, withMask](OpBuilder &ob, Location l) {
      ImplicitLocOpBuilder ib(l, ob);
      scf::YieldOp::create(ib, applyMods(ib, p, t, s, n, bm, bn, withMask));
    };
  };
  return scf::IfOp::create(b, partial, branch(true), branch(false))
      .getResult(0);
}

/// The body of a key loop: masked always, never, or from a key on.
using KeyStepBuilder = llvm::function_ref<
    std::function<void(OpBuilder &, Location, Value, ValueRange)>(bool, Value)>;

/// The key loop(s) of query block `t` from state `init`, their bodies
/// from `step`: over keys [0, end) (or those the mask_mod, the split-KV
/// range bound), in one loop or, with split loops, the blocks every row
/// sees whole then the rest; with a block list, over its listed blocks
/// (each masked).
static SmallVector<scf::ForOp>
createKeyLoops(ImplicitLocOpBuilder &b, const AttentionProblem &p,
               const AttentionConfig &c, const QueryBlock &t, ValueRange init,
               KeyStepBuilder step) {
  int64_t bm = c.blockM, bn = c.blockN;
  if (p.kvNum) {
    Value num = LoadScalarOp::create(b, b.getI32Type(), p.kvNum,
                                     ValueRange{t.bi, t.h, t.listRow});
    Value blocks = arith::MulIOp::create(
        b, num, constI32(b, AttentionOp::kListBlock / bn));
    // Keys before t.full need no key-end or causal mask in any row.
    return {scf::ForOp::create(b, constI32(b, 0), blocks, constI32(b, 1), init,
                               step(false, t.full))};
  }
  Value stepN = constI32(b, bn);
  // Keys [0, end), or within them the ones the mask_mod bounds.
  auto [start, end] =
      p.maskMod ? getMaskModKeys(b, p, t, bm, bn) : std::pair<Value, Value>();
  if (t.split) {
    // Split-KV: within this program's range of keys.
    start = start ? arith::MaxSIOp::create(b, start, t.start) : t.start;
    end = end ? arith::MinSIOp::create(b, end, t.end) : t.end;
  }
  if (!start)
    start = constI32(b, 0);
  if (!end)
    end = t.end;
  SmallVector<scf::ForOp> loops;
  if (c.splitLoops && !c.warpSpecialize) {
    Value full = t.full;
    if (p.maskMod || t.split)
      full = arith::MinSIOp::create(b, arith::MaxSIOp::create(b, start, t.full),
                                    end);
    loops.push_back(
        scf::ForOp::create(b, start, full, stepN, init, step(false, Value())));
    loops.push_back(scf::ForOp::create(
        b, full, end, stepN, loops[0].getResults(), step(true, Value())));
  } else {
    loops.push_back(
        scf::ForOp::create(b, start, end, stepN, init, step(true, t.full)));
  }
  return loops;
}

/// The key loop(s) of one query block from state `init` (acc, m, l); returns
/// the final (acc, m, l). With `splitLoops` (cp.async schedule) the blocks
/// every row sees whole run in a loop without the mask and the rest in a
/// second loop with it (the ring drains between them); otherwise one loop
/// masks the blocks from `full` on in a branch. The warp-specialized
/// schedule takes one loop: its ring, rotation and producer then run
/// through all blocks.
static SmallVector<Value> emitKeyLoops(ImplicitLocOpBuilder &b,
                                       const AttentionProblem &p,
                                       const AttentionConfig &c,
                                       const QueryBlock &t, Value tq,
                                       const OnlineSoftmax &sm,
                                       ValueRange init) {
  int64_t bm = c.blockM, bn = c.blockN;
  auto sType = RankedTensorType::get({bm, bn}, b.getF32Type());
  auto accType = RankedTensorType::get({bm, p.d}, b.getF32Type());
  auto elementType = [](Value view) {
    return cast<ViewType>(view.getType()).getElementType();
  };
  auto ktTile = RankedTensorType::get({p.d, bn}, elementType(p.k));
  auto vTile = RankedTensorType::get({bn, p.d}, elementType(p.v));
  KeyMask mask(b, p, t, bm, bn);
  // A block list's wholly visible blocks (listed first) skip the mask_mod.
  Value fullEnd = p.kvFull ? getListedFullEnd(b, p, t, bn) : Value();
  // One block: masked always, never, or (maskFrom) from that key on.
  auto step = [&](bool masked, Value maskFrom) {
    return [&, masked, maskFrom](OpBuilder &ob, Location loc, Value iv,
                                 ValueRange it) {
      ImplicitLocOpBuilder lb(loc, ob);
      Value zero = constI32(lb, 0);
      // The block's first key: the induction variable, or a listed block's.
      Value n = p.kvNum ? getListedKey(lb, p, t, iv, bn) : iv;
      // K and V of keys [n, n + bn): of batch bi, of its page, or of the
      // packed sequence's.
      Value kvBatch = t.viewBatch, row = n;
      if (t.kStart)
        row = arith::AddIOp::create(lb, t.kStart, n);
      if (p.blockTable) {
        Value page = constI32(lb, p.pageSize);
        kvBatch = LoadScalarOp::create(
            lb, lb.getI32Type(), p.blockTable,
            ValueRange{t.bi, arith::DivSIOp::create(lb, n, page)});
        row = arith::RemSIOp::create(lb, n, page);
      }
      Value kt = LoadOp::create(lb, ktTile, p.kT,
                                ValueRange{kvBatch, t.kvHead, zero, row},
                                Value(), Padding::Zero);
      Value tv = LoadOp::create(lb, vTile, p.v,
                                ValueRange{kvBatch, t.kvHead, row, zero},
                                Value(), Padding::Zero);
      Value s = DotOp::create(lb, sType, tq, kt, splatF32(lb, {bm, bn}, 0.0));
      if (fullEnd && p.maskMod)
        s = applyListedMods(lb, p, t, s, n, iv, fullEnd, bm, bn);
      else if (p.scoreMod || p.maskMod)
        s = applyMods(lb, p, t, s, n, bm, bn);
      Value edge;
      if (maskFrom) {
        edge =
            arith::CmpIOp::create(lb, arith::CmpIPredicate::sge, n, maskFrom);
        // A listed block the mask_mod masks is masked whole.
        if (fullEnd)
          edge = arith::OrIOp::create(
              lb, edge,
              arith::CmpIOp::create(lb, arith::CmpIPredicate::sge, iv,
                                    fullEnd));
        Value raw = s;
        s = scf::IfOp::create(
                lb, edge,
                [&](OpBuilder &ib, Location l) {
                  ImplicitLocOpBuilder mb(l, ib);
                  scf::YieldOp::create(mb, mask.apply(mb, raw, n));
                },
                [&](OpBuilder &ib, Location l) {
                  scf::YieldOp::create(ib, l, raw);
                })
                .getResult(0);
      } else if (masked) {
        s = mask.apply(lb, s, n);
      }
      // A score_mod or mask_mod may drop every key of a row in any block
      // (the mask_mod only in a block list's masked blocks, within edge).
      bool anyEmpty = p.scoreMod || (p.maskMod && !fullEnd);
      OnlineSoftmax::Step st = sm.step(
          lb, s, it[1], it[2], /*mayBeEmpty=*/masked || maskFrom || anyEmpty,
          /*emptyOnlyIf=*/anyEmpty ? Value() : edge);
      Value acc = DotOp::create(lb, accType, st.p, tv,
                                sm.rescale(lb, it[0], st.alpha));
      scf::YieldOp::create(lb, ValueRange{acc, st.m, st.l});
    };
  };
  SmallVector<scf::ForOp> loops = createKeyLoops(b, p, c, t, init, step);
  // The warp-specialized schedule carries its ring depth; a loop attribute
  // would also ask tile-pipeline for a cp.async ring.
  for (scf::ForOp loop : loops) {
    loop->setAttr(kMasksBoundedAttr, b.getUnitAttr());
    if (!c.warpSpecialize)
      loop->setAttr(tile::kNumStagesAttr, b.getI64IntegerAttr(c.stages));
  }
  return SmallVector<Value>(loops.back().getResults());
}

/// Query block `t`'s entry of a descale view [B, Hk], once per query row:
/// a bm-row f32 tile loaded from the view read as [B, Hk, bm] with stride 0
/// along the rows.
static Value getDescaleRows(ImplicitLocOpBuilder &b, Value view,
                            const QueryBlock &t, int64_t bm) {
  auto make = view.getDefiningOp<MakeViewOp>();
  ViewType type = make.getViewType();
  ArrayRef<int64_t> shape = type.getShape(), strides = type.getStrides();
  auto rowsType =
      ViewType::get(b.getContext(), {shape[0], shape[1], bm},
                    type.getElementType(), {strides[0], strides[1], 0});
  Value rows = MakeViewOp::create(b, rowsType, make.getBase(), make.getSizes(),
                                  make.getStrides());
  return LoadOp::create(b, RankedTensorType::get({bm}, b.getF32Type()), rows,
                        ValueRange{t.bi, t.kvHead, constI32(b, 0)}, Value(),
                        Padding::Zero);
}

/// The whole program of query block `t`: Q, the key loops, O and the lse.
static void emitQueryBlockProgram(ImplicitLocOpBuilder &b,
                                  const AttentionProblem &p,
                                  const AttentionConfig &c, QueryBlock t) {
  Value scoreScale = p.scoreScale, vDescale = p.vDescale;
  if (!p.descaleViews.empty()) {
    // Per (batch, K/V head): this block's factors, one per query row.
    Value dq = getDescaleRows(b, p.descaleViews[0], t, c.blockM);
    Value dk = getDescaleRows(b, p.descaleViews[1], t, c.blockM);
    scoreScale = arith::MulFOp::create(b, arith::MulFOp::create(b, dq, dk),
                                       splatF32(b, {c.blockM}, p.qkScale));
    vDescale = getDescaleRows(b, p.descaleViews[2], t, c.blockM);
  }
  OnlineSoftmax sm(c.blockM, c.blockN, p.qkScale,
                   RankedTensorType::get({c.blockM, c.blockN}, p.pType),
                   scoreScale, vDescale);
  Value tq = emitQueryTile(b, p, c, t);
  t.tableRows = loadTableRows(b, p, t, c.blockM, c.blockN);
  SmallVector<Value> init = {splatF32(b, {c.blockM, p.d}, 0.0)};
  llvm::append_range(init, sm.init(b));
  SmallVector<Value> res = emitKeyLoops(b, p, c, t, tq, sm, init);
  Value zero = constI32(b, 0);
  Value out = sm.normalize(b, res[0], res[2]);
  if (t.split) {
    // Split-KV: the range's O (f32) and lse, to the workspace.
    Value row =
        arith::AddIOp::create(b, arith::MulIOp::create(b, t.bi, p.heads), t.h);
    StoreOp::create(b, out, p.partialO, ValueRange{t.split, row, t.m0, zero},
                    Value());
    StoreOp::create(b, sm.logSumExp(b, res[1], res[2]), p.partialLse,
                    ValueRange{t.split, row, t.m0}, Value());
    return;
  }
  if (!p.oType.isF32())
    out = arith::TruncFOp::create(
        b, RankedTensorType::get({c.blockM, p.d}, p.oType), out);
  // Varlen: the rows within the sequence (the next one's follow).
  Value rowMask, outMask;
  if (t.sq) {
    auto rowType = RankedTensorType::get({c.blockM}, b.getI32Type());
    Value rows =
        arith::AddIOp::create(b, RangeOp::create(b, rowType, 0, c.blockM),
                              SplatOp::create(b, rowType, t.m0));
    rowMask = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, rows,
                                    SplatOp::create(b, rowType, t.sq));
    outMask = broadcastAlong(b, rowMask, 1, {c.blockM, p.d});
  }
  SmallVector<Value> at = {t.viewBatch, t.h, t.qRow, zero};
  if (outMask && c.tmaStore) {
    // A block within its sequence stores whole (a TMA store), the last one
    // of each sequence masked.
    Value whole = arith::CmpIOp::create(
        b, arith::CmpIPredicate::sle,
        arith::AddIOp::create(b, t.m0, constI32(b, c.blockM)), t.sq);
    scf::IfOp::create(
        b, whole,
        [&](OpBuilder &ib, Location l) {
          StoreOp::create(ib, l, out, p.o, at, Value());
          scf::YieldOp::create(ib, l);
        },
        [&](OpBuilder &ib, Location l) {
          StoreOp::create(ib, l, out, p.o, at, outMask);
          scf::YieldOp::create(ib, l);
        });
  } else {
    StoreOp::create(b, out, p.o, at, outMask);
  }
  if (p.lse)
    StoreOp::create(b, sm.logSumExp(b, res[1], res[2]), p.lse,
                    ValueRange{t.viewBatch, t.h, t.qRow}, rowMask);
}

//===----------------------------------------------------------------------===//
// Expansion
//===----------------------------------------------------------------------===//

/// `v` as an i32 value.
static Value materialize(ImplicitLocOpBuilder &b, OpFoldResult v) {
  if (auto value = dyn_cast<Value>(v))
    return value;
  return constI32(b, cast<IntegerAttr>(cast<Attribute>(v)).getInt());
}

/// A view of `base` (elements `et`) with `sizes` and `strides`: constants
/// stay in the type, values become operands.
static Value makeView(ImplicitLocOpBuilder &b, Value base, Type et,
                      ArrayRef<OpFoldResult> sizes,
                      ArrayRef<OpFoldResult> strides) {
  SmallVector<int64_t> shape, staticStrides;
  SmallVector<Value> dynSizes, dynStrides;
  auto split = [](ArrayRef<OpFoldResult> in, SmallVectorImpl<int64_t> &fixed,
                  SmallVectorImpl<Value> &dyn) {
    for (OpFoldResult v : in) {
      if (auto value = dyn_cast<Value>(v)) {
        fixed.push_back(ShapedType::kDynamic);
        dyn.push_back(value);
      } else {
        fixed.push_back(cast<IntegerAttr>(cast<Attribute>(v)).getInt());
      }
    }
  };
  split(sizes, shape, dynSizes);
  split(strides, staticStrides, dynStrides);
  auto type = ViewType::get(b.getContext(), shape, et, staticStrides);
  return MakeViewOp::create(b, type, base, dynSizes, dynStrides);
}

/// Decode's packing of view `view` ([B, Hq, 1, ...], one query per head)
/// as [B, Hk, G, ...]: row g of K/V head h is query head h G + g.
static Value packQueryHeads(ImplicitLocOpBuilder &b, Value view, Value hk,
                            Value group) {
  auto make = view.getDefiningOp<MakeViewOp>();
  unsigned rank = make.getViewType().getRank();
  Value headStride = materialize(b, make.getMixedStride(1));
  SmallVector<OpFoldResult> sizes = {make.getMixedSize(0), hk, group};
  SmallVector<OpFoldResult> strides = {
      make.getMixedStride(0),
      arith::MulIOp::create(b, group, headStride).getResult(), headStride};
  for (unsigned d = 3; d < rank; ++d) {
    sizes.push_back(make.getMixedSize(d));
    strides.push_back(make.getMixedStride(d));
  }
  return makeView(b, make.getBase(), make.getViewType().getElementType(), sizes,
                  strides);
}

/// Varlen's packed `view` ([1, heads, tokens, ...]) with a positive batch
/// stride where it is 0: the one batch index is always 0, and TMA takes
/// positive strides only (the heads' stride stands in).
static Value withPositiveBatchStride(ImplicitLocOpBuilder &b, Value view) {
  auto make = view.getDefiningOp<MakeViewOp>();
  if (make.getViewType().getStrides()[0] != 0)
    return view;
  SmallVector<OpFoldResult> sizes, strides;
  for (unsigned d = 0, e = make.getViewType().getRank(); d < e; ++d) {
    sizes.push_back(make.getMixedSize(d));
    strides.push_back(make.getMixedStride(d));
  }
  strides[0] = strides[1];
  return makeView(b, make.getBase(), make.getViewType().getElementType(), sizes,
                  strides);
}

/// Split-KV's workspace ([S, rows, D] and [S, rows], rows = B x heads x
/// sq in that order) as views [S, B * heads, sq, D] and [S, B * heads, sq].
static std::pair<Value, Value> getPartialViews(ImplicitLocOpBuilder &b,
                                               AttentionOp op, Value batch,
                                               Value heads, Value sq) {
  auto wo = op.getWorkspaceO().getDefiningOp<MakeViewOp>();
  auto wl = op.getWorkspaceLse().getDefiningOp<MakeViewOp>();
  Value groups = arith::MulIOp::create(b, batch, heads);
  Value ld = materialize(b, wo.getMixedStride(1));
  OpFoldResult one = b.getI32IntegerAttr(1);
  Value partialO =
      makeView(b, wo.getBase(), b.getF32Type(),
               {wo.getMixedSize(0), groups, sq, wo.getMixedSize(2)},
               {wo.getMixedStride(0),
                arith::MulIOp::create(b, sq, ld).getResult(), ld, one});
  Value partialLse = makeView(b, wl.getBase(), b.getF32Type(),
                              {wl.getMixedSize(0), groups, sq},
                              {wl.getMixedStride(0), sq, one});
  return {partialO, partialLse};
}

/// The problem's operands and sizes; K is also read as Kᵀ ([B, Hk, D, Sk],
/// contiguous along D: its tiles are K-major like a GEMM's column-major B).
static AttentionProblem getProblem(ImplicitLocOpBuilder &b, AttentionOp op,
                                   const AttentionConfig &c) {
  AttentionProblem p;
  p.op = op;
  p.q = op.getQ();
  p.k = op.getK();
  p.v = op.getV();
  p.o = op.getO();
  p.lse = op.getLse();
  p.et = op.getQ().getType().getElementType();
  p.oType = op.getO().getType().getElementType();
  p.pType = p.et;
  if (isFp8Type(p.et)) {
    // FlashAttention-3's FP8 recipe: P in e4m3 (probabilities need the
    // mantissa more than the range), the descales folded into the scale
    // and the final 1 / l.
    p.pType = b.getType<Float8E4M3FNType>();
  }
  p.d = op.getQ().getType().getShape()[3];
  p.causal = op.getCausal();
  float scale = op.getScale() ? op.getScale()->convertToFloat()
                              : 1.0f / std::sqrt(static_cast<float>(p.d));
  p.qkScale = scale * M_LOG2E;
  p.scale = scale;
  p.scoreMod = op.getScoreModBlock();
  p.maskMod = op.getMaskModBlock();
  if (p.scoreMod)
    p.qkScale = M_LOG2E;
  if (isFp8Type(p.et) && op.hasDescaleViews()) {
    llvm::append_range(p.descaleViews, op.getDescales());
  } else if (isFp8Type(p.et)) {
    ValueRange ds = op.getDescales();
    p.scoreScale = arith::MulFOp::create(
        b, arith::MulFOp::create(b, ds[0], ds[1]),
        arith::ConstantOp::create(b, b.getF32FloatAttr(p.qkScale)));
    p.vDescale = ds[2];
  }
  p.batch = getViewSize(b, p.q, 0);
  p.hq = getViewSize(b, p.q, 1);
  p.sq = getViewSize(b, p.q, 2);
  if (op.isVarlen()) {
    // Packed sequences: cu_seqlens count them, max_seqlen_q the grid's rows.
    p.cuSeqlensQ = op.getCuSeqlensQ();
    p.cuSeqlensK = op.getCuSeqlensK();
    p.cuExtent = getViewSize(b, p.cuSeqlensQ, 0);
    p.batch = arith::SubIOp::create(b, p.cuExtent, constI32(b, 1));
    p.sq = op.getMaxSeqlenQ();
    p.q = withPositiveBatchStride(b, p.q);
    p.k = withPositiveBatchStride(b, p.k);
    p.v = withPositiveBatchStride(b, p.v);
    p.o = withPositiveBatchStride(b, p.o);
  }
  p.hk = getViewSize(b, p.k, 1);
  p.sk = getViewSize(b, p.k, 2);
  auto kMake = p.k.getDefiningOp<MakeViewOp>();
  ViewType kType = kMake.getViewType();
  ArrayRef<int64_t> ks = kType.getShape(), kst = kType.getStrides();
  auto ktType =
      ViewType::get(b.getContext(), {ks[0], ks[1], ks[3], ks[2]},
                    kType.getElementType(), {kst[0], kst[1], kst[3], kst[2]});
  p.kT = MakeViewOp::create(b, ktType, kMake.getBase(), kMake.getSizes(),
                            kMake.getStrides());
  p.seqUsedK = op.getSequsedK();
  p.kvNum = op.getKvNumBlocks();
  p.kvIndices = op.getKvIndices();
  p.kvFull = op.getKvFullBlocks();
  if ((p.blockTable = op.getBlockTable())) {
    // Keys up to the table's pages (seqused_k ends each batch's).
    p.pageSize = op.getK().getType().getShape()[2];
    p.sk = arith::MulIOp::create(b, getViewSize(b, p.blockTable, 1),
                                 constI32(b, p.pageSize));
  }
  p.heads = p.hq;
  if (c.packGqa) {
    // One query per head: the G query heads of a K/V head are the rows of
    // its block, and every key is visible to the query (causal or not).
    Value group = arith::DivSIOp::create(b, p.hq, p.hk);
    p.q = packQueryHeads(b, p.q, p.hk, group);
    p.o = packQueryHeads(b, p.o, p.hk, group);
    if (p.lse)
      p.lse = packQueryHeads(b, p.lse, p.hk, group);
    p.sq = group;
    p.heads = p.hk;
    p.packed = true;
    p.causal = false;
  }
  p.splits = c.splits;
  if (op.getStage() == AttentionStage::Split)
    std::tie(p.partialO, p.partialLse) =
        getPartialViews(b, op, p.batch, p.heads, p.sq);
  return p;
}

/// The launch grid: (ceildiv(Sq, BM), Hq, B) programs, or for the persistent
/// causal program (which walks its tiles itself) their number along x, at
/// most one program per SM.
static LogicalResult setAttentionGrid(KernelOp kernel, const AttentionProblem &p,
                                      const AttentionConfig &c,
                                      bool walksTiles) {
  SmallVector<int64_t> params;
  // Packed, the rows are the G = Hq / Hk query heads of each K/V head.
  FailureOr<AffineExpr> sqExpr = p.packed ? getParamExpr(p.hq, kernel, params)
                                          : getParamExpr(p.sq, kernel, params);
  FailureOr<AffineExpr> hqExpr = getParamExpr(p.heads, kernel, params);
  // Varlen: the sequences are cu_seqlens' extent less one.
  FailureOr<AffineExpr> bExpr =
      getParamExpr(p.cuSeqlensQ ? p.cuExtent : p.batch, kernel, params);
  if (succeeded(sqExpr) && succeeded(hqExpr) && p.packed)
    *sqExpr = (*sqExpr).floorDiv(*hqExpr);
  if (succeeded(bExpr) && p.cuSeqlensQ)
    *bExpr = *bExpr - 1;
  if (failed(sqExpr) || failed(hqExpr) || failed(bExpr))
    return AttentionOp(p.op).emitOpError(
        p.cuSeqlensQ
            ? "cu_seqlens_q's extent, max_seqlen_q and the heads must be "
              "kernel parameters or constants (they define the launch grid)"
            : "Q's batch, heads and sequence length, and K's heads, must be "
              "kernel parameters or constants (they define the launch grid)");
  MLIRContext *ctx = kernel.getContext();
  if (p.splits > 1) {
    // Each query block's S key ranges are neighbouring programs along x.
    kernel.setGridRule(
        AffineMap::get(0, params.size(),
                       {sqExpr->ceilDiv(c.blockM) * p.splits, *hqExpr, *bExpr},
                       ctx),
        params);
    kernel.setNumWarps(c.warps);
    return success();
  }
  if (walksTiles) {
    kernel.setGridRule(AffineMap::get(0, params.size(),
                                      sqExpr->ceilDiv(c.blockM) * *hqExpr *
                                          *bExpr,
                                      ctx),
                       params);
    kernel.setPersistent(true);
  } else {
    kernel.setGridRule(
        AffineMap::get(0, params.size(),
                       {sqExpr->ceilDiv(c.blockM), *hqExpr, *bExpr}, ctx),
        params);
  }
  kernel.setNumWarps(c.warps);
  return success();
}

//===----------------------------------------------------------------------===//
// Split-KV's combine stage
//===----------------------------------------------------------------------===//

/// Warps of the combine stage.
static constexpr int64_t kCombineWarps = 4;

/// The combine stage of a split-KV attention: one program per query row
/// merges its S partial results by their log-sum-exp, O = sum_s exp(lse_s
/// - m) O_s / sum_s exp(lse_s - m) with m the largest lse_s, and lse = m +
/// log(sum_s exp(lse_s - m)); a query no range saw (every lse_s -inf) gets
/// O = 0 and lse = -inf. The row's S partial outputs are one [S, D] tile
/// (S padded to a power of two), so a program issues one load and no loop:
/// the S x D values of a row are reduced down the tile's rows, each column
/// carrying the weights of all ranges.
LogicalResult expand::expandAttentionCombine(AttentionOp op, KernelOp kernel) {
  ImplicitLocOpBuilder b(op.getLoc(), op);
  int64_t d = op.getQ().getType().getShape()[3];
  int64_t splits = op.getSplits();
  int64_t padded = llvm::PowerOf2Ceil(splits);
  Value batch = getViewSize(b, op.getQ(), 0), hq = getViewSize(b, op.getQ(), 1),
        sq = getViewSize(b, op.getQ(), 2);
  SmallVector<int64_t> params;
  FailureOr<AffineExpr> sqExpr = getParamExpr(sq, kernel, params);
  FailureOr<AffineExpr> hqExpr = getParamExpr(hq, kernel, params);
  FailureOr<AffineExpr> bExpr = getParamExpr(batch, kernel, params);
  if (failed(sqExpr) || failed(hqExpr) || failed(bExpr))
    return op.emitOpError("Q's batch, heads and sequence length must be "
                          "kernel parameters or constants (they define the "
                          "launch grid)");
  kernel.setGridRule(AffineMap::get(0, params.size(),
                                    {*sqExpr, *hqExpr, *bExpr},
                                    kernel.getContext()),
                     params);
  kernel.setNumWarps(kCombineWarps);
  keepCpAsyncRing(kernel);
  // 16-byte loads of the partial outputs.
  requireChunkAligned(kernel, op.getWorkspaceO());
  // The workspace read by query row: [rows, S, D] and [rows, S].
  auto wo = op.getWorkspaceO().getDefiningOp<MakeViewOp>();
  auto wl = op.getWorkspaceLse().getDefiningOp<MakeViewOp>();
  OpFoldResult one = b.getI32IntegerAttr(1);
  Value partialO =
      makeView(b, wo.getBase(), b.getF32Type(),
               {wo.getMixedSize(1), wo.getMixedSize(0), wo.getMixedSize(2)},
               {wo.getMixedStride(1), wo.getMixedStride(0), one});
  Value partialLse = makeView(b, wl.getBase(), b.getF32Type(),
                              {wl.getMixedSize(1), wl.getMixedSize(0)},
                              {one, wl.getMixedStride(0)});
  Value s = ProgramIdOp::create(b, Dim::X), h = ProgramIdOp::create(b, Dim::Y),
        bi = ProgramIdOp::create(b, Dim::Z);
  Value row = arith::AddIOp::create(
      b,
      arith::MulIOp::create(
          b, arith::AddIOp::create(b, arith::MulIOp::create(b, bi, hq), h), sq),
      s);
  Value zero = constI32(b, 0);
  auto afn = arith::FastMathFlags::afn;
  SmallVector<int64_t> shape = {padded, d};
  // Each range's lse down the rows of a [S, D] tile.
  Value lse = broadcastAlong(
      b,
      LoadOp::create(b, RankedTensorType::get({padded}, b.getF32Type()),
                     partialLse, ValueRange{row, zero}, Value(),
                     Padding::NegInf),
      1, shape);
  Value part =
      LoadOp::create(b, RankedTensorType::get(shape, b.getF32Type()), partialO,
                     ValueRange{row, zero, zero}, Value(), Padding::Zero);
  auto colType = RankedTensorType::get({d}, b.getF32Type());
  Value m = ReduceOp::create(b, colType, ReduceKind::Max, lse, 0);
  // No range saw a key: m = -inf; subtract 0 then.
  Value none = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, m,
                                     splatF32(b, {d}, -INFINITY));
  Value mUse = arith::SelectOp::create(b, none, splatF32(b, {d}, 0.0), m);
  Value w = math::ExpOp::create(
      b, arith::SubFOp::create(b, lse, broadcastAlong(b, mUse, 0, shape)), afn);
  Value l = ReduceOp::create(b, colType, ReduceKind::Sum, w, 0);
  Value acc = ReduceOp::create(b, colType, ReduceKind::Sum,
                               arith::MulFOp::create(b, w, part), 0);
  Value lSafe = arith::SelectOp::create(
      b,
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l,
                            splatF32(b, {d}, 0.0)),
      splatF32(b, {d}, 1.0), l);
  Value out = arith::DivFOp::create(b, acc, lSafe);
  Type oType = op.getO().getType().getElementType();
  if (!oType.isF32())
    out = arith::TruncFOp::create(b, RankedTensorType::get({d}, oType), out);
  StoreOp::create(b, out, op.getO(), ValueRange{bi, h, s, zero}, Value());
  if (Value lseView = op.getLse()) {
    // Every column holds the row's lse: store the first, through a view of
    // the row's one element.
    auto make = lseView.getDefiningOp<MakeViewOp>();
    Value rowView = makeView(
        b, make.getBase(), b.getF32Type(),
        {make.getMixedSize(0), make.getMixedSize(1), make.getMixedSize(2), one},
        {make.getMixedStride(0), make.getMixedStride(1), make.getMixedStride(2),
         one});
    Value value =
        arith::AddFOp::create(b, mUse, math::LogOp::create(b, l, afn));
    StoreOp::create(b, value, rowView, ValueRange{bi, h, s, zero}, Value());
  }
  op.erase();
  return success();
}

LogicalResult expand::expandAttention(AttentionOp op, KernelOp kernel,
                                      const TargetInfo &target) {
  if (failed(checkOnlyComputation(kernel, op)))
    return failure();
  int64_t d = op.getQ().getType().getShape()[3];
  FailureOr<AttentionConfig> config = getAttentionConfig(op, target, d);
  if (failed(config))
    return failure();
  const AttentionConfig &c = *config;
  std::optional<AttentionStage> stage = op.getStage();
  if (c.splits > 1 && !stage)
    return op.emitOpError("with splits = ")
           << c.splits
           << " needs a stage to be expanded: split-KV attention is two "
              "kernels, the key ranges and their combination "
              "(tile-split-stages makes one per stage)";
  if (stage == AttentionStage::Combine)
    return expandAttentionCombine(op, kernel);
  int64_t list = AttentionOp::kListBlock;
  if (op.getKvNumBlocks() && (list % c.blockM != 0 || list % c.blockN != 0))
    return op.emitOpError("a block list's blocks of ")
           << list << " queries and keys must each hold whole blocks of the "
           << "kernel: block_m = " << c.blockM << " and block_n = " << c.blockN
           << " must divide " << list;
  if (c.warpSpecialize && !c.byPasses)
    return expandAttentionHandBuilt(op, kernel, c);
  ImplicitLocOpBuilder b(op.getLoc(), op);
  AttentionProblem p = getProblem(b, op, c);
  // The persistent causal program walks its tiles in pairs of equal work;
  // a persistent non-causal one is made by tile-persistent.
  bool walksTiles = c.persistent && p.causal && p.splits == 1;
  if (failed(setAttentionGrid(kernel, p, c, walksTiles)))
    return failure();
  // cp.async and TMA copy 16-byte chunks of Q, K, V (and TMA stores of O).
  requireChunkAligned(kernel, p.k);
  requireChunkAligned(kernel, p.v);
  if (c.warpSpecialize || c.qInSmem)
    requireChunkAligned(kernel, p.q);
  if (c.tmaStore)
    requireChunkAligned(kernel, p.o);
  if (p.partialO)
    requireChunkAligned(kernel, op.getWorkspaceO());
  // The key loop split at its masked blocks (tile-split-loops) where the
  // config says: where a program walks several tiles, and on FP8
  // (NamedOpConfigs). H200, interleaved, B*S = 16k: persistent
  // head dim 64 0.91-0.92x of the hand-built kernel unsplit, 0.96-0.97x
  // split; causal pairs head dim 64 at S = 2k 1.00x unsplit, 1.03x split.
  // One query block per program (causal): 0.985x unsplit, 0.95-0.97x split
  // (bench/results/2026-12-02_attention_split_loops_h200.json, measured
  // before the scheduled kernel was canonicalized and LICM'd).
  if (c.warpSpecialize)
    setWarpSpecializedSchedule(kernel, c.stages, c.producerRegs,
                               c.consumerRegs,
                               /*persistent=*/c.persistent && !walksTiles,
                               c.tmaStore, c.pingpong,
                               c.splitLoops);
  else
    keepCpAsyncRing(kernel, /*operandsInSmem=*/c.qInSmem);

  if (walksTiles) {
    CausalPairWalk w = emitCausalPairWalk(b, p, c);
    scf::ForOp::create(
        b, w.first, w.end, w.programs, ValueRange{},
        [&](OpBuilder &ob, Location loc, Value tIdx, ValueRange) {
          ImplicitLocOpBuilder tb(loc, ob);
          QueryTileCoords tc = emitCausalPairTile(tb, p, w, tIdx);
          emitQueryBlockProgram(
              tb, p, c,
              getQueryBlock(tb, p, c, tc.mb, tc.h, tc.bi, /*placeholder=*/true));
          scf::YieldOp::create(tb);
        });
  } else if (p.splits > 1) {
    // Program x is key range x mod S of query block x / S.
    Value x = ProgramIdOp::create(b, Dim::X);
    Value splits = constI32(b, p.splits);
    QueryBlock t = getQueryBlock(b, p, c, arith::DivSIOp::create(b, x, splits),
                                 ProgramIdOp::create(b, Dim::Y),
                                 ProgramIdOp::create(b, Dim::Z),
                                 /*placeholder=*/false);
    restrictToSplit(b, t, arith::RemSIOp::create(b, x, splits), p.splits,
                    c.blockN);
    emitQueryBlockProgram(b, p, c, t);
  } else {
    QueryTileCoords tc = p.causal
                             ? emitLongestFirstOrder(b, p, c)
                             : QueryTileCoords{ProgramIdOp::create(b, Dim::X),
                                               ProgramIdOp::create(b, Dim::Y),
                                               ProgramIdOp::create(b, Dim::Z)};
    emitQueryBlockProgram(
        b, p, c, getQueryBlock(b, p, c, tc.mb, tc.h, tc.bi, /*placeholder=*/false));
  }
  op.erase();
  return success();
}
