//===- ExpandAttentionBackward.cpp - tile.attention_backward stages -------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each stage of tile.attention_backward becomes a FlashAttention-2 backward
// block program (the programs of scripts/common/backward_kernels.py, which
// are measured on the H200; that module writes the same programs as text,
// with its tile variants, for A/B runs):
//
//  * pre: per 128 rows of a (batch, query head), Delta = rowsum(dO * O)
//    and lse2 = lse * log2 e (a row that saw no key, lse = -inf, gets +inf,
//    so that its probabilities are 0, not NaN); pre_zero_dq also zeroes
//    the f32 dQ accumulator.
//  * dq: per BM queries, the key blocks: S = Q Kᵀ,
//    P = exp2(S * scale log2 e - lse2), dP = dO Vᵀ, dS = P (dP - Delta),
//    dQ += dS K; dQ * scale is stored.
//  * dkdv: per BN keys, the query blocks with the transposed products
//    (Sᵀ = K Qᵀ, dV += Pᵀ dO, dPᵀ = V dOᵀ, dK += dSᵀ Q), so that no tile is
//    transposed in registers; dkdv_dq also adds dS K (dS = (dSᵀ)ᵀ) into
//    the accumulator with tile.atomic_add.
//  * dq_scale: dQ = accumulator * scale.
//  * dkdv_sum (with `expanded`): per 64 keys of a (batch, K/V head), dK and
//    dV as the sums of the group's per-query-head gradients, which the dK/dV
//    stage wrote into the expanded views.
//
// A tile that two products read (K in the dQ loop; Q and dO in the dK/dV
// loop) is loaded once per product: on sm_90a each load becomes a TMA ring
// slot that one wgmma reads in place (one load for both falls back to
// mma.sync there, 0.19-0.81x). Tiles outside the sequences read zero: rows
// past Sq add nothing to dK and dV (their dO rows are zero), keys past Sk
// are masked in the dQ loop and never stored by the dK/dV programs.
//
//===----------------------------------------------------------------------===//

#include "ExpandNamedOps.h"

#include "tilec/Dialect/Tile/Transforms/NamedOpConfigs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;
using namespace mlir::tilec::tile::expand;

namespace {
/// The op's views, sizes (i32) and scales (f32).
struct BackwardProblem {
  AttentionBackwardOp op;
  Type et;
  int64_t d;
  bool causal;
  Value batch, hq, hk, sq, sk;
  /// The softmax scale, and it times log2 e (scores in the exp2 domain).
  Value smScale, qkScale;
};

/// A program over a block of rows of one (batch, query head): its block
/// index along x, its first row, its query head and batch.
struct Program {
  Value index, start, h, bi;
};
} // namespace

static RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type et) {
  return RankedTensorType::get(shape, et);
}

/// The program's coordinates for blocks of `block` rows.
static Program emitProgram(ImplicitLocOpBuilder &b, Value block) {
  Program p;
  p.index = ProgramIdOp::create(b, Dim::X);
  p.h = ProgramIdOp::create(b, Dim::Y);
  p.bi = ProgramIdOp::create(b, Dim::Z);
  p.start = arith::MulIOp::create(b, p.index, block);
  return p;
}

/// A `shape` tile of `view` at `offsets` (zero outside the view).
static Value loadTile(ImplicitLocOpBuilder &b, Value view,
                      ArrayRef<int64_t> shape, Type et, ValueRange offsets) {
  return LoadOp::create(b, tensorOf(shape, et), view, offsets, Value(),
                        Padding::Zero);
}

/// `rows` f32 rows of the [batch, heads, seq] view `view` from `row`.
static Value loadRows(ImplicitLocOpBuilder &b, Value view, int64_t rows,
                      const Program &p, Value row) {
  return loadTile(b, view, {rows}, b.getF32Type(), ValueRange{p.bi, p.h, row});
}

