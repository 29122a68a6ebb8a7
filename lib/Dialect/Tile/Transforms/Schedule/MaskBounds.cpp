//===- MaskBounds.cpp - Index masks applied only where they mask ----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-mask-bounds. A user's attention loop masks
// every key block the way a first version does,
//
//   kj = n + range(0, BN)                  (the block's keys)
//   keep = kj < S & kj <= qi               (sequence end, causal diagonal)
//   s = select(keep, s, -inf)
//
// although the mask only masks the last blocks. The pass computes, for each
// select of a loop on a mask of index comparisons, the iterations in which
// the mask holds for every element, as bounds on the induction variable
// computed before the loop:
//
//   s = scf.if (n < B) { s } else { select(keep, s, -inf) }
//
// (with a second, nested bound `n >= A` for masks that also cut the first
// blocks: a sliding window). tile-split-loops then runs the iterations
// before B in a loop without the mask, as the named attention's expansion
// does for its own masks.
//
// Ranges. Every i32 tile of the mask is an interval c * n + x + [lo, hi]
// with c in {-1, 0, 1}, x a scalar defined before the loop (or none) and
// lo, hi constants: tile.range gives [start, end - 1], a splat of n, of a
// value defined before the loop or of their sum gives one point, addi and
// subi add the intervals, expand_dims, broadcast and convert_layout keep
// them. A comparison holds everywhere when its sides' intervals are apart
// (a < b: a's top below b's bottom), a condition c * n < X on n; `and`
// takes both conditions, `or` either (the larger bound). The bounds are
// computed in i64, so they are exact; the program computes its tiles in
// i32, so the pass also requires, before the loop, that no tile of the mask
// wraps for any n in [lb, ub) (where one might, the fast iterations are
// none).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEMASKBOUNDS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kMaskBoundsPass = "tile-mask-bounds";
static constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
static constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();

namespace {
/// The elements of an i32 tile in one iteration: c * iv + x + [lo, hi],
/// with x an i64 value defined before the loop (null: 0).
struct Interval {
  int64_t c = 0;
  Value x;
  int64_t lo = 0, hi = 0;
};

/// Where a mask's index comparisons hold for every element: ge <= iv < lt
/// (i64 values defined before the loop; null: no such bound). `rest`: the
/// terms of the mask's conjunction that are not comparisons of indices (a
/// document id compared with `==`, a loaded mask); there the mask is their
/// `and` alone.
struct FastRange {
  Value lt, ge;
  SmallVector<Value> rest;
};

/// Builds the intervals and bounds of one loop's masks before the loop.
class MaskAnalysis {
public:
  MaskAnalysis(scf::ForOp loop)
      : loop(loop), b(loop), loc(loop.getLoc()), iv(loop.getInductionVar()) {}

  /// Where `mask` (an i1 tile of the loop body) holds everywhere; failure
  /// with the op it cannot follow in `why`.
  FailureOr<FastRange> getAllTrue(Value mask, std::string &why);

  /// Whether no i32 tile of the masks analyzed wraps, for every iteration
  /// (an i1 value before the loop; null when nothing could wrap).
  Value getNoWrap() const { return noWrap; }

  /// `v` (i64) clamped to i32 and truncated: the same bound for an i32
  /// induction variable.
  Value toI32(Value v) {
    Value clamped = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, v, i64(kI32Min)), i64(kI32Max));
    return arith::TruncIOp::create(b, loc, b.getI32Type(), clamped);
  }

  /// Folds `ok` (i1) into `r`: where it is false, no iteration is fast.
  FastRange restrict(FastRange r, Value ok) {
    if (!ok)
      return r;
    if (!r.lt && !r.ge)
      r.lt = i64(std::numeric_limits<int64_t>::max());
    if (r.lt)
      r.lt = arith::SelectOp::create(b, loc, ok, r.lt, i64(kI32Min));
    else
      r.ge = arith::SelectOp::create(b, loc, ok, r.ge, i64(kI32Max));
    return r;
  }

