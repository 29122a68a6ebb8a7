//===- ShapeRules.cpp - per-shape configuration of the named ops ----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tilec/Rules/ShapeRules.h"
#include "tilec/Target/Chips.h"

#include <algorithm>
#include <utility>

using namespace tilec::rules;
using tilec::ChipInfo;
using tilec::getChips;
using tilec::getNumChips;
using tilec::lookupChip;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t tilec::rules::getTypicalNumSMs(std::string_view chip) {
  const ChipInfo *info = lookupChip(chip);
  return info ? info->typicalNumSMs : 0;
}

/// Whether `chip` is a known chip with wgmma (sm_90a), whose kernels the
/// rules below tune apart from mma.sync's.
static bool hasWgmma(std::string_view chip) {
  const ChipInfo *info = lookupChip(chip);
  return info && info->hasWgmma;
}

/// Whether `chip` is a known chip whose GEMMs and attention run on mma.sync
/// (sm_80, sm_86, sm_89, and sm_90 without its wgmma).
static bool isMmaSyncChip(std::string_view chip) {
  const ChipInfo *info = lookupChip(chip);
  return info && info->hasMmaBf16 && !info->hasWgmma;
}

/// Whether `chip` is a known chip with at most 99 KB of shared memory per
/// block (sm_86, sm_89), where some tiles of the other mma.sync chips do not
/// fit.
static bool hasSmallSmem(std::string_view chip) {
  const ChipInfo *info = lookupChip(chip);
  return info && info->maxSmemPerBlock <= 99 * 1024;
}

namespace {
/// Writes the fields a rule sets as "field=value,field=value" (flags 0 or
/// 1), in the order it is given them.
class ConfigWriter {
public:
  void operator()(std::string_view field, std::optional<int64_t> value) {
    if (!value)
      return;
    if (!text.empty())
      text += ',';
    text.append(field);
    text += '=';
    text += std::to_string(*value);
  }
  void operator()(std::string_view field, std::optional<bool> value) {
    if (value)
      (*this)(field, std::optional<int64_t>(*value ? 1 : 0));
  }
  std::string take() { return std::move(text); }

private:
  std::string text;
};
} // namespace

// formatConfig: the fields by their attribute names, sorted by name (the
// C API's order).

std::string tilec::rules::formatConfig(const GemmShapeConfig &config) {
  ConfigWriter write;
  write("block_k", config.blockK);
  write("block_m", config.blockM);
  write("block_n", config.blockN);
  write("split_k", config.splitK);
  write("stages", config.stages);
  write("swap_ab", config.swapAb);
  write("tma_store", config.tmaStore);
  write("warps", config.warps);
  return write.take();
}

std::string tilec::rules::formatConfig(const AttentionShapeConfig &config) {
  ConfigWriter write;
  write("persistent", config.persistent);
  return write.take();
}

std::string
tilec::rules::formatConfig(const AttentionBackwardShapeConfig &config) {
  ConfigWriter write;
  write("consumer_regs", config.consumerRegs);
  write("dkv_m", config.dkvM);
  write("dkv_n", config.dkvN);
  write("dkv_warps", config.dkvWarps);
  write("dq_add_cols", config.dqAddCols);
  write("dq_m", config.dqM);
  write("dq_n", config.dqN);
  write("dq_warps", config.dqWarps);
  write("producer_regs", config.producerRegs);
  write("share_tiles", config.shareTiles);
  return write.take();
}

