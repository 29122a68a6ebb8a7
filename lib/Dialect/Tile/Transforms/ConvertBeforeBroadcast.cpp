//===- ConvertBeforeBroadcast.cpp - Index conversions on unbroadcast tiles ===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-convert-before-broadcast. An attention variant
// that biases its scores by the distance of key and query (ALiBi, relative
// positions) converts that distance per element, as it reads:
//
//   rel = broadcast(kj) - broadcast(qi)        (a 128 x 64 i32 tile)
//   relf = sitofp(rel)                         (8192 conversions)
//
// On NVIDIA GPUs an int-to-float conversion runs on the same quarter-rate
// unit as the softmax's ex2, so this doubles the loop's load on it. The
// pass converts the operands before they are broadcast,
//
//   relf = broadcast(sitofp(kj)) - broadcast(sitofp(qi))   (192 conversions)
//
// which is exact when both operands are exactly representable in the float
// type (|v| <= 2^24 for f32): the float subtraction then rounds the exact
// difference once, as the conversion does. The operands' ranges come from
// their index arithmetic (tile.range, splats, addi, subi), x + [lo, hi]
// with x a scalar; where x is not a constant the rewrite sits behind a
// run-time test of the range, with the conversion as written in the other
// branch. A conversion of a broadcast tile alone is always exact and is
// moved before the broadcast unconditionally.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILECONVERTBEFOREBROADCAST
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kPassName = "tile-convert-before-broadcast";

/// The elements of a tile, 1 for a scalar.
static int64_t countElements(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? type.getNumElements() : 1;
}

namespace {
/// The shape ops (tile.splat of a scalar, expand_dims, broadcast) that make
/// a tile from a smaller `source` (a tile, or the scalar of a splat), the
/// innermost first.
struct Chain {
  Value source;
  SmallVector<Operation *> shapeOps;
};

/// The values of an integer tile or scalar: x + [lo, hi], with x an i64
/// scalar (null: 0).
struct IndexRange {
  Value x;
  int64_t lo = 0, hi = 0;
};

/// Computes ranges with scalar code inserted before one conversion; the
/// code of an attempt that fails is erased with `discard`.
class RangeBuilder : public OpBuilder::Listener {
public:
  explicit RangeBuilder(Operation *at) : b(at, this), loc(at->getLoc()) {}

  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    created.push_back(op);
  }
  void discard() {
    for (Operation *op : llvm::reverse(created))
      op->erase();
    created.clear();
  }

  FailureOr<IndexRange> get(Value v, std::string &why);

  /// Whether every value of `r` lies in [-limit, limit]: an i1 scalar, or
  /// a constant (std::nullopt where it is not known before run time).
  Value inside(const IndexRange &r, int64_t limit, std::optional<bool> &known);

  OpBuilder b;
  Location loc;

private:
  SmallVector<Operation *> created;
  Value i64(int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 64);
  }
};
} // namespace

static Chain peel(Value v) {
  Chain chain;
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<ExpandDimsOp, BroadcastOp, SplatOp>(def))
      break;
    chain.shapeOps.push_back(def);
    v = def->getOperand(0);
    if (isa<SplatOp>(def))
      break;
  }
  std::reverse(chain.shapeOps.begin(), chain.shapeOps.end());
  chain.source = v;
  return chain;
}

