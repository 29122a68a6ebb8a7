//===- ShapeRules.h - per-shape configuration of the named ops --*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The shape-class dispatch of tile.gemm and tile.attention: which fields of
// the op's typed config (#tile.gemm_config / #tile.attention_config) a
// problem of a given shape sets differently from the chip's default, as a
// library dispatches per shape class. Plain C++17 without LLVM or MLIR, so
// that the Python package reads the same rule on a machine with no compiler
// (libtilec-rules.so, include/tilec-c/Rules.h); tile-expand-named-ops
// applies it where a GEMM's sizes are static. Chips are looked up in the
// compiler's table (include/tilec/Target/Chips.h), by feature.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RULES_SHAPERULES_H
#define TILEC_RULES_SHAPERULES_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilec::rules {

/// The fields of #tile.gemm_config a GEMM rule sets (unset: the chip's
/// default). Members are named as the attribute's fields (block_m:
/// blockM).
struct GemmShapeConfig {
  std::optional<int64_t> blockM, blockN, blockK, stages, warps, splitK;
  std::optional<bool> swapAb, tmaStore;
};

/// The fields of #tile.attention_config the attention rule sets.
struct AttentionShapeConfig {
  std::optional<bool> persistent;
};

/// The fields of #tile.attention_backward_config the backward rule sets.
struct AttentionBackwardShapeConfig {
  std::optional<int64_t> dqM, dqN, dqWarps, dkvN, dkvM, dkvWarps;
  std::optional<int64_t> consumerRegs, producerRegs, dqAddCols;
  std::optional<bool> shareTiles;
};

/// The fields `config` sets as the C API writes them (include/tilec-c/
/// Rules.h): "field=value,field=value" with the attribute's field names,
/// sorted by name, flags 0 or 1; "" where it sets none. These functions
/// are the only place that names the fields.
std::string formatConfig(const GemmShapeConfig &config);
std::string formatConfig(const AttentionShapeConfig &config);
std::string formatConfig(const AttentionBackwardShapeConfig &config);

/// Streaming multiprocessors of the GPU the rule is tuned for on `chip`
/// (the chip table's typicalNumSMs, include/tilec/Target/Chips.h: e.g. the
/// H100 / H200 SXM's 132 on sm_90a and sm_90); 0 for other chips.
int64_t getTypicalNumSMs(std::string_view chip);

/// tile.gemm of M x N x K on `chip` with `numSMs` multiprocessors (0: the
/// chip's typical count). On sm_90a the default 128x256 tile leaves most
/// SMs idle when there are fewer tiles than half the SMs (e.g. M = 128
/// decode-style GEMMs): narrower N tiles give every SM a share of B to
/// stream (the kernel is bound by reading B then, and 64-wide tiles keep up
/// to 8 stages in flight). N that is not a multiple of 8 takes the epilogue
/// without TMA stores (its 16-byte row chunks).
/// With `canSwapAB` (bf16/f16, a column-major B, a 2-D GEMM), M up to 64
/// (decode steps) takes the transposed product instead: B's columns ride
/// the MMA's M, 64 per program (128 for long ones at M > 32 on sm_90a), and
/// A's rows its N, M rounded up to 16, 32 or 64, so no MMA row is padding
/// (sm_90a's wgmma; mma.sync chips take 16- or 32-token tiles).
/// With `canSplitK` (a 2-D GEMM without block scales or i8 inputs, whose
/// caller can pass tile.gemm a workspace), a shape whose weight streams
/// (its tiles of B's columns) fill at most half the SMs also takes
/// `split_k`: each tile's K in ranges of at least kGemmSplitKMinSteps K
/// steps, up to one or two streams per SM as measured per tile class (none
/// on sm_90a's transposed tiles).
GemmShapeConfig getGemmShapeConfig(std::string_view chip, int64_t m, int64_t n,
                                   int64_t k, int64_t numSMs = 0,
                                   bool canSwapAB = false,
                                   bool canSplitK = false);

/// The largest M the transposed product (swap_ab) takes.
constexpr int64_t kGemmSwapABMaxM = 64;

