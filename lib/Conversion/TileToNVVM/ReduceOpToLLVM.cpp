//===- ReduceOpToLLVM.cpp - Tile reductions -------------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file lowers tile.reduce in up to three stages, each only when the
// operand layout spreads the reduced axis over that level:
//   1. registers: combine a thread's registers that differ only along the
//      axis, as a balanced tree;
//   2. lanes: one shfl.sync.bfly per lane bit whose basis moves along the
//      axis (after which every such lane holds the warp's partial result);
//   3. warps: one thread per partial writes it to shared memory, and after a
//      barrier every thread combines the partials of its result elements.
// The result layout is the operand layout sliced along the axis.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

namespace {
struct ReduceOpLowering : public OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};
} // namespace

LogicalResult
ReduceOpLowering::matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                                  ConversionPatternRewriter &rewriter) const {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  auto resType = cast<RankedTensorType>(op.getType());
  LinearLayout src = getLinearLayout(srcType);
  LinearLayout res = getLinearLayout(resType);
  unsigned axis = op.getAxis();
  ReduceKind kind = op.getKind();

  // 1. Registers, combined as a balanced tree per result register: the
  // in-thread part of a row reduction over many registers (attention's row
  // max and sum take 32-64 per row) then has a dependency chain of log2 of
  // their number instead of one combine per register, which the few warps
  // of a warp-specialized kernel cannot hide.
  SmallVector<Value> vals = unpackVector(rewriter, loc, adaptor.getSrc());
  SmallVector<SmallVector<Value>> groups(res.getNumRegs());
  for (unsigned r = 0; r < src.getNumRegs(); ++r) {
    LinearLayout::Basis c = src.getRegCoord(r);
    c.erase(c.begin() + axis);
    std::optional<unsigned> rr = res.findReg(c);
    if (!rr)
      return op.emitOpError("result layout is not the operand layout sliced "
                            "along the axis");
    groups[*rr].push_back(vals[r]);
  }
  SmallVector<Value> acc(res.getNumRegs());
  for (auto [a, group] : llvm::zip(acc, groups)) {
    while (group.size() > 1) {
      SmallVector<Value> next;
      for (size_t j = 0; j + 1 < group.size(); j += 2)
        next.push_back(emitCombine(rewriter, loc, kind, group[j], group[j + 1]));
      if (group.size() % 2)
        next.push_back(group.back());
      group = std::move(next);
    }
    if (!group.empty())
      a = group.front();
  }

  // 2. Lanes.
  unsigned axisLanes = 0;
  for (auto [i, b] : llvm::enumerate(src.getBases(LinearLayout::In::Lane)))
    if (b[axis] != 0) {
      axisLanes |= 1u << i;
      for (Value &a : acc)
        a = emitCombine(rewriter, loc, kind, a,
                        emitShuffleXor(rewriter, loc, a, 1u << i));
    }

  // 3. Warps.
  SmallVector<unsigned> axisWarpBits;
  for (auto [i, b] : llvm::enumerate(src.getBases(LinearLayout::In::Warp)))
    if (b[axis] != 0)
      axisWarpBits.push_back(i);
  if (!axisWarpBits.empty()) {
    Type elemType = getStorageType(resType.getElementType());
    int64_t numPartials = int64_t(1) << axisWarpBits.size();
    ThreadIds ids = getThreadIds(rewriter, loc);
    // Index of this warp among the warps along the axis.
    Value axisWarp;
    for (auto [j, bit] : llvm::enumerate(axisWarpBits)) {
      Value v = arith::ShRUIOp::create(rewriter, loc, ids.warp,
                                       i32Val(rewriter, loc, bit));
      v = arith::AndIOp::create(rewriter, loc, v, i32Val(rewriter, loc, 1));
      if (j)
        v = arith::ShLIOp::create(rewriter, loc, v, i32Val(rewriter, loc, j));
      axisWarp = axisWarp ? arith::OrIOp::create(rewriter, loc, axisWarp, v)
                                .getResult()
                          : v;
    }
    // Row-major index of each result element.
    SmallVector<Value> thread = emitThreadCoord(rewriter, loc, res, ids);
    SmallVector<int64_t> strides(resType.getRank(), 1);
    for (int d = resType.getRank() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * resType.getDimSize(d + 1);
    SmallVector<Value> slots;
    for (unsigned r = 0; r < res.getNumRegs(); ++r) {
      LinearLayout::Basis c = res.getRegCoord(r);
      Value lin = i32Val(rewriter, loc, 0);
      for (unsigned d = 0; d < c.size(); ++d) {
        Value coord = arith::AddIOp::create(rewriter, loc, thread[d],
                                            i32Val(rewriter, loc, c[d]));
        lin = arith::AddIOp::create(
            rewriter, loc, lin,
            arith::MulIOp::create(rewriter, loc, coord,
                                  i32Val(rewriter, loc, strides[d])));
      }
      slots.push_back(arith::MulIOp::create(
          rewriter, loc, lin, i32Val(rewriter, loc, numPartials)));
    }
    Value scratch = getScratchPtr(rewriter, loc, op);
    emitBarrier(rewriter, loc, op);
    Value canonical =
        emitIsCanonicalThread(rewriter, loc, src, ids, axisLanes);
    auto writeAll = [&](OpBuilder &b, Location l) {
      for (unsigned r = 0; r < acc.size(); ++r) {
        Value idx = arith::AddIOp::create(b, l, slots[r], axisWarp);
        LLVM::StoreOp::create(b, l, acc[r],
                              gepElems(b, l, scratch, elemType, idx));
      }
    };
    if (canonical) {
      scf::IfOp::create(rewriter, loc, canonical, [&](OpBuilder &b, Location l) {
        writeAll(b, l);
        scf::YieldOp::create(b, l);
      });
    } else {
      writeAll(rewriter, loc);
    }
    emitBarrier(rewriter, loc, op);
    for (unsigned r = 0; r < acc.size(); ++r) {
      Value total;
      for (int64_t j = 0; j < numPartials; ++j) {
        Value idx = arith::AddIOp::create(rewriter, loc, slots[r],
                                          i32Val(rewriter, loc, j));
        Value v = LLVM::LoadOp::create(
            rewriter, loc, elemType,
            gepElems(rewriter, loc, scratch, elemType, idx));
        total = total ? emitCombine(rewriter, loc, kind, total, v) : v;
      }
      acc[r] = total;
    }
  }

  Type resultType = getTypeConverter()->convertType(resType);
  rewriter.replaceOp(op, packVector(rewriter, loc, resultType, acc));
  return success();
}

void mlir::tilec::populateReduceOpToLLVMPatterns(TileTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering>(converter, patterns.getContext()); // tile.reduce
}
