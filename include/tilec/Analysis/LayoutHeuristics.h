//===- LayoutHeuristics.h - Choosing tile layouts ---------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the rules tile-assign-layouts uses to pick layouts:
// coalesced blocked layouts for global memory access and warp arrangements
// for mma.sync accumulators, and the swizzle of shared tiles ldmatrix reads.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_LAYOUTHEURISTICS_H
#define TILEC_ANALYSIS_LAYOUTHEURISTICS_H

#include "tilec/Dialect/Tile/IR/TileAttrs.h"

namespace mlir::tilec::tile {

/// A blocked layout for a `shape` tile of `elemBits`-bit elements whose
/// dimension `contiguousDim` is contiguous in memory: each thread owns up to
/// 16 bytes along it, the lanes of a warp continue along it (then along the
/// other dimensions, fastest first) and warps are spread over the slowest
/// dimensions first. Threads and warps left over hold copies.
BlockedEncodingAttr getCoalescedLayout(MLIRContext *ctx,
                                       ArrayRef<int64_t> shape,
                                       unsigned contiguousDim,
                                       unsigned elemBits, unsigned numWarps);

/// The warp grid [wm, wn] (wm * wn == numWarps) of an mma.sync accumulator
/// of shape M x N: each warp tile at least 16 x 8, the sum of the warp tile
/// sides (shared-memory traffic per warp) as small as possible. With
/// `rowsOnly`, wn is 1 (row reductions stay inside a warp and the result can
/// feed another dot's A operand in registers). Returns failure when no grid
/// fits.
FailureOr<std::pair<unsigned, unsigned>>
chooseMmaWarps(int64_t m, int64_t n, unsigned numWarps, bool rowsOnly);

/// The blocked accumulator layout of an M x N dot on FMA instructions (f32
/// operands in ieee precision): each thread owns as square a sub-tile as the
/// block's threads leave (so that each K step reads few operand values for
/// many FMAs), lanes continue along N, warps are spread over M first.
BlockedEncodingAttr getFmaAccumulatorLayout(MLIRContext *ctx,
                                            ArrayRef<int64_t> shape,
                                            unsigned numWarps);

/// The layout of operand `opIdx` (0: A, M x K; 1: B, K x N) of an FMA dot
/// with accumulator layout `acc`: the accumulator's rows (A) or columns (B)
/// with all `k` K elements in each thread's registers; the threads that
/// split the other dimension hold copies.
BlockedEncodingAttr getFmaOperandLayout(BlockedEncodingAttr acc, unsigned opIdx,
                                        int64_t k);

/// The K width of one mma.sync instruction on `elemType` operands (a 32-bit
/// register holds 4 / bytes elements along K, 8 of them per K step): 16 for
/// bf16/f16 (m16n8k16), 32 for fp8 (m16n8k32).
inline int64_t getMmaSyncKStep(Type elemType) {
  return 256 / std::max(8u, elemType.getIntOrFloatBitWidth());
}

/// The shared layout of a `shape` tile of `elemBytes`-byte elements whose
/// dimension `contig` is contiguous: rows are split into 16-byte chunks,
/// XOR-swizzled so that the 8 rows an ldmatrix phase (or a warp of cp.async
/// writes) touches hit distinct 16-byte bank groups of a 128-byte line.
SharedEncodingAttr getLdmatrixSwizzle(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                      unsigned contig, unsigned elemBytes);

} // namespace mlir::tilec::tile

#endif // TILEC_ANALYSIS_LAYOUTHEURISTICS_H
