//===- Fp8CastOpToLLVM.cpp - arith.truncf / arith.extf on fp8 tiles -------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers casts to and from fp8 (f8E4M3FN, f8E5M2) tiles, which
// are carried as i8 registers, two elements per instruction
// ([PTX ISA: cvt](https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt),
// sm_89 and later):
//
//   arith.truncf f32 -> fp8:  cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32
//     (round to nearest even; values past the largest finite fp8 saturate
//     to it, as torch's float8 casts do; NaN stays NaN). bf16/f16 sources
//     go through f32 first.
//   arith.extf fp8 -> f16:    cvt.rn.f16x2.{e4m3x2,e5m2x2} (exact); on to
//     f32 or bf16 through f16, which holds every fp8 value exactly.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

/// A cast's converted operand as its elements (a tile's per-thread vector,
/// or one scalar).
static SmallVector<Value> getElements(OpBuilder &b, Location loc, Value v) {
  if (isa<VectorType>(v.getType()))
    return unpackVector(b, loc, v);
  return {v};
}

/// Replaces `op` by `elems` (the first `resType` needs; a pair's padding
/// is dropped), as `resType`: a vector, or one scalar.
static void replaceWithElements(ConversionPatternRewriter &rewriter,
                                Operation *op, Type resType,
                                SmallVector<Value> elems) {
  auto vec = dyn_cast<VectorType>(resType);
  if (!vec) {
    rewriter.replaceOp(op, elems.front());
    return;
  }
  elems.resize(vec.getNumElements());
  rewriter.replaceOp(op, packVector(rewriter, op->getLoc(), resType, elems));
}

/// Refuses fp8 casts on chips without the cvt forms.
static LogicalResult checkChip(Operation *op, const TargetInfo &target,
                               Type fp8) {
  if (target.hasMmaFp8)
    return success();
  return op->emitOpError("casts to and from ")
         << fp8 << " need cvt on e4m3x2/e5m2x2 (sm_89 or later), not "
         << target.chip;
}

namespace {

/// arith.truncf to fp8 on tiles -> cvt.rn.satfinite pairs.
struct TruncFToFp8Lowering : public OpConversionPattern<arith::TruncFOp> {
  TruncFToFp8Lowering(TypeConverter &converter, MLIRContext *ctx,
                      const TargetInfo &target)
      : OpConversionPattern(converter, ctx, /*benefit=*/2), target(target) {}

  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type dst = getElementTypeOrSelf(op.getType());
    if (!isFp8Type(dst))
      return rewriter.notifyMatchFailure(op, "not a cast to fp8");
    if (failed(checkChip(op, target, dst)))
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> in = getElements(rewriter, loc, adaptor.getIn());
    for (Value &v : in)
      if (!v.getType().isF32())
        v = arith::ExtFOp::create(rewriter, loc, f32, v);
    if (in.size() % 2)
      in.push_back(arith::ConstantOp::create(rewriter, loc, f32,
                                             rewriter.getF32FloatAttr(0)));
    auto pairType = VectorType::get({2}, rewriter.getI8Type());
    SmallVector<Value> out;
    for (size_t i = 0; i < in.size(); i += 2) {
      // `a` lands in the high byte (element 1), `b` in the low (element 0).
      Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
          rewriter, loc, pairType, in[i + 1], in[i], NVVM::FPRoundingMode::RN,
          NVVM::SaturationMode::SATFINITE, /*relu=*/false, dst);
      for (int64_t e = 0; e < 2; ++e)
        out.push_back(vector::ExtractOp::create(rewriter, loc, pair, e));
    }
    replaceWithElements(rewriter, op,
                        getTypeConverter()->convertType(op.getType()), out);
    return success();
  }

private:
  const TargetInfo &target;
};

/// arith.extf from fp8 on tiles -> cvt.rn.f16x2 pairs, then f16 -> dst.
struct ExtFFromFp8Lowering : public OpConversionPattern<arith::ExtFOp> {
  ExtFFromFp8Lowering(TypeConverter &converter, MLIRContext *ctx,
                      const TargetInfo &target)
      : OpConversionPattern(converter, ctx, /*benefit=*/2), target(target) {}

  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type src = getElementTypeOrSelf(op.getIn().getType());
    if (!isFp8Type(src))
      return rewriter.notifyMatchFailure(op, "not a cast from fp8");
    if (failed(checkChip(op, target, src)))
      return failure();
    Location loc = op.getLoc();
    Type dst = getElementTypeOrSelf(op.getType());
    Type f16 = rewriter.getF16Type();
    SmallVector<Value> in = getElements(rewriter, loc, adaptor.getIn());
    if (in.size() % 2)
      in.push_back(arith::ConstantOp::create(rewriter, loc, rewriter.getI8Type(),
                                             rewriter.getI8IntegerAttr(0)));
    auto pairIn = VectorType::get({2}, rewriter.getI8Type());
    auto pairOut = VectorType::get({2}, f16);
    SmallVector<Value> out;
    for (size_t i = 0; i < in.size(); i += 2) {
      Value pair = vector::FromElementsOp::create(rewriter, loc, pairIn,
                                                  ValueRange{in[i], in[i + 1]});
      Value h = NVVM::ConvertF8x2ToF16x2Op::create(rewriter, loc, pairOut, pair,
                                                   /*relu=*/false, src);
      for (int64_t e = 0; e < 2; ++e) {
        Value v = vector::ExtractOp::create(rewriter, loc, h, e);
        if (dst.isBF16())
          v = arith::TruncFOp::create(
              rewriter, loc, dst,
              arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), v));
        else if (!dst.isF16())
          v = arith::ExtFOp::create(rewriter, loc, dst, v);
        out.push_back(v);
      }
    }
    replaceWithElements(rewriter, op,
                        getTypeConverter()->convertType(op.getType()), out);
    return success();
  }

private:
  const TargetInfo &target;
};

} // namespace

void mlir::tilec::populateFp8CastOpToLLVMPatterns(TileTypeConverter &converter,
                                                  RewritePatternSet &patterns,
                                                  const TargetInfo &target) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<TruncFToFp8Lowering, // arith.truncf to fp8
               ExtFFromFp8Lowering  // arith.extf from fp8
               >(converter, ctx, target);
}
