//===- shape-rules.cpp - Test of the shape rules' typed results -----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

// RUN: tilec-rules-test | FileCheck %s
// RUN: tilec-rules-test --mlir | tilec-opt | FileCheck %s --check-prefix=MLIR
//
// The rules' typed results (include/tilec/Rules/ShapeRules.h) and the text
// formatConfig makes of them, which libtilec-rules.so hands the Python
// package: every field under its #tile.*_config name, sorted by name, flags
// as 0 or 1. With --mlir the program prints each struct with every field set
// as the config attribute, which tilec-opt must parse: the names are the
// attributes' fields. The program also checks facts itself and exits
// non-zero on a failed check. A few rule answers are pinned as examples; the
// Python tests (python/tests) check more of them through the C API.

// clang-format off
//
// Nothing set: the empty text (the chip's defaults).
// CHECK: empty gemm: ""
// CHECK-NEXT: empty attention: ""
// CHECK-NEXT: empty backward: ""
//
// Every field, by name; flags as 0 or 1.
// CHECK-NEXT: full gemm: "block_k=32,block_m=128,block_n=64,split_k=2,stages=4,swap_ab=1,tma_store=0,warps=8"
// CHECK-NEXT: full attention: "persistent=1"
// CHECK-NEXT: full backward: "consumer_regs=240,dkv_m=32,dkv_n=128,dkv_warps=4,dq_add_cols=64,dq_m=128,dq_n=64,dq_warps=8,producer_regs=24,share_tiles=0"
//
// The rules' answers.
// CHECK-NEXT: sm_90a 128x8192x8192: "block_n=64"
// CHECK-NEXT: sm_90a 4096x4095x4096: "tma_store=0"
// CHECK-NEXT: sm_90a decode: "block_k=128,block_m=16,block_n=64,swap_ab=1,tma_store=0,warps=4"
// CHECK-NEXT: sm_80 decode: "block_k=64,block_m=16,block_n=64,split_k=2,stages=8,swap_ab=1,warps=4"
// CHECK-NEXT: sm_90a grouped: "block_k=128,block_m=32,block_n=64,swap_ab=1,warps=4"
// CHECK-NEXT: sm_90a backward hd256: "dkv_m=64,dkv_n=64,dq_m=64,dq_n=64,share_tiles=1"
// CHECK-NEXT: sm_86 backward hd256: "dkv_m=16,dkv_n=32,dkv_warps=4,dq_m=64,dq_n=16"
//
// The chip per compute capability, from the chip table.
// CHECK-NEXT: 7.5: none
// CHECK-NEXT: 8.0: sm_80 sm_80
// CHECK-NEXT: 8.6: sm_86 sm_86
// CHECK-NEXT: 8.7: sm_86 sm_87
// CHECK-NEXT: 8.9: sm_89 sm_89
// CHECK-NEXT: 9.0: sm_90a sm_90a
// CHECK-NEXT: 10.0: sm_90 sm_100
// CHECK-NEXT: 12.0: sm_90 sm_120
// CHECK-NOT: FAILED
// CHECK: PASS
//
// The fully set structs as the attributes (tilec-opt prints the module's
// attributes sorted by name, each attribute's fields in declaration order).
// MLIR: test.attention = #tile.attention_config<persistent = true>
// MLIR-SAME: test.backward = #tile.attention_backward_config<dq_m = 128, dq_n = 64, dq_warps = 8, dkv_n = 128, dkv_m = 32, dkv_warps = 4, consumer_regs = 240, producer_regs = 24, dq_add_cols = 64, share_tiles = false>
// MLIR-SAME: test.gemm = #tile.gemm_config<block_m = 128, block_n = 64, block_k = 32, stages = 4, warps = 8, tma_store = false, swap_ab = true, split_k = 2>
//
// clang-format on

#include "tilec/Rules/ShapeRules.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace tilec::rules;

static int failures = 0;