/// The K/V head of query head `h`: heads come in groups of Hq / Hkv.
static Value emitKvHead(ImplicitLocOpBuilder &b, const BackwardProblem &p,
                        Value h) {
  Value group = arith::DivUIOp::create(b, p.hq, p.hk);
  return arith::DivUIOp::create(b, h, group);
}

static Value transposed(ImplicitLocOpBuilder &b, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  ArrayRef<int64_t> s = type.getShape();
  return TransOp::create(b, tensorOf({s[1], s[0]}, type.getElementType()), t);
}

static Value dot(ImplicitLocOpBuilder &b, Value lhs, Value rhs, Value acc) {
  return DotOp::create(b, acc.getType(), lhs, rhs, acc);
}

static Value truncTo(ImplicitLocOpBuilder &b, Value t, Type et) {
  auto type = cast<RankedTensorType>(t.getType());
  return arith::TruncFOp::create(b, tensorOf(type.getShape(), et), t);
}

/// `t` * scale, cast to the problem's element type.
static Value scaleAndTrunc(ImplicitLocOpBuilder &b, const BackwardProblem &p,
                           Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  Value scaled =
      arith::MulFOp::create(b, t, SplatOp::create(b, type, p.smScale));
  return truncTo(b, scaled, p.et);
}

/// exp2(`s` * qkScale - lse2): P (or Pᵀ), with `scale` the splat qkScale and
/// `negLse` the broadcast -lse2.
static Value emitProbabilities(ImplicitLocOpBuilder &b, Value s, Value scale,
                               Value negLse) {
  Value e = math::FmaOp::create(b, s, scale, negLse);
  return math::Exp2Op::create(b, e, arith::FastMathFlags::afn);
}

//===----------------------------------------------------------------------===//
// The row kernels: pre (pre_zero_dq) and dq_scale
//===----------------------------------------------------------------------===//

static void emitPre(ImplicitLocOpBuilder &b, const BackwardProblem &p,
                    const AttentionBackwardTiles &t, bool zeroAccumulator) {
  AttentionBackwardOp op = p.op;
  int64_t m = t.rowM, d = p.d;
  Value c0 = constI32(b, 0), cm = constI32(b, m);
  Program pr = emitProgram(b, cm);
  SmallVector<Value, 4> tileAt{pr.bi, pr.h, pr.start, c0};
  Value o = loadTile(b, op.getO(), {m, d}, p.et, tileAt);
  Value dout = loadTile(b, op.getDout(), {m, d}, p.et, tileAt);
  RankedTensorType f32Tile = tensorOf({m, d}, b.getF32Type());
  Value of = arith::ExtFOp::create(b, f32Tile, o);
  Value doutf = arith::ExtFOp::create(b, f32Tile, dout);
  Value prod = arith::MulFOp::create(b, of, doutf);
  RankedTensorType rowType = tensorOf({m}, b.getF32Type());
  Value delta = ReduceOp::create(b, rowType, ReduceKind::Sum, prod, 1);
  SmallVector<Value, 4> rowAt{pr.bi, pr.h, pr.start};
  StoreOp::create(b, delta, op.getDelta(), rowAt, Value());
  Value lse = loadRows(b, op.getLse(), m, pr, pr.start);
  Value lse2 =
      arith::MulFOp::create(b, lse, splatF32(b, {m}, 1.44269504088896340736));
  Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, lse,
                                      splatF32(b, {m}, -INFINITY));
  lse2 = arith::SelectOp::create(b, empty, splatF32(b, {m}, INFINITY), lse2);
  StoreOp::create(b, lse2, op.getLse2(), rowAt, Value());
  if (zeroAccumulator)
    StoreOp::create(b, splatF32(b, {m, d}, 0.0), op.getDqAccum(), tileAt,
                    Value());
}

