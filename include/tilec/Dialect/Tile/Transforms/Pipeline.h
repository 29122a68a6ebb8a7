//===- Pipeline.h - What tile-pipeline can pipeline ------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The facts tile-pipeline needs to turn a tile.load into a cp.async ring
// stage, for passes that must know beforehand (tile-assign-layouts gives a
// wgmma operand a shared layout only if the ring will deliver it).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PIPELINE_H
#define TILEC_DIALECT_TILE_TRANSFORMS_PIPELINE_H

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tilec::tile {

/// Whether `load`, at the top level of an scf.for body, can become a 16-byte
/// cp.async ring stage: an unmasked, zero-padded 2-D 16-bit tile of a view
/// made outside the loop, contiguous along a tile dimension, every chunk
/// known to be 16-byte aligned, offsets recomputable from pure body ops.
bool canPipelineLoad(LoadOp load);

/// True when tile-tma-pipeline can bring `load`'s tile into shared memory
/// with TMA for a wgmma to read in place (`target` has TMA and wgmma, the
/// kernel's schedule allows it, the view is one TMA can serve, the load is
/// single-use, unmasked, zero-padded, at the top level of the kernel or of
/// an scf.for body): in a ring when it is in a loop, once otherwise.
bool canTmaLoad(LoadOp load, const TargetInfo &target);

/// The shared memory tile-pipeline's cp.async ring for `loop` will take at
/// its smallest (two stages, each buffer 1024-byte aligned), counting the
/// loads it can ring other than those in `broughtElsewhere` (the loads
/// tile-tma-pipeline brings in itself): passes that run before it reserve
/// this much.
int64_t
getMinCpAsyncRingBytes(scf::ForOp loop,
                       const llvm::DenseSet<Operation *> &broughtElsewhere);

} // namespace mlir::tilec::tile

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PIPELINE_H
