//===- FmaDot.cpp - tile.dot on FMA instructions --------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers tile.dot on f32 operands in ieee precision (exact
// products; no tensor-core instruction has them) to `fma.rn.f32`, one per
// accumulator element and K step, K outermost: each element's sum is the
// chain acc = fma(a[m][0], b[0][n], acc), fma(a[m][1], b[1][n], ...) in K
// order, so each product is exact and each addition rounds once.
//
// The accumulator has a #tile.blocked layout; A (M x K) and B (K x N) have
// the blocked layouts tile-assign-layouts gives them
// (getFmaOperandLayout): the accumulator's rows (A) or columns (B) with all
// of K in each thread's registers. A thread's operands are looked up by
// coordinate in the linear layouts, so any operand layouts with the same
// thread mapping work; others are refused.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

namespace {
struct DotOpFmaLowering : public OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};
} // namespace

/// True when every lane and warp of `operand` (dimension `kDim` is K) holds
/// the accumulator's rows (A) or columns (B): its bases are the
/// accumulator's along the other dimension and zero along K.
static bool sharesThreadMapping(const LinearLayout &operand,
                                const LinearLayout &acc, unsigned kDim) {
  unsigned other = 1 - kDim;
  for (LinearLayout::In in : {LinearLayout::In::Lane, LinearLayout::In::Warp}) {
    ArrayRef<LinearLayout::Basis> ob = operand.getBases(in);
    ArrayRef<LinearLayout::Basis> ab = acc.getBases(in);
    if (ob.size() != ab.size())
      return false;
    for (auto [o, a] : llvm::zip(ob, ab))
      if (o[kDim] != 0 || o[other] != a[other])
        return false;
  }
  return true;
}

LogicalResult
DotOpFmaLowering::matchAndRewrite(DotOp op, OpAdaptor adaptor,
                                  ConversionPatternRewriter &rewriter) const {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  if (!isa_and_nonnull<BlockedEncodingAttr>(cType.getEncoding()))
    return rewriter.notifyMatchFailure(op, "not an FMA dot");
  if (!aType.getElementType().isF32() ||
      op.getPrecision() != DotPrecision::IEEE)
    return op.emitOpError("a dot with a #tile.blocked accumulator runs on FMA "
                          "instructions, which take f32 operands in ieee "
                          "precision only, got ")
           << aType.getElementType() << " in precision("
           << stringifyDotPrecision(op.getPrecision()) << ")";
  if (!isa_and_nonnull<BlockedEncodingAttr>(aType.getEncoding()) ||
      !isa_and_nonnull<BlockedEncodingAttr>(bType.getEncoding()))
    return op.emitOpError("an FMA dot needs #tile.blocked A and B operands");
  LinearLayout aLL = getLinearLayout(aType), bLL = getLinearLayout(bType),
               cLL = getLinearLayout(cType);
  if (!sharesThreadMapping(aLL, cLL, 1) || !sharesThreadMapping(bLL, cLL, 0))
    return op.emitOpError("an FMA dot needs A and B in layouts that give each "
                          "thread its accumulator's rows (A) and columns (B) "
                          "over all of K, as tile-assign-layouts makes them");

  int64_t k = aType.getDimSize(1);
  // For each accumulator register, the A and B registers of each K step.
  SmallVector<SmallVector<unsigned>> aRegs, bRegs;
  for (unsigned r = 0; r < cLL.getNumRegs(); ++r) {
    LinearLayout::Basis mn = cLL.getRegCoord(r);
    SmallVector<unsigned> &ar = aRegs.emplace_back();
    SmallVector<unsigned> &br = bRegs.emplace_back();
    for (int64_t kk = 0; kk < k; ++kk) {
      std::optional<unsigned> ai = aLL.findReg({mn[0], kk});
      std::optional<unsigned> bi = bLL.findReg({kk, mn[1]});
      if (!ai || !bi)
        return op.emitOpError("an FMA dot needs all of K in each thread's "
                              "registers");
      ar.push_back(*ai);
      br.push_back(*bi);
    }
  }

  Location loc = op.getLoc();
  SmallVector<Value> a = unpackVector(rewriter, loc, adaptor.getA());
  SmallVector<Value> b = unpackVector(rewriter, loc, adaptor.getB());
  SmallVector<Value> acc = unpackVector(rewriter, loc, adaptor.getAcc());
  for (int64_t kk = 0; kk < k; ++kk)
    for (auto [r, c] : llvm::enumerate(acc))
      c = LLVM::FMAOp::create(rewriter, loc, a[aRegs[r][kk]], b[bRegs[r][kk]],
                              c);
  rewriter.replaceOp(
      op,
      packVector(rewriter, loc, getTypeConverter()->convertType(cType), acc));
  return success();
}

void mlir::tilec::populateFmaDotPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<DotOpFmaLowering>(converter, patterns.getContext());
}
