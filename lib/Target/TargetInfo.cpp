//===- TargetInfo.cpp - Per-chip facts tilec relies on --------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file builds TargetInfo from the table of chips (lib/Target/Chips.cpp,
// which the shape rules read too).
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/TargetInfo.h"
#include "tilec/Target/Chips.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace mlir::tilec;

FailureOr<TargetInfo> TargetInfo::get(StringRef chip) {
  const ::tilec::ChipInfo *entry = ::tilec::lookupChip(chip);
  if (!entry)
    return failure();
  TargetInfo info{};
  info.chip = entry->name;
  info.smVersion = entry->smVersion;
  info.archSpecific = entry->archSpecific;
  info.ptxVersion = entry->ptxVersion;
  info.maxSmemPerBlock = entry->maxSmemPerBlock;
  info.regsPerSM = entry->regsPerSM;
  info.maxRegsPerThread = entry->maxRegsPerThread;
  info.maxThreadsPerBlock = entry->maxThreadsPerBlock;
  info.hasCpAsync = entry->hasCpAsync;
  info.hasLdmatrix = entry->hasLdmatrix;
  info.hasMmaBf16 = entry->hasMmaBf16;
  info.hasMmaFp8 = entry->hasMmaFp8;
  info.hasTma = entry->hasTma;
  info.hasClusters = entry->hasClusters;
  info.hasWgmma = entry->hasWgmma;
  info.hasSetmaxnreg = entry->hasSetmaxnreg;
  return info;
}

StringRef TargetInfo::getSupportedChips() {
  // "sm_80, sm_86, ...", in the table's order.
  static const std::string names = [] {
    std::string text;
    for (size_t i = 0, e = ::tilec::getNumChips(); i != e; ++i) {
      if (i)
        text += ", ";
      text += ::tilec::getChips()[i].name;
    }
    return text;
  }();
  return names;
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
