//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the transformation passes of the `tile` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAttachTarget : Pass<"tile-attach-target", "::mlir::ModuleOp"> {
  let summary = "Moves each tile.kernel into its own gpu.module with an NVVM target";
  let description = [{
    Wraps every top-level `tile.kernel` into a `gpu.module` named after the
    kernel and carrying `#nvvm.target<chip = ..., features = "+ptxNN">`, with
    the PTX ISA version taken from the chip's `TargetInfo`. Later passes read
    the chip from that attribute. Kernels already inside a `gpu.module` are
    left alone.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target chip (sm_80, sm_86, sm_89, sm_90, sm_90a)">,
    Option<"optLevel", "O", "unsigned", /*default=*/"3",
           "LLVM optimization level recorded in the target">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Attaches a distributed layout encoding to every tile";
  let description = [{
    Gives every ranked tensor in a `tile.kernel` a layout encoding. Global
    loads and stores anchor coalesced `#tile.blocked` layouts (16-byte
    vectors along the view's contiguous dimension, a warp covering whole
    128-byte lines), `tile.dot` anchors `#tile.mma` / `#tile.dot_operand`
    where the chip has tensor cores for the types, reductions produce
    `#tile.slice` layouts. Layouts then propagate through elementwise ops,
    broadcasts and loops; where a use needs another layout than its value
    has, a `tile.convert_layout` is inserted.

    Tile shapes must be powers of two; other shapes are diagnosed.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the enclosing gpu.module">
  ];
  let statistics = [
    Statistic<"numConversions", "num-conversions",
              "Number of tile.convert_layout ops inserted">
  ];
}

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
