//===- NamedOpConfigs.cpp - Tile configurations of the named ops ----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The GEMM rule. mma.sync m16n8k16 on sm_80-class chips: 128x256x32 block
// tiles over 8 warps (64x64 warp tiles: 4 A and 8 B fragments per k16 step,
// 32 mma per 12 ldmatrix.x4) with a 4-deep cp.async ring (96 KB). Chips with
// 99 KB of shared memory per block (sm_86, sm_89) use 3 stages (72 KB).
// On sm_90a, wgmma m64n256k16 per warpgroup (two warpgroups for 128 rows)
// reads 128-byte swizzled rows: K steps of 64 (48 KB per stage). The kernel
// is warp-specialized and persistent (a TMA producer warpgroup with 40
// registers, consumers with 232): the ring and the epilogue's staging area
// are live together; it gets as many stages as fit (3 for 128x256 bf16
// outputs, 8 for 128x64 tiles).
// When the staged epilogue of a wide output would not fit, N halves.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/NamedOpConfigs.h"
#include "tilec/Analysis/LayoutHeuristics.h"
#include "tilec/Rules/ShapeRules.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static unsigned getBytes(Type t) {
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

int64_t GemmConfig::getPipelineBytes(unsigned elemBytes) const {
  return stages * (blockM * blockK + blockK * blockN) * elemBytes;
}

int64_t GemmConfig::getEpilogueBytes(unsigned outBytes) const {
  // 32-bit outputs are stored from the accumulator fragment directly (see
  // tile-assign-layouts); narrower ones are staged for coalesced stores.
  if (tmaStore)
    return blockM * blockN * outBytes;
  if (outBytes >= 4)
    return 0;
  // The layout conversion before the store pads rows by 4 bytes.
  int64_t pad = std::max<int64_t>(1, 4 / outBytes);
  return blockM * (blockN + pad) * outBytes;
}

/// The warp-specialized kernel keeps as many stages in flight as fit, up to
/// this many (narrow tiles are bound by streaming the operands).
static constexpr int64_t kMaxWarpSpecializedStages = 8;

/// Bytes of K a block steps through, the same for every input type: 64 on
/// mma.sync (32 16-bit elements), 128 on wgmma (one 128-byte swizzled row).
static constexpr int64_t kMmaSyncKBytes = 64;
static constexpr int64_t kWgmmaKBytes = 128;

/// The per-chip rule.
static GemmConfig getDefaultConfig(const TargetInfo &target, unsigned inBytes,
                                   unsigned outBytes) {
  GemmConfig c;
  if (target.maxSmemPerBlock < 128 * 1024)
    c.stages = 3;
  // K steps of the same bytes for every input type (kMmaSyncKBytes,
  // kWgmmaKBytes: 192 KB in 4 stages of 128x256 tiles).
  c.blockK = kMmaSyncKBytes / inBytes;
  if (target.hasWgmma) {
    c.blockK = kWgmmaKBytes / inBytes;
    c.warpSpecialize = target.hasTma && target.hasSetmaxnreg;
  }
  while (c.blockN > 64 &&
         std::max(c.getPipelineBytes(inBytes), c.getEpilogueBytes(outBytes)) >
             static_cast<int64_t>(target.maxSmemPerBlock))
    c.blockN /= 2;
  return c;
}

/// `field = *value` where the op's config sets it.
static void override(int64_t &field, std::optional<int64_t> value) {
  if (value)
    field = *value;
}

/// A flag of the op's config, where it sets it.
static std::optional<bool> getFlag(BoolAttr flag) {
  if (!flag)
    return std::nullopt;
  return flag.getValue();
}

/// The chip runs the warp-specialized schedules (wgmma, TMA, setmaxnreg:
/// sm_90a).
static bool canWarpSpecialize(const TargetInfo &target) {
  return target.hasWgmma && target.hasTma && target.hasSetmaxnreg;
}

/// True for f32 inputs in ieee precision: exact products, which run on FMA
/// instructions (no tensor core has them).
static bool runsOnFma(GemmOp op) {
  return op.getA().getType().getElementType().isF32() &&
         op.getPrecision() == DotPrecision::IEEE;
}

/// Why `op` cannot run as the transposed product (empty: it can). Aᵀ must
/// be a K-major B operand and Bᵀ an A operand: K-major for a column-major B,
/// M-major (wgmma's transposed A, 16-bit types only) for a row-major one;
/// bf16/f16 inputs, over 2-D views (or a grouped GEMM's, whose groups then
/// split the product's columns), with no block scales. The shape rule
/// takes the transposed tiles for a column-major B only (measured there);
/// a row-major B runs transposed where the config asks.
static std::string getSwapABProblem(GemmOp op) {
  Type et = op.getA().getType().getElementType();
  if (!et.isBF16() && !et.isF16())
    return "bf16 or f16 inputs";
  if (op.getBatchRank() != 0 && !op.isGrouped())
    return "a 2-D or grouped GEMM (not batched or batch-reduce)";
  if (op.isBlockScaled())
    return "no block scales";
  return "";
}