static void emitDqScale(ImplicitLocOpBuilder &b, const BackwardProblem &p,
                        const AttentionBackwardTiles &t) {
  AttentionBackwardOp op = p.op;
  int64_t m = t.rowM, d = p.d;
  Value c0 = constI32(b, 0), cm = constI32(b, m);
  Program pr = emitProgram(b, cm);
  SmallVector<Value, 4> tileAt{pr.bi, pr.h, pr.start, c0};
  Value acc = loadTile(b, op.getDqAccum(), {m, d}, b.getF32Type(), tileAt);
  StoreOp::create(b, scaleAndTrunc(b, p, acc), op.getDq(), tileAt, Value());
}

//===----------------------------------------------------------------------===//
// dq
//===----------------------------------------------------------------------===//

namespace {
/// The dQ program's key range: keys [0, end), of which [0, full) are seen
/// by every row; `limit` is the [BM, BN] bound the mask compares keys with.
struct DqBounds {
  Value end, full, limit;
  arith::CmpIPredicate keep;
};
} // namespace

static DqBounds emitDqBounds(ImplicitLocOpBuilder &b, const BackwardProblem &p,
                             const AttentionBackwardTiles &t, Value m0) {
  int64_t m = t.dqM, n = t.dqN;
  Value c0 = constI32(b, 0), cn = constI32(b, n);
  DqBounds r;
  auto limitType = tensorOf({m, n}, b.getI32Type());
  if (!p.causal) {
    // Keys past Sk (read as zero) are masked in the last blocks.
    r.end = p.sk;
    r.full = arith::MulIOp::create(b, arith::DivSIOp::create(b, p.sk, cn), cn);
    r.limit = SplatOp::create(b, limitType, p.sk);
    r.keep = arith::CmpIPredicate::slt;
    return r;
  }
  // Query i sees key j <= i + Sk - Sq: the loop ends after the block's last
  // query's last key; keys [0, full) are visible to every row.
  Value off = arith::SubIOp::create(b, p.sk, p.sq);
  Value last = arith::AddIOp::create(b, m0, constI32(b, m));
  Value end =
      arith::MinSIOp::create(b, arith::AddIOp::create(b, last, off), p.sk);
  r.end = arith::MaxSIOp::create(b, end, c0);
  Value first = arith::AddIOp::create(b, m0, off);
  Value f = arith::MaxSIOp::create(
      b, arith::AddIOp::create(b, first, constI32(b, 1)), c0);
  f = arith::MulIOp::create(b, arith::DivSIOp::create(b, f, cn), cn);
  r.full = arith::MinSIOp::create(b, f, r.end);
  auto rowType = tensorOf({m}, b.getI32Type());
  Value rows = RangeOp::create(b, rowType, 0, m);
  Value qi = arith::AddIOp::create(b, rows, SplatOp::create(b, rowType, first));
  r.limit = broadcastAlong(b, qi, 1, {m, n});
  r.keep = arith::CmpIPredicate::sle;
  return r;
}

