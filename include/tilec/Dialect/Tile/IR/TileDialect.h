//===- TileDialect.h - tile dialect declaration -----------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the `tile` dialect class.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEDIALECT_H
#define TILEC_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"

#include "tilec/Dialect/Tile/IR/TileOpsDialect.h.inc"

namespace mlir::tilec::tile {
/// The names of the attributes the dialect puts on other ops and on kernel
/// parameters, declared once in TileDialect.td (`discardableAttrs`).
constexpr StringLiteral kAlignAttr = TileDialect::AlignAttrHelper::getNameStr();
constexpr StringLiteral kDivisibilityAttr =
    TileDialect::DivisibilityAttrHelper::getNameStr();
constexpr StringLiteral kNumStagesAttr =
    TileDialect::NumStagesAttrHelper::getNameStr();
constexpr StringLiteral kProgramsPerSMAttr =
    TileDialect::ProgramsPerSmAttrHelper::getNameStr();
} // namespace mlir::tilec::tile

#endif // TILEC_DIALECT_TILE_IR_TILEDIALECT_H
