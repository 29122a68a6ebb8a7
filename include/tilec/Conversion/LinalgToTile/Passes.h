//===- Passes.h - linalg to tile conversion passes --------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares tile-from-linalg, the linalg frontend of tilec, and its
// patterns (lib/Conversion/LinalgToTile/).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_LINALGTOTILE_PASSES_H
#define TILEC_CONVERSION_LINALGTOTILE_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::tilec::tile {

#define GEN_PASS_DECL
#include "tilec/Conversion/LinalgToTile/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Conversion/LinalgToTile/Passes.h.inc"

/// Patterns of tile-from-linalg: linalg.matmul / linalg.batch_matmul (with a
/// fused elementwise epilogue) outlined into tile.gemm kernels, attention
/// patterns (around linalg.softmax or its generic decomposition) into
/// tile.attention kernels. The matched ops must be inside a func.func of a
/// module, where the kernels and launch stubs are created. Of `options`,
/// `f32Precision` applies (how f32 matmuls multiply).
void populateTileFromLinalgPatterns(RewritePatternSet &patterns,
                                    const TileFromLinalgOptions &options = {});

} // namespace mlir::tilec::tile

#endif // TILEC_CONVERSION_LINALGTOTILE_PASSES_H
