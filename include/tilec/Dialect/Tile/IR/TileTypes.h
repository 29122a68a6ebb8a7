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

#include <string>

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileOpsTypes.h.inc"

namespace mlir::tilec::tile {
/// The 8-bit float types tile programs compute with (carried as i8 in
/// registers and memory): f8E4M3FN (e4m3) and f8E5M2 (e5m2).
inline bool isFp8Type(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// Whether tensor cores read operands of type `t` K-major only: the 8-bit
/// types (fp8, i8) and f32 (as TF32). wgmma's transpose is for 16-bit types,
/// and ldmatrix transposes 16-bit elements only. Their instructions read 32
/// bytes of K all the same (m16n8k32 / m16n8k8).
inline bool isKMajorOnlyMmaType(Type t) {
  return isFp8Type(t) || t.isInteger(8) || t.isF32();
}

/// Why tile.gemm does not multiply A and B of element types `a` and `b`
/// into a C of `c`, or an empty string: the rules GemmOp::verify enforces
/// and tile-from-linalg reports for the matmuls it leaves alone.
std::string getGemmElementTypeProblem(Type a, Type b, Type c);
} // namespace mlir::tilec::tile

#endif // TILEC_DIALECT_TILE_IR_TILETYPES_H
