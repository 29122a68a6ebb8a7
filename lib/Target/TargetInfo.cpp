//===- TargetInfo.cpp - Per-chip facts tilec relies on --------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file holds the table of chips tilec supports.
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
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace mlir::tilec;

static TargetInfo makeAmpere(StringRef chip, unsigned sm, unsigned ptx,
                             unsigned smem) {
  TargetInfo info{};
  info.chip = chip;
  info.smVersion = sm;
  info.archSpecific = false;
  info.ptxVersion = ptx;
  info.maxSmemPerBlock = smem;
  info.hasCpAsync = info.hasLdmatrix = info.hasMmaBf16 = true;
  return info;
}

FailureOr<TargetInfo> TargetInfo::get(StringRef chip) {
  if (chip == "sm_80")
    return makeAmpere("sm_80", 80, 70, 163 * 1024);
  if (chip == "sm_86")
    return makeAmpere("sm_86", 86, 71, 99 * 1024);
  if (chip == "sm_89") {
    TargetInfo info = makeAmpere("sm_89", 89, 84, 99 * 1024);
    info.hasMmaFp8 = true;
    return info;
  }
  if (chip == "sm_90" || chip == "sm_90a") {
    TargetInfo info = makeAmpere(chip == "sm_90" ? "sm_90" : "sm_90a", 90, 86,
                                 227 * 1024);
    info.hasTma = info.hasClusters = true;
    // mma.sync m16n8k32 on fp8 is sm_89+; sm_90a prefers wgmma.
    info.hasMmaFp8 = true;
    info.archSpecific = chip == "sm_90a";
    info.hasWgmma = info.hasSetmaxnreg = info.archSpecific;
    return info;
  }
  return failure();
}

StringRef TargetInfo::getSupportedChips() {
  return "sm_80, sm_86, sm_89, sm_90, sm_90a";
}

std::string TargetInfo::getPtxFeatures() const {
  return "+ptx" + std::to_string(ptxVersion);
}

FailureOr<TargetInfo> mlir::tilec::resolveTarget(Operation *op,
                                                 StringRef chipOption) {
  StringRef chip = chipOption;
  if (chip.empty()) {
    auto module = op->getParentOfType<gpu::GPUModuleOp>();
    if (auto self = dyn_cast<gpu::GPUModuleOp>(op))
      module = self;
    if (module && module.getTargets()) {
      ArrayAttr targets = *module.getTargets();
      for (Attribute target : targets)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
          chip = nvvm.getChip();
    }
  }
  if (chip.empty()) {
    op->emitError("no target chip: pass chip=... or nest the kernel in a "
                  "gpu.module with an #nvvm.target (see tile-attach-target)");
    return failure();
  }
  FailureOr<TargetInfo> info = TargetInfo::get(chip);
  if (failed(info))
    op->emitError("unknown chip '")
        << chip << "'; expected one of " << TargetInfo::getSupportedChips();
  return info;
}
