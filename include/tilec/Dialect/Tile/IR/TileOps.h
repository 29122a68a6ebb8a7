//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the operations of the `tile` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEOPS_H
#define TILEC_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/Tile/IR/TileTypes.h"

namespace mlir::tilec::tile {
/// The trait of the hardware-level ops (TileHardwareOps.td): shared memory,
/// barriers, asynchronous copies, TMA and warp specialization. Only the
/// scheduling passes create them; `op->hasTrait<HardwareLevel>()` tells a
/// block program from a scheduled one.
template <typename ConcreteType>
class HardwareLevel : public OpTrait::TraitBase<ConcreteType, HardwareLevel> {};
} // namespace mlir::tilec::tile

#include "tilec/Dialect/Tile/IR/TileOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tilec::tile {

/// Prints a grid expression (`ceildiv(M, 128)`, `N * 2 + 1`, ...), the
/// syntax of tile.kernel's `grid(...)` and of the launch metadata. Symbols
/// are printed by `printParam` from their position.
void printGridExpr(raw_ostream &os, AffineExpr expr,
                   function_ref<void(raw_ostream &, unsigned)> printParam,
                   bool nested = false);

/// Whether `op` applies one function to each element of its operands:
/// ops with the Elementwise trait, and math.sincos, which lacks the trait
/// only because it has two results.
bool isElementwiseOp(Operation *op);

/// Registers the bufferization of tile.launch (one-shot bufferization of
/// the host functions that launch kernels).
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);

} // namespace mlir::tilec::tile

#endif // TILEC_DIALECT_TILE_IR_TILEOPS_H