/// How many weight streams per SM split-K aims for with `config`'s tiles
/// (0: no split-K). A stream is a tile of B's columns over one K range:
/// the transposed tiles' programs of one weight tile (its token rows) read
/// the same weights, from L2 after the first. Measured on the H200
/// (bench/results/2026-12-05_split_k_decode_h200.json, CUDA graphs against
/// cuBLAS, Llama-3 projections at M = 1..64):
/// - sm_90a's transposed tiles stream the weights at 2.5-4 TB/s from one
///   program per SM; split-K only added the reduction (0.56-0.98x of the
///   unsplit kernel): none.
/// - sm_90a's untransposed tiles (a row-major B): one wave (0.34-0.53x
///   cuBLAS unsplit, 0.53-0.68x in 2 ranges).
/// - mma.sync's 16-token tiles (an 8-deep ring): one wave (N = 4096 in 2
///   ranges: 0.60-0.86x -> 0.95-0.99x).
/// - mma.sync's 32-token tiles (the default ring) keep fewer loads in
///   flight: two per SM (4 ranges at N = 4096: 0.53-0.69x -> 0.83-0.93x;
///   2 at N = 8192: 0.70-0.78x -> 0.71-0.98x).
/// - mma.sync's untransposed 128 x 256 tiles (a row-major B): one wave (16
///   tiles unsplit 0.10-0.14x, in 2 ranges 0.19-0.25x, in 8 0.49-0.67x;
///   bench/results/2026-12-05_decode_rules_h200.json).
static int64_t getSplitKStreamsPerSM(const GemmShapeConfig &config,
                                     std::string_view chip) {
  bool swapped = config.swapAb.value_or(false);
  if (!swapped)
    return 1;
  if (hasWgmma(chip))
    return 0;
  return config.stages.value_or(0) >= 8 ? 1 : 2;
}

/// Split-K for `config` (the rest of the rule's choice for M x N x K): a
/// shape whose weight streams (getSplitKStreamsPerSM; the tiles, where
/// they are not transposed) fill at most half of what the SMs take splits
/// each tile's K steps into ranges, one program each, up to that many
/// streams, with at least kGemmSplitKMinSteps steps per range (the operand
/// ring's depth, so each range still streams) and at most kGemmSplitKMax
/// ranges. The tile is tile.gemm's default where `config` keeps it:
/// 128 x 256, K steps of 64 elements on wgmma and 32 on mma.sync (16-bit
/// inputs).
static void addSplitK(GemmShapeConfig &config, std::string_view chip, int64_t m,
                      int64_t n, int64_t k, int64_t numSMs) {
  int64_t blockM = config.blockM.value_or(128);
  int64_t blockN = config.blockN.value_or(256);
  int64_t blockK = config.blockK.value_or(hasWgmma(chip) ? 64 : 32);
  bool swapped = config.swapAb.value_or(false);
  int64_t streams = (swapped ? 1 : ceilDiv(m, blockM)) * ceilDiv(n, blockN);
  int64_t target = numSMs * getSplitKStreamsPerSM(config, chip);
  if (target <= 0 || 2 * streams > target)
    return;
  int64_t split =
      std::min({target / streams, ceilDiv(k, blockK) / kGemmSplitKMinSteps,
                kGemmSplitKMax});
  if (split >= 2)
    config.splitK = split;
}

/// Decode shapes on the mma.sync chips (sm_80, sm_86, sm_89, and sm_90
/// without its wgmma): the transposed product on 64-weight x 16- or
/// 32-token tiles over 4 warps, the 16-token one with an 8-deep cp.async
/// ring (the kernel streams the weights). Measured on the H200 running
/// sm_80's kernels (bench/results/2026-12-04_skinny_swap_ab_probe,
/// run4_sm80.json): 0.76-1.79x cuBLAS for M <= 16 and 0.67-1.25x at
/// M = 64, where the 128 x 256 tiles reach 0.12-0.65x. None on other chips
/// or for larger M.
static std::optional<GemmShapeConfig>
getMmaSyncDecodeConfig(std::string_view chip, int64_t m) {
  if (!isMmaSyncChip(chip) || m > kGemmSwapABMaxM)
    return std::nullopt;
  GemmShapeConfig config;
  config.blockK = 64;
  config.blockM = m <= 16 ? 16 : 32;
  config.blockN = 64;
  if (m <= 16)
    config.stages = 8;
  config.swapAb = true;
  config.warps = 4;
  return config;
}

/// sm_90a's transposed (decode) tiles: C's tile is `tokens` rows of A by
/// `weights` columns of B, the product weights x tokens on wgmma, with
/// 128-wide K steps where the token tile is narrow (at most 32), a warp per
/// 16 weights.
static GemmShapeConfig getWgmmaDecodeTiles(int64_t tokens, int64_t weights) {
  GemmShapeConfig config;
  config.blockK = tokens <= 32 ? 128 : 64;
  config.blockM = tokens;
  config.blockN = weights;
  config.swapAb = true;
  config.warps = weights / 16;
  return config;
}

