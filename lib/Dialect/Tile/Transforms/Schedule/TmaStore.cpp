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
// A tile.atomic_add of a whole f32 tile, anywhere in the program (e.g. in
// the loop of an attention backward that accumulates dQ over key blocks),
// is staged the same way and leaves as one bulk reduction per box
// (`tile.tma_store add`: cp.reduce.async.bulk.tensor .add), the additions
// made at the L2 on whole lines instead of one atomic per element.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/Resources.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"
#include "tilec/Target/TargetInfo.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILETMASTORE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kTmaStorePass = "tile-tma-store";

/// The 128-byte swizzled layout of a staging tile of `elemBytes`-byte
/// elements contiguous along its rows.
static SharedEncodingAttr getStagingLayout(MLIRContext *ctx,
                                           unsigned elemBytes) {
  return SharedEncodingAttr::getHardwareSwizzled(ctx, elemBytes,
                                                 /*swizzleBytes=*/128,
                                                 /*contig=*/1);
}

/// The columns of one 128-byte box of a staged tile.
static int64_t getBoxColumns(RankedTensorType type) {
  return 128 / getStorageBytes(type.getElementType());
}

/// A whole-tile write that can leave through TMA: a tile.store, or a
/// tile.atomic_add (a reducing TMA store).
struct TileWrite {
  Operation *op;
  Value value, view, mask;
  ValueRange offsets;
  bool add;
};

static TileWrite getWrite(Operation *op) {
  if (auto store = dyn_cast<StoreOp>(op))
    return {op, store.getValue(), store.getView(), store.getMask(),
            store.getOffsets(), false};
  auto add = cast<AtomicAddOp>(op);
  return {op, add.getValue(), add.getView(), add.getMask(), add.getOffsets(),
          true};
}

/// Why `w` cannot leave through TMA (empty when it can).
static std::string checkWrite(const TileWrite &w) {
  if (w.mask)
    return w.add ? "the add is masked" : "the store is masked";
  auto type = cast<RankedTensorType>(w.value.getType());
  ViewType view = cast<ViewType>(w.view.getType());
  if (type.getRank() != 2)
    return "only 2-D tiles are staged";
  unsigned bytes = getStorageBytes(type.getElementType());
  if (!w.add && bytes != 2)
    return "only 16-bit tiles are staged (64-column boxes of 128 bytes)";
  int64_t boxCols = getBoxColumns(type);
  if (type.getDimSize(1) % boxCols != 0 || type.getDimSize(0) > 256)
    return ("the tile is not made of " + Twine(boxCols) +
            "-column boxes of at most 256 rows")
        .str();
  // The staging buffer's 128-byte swizzle repeats every 8 rows: a box of
  // it holds whole 8-row atoms.
  if (type.getDimSize(0) % 8 != 0)
    return ("the tile's " + Twine(type.getDimSize(0)) +
            " rows are not a multiple of 8 (a 128-byte swizzled box holds "
            "whole 8-row atoms)")
        .str();
  if (view.getContiguousDim() != view.getRank() - 1)
    return "the view is not contiguous along the tile's rows";
  std::string problem =
      MakeTensorMapOp::getViewProblem(w.view, view.getRank() - 1);
  if (!problem.empty())
    return problem;
  auto make = w.view.getDefiningOp<MakeViewOp>();
  int64_t chunk = 16 / bytes;
  if (getDivisibility(make.getMixedSize(view.getRank() - 1)) % chunk != 0)
    return ("the row length is not known to be a multiple of " +
            Twine(chunk) +
            " elements (TMA writes whole 16-byte chunks; annotate it with "
            "{tile.divisibility = " +
            Twine(chunk) + " : i64})")
        .str();
  // The tensor map is made once, before the write's top-level op (the tile
  // loop): the view must be computable there.
  Block &body = w.op->getParentOfType<KernelOp>().getBody().front();
  Operation *top = body.findAncestorOpInBlock(*w.op);
  if (make->getBlock() != &body || !make->isBeforeInBlock(top))
    for (Value v : make->getOperands())
      if (!isAvailableBefore(v, top))
        return "the output view is computed inside the tile loop (its "
               "tensor map is made once, before it)";
  return "";
}

