//===- TmaStore.cpp - Whole-tile stores through TMA -----------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-tma-store: an epilogue's store of a whole tile
// (an accumulator fragment converted to a coalesced layout and stored)
// becomes a write of the fragment into a 128-byte swizzled staging buffer
// and a TMA store of it, which completes while the program goes on (the
// next tile's main loop, in a persistent kernel):
//
//   tile.store cvt(x), %view[offsets]      tma_store_wait 0   // the buffer is free
//                                  ->     barrier; local_store x -> staging
//                                          fence.proxy.async; barrier
//                                          tma_store %map[offsets], staging
//   ... tile.return                        tma_store_wait 0; tile.return
//
// The swizzled write needs no conversion between layouts (the staging buffer
// replaces the conversion's scratch area). TMA clips rows and columns past
// the view; it writes whole 16-byte chunks of a row, so the row length must
// be known to be a multiple of 16 bytes (`tile.divisibility`).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Resources.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"
#include "tilec/Target/TargetInfo.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILETMASTORE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kPassName = "tile-tma-store";

/// The 128-byte swizzled layout of a staging tile contiguous along its rows.
static SharedEncodingAttr getStagingLayout(MLIRContext *ctx) {
  return SharedEncodingAttr::getHardwareSwizzled(ctx, /*elemBytes=*/2,
                                                 /*swizzleBytes=*/128,
                                                 /*contig=*/1);
}

/// Why `store` cannot leave through TMA (empty when it can).
static std::string checkStore(StoreOp store) {
  if (store.getMask())
    return "the store is masked";
  auto type = cast<RankedTensorType>(store.getValue().getType());
  ViewType view = store.getView().getType();
  if (type.getRank() != 2)
    return "only 2-D tiles are staged";
  if (getStorageBytes(type.getElementType()) != 2)
    return "only 16-bit tiles are staged (64-column boxes of 128 bytes)";
  if (type.getDimSize(1) % 64 != 0 || type.getDimSize(0) > 256)
    return "the tile is not made of 64-column boxes of at most 256 rows";
  if (view.getContiguousDim() != view.getRank() - 1)
    return "the view is not contiguous along the tile's rows";
  std::string problem =
      MakeTensorMapOp::getViewProblem(store.getView(), view.getRank() - 1);
  if (!problem.empty())
    return problem;
  auto make = store.getView().getDefiningOp<MakeViewOp>();
  OpFoldResult rowLen = make.getMixedSize(view.getRank() - 1);
  int64_t div = isa<Value>(rowLen)
                    ? getDivisibility(cast<Value>(rowLen))
                    : cast<IntegerAttr>(cast<Attribute>(rowLen)).getInt();
  if (div % 8 != 0)
    return "the row length is not known to be a multiple of 8 elements (TMA "
           "stores whole 16-byte chunks; annotate it with "
           "{tile.divisibility = 8 : i64})";
  // The tensor map is made once, before the store's top-level op (the tile
  // loop): the view must be computable there.
  Block &body = store->getParentOfType<KernelOp>().getBody().front();
  Operation *top = body.findAncestorOpInBlock(*store);
  if (make->getBlock() != &body || !make->isBeforeInBlock(top))
    for (Value v : make->getOperands()) {
      Operation *d = v.getDefiningOp();
      bool before = d ? d->getBlock() == &body && d->isBeforeInBlock(top)
                      : cast<BlockArgument>(v).getOwner() == &body;
      if (!before)
        return "the output view is computed inside the tile loop (its "
               "tensor map is made once, before it)";
    }
  return "";
}

/// Rewrites `store` as in the file comment; `staging` and `map` are created
/// before `top` (a top-level op of the kernel).
static void stageStore(StoreOp store, Operation *top) {
  MLIRContext *ctx = store.getContext();
  Location loc = store.getLoc();
  auto type = cast<RankedTensorType>(store.getValue().getType());
  SharedEncodingAttr enc = getStagingLayout(ctx);
  ViewType view = store.getView().getType();
  OpBuilder b(top);
  SmallVector<int64_t> box(view.getRank() - 2, 1);
  box.push_back(type.getDimSize(0));
  box.push_back(64);
  Value viewValue = store.getView();
  Operation *viewDef = viewValue.getDefiningOp();
  if (viewDef->getBlock() != top->getBlock() || !viewDef->isBeforeInBlock(top))
    viewDef->moveBefore(top);
  Value map = MakeTensorMapOp::create(
      b, loc, TensorMapType::get(ctx, box, type.getElementType(), enc),
      viewValue);
  Value staging = LocalAllocOp::create(
      b, loc,
      SmemType::get(ctx, {1, type.getDimSize(0), type.getDimSize(1)},
                    type.getElementType(), enc));

  b.setInsertionPoint(store);
  Value value = store.getValue();
  // The fragment is written as it is: no conversion to a coalesced layout.
  if (auto cvt = value.getDefiningOp<ConvertLayoutOp>();
      cvt && getDistributedLayout(cvt.getSrc().getType()))
    value = cvt.getSrc();
  Value zero = createI32(b, loc, 0);
  TmaStoreWaitOp::create(b, loc, 0);
  BarrierOp::create(b, loc);
  LocalStoreOp::create(b, loc, value, staging, zero);
  FenceAsyncSharedOp::create(b, loc);
  BarrierOp::create(b, loc);
  TmaStoreOp::create(b, loc, map, store.getOffsets(), staging, zero);
  Operation *cvt = store.getValue().getDefiningOp();
  store.erase();
  if (cvt && isa<ConvertLayoutOp>(cvt) && cvt->use_empty())
    cvt->erase();
}

namespace {
struct TileTmaStorePass : tile::impl::TileTmaStoreBase<TileTmaStorePass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileTmaStorePass::runOnOperation() {
  KernelOp kernel = getOperation();
  FailureOr<TargetInfo> target = resolveTarget(kernel, chip);
  if (failed(target))
    return signalPassFailure();
  if (!target->hasTma)
    return;
  ScheduleAttr schedule = kernel.getScheduleAttr();
  if (schedule && !ScheduleAttr::flag(schedule.getTmaStore(), true))
    return;
  // The epilogue's stores: those outside the program's loops or, in a
  // persistent kernel, in its tile loop (a loop at the top of the body, made
  // by tile-persistent or written by the program), each writing a tile.
  SmallVector<StoreOp> stores;
  kernel.walk([&](StoreOp store) {
    auto loop = store->getParentOfType<scf::ForOp>();
    if (!loop ||
        (kernel.getPersistent() && loop->getParentOp() == kernel.getOperation()))
      stores.push_back(store);
  });
  Block &body = kernel.getBody().front();
  bool staged = false;
  for (StoreOp store : stores) {
    std::string why = checkStore(store);
    if (!why.empty()) {
      remarkMissed(store, kPassName, "NotStaged",
                   "the tile is stored by the threads: " + why);
      continue;
    }
    remarkPassed(store, kPassName, "Staged",
                 "the tile leaves through shared memory and a TMA store");
    stageStore(store, body.findAncestorOpInBlock(*store));
    ++numTmaStores;
    staged = true;
  }
  // The last stores have read their staging buffers before the block exits.
  if (staged) {
    OpBuilder b(body.getTerminator());
    TmaStoreWaitOp::create(b, kernel.getLoc(), 0);
  }
}
