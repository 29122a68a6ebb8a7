//===- NamedOpConfigs.h - Tile configurations of the named ops --*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares how tile-expand-named-ops configures tile.gemm,
// tile.attention and tile.attention_backward: the per-chip rules, the `config`
// overrides and the checks that a configuration can run on the chip.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_NAMEDOPCONFIGS_H
#define TILEC_DIALECT_TILE_TRANSFORMS_NAMEDOPCONFIGS_H

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Target/TargetInfo.h"

namespace mlir::tilec::tile {

/// Block tile BM x BN with K steps of BK, `stages` shared-memory buffers per
/// operand, `warps` warps per block, `groupM` block rows per rasterization
/// group (consecutive programs sweep GROUP_M rows of tiles so that they share
/// B tiles in L2).
struct GemmConfig {
  int64_t blockM = 128;
  int64_t blockN = 256;
  int64_t blockK = 32;
  int64_t stages = 4;
  int64_t warps = 8;
  int64_t groupM = 8;
  /// sm_90a: a persistent kernel with a TMA producer warpgroup and wgmma
  /// consumer warpgroups (the kernel's warps), with setmaxnreg budgets.
  bool warpSpecialize = false;
  int64_t consumerRegs = 232;
  int64_t producerRegs = 40;
  /// Warp-specialized kernels with 16-bit outputs: the epilogue writes the
  /// tile to shared memory and stores it with TMA (asynchronously, while
  /// the consumers start on the next tile).
  bool tmaStore = false;
  /// Warp-specialized kernels: thread-block clusters of clusterM x clusterN
  /// programs on neighbouring tiles; A row blocks are multicast along N, B
  /// column blocks along M.
  int64_t clusterM = 1;
  int64_t clusterN = 1;
  /// A, B and C have 16-byte aligned bases and row strides of whole 16-byte
  /// chunks (kernel parameter hints the launch checks): cp.async, TMA and
  /// vector loads. Without it the scheduling passes leave the operand loads
  /// to the threads (any strides; the variant for other operands).
  bool aligned = true;
  /// The transposed product Cᵀ = Bᵀ Aᵀ (decode and other skinny GEMMs):
  /// once getGemmConfig has resolved it, blockM and blockN are the tile of
  /// that product, B's columns by A's rows (the op's config names C's).
  bool swapAB = false;
  /// Split-K: each tile's K steps in this many ranges, one program each;
  /// the partial products meet in a workspace (two kernels, see tile.gemm).
  int64_t splitK = 1;