/// The chip's configuration for `op` before its `config`: static sizes
/// take their shape class's fields (the rule tilec.gemm dispatches by at
/// run time, include/tilec/Rules/ShapeRules.h; `shapeTmaStore` gets its
/// TMA-store choice), then what the precision and block scales need.
static GemmConfig getChipConfig(GemmOp op, const TargetInfo &target,
                                std::optional<bool> &shapeTmaStore) {
  unsigned inBytes = getBytes(op.getA().getType().getElementType());
  GemmConfig c = getDefaultConfig(
      target, inBytes, getBytes(op.getC().getType().getElementType()));
  unsigned o = op.getBatchRank();
  int64_t m = op.getA().getType().getShape()[o];
  int64_t k = op.getA().getType().getShape()[o + 1];
  int64_t n = op.getC().getType().getShape().back();
  // A batch fills the device as that many more rows would: the shape class
  // of a batched GEMM is that of its matrices stacked (of a batch-reduce
  // one, that of its K steps strung together).
  if (o != 0) {
    int64_t batch = op.getA().getType().getShape()[0];
    int64_t &stacked = op.isBatchReduce() ? k : m;
    stacked = ShapedType::isDynamic(batch) || ShapedType::isDynamic(stacked)
                  ? ShapedType::kDynamic
                  : stacked * batch;
  }
  // A grouped GEMM's rows are its groups' together: with a static group
  // count the rule sees their count per group on average, as
  // tilec.grouped_gemm does at run time (else only the stacked rows).
  int64_t groups =
      op.isGrouped() ? op.getB().getType().getShape()[0] : int64_t(1);
  bool staticGroups = !ShapedType::isDynamic(groups);
  if (!ShapedType::isDynamic(m) && !ShapedType::isDynamic(n) &&
      !ShapedType::isDynamic(k)) {
    // (The transposed product reads its operands by TMA: not for a config
    // that takes operands of any alignment.)
    GemmConfigAttr config = op.getConfigAttr();
    bool anyAlignment = config && !getFlag(config.getAligned()).value_or(true);
    bool canSwapAB =
        getSwapABProblem(op).empty() && op.isRhsColumnMajor() && !anyAlignment;
    // (Without canSplitK: tile.gemm takes split_k only where its config
    // asks, with a workspace.)
    ::tilec::rules::GemmShapeConfig rule =
        op.isGrouped()
            ? ::tilec::rules::getGroupedGemmShapeConfig(
                  target.chip.str(), m, staticGroups ? groups : 1, n, k,
                  /*numSMs=*/0, canSwapAB && staticGroups)
            : ::tilec::rules::getGemmShapeConfig(target.chip.str(), m, n, k,
                                                 /*numSMs=*/0, canSwapAB);
    assert(!rule.splitK && "the rule splits K only with canSplitK");
    override(c.blockM, rule.blockM);
    override(c.blockN, rule.blockN);
    override(c.blockK, rule.blockK);
    override(c.stages, rule.stages);
    override(c.warps, rule.warps);
    c.swapAB = rule.swapAb.value_or(c.swapAB);
    if (rule.tmaStore)
      shapeTmaStore = rule.tmaStore;
  }
  // 3xTF32 splits the operands in registers, so it runs on mma.sync on
  // every chip, with mma.sync's K steps (64 bytes); the split keeps two
  // fragments of every operand value live: at most 128 columns.
  if (op.getPrecision() == DotPrecision::TF32x3) {
    c.warpSpecialize = false;
    c.blockK = kMmaSyncKBytes / inBytes;
    c.blockN = std::min<int64_t>(c.blockN, 128);
  }
  // Exact f32 (ieee) has no tensor-core instruction: FMA instructions on
  // 128 x 128 tiles over 8 warps (8 x 8 accumulators a thread), K in
  // 8-wide steps (each thread keeps 8 x 8 values of A and of B).
  if (runsOnFma(op)) {
    c.warpSpecialize = false;
    c.blockM = 128;
    c.blockN = 128;
    c.blockK = 8;
    c.warps = 8;
  }
  // Block scales: a tile's columns share one 128-wide block of B, and each
  // K step lies in one K block.
  if (op.isBlockScaled())
    c.blockN = std::min<int64_t>(c.blockN, GemmOp::kScaleBlock);
  return c;
}

/// `c` with the fields `config` sets.
static void applyConfig(GemmConfig &c, GemmConfigAttr config) {
  override(c.blockM, config.getBlockM());
  override(c.blockN, config.getBlockN());
  override(c.blockK, config.getBlockK());
  override(c.stages, config.getStages());
  override(c.warps, config.getWarps());
  override(c.groupM, config.getGroupM());
  c.warpSpecialize =
      getFlag(config.getWarpSpecialize()).value_or(c.warpSpecialize);
  override(c.consumerRegs, config.getConsumerRegs());
  override(c.producerRegs, config.getProducerRegs());
  override(c.clusterM, config.getClusterM());
  override(c.clusterN, config.getClusterN());
  c.aligned = getFlag(config.getAligned()).value_or(c.aligned);
  c.swapAB = getFlag(config.getSwapAb()).value_or(c.swapAB);
  override(c.splitK, config.getSplitK());
}