private:
  FailureOr<Interval> getInterval(Value v, std::string &why);
  FailureOr<Interval> getScalar(Value v, std::string &why);
  FailureOr<FastRange> getCompare(arith::CmpIOp cmp, std::string &why);
  FailureOr<FastRange> getConjunction(arith::AndIOp both, std::string &why);
  /// The smaller (`takeMin`) or larger of two bounds; either when the other
  /// is null.
  Value combine(Value x, Value y, bool takeMin) {
    if (!x || !y)
      return x ? x : y;
    return takeMin ? Value(arith::MinSIOp::create(b, loc, x, y))
                   : Value(arith::MaxSIOp::create(b, loc, x, y));
  }
  FailureOr<Interval> getSumOrDifference(Operation *def, const Interval &l,
                                         const Interval &r, std::string &why);
  Value i64(int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 64);
  }
  Value add(Value x, Value y) {
    if (!x)
      return y;
    if (!y)
      return x;
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value neg(Value x) {
    return x ? arith::SubIOp::create(b, loc, i64(0), x) : x;
  }
  /// x + k as an i64 value (k alone when x is null).
  Value plus(Value x, int64_t k) { return k == 0 && x ? x : add(x, i64(k)); }
  void requireNoWrap(const Interval &in);
  Value andOk(Value x, Value y) {
    return !x ? y : !y ? x : arith::AndIOp::create(b, loc, x, y);
  }

  scf::ForOp loop;
  OpBuilder b;
  Location loc;
  Value iv;
  Value noWrap;
  DenseMap<Value, Interval> intervals;
};
} // namespace

/// A scalar i32 value as an interval of one point: the induction variable,
/// a value defined before the loop, or their sum or difference.
FailureOr<Interval> MaskAnalysis::getScalar(Value v, std::string &why) {
  if (v == iv)
    return Interval{1, Value(), 0, 0};
  if (loop.isDefinedOutsideOfLoop(v)) {
    if (auto cst = getConstantIntValue(v))
      return Interval{0, Value(), *cst, *cst};
    return Interval{0, arith::ExtSIOp::create(b, loc, b.getI64Type(), v), 0, 0};
  }
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def)) {
    FailureOr<Interval> l = getScalar(def->getOperand(0), why);
    FailureOr<Interval> r = failed(l) ? l : getScalar(def->getOperand(1), why);
    if (failed(r))
      return failure();
    return getSumOrDifference(def, *l, *r, why);
  }
  why = def ? ("'" + def->getName().getStringRef() + "'").str()
            : std::string("a value the loop carries");
  return failure();
}

FailureOr<Interval> MaskAnalysis::getInterval(Value v, std::string &why) {
  auto found = intervals.find(v);
  if (found != intervals.end())
    return found->second;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.getElementType().isInteger(32)) {
    why = "a tile that is not i32";
    return failure();
  }
  Operation *def = v.getDefiningOp();
  FailureOr<Interval> out = failure();
  DenseIntElementsAttr dense;
  if (auto range = dyn_cast_or_null<RangeOp>(def)) {
    out = Interval{0, Value(), range.getStart(), range.getEnd() - 1};
  } else if (def && matchPattern(def, m_Constant(&dense)) && dense.isSplat()) {
    int64_t k = dense.getSplatValue<APInt>().getSExtValue();
    out = Interval{0, Value(), k, k};
  } else if (auto splat = dyn_cast_or_null<SplatOp>(def)) {
    out = getScalar(splat.getValue(), why);
  } else if (isa_and_nonnull<ExpandDimsOp, BroadcastOp, ConvertLayoutOp>(def)) {
    out = getInterval(def->getOperand(0), why);
  } else if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def)) {
    FailureOr<Interval> l = getInterval(def->getOperand(0), why);
    FailureOr<Interval> r =
        failed(l) ? l : getInterval(def->getOperand(1), why);
    if (failed(r))
      return failure();
    out = getSumOrDifference(def, *l, *r, why);
  } else {
    why = def ? ("'" + def->getName().getStringRef() + "'").str()
              : std::string("a tile the loop carries");
  }
  if (succeeded(out))
    intervals[v] = *out;
  return out;
}