  /// Shared memory of the operand ring and of the staged epilogue (which
  /// reuses the ring after the main loop, except in the warp-specialized
  /// kernel, where the producer refills the ring meanwhile).
  int64_t getPipelineBytes(unsigned elemBytes) const;
  int64_t getEpilogueBytes(unsigned outBytes) const;
};

/// The configuration of `op` on `target`: the chip's rule, then the op's
/// `config` overrides. Emits a diagnostic naming the violated limit when the
/// chip cannot run it.
FailureOr<GemmConfig> getGemmConfig(GemmOp op, const TargetInfo &target);

/// How tile.attention runs: `blockM` queries per program on `warps` warps,
/// keys in steps of `blockN` through a `stages`-deep K/V ring.
struct AttentionConfig {
  int64_t blockM, blockN, warps, stages = 2;
  /// The sm_90a schedule: a producer warp streams K and V with TMA into an
  /// mbarrier ring; the kernel's warps (consumer warpgroups) only compute.
  bool warpSpecialize = false;
  /// setmaxnreg of the consumer warpgroups and the producer. 232/40 against
  /// 240/24, interleaved A/B on the H200 (head dim 128, S = 1k/4k/16k):
  /// 555/614/632 TFLOP/s against 541/611/626, causal 561/630 against
  /// 534/623 at 4k/16k, head dim 64 475 against 455 at 4k
  /// (bench/results/2026-11-30_attention_sm90a_regs_h200.json). The
  /// persistent producer decodes tiles and carries two ring positions.
  int64_t consumerRegs = 232, producerRegs = 40;
  /// The two consumer warpgroups take turns issuing their products (named
  /// barriers), so that one's softmax overlaps the other's wgmma.
  bool pingpong = false;
  /// O leaves through shared memory (Q's buffer) and a TMA store.
  bool tmaStore = false;
  /// The warp-specialized kernel is persistent: one program per SM walks
  /// the (query block, head, batch) tiles; Q is double-buffered, so the
  /// producer loads the next tile's Q and K/V while the consumers finish
  /// this one.
  bool persistent = false;
  /// The warp-specialized kernel is built by the scheduling passes from the
  /// block program (tile-tma-pipeline, tile-wgmma-overlap,
  /// tile-warp-specialize, tile-persistent, tile-tma-store) instead of the
  /// hand-built FlashAttention-3 schedule (ExpandAttentionHandBuilt.cpp).
  /// The default up to head dim 128, where it is as fast; the hand-built
  /// schedule at head dim 256, while it is faster.
  bool byPasses = false;
  /// The cp.async schedule keeps Q in shared memory and reads its fragments
  /// there for every key block (ldmatrix) instead of holding them in
  /// registers: the registers then fit 32 query rows per warp, which halves
  /// the K and V fragment reads per product.
  bool qInSmem = false;
  /// The cp.async schedule runs the blocks every row sees whole in a loop
  /// without the mask and the rest in a second loop (the K/V ring drains
  /// between them); otherwise one loop masks the edge blocks in a branch.
  /// On the warp-specialized schedule: the schedule's split_loops (one loop
  /// split by tile-split-loops after warp specialization).
  bool splitLoops = true;
  /// Split-KV: each query block's keys in this many ranges (the `split`
  /// and `combine` kernels); 1: one kernel.
  int64_t splits = 1;
  /// Decode: the query heads of a K/V head are the rows of one query block
  /// (one query per head).
  bool packGqa = false;
};

/// The configuration of `op` (head dim `headDim`) on `target`: the chip's
/// rule, then the op's `config` overrides. A schedule the chip or the tiles
/// cannot run is an error when requested and otherwise falls back (the
/// warp-specialized one to cp.async).
FailureOr<AttentionConfig> getAttentionConfig(AttentionOp op,
                                              const TargetInfo &target,
                                              int64_t headDim);

/// The tiles of tile.attention_backward's kernels. The dQ kernel: `dqM`
/// queries per program, `dqN` keys per step, `dqWarps` warps; the dK/dV
/// kernel: `dkvN` keys per program, `dkvM` queries per step, `dkvWarps`
/// warps. The row kernels (pre, dq_scale) take `rowM` rows with `rowWarps`.
struct AttentionBackwardTiles {
  int64_t dqM = 128, dqN = 64, dqWarps = 8;
  int64_t dkvN = 128, dkvM = 64, dkvWarps = 8;
  int64_t rowM = 128, rowWarps = 4;
  /// dkdv_sum: keys per program (4 warps), one f32 [sumN, head_dim] sum
  /// live at a time.
  int64_t sumN = 64;
  /// The dK/dV loop loads the next query block's lse2 and Delta one step
  /// ahead (carried through the loop), off the critical path of the step:
  /// +7-12% on the mma.sync path, +0-7% on sm_90a.
  bool prefetchRows = true;
  /// sm_90a: the setmaxnreg budgets of the dK/dV kernel's consumer warps
  /// and producer; 0 for the scheduling passes' defaults.
  int64_t dkvConsumerRegs = 0, dkvProducerRegs = 0;
  /// The atomic mode's dK/dV kernel: columns of dQ per product dS K and
  /// atomic add (0: all of them).
  int64_t dqAddCols = 0;
  /// sm_90a: the dQ and dK/dV kernels' schedule<share_tiles = true> (one
  /// TMA copy of a tile two of their products read).
  bool shareTiles = false;
};

/// The tiles of `op` on `target`: the chip's rule (by head dim and mode;
/// rules::getAttentionBackwardConfig in include/tilec/Rules/ShapeRules.h,
/// which the Python package reads too), then the op's `config` overrides.
FailureOr<AttentionBackwardTiles>
getAttentionBackwardTiles(AttentionBackwardOp op, const TargetInfo &target);

} // namespace mlir::tilec::tile

#endif // TILEC_DIALECT_TILE_TRANSFORMS_NAMEDOPCONFIGS_H
