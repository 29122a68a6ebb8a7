//===- ScheduleUtils.h - Helpers of the scheduling passes -------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares what the scheduling passes (tile-pipeline,
// tile-tma-pipeline, tile-async-wgmma, tile-warp-specialize) share: facts
// proven about integer values (divisibility, pointer alignment), the
// computation of a loop's offsets for another iteration, ring positions of
// mbarrier rings, and the remarks a pass leaves when it declines.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_SCHEDULEUTILS_H
#define TILEC_DIALECT_TILE_TRANSFORMS_SCHEDULEUTILS_H

#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tilec {
struct TargetInfo;
} // namespace mlir::tilec

namespace mlir::tilec::tile {

/// The discardable attribute that marks an op of a pipelined loop (and of
/// its prologue) as producer work: the copies that fill a ring stage and
/// the waits for the stage to be free. tile-warp-specialize moves these to
/// the producer warps; without it every warp runs them in place.
constexpr StringLiteral kProducerAttr = "tile.producer";

/// The discardable attribute of the tile loop tile-persistent creates (for
/// readers of the IR: passes know a tile loop by its place, a loop at the top
/// of a persistent kernel, which a program may also write itself).
constexpr StringLiteral kPersistentLoopAttr = "tile.persistent_loop";

/// The discardable attribute of a two-stage buffer tile-pipeline stages a
/// loop's register tiles through for wgmma (one stage per iteration
/// parity): the loop rewrites a stage only after the wgmma two iterations
/// back retired, so tile-async-wgmma may keep a group in flight.
constexpr StringLiteral kStagingBufferAttr = "tile.staging_buffer";

/// The discardable attribute of a key loop whose builder already masks only
/// the iterations that need it (the named attention's expansions):
/// tile-mask-bounds leaves its selects alone.
constexpr StringLiteral kMasksBoundedAttr = "tile.masks_bounded";

/// The discardable attribute of the comparisons of the induction variable
/// that tile-mask-bounds branches on (tile-split-loops splits on them, or
/// resolves them to the masked branch where a split was measured slower).
constexpr StringLiteral kMaskBoundAttr = "tile.mask_bound";

/// Largest power of two known to divide the integer value `v`: constants,
/// kernel parameters with `tile.divisibility`, loop induction variables,
/// sums, products and shifts of those.
int64_t getDivisibility(Value v);
/// The same for a size or stride of tile.make_view: a constant or a value.
int64_t getDivisibility(OpFoldResult v);

/// Byte alignment known for a kernel pointer parameter (`tile.align`), at
/// least `elemBytes`.
int64_t getPointerAlignment(Value ptr, unsigned elemBytes);

/// True when every op computing `v` inside `loop`'s body is pure and has no
/// regions, so that `v` can be recomputed for another iteration.
bool isRecomputableInLoop(Value v, scf::ForOp loop);

/// Whether `v` is computed from data the kernel loads (tile.load_scalar,
/// or another op that reads memory).
bool dependsOnLoadedData(Value v);

/// Clones the computation of `values` (recomputable in `loop`, see above)
/// at the builder's insertion point with the induction variable replaced by
/// `iv`; returns the clones of `values`.
SmallVector<Value> cloneForIteration(OpBuilder &b, scf::ForOp loop,
                                     ValueRange values, Value iv);

/// True for a dot lowered to wgmma: B (and A, or A in registers) read from
/// shared memory in place.
bool isWgmma(DotOp dot);

/// Whether `v` is usable before `top` (an op in the kernel's body block): a
/// parameter of that block or defined by an op before `top` in it.
bool isAvailableBefore(Value v, Operation *top);

/// Whether `loop` is a softmax loop that runs fastest as two programs per
/// SM, which hide each other's register work: its body has two dots, one
/// reading what the other computed (attention's forward: P = softmax(Q Kᵀ),
/// then P V), and its kernel has 4 warps (one warpgroup), or 8 whose
/// estimated registers (estimateLoopRegisters plus kRegisterReserve) fit
/// half the register file. The TMA ring then leaves room for a second
/// program and no producer warpgroup is split off (its register split
/// leaves registers for one program). Measured on an H100: 1.17-1.37x the
/// warp-specialized 8-stage schedule on the corpus's 4-warp attention
/// programs (bench/results/2026-12-06_corpus_attention_ab_h100.json), 1.10x
/// on the 8-warp head-dim-64 attention_rows
/// (bench/results/2026-12-06_owed_probe_h100.json).
bool isTwoProgramSoftmaxLoop(scf::ForOp loop, const TargetInfo &target);

/// The `tile.warpgroup_wait 0` right after `dot` that retires its result
/// alone (the dot's only use), or null.
WarpgroupWaitOp getWaitFor(DotOp dot);

/// An i32 constant.
Value createI32(OpBuilder &b, Location loc, int64_t v);

/// The sizes of `kernel`'s grid (x, y, z; as many as its grid rule has),
/// computed at the builder's point from the rule and the kernel's
/// parameters; empty when the kernel has no grid rule.
SmallVector<Value> emitGridSizes(OpBuilder &b, Location loc, KernelOp kernel);

/// The position after stage `s` of a `stages`-deep ring whose waits expect
/// parity `ph`: the next stage, and the parity flipped on wrap.
std::pair<Value, Value> advanceRing(OpBuilder &b, Location loc, Value s,
                                    Value ph, int64_t stages);

/// The position `n` (a constant below `stages`) stages after (`s`, `ph`).
std::pair<Value, Value> advanceRingBy(OpBuilder &b, Location loc, Value s,
                                      Value ph, int64_t n, int64_t stages);

/// The position `n` (an i32 value, n >= 0) stages after (`s`, `ph`): the
/// stage (s + n) mod `stages`, the parity flipped once per wrap.
std::pair<Value, Value> advanceRingByCount(OpBuilder &b, Location loc,
                                           Value s, Value ph, Value n,
                                           int64_t stages);

/// The number of iterations of `loop` (an i32 scf.for), computed from its
/// bounds at the builder's point: max(0, ceildiv(ub - lb, step)).
Value getTripCount(OpBuilder &b, Location loc, scf::ForOp loop);

/// When `stage` is a ring stage carried by `loop` (advanced by
/// advanceRing every iteration), the ring's depth.
std::optional<int64_t> getCarriedRingDepth(scf::ForOp loop, Value stage);

/// The stage before `s` in a `stages`-deep ring.
Value getPreviousStage(OpBuilder &b, Location loc, Value s, int64_t stages);

/// The parity a producer waits for on a stage's empty barrier before
/// refilling the stage whose full barrier consumers wait on with parity
/// `ph`: the opposite one (a fresh barrier has completed the phase of
/// parity 1).
Value getFreeParity(OpBuilder &b, Location loc, Value ph);

/// Where `op` is, for a remark's text: "line N" of its file location (also
/// inside fused or named locations), the location as printed otherwise.
std::string getLineOf(Operation *op);

/// Emits a missed remark of `pass` on `op` (visible with
/// `--remarks-filter=<pass>`, or `tilec --remarks=<pass>`).
void remarkMissed(Operation *op, StringRef pass, StringRef name,
                  const Twine &reason);
/// Emits a passed remark of `pass` on `op`.
void remarkPassed(Operation *op, StringRef pass, StringRef name,
                  const Twine &what);
/// The same at `loc` (for an op the pass has already replaced).
void remarkPassed(Location loc, StringRef pass, StringRef name,
                  const Twine &what);

} // namespace mlir::tilec::tile

#endif // TILEC_DIALECT_TILE_TRANSFORMS_SCHEDULEUTILS_H
