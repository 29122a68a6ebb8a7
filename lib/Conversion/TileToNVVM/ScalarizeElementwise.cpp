//===- ScalarizeElementwise.cpp - Element-major scalar arithmetic ---------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-scalarize-elementwise (see Passes.td). Example:
//
//   %t = arith.mulf %x, %c : vector<128xf32>      t0 = x0 * c0; e0 = erf(t0)
//   %e = math.erf %t : vector<128xf32>       =>   t1 = x1 * c1; e1 = erf(t1)
//                                                 ...
//
// NVPTX keeps IR order through instruction selection and ptxas does not
// reorder enough to repair a vector-major order in register-bound kernels.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tilec {
#define GEN_PASS_DEF_TILESCALARIZEELEMENTWISE
#include "tilec/Conversion/Passes.h.inc"
} // namespace mlir::tilec

using namespace mlir;
using namespace mlir::tilec;

/// An f32 -> bf16/f16 truncation: converted in pairs (`cvt.rn.bf16x2.f32`,
/// one instruction for two elements; NVPTX selects it for a two-element
/// vector fptrunc, not for two scalar ones).
static bool isPairTruncation(Operation *op) {
  auto trunc = dyn_cast<arith::TruncFOp>(op);
  if (!trunc)
    return false;
  auto src = dyn_cast<VectorType>(trunc.getIn().getType());
  auto dst = dyn_cast<VectorType>(trunc.getType());
  return src && dst && src.getElementType().isF32() &&
         (dst.getElementType().isBF16() || dst.getElementType().isF16()) &&
         src.getRank() == 1 && src.getNumElements() % 2 == 0 &&
         !trunc.getRoundingmodeAttr();
}

static bool isScalarizable(Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumRegions() != 0 ||
      op->getNumResults() != 1)
    return false;
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return false;
  auto type = dyn_cast<VectorType>(op->getResult(0).getType());
  if (isPairTruncation(op) && type.getNumElements() == 2)
    return false; // already a pair
  return type && type.getRank() == 1 && !type.isScalable();
}

namespace {

/// An elementwise op on vectors becomes one scalar op per element.
struct ScalarizeElementwiseOp : public RewritePattern {
  ScalarizeElementwiseOp(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isScalarizable(op))
      return failure();
    auto type = cast<VectorType>(op->getResult(0).getType());
    Location loc = op->getLoc();
    SmallVector<Value> parts;
    if (isPairTruncation(op)) {
      Value in = op->getOperand(0);
      auto pairIn = VectorType::get({2}, rewriter.getF32Type());
      auto pairOut = VectorType::get({2}, type.getElementType());
      for (int64_t i = 0; i < type.getNumElements(); i += 2) {
        Value pair = vector::FromElementsOp::create(
            rewriter, loc, pairIn,
            ValueRange{vector::ExtractOp::create(rewriter, loc, in, i),
                       vector::ExtractOp::create(rewriter, loc, in, i + 1)});
        Value t = arith::TruncFOp::create(rewriter, loc, pairOut, pair);
        parts.push_back(vector::ExtractOp::create(rewriter, loc, t, 0));
        parts.push_back(vector::ExtractOp::create(rewriter, loc, t, 1));
      }
      rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, type, parts);
      return success();
    }
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(isa<VectorType>(v.getType())
                               ? vector::ExtractOp::create(rewriter, loc, v, i)
                                     .getResult()
                               : v);
      OperationState state(loc, op->getName().getStringRef(), operands,
                           TypeRange{type.getElementType()}, op->getAttrs());
      parts.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, type, parts);
    return success();
  }
};

/// vector.shuffle of vector.from_elements -> vector.from_elements.
struct ShuffleOfFromElements : public OpRewritePattern<vector::ShuffleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ShuffleOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = op.getV1().getDefiningOp<vector::FromElementsOp>();
    auto rhs = op.getV2().getDefiningOp<vector::FromElementsOp>();
    if (!lhs || !rhs || op.getV1().getType().getRank() != 1)
      return failure();
    int64_t n = lhs.getElements().size();
    SmallVector<Value> parts;
    for (int64_t m : op.getMask())
      parts.push_back(m < n ? lhs.getElements()[m] : rhs.getElements()[m - n]);
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, op.getResultVectorType(), parts);
    return success();
  }
};

struct TileScalarizeElementwisePass
    : public tilec::impl::TileScalarizeElementwiseBase<
          TileScalarizeElementwisePass> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

/// Blocks with more operations keep their order (the limit once bounded an
/// O(ops^2) schedule, 100 s for a 64x1024-element loop body, a fuzzed input;
/// the schedule is linear now, and the limit stays so that such blocks keep
/// the code they had). The kernels tilec ships stay far below.
static constexpr size_t kMaxScheduledOps = 16384;

namespace {
/// Positions of a block's operations as they move, so that comparing two of
/// them costs a lookup. Operation::isBeforeInBlock would renumber the whole
/// block after each move (MLIR invalidates a block's order when an operation
/// moves in it), which made the schedule quadratic in the block's size.
/// Labels are spaced apart; an operation moved between two neighbours takes
/// the label halfway, and the block is relabelled when no gap is left.
class BlockOrder {
public:
  explicit BlockOrder(Block &block) : block(block) { relabel(); }

  /// Whether `a` is before `b`; both are in the block.
  bool isBefore(Operation *a, Operation *b) const {
    return labels.lookup(a) < labels.lookup(b);
  }

  /// Moves `op` right after `after` (both in the block) and labels it.
  void moveAfter(Operation *op, Operation *after) {
    if (after->getNextNode() == op)
      return;
    op->moveAfter(after);
    uint64_t lo = labels.lookup(after);
    Operation *next = op->getNextNode();
    uint64_t hi = next ? labels.lookup(next) : lo + 2 * kStride;
    if (hi - lo > 1) {
      labels[op] = lo + (hi - lo) / 2;
      return;
    }
    relabel();
  }

private:
  static constexpr uint64_t kStride = uint64_t(1) << 32;

  void relabel() {
    uint64_t label = kStride;
    for (Operation &op : block) {
      labels[&op] = label;
      label += kStride;
    }
  }

  Block &block;
  llvm::DenseMap<Operation *, uint64_t> labels;
};
} // namespace

/// Moves each pure scalar arith/math/vector.extract op of `block` right after
/// the last definition of its operands in the block.
static void scheduleElementMajor(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  if (ops.size() > kMaxScheduledOps)
    return;
  BlockOrder order(block);
  for (Operation *op : ops) {
    if (!isPure(op) || op->getNumRegions() != 0 || op->getNumOperands() == 0)
      continue;
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
        !isa<vector::ExtractOp>(op))
      continue;
    if (llvm::any_of(op->getResultTypes(),
                     [](Type t) { return isa<VectorType>(t); }))
      continue;
    Operation *last = nullptr;
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != &block)
        continue;
      if (!last || order.isBefore(last, def))
        last = def;
    }
    if (last && last != op && order.isBefore(last, op))
      order.moveAfter(op, last);
  }
}

void TileScalarizeElementwisePass::runOnOperation() {
  MLIRContext *ctx = &getContext();
  RewritePatternSet patterns(ctx);
  patterns.add<ScalarizeElementwiseOp, ShuffleOfFromElements>(ctx);
  vector::ExtractOp::getCanonicalizationPatterns(patterns, ctx);
  vector::FromElementsOp::getCanonicalizationPatterns(patterns, ctx);
  if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
    return signalPassFailure();
  getOperation().walk([](Block *block) { scheduleElementMajor(*block); });
}