static void emitDq(ImplicitLocOpBuilder &b, const BackwardProblem &p,
                   const AttentionBackwardTiles &t) {
  AttentionBackwardOp op = p.op;
  int64_t m = t.dqM, n = t.dqN, d = p.d;
  Value c0 = constI32(b, 0), cm = constI32(b, m), cn = constI32(b, n);
  Program pr = emitProgram(b, cm);
  Value hk = emitKvHead(b, p, pr.h);
  SmallVector<Value, 4> queriesAt{pr.bi, pr.h, pr.start, c0};
  Value q = loadTile(b, op.getQ(), {m, d}, p.et, queriesAt);
  Value dout = loadTile(b, op.getDout(), {m, d}, p.et, queriesAt);
  Value lse2 = loadRows(b, op.getLse2(), m, pr, pr.start);
  Value delta = loadRows(b, op.getDelta(), m, pr, pr.start);
  Value negLse = arith::NegFOp::create(b, broadcastAlong(b, lse2, 1, {m, n}));
  Value deltaB = broadcastAlong(b, delta, 1, {m, n});
  DqBounds bounds = emitDqBounds(b, p, t, pr.start);
  auto colType = tensorOf({n}, b.getI32Type());
  Value cols = RangeOp::create(b, colType, 0, n);
  Value scale = SplatOp::create(b, tensorOf({m, n}, b.getF32Type()), p.qkScale);
  Value negInf = splatF32(b, {m, n}, -INFINITY);
  Value zeroS = splatF32(b, {m, n}, 0.0);
  Value acc0 = splatF32(b, {m, d}, 0.0);
  auto loop = scf::ForOp::create(
      b, c0, bounds.end, cn, ValueRange{acc0},
      [&](OpBuilder &ob, Location loc, Value key, ValueRange it) {
        ImplicitLocOpBuilder lb(loc, ob);
        SmallVector<Value, 4> keysAt{pr.bi, hk, key, c0};
        Value k = loadTile(lb, op.getK(), {n, d}, p.et, keysAt);
        Value s = dot(lb, q, transposed(lb, k), zeroS);
        Value edge = arith::CmpIOp::create(lb, arith::CmpIPredicate::sge, key,
                                           bounds.full);
        auto masked = scf::IfOp::create(
            lb, edge,
            [&](OpBuilder &tb, Location tl) {
              ImplicitLocOpBuilder ib(tl, tb);
              Value kj = arith::AddIOp::create(
                  ib, cols, SplatOp::create(ib, colType, key));
              Value keep = arith::CmpIOp::create(
                  ib, bounds.keep, broadcastAlong(ib, kj, 0, {m, n}),
                  bounds.limit);
              scf::YieldOp::create(
                  ib, ValueRange{arith::SelectOp::create(ib, keep, s, negInf)});
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, s);
            });
        Value prob = emitProbabilities(lb, masked.getResult(0), scale, negLse);
        Value v = loadTile(lb, op.getV(), {n, d}, p.et, keysAt);
        Value dp = dot(lb, dout, transposed(lb, v), zeroS);
        Value ds = arith::MulFOp::create(lb, prob,
                                         arith::SubFOp::create(lb, dp, deltaB));
        Value dsb = truncTo(lb, ds, p.et);
        Value k2 = loadTile(lb, op.getK(), {n, d}, p.et, keysAt);
        scf::YieldOp::create(lb, dot(lb, dsb, k2, it[0]));
      });
  StoreOp::create(b, scaleAndTrunc(b, p, loop.getResult(0)), op.getDq(),
                  queriesAt, Value());
}

//===----------------------------------------------------------------------===//
// dkdv (dkdv_dq)
//===----------------------------------------------------------------------===//

namespace {
/// The dK/dV program's query range [start, Sq), of which [full, Sq) sees
/// every key of the program (causal; without the mask start = 0 and no
/// block is masked), and the [BN, BM] first query each key row sees.
struct DkdvBounds {
  Value start, full, firstQuery, cols;
};
} // namespace

static DkdvBounds emitDkdvBounds(ImplicitLocOpBuilder &b,
                                 const BackwardProblem &p,
                                 const AttentionBackwardTiles &t, Value n0) {
  int64_t n = t.dkvN, m = t.dkvM;
  Value c0 = constI32(b, 0), cm = constI32(b, m);
  DkdvBounds r;
  if (!p.causal) {
    r.start = c0;
    return r;
  }
  // Key j is seen by queries i >= j - (Sk - Sq): the loop starts at the
  // query block holding the first query that sees key n0, and blocks from
  // `full` on see all the program's keys.
  Value off = arith::SubIOp::create(b, p.sk, p.sq);
  Value first = arith::SubIOp::create(b, n0, off);
  Value s = arith::MaxSIOp::create(b, first, c0);
  s = arith::MulIOp::create(b, arith::DivSIOp::create(b, s, cm), cm);
  r.start = arith::MinSIOp::create(b, s, p.sq);
  Value f = arith::MaxSIOp::create(
      b, arith::AddIOp::create(b, first, constI32(b, n)), r.start);
  r.full = arith::MinSIOp::create(b, f, p.sq);
  auto rowType = tensorOf({n}, b.getI32Type());
  Value rows = RangeOp::create(b, rowType, 0, n);
  Value kq = arith::AddIOp::create(b, rows, SplatOp::create(b, rowType, first));
  r.firstQuery = broadcastAlong(b, kq, 1, {n, m});
  r.cols = RangeOp::create(b, tensorOf({m}, b.getI32Type()), 0, m);
  return r;
}

