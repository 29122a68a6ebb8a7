//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The operations of the `tile` dialect, one file per level: program-level
// ops (named ops, kernels, views, tile loads/stores and compute) in
// TileProgramOps.td, hardware-level ops (shared memory, barriers,
// asynchronous copies, TMA, warp specialization) in TileHardwareOps.td,
// and host-level ops (launching kernels from host functions) in
// TileHostOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEOPS_TD
#define TILEC_DIALECT_TILE_IR_TILEOPS_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "tilec/Dialect/Tile/IR/TileAttrs.td"
include "tilec/Dialect/Tile/IR/TileInterfaces.td"
include "tilec/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Tensor : RankedTensorOf<[AnyType]>;
def Tile_IntTensor : RankedTensorOf<[AnySignlessInteger]>;
def Tile_BoolTensor : RankedTensorOf<[I1]>;
def Tile_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Tile_Scalar : AnyTypeOf<[AnySignlessInteger, AnyFloat]>;

/// Marks an op of the hardware level: only the scheduling passes create it.
def Tile_HardwareLevel : NativeOpTrait<"HardwareLevel"> {
  let cppNamespace = "::mlir::tilec::tile";
}

class Tile_HardwareOp<string mnemonic, list<Trait> traits = []>
    : Tile_Op<mnemonic, traits # [Tile_HardwareLevel]>;

include "tilec/Dialect/Tile/IR/TileProgramOps.td"
include "tilec/Dialect/Tile/IR/TileHardwareOps.td"
include "tilec/Dialect/Tile/IR/TileHostOps.td"

#endif // TILEC_DIALECT_TILE_IR_TILEOPS_TD