/// Checks the tiles of `c` against the instructions that compute them.
static LogicalResult checkTiles(GemmOp op, const GemmConfig &c) {
  Type inType = op.getA().getType().getElementType();
  if (op.isBlockScaled() && (GemmOp::kScaleBlock % c.blockN != 0 ||
                             GemmOp::kScaleBlock % c.blockK != 0))
    return op.emitOpError("block scales need block_n and block_k that "
                          "divide the 128-wide scale blocks, got block_n = ")
           << c.blockN << ", block_k = " << c.blockK;
  // (FMA instructions, exact f32, take any K.)
  int64_t mmaK = getMmaSyncKStep(inType);
  if (!runsOnFma(op) && c.blockK < mmaK)
    return op.emitOpError("block_k = ")
           << c.blockK << " is below the mma.sync K of " << mmaK;
  if (c.blockM < 16 || c.blockN < 8)
    return op.emitOpError("a ") << c.blockM << "x" << c.blockN
                                << " block is smaller than one mma.sync tile (16x8)";
  if ((c.clusterM != 1 || c.clusterN != 1) && !c.warpSpecialize)
    return op.emitOpError("cluster_m = ")
           << c.clusterM << ", cluster_n = " << c.clusterN
           << ": clusters need the warp-specialized kernel (sm_90a)";
  if (failed(chooseMmaWarps(c.blockM, c.blockN, c.warps, /*rowsOnly=*/false)))
    return op.emitOpError("")
           << c.warps << " warps cannot split a " << c.blockM << "x"
           << c.blockN << " block into warp tiles of at least 16x8";
  return success();
}

/// Checks the warp-specialized kernel's rules on `c`: a rule it breaks is
/// an error where the config asks for that kernel (`requested`), else `c`
/// falls back to the cp.async kernel.
static FailureOr<GemmConfig> checkWarpSpecialized(GemmOp op,
                                                  const TargetInfo &target,
                                                  GemmConfig c,
                                                  bool requested) {
  // wgmma: 16 rows per consumer warp (64 per warpgroup), N of 8..256 in
  // one instruction, 64-element (128-byte) K segments.
  unsigned inBytes = getBytes(op.getA().getType().getElementType());
  auto clusterError = [&](const Twine &why) {
    return op.emitOpError("cluster_m = ")
           << c.clusterM << ", cluster_n = " << c.clusterN << ": " << why;
  };
  auto reject = [&](const Twine &why) -> FailureOr<GemmConfig> {
    if (requested)
      return op.emitOpError("warp_specialize: ") << why;
    if (c.clusterM != 1 || c.clusterN != 1)
      return clusterError("clusters need the warp-specialized kernel (" +
                          target.chip + ")");
    c.warpSpecialize = false;
    c.tmaStore = false;
    return c;
  };
  if (!canWarpSpecialize(target))
    return reject(target.chip + " has no wgmma/TMA/setmaxnreg (needs sm_90a)");
  if (op.getPrecision() == DotPrecision::TF32x3)
    return reject("precision(tf32x3) splits the operands in registers, on "
                  "mma.sync");
  if (runsOnFma(op))
    return reject("f32 inputs in ieee precision run on FMA instructions, not "
                  "wgmma");
  if (c.warps % 4 != 0 || c.blockM != 16 * c.warps)
    return reject("block_m must be 16 x warps (64 rows per consumer "
                  "warpgroup), got block_m = " +
                  Twine(c.blockM) + " with " + Twine(c.warps) + " warps");
  if (c.blockN > 256 || c.blockN % 8 != 0)
    return reject("block_n must be a multiple of 8 up to 256");
  if (c.blockK % (kWgmmaKBytes / inBytes) != 0)
    return reject("block_k must be a multiple of " +
                  Twine(kWgmmaKBytes / inBytes) + " (128-byte rows)");
  if (c.clusterM == 1 && c.clusterN == 1)
    return c;
  // Clusters share operand tiles by TMA multicast: split in two, each half
  // must still be whole 8-row swizzle atoms of 64-element boxes.
  if (!llvm::is_contained({1, 2}, c.clusterM) ||
      !llvm::is_contained({1, 2}, c.clusterN))
    return clusterError("each must be 1 or 2");
  if (c.clusterN == 2 && c.blockM % 16 != 0)
    return clusterError("block_m must split into two halves of 8-row "
                        "multiples");
  if (c.clusterM == 2 &&
      (c.blockN % 16 != 0 || (!op.isRhsColumnMajor() && c.blockN % 128 != 0)))
    return clusterError("block_n must split into two halves of whole "
                        "64-column boxes (row-major B) or 8-row multiples "
                        "(column-major B)");
  return c;
}

/// Checks that the operand ring and the epilogue's staging area of `c` fit
/// in shared memory (together in the warp-specialized kernel, where the
/// producer refills the ring during the epilogue).
static LogicalResult checkSharedMemory(GemmOp op, const TargetInfo &target,
                                       const GemmConfig &c) {
  unsigned inBytes = getBytes(op.getA().getType().getElementType());
  unsigned outBytes = getBytes(op.getC().getType().getElementType());
  int64_t pipeline = c.getPipelineBytes(inBytes);
  int64_t epilogue = c.getEpilogueBytes(outBytes);
  int64_t limit = target.maxSmemPerBlock;
  if (c.warpSpecialize) {
    pipeline += epilogue + 1024;
    epilogue = 0;
  }
  if (pipeline > limit)
    return op.emitOpError("config needs ")
           << pipeline << " bytes of shared memory for " << c.stages
           << " stages of " << c.blockM << "x" << c.blockK << " and "
           << c.blockK << "x" << c.blockN << " tiles"
           << (c.warpSpecialize ? " and the output tile" : "")
           << ", more than the " << limit << " bytes a block may use on "
           << target.chip;
  if (epilogue > limit)
    return op.emitOpError("config needs ")
           << epilogue << " bytes of shared memory to stage the " << c.blockM
           << "x" << c.blockN << " output tile, more than the " << limit
           << " bytes a block may use on " << target.chip;
  return success();
}