/// getGemmShapeConfig's tiles (everything but split-K).
static GemmShapeConfig getTileShapeConfig(std::string_view chip, int64_t m,
                                          int64_t n, int64_t numSMs,
                                          bool canSwapAB) {
  GemmShapeConfig config;
  if (canSwapAB && !hasWgmma(chip))
    return getMmaSyncDecodeConfig(chip, m).value_or(config);
  if (!hasWgmma(chip))
    return config;
  // Decode: C's tile is block_m rows of A (tokens) by block_n columns of B
  // (weights); the product runs transposed, weights x tokens. Measured on
  // the H200 (bench/results/2026-12-04_skinny_swap_ab_probe): 0.97-2.1x
  // cuBLAS for M = 1..64, where the untransposed 128-row tiles reach
  // 0.3-1.2x. 128-column weight tiles pay off at M > 32 for N of 8192 and
  // more, 128-wide K steps where the token tile is narrow, and narrower
  // token tiles where the programs would not cover half the SMs (N of 4096
  // or less). A larger M whose 128 x 64 tiles would leave three quarters
  // of the SMs idle (129 x 257 x 8200: 0.64x) takes 16-token tiles (1.46x).
  bool fewTiles = ceilDiv(m, 128) * ceilDiv(n, 64) * 4 < numSMs;
  if (canSwapAB && (m <= kGemmSwapABMaxM || (fewTiles && m <= 256))) {
    int64_t tokens = m <= 16 || m > kGemmSwapABMaxM ? 16 : m <= 32 ? 32 : 64;
    int64_t weights = tokens == 64 && n >= 8192 ? 128 : 64;
    while (weights == 64 && tokens > 16 &&
           2 * ceilDiv(n, weights) * ceilDiv(m, tokens) < numSMs)
      tokens /= 2;
    config = getWgmmaDecodeTiles(tokens, weights);
    config.tmaStore = false;
    return config;
  }
  // The default tile is 128 x 256 (NamedOpConfigs.cpp).
  int64_t rows = ceilDiv(m, 128);
  if (rows * ceilDiv(n, 256) < numSMs / 2) {
    // The widest tile that still gives three quarters of the SMs a tile.
    int64_t blockN = 64;
    for (int64_t candidate : {128, 64})
      if (4 * rows * ceilDiv(n, candidate) >= 3 * numSMs) {
        blockN = candidate;
        break;
      }
    config.blockN = blockN;
  }
  // The TMA-store epilogue writes whole 16-byte row chunks (the kernel
  // refuses other N at launch).
  if (n % 8 != 0)
    config.tmaStore = false;
  return config;
}

GemmShapeConfig tilec::rules::getGemmShapeConfig(std::string_view chip,
                                                 int64_t m, int64_t n,
                                                 int64_t k, int64_t numSMs,
                                                 bool canSwapAB,
                                                 bool canSplitK) {
  if (m <= 0 || n <= 0 || k <= 0)
    return {};
  if (numSMs <= 0)
    numSMs = getTypicalNumSMs(chip);
  GemmShapeConfig config = getTileShapeConfig(chip, m, n, numSMs, canSwapAB);
  if (canSplitK)
    addSplitK(config, chip, m, n, k, numSMs);
  return config;
}