/// A grouped tile.gemm (`groups` problems sharing N and K, `rows` rows of A
/// in all: an MoE layer's experts) on `chip` with `numSMs` multiprocessors
/// (0: the chip's typical count). With `canSwapAB` (bf16/f16, a
/// column-major B), groups of a few rows on average (decode steps: a few
/// tokens per expert) take the transposed product: on sm_90a up to
/// kGroupedGemmSwapABMaxRows rows per group, on 16-, 32- or 64-token tiles
/// (the average rounded up); on the mma.sync chips up to
/// kGroupedGemmSwapABMaxRowsMmaSync, on their 16-token decode tiles.
/// Otherwise the tiles of getGemmShapeConfig for `rows` x N x K, without
/// the fields a grouped GEMM does not take (tma_store, split_k).
GemmShapeConfig getGroupedGemmShapeConfig(std::string_view chip, int64_t rows,
                                          int64_t groups, int64_t n, int64_t k,
                                          int64_t numSMs = 0,
                                          bool canSwapAB = false);

/// The most rows per group, on average, for which a grouped GEMM runs
/// transposed on sm_90a, and on the mma.sync chips.
constexpr int64_t kGroupedGemmSwapABMaxRows = 64;
constexpr int64_t kGroupedGemmSwapABMaxRowsMmaSync = 32;

/// Split-K: the fewest K steps per range, and the most ranges.
constexpr int64_t kGemmSplitKMinSteps = 8;
constexpr int64_t kGemmSplitKMax = 16;

/// Longest causal query sequence for which tile.attention takes the
/// persistent sm_90a kernel.
constexpr int64_t kAttentionPersistentCausalMaxSeq = 2048;

/// tile.attention of `seqQ` queries at `headDim` on `chip`. On sm_90a
/// causal attention runs on the hardware's block scheduler by default (one
/// program per query block, longest first). At short sequences the
/// persistent kernel leads: its programs take pairs of query blocks of
/// equal work and load the next tile's Q and K/V while they finish this one
/// (H200, B*S = 16k, S = 1k: head dim 128 380 against 365 TFLOP/s, head dim
/// 64 276 against 246; at 16k it trails, 567 against 620:
/// bench/results/2026-11-30_attention_sm90a_causal_pairs_h200.json).
AttentionShapeConfig getAttentionShapeConfig(std::string_view chip,
                                             int64_t seqQ, int64_t headDim,
                                             bool causal);

/// The most key ranges of a split-KV tile.attention, and the fewest key
/// blocks a range streams.
constexpr int64_t kAttentionMaxSplits = 64;
constexpr int64_t kAttentionSplitMinBlocks = 4;

/// The key ranges (`splits`) of decode attention on `chip` (`numSMs`
/// multiprocessors, 0: the chip's typical count): `batch` x `kvHeads` query
/// blocks of `queryRows` rows (packed query heads times queries) against
/// `seqK` keys at `headDim`. Decode streams the KV cache: one program per
/// query block leaves most SMs idle unless the batch is large, so the keys
/// are split until the programs fill whole waves of the chip, each range
/// keeping at least kAttentionSplitMinBlocks key blocks (1: no split). A
/// power of two, so that a library prebuilds a few kernels.
int64_t getAttentionDecodeSplits(std::string_view chip, int64_t batch,
                                 int64_t kvHeads, int64_t queryRows,
                                 int64_t seqK, int64_t headDim,
                                 int64_t numSMs = 0);

/// The tiles of tile.attention_backward's kernels on `chip` at `headDim`,
/// in the atomic mode or not: the fields of #tile.attention_backward_config
/// that differ from its defaults (the dQ kernel 128 queries x 64 keys on 8
/// warps, the dK/dV kernel 128 keys x 64 queries on 8 warps, prefetch_rows,
/// no register budgets, dQ added whole). The fastest of the variants
/// measured on the H200 (scripts/build/build_backward_artifacts.py,
/// bench/results/2026-12-04_attention_backward*_h200.json). The Python
/// package reads the same rule for the kernels it writes.
AttentionBackwardShapeConfig
getAttentionBackwardConfig(std::string_view chip, int64_t headDim, bool atomic);

/// The chip tilec targets on a device of compute capability major.minor
/// and the ISA its cubin is assembled for: the device's own ISA where tilec
/// has one (sm_90a on Hopper), else the closest older chip's PTX assembled
/// for the device. False where tilec has no kernels (before sm_80). Read
/// from the chip table (SM versions, arch-specific chips).
bool getChipForCapability(int major, int minor, std::string &chip,
                          std::string &cubinArch);

} // namespace tilec::rules

#endif // TILEC_RULES_SHAPERULES_H