FailureOr<GemmConfig>
mlir::tilec::tile::getGemmConfig(GemmOp op, const TargetInfo &target) {
  unsigned inBytes = getBytes(op.getA().getType().getElementType());
  unsigned outBytes = getBytes(op.getC().getType().getElementType());
  std::optional<bool> shapeTmaStore;
  GemmConfig c = getChipConfig(op, target, shapeTmaStore);
  // The op's config overrides the chip's choice; an op without one reads
  // as one with every field left out.
  GemmConfigAttr config = op.getConfigAttr();
  if (!config)
    config = GemmConfigAttr::get(op.getContext());
  applyConfig(c, config);
  // Operands of any alignment: no TMA producer, no 16-byte copies (and so
  // no TMA store below, which needs the warp-specialized kernel).
  if (!c.aligned) {
    if (getFlag(config.getWarpSpecialize()).value_or(false))
      return op.emitOpError("aligned = false takes no warp_specialize (its "
                            "producer issues TMA copies, which need 16-byte "
                            "aligned operands)");
    c.warpSpecialize = false;
  }
  // The transposed product: check it applies, then work on its tile.
  if (c.swapAB) {
    std::string problem = getSwapABProblem(op);
    if (!problem.empty())
      return op.emitOpError("swap_ab needs ") << problem;
    if (!c.aligned)
      return op.emitOpError("swap_ab needs aligned operands (its operands "
                            "reach wgmma through TMA)");
    std::swap(c.blockM, c.blockN);
  }
  // A batched or grouped GEMM's programs each take a tile of one matrix:
  // no clusters (their multicast shares tiles of one matrix) and no TMA
  // store (its epilogue is built for 2-D C, whole tiles).
  bool batched = op.getBatchRank() != 0 || op.isGrouped();
  if (batched && (c.clusterM != 1 || c.clusterN != 1))
    return op.emitOpError("a ")
           << (op.isGrouped()       ? "grouped"
               : op.isBatchReduce() ? "batch-reduce"
                                    : "batched")
           << " GEMM takes no clusters (cluster_m = " << c.clusterM
           << ", cluster_n = " << c.clusterN << ")";
  // The TMA store writes 64-column boxes of 128-byte swizzled rows.
  bool tmaStoreRequested = false;
  c.tmaStore = c.warpSpecialize && outBytes == 2 && c.blockN % 64 == 0 &&
               shapeTmaStore.value_or(true) && !batched && !c.swapAB &&
               c.splitK == 1;
  if (std::optional<bool> flag = getFlag(config.getTmaStore())) {
    tmaStoreRequested = *flag;
    if (tmaStoreRequested && !c.tmaStore)
      return op.emitOpError("tma_store needs the warp-specialized kernel, "
                            "a bf16/f16 output, block_n a multiple of 64 "
                            "and a 2-D (not batched, batch-reduce or grouped) "
                            "GEMM without split-K");
    c.tmaStore = tmaStoreRequested;
  }
  bool wsRequested =
      getFlag(config.getWarpSpecialize()).has_value() && c.warpSpecialize;
  if (!config.getStages() && c.warpSpecialize)
    c.stages = std::max<int64_t>(
        2, std::min<int64_t>(kMaxWarpSpecializedStages,
                             (static_cast<int64_t>(target.maxSmemPerBlock) -
                              c.getEpilogueBytes(outBytes) - 1024) /
                                 (c.getPipelineBytes(inBytes) / c.stages)));
  if (failed(checkTiles(op, c)))
    return failure();
  if (c.warpSpecialize) {
    FailureOr<GemmConfig> checked =
        checkWarpSpecialized(op, target, c, wsRequested || tmaStoreRequested);
    if (failed(checked))
      return failure();
    c = *checked;
  }
  if (failed(checkSharedMemory(op, target, c)))
    return failure();
  return c;
}

/// Shared memory for the cp.async schedule's K/V ring of `c` (head dim
/// `d`), and for Q's tile `withQ`.
static int64_t getAttentionBufferBytes(const AttentionConfig &c, int64_t d,
                                       int64_t elemBytes, bool withQ) {
  return ((withQ ? c.blockM * d : 0) + c.stages * 2 * c.blockN * d) *
         elemBytes;
}

