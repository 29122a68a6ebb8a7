//===- SplitStages.cpp - One kernel per stage of a named op ---------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-split-stages: a kernel holding a named op that
// runs as several kernels (StagedOpInterface: tile.attention_backward, a
// split-K tile.gemm) without a stage becomes one kernel per stage (same
// parameters, the op's stage set), which tile-expand-named-ops then
// expands one by one. A module pass, because it creates kernels;
// tile-expand-named-ops runs per kernel.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILESPLITSTAGES
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

/// The name of `kernel`'s kernel for `stage`: `<kernel>_<stage>`.
static std::string getStageName(KernelOp kernel, StringRef stage) {
  return (kernel.getSymName() + "_" + stage).str();
}

/// Replaces `kernel` (whose only computation is `op`) by its stage kernels.
static LogicalResult splitKernel(KernelOp kernel, StagedOpInterface op,
                                 ModuleOp module) {
  SmallVector<StringRef, 4> stages = op.getKernelStages();
  auto stageList = [&] {
    std::string list;
    for (StringRef stage : stages)
      list += (list.empty() ? "@" : ", @") + getStageName(kernel, stage);
    return list;
  };
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(kernel, module)) {
    for (const SymbolTable::SymbolUse &use : *uses)
      return use.getUser()->emitError("launches @")
             << kernel.getSymName() << ", whose " << op->getName()
             << " is several kernels; launch its stages " << stageList()
             << " in that order instead";
  }
  Operation *tableOp =
      SymbolTable::getNearestSymbolTable(kernel->getParentOp());
  for (StringRef stage : stages) {
    std::string name = getStageName(kernel, stage);
    if (SymbolTable::lookupSymbolIn(tableOp, name))
      return op->emitOpError("cannot split its kernel into ")
             << stageList() << ": @" << name << " is taken";
  }
  OpBuilder builder(kernel);
  for (StringRef stage : stages) {
    auto clone = cast<KernelOp>(builder.clone(*kernel));
    clone.setSymName(getStageName(kernel, stage));
    clone.walk([&](StagedOpInterface staged) { staged.setKernelStage(stage); });
  }
  kernel.erase();
  return success();
}

namespace {
struct TileSplitStagesPass
    : tile::impl::TileSplitStagesBase<TileSplitStagesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<StagedOpInterface> ops;
    module.walk([&](StagedOpInterface op) {
      if (!op.getKernelStage() && op.getKernelStages().size() > 1)
        ops.push_back(op);
    });
    for (StagedOpInterface op : ops) {
      // The named ops' verifiers keep them directly in a kernel.
      auto kernel = cast<KernelOp>(op->getParentOp());
      if (failed(splitKernel(kernel, op, module)))
        return signalPassFailure();
    }
  }
};
} // namespace