/// The interval of `def` (an arith.addi or arith.subi, of scalars or of
/// tiles) from its operands' intervals; failure when iv's coefficient leaves
/// {-1, 0, 1}. The program computes it in i32: its no-wrap check joins the
/// loop's.
FailureOr<Interval> MaskAnalysis::getSumOrDifference(Operation *def,
                                                     const Interval &l,
                                                     const Interval &r,
                                                     std::string &why) {
  Interval out =
      isa<arith::SubIOp>(def)
          ? Interval{l.c - r.c, add(l.x, neg(r.x)), l.lo - r.hi, l.hi - r.lo}
          : Interval{l.c + r.c, add(l.x, r.x), l.lo + r.lo, l.hi + r.hi};
  if (out.c < -1 || out.c > 1) {
    why = "an index scaled by 2";
    return failure();
  }
  requireNoWrap(out);
  return out;
}

/// Requires, before the loop, that the tile `in` describes stays within
/// i32 for every iteration: iv in [lb, ub - 1] (checked at both ends, as
/// the interval is monotonic in iv).
void MaskAnalysis::requireNoWrap(const Interval &in) {
  auto within = [&](Value at) {
    Value lo = add(at, plus(in.x, in.lo));
    Value hi = add(at, plus(in.x, in.hi));
    Value geMin = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, lo,
                                        i64(kI32Min));
    Value leMax = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, hi,
                                        i64(kI32Max));
    return arith::AndIOp::create(b, loc, geMin, leMax);
  };
  if (in.c == 0) {
    if (!in.x)
      return; // constants: checked here
    noWrap = andOk(noWrap, within(Value()));
    return;
  }
  auto ivAt = [&](Value bound, int64_t offset) {
    Value wide = arith::ExtSIOp::create(b, loc, b.getI64Type(), bound);
    if (offset)
      wide = arith::AddIOp::create(b, loc, wide, i64(offset));
    return in.c > 0 ? wide : neg(wide);
  };
  noWrap = andOk(noWrap, within(ivAt(loop.getLowerBound(), 0)));
  noWrap = andOk(noWrap, within(ivAt(loop.getUpperBound(), -1)));
}

/// Where `a OP b` holds for every element pair: the largest of a below the
/// smallest of b (slt, sle; sgt and sge swap the sides).
FailureOr<FastRange> MaskAnalysis::getCompare(arith::CmpIOp cmp,
                                              std::string &why) {
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  bool strict;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::slt:
    strict = true;
    break;
  case arith::CmpIPredicate::sle:
    strict = false;
    break;
  case arith::CmpIPredicate::sgt:
    strict = true;
    std::swap(lhs, rhs);
    break;
  case arith::CmpIPredicate::sge:
    strict = false;
    std::swap(lhs, rhs);
    break;
  default:
    why = "a comparison other than <, <=, >, >= (signed)";
    return failure();
  }
  FailureOr<Interval> a = getInterval(lhs, why);
  FailureOr<Interval> c = failed(a) ? a : getInterval(rhs, why);
  if (failed(c))
    return failure();
  // a.c iv + a.x + a.hi < c.c iv + c.x + c.lo (+1 when not strict):
  // k iv < X with k = a.c - c.c and X = c.x - a.x + c.lo - a.hi (+ 1).
  int64_t k = a->c - c->c;
  Value bound = plus(add(c->x, neg(a->x)), c->lo - a->hi + (strict ? 0 : 1));
  if (k == 1)
    return FastRange{bound, Value(), {}};
  if (k == -1) // -iv < X: iv >= 1 - X
    return FastRange{Value(), plus(neg(bound), 1), {}};
  if (k == 0) { // 0 < X, the same in every iteration
    Value holds =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, bound, i64(0));
    return restrict(FastRange{}, holds);
  }
  why = "an index scaled by 2";
  return failure();
}