/// The per-chip defaults of tile.attention at head dim `d`, before the
/// op's config.
static AttentionConfig getDefaultAttentionConfig(const TargetInfo &target,
                                                 int64_t d, int64_t elemBytes,
                                                 bool wsAllowed) {
  // Per head dim: the accumulator and Q stay in registers (warps split rows
  // only, so P feeds the second dot from registers). On sm_90a (wgmma, 64
  // rows per warpgroup) 128-key blocks over two warpgroups: measured on the
  // H200 at S = 4096, head dim 128: 241 TFLOP/s vs 180 with 64-key blocks
  // (causal 205 vs 161); head dim 64: 205 vs 145 with 4 warps on mma.sync
  // (bench/results/2026-11-30_attention_variants_h200.json).
  // On mma.sync (sm_80-class) each warp reads all of the K and V tiles from
  // shared memory for its rows, so the rows per warp set the ldmatrix count
  // per mma.sync: head dims 64 and 128 take 128 queries on 4 warps (32 rows
  // each). Q is read from shared memory per key block (FlashAttention-2's
  // choice: Q's fragments, S and the accumulator of 32 rows do not fit a
  // thread's registers together at head dim 128). H200, sm_80 PTX,
  // S = 4096
  // (bench/results/2026-11-30_attention_sm80_qsmem_h200.json): head dim 128 327
  // TFLOP/s (causal 291) against 282 (283) with 64 queries and Q in registers,
  // 317 (264) with 64-key blocks and 323 (276) with 2 stages; head dim 64
  // causal 295 against 274 with Q in registers; head dim 256 157 against 125
  // with Q in registers. Head dim 256 runs its blocks in one loop (masking the
  // edge blocks in a branch): 184 TFLOP/s (causal 164) against 157 (145) with
  // split loops, and on sm_90a's cp.async schedule 313 (279) against 186 (164);
  // head dims 64 and 128 keep split loops (head dim 128: 332 (291) against 325
  // (275)) (bench/results/2026-11-30_attention_joint_loop_h200.json).
  AttentionConfig c;
  c.splitLoops = d <= 128;
  c.blockM = d <= 128 ? 128 : 64;
  c.blockN = 64;
  c.warps = 4;
  if (!target.hasWgmma) {
    c.qInSmem = true;
    if (d == 128 && target.maxSmemPerBlock >= 128 * 1024) {
      // Head dim 128: 64-key blocks in a 2-stage ring (96 KB with Q, two
      // blocks per SM on the H200). Interleaved A/B on the H200 at
      // S = 1k, 4k and 16k: 334, 361 and 363 TFLOP/s against 321, 342 and
      // 348 with 32-key blocks in 4 stages; causal 270, 350 and 378 against
      // 250, 318 and 349
      // (bench/results/2026-11-30_attention_sm80_qasync_122ae84_h200.json).
      // With 3 or 4 stages (one block per SM) 64-key blocks were slower
      // than 32-key ones (245 against 332 at S = 4k).
      c.stages = 2;
    } else if (d == 128) {
      // Where the chip has less shared memory (sm_89's 99 KB, with room for
      // layout-conversion scratch): 32-key blocks in 3 stages.
      c.blockN = 32;
      c.stages = 3;
    }
    // Where Q and the K/V ring of head dim 256 do not fit (sm_89's 99 KB),
    // 32-key blocks, then Q in registers.
    auto fits = [&]() {
      return getAttentionBufferBytes(c, d, elemBytes, c.qInSmem) <=
             static_cast<int64_t>(target.maxSmemPerBlock);
    };
    if (!fits())
      c.blockN = 32;
    if (!fits())
      c.qInSmem = false;
  }
  bool hopper = canWarpSpecialize(target);
  if (target.hasWgmma && d <= 128) {
    c.blockM = 128;
    c.blockN = 128;
    c.warps = 8;
    c.warpSpecialize = hopper;
  } else if (hopper && wsAllowed) {
    // Head dim 256 (unless the config asks for the cp.async schedule, which
    // keeps 64 queries on 4 warps): 64-key blocks, so that Q (64 KB) and a
    // 2-stage K/V ring (64 KB a stage) fit, and each consumer warpgroup's
    // 64x256 f32 accumulator (128 registers a thread) beside S. H200,
    // B*S = 16k, H*D = 2048, S = 1k / 4k / 16k
    // (bench/results/2026-11-30_attention_sm90a_d256_ws_h200.json): 589 /
    // 683 / 674 TFLOP/s (causal 417 / 562 / 678) against 300 / 345 / 370
    // (244 / 332 / 365) on the cp.async schedule and 430 / 445 / 470 with
    // one consumer warpgroup of 64 queries; cuDNN 612 / 664 / 676 (444 / 590
    // / 621).
    c.blockM = 128;
    c.blockN = 64;
    c.warps = 8;
    c.warpSpecialize = true;
  }
  return c;
}

/// The decode tiles (split-KV or packed query heads): a few query rows per
/// block, so 64 rows (one wgmma warpgroup, or 16 rows on each of 4
/// mma.sync warps) and as deep a K/V ring as fits: decode streams the
/// cache, and the ring's bytes in flight set how close it gets to the
/// memory's bandwidth.
static void setDecodeTiles(AttentionConfig &c, const TargetInfo &target,
                           int64_t d, int64_t elemBytes) {
  c.blockM = 64;
  c.warps = 4;
  c.blockN =
      target.hasWgmma && canWarpSpecialize(target) && d <= 128 ? 128 : 64;
  // Room beside Q and the ring for barriers and layout-conversion scratch.
  int64_t budget = static_cast<int64_t>(target.maxSmemPerBlock) - 8 * 1024;
  auto fits = [&] {
    return getAttentionBufferBytes(c, d, elemBytes, /*withQ=*/true) <= budget;
  };
  c.stages = 4;
  while (c.stages > 2 && !fits())
    --c.stages;
  if (!fits())
    c.blockN = 32;
  // sm_89's 99 KB at head dim 256: Q in registers.
  if (!fits() && !target.hasWgmma)
    c.qInSmem = false;
}

namespace {
/// The flags of an attention config that only the warp-specialized
/// schedule reads (unset: the rule decides).
struct WarpSpecializedFlags {
  std::optional<bool> pingpong, tmaStore, persistent, byPasses, splitLoops;
  /// The decode tiles (setDecodeTiles): no TMA store or persistence by
  /// default, and always the scheduling passes.
  bool decode = false;
};
} // namespace

