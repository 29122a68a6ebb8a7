//===- LegalizeMath.cpp - Math ops the NVPTX backend can select -----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-legalize-math: the math ops whose `fastmath`
// flags allow approximate functions (`afn`) become the SFU approximations
// kernels use (PTX ISA "Floating Point Instructions": ex2.approx, lg2.approx,
// tanh.approx, rsqrt.approx, sin/cos.approx; relative error around 2^-22) or
// polynomial approximations (erf); integer powers (math.ipowi, which neither
// LLVM nor libdevice provides) become square-and-multiply loops. Vector
// operands are unrolled and 16-bit floats computed in f32; math.clampf
// becomes upstream's min/max expansion, the classification ops compares.
// Every other math
// op keeps IEEE semantics and goes to libdevice
// (tile-convert-math-to-libdevice) or to an LLVM intrinsic NVPTX selects.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"
#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::tilec {
#define GEN_PASS_DEF_TILELEGALIZEMATH
#include "tilec/Conversion/Passes.h.inc"
} // namespace mlir::tilec

using namespace mlir;
using namespace mlir::tilec;

/// Whether `op`'s fastmath flags allow approximate functions.
static bool allowsApproximation(Operation *op) {
  auto fmf = dyn_cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlagsAttr flags = fmf ? fmf.getFastMathFlagsAttr() : nullptr;
  return flags &&
         bitEnumContainsAll(flags.getValue(), arith::FastMathFlags::afn);
}

/// The ops this file approximates: those with an SFU instruction, and the
/// divide, when their flags allow it (the others go to libdevice).
static bool isApproximated(Operation *op) {
  return isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::TanhOp,
             math::RsqrtOp, math::SinOp, math::CosOp, arith::DivFOp>(op) &&
         allowsApproximation(op);
}

static Value callIntrinsic(PatternRewriter &b, Location loc, StringRef name,
                           Value x) {
  return LLVM::CallIntrinsicOp::create(b, loc, x.getType(),
                                       b.getStringAttr(name), ValueRange{x})
      .getResult(0);
}

