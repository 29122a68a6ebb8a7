//===- ExpandNamedOps.h - Pieces shared by the named-op expansions -*- C++
//-*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tile-expand-named-ops writes the block program of a named op
// (ExpandNamedOps.cpp: the driver and tile.gemm; ExpandAttention.cpp:
// tile.attention; ExpandAttentionBackward.cpp: tile.attention_backward). These
// are the helpers both expansions use: reading the sizes of the op's views, the
// launch grid rule, the alignment facts the fast path records on the kernel's
// parameters, and small tile builders.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILE_TRANSFORMS_EXPAND_EXPANDNAMEDOPS_H
#define TILEC_LIB_DIALECT_TILE_TRANSFORMS_EXPAND_EXPANDNAMEDOPS_H

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::tilec::tile {
struct AttentionConfig;
} // namespace mlir::tilec::tile

namespace mlir::tilec::tile::expand {

/// Size of dimension `dim` of a view made by tile.make_view, as an i32 value.
Value getViewSize(ImplicitLocOpBuilder &b, Value view, unsigned dim);

/// `v` as an affine expression over the kernel's parameters (symbols are
/// collected in `params`), for the grid rule; failure when `v` is neither a
/// kernel parameter nor a constant.
FailureOr<AffineExpr> getParamExpr(Value v, KernelOp kernel,
                                   SmallVectorImpl<int64_t> &params);

/// An i32 constant.
Value constI32(ImplicitLocOpBuilder &b, int64_t v);

/// A splat f32 constant tile of `shape`.
Value splatF32(ImplicitLocOpBuilder &b, ArrayRef<int64_t> shape, double v);

/// The 1-D tile `vec` repeated into a 2-D tile of `shape`: inserted as
/// dimension `axis` (0: a row repeated down the rows, 1: a column repeated
/// across the columns).
Value broadcastAlong(ImplicitLocOpBuilder &b, Value vec, unsigned axis,
                     ArrayRef<int64_t> shape);

/// Marks kernel parameter `v` (if it is one) with the alignment fact `name`
/// = `value` that the expanded code relies on.
void requireParam(KernelOp kernel, Value v, StringRef name, int64_t value);

/// Elements of `t` in 16 bytes: the chunk cp.async and TMA copy.
int64_t getChunkElems(Type t);

/// Records what 16-byte chunk copies of `view` (made by tile.make_view)
/// assume: a 16-byte aligned base and strides in whole chunks. Runtimes
/// check these before launching.
void requireChunkAligned(KernelOp kernel, Value view);

/// The kernel must consist of views, constants, the named op and the return.
LogicalResult checkOnlyComputation(KernelOp kernel, Operation *named);

/// Keeps the block program of a named op on the cp.async schedule its
/// config chose: no TMA ring, tile loop or TMA store from the scheduling
/// passes (other knobs the kernel sets stay), and `operandsInSmem` where
/// set (tile-pipeline keeps a tile loaded once for the loops' dots in
/// shared memory). A knob the kernel's own schedule sets wins.
void keepCpAsyncRing(KernelOp kernel,
                     std::optional<bool> operandsInSmem = std::nullopt);

/// Schedules the block program of a named op on sm_90a as its config chose:
/// TMA rings of `stages` stages read in place by async wgmma, a producer
/// warpgroup with `producerRegs` registers (consumers `consumerRegs`),
/// `persistent`, `tmaStore`, and `pingpong` and `splitLoops` where set. A
/// knob the kernel's own schedule sets wins.
void setWarpSpecializedSchedule(KernelOp kernel, int64_t stages,
                                int64_t producerRegs, int64_t consumerRegs,
                                bool persistent, bool tmaStore,
                                std::optional<bool> pingpong,
                                std::optional<bool> splitLoops = std::nullopt);

/// Sets the setmaxnreg budgets of a warp-specialized schedule (the producer
/// warpgroup's and the consumers'), for the scheduling passes to use if
/// they specialize the kernel. Budgets the kernel's own schedule sets win.
void setRegisterBudgets(KernelOp kernel, int64_t producerRegs,
                        int64_t consumerRegs);

/// Asks tile-tma-pipeline to give loads of one tile that several dots read
/// one copy (schedule<share_tiles = true>), unless the kernel's own
/// schedule says otherwise.
void setShareTiles(KernelOp kernel);

/// The kernel attribute (a string naming what) of the expansion that still
/// writes hardware-level ops itself, which the level check of
/// tile-expand-named-ops lets through: the hand-built FlashAttention-3
/// kernel (ExpandAttentionHandBuilt.cpp, "fa3"). It goes once the
/// scheduling passes build that kernel as fast.
inline constexpr llvm::StringLiteral kHandScheduledAttr = "tile.hand_scheduled";

/// Replaces `op` (the only computation of `kernel`) with its block program
/// (ExpandAttention.cpp).
LogicalResult expandAttention(AttentionOp op, KernelOp kernel,
                              const TargetInfo &target);

/// Expands the combine stage of a split-KV tile.attention (the split stage
/// is expandAttention's).
LogicalResult expandAttentionCombine(AttentionOp op, KernelOp kernel);

/// Replaces `op` (the only computation of `kernel`) with the finished sm_90a
/// FlashAttention-3 kernel written by hand (ExpandAttentionHandBuilt.cpp)
/// for `config` (expandAttention's, with the warp-specialized schedule): the
/// default at head dim 256 until the scheduling passes match it.
LogicalResult expandAttentionHandBuilt(AttentionOp op, KernelOp kernel,
                                       const AttentionConfig &config);

/// Replaces `op` (the only computation of `kernel`, with its stage set) with
/// the block program of its stage (ExpandAttentionBackward.cpp).
LogicalResult expandAttentionBackward(AttentionBackwardOp op, KernelOp kernel,
                                      const TargetInfo &target);

} // namespace mlir::tilec::tile::expand

#endif // TILEC_LIB_DIALECT_TILE_TRANSFORMS_EXPAND_EXPANDNAMEDOPS_H