FailureOr<FastRange> MaskAnalysis::getAllTrue(Value mask, std::string &why) {
  Operation *def = mask.getDefiningOp();
  if (isa_and_nonnull<ExpandDimsOp, BroadcastOp, ConvertLayoutOp>(def)) {
    FailureOr<FastRange> inner = getAllTrue(def->getOperand(0), why);
    if (succeeded(inner) && !inner->rest.empty()) {
      why = "a reshaped mask whose terms are not all comparisons of indices";
      return failure();
    }
    return inner;
  }
  if (auto cmp = dyn_cast_or_null<arith::CmpIOp>(def))
    return getCompare(cmp, why);
  if (auto both = dyn_cast_or_null<arith::AndIOp>(def))
    return getConjunction(both, why);
  if (!isa_and_nonnull<arith::OrIOp>(def)) {
    why = def ? ("'" + def->getName().getStringRef() + "'").str()
              : std::string("a mask the loop carries");
    return failure();
  }
  FailureOr<FastRange> l = getAllTrue(def->getOperand(0), why);
  FailureOr<FastRange> r = failed(l) ? l : getAllTrue(def->getOperand(1), why);
  if (failed(r))
    return failure();
  if (!l->rest.empty() || !r->rest.empty()) {
    why = "an 'arith.ori' of terms that are not all comparisons of indices";
    return failure();
  }
  // Either: the looser bound where both have only one kind of bound;
  // otherwise one side's range (which implies the or).
  if (!l->ge && !r->ge)
    return FastRange{combine(l->lt, r->lt, false), Value(), {}};
  if (!l->lt && !r->lt)
    return FastRange{Value(), combine(l->ge, r->ge, true), {}};
  return *l;
}

/// Both terms: the tighter of each bound. A term the analysis cannot follow
/// (not a comparison of indices) stays in `rest`, applied where the other
/// term's comparisons hold; failure when neither term has bounds.
FailureOr<FastRange> MaskAnalysis::getConjunction(arith::AndIOp both,
                                                  std::string &why) {
  std::string rightWhy;
  FailureOr<FastRange> l = getAllTrue(both.getLhs(), why);
  FailureOr<FastRange> r = getAllTrue(both.getRhs(), rightWhy);
  if (failed(l) && failed(r))
    return failure();
  if (failed(l) || failed(r)) {
    FastRange out = succeeded(l) ? *l : *r;
    out.rest.push_back(succeeded(l) ? both.getRhs() : both.getLhs());
    return out;
  }
  FastRange out{combine(l->lt, r->lt, true), combine(l->ge, r->ge, false),
                l->rest};
  llvm::append_range(out.rest, r->rest);
  return out;
}

/// The select's mask, if it depends on the loop's induction variable (a
/// select the pass has reason to look at).
static bool dependsOnInductionVar(Value mask, scf::ForOp loop) {
  SmallVector<Value> work = {mask};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == loop.getInductionVar())
      return true;
    if (!seen.insert(v).second || loop.isDefinedOutsideOfLoop(v))
      continue;
    if (Operation *def = v.getDefiningOp())
      llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// The comparisons of the induction variable with a mask's bounds (null
/// where the bound is), shared by the selects on that mask so that
/// tile-split-loops splits once for them all.
struct Guard {
  Value lt, ge;
};

/// The comparisons `iv < lt` and `iv >= ge` at `at`, marked for
/// tile-split-loops.
static Guard createGuard(Operation *at, scf::ForOp loop, Value lt, Value ge) {
  assert((lt || ge) && "an analyzed mask has a bound");
  OpBuilder b(at);
  Value iv = loop.getInductionVar();
  auto compare = [&](arith::CmpIPredicate pred, Value bound) -> Value {
    if (!bound)
      return Value();
    auto cmp = arith::CmpIOp::create(b, at->getLoc(), pred, iv, bound);
    cmp->setAttr(kMaskBoundAttr, b.getUnitAttr());
    return cmp;
  };
  return {compare(arith::CmpIPredicate::slt, lt),
          compare(arith::CmpIPredicate::sge, ge)};
}

