//===- MmaSm80.cpp - tile.dot on mma.sync (sm_80+) ------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers tile.dot with #tile.mma accumulators and #tile.dot_operand
// operands to `mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}`
// ([PTX ISA: mma m16n8k16](https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-fragment-mma-16816-float))
// and, for fp8 operands (sm_89+), `m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}`
// (i8: `.s32.s8.s8.s32`), for f32 operands `m16n8k8.row.col.f32.tf32.tf32`
// (each register one element, the K halves 4 apart; tf32x3 sums three
// products per instruction slot)
// ([PTX ISA: mma m16n8k32](https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-fragment-mma-16832)),
// where each register holds four K-adjacent bytes and the K halves sit 16
// apart (a0 (r, k..k+3), a2 (r, k+16..k+19); b0 (k..k+3, c), b1 (k+16.., c)).
// Per warp and per 16-wide K step, every 16x8 tile of the warp's accumulator
// gets one instruction; K steps are outermost so consecutive instructions
// are independent. Fragment registers are looked up in the operands' linear
// layouts:
//
//   A (16x16): a0 (r, k..k+1)  a1 (r+8, k..)  a2 (r, k+8..)  a3 (r+8, k+8..)
//   B (16x8):  b0 (k..k+1, c)  b1 (k+8.., c)
//   C (16x8):  c0 c1 (r, c..c+1)   c2 c3 (r+8, c..c+1)
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

namespace {
struct DotOpMmaLowering : public OpConversionPattern<DotOp> {
  DotOpMmaLowering(TileTypeConverter &converter, MLIRContext *ctx,
                   const TargetInfo &target)
      : OpConversionPattern(converter, ctx), target(target) {}

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;

private:
  const TargetInfo &target;
};
} // namespace

/// Extent of a warp's registers along `dim` (at least `min`).
static int64_t getRegisterExtent(const LinearLayout &layout, unsigned dim,
                                 int64_t min) {
  int64_t extent = min;
  for (const LinearLayout::Basis &b : layout.getBases(LinearLayout::In::Register))
    extent = std::max(extent, 2 * b[dim]);
  return extent;
}

/// `mma.sync.aligned.m16n8k32.row.col.{f32,s32}.<a>.<b>.{f32,s32}` as inline
/// PTX: LLVM 22's nvvm.mma.sync verifier rejects the dense FP8 forms (and
/// one form serves fp8 and i8). The accumulator registers are tied to the
/// results.
static SmallVector<Value> emitMma8Bit(OpBuilder &b, Location loc, Type aType,
                                      Type bType, ArrayRef<Value> aOps,
                                      ArrayRef<Value> bOps,
                                      ArrayRef<Value> cOps) {
  // fp8 accumulates in f32, i8 in s32 (wrapping, as torch._int_mm).
  bool int8 = aType.isInteger(8);
  StringRef acc = int8 ? "s32" : "f32";
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  os << "mma.sync.aligned.m16n8k32.row.col." << acc << "."
     << getPtxTypeName(aType) << "." << getPtxTypeName(bType) << "." << acc
     << " {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
        "{$10, $11, $12, $13};";
  SmallVector<Value> operands(aOps);
  llvm::append_range(operands, bOps);
  llvm::append_range(operands, cOps);
  Type accType = cOps.front().getType();
  auto resType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), {accType, accType, accType, accType});
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resType, operands, b.getStringAttr(ptx),
      b.getStringAttr(int8 ? "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3"
                           : "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"),
      /*has_side_effects=*/nullptr, /*is_align_stack=*/nullptr,
      LLVM::TailCallKindAttr(),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/nullptr);
  SmallVector<Value> d;
  for (int j = 0; j < 4; ++j)
    d.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), j));
  return d;
}