/// `c` on the cp.async schedule: no warp-specialized flag is set, and Q's
/// buffer (with qInSmem) and the K/V ring fit.
static FailureOr<AttentionConfig>
checkCpAsyncConfig(AttentionOp op, const TargetInfo &target,
                   const AttentionConfig &c, int64_t d, int64_t elemBytes,
                   const WarpSpecializedFlags &flags) {
  for (auto [flag, name] : {std::pair(flags.pingpong, "pingpong"),
                            std::pair(flags.tmaStore, "tma_store"),
                            std::pair(flags.persistent, "persistent")})
    if (flag.value_or(false))
      return op.emitOpError(name) << " needs the warp-specialized schedule";
  // Q's buffer beside tile-pipeline's K/V ring.
  int64_t bytes = getAttentionBufferBytes(c, d, elemBytes, c.qInSmem);
  if (bytes > target.maxSmemPerBlock)
    return op.emitOpError("config needs ")
           << bytes << " bytes of shared memory for "
           << (c.qInSmem ? "Q and " : "") << "a " << c.stages
           << "-stage K/V ring, more than the " << target.maxSmemPerBlock
           << " bytes a block may use on " << target.chip;
  return c;
}

/// Fills the warp-specialized schedule's fields of `c` (tma_store,
/// persistent, by_passes, pingpong) from `flags` and the rule. Returns a
/// failure message in `why` when the chip or the shape cannot run that
/// schedule at all; diagnoses a flag it cannot honour.
static FailureOr<AttentionConfig>
finishWarpSpecializedConfig(AttentionOp op, const TargetInfo &target,
                            AttentionConfig c, int64_t d, int64_t elemBytes,
                            const WarpSpecializedFlags &flags,
                            std::string &why) {
  if (!canWarpSpecialize(target)) {
    why = (target.chip + " has no wgmma/TMA/setmaxnreg (needs sm_90a)").str();
    return failure();
  }
  // Both products on wgmma: 16 rows per consumer warp, Kᵀ and V tiles in
  // 64-element TMA boxes, block_n keys as one wgmma N (at most 256).
  if (c.blockM != 16 * c.warps || c.warps % 4 != 0) {
    why = ("block_m must be 16 x warps (64 rows per consumer warpgroup), got "
           "block_m = " +
           Twine(c.blockM) + " with " + Twine(c.warps) + " warps")
              .str();
    return failure();
  }
  if (c.blockN % 64 != 0 || c.blockN > 256) {
    why = ("block_n must be 64, 128 or 256, got " + Twine(c.blockN)).str();
    return failure();
  }
  // Q's tile and the K/V ring.
  int64_t bytes = getAttentionBufferBytes(c, d, elemBytes, /*withQ=*/true);
  if (bytes > target.maxSmemPerBlock) {
    why = ("Q and the K/V ring need " + Twine(bytes) +
           " bytes of shared memory for " + Twine(c.stages) +
           " stages, more than the " + Twine(target.maxSmemPerBlock) +
           " bytes a block may use on " + target.chip)
              .str();
    return failure();
  }
  // Persistent without the causal mask, where a second Q buffer fits beside
  // the ring (not with a third stage at head dim 128): the next tile's Q and
  // K/V load while this one finishes. Interleaved A/B on the H200, S = 1k /
  // 4k / 16k (bench/results/2026-11-30_attention_sm90a_persistent_h200.json):
  // head dim 128 565 / 626 / 634 TFLOP/s against 521 / 607 / 636, head dim
  // 64 406 / 468 (1k / 4k) against 357 / 430. Causal tiles differ in work:
  // persistent, they run in pairs of equal work (ExpandNamedOps), which led
  // at S = 1k (head dim 128 380 against 365, head dim 64 276 against 246)
  // and trailed the hardware's block scheduler at 16k (567 against 620,
  // 438 against 451; bench/results/2026-11-30_attention_sm90a_causal_pairs_
  // h200.json), so causal attention keeps the block scheduler by default
  // (tilec.attention asks for `persistent` at short causal sequences).
  int64_t qBytes = c.blockM * d * elemBytes;
  bool roomForQ2 = bytes + qBytes <= target.maxSmemPerBlock;
  // Not FP8: its non-persistent kernel ran 1.08-1.11x the persistent one
  // (H200, head dim 128, S = 4k-16k, both split,
  // bench/results/2026-12-03_attention_fp8_named_split_h200.json).
  bool fp8 = elemBytes == 1;
  c.persistent = flags.persistent.value_or(roomForQ2 && !op.getCausal() &&
                                           !fp8 && !flags.decode);
  if (c.persistent && !roomForQ2)
    return op.emitOpError("persistent: a second Q buffer beside Q and the "
                          "K/V ring needs ")
           << bytes + qBytes << " bytes of shared memory, more than the "
           << target.maxSmemPerBlock << " bytes a block may use on "
           << target.chip;
  // The TMA store, except for decode. Varlen stores a sequence's last block
  // masked by the threads (through a conversion scratch of O's tile), which
  // does not fit beside a persistent kernel's second Q buffer and the TMA
  // store's staging: persistent (without the causal mask) it stores every
  // block by the threads. H100, head dim 128, 16k tokens in sequences of
  // 1k / 2k / 4k (non-causal, one call): persistent without the TMA store
  // 499 / 544 / 581 TFLOP/s, one block per program without it 448 / 495 /
  // 535; the dense kernel with the TMA store and without it 573 / 600 / 622
  // and 542 / 585 / 613 (bench/results/2026-12-07_varlen_h100.json).
  c.tmaStore = flags.tmaStore.value_or(!flags.decode &&
                                       !(op.isVarlen() && c.persistent));
  // Who builds the warp-specialized kernel: the scheduling passes from the
  // block program (by_passes), or ExpandAttentionHandBuilt.cpp. The passes
  // by default up to head dim 128, where they keep the hand-built kernel's
  // speed (interleaved A/B on the H200, B*S = 16k):
  // - head dim 64 without the mask (persistent, S = 1k / 4k / 16k: 1.02 /
  //   1.01 / 1.00x, bench/results/2026-12-02_attention_split_loops_h200.json);
  // - head dim 128 without the mask (persistent, 1.00-1.01x since the wgmma
  //   descriptors of Q are rebuilt in the key loop,
  //   bench/results/2026-12-04_wgmma_descriptor_remat_h200.json);
  // - causal: one query block per program, S = 1k / 4k / 16k, head dim 64
  //   1.06 / 1.02 / 1.01x, head dim 128 1.03 / 0.99 / 0.98x
  //   (bench/results/2026-12-02_attention_causal_default_by_passes_h200.json);
  //   the persistent causal pairs, S = 1k / 2k, head dim 64 1.07 / 1.04x,
  //   head dim 128 1.03 / 1.04x (the split-loops results).
  // Not yet at head dim 256: 0.88-0.96x on the H100, where the key loop's
  // mask costs it (without the mask 0.97-0.99x) and tile-split-loops' split
  // does not win it back (bench/results/2026-12-06_attention_d256_gap_h100.json).
  c.byPasses = flags.byPasses.value_or(d <= 128);
  // tile-split-loops on the persistent kernels (measured, ExpandAttention)
  // and on FP8: unsplit 0.90-0.94x (the same results).
  c.splitLoops =
      flags.splitLoops.value_or((c.persistent || fp8) && !flags.decode);
  // Ping-pong pairs two consumer warpgroups. Not by default on FP8, whose
  // block program ran 0.92-0.94x with it (H200, head dim 128, S = 4k-16k,
  // bench/results/2026-12-03_attention_fp8_stages_h200.json).
  c.pingpong = flags.pingpong.value_or(c.warps == 8 && !fp8);
  // The hand-built schedule has no FP8 form, no score_mod or mask_mod, no
  // serving form and no block list.
  bool serving = flags.decode || op.getSequsedK() || op.isVarlen();
  bool listed = static_cast<bool>(op.getKvNumBlocks());
  if (fp8 || op.getScoreModBlock() || op.getMaskModBlock() || serving ||
      listed) {
    if (!flags.byPasses.value_or(true))
      return op.emitOpError("by_passes = false: the hand-built schedule has "
                            "no ")
             << (fp8       ? "FP8 form; FP8 attention"
                 : serving ? "serving form (seqused_k, splits, pack_gqa, "
                             "cu_seqlens); such "
                             "attention"
                 : listed  ? "block list; attention with one"
                           : "score_mod or mask_mod; attention with one")
             << " is built by the scheduling passes";
    c.byPasses = true;
  }
  if (c.pingpong && c.warps != 8)
    return op.emitOpError("pingpong takes turns between two consumer "
                          "warpgroups (8 warps), got ")
           << c.warps << " warps";
  return c;
}