/// Records a failed self-check (and prints it for FileCheck to reject).
static void check(bool cond, const char *what) {
  if (!cond) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

/// The field names of formatConfig's `text`.
static std::vector<std::string> getNames(const std::string &text) {
  std::vector<std::string> names;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(pos, end - pos);
    names.push_back(item.substr(0, item.find('=')));
    pos = end + 1;
  }
  return names;
}

/// Checks that `text` names each field once, sorted by name, and prints it.
static void print(const char *label, const std::string &text) {
  std::vector<std::string> names = getNames(text);
  for (size_t i = 1; i < names.size(); ++i)
    check(names[i - 1] < names[i], "fields sorted by name, each once");
  std::printf("%s: \"%s\"\n", label, text.c_str());
}

/// Every field set (values the attributes' verifiers accept).
static GemmShapeConfig getFullGemm() {
  GemmShapeConfig c;
  c.blockM = 128;
  c.blockN = 64;
  c.blockK = 32;
  c.stages = 4;
  c.warps = 8;
  c.splitK = 2;
  c.swapAb = true;
  c.tmaStore = false;
  return c;
}

static AttentionShapeConfig getFullAttention() {
  AttentionShapeConfig c;
  c.persistent = true;
  return c;
}

static AttentionBackwardShapeConfig getFullBackward() {
  AttentionBackwardShapeConfig c;
  c.dqM = 128;
  c.dqN = 64;
  c.dqWarps = 8;
  c.dkvN = 128;
  c.dkvM = 32;
  c.dkvWarps = 4;
  c.consumerRegs = 240;
  c.producerRegs = 24;
  c.dqAddCols = 64;
  c.shareTiles = false;
  return c;
}

/// `text` as the fields of an MLIR attribute: "a=1,b=2" -> "a = 1, b = 2".
static std::string toMlir(const std::string &text) {
  std::string out;
  for (char ch : text) {
    if (ch == '=')
      out += " = ";
    else if (ch == ',')
      out += ", ";
    else
      out += ch;
  }
  return out;
}