FailureOr<IndexRange> RangeBuilder::get(Value v, std::string &why) {
  if (std::optional<int64_t> k = getConstantIntValue(v))
    return IndexRange{Value(), *k, *k};
  if (!isa<RankedTensorType>(v.getType())) {
    // i64 bounds hold i32 values and their sums exactly, not wider ones.
    auto type = dyn_cast<IntegerType>(v.getType());
    if (!type || type.getWidth() > 32) {
      why = "a scalar that is not an integer of at most 32 bits";
      return failure();
    }
    return IndexRange{arith::ExtSIOp::create(b, loc, b.getI64Type(), v), 0, 0};
  }
  Operation *def = v.getDefiningOp();
  DenseIntElementsAttr dense;
  if (auto range = dyn_cast_or_null<RangeOp>(def))
    return IndexRange{Value(), range.getStart(), range.getEnd() - 1};
  if (def && matchPattern(def, m_Constant(&dense)) && dense.isSplat()) {
    int64_t k = dense.getSplatValue<APInt>().getSExtValue();
    return IndexRange{Value(), k, k};
  }
  if (isa_and_nonnull<SplatOp, ExpandDimsOp, BroadcastOp, ConvertLayoutOp>(def))
    return get(def->getOperand(0), why);
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def)) {
    why = def ? ("'" + def->getName().getStringRef() + "'").str()
              : std::string("a value carried by a loop or a region");
    return failure();
  }
  FailureOr<IndexRange> l = get(def->getOperand(0), why);
  FailureOr<IndexRange> r = failed(l) ? l : get(def->getOperand(1), why);
  if (failed(r))
    return failure();
  auto combine = [&](Value x, Value y, bool sub) -> Value {
    if (!y)
      return x;
    if (sub)
      y = arith::SubIOp::create(b, loc, i64(0), y);
    return x ? Value(arith::AddIOp::create(b, loc, x, y)) : y;
  };
  if (isa<arith::SubIOp>(def))
    return IndexRange{combine(l->x, r->x, true), l->lo - r->hi, l->hi - r->lo};
  return IndexRange{combine(l->x, r->x, false), l->lo + r->lo, l->hi + r->hi};
}

Value RangeBuilder::inside(const IndexRange &r, int64_t limit,
                           std::optional<bool> &known) {
  if (!r.x) {
    known = r.lo >= -limit && r.hi <= limit;
    return Value();
  }
  // The constants of ranges stay far inside i64: index tiles are i32.
  Value lo = arith::AddIOp::create(b, loc, r.x, i64(r.lo));
  Value hi = arith::AddIOp::create(b, loc, r.x, i64(r.hi));
  Value geMin =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, lo, i64(-limit));
  Value leMax =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, hi, i64(limit));
  return arith::AndIOp::create(b, loc, geMin, leMax);
}

/// The chain's tile with float elements: the source converted (sitofp),
/// then the chain's shape ops replayed on it.
static Value replay(OpBuilder &b, Location loc, const Chain &chain,
                    FloatType elem) {
  Type sourceType = chain.source.getType();
  Type floatType = elem;
  if (auto tensor = dyn_cast<RankedTensorType>(sourceType))
    floatType = tensor.clone(elem);
  Value v = arith::SIToFPOp::create(b, loc, floatType, chain.source);
  for (Operation *op : chain.shapeOps) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType()).clone(elem);
    OperationState state(loc, op->getName(), ValueRange{v}, TypeRange{type},
                         op->getAttrs());
    v = b.create(state)->getResult(0);
  }
  return v;
}

/// sitofp(broadcast(x)) -> broadcast(sitofp(x)): always exact.
static bool convertBroadcast(arith::SIToFPOp conv, FloatType elem) {
  Chain chain = peel(conv.getIn());
  if (chain.shapeOps.empty() ||
      countElements(chain.source) >= countElements(conv.getResult()))
    return false;
  OpBuilder b(conv);
  conv.replaceAllUsesWith(replay(b, conv.getLoc(), chain, elem));
  conv.erase();
  return true;
}