/// Rewrites `w` as in the file comment; `staging` and `map` are created
/// before `top` (a top-level op of the kernel). Atomic adds of one tile type
/// share a staging buffer (`addStaging`): each waits until the previous
/// reduction has read it. (Stores keep their own: tile-tma-pipeline may
/// load an operand into a store's buffer for the whole loop.)
static void stageWrite(const TileWrite &w, Operation *top,
                       DenseMap<Type, Value> &addStaging) {
  MLIRContext *ctx = w.op->getContext();
  Location loc = w.op->getLoc();
  auto type = cast<RankedTensorType>(w.value.getType());
  SharedEncodingAttr enc =
      getStagingLayout(ctx, getStorageBytes(type.getElementType()));
  ViewType view = cast<ViewType>(w.view.getType());
  OpBuilder b(top);
  SmallVector<int64_t> box(view.getRank() - 2, 1);
  box.push_back(type.getDimSize(0));
  box.push_back(getBoxColumns(type));
  Value viewValue = w.view;
  Operation *viewDef = viewValue.getDefiningOp();
  if (viewDef->getBlock() != top->getBlock() || !viewDef->isBeforeInBlock(top))
    viewDef->moveBefore(top);
  Value map = MakeTensorMapOp::create(
      b, loc, TensorMapType::get(ctx, box, type.getElementType(), enc),
      viewValue);
  auto stagingType = SmemType::get(
      ctx, {1, type.getDimSize(0), type.getDimSize(1)}, type.getElementType(),
      enc);
  Value staging = w.add ? addStaging.lookup(stagingType) : Value();
  if (!staging)
    staging = LocalAllocOp::create(b, loc, stagingType);
  if (w.add)
    addStaging[stagingType] = staging;

  b.setInsertionPoint(w.op);
  Value value = w.value;
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
  TmaStoreOp::create(b, loc, map, w.offsets, staging, zero, w.add);
  Operation *cvt = w.value.getDefiningOp();
  w.op->erase();
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
  // Atomic adds anywhere: each is a reduction of its own, whose staging
  // buffer the next one waits for.
  SmallVector<Operation *> writes;
  kernel.walk([&](Operation *op) {
    if (isa<AtomicAddOp>(op)) {
      writes.push_back(op);
      return;
    }
    if (!isa<StoreOp>(op))
      return;
    auto loop = op->getParentOfType<scf::ForOp>();
    if (!loop ||
        (kernel.getPersistent() && loop->getParentOp() == kernel.getOperation()))
      writes.push_back(op);
  });
  Block &body = kernel.getBody().front();
  bool staged = false;
  DenseMap<Type, Value> addStaging;
  for (Operation *op : writes) {
    TileWrite w = getWrite(op);
    std::string why = checkWrite(w);
    if (!why.empty()) {
      remarkMissed(op, kTmaStorePass, "NotStaged",
                   w.add ? "the tile is added by the threads' atomics: " + why
                         : "the tile is stored by the threads: " + why);
      continue;
    }
    remarkPassed(op, kTmaStorePass, "Staged",
                 w.add ? "the tile leaves through shared memory and a TMA "
                         "reduction (add)"
                       : "the tile leaves through shared memory and a TMA "
                         "store");
    stageWrite(w, body.findAncestorOpInBlock(*op), addStaging);
    ++numTmaStores;
    staged = true;
  }
  // The last stores have read their staging buffers before the block exits.
  if (staged) {
    OpBuilder b(body.getTerminator());
    TmaStoreWaitOp::create(b, kernel.getLoc(), 0);
  }
}
