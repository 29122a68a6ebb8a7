//===- Chips.h - The table of chips tilec compiles for ----------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the one table of per-chip facts: the compiler's
// TargetInfo (include/tilec/Target/TargetInfo.h) is built from it, and the
// shape rules (lib/Rules, libtilec-rules.so) look chips up in it. Plain
// C++17 without LLVM or MLIR, so that the rules library can use it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_CHIPS_H
#define TILEC_TARGET_CHIPS_H

#include <cstddef>
#include <string_view>

namespace tilec {

/// The facts of one chip (see TargetInfo for what each one means to the
/// compiler).
struct ChipInfo {
  /// Chip name as given to ptxas and #nvvm.target, e.g. "sm_90a".
  std::string_view name;
  /// Compute capability times ten, e.g. 90.
  unsigned smVersion;
  /// True for arch-specific targets (sm_90a) whose features do not carry
  /// forward to later chips.
  bool archSpecific;
  /// PTX ISA version emitted for the chip, times ten (86 is `.version 8.6`).
  unsigned ptxVersion;
  /// Largest shared memory (static + dynamic, bytes) a block may use after
  /// opting in with cuFuncSetAttribute.
  unsigned maxSmemPerBlock;
  /// Registers per multiprocessor and per thread; threads per block.
  unsigned regsPerSM;
  unsigned maxRegsPerThread;
  unsigned maxThreadsPerBlock;
  /// Streaming multiprocessors of the GPU the shape rules are tuned for.
  unsigned typicalNumSMs;

  // Instructions and features.
  bool hasCpAsync;    ///< cp.async (sm_80+)
  bool hasLdmatrix;   ///< ldmatrix (sm_75+)
  bool hasMmaBf16;    ///< mma.sync m16n8k16 bf16/f16 (sm_80+)
  bool hasMmaFp8;     ///< e4m3/e5m2 mma.sync m16n8k32 and cvt (sm_89+)
  bool hasTma;        ///< cp.async.bulk.tensor, mbarrier tx (sm_90)
  bool hasClusters;   ///< thread-block clusters (sm_90)
  bool hasWgmma;      ///< wgmma.mma_async (sm_90a only)
  bool hasSetmaxnreg; ///< setmaxnreg (sm_90a only)
};

/// The chips tilec knows, by ascending SM version (sm_90 before sm_90a).
const ChipInfo *getChips();
/// The number of entries of getChips().
size_t getNumChips();

/// The chip named exactly `name`, or nullptr for an unknown chip.
const ChipInfo *lookupChip(std::string_view name);

} // namespace tilec

#endif // TILEC_TARGET_CHIPS_H
