//===- Chips.cpp - The table of chips tilec compiles for ------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file holds the table of chips tilec supports (plain C++17: the
// compiler's TargetInfo and the shape rules of libtilec-rules.so both read
// it).
//
// PTX ISA versions: each chip gets the lowest version that has everything
// tilec emits for it (PTX ISA "Release notes" table):
//   sm_80  7.0  cp.async, ldmatrix, mma.sync bf16
//   sm_86  7.1
//   sm_89  8.4  mma.sync m16n8k32 with e4m3/e5m2 operands needs 8.4
//   sm_90  8.6  cp.async.bulk.tensor into CTA-local shared memory needs 8.6
//   sm_90a 8.6  wgmma / setmaxnreg need 8.0
// Shared memory per block (opt-in maximum, CUDA Programming Guide, "Technical
// Specifications per Compute Capability"): 163 KB on 8.0, 99 KB on 8.6/8.9,
// 227 KB on 9.0.
// Typical SM counts (the GPU the shape rules are tuned for): H100 / H200 SXM
// 132 (sm_90a; sm_90: Hopper without its sm_90a features, and later chips
// running sm_90's code), A100 108 (sm_80), A40 84 (sm_86), L40S 142 (sm_89).
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Chips.h"

using namespace tilec;

static constexpr unsigned KB = 1024;

// sm_89 and sm_90 have mma.sync m16n8k32 on fp8 (sm_90a prefers wgmma);
// wgmma and setmaxnreg are sm_90a's only (arch-specific).
// clang-format off
static constexpr ChipInfo kChips[] = {
//  name      SM  arch   PTX  smem/block  regs/SM  regs/thread  threads/block  SMs
//    cp.async ldmatrix mma.bf16 mma.fp8 TMA    clusters wgmma  setmaxnreg
  {"sm_80",   80, false, 70,  163 * KB,   65536,   255,         1024,          108,
      true,    true,    true,    false,  false, false,   false, false},
  {"sm_86",   86, false, 71,   99 * KB,   65536,   255,         1024,           84,
      true,    true,    true,    false,  false, false,   false, false},
  {"sm_89",   89, false, 84,   99 * KB,   65536,   255,         1024,          142,
      true,    true,    true,    true,   false, false,   false, false},
  {"sm_90",   90, false, 86,  227 * KB,   65536,   255,         1024,          132,
      true,    true,    true,    true,   true,  true,    false, false},
  {"sm_90a",  90, true,  86,  227 * KB,   65536,   255,         1024,          132,
      true,    true,    true,    true,   true,  true,    true,  true},
};
// clang-format on

const ChipInfo *tilec::getChips() { return kChips; }

size_t tilec::getNumChips() { return sizeof(kChips) / sizeof(kChips[0]); }

const ChipInfo *tilec::lookupChip(std::string_view name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}
