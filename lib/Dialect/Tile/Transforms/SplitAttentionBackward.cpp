//===- SplitAttentionBackward.cpp - One kernel per backward stage ---------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-split-attention-backward: a kernel holding a
// tile.attention_backward without a stage becomes one kernel per stage of
// the op's mode (same parameters, the op's stage set), which
// tile-expand-named-ops then expands one by one. A module pass, because it
// creates kernels; tile-expand-named-ops runs per kernel.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILESPLITATTENTIONBACKWARD
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

/// The name of `kernel`'s kernel for `stage`: `<kernel>_<stage>`.
static std::string getStageName(KernelOp kernel, AttentionBackwardStage stage) {
  return (kernel.getSymName() + "_" + stringifyAttentionBackwardStage(stage))
      .str();
}

/// Replaces `kernel` (whose only computation is `op`) by its stage kernels.
static LogicalResult splitKernel(KernelOp kernel, AttentionBackwardOp op,
                                 ModuleOp module) {
  SmallVector<AttentionBackwardStage, 4> stages = op.getModeStages();
  auto stageList = [&] {
    std::string list;
    for (AttentionBackwardStage stage : stages)
      list += (list.empty() ? "@" : ", @") + getStageName(kernel, stage);
    return list;
  };
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(kernel, module)) {
    for (const SymbolTable::SymbolUse &use : *uses)
      return use.getUser()->emitError("launches @")
             << kernel.getSymName()
             << ", whose tile.attention_backward is several kernels; launch "
                "its stages "
             << stageList() << " in that order instead";
  }
  Operation *tableOp =
      SymbolTable::getNearestSymbolTable(kernel->getParentOp());
  for (AttentionBackwardStage stage : stages) {
    std::string name = getStageName(kernel, stage);
    if (SymbolTable::lookupSymbolIn(tableOp, name))
      return op.emitOpError("cannot split its kernel into ")
             << stageList() << ": @" << name << " is taken";
  }
  OpBuilder builder(kernel);
  for (AttentionBackwardStage stage : stages) {
    auto clone = cast<KernelOp>(builder.clone(*kernel));
    clone.setSymName(getStageName(kernel, stage));
    clone.walk([&](AttentionBackwardOp staged) { staged.setStage(stage); });
  }
  kernel.erase();
  return success();
}

namespace {
struct TileSplitAttentionBackwardPass
    : tile::impl::TileSplitAttentionBackwardBase<
          TileSplitAttentionBackwardPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<AttentionBackwardOp> ops;
    module.walk([&](AttentionBackwardOp op) {
      if (!op.getStage())
        ops.push_back(op);
    });
    for (AttentionBackwardOp op : ops) {
      // The verifier keeps the op directly in a kernel.
      auto kernel = cast<KernelOp>(op->getParentOp());
      if (failed(splitKernel(kernel, op, module)))
        return signalPassFailure();
    }
  }
};
} // namespace
