//===- Resources.h - Shared memory a tile kernel needs ----------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares what ops with layouts need of shared memory: the
// scratch areas of layout conversions and cross-warp reductions (used by
// convert-tile-to-nvvm's planner) and the estimate of a kernel's need that
// the scheduling passes budget their rings against.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_RESOURCES_H
#define TILEC_DIALECT_TILE_TRANSFORMS_RESOURCES_H

#include "tilec/Dialect/Tile/IR/TileOps.h"

namespace mlir::tilec {

/// Size in bytes of a storage element (i1 counts as 1, fp8 as 1).
unsigned getStorageBytes(Type elemType);

/// True when converting a tile from layout `src` to `dst` only moves values
/// between the registers of each thread (same lane and warp mapping, every
/// register of `dst` present in `src`).
bool isRegisterPermutation(const tile::LinearLayout &src,
                           const tile::LinearLayout &dst);

/// Shared memory scratch bytes `op` needs while it runs (0 when none).
int64_t getScratchBytes(Operation *op);

/// Row-major element strides of a shared-memory staging buffer for `shape`
/// with the innermost rows padded by 4 bytes to spread column accesses over
/// banks. Also returns the number of elements the buffer spans.
SmallVector<int64_t> getPaddedStrides(ArrayRef<int64_t> shape,
                                      unsigned elemBytes, int64_t *numElems);

/// An upper bound of the shared memory `kernel` uses as it is: every
/// tile.local_alloc and mbarrier array (as if all were live together, as in
/// a warp-specialized kernel), plus the largest scratch area of any op.
int64_t estimateSharedMemory(tile::KernelOp kernel);

} // namespace mlir::tilec

#endif // TILEC_DIALECT_TILE_TRANSFORMS_RESOURCES_H