namespace {

/// A math op this file rewrites, on a vector, becomes one op per element;
/// so does math.sincos, which the per-element scalarization (one result per
/// op) does not handle.
struct UnrollVectorMath : public RewritePattern {
  UnrollVectorMath(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isApproximated(op) && !isa<math::IPowIOp, math::SincosOp>(op))
      return failure();
    auto vecType = dyn_cast<VectorType>(op->getResult(0).getType());
    if (!vecType || vecType.getRank() != 1)
      return failure();
    Location loc = op->getLoc();
    unsigned numResults = op->getNumResults();
    SmallVector<SmallVector<Value>> parts(numResults);
    SmallVector<Type> scalarTypes(numResults, vecType.getElementType());
    for (int64_t i = 0; i < vecType.getNumElements(); ++i) {
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(vector::ExtractOp::create(rewriter, loc, v, i));
      OperationState state(loc, op->getName().getStringRef(), operands,
                           scalarTypes, op->getAttrs());
      Operation *scalar = rewriter.create(state);
      for (unsigned r = 0; r < numResults; ++r)
        parts[r].push_back(scalar->getResult(r));
    }
    SmallVector<Value> results;
    for (unsigned r = 0; r < numResults; ++r)
      results.push_back(
          vector::FromElementsOp::create(rewriter, loc, vecType, parts[r]));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// f16/bf16 math computes in f32.
struct ExtendNarrowMath : public RewritePattern {
  ExtendNarrowMath(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isApproximated(op))
      return failure();
    Type type = op->getResult(0).getType();
    if (!type.isF16() && !type.isBF16())
      return failure();
    Location loc = op->getLoc();
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(arith::ExtFOp::create(rewriter, loc, f32, v));
    OperationState state(loc, op->getName().getStringRef(), operands,
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
    if (!x.getType().isF32() || !allowsApproximation(op))
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto cst = [&](double v) {
      return arith::ConstantOp::create(rewriter, loc, f32,
                                       rewriter.getF32FloatAttr(v));
    };
    // 2^x: the flush-to-zero form is the one MUFU.EX2 instruction (results
    // below 2^-126, which a softmax never needs, become 0).
    auto exp2 = [&](Value v) -> Value {
      return callIntrinsic(rewriter, loc, "llvm.nvvm.ex2.approx.ftz.f", v);
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
      // NVPTX selects `tanh.approx.f32` (sm_75+) for llvm.tanh with afn.
      r = LLVM::TanhOp::create(rewriter, loc, x, LLVM::FastmathFlags::afn);
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

/// An f32 divide with `afn`: `div.full.f32`, as Triton's `/` (2 ulp over the
/// whole range; LLVM's choice for `afn`, `div.approx.f32`, returns 0 for
/// divisors beyond 2^126).
struct FastDivide : public OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32() || !allowsApproximation(op))
      return failure();
    rewriter.replaceOp(op, LLVM::CallIntrinsicOp::create(
                               rewriter, op.getLoc(), op.getType(),
                               rewriter.getStringAttr("llvm.nvvm.div.full"),
                               ValueRange{op.getLhs(), op.getRhs()})
                               .getResult(0));
    return success();
  }
};

/// math.ipowi on a scalar: square-and-multiply over the exponent's bits
/// (LLVM has no integer power, libdevice neither). A negative exponent gives
/// MLIR's integer semantics: 1 for a base of 1, +-1 for -1, 0 otherwise.
struct ExpandIPowI : public OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IPowIOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<IntegerType>(op.getType());
    if (!type)
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, type, v);
    };
    Value base = op.getLhs(), exp = op.getRhs();
    Value zero = cst(0), one = cst(1);
    // result = prod over set bits i of exp: base^(2^i), for exp >= 0.
    Value lb = arith::ConstantIndexOp::create(b, 0);
    Value ub = arith::ConstantIndexOp::create(b, type.getWidth());
    Value step = arith::ConstantIndexOp::create(b, 1);
    auto loop = scf::ForOp::create(
        b, lb, ub, step, ValueRange{one, base, exp},
        [&](OpBuilder &nb, Location loc, Value, ValueRange args) {
          ImplicitLocOpBuilder lbld(loc, nb);
          Value bit = arith::AndIOp::create(lbld, args[2], one);
          Value odd =
              arith::CmpIOp::create(lbld, arith::CmpIPredicate::ne, bit, zero);
          Value mul = arith::MulIOp::create(lbld, args[0], args[1]);
          Value acc = arith::SelectOp::create(lbld, odd, mul, args[0]);
          Value sq = arith::MulIOp::create(lbld, args[1], args[1]);
          Value rest = arith::ShRUIOp::create(lbld, args[2], one);
          scf::YieldOp::create(lbld, ValueRange{acc, sq, rest});
        });
    Value power = loop.getResult(0);
    // exp < 0: 1 for base 1; for base -1, -1 when exp is odd, else 1; 0.
    Value isOne = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, base, one);
    Value isMinusOne =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, base, cst(-1));
    Value expOdd = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ne, arith::AndIOp::create(b, exp, one), zero);
    Value minusOneCase = arith::SelectOp::create(b, expOdd, cst(-1), one);
    Value negative = arith::SelectOp::create(
        b, isOne, one,
        arith::SelectOp::create(b, isMinusOne, minusOneCase, zero));
    Value expNeg =
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, exp, zero);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, expNeg, negative, power);
    return success();
  }
};

/// A splat float constant of `type` (a float or a vector of floats).
static Value floatConstant(OpBuilder &b, Location loc, Type type,
                           const APFloat &value) {
  auto elem = cast<FloatType>(getElementTypeOrSelf(type));
  APFloat v = value;
  bool lost;
  v.convert(elem.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, vec,
                                     DenseElementsAttr::get(vec, v));
  return arith::ConstantOp::create(b, loc, elem, b.getFloatAttr(elem, v));
}