FailureOr<AttentionConfig>
mlir::tilec::tile::getAttentionConfig(AttentionOp op, const TargetInfo &target,
                                      int64_t d) {
  int64_t elemBytes = getBytes(op.getQ().getType().getElementType());
  AttentionConfigAttr config = op.getConfigAttr();
  if (!config)
    config = AttentionConfigAttr::get(op.getContext());
  std::optional<bool> ws = getFlag(config.getWarpSpecialize());
  if (elemBytes == 1 && !target.hasMmaFp8)
    return op.emitOpError("FP8 attention needs FP8 tensor cores: mma.sync "
                          "m16n8k32 (sm_89) or FP8 wgmma (sm_90a); ")
           << target.chip << " has neither (bf16 or f16 inputs run there)";
  AttentionConfig c =
      getDefaultAttentionConfig(target, d, elemBytes, ws.value_or(true));
  // FP8's K/V stages are half as large; three ran 3-5% faster than the
  // five that fit (H200, head dim 128, the FP8 block program,
  // bench/results/2026-12-03_attention_fp8_stages_h200.json).
  if (elemBytes == 1 && c.warpSpecialize) {
    c.stages = 3;
    // Head dim 256: 128-key blocks (P V's K fills FP8 wgmma's 128-byte
    // rows; 64 keys put P V on mma.sync) in two stages: 880 TFLOP/s
    // against 220 with 64-key blocks, torch's bf16 SDPA 749 (H200, S = 8k,
    // bench/results/2026-12-03_attention_fp8_d256_h200.json and
    // 2026-12-03_attention_fp8_head_dims_h200.json).
    if (d > 128) {
      c.blockN = 128;
      c.stages = 2;
    }
    // Head dim 64 without the mask: 256-key blocks (Q Kᵀ as m64n256k32):
    // 524 TFLOP/s against 477 with 128 keys (torch's bf16 SDPA 476; H200,
    // S = 8k; persistent, ping-pong and 2 or 4 stages did not help,
    // bench/results/2026-12-03_attention_fp8_d64_probe/). Causal attention
    // keeps 128 keys, as its diagonal blocks would mask more (not measured).
    if (d <= 64 && !op.getCausal())
      c.blockN = 256;
  }
  // Varlen stores O by the threads (masked at each sequence's end), which
  // takes a conversion scratch of O's tile beside Q and the K/V ring. At
  // head dim 256 on the warp-specialized schedule (Q 64 KB, ring 128 KB,
  // O 64 KB: more than 227 KB) one consumer warpgroup of 64 queries.
  if (op.isVarlen() && c.warpSpecialize && d > 128 && elemBytes == 2) {
    c.blockM = 64;
    c.warps = 4;
  }
  // Decode: split-KV, or the query heads of a K/V head packed into one
  // block (by default where Q has one query per head and no regions).
  c.splits = config.getSplits().value_or(1);
  bool oneQuery = op.getQ().getType().getShape()[2] == 1;
  c.packGqa = getFlag(config.getPackGqa())
                  .value_or(oneQuery && elemBytes == 2 && !op.isVarlen() &&
                            !op.getKvNumBlocks() && !op.getScoreModBlock() &&
                            !op.getMaskModBlock());
  bool decode = c.splits > 1 || c.packGqa;
  if (decode)
    setDecodeTiles(c, target, d, elemBytes);
  WarpSpecializedFlags flags{
      getFlag(config.getPingpong()),   getFlag(config.getTmaStore()),
      getFlag(config.getPersistent()), getFlag(config.getByPasses()),
      getFlag(config.getSplitLoops()), decode};
  c.qInSmem = getFlag(config.getQInSmem()).value_or(c.qInSmem);
  c.splitLoops = getFlag(config.getSplitLoops()).value_or(c.splitLoops);
  c.warpSpecialize = ws.value_or(c.warpSpecialize);
  override(c.blockM, config.getBlockM());
  override(c.blockN, config.getBlockN());
  override(c.warps, config.getWarps());
  override(c.stages, config.getStages());
  override(c.consumerRegs, config.getConsumerRegs());
  override(c.producerRegs, config.getProducerRegs());
  // A paged KV cache: a key block within one page.
  if (op.getBlockTable()) {
    int64_t page = op.getK().getType().getShape()[2];
    if (config.getBlockN() && *config.getBlockN() > page)
      return op.emitOpError("block_n = ")
             << *config.getBlockN() << " is larger than the KV cache's pages ("
             << page << " keys): a key block must lie within one page";
    c.blockN = std::min(c.blockN, page);
  }
  // Warps split the rows: each owns block_m / warps (a multiple of 16).
  // (Powers of two and block_n >= 16 are the config attribute's rules.)
  if (c.blockM % (16 * c.warps) != 0)
    return op.emitOpError("block_m must be a multiple of 16 x warps, got "
                          "block_m = ")
           << c.blockM << ", warps = " << c.warps;
  if (!c.warpSpecialize)
    return checkCpAsyncConfig(op, target, c, d, elemBytes, flags);
  // Requested explicitly, a schedule the chip or shape cannot run is an
  // error; by default the cp.async schedule takes over.
  std::string why;
  FailureOr<AttentionConfig> wsConfig =
      finishWarpSpecializedConfig(op, target, c, d, elemBytes, flags, why);
  if (succeeded(wsConfig) || why.empty())
    return wsConfig;
  if (ws.value_or(false))
    return op.emitOpError("warp_specialize: ") << why;
  c.warpSpecialize = false;
  return checkCpAsyncConfig(op, target, c, d, elemBytes, flags);
}