/// Sᵀ with the keys a query does not see at -inf (in the blocks before
/// `full`).
static Value emitDkdvMask(ImplicitLocOpBuilder &b, const DkdvBounds &bounds,
                          Value st, Value query, Value negInf) {
  auto type = cast<RankedTensorType>(st.getType());
  int64_t n = type.getShape()[0], m = type.getShape()[1];
  Value edge =
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, query, bounds.full);
  auto masked = scf::IfOp::create(
      b, edge,
      [&](OpBuilder &tb, Location tl) {
        ImplicitLocOpBuilder ib(tl, tb);
        auto colType = tensorOf({m}, ib.getI32Type());
        Value qi = arith::AddIOp::create(ib, bounds.cols,
                                         SplatOp::create(ib, colType, query));
        // Sᵀ[j, i] is kept where query i sees key j.
        Value keep = arith::CmpIOp::create(ib, arith::CmpIPredicate::sge,
                                           broadcastAlong(ib, qi, 0, {n, m}),
                                           bounds.firstQuery);
        scf::YieldOp::create(
            ib, ValueRange{arith::SelectOp::create(ib, keep, st, negInf)});
      },
      [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, st); });
  return masked.getResult(0);
}

/// Column offsets of the atomic mode's dQ slices and their width.
static std::pair<int64_t, SmallVector<int64_t>>
getDqSlices(const BackwardProblem &p, const AttentionBackwardTiles &t) {
  int64_t w = t.dqAddCols ? std::min(p.d, t.dqAddCols) : p.d;
  SmallVector<int64_t> offsets;
  for (int64_t j = 0; j < p.d; j += w)
    offsets.push_back(j);
  return {w, offsets};
}