/// math.isnan / isinf / isfinite / isnormal as compares (libdevice has
/// functions for two of them, LLVM's is.fpclass lowering none for NVPTX):
/// x unordered with itself; |x| == inf; |x| ordered-and-not-equal to inf;
/// that and |x| >= the smallest normal.
template <typename ClassOp>
struct ExpandClassification : public OpRewritePattern<ClassOp> {
  using OpRewritePattern<ClassOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ClassOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Type type = x.getType();
    const llvm::fltSemantics &sem =
        cast<FloatType>(getElementTypeOrSelf(type)).getFloatSemantics();
    if constexpr (std::is_same_v<ClassOp, math::IsNaNOp>) {
      rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, arith::CmpFPredicate::UNO,
                                                 x, x);
    } else {
      Value abs = math::AbsFOp::create(rewriter, loc, x);
      Value inf = floatConstant(rewriter, loc, type, APFloat::getInf(sem));
      auto cmp = [&](arith::CmpFPredicate p, Value rhs) -> Value {
        return arith::CmpFOp::create(rewriter, loc, p, abs, rhs);
      };
      if constexpr (std::is_same_v<ClassOp, math::IsInfOp>) {
        rewriter.replaceOp(op, cmp(arith::CmpFPredicate::OEQ, inf));
      } else if constexpr (std::is_same_v<ClassOp, math::IsFiniteOp>) {
        rewriter.replaceOp(op, cmp(arith::CmpFPredicate::ONE, inf));
      } else {
        static_assert(std::is_same_v<ClassOp, math::IsNormalOp>);
        Value minNormal = floatConstant(rewriter, loc, type,
                                        APFloat::getSmallestNormalized(sem));
        rewriter.replaceOpWithNewOp<arith::AndIOp>(
            op, cmp(arith::CmpFPredicate::ONE, inf),
            cmp(arith::CmpFPredicate::OGE, minNormal));
      }
    }
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
    // erf with `afn`: upstream's polynomial (f32 only; the rest and erf
    // without `afn` go to libdevice's __nv_erff).
    SmallVector<Operation *> erfs;
    getOperation()->walk([&](math::ErfOp op) {
      if (allowsApproximation(op))
        erfs.push_back(op);
    });
    if (erfs.empty())
      return;
    RewritePatternSet erfPatterns(&getContext());
    populatePolynomialApproximateErfPattern(erfPatterns);
    (void)applyOpPatternsGreedily(erfs, std::move(erfPatterns));
  }
};

} // namespace

void mlir::tilec::populateLegalizeMathPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<UnrollVectorMath, ExtendNarrowMath>(ctx);
  patterns.add<FastDivide>(ctx);                       // arith.divf
  patterns.add<ExpandIPowI>(ctx);                      // math.ipowi
  patterns.add<ExpandClassification<math::IsNaNOp>,    // math.isnan
               ExpandClassification<math::IsInfOp>,    // math.isinf
               ExpandClassification<math::IsFiniteOp>, // math.isfinite
               ExpandClassification<math::IsNormalOp>  // math.isnormal
               >(ctx);
  // math.clampf: upstream's expansion into minimumf/maximumf (the op's
  // documented semantics, maxf(minf(value, min), max)).
  math::populateExpansionPatterns(patterns, {"clampf"});
  patterns.add<ApproximateF32<math::ExpOp>,   // math.exp
               ApproximateF32<math::Exp2Op>,  // math.exp2
               ApproximateF32<math::LogOp>,   // math.log
               ApproximateF32<math::Log2Op>,  // math.log2
               ApproximateF32<math::TanhOp>,  // math.tanh
               ApproximateF32<math::RsqrtOp>, // math.rsqrt
               ApproximateF32<math::SinOp>,   // math.sin
               ApproximateF32<math::CosOp>    // math.cos
               >(ctx);
}