static int printMlir() {
  std::printf("module attributes {\n"
              "  test.gemm = #tile.gemm_config<%s>,\n"
              "  test.attention = #tile.attention_config<%s>,\n"
              "  test.backward = #tile.attention_backward_config<%s>\n"
              "} {\n}\n",
              toMlir(formatConfig(getFullGemm())).c_str(),
              toMlir(formatConfig(getFullAttention())).c_str(),
              toMlir(formatConfig(getFullBackward())).c_str());
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--mlir") == 0)
    return printMlir();

  print("empty gemm", formatConfig(GemmShapeConfig()));
  print("empty attention", formatConfig(AttentionShapeConfig()));
  print("empty backward", formatConfig(AttentionBackwardShapeConfig()));

  print("full gemm", formatConfig(getFullGemm()));
  print("full attention", formatConfig(getFullAttention()));
  print("full backward", formatConfig(getFullBackward()));

  // sm_90a: few 128 x 256 tiles take narrower N; N that is not a multiple
  // of 8 takes the epilogue without TMA stores.
  GemmShapeConfig narrow = getGemmShapeConfig("sm_90a", 128, 8192, 8192);
  check(narrow.blockN == 64 && !narrow.blockM && !narrow.tmaStore,
        "sm_90a 128x8192x8192: block_n = 64 only");
  GemmShapeConfig odd = getGemmShapeConfig("sm_90a", 4096, 4095, 4096);
  check(odd.tmaStore == false && !odd.blockN, "sm_90a N % 8 != 0: tma_store");
  check(formatConfig(getGemmShapeConfig("sm_90a", 4096, 4096, 4096)).empty(),
        "sm_90a 4096^3: the default");
  print("sm_90a 128x8192x8192", formatConfig(narrow));
  print("sm_90a 4096x4095x4096", formatConfig(odd));

  // Decode: sm_90a's transposed wgmma tiles, and mma.sync's 16-token tiles
  // split over K on 132 SMs.
  GemmShapeConfig decode = getGemmShapeConfig("sm_90a", 1, 4096, 14336, 0,
                                              /*canSwapAB=*/true,
                                              /*canSplitK=*/true);
  check(decode.swapAb == true && decode.blockM == 16 && decode.warps == 4 &&
            !decode.splitK,
        "sm_90a decode: transposed, 16 tokens, no split-K");
  GemmShapeConfig split = getGemmShapeConfig("sm_80", 1, 4096, 14336, 132,
                                             /*canSwapAB=*/true,
                                             /*canSplitK=*/true);
  check(split.splitK == 2 && split.stages == 8, "sm_80 decode: split_k = 2");
  print("sm_90a decode", formatConfig(decode));
  print("sm_80 decode", formatConfig(split));

  // Grouped: a few rows per group run transposed; otherwise the 2-D rule's
  // tiles without tma_store and split_k.
  GemmShapeConfig grouped =
      getGroupedGemmShapeConfig("sm_90a", 128, 4, 4096, 4096, 0, true);
  check(grouped.swapAb == true && grouped.blockM == 32,
        "sm_90a grouped, 32 rows per group: 32-token tiles");
  GemmShapeConfig groupedOdd =
      getGroupedGemmShapeConfig("sm_90a", 4096, 4, 4095, 4096);
  check(!groupedOdd.tmaStore && !groupedOdd.splitK,
        "grouped: no tma_store or split_k");
  print("sm_90a grouped", formatConfig(grouped));

  // Attention: sm_90a's persistent kernel for short causal sequences.
  check(getAttentionShapeConfig("sm_90a", 1024, 128, true).persistent == true,
        "sm_90a causal S = 1k: persistent");
  check(!getAttentionShapeConfig("sm_90a", 4096, 128, true).persistent,
        "sm_90a causal S = 4k: the block scheduler");
  check(!getAttentionShapeConfig("sm_80", 1024, 128, true).persistent,
        "sm_80: no persistent kernel");

  // Decode's key ranges: split until the programs fill the SMs (powers of
  // two, ranges of at least 4 key blocks); none for a full batch or a
  // short cache.
  check(getAttentionDecodeSplits("sm_90a", 1, 8, 4, 32768, 128, 132) == 16,
        "decode 1 x 8 kv heads, 32k keys: 16 ranges");
  check(getAttentionDecodeSplits("sm_90a", 8, 8, 4, 4096, 128, 132) == 2,
        "decode 8 x 8 kv heads, 4k keys: 2 ranges");
  check(getAttentionDecodeSplits("sm_90a", 128, 8, 4, 4096, 128, 132) == 1,
        "decode 128 x 8 kv heads: no split");
  check(getAttentionDecodeSplits("sm_90a", 1, 8, 4, 512, 128, 132) == 1,
        "decode 512 keys: no split");
  check(getAttentionDecodeSplits("sm_90a", 0, 8, 4, 4096, 128, 132) == 1,
        "decode, no batch: no split");

  // The backward's tiles.
  AttentionBackwardShapeConfig regs =
      getAttentionBackwardConfig("sm_90a", 128, /*atomic=*/false);
  check(regs.consumerRegs == 240 && regs.producerRegs == 24 && !regs.dqN,
        "sm_90a hd128: register budgets");
  AttentionBackwardShapeConfig wide =
      getAttentionBackwardConfig("sm_90a", 256, /*atomic=*/false);
  check(wide.shareTiles == true && wide.dkvM == 64, "sm_90a hd256");
  print("sm_90a backward hd256", formatConfig(wide));
  print("sm_86 backward hd256",
        formatConfig(getAttentionBackwardConfig("sm_86", 256, false)));

  for (auto [major, minor] : std::vector<std::pair<int, int>>{
           {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}}) {
    std::string chip, arch;
    if (getChipForCapability(major, minor, chip, arch))
      std::printf("%d.%d: %s %s\n", major, minor, chip.c_str(), arch.c_str());
    else
      std::printf("%d.%d: none\n", major, minor);
  }

  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