static void emitDkdv(ImplicitLocOpBuilder &b, const BackwardProblem &p,
                     const AttentionBackwardTiles &t, bool atomicDq) {
  AttentionBackwardOp op = p.op;
  int64_t n = t.dkvN, m = t.dkvM, d = p.d;
  Value c0 = constI32(b, 0), cm = constI32(b, m), cn = constI32(b, n);
  Program pr = emitProgram(b, cn);
  Value hk = emitKvHead(b, p, pr.h);
  SmallVector<Value, 4> keysAt{pr.bi, hk, pr.start, c0};
  Value k = loadTile(b, op.getK(), {n, d}, p.et, keysAt);
  Value v = loadTile(b, op.getV(), {n, d}, p.et, keysAt);
  // The atomic mode's dS K: the program's keys once more, per dQ slice.
  auto [sliceWidth, sliceOffsets] = getDqSlices(p, t);
  SmallVector<Value> sliceCols, keySlices;
  if (atomicDq) {
    for (int64_t j : sliceOffsets) {
      sliceCols.push_back(j ? constI32(b, j) : c0);
      keySlices.push_back(
          loadTile(b, op.getK(), {n, sliceWidth}, p.et,
                   ValueRange{pr.bi, hk, pr.start, sliceCols.back()}));
    }
  }
  DkdvBounds bounds = emitDkdvBounds(b, p, t, pr.start);
  Value negInf = p.causal ? splatF32(b, {n, m}, -INFINITY) : Value();
  Value scale = SplatOp::create(b, tensorOf({n, m}, b.getF32Type()), p.qkScale);
  Value zeroS = splatF32(b, {n, m}, 0.0);
  Value acc0 = splatF32(b, {n, d}, 0.0);
  // lse2 and Delta of each query block: loaded one step ahead and carried
  // (`prefetchRows`; past Sq they read zeros, never used), or in the step.
  SmallVector<Value> init{acc0, acc0};
  if (t.prefetchRows) {
    init.push_back(loadRows(b, op.getLse2(), m, pr, bounds.start));
    init.push_back(loadRows(b, op.getDelta(), m, pr, bounds.start));
  }
  auto loop = scf::ForOp::create(
      b, bounds.start, p.sq, cm, init,
      [&](OpBuilder &ob, Location loc, Value query, ValueRange it) {
        ImplicitLocOpBuilder lb(loc, ob);
        SmallVector<Value> next;
        if (t.prefetchRows) {
          Value nextQuery = arith::AddIOp::create(lb, query, cm);
          next.push_back(loadRows(lb, op.getLse2(), m, pr, nextQuery));
          next.push_back(loadRows(lb, op.getDelta(), m, pr, nextQuery));
        }
        SmallVector<Value, 4> queriesAt{pr.bi, pr.h, query, c0};
        Value q = loadTile(lb, op.getQ(), {m, d}, p.et, queriesAt);
        Value st = dot(lb, k, transposed(lb, q), zeroS);
        if (p.causal)
          st = emitDkdvMask(lb, bounds, st, query, negInf);
        Value lse2 =
            t.prefetchRows ? it[2] : loadRows(lb, op.getLse2(), m, pr, query);
        Value negLse =
            arith::NegFOp::create(lb, broadcastAlong(lb, lse2, 0, {n, m}));
        Value pt = emitProbabilities(lb, st, scale, negLse);
        Value ptb = truncTo(lb, pt, p.et);
        Value dout = loadTile(lb, op.getDout(), {m, d}, p.et, queriesAt);
        Value dv = dot(lb, ptb, dout, it[1]);
        Value dout2 = loadTile(lb, op.getDout(), {m, d}, p.et, queriesAt);
        Value dpt = dot(lb, v, transposed(lb, dout2), zeroS);
        Value delta =
            t.prefetchRows ? it[3] : loadRows(lb, op.getDelta(), m, pr, query);
        Value dst = arith::MulFOp::create(
            lb, pt,
            arith::SubFOp::create(lb, dpt,
                                  broadcastAlong(lb, delta, 0, {n, m})));
        Value dstb = truncTo(lb, dst, p.et);
        Value q2 = loadTile(lb, op.getQ(), {m, d}, p.et, queriesAt);
        Value dk = dot(lb, dstb, q2, it[0]);
        if (atomicDq) {
          Value ds = transposed(lb, dstb);
          Value zero = splatF32(lb, {m, sliceWidth}, 0.0);
          for (auto [col, keys] : llvm::zip(sliceCols, keySlices))
            AtomicAddOp::create(lb, dot(lb, ds, keys, zero), op.getDqAccum(),
                                ValueRange{pr.bi, pr.h, query, col}, Value());
        }
        SmallVector<Value> yields{dk, dv};
        llvm::append_range(yields, next);
        scf::YieldOp::create(lb, yields);
      });
  SmallVector<Value, 4> outAt{pr.bi, pr.h, pr.start, c0};
  StoreOp::create(b, scaleAndTrunc(b, p, loop.getResult(0)),
                  op.getDkPerQueryHead(), outAt, Value());
  StoreOp::create(b, truncTo(b, loop.getResult(1), p.et),
                  op.getDvPerQueryHead(), outAt, Value());
}

//===----------------------------------------------------------------------===//
// dkdv_sum
//===----------------------------------------------------------------------===//

