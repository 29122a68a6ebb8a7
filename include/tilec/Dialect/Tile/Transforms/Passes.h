//===- Passes.h - tile dialect passes ---------------------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the passes of the `tile` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILEC_DIALECT_TILE_TRANSFORMS_PASSES_H

// Only what the declarations need: a pass's dependent dialects are included
// by the file that defines it (GEN_PASS_DEF), so that the files which only
// create or register passes do not parse NVVM, GPU, MemRef and Tensor (NVVM
// alone doubled the preprocessed size of each pass's file).
#include "mlir/Pass/Pass.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

namespace mlir::tilec::tile {

#define GEN_PASS_DECL
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace mlir::tilec::tile

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PASSES_H