GemmShapeConfig
tilec::rules::getGroupedGemmShapeConfig(std::string_view chip, int64_t rows,
                                        int64_t groups, int64_t n, int64_t k,
                                        int64_t numSMs, bool canSwapAB) {
  if (rows <= 0 || groups <= 0 || n <= 0 || k <= 0)
    return {};
  // Decode steps route a few tokens to each expert: the untransposed
  // kernel pads each group's rows to 128 (64 on mma.sync), the transposed
  // one to its token tile. Measured on the H200 (bench/results/
  // 2026-12-05_grouped_decode_swap_h200.json, hidden 4096 -> ffn 14336,
  // against the better of torch._grouped_mm and a torch.mm loop): on
  // sm_90a 16-token tiles at 4-16 tokens per expert 1.05-1.18x (the
  // untransposed kernel 0.88-0.92x), 32-token ones at 32 per expert 1.11x
  // (1.01x), 64-token ones at 64 per expert 1.05x (1.00x), none at 128
  // (0.30-0.66x against 0.95x); sm_80's 16-token class 1.12-1.23x up to 32
  // per expert (0.76x untransposed at 32), 0.56x at 64 (0.77x).
  if (canSwapAB) {
    if (hasWgmma(chip) && rows <= groups * kGroupedGemmSwapABMaxRows) {
      int64_t tokens = rows <= groups * 16 ? 16 : rows <= groups * 32 ? 32 : 64;
      return getWgmmaDecodeTiles(tokens, /*weights=*/64);
    }
    if (rows <= groups * kGroupedGemmSwapABMaxRowsMmaSync)
      if (std::optional<GemmShapeConfig> decode =
              getMmaSyncDecodeConfig(chip, /*m=*/16))
        return *decode;
  }
  GemmShapeConfig config = getGemmShapeConfig(chip, rows, n, k, numSMs);
  config.tmaStore.reset();
  config.splitK.reset();
  return config;
}

AttentionShapeConfig
tilec::rules::getAttentionShapeConfig(std::string_view chip, int64_t seqQ,
                                      int64_t headDim, bool causal) {
  AttentionShapeConfig config;
  if (hasWgmma(chip) && causal && headDim <= 128 &&
      seqQ <= kAttentionPersistentCausalMaxSeq)
    config.persistent = true;
  return config;
}

int64_t tilec::rules::getAttentionDecodeSplits(std::string_view chip,
                                               int64_t batch, int64_t kvHeads,
                                               int64_t queryRows, int64_t seqK,
                                               int64_t headDim,
                                               int64_t numSMs) {
  if (batch <= 0 || kvHeads <= 0 || queryRows <= 0 || seqK <= 0)
    return 1;
  if (numSMs <= 0)
    numSMs = getTypicalNumSMs(chip);
  // The decode tiles of tile-expand-named-ops: 64 query rows, 128-key
  // blocks on sm_90a up to head dim 128, else 64.
  int64_t blockN = hasWgmma(chip) && headDim <= 128 ? 128 : 64;
  int64_t programs = batch * kvHeads * ceilDiv(queryRows, 64);
  int64_t most = std::min(kAttentionMaxSplits,
                          ceilDiv(seqK, blockN) / kAttentionSplitMinBlocks);
  // Enough programs already: most of a wave busy without splitting.
  if (5 * programs >= 4 * numSMs || most <= 1)
    return 1;
  // The wave efficiency of s ranges: the programs over whole waves. Take
  // the fewest ranges within 10% of the best (fewer ranges: less partial
  // output to combine and a longer stream per program).
  auto efficiency = [&](int64_t s) {
    int64_t total = programs * s;
    return static_cast<double>(total) /
           static_cast<double>(ceilDiv(total, numSMs) * numSMs);
  };
  // Powers of two only: a library prebuilds one kernel per count.
  double best = 0;
  for (int64_t s = 1; s <= most; s *= 2)
    best = std::max(best, efficiency(s));
  int64_t s = 1;
  while (s * 2 <= most &&
         (efficiency(s) < 0.9 * best || programs * s < numSMs / 2))
    s *= 2;
  return s;
}