/// `to`[b, hk, rows] = the sum over the `group` query heads from `first` of
/// K/V head hk of `from`[b, h, rows], in f32, rounded once.
static void emitGroupSum(ImplicitLocOpBuilder &b, const BackwardProblem &p,
                         int64_t rows, const Program &pr, Value first,
                         Value group, Value from, Value to) {
  Value c0 = constI32(b, 0);
  Value zero = splatF32(b, {rows, p.d}, 0.0);
  auto loop = scf::ForOp::create(
      b, c0, group, constI32(b, 1), ValueRange{zero},
      [&](OpBuilder &ob, Location loc, Value g, ValueRange it) {
        ImplicitLocOpBuilder lb(loc, ob);
        Value h = arith::AddIOp::create(lb, first, g);
        Value t = loadTile(lb, from, {rows, p.d}, p.et,
                           ValueRange{pr.bi, h, pr.start, c0});
        Value tf = arith::ExtFOp::create(
            lb, tensorOf({rows, p.d}, lb.getF32Type()), t);
        scf::YieldOp::create(lb,
                             ValueRange{arith::AddFOp::create(lb, it[0], tf)});
      });
  StoreOp::create(b, truncTo(b, loop.getResult(0), p.et), to,
                  ValueRange{pr.bi, pr.h, pr.start, c0}, Value());
}

/// Per `rows` keys of a (batch, K/V head): dK and dV, the sums of the
/// per-query-head gradients of the head's group (one after the other, so
/// that one f32 tile is live).
static void emitDkdvSum(ImplicitLocOpBuilder &b, const BackwardProblem &p,
                        int64_t rows) {
  AttentionBackwardOp op = p.op;
  Program pr = emitProgram(b, constI32(b, rows));
  Value group = arith::DivUIOp::create(b, p.hq, p.hk);
  Value first = arith::MulIOp::create(b, pr.h, group);
  emitGroupSum(b, p, rows, pr, first, group, op.getDkExpanded(), op.getDk());
  emitGroupSum(b, p, rows, pr, first, group, op.getDvExpanded(), op.getDv());
}

//===----------------------------------------------------------------------===//
// Expansion
//===----------------------------------------------------------------------===//

static BackwardProblem getProblem(ImplicitLocOpBuilder &b,
                                  AttentionBackwardOp op) {
  BackwardProblem p;
  p.op = op;
  p.et = op.getQ().getType().getElementType();
  p.d = op.getQ().getType().getShape()[3];
  p.causal = op.getCausal();
  p.batch = getViewSize(b, op.getQ(), 0);
  p.hq = getViewSize(b, op.getQ(), 1);
  p.sq = getViewSize(b, op.getQ(), 2);
  p.hk = getViewSize(b, op.getK(), 1);
  p.sk = getViewSize(b, op.getK(), 2);
  if (Value given = op.getScale()) {
    p.smScale = given;
    p.qkScale = arith::MulFOp::create(
        b, given, arith::ConstantOp::create(b, b.getF32FloatAttr(M_LOG2E)));
  } else {
    double scale = 1.0 / std::sqrt(static_cast<double>(p.d));
    p.smScale = arith::ConstantOp::create(b, b.getF32FloatAttr(scale));
    p.qkScale =
        arith::ConstantOp::create(b, b.getF32FloatAttr(scale * M_LOG2E));
  }
  return p;
}

/// The launch grid: (ceildiv(rows, block), heads, B) programs of `warps`
/// warps.
static LogicalResult setGrid(KernelOp kernel, const BackwardProblem &p,
                             Value rows, int64_t block, int64_t warps,
                             Value heads) {
  SmallVector<int64_t> params;
  FailureOr<AffineExpr> rowsExpr = getParamExpr(rows, kernel, params);
  FailureOr<AffineExpr> hqExpr = getParamExpr(heads, kernel, params);
  FailureOr<AffineExpr> bExpr = getParamExpr(p.batch, kernel, params);
  if (failed(rowsExpr) || failed(hqExpr) || failed(bExpr))
    return AttentionBackwardOp(p.op).emitOpError(
        "Q's batch, heads and both sequence lengths must "
        "be kernel parameters or constants (they define "
        "the launch grids)");
  kernel.setGridRule(AffineMap::get(0, params.size(),
                                    {rowsExpr->ceilDiv(block), *hqExpr, *bExpr},
                                    kernel.getContext()),
                     params);
  kernel.setNumWarps(warps);
  return success();
}

