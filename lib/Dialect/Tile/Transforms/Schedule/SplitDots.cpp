//===- SplitDots.cpp - mma.sync dots in K steps ---------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-split-dots: an mma.sync tile.dot that reads an
// operand from shared memory becomes a chain of K steps (16 wide for 16-bit
// operands, 32 for fp8: one mma.sync K each), each
// reading its own slice of the operand right before its mma.sync.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/LayoutHeuristics.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILESPLITDOTS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

/// Whether no operation strictly between `from` and `to` (same block, in
/// that order) may write memory: a read moved from `from` down to `to` then
/// sees the same data.
static bool isWriteFreeRange(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface || iface.hasEffect<MemoryEffects::Write>() ||
        iface.hasEffect<MemoryEffects::Free>())
      return false;
  }
  return true;
}

/// The shared-memory read of `dot`'s operand `v` that the split can issue
/// per step in place of the whole tile, if there is one.
static LocalLoadOp getSplittableRead(DotOp dot, Value v) {
  auto read = v.getDefiningOp<LocalLoadOp>();
  if (!read || !read->hasOneUse() || read->getBlock() != dot->getBlock() ||
      !isWriteFreeRange(read, dot))
    return {};
  return read;
}

static bool isMmaSyncDot(DotOp dot) {
  auto a = cast<RankedTensorType>(dot.getA().getType());
  auto b = cast<RankedTensorType>(dot.getB().getType());
  auto c = cast<RankedTensorType>(dot.getAcc().getType());
  return isa_and_nonnull<MmaEncodingAttr>(c.getEncoding()) &&
         isa_and_nonnull<DotOperandEncodingAttr>(a.getEncoding()) &&
         isa_and_nonnull<DotOperandEncodingAttr>(b.getEncoding()) &&
         llvm::is_contained({8u, 16u},
                            a.getElementType().getIntOrFloatBitWidth());
}

/// Rewrites `dot` as K steps; `readA` / `readB` (may be null) are its
/// operands' shared-memory reads.
static void splitDot(DotOp dot, LocalLoadOp readA, LocalLoadOp readB) {
  OpBuilder b(dot);
  Location loc = dot.getLoc();
  auto aType = cast<RankedTensorType>(dot.getA().getType());
  auto bType = cast<RankedTensorType>(dot.getB().getType());
  int64_t kStep = getMmaSyncKStep(aType.getElementType());
  auto aStep = RankedTensorType::get({aType.getDimSize(0), kStep},
                                     aType.getElementType(),
                                     aType.getEncoding());
  auto bStep = RankedTensorType::get({kStep, bType.getDimSize(1)},
                                     bType.getElementType(),
                                     bType.getEncoding());
  // Operand `v` at K offset `k`: a read of its slice, or a register slice.
  auto slice = [&](Value v, LocalLoadOp read, RankedTensorType stepType,
                   int64_t row, int64_t col) -> Value {
    if (read) {
      ArrayRef<int64_t> base = read.getOffsets();
      return LocalLoadOp::create(
          b, loc, stepType, read.getBuffer(), read.getStage(),
          b.getDenseI64ArrayAttr({base[0] + row, base[1] + col}));
    }
    return ExtractSliceOp::create(b, loc, stepType, v,
                                  b.getDenseI64ArrayAttr({row, col}));
  };
  Value acc = dot.getAcc();
  for (int64_t k = 0; k < aType.getDimSize(1); k += kStep) {
    Value a = slice(dot.getA(), readA, aStep, 0, k);
    Value bk = slice(dot.getB(), readB, bStep, k, 0);
    acc = DotOp::create(b, loc, dot.getType(), a, bk, acc, dot.getPrecision());
  }
  dot.replaceAllUsesWith(acc);
  dot.erase();
  for (LocalLoadOp read : {readA, readB})
    if (read)
      read.erase();
}

namespace {
struct TileSplitDotsPass : tile::impl::TileSplitDotsBase<TileSplitDotsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::tuple<DotOp, LocalLoadOp, LocalLoadOp>> work;
    getOperation().walk([&](DotOp dot) {
      auto a = cast<RankedTensorType>(dot.getA().getType());
      int64_t kStep = getMmaSyncKStep(a.getElementType());
      if (!isMmaSyncDot(dot) || a.getDimSize(1) <= kStep ||
          a.getDimSize(1) % kStep != 0)
        return;
      LocalLoadOp readA = getSplittableRead(dot, dot.getA());
      LocalLoadOp readB = getSplittableRead(dot, dot.getB());
      if (readA || readB)
        work.emplace_back(dot, readA, readB);
    });
    for (auto [dot, readA, readB] : work)
      splitDot(dot, readA, readB);
    numSplitDots += work.size();
  }
};
} // namespace
