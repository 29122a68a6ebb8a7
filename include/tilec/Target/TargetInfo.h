//===- TargetInfo.h - Per-chip facts tilec relies on ------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares TargetInfo: everything tilec needs to know about a chip
// (PTX ISA version to emit, shared memory and register budgets, which
// instructions exist), built from the table of chips
// (include/tilec/Target/Chips.h). "Arch is data": passes query this struct
// instead of comparing SM numbers.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_TARGETINFO_H
#define TILEC_TARGET_TARGETINFO_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir {
class Operation;
class InFlightDiagnostic;
} // namespace mlir

namespace mlir::tilec {

struct TargetInfo {
  /// Chip name as given to ptxas and #nvvm.target, e.g. "sm_90a".
  llvm::StringRef chip;
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
  /// Registers per multiprocessor and per thread.
  unsigned regsPerSM = 65536;
  unsigned maxRegsPerThread = 255;
  unsigned maxThreadsPerBlock = 1024;

  // Instructions and features.
  bool hasCpAsync = false;    ///< cp.async (sm_80+)
  bool hasLdmatrix = false;   ///< ldmatrix (sm_75+)
  bool hasMmaBf16 = false;    ///< mma.sync m16n8k16 bf16/f16 (sm_80+)
  bool hasMmaFp8 = false;     ///< e4m3/e5m2 mma.sync m16n8k32 and cvt (sm_89+)
  bool hasTma = false;        ///< cp.async.bulk.tensor, mbarrier tx (sm_90)
  bool hasClusters = false;   ///< thread-block clusters (sm_90)
  bool hasWgmma = false;      ///< wgmma.mma_async (sm_90a only)
  bool hasSetmaxnreg = false; ///< setmaxnreg (sm_90a only)

  /// Returns the facts for `chip`, or failure for an unknown chip.
  static FailureOr<TargetInfo> get(llvm::StringRef chip);
  /// The chips tilec knows, for diagnostics.
  static llvm::StringRef getSupportedChips();

  /// "+ptx86" style feature string for #nvvm.target.
  std::string getPtxFeatures() const;
};

/// Resolves the target of `op`: `chipOption` when not empty, else the chip of
/// the #nvvm.target on the enclosing gpu.module. Emits an error on `op` and
/// returns failure when neither names a known chip.
FailureOr<TargetInfo> resolveTarget(Operation *op, llvm::StringRef chipOption);

} // namespace mlir::tilec

#endif // TILEC_TARGET_TARGETINFO_H