/// `select` as `scf.if (iv < lt) { scf.if (iv >= ge) { t } else { sel } }
/// else { sel }` (one level where one comparison is null), with `t` the
/// select's true value and `sel` the select itself; where the mask has
/// terms other than index comparisons (`rest`), `t` is the select on their
/// `and`.
static void branchAround(arith::SelectOp select, Guard guard,
                         ArrayRef<Value> rest) {
  IRRewriter rewriter(select);
  Location loc = select.getLoc();
  auto masked = [&](OpBuilder &b, Location l) {
    scf::YieldOp::create(b, l, b.clone(*select)->getResult(0));
  };
  auto fast = [&](OpBuilder &b, Location l) {
    if (rest.empty()) {
      scf::YieldOp::create(b, l, select.getTrueValue());
      return;
    }
    Value mask = rest.front();
    for (Value term : rest.drop_front())
      mask = arith::AndIOp::create(b, l, mask, term);
    scf::YieldOp::create(b, l,
                         arith::SelectOp::create(b, l, mask,
                                                 select.getTrueValue(),
                                                 select.getFalseValue())
                             .getResult());
  };
  auto branch = [&](OpBuilder &b, Value cond, auto then) {
    return scf::IfOp::create(b, loc, cond, then, masked).getResult(0);
  };
  Value result;
  if (guard.lt && guard.ge)
    result = branch(rewriter, guard.lt, [&](OpBuilder &b, Location l) {
      scf::YieldOp::create(b, l, branch(b, guard.ge, fast));
    });
  else
    result = branch(rewriter, guard.lt ? guard.lt : guard.ge, fast);
  rewriter.replaceOp(select, result);
}

namespace {
struct TileMaskBoundsPass : tile::impl::TileMaskBoundsBase<TileMaskBoundsPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// Branches around the selects of `loop` (directly in its body) whose masks
/// the analysis bounds.
static void boundLoopMasks(scf::ForOp loop) {
  if (!loop.getInductionVar().getType().isInteger(32) ||
      loop->hasAttr(kMasksBoundedAttr))
    return;
  SmallVector<arith::SelectOp> selects;
  for (auto select : loop.getBody()->getOps<arith::SelectOp>())
    if (isa<RankedTensorType>(select.getCondition().getType()) &&
        dependsOnInductionVar(select.getCondition(), loop))
      selects.push_back(select);
  if (selects.empty())
    return;
  MaskAnalysis analysis(loop);
  // Per mask, analyzed once: its guard, or why it has none.
  struct Analyzed {
    std::optional<Guard> guard;
    SmallVector<Value> rest;
    std::string why;
  };
  DenseMap<Value, Analyzed> masks;
  for (arith::SelectOp select : selects) {
    Value mask = select.getCondition();
    auto known = masks.find(mask);
    if (known == masks.end()) {
      Analyzed a;
      FailureOr<FastRange> range = analysis.getAllTrue(mask, a.why);
      if (succeeded(range)) {
        FastRange r = analysis.restrict(*range, analysis.getNoWrap());
        a.guard =
            createGuard(select, loop, r.lt ? analysis.toI32(r.lt) : Value(),
                        r.ge ? analysis.toI32(r.ge) : Value());
        a.rest = std::move(r.rest);
      }
      known = masks.try_emplace(mask, std::move(a)).first;
    }
    if (!known->second.guard) {
      remarkMissed(select, kMaskBoundsPass, "NotBounded",
                   "this mask is applied in every iteration: it is computed "
                   "by " +
                       known->second.why + ", not by comparisons of indices");
      continue;
    }
    Guard guard = *known->second.guard;
    ArrayRef<Value> rest = known->second.rest;
    std::string kept = rest.empty()
                           ? std::string("the select is skipped")
                           : "the select applies only the mask's " +
                                 std::to_string(rest.size()) +
                                 (rest.size() == 1 ? " term that is not"
                                                   : " terms that are not") +
                                 " a comparison of indices";
    remarkPassed(select, kMaskBoundsPass, "Bounded",
                 Twine(rest.empty() ? "the mask holds everywhere"
                                    : "the mask's index comparisons hold "
                                      "everywhere") +
                     " in the iterations " +
                     (guard.lt && guard.ge ? "between two bounds"
                      : guard.lt           ? "before a bound"
                                           : "from a bound on") +
                     " computed before the loop; there " + kept +
                     ", and tile-split-loops runs them in their own loop");
    branchAround(select, guard, rest);
  }
}

void TileMaskBoundsPass::runOnOperation() {
  ScheduleAttr schedule = getOperation().getScheduleAttr();
  if (schedule && !ScheduleAttr::flag(schedule.getSplitLoops(), true))
    return;
  SmallVector<scf::ForOp> loops;
  getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    boundLoopMasks(loop);
}
