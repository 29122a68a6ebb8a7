//===- TileToNVVM.h - Lowering tile kernels to NVVM -------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the type converter and pattern sets of
// convert-tile-to-nvvm, so that pipelines and tests can reuse them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_TILETONVVM_TILETONVVM_H
#define TILEC_CONVERSION_TILETONVVM_TILETONVVM_H

#include "tilec/Target/TargetInfo.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tilec {

/// Converts tile types to what one thread holds:
///   tensor<... x T, #layout>  ->  vector<N x T'>   (N = elements per thread)
///   !tile.ptr<T>              ->  !llvm.ptr<1>
///   !tile.view<...>           ->  !llvm.struct<(ptr<1>, i32 x rank, i32 x rank)>
///   !tile.smem<...>           ->  !llvm.ptr<3> (the ring's first element)
///   !tile.mbarrier<n>         ->  !llvm.ptr<3> (the first barrier)
///   !tile.tensor_map<...>     ->  !llvm.ptr (the CUtensorMap parameter)
/// 8-bit float element types become i8 (LLVM has no fp8 type).
class TileTypeConverter : public TypeConverter {
public:
  explicit TileTypeConverter(MLIRContext *ctx);
};

/// tile.kernel, tile.return, tile.program_id, tile.num_programs,
/// tile.make_view.
void populateKernelOpToLLVMPatterns(TileTypeConverter &converter,
                                    RewritePatternSet &patterns,
                                    const TargetInfo &target);
/// What the program proves at compile time about the vector groups of a
/// global tile access (tile.load, tile.store, tile.atomic_add): the 16-byte
/// or narrower groups of registers along the view's contiguous dimension.
struct GroupFacts {
  /// Every group's address is a multiple of the group's bytes.
  bool aligned = false;
  /// Every group lies wholly inside or wholly outside the view along the
  /// contiguous dimension: its first element decides.
  bool whole = false;
};
using GroupFactsMap = llvm::DenseMap<Operation *, GroupFacts>;

/// The facts of the global tile accesses under `root`, read from the tile
/// program (kernel parameter hints, view operands, offsets): compute them
/// before the conversion rewrites those.
GroupFactsMap analyzeGroupFacts(Operation *root);

/// tile.load, tile.store, tile.atomic_add and tile.load_scalar on global
/// memory; `facts` (from analyzeGroupFacts, outliving the patterns) spares
/// the run-time checks the program makes unnecessary.
void populateLoadStoreOpToLLVMPatterns(TileTypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       const GroupFactsMap &facts);
/// Elementwise arith/math ops on tiles, arith.constant tiles, tile.splat,
/// tile.range.
void populateElementwiseOpToLLVMPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns);
/// arith.truncf to and arith.extf from fp8 tiles (cvt on e4m3x2/e5m2x2,
/// sm_89+).
void populateFp8CastOpToLLVMPatterns(TileTypeConverter &converter,
                                     RewritePatternSet &patterns,
                                     const TargetInfo &target);
/// tile.expand_dims, tile.broadcast, tile.trans, tile.convert_layout.
void populateLayoutOpToLLVMPatterns(TileTypeConverter &converter,
                                    RewritePatternSet &patterns);
/// tile.reduce.
void populateReduceOpToLLVMPatterns(TileTypeConverter &converter,
                                    RewritePatternSet &patterns);
/// tile.local_alloc, tile.async_copy/commit/wait, tile.barrier,
/// tile.local_load (ldmatrix).
void populateSharedMemoryOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns);
/// tile.dot with a #tile.blocked accumulator: f32 in ieee precision on FMA
/// instructions.
void populateFmaDotPatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns);
/// tile.dot with #tile.mma layouts (mma.sync, sm_80+).
void populateMmaSm80Patterns(TileTypeConverter &converter,
                             RewritePatternSet &patterns,
                             const TargetInfo &target);

/// tile.dot on shared-memory operands (wgmma, sm_90a), tile.warpgroup_wait,
/// tile.fence_async_shared.
void populateWgmmaSm90Patterns(TileTypeConverter &converter,
                               RewritePatternSet &patterns,
                               const TargetInfo &target);

/// tile.make_tensor_map, tile.tma_load/store, tile.mbarrier_*,
/// tile.cluster_rank, tile.cluster_barrier (sm_90).
void populateTmaOpToLLVMPatterns(TileTypeConverter &converter,
                                 RewritePatternSet &patterns);

/// tile.warp_specialize (setmaxnreg: sm_90a).
void populateWarpSpecializeOpToLLVMPatterns(TileTypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            const TargetInfo &target);

/// Marks the tile ops inside tile.warp_specialize regions with the warps
/// that execute them (named barriers, leader threads); run before the
/// conversion.
void markWarpSpecializeGroups(Operation *root);

/// Registers per thread ptxas gives a kernel of `threads` threads that
/// must launch one block per SM.
int64_t getLaunchRegisters(int64_t threads);

/// Rewrites math ops into NVPTX-selectable forms (see tile-legalize-math).
void populateLegalizeMathPatterns(RewritePatternSet &patterns);

} // namespace mlir::tilec

#endif // TILEC_CONVERSION_TILETONVVM_TILETONVVM_H