/// Records the alignment the stage's copies assume on the views it uses:
/// 16-byte chunks of the tiles (cp.async, TMA), 16-byte aligned rows.
static void requireAlignment(KernelOp kernel, ArrayRef<Value> tiles,
                             ArrayRef<Value> rows) {
  for (Value view : tiles)
    requireChunkAligned(kernel, view);
  for (Value view : rows)
    requireParam(kernel, view.getDefiningOp<MakeViewOp>().getBase(),
                 tile::kAlignAttr, 16);
}

LogicalResult expand::expandAttentionBackward(AttentionBackwardOp op,
                                              KernelOp kernel,
                                              const TargetInfo &target) {
  std::optional<AttentionBackwardStage> stage = op.getStage();
  if (!stage)
    return op.emitOpError(
        "needs a stage to be expanded: the backward is several kernels "
        "(tile-split-stages makes one per stage)");
  if (failed(checkOnlyComputation(kernel, op)))
    return failure();
  FailureOr<AttentionBackwardTiles> tiles =
      getAttentionBackwardTiles(op, target);
  if (failed(tiles))
    return failure();
  const AttentionBackwardTiles &t = *tiles;
  ImplicitLocOpBuilder b(op.getLoc(), op);
  BackwardProblem p = getProblem(b, op);
  Value q = op.getQ(), k = op.getK(), v = op.getV(), o = op.getO(),
        dout = op.getDout(), lse2 = op.getLse2(), delta = op.getDelta(),
        acc = op.getDqAccum();
  LogicalResult grid = success();
  switch (*stage) {
  case AttentionBackwardStage::Pre:
  case AttentionBackwardStage::PreZeroDq: {
    bool zero = *stage == AttentionBackwardStage::PreZeroDq;
    grid = setGrid(kernel, p, p.sq, t.rowM, t.rowWarps, p.hq);
    SmallVector<Value> views{o, dout};
    if (zero)
      views.push_back(acc);
    requireAlignment(kernel, views, {op.getLse(), lse2, delta});
    if (succeeded(grid))
      emitPre(b, p, t, zero);
    break;
  }
  case AttentionBackwardStage::Dq:
    grid = setGrid(kernel, p, p.sq, t.dqM, t.dqWarps, p.hq);
    requireAlignment(kernel, {q, k, v, dout, op.getDq()}, {lse2, delta});
    if (t.shareTiles)
      setShareTiles(kernel);
    if (succeeded(grid))
      emitDq(b, p, t);
    break;
  case AttentionBackwardStage::Dkdv:
  case AttentionBackwardStage::DkdvDq: {
    bool atomicDq = *stage == AttentionBackwardStage::DkdvDq;
    grid = setGrid(kernel, p, p.sk, t.dkvN, t.dkvWarps, p.hq);
    SmallVector<Value> views{
        q, k, v, dout, op.getDkPerQueryHead(), op.getDvPerQueryHead()};
    if (atomicDq)
      views.push_back(acc);
    requireAlignment(kernel, views, {lse2, delta});
    if (t.dkvConsumerRegs)
      setRegisterBudgets(kernel, t.dkvProducerRegs, t.dkvConsumerRegs);
    if (t.shareTiles)
      setShareTiles(kernel);
    if (succeeded(grid))
      emitDkdv(b, p, t, atomicDq);
    break;
  }
  case AttentionBackwardStage::DkdvSum:
    grid = setGrid(kernel, p, p.sk, t.sumN, t.rowWarps, p.hk);
    requireAlignment(
        kernel,
        {op.getDk(), op.getDv(), op.getDkExpanded(), op.getDvExpanded()}, {});
    if (succeeded(grid))
      emitDkdvSum(b, p, t.sumN);
    break;
  case AttentionBackwardStage::DqScale:
    grid = setGrid(kernel, p, p.sq, t.rowM, t.rowWarps, p.hq);
    requireAlignment(kernel, {acc, op.getDq()}, {});
    if (succeeded(grid))
      emitDqScale(b, p, t);
    break;
  }
  if (failed(grid))
    return failure();
  op.erase();
  return success();
}