AttentionBackwardShapeConfig
tilec::rules::getAttentionBackwardConfig(std::string_view chip, int64_t headDim,
                                         bool atomic) {
  AttentionBackwardShapeConfig config;
  if (headDim == 256) {
    // Head dim 256 (deterministic only: the atomic kernel's fifth product
    // does not fit beside dK and dV). dK/dV's and dQ's 256 f32 columns
    // over two warpgroups (or warp columns) of 64 rows: 128 accumulator
    // values a thread each. Picked by compile-side counts (no spills, both
    // loops on rings where shared memory allows), not yet measured on a
    // GPU: on sm_90a the loads two products read share one TMA copy
    // (2-stage rings of Q and dO, and of K and V); sm_80 and later chips
    // without wgmma take 164 KB of shared memory, sm_86 / sm_89 99 KB.
    config.dqM = 64;
    if (hasWgmma(chip)) {
      config.dqN = 64;
      config.dkvN = 64;
      config.dkvM = 64;
      config.shareTiles = true;
    } else if (hasSmallSmem(chip)) {
      config.dqN = 16;
      config.dkvN = 32;
      config.dkvM = 16;
      config.dkvWarps = 4;
    } else {
      config.dqN = 32;
      config.dkvN = 64;
      config.dkvM = 16;
    }
  } else if (hasWgmma(chip)) {
    if (atomic) {
      // The atomic dK/dV/dQ kernel: one warpgroup of 64 keys, so that dS K
      // is an m64 wgmma per warpgroup (with 128 keys over two warpgroups
      // its 64 query rows fall back to mma.sync and the ring no longer
      // fits); at head dim 128 dS K is two 64-column products, whose add
      // buffers (16 KB, shared) leave the ring two stages (182-208 TFLOP/s
      // against 157-189: bench/results/
      // 2026-12-04_attention_backward_atomic_tma_h200.json).
      config.dkvN = 64;
      config.dkvWarps = 4;
      if (headDim == 128)
        config.dqAddCols = 64;
    } else {
      // Two consumer warpgroups of m64 wgmmas. The dK/dV consumers get 240
      // registers (fewer spills: +3-6% at head dim 128, bench/results/
      // 2026-12-04_attention_backward_regs240_h200.json); at head dim 64
      // the dQ kernel takes 128 keys a step (+4%, bench/results/
      // 2026-12-04_attention_backward_h200.json).
      config.consumerRegs = 240;
      config.producerRegs = 24;
      if (headDim == 64)
        config.dqN = 128;
    }
  } else if (headDim == 64) {
    // mma.sync (cp.async rings): one-warpgroup programs of 64 rows; the
    // atomic kernel steps 32 queries.
    config.dkvN = 64;
    config.dkvWarps = 4;
    if (atomic) {
      config.dkvM = 32;
    } else {
      config.dqM = 64;
      config.dqWarps = 4;
    }
  } else if (atomic && hasSmallSmem(chip)) {
    // 99 KB of shared memory per block: the atomic kernel's 128 keys (twice)
    // and its ring need 102912 bytes; head dim 64's tiles (not measured on
    // such a chip).
    config.dkvM = 32;
    config.dkvN = 64;
    config.dkvWarps = 4;
  } else {
    // mma.sync at head dim 128: 32-wide steps keep the registers under 255
    // and two ring stages in shared memory (2.2x the 64-wide steps,
    // bench/results/2026-12-04_attention_backward_h200.json); the atomic
    // step holds a fifth product: 16-query steps (bench/results/
    // 2026-12-04_attention_backward_atomic_h200.json).
    config.dkvM = atomic ? 16 : 32;
    if (!atomic)
      config.dqN = 32;
  }
  return config;
}

bool tilec::rules::getChipForCapability(int major, int minor,
                                        std::string &chip,
                                        std::string &cubinArch) {
  cubinArch = "sm_" + std::to_string(major) + std::to_string(minor);
  // A compute capability's minor version is one digit; only a real one
  // matches an arch-specific chip.
  int64_t smVersion = int64_t(major) * 10 + std::clamp(minor, 0, 9);
  bool exact = minor >= 0 && minor <= 9;
  // The device's own arch-specific ISA (sm_90a on 9.0), else the newest
  // chip without arch-specific features at or below the device: later
  // chips run sm_90's PTX (sm_90a's features do not carry forward).
  const ChipInfo *closest = nullptr;
  for (size_t i = 0, e = getNumChips(); i < e; ++i) {
    const ChipInfo &info = getChips()[i];
    if (info.archSpecific) {
      if (exact && int64_t(info.smVersion) == smVersion) {
        chip = cubinArch = std::string(info.name);
        return true;
      }
      continue;
    }
    if (int64_t(info.smVersion) <= smVersion &&
        (!closest || info.smVersion > closest->smVersion))
      closest = &info;
  }
  if (!closest)
    return false;
  chip = std::string(closest->name);
  return true;
}