LogicalResult
DotOpMmaLowering::matchAndRewrite(DotOp op, OpAdaptor adaptor,
                                  ConversionPatternRewriter &rewriter) const {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  if (!isa_and_nonnull<MmaEncodingAttr>(cType.getEncoding()) ||
      !isa_and_nonnull<DotOperandEncodingAttr>(aType.getEncoding()) ||
      !isa_and_nonnull<DotOperandEncodingAttr>(bType.getEncoding()))
    return rewriter.notifyMatchFailure(op, "not an mma.sync dot");
  // tile.dot's verifier pins B and the accumulator to A's type: bf16/f16,
  // fp8 (either of B) -> f32, f16 -> f16, f32 -> f32, i8 -> i32.
  Type et = aType.getElementType(), bt = bType.getElementType();
  bool int8 = et.isInteger(8);
  bool fp8 = isFp8Type(et);
  bool tf32 = et.isF32();
  if (!(int8 || fp8 || tf32 || et.isBF16() || et.isF16()) ||
      cType.getElementType().isF16())
    return op.emitOpError("mma.sync lowering supports bf16/f16, f32 (as "
                          "TF32) and fp8 (e4m3/e5m2) operands with an f32 "
                          "accumulator and i8 with an i32 one, got ")
           << et << " x " << bt << " -> " << cType.getElementType();
  if (tf32 && op.getPrecision() == DotPrecision::IEEE)
    return op.emitOpError("f32 operands in ieee precision have no mma.sync "
                          "form; write precision(tf32) or precision(tf32x3)");
  if (!target.hasMmaBf16)
    return op.emitOpError("mma.sync needs sm_80 or later, not ")
           << target.chip;
  if (fp8 && !target.hasMmaFp8)
    return op.emitOpError("mma.sync m16n8k32 on ")
           << et << " x " << bt << " needs sm_89 or later, not "
           << target.chip;
  // The fragments are looked up in the operands' layouts, which must be the
  // accumulator's (tile-assign-layouts makes them so; hand-written IR may
  // not).
  auto aEnc = cast<DotOperandEncodingAttr>(aType.getEncoding());
  auto bEnc = cast<DotOperandEncodingAttr>(bType.getEncoding());
  unsigned kWidth = 4 / getStorageBytes(et);
  if (aEnc.getOpIdx() != 0 || bEnc.getOpIdx() != 1 ||
      aEnc.getParent() != cType.getEncoding() ||
      bEnc.getParent() != cType.getEncoding() ||
      aEnc.getKWidth() != kWidth || bEnc.getKWidth() != kWidth)
    return op.emitOpError("mma.sync needs A and B in the #tile.dot_operand "
                          "layouts (opIdx 0 and 1, kWidth ")
           << kWidth << ") of the accumulator's #tile.mma layout";
  int64_t instrK = 8 * kWidth;
  if (aType.getDimSize(1) % instrK != 0)
    return op.emitOpError("mma.sync m16n8k")
           << instrK << " needs K to be a multiple of " << instrK << ", got "
           << aType.getDimSize(1);

  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  LinearLayout aLL = getLinearLayout(aType), bLL = getLinearLayout(bType),
               cLL = getLinearLayout(cType);
  int64_t wtM = getRegisterExtent(cLL, 0, 16), wtN = getRegisterExtent(cLL, 1, 8);
  int64_t k = aType.getDimSize(1);

  SmallVector<Value> a = unpackVector(rewriter, loc, adaptor.getA());
  SmallVector<Value> b = unpackVector(rewriter, loc, adaptor.getB());
  SmallVector<Value> acc = unpackVector(rewriter, loc, adaptor.getAcc());
  Type f32 = rewriter.getF32Type();
  auto resType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  NVVM::MMATypes ptxType = tf32          ? NVVM::MMATypes::tf32
                           : et.isBF16() ? NVVM::MMATypes::bf16
                                         : NVVM::MMATypes::f16;
  // f32 operands become TF32 registers once, before the instructions; with
  // tf32x3 each also gets the TF32 of its remainder, and every product is
  // the sum small x big + big x small + big x big (small terms first).
  SmallVector<Value> aRest, bRest;
  bool split = tf32 && op.getPrecision() == DotPrecision::TF32x3;
  if (tf32) {
    a = convertToTf32(rewriter, loc, a, split ? &aRest : nullptr);
    b = convertToTf32(rewriter, loc, b, split ? &bRest : nullptr);
  }

  auto reg = [&](const LinearLayout &ll, int64_t r, int64_t c) -> unsigned {
    std::optional<unsigned> idx = ll.findReg({r, c});
    assert(idx && "fragment element outside its layout");
    return *idx;
  };
  // kWidth elements adjacent along K go in one 32-bit register (the NVVM op
  // takes f16 pairs as vector<2xf16>, bf16 pairs as i32; fp8 quads are i32).
  auto bFragment = [&](ArrayRef<Value> values, int64_t kk, int64_t ni) {
    // b0 (k.., c), b1 (k + 4 * kWidth.., c).
    SmallVector<Value> bOps;
    for (int j = 0; j < 2; ++j)
      bOps.push_back(packFragmentRegister(rewriter, loc, values, bLL,
                                          {kk + j * 4 * kWidth, ni},
                                          /*kDim=*/0, kWidth,
                                          /*f16AsVector=*/true));
    return bOps;
  };
  for (int64_t kk = 0; kk < k; kk += instrK) {
    for (int64_t mi = 0; mi < wtM; mi += 16) {
      SmallVector<Value> aOps = getMmaAFragment(rewriter, loc, a, aLL, mi, kk,
                                                kWidth, /*f16AsVector=*/true);
      SmallVector<Value> aRestOps;
      if (split)
        aRestOps = getMmaAFragment(rewriter, loc, aRest, aLL, mi, kk, kWidth,
                                   /*f16AsVector=*/true);
      for (int64_t ni = 0; ni < wtN; ni += 8) {
        SmallVector<Value> bOps = bFragment(b, kk, ni);
        unsigned cIdx[4];
        SmallVector<Value> cOps;
        for (int j = 0; j < 4; ++j) {
          cIdx[j] = reg(cLL, mi + (j / 2) * 8, ni + j % 2);
          cOps.push_back(acc[cIdx[j]]);
        }
        if (fp8 || int8) {
          SmallVector<Value> d = emitMma8Bit(rewriter, loc, et, bt, aOps, bOps,
                                             cOps);
          for (int j = 0; j < 4; ++j)
            acc[cIdx[j]] = d[j];
          continue;
        }
        auto mma = [&](ArrayRef<Value> x, ArrayRef<Value> y) {
          Value d = NVVM::MmaOp::create(
              rewriter, loc, resType, x, y, cOps, {16, 8, instrK},
              /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
              std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int j = 0; j < 4; ++j)
            cOps[j] = LLVM::ExtractValueOp::create(rewriter, loc, d, j);
        };
        if (!split) {
          mma(aOps, bOps);
          for (int j = 0; j < 4; ++j)
            acc[cIdx[j]] = cOps[j];
          continue;
        }
        // The tensor cores' f32 accumulation truncates: summed into the
        // long-running accumulator, that bias grows with K and costs
        // 3xTF32 its accuracy. The three products start from zero and are
        // added to the accumulator in f32 (round to nearest).
        for (int j = 0; j < 4; ++j)
          cOps[j] = LLVM::ConstantOp::create(rewriter, loc, f32,
                                             rewriter.getF32FloatAttr(0.0f));
        mma(aRestOps, bOps);
        mma(aOps, bFragment(bRest, kk, ni));
        mma(aOps, bOps);
        for (int j = 0; j < 4; ++j)
          acc[cIdx[j]] =
              LLVM::FAddOp::create(rewriter, loc, acc[cIdx[j]], cOps[j]);
      }
    }
  }
  rewriter.replaceOp(op, packVector(rewriter, loc,
                                    getTypeConverter()->convertType(cType), acc));
  return success();
}

void mlir::tilec::populateMmaSm80Patterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const TargetInfo &target) {
  patterns.add<DotOpMmaLowering>(converter, patterns.getContext(),
                                 target); // tile.dot (#tile.mma)
}
