//===- TileDialect.td - tile dialect definition ------------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the `tile` dialect and the base class of its ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILEC_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Tile dialect
//===----------------------------------------------------------------------===//

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tilec::tile";
  let summary = "Tile-level programs for GEMM and attention kernels on NVIDIA GPUs";
  let description = [{
    The `tile` dialect describes GPU kernels at the granularity of a thread
    block ("program"), in the spirit of Triton: a `tile.kernel` is executed by
    a grid of programs; each program loads tiles (ranked tensors) from views of
    global tensors, computes on them with `tile` ops and elementwise `arith` /
    `math` ops, and stores tiles back. There are two levels:

    * **named ops** (`tile.gemm`, `tile.attention`): what a frontend emits; they
      are expanded by `tile-expand-named-ops{chip=...}` into block programs,
      with a configuration chosen per chip;
    * **block programs**: value-semantic tensors without layouts. The pass
      `tile-assign-layouts{chip=...}` then attaches *encodings* to every tensor
      type (`#tile.blocked`, `#tile.slice`, `#tile.mma`, `#tile.dot_operand`,
      ...) which say how the elements of a tile are distributed over the
      registers, lanes and warps of a thread block. Later passes rewrite
      encodings, not ops, and `convert-tile-to-nvvm` lowers each op to
      per-thread code.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect"
  ];
  // Attributes the dialect gives to other ops (TileDialect::<Name>AttrHelper,
  // getNameStr() for the spelled name):
  // - `tile.align` (i64) on a pointer parameter of a tile.kernel: the
  //   pointer is a multiple of that many bytes;
  // - `tile.divisibility` (i64) on an integer parameter: the value is a
  //   multiple of it;
  // - `tile.num_stages` (i64) on an scf.for: the depth of the ring that
  //   tile-tma-pipeline / tile-pipeline build for its loads;
  // - `tile.programs_per_sm` (i64) on a tile.kernel: the programs its
  //   schedule keeps resident on one SM (set by tile-tma-pipeline, which
  //   sizes the ring for them; tile-warp-specialize then splits no producer
  //   off, and the lowering asks ptxas for it with .minnctapersm).
  let discardableAttrs = (ins
    "::mlir::IntegerAttr":$align,
    "::mlir::IntegerAttr":$divisibility,
    "::mlir::IntegerAttr":$num_stages,
    "::mlir::IntegerAttr":$programs_per_sm
  );
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined in TileAttrs.cpp).
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
