//===- TileTypes.h - tile dialect types -------------------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the types of the `tile` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILETYPES_H
#define TILEC_DIALECT_TILE_IR_TILETYPES_H

#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileOpsTypes.h.inc"

#endif // TILEC_DIALECT_TILE_IR_TILETYPES_H
