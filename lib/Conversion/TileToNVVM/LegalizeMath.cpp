//===- LegalizeMath.cpp - Math ops the NVPTX backend can select -----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-legalize-math. NVPTX has no math library calls,
// so transcendental math ops become the SFU approximations kernels use
// (PTX ISA "Floating Point Instructions": ex2.approx, lg2.approx, tanh.approx,
// rsqrt.approx, sin/cos.approx; relative error around 2^-22) or polynomial
// approximations (erf). Vector operands are unrolled and 16-bit floats
// computed in f32.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"
#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::tilec {
#define GEN_PASS_DEF_TILELEGALIZEMATH
#include "tilec/Conversion/Passes.h.inc"
} // namespace mlir::tilec

using namespace mlir;
using namespace mlir::tilec;

/// The math ops this file rewrites (others go through convert-math-to-llvm).
static bool isApproximated(Operation *op) {
  return isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op,
             math::TanhOp, math::RsqrtOp, math::SinOp, math::CosOp>(op);
}

static Value callIntrinsic(PatternRewriter &b, Location loc, StringRef name,
                           Value x) {
  return LLVM::CallIntrinsicOp::create(b, loc, x.getType(),
                                       b.getStringAttr(name), ValueRange{x})
      .getResult(0);
}

namespace {

/// A unary math op on a vector becomes one op per element.
struct UnrollVectorMath : public RewritePattern {
  UnrollVectorMath(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isApproximated(op) || op->getNumOperands() != 1)
      return failure();
    auto vecType = dyn_cast<VectorType>(op->getResult(0).getType());
    if (!vecType || vecType.getRank() != 1)
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value> parts;
    for (int64_t i = 0; i < vecType.getNumElements(); ++i) {
      Value x = vector::ExtractOp::create(rewriter, loc, op->getOperand(0), i);
      OperationState state(loc, op->getName().getStringRef(), ValueRange{x},
                           TypeRange{x.getType()}, op->getAttrs());
      parts.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vecType, parts);
    return success();
  }
};

/// f16/bf16 math computes in f32.
struct ExtendNarrowMath : public RewritePattern {
  ExtendNarrowMath(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isApproximated(op) || op->getNumOperands() != 1)
      return failure();
    Type type = op->getResult(0).getType();
    if (!type.isF16() && !type.isBF16())
      return failure();
    Location loc = op->getLoc();
    Type f32 = rewriter.getF32Type();
    Value x = arith::ExtFOp::create(rewriter, loc, f32, op->getOperand(0));
    OperationState state(loc, op->getName().getStringRef(), ValueRange{x},
                         TypeRange{f32}, op->getAttrs());
    Value r = rewriter.create(state)->getResult(0);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, r);
    return success();
  }
};

/// f32 math op -> hardware approximation.
template <typename MathOp>
struct ApproximateF32 : public OpRewritePattern<MathOp> {
  using OpRewritePattern<MathOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op->getOperand(0);
    if (!x.getType().isF32())
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto cst = [&](double v) {
      return arith::ConstantOp::create(rewriter, loc, f32,
                                       rewriter.getF32FloatAttr(v));
    };
    // 2^x: `ex2.approx.f32` keeps denormal results, which costs a compare
    // and two multiplies around the MUFU.EX2 in SASS; with `afn` (e.g. a
    // softmax, where results below 2^-126 do not matter) the flush-to-zero
    // form is the one instruction.
    auto exp2 = [&](Value v) -> Value {
      if (bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
        return callIntrinsic(rewriter, loc, "llvm.nvvm.ex2.approx.ftz.f", v);
      return LLVM::Exp2Op::create(rewriter, loc, v);
    };
    Value r;
    if constexpr (std::is_same_v<MathOp, math::Exp2Op>) {
      r = exp2(x);
    } else if constexpr (std::is_same_v<MathOp, math::ExpOp>) {
      // e^x = 2^(x * log2(e))
      Value s = arith::MulFOp::create(rewriter, loc, x, cst(llvm::numbers::log2e));
      r = exp2(s);
    } else if constexpr (std::is_same_v<MathOp, math::Log2Op>) {
      r = callIntrinsic(rewriter, loc, "llvm.nvvm.lg2.approx.f", x);
    } else if constexpr (std::is_same_v<MathOp, math::LogOp>) {
      // ln(x) = log2(x) * ln(2)
      Value l = callIntrinsic(rewriter, loc, "llvm.nvvm.lg2.approx.f", x);
      r = arith::MulFOp::create(rewriter, loc, l, cst(llvm::numbers::ln2));
    } else if constexpr (std::is_same_v<MathOp, math::TanhOp>) {
      r = callIntrinsic(rewriter, loc, "llvm.nvvm.tanh.approx.f32", x);
    } else if constexpr (std::is_same_v<MathOp, math::RsqrtOp>) {
      r = callIntrinsic(rewriter, loc, "llvm.nvvm.rsqrt.approx.f", x);
    } else if constexpr (std::is_same_v<MathOp, math::SinOp>) {
      r = callIntrinsic(rewriter, loc, "llvm.nvvm.sin.approx.f", x);
    } else {
      static_assert(std::is_same_v<MathOp, math::CosOp>);
      r = callIntrinsic(rewriter, loc, "llvm.nvvm.cos.approx.f", x);
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct TileLegalizeMathPass
    : public tilec::impl::TileLegalizeMathBase<TileLegalizeMathPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLegalizeMathPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::tilec::populateLegalizeMathPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<UnrollVectorMath, ExtendNarrowMath>(ctx);
  patterns.add<ApproximateF32<math::ExpOp>,   // math.exp
               ApproximateF32<math::Exp2Op>,  // math.exp2
               ApproximateF32<math::LogOp>,   // math.log
               ApproximateF32<math::Log2Op>,  // math.log2
               ApproximateF32<math::TanhOp>,  // math.tanh
               ApproximateF32<math::RsqrtOp>, // math.rsqrt
               ApproximateF32<math::SinOp>,   // math.sin
               ApproximateF32<math::CosOp>    // math.cos
               >(ctx);
  populatePolynomialApproximateErfPattern(patterns); // math.erf
}
