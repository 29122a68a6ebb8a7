//===- ElementwiseOpToLLVM.cpp - Elementwise tile computation -------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers elementwise computation on tiles. Since operands and
// result of an elementwise op share one layout, a thread's elements line up
// register by register: the op is simply re-created on the per-thread
// vectors (arith.addf on tensor<64x128xf32, #l> becomes arith.addf on
// vector<32xf32>). Splat constants, tile.splat and tile.range build vectors.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

namespace {

/// Any op with the Elementwise trait (arith, math) on tiles: the same op on
/// the per-thread vectors.
struct ElementwiseOpLowering : public ConversionPattern {
  ElementwiseOpLowering(TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isElementwiseOp(op) || op->getNumRegions() != 0)
      return rewriter.notifyMatchFailure(op, "not an elementwise op");
    // fp8 is carried as i8: only the casts (Fp8CastOpToLLVM.cpp) know it.
    auto isFp8 = [](Type t) { return isFp8Type(getElementTypeOrSelf(t)); };
    if (llvm::any_of(op->getOperandTypes(), isFp8) ||
        llvm::any_of(op->getResultTypes(), isFp8)) {
      if (isa<arith::TruncFOp, arith::ExtFOp>(op))
        return rewriter.notifyMatchFailure(op, "fp8 casts have their own "
                                               "lowering");
      return op->emitOpError("arithmetic on fp8 tiles is not supported: "
                             "arith.extf them to f32 (or f16) first");
    }
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return rewriter.notifyMatchFailure(op, "unconvertible result types");
    OperationState state(op->getLoc(), op->getName().getStringRef(), operands,
                         resultTypes, op->getAttrs());
    Operation *newOp = rewriter.create(state);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

/// arith.constant dense<v> : tensor<...> -> the same splat on a vector.
struct ConstantOpLowering : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (!tensorType)
      return rewriter.notifyMatchFailure(op, "not a tile constant");
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!dense)
      return op.emitOpError("non-splat tile constants are not supported; "
                            "build index tiles with tile.range");
    auto vecType = cast<VectorType>(getTypeConverter()->convertType(tensorType));
    Attribute value = dense.getSplatValue<Attribute>();
    if (vecType.getElementType() != tensorType.getElementType()) {
      // fp8 is carried as i8: the same bits.
      auto f = dyn_cast<FloatAttr>(value);
      auto storage = dyn_cast<IntegerType>(vecType.getElementType());
      if (!f || !storage ||
          storage.getWidth() != f.getValue().bitcastToAPInt().getBitWidth())
        return op.emitOpError("constant tiles of ")
               << tensorType.getElementType() << " are not supported";
      value = IntegerAttr::get(storage, f.getValue().bitcastToAPInt());
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, vecType, SplatElementsAttr::get(vecType, value));
    return success();
  }
};

/// tile.splat -> vector.broadcast.
struct SplatOpLowering : public OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type vecType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, vecType,
                                                     adaptor.getValue());
    return success();
  }
};

/// tile.range -> start + the thread's coordinate + each register's offset.
struct RangeOpLowering : public OpConversionPattern<RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    LinearLayout layout = getLinearLayout(type);
    ThreadIds ids = getThreadIds(rewriter, loc);
    Value threadCoord = emitThreadCoord(rewriter, loc, layout, ids)[0];
    auto vecType = cast<VectorType>(getTypeConverter()->convertType(type));
    SmallVector<int32_t> offsets;
    for (unsigned r = 0; r < layout.getNumRegs(); ++r)
      offsets.push_back(op.getStart() + layout.getRegCoord(r)[0]);
    Value regs = arith::ConstantOp::create(
        rewriter, loc, vecType, rewriter.getI32VectorAttr(offsets));
    Value base = vector::BroadcastOp::create(rewriter, loc, vecType,
                                             threadCoord);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, regs, base);
    return success();
  }
};

} // namespace

void mlir::tilec::populateElementwiseOpToLLVMPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseOpLowering, // arith.*, math.* on tiles
               ConstantOpLowering,    // arith.constant (tiles)
               SplatOpLowering,       // tile.splat
               RangeOpLowering        // tile.range
               >(converter, ctx);
}