//===----------------------------------------------------------------------===//
// tile.attention_backward
//===----------------------------------------------------------------------===//

FailureOr<AttentionBackwardTiles>
mlir::tilec::tile::getAttentionBackwardTiles(AttentionBackwardOp op,
                                             const TargetInfo &target) {
  int64_t d = op.getQ().getType().getShape()[3];
  // The chip's rule (include/tilec/Rules/ShapeRules.h, which the Python
  // package reads too), then the op's config.
  AttentionBackwardTiles t;
  // The row kernels hold two [rowM, head_dim] tiles in f32: at head dim 256,
  // 64 rows (128 held 512 values a thread and spilled 1.2 KB).
  if (d > 128) {
    t.rowM = 128 * 128 / d;
    t.sumN = 32;
  }
  ::tilec::rules::AttentionBackwardShapeConfig rule =
      ::tilec::rules::getAttentionBackwardConfig(target.chip, d,
                                                 op.getAtomic());
  override(t.dqM, rule.dqM);
  override(t.dqN, rule.dqN);
  override(t.dqWarps, rule.dqWarps);
  override(t.dkvN, rule.dkvN);
  override(t.dkvM, rule.dkvM);
  override(t.dkvWarps, rule.dkvWarps);
  override(t.dkvConsumerRegs, rule.consumerRegs);
  override(t.dkvProducerRegs, rule.producerRegs);
  override(t.dqAddCols, rule.dqAddCols);
  t.shareTiles = rule.shareTiles.value_or(t.shareTiles);
  AttentionBackwardConfigAttr config = op.getConfigAttr();
  if (!config)
    return t;
  override(t.dqM, config.getDqM());
  override(t.dqN, config.getDqN());
  override(t.dqWarps, config.getDqWarps());
  override(t.dkvN, config.getDkvN());
  override(t.dkvM, config.getDkvM());
  override(t.dkvWarps, config.getDkvWarps());
  t.prefetchRows = getFlag(config.getPrefetchRows()).value_or(t.prefetchRows);
  t.shareTiles = getFlag(config.getShareTiles()).value_or(t.shareTiles);
  if (config.getConsumerRegs() || config.getProducerRegs()) {
    // Either budget set: both are the config's (24 and 240 where only one
    // is given: the producer's minimum, the rule's consumer budget).
    t.dkvConsumerRegs = config.getConsumerRegs().value_or(240);
    t.dkvProducerRegs = config.getProducerRegs().value_or(24);
  }
  override(t.dqAddCols, config.getDqAddCols());
  if (t.dqAddCols > d)
    return op.emitOpError("config dq_add_cols = ")
           << t.dqAddCols << " is wider than the head dim " << d;
  return t;
}