/// The conversion of a sum or difference of two broadcast tiles, on the
/// tiles before they are broadcast (behind a range test where the ranges
/// are only known at run time). Failure (with `why` set when worth a
/// remark) where the operands are not such tiles or their ranges unknown.
static LogicalResult convertSumOfBroadcasts(arith::SIToFPOp conv,
                                            FloatType elem, std::string &why) {
  Operation *def = conv.getIn().getDefiningOp();
  auto intType = dyn_cast<IntegerType>(getElementTypeOrSelf(conv.getIn()));
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def) || !intType ||
      intType.getWidth() > 32)
    return failure();
  Chain lhs = peel(def->getOperand(0)), rhs = peel(def->getOperand(1));
  int64_t total = countElements(conv.getResult());
  if (lhs.shapeOps.empty() || rhs.shapeOps.empty() ||
      2 * (countElements(lhs.source) + countElements(rhs.source)) > total)
    return failure();
  RangeBuilder ranges(conv);
  FailureOr<IndexRange> l = ranges.get(lhs.source, why);
  FailureOr<IndexRange> r = failed(l) ? l : ranges.get(rhs.source, why);
  if (failed(r)) {
    why =
        "the range of its operands is unknown (one is computed by " + why + ")";
    ranges.discard();
    return failure();
  }
  // Exactly representable: |v| <= 2^precision (2^24 for f32).
  int64_t limit =
      int64_t(1) << llvm::APFloat::semanticsPrecision(elem.getFloatSemantics());
  std::optional<bool> lKnown, rKnown;
  Value lOk = ranges.inside(*l, limit, lKnown);
  Value rOk = ranges.inside(*r, limit, rKnown);
  if ((lKnown && !*lKnown) || (rKnown && !*rKnown)) {
    why = "its operands' values can exceed what the float type holds exactly";
    ranges.discard();
    return failure();
  }
  Location loc = conv.getLoc();
  bool sub = isa<arith::SubIOp>(def);
  auto fast = [&](OpBuilder &b, Location l) -> Value {
    Value x = replay(b, l, lhs, elem), y = replay(b, l, rhs, elem);
    return sub ? Value(arith::SubFOp::create(b, l, x, y))
               : Value(arith::AddFOp::create(b, l, x, y));
  };
  OpBuilder &b = ranges.b;
  Value cond = !lOk   ? rOk
               : !rOk ? lOk
                      : arith::AndIOp::create(b, loc, lOk, rOk);
  if (!cond) {
    conv.replaceAllUsesWith(fast(b, loc));
    conv.erase();
    return success();
  }
  auto branch = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &tb, Location l) {
        scf::YieldOp::create(tb, l, fast(tb, l));
      },
      [&](OpBuilder &eb, Location l) {
        scf::YieldOp::create(eb, l, eb.clone(*conv)->getResult(0));
      });
  conv.replaceAllUsesWith(branch.getResult(0));
  conv.erase();
  // The integer sum, used by the conversion alone, only where it runs.
  if (def->hasOneUse()) {
    Block *elseBlock = &branch.getElseRegion().front();
    def->moveBefore(&elseBlock->front());
  }
  return success();
}

namespace {
struct TileConvertBeforeBroadcastPass
    : tile::impl::TileConvertBeforeBroadcastBase<
          TileConvertBeforeBroadcastPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileConvertBeforeBroadcastPass::runOnOperation() {
  SmallVector<arith::SIToFPOp> convs;
  getOperation().walk([&](arith::SIToFPOp conv) {
    if (isa<RankedTensorType>(conv.getType()))
      convs.push_back(conv);
  });
  for (arith::SIToFPOp conv : convs) {
    auto elem = cast<FloatType>(getElementTypeOrSelf(conv.getType()));
    int64_t total = countElements(conv.getResult());
    Location loc = conv.getLoc();
    bool inLoop = conv->getParentOfType<scf::ForOp>() != nullptr;
    auto shape = cast<RankedTensorType>(conv.getType()).getShape();
    std::string tile = llvm::join(
        llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }),
        "x");
    std::string why;
    if (convertBroadcast(conv, elem)) {
      remarkPassed(loc, kPassName, "Converted",
                   "the conversion of this " + tile +
                       " tile runs before its broadcast");
      continue;
    }
    if (succeeded(convertSumOfBroadcasts(conv, elem, why))) {
      remarkPassed(loc, kPassName, "Converted",
                   "the conversion of this " + tile +
                       " tile runs on the two tiles whose broadcasts it "
                       "adds, where their values are exact in the float "
                       "type (tested at run time), instead of on its " +
                       std::to_string(total) + " elements");
      continue;
    }
    if (!why.empty() && inLoop)
      remarkMissed(conv, kPassName, "NotConverted",
                   "this " + tile +
                       " int-to-float conversion in a loop runs per element, "
                       "on the unit that also runs exp2: " +
                       why);
  }
}
