//===- Utility.h - Helpers shared by the tile-to-NVVM patterns --*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the helpers the lowering patterns share: thread ids and
// layout coordinates, shared memory addressing, barriers, warp shuffles and
// reductions. Private to lib/Conversion/TileToNVVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILETONVVM_UTILITY_H
#define TILEC_LIB_CONVERSION_TILETONVVM_UTILITY_H

#include "tilec/Analysis/Resources.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <array>

namespace mlir::tilec {

/// Attributes set by convert-tile-to-nvvm's shared-memory planning: the
/// kernel's total dynamic shared memory, and on each op that exchanges data
/// through shared memory, where its scratch area starts.
constexpr StringLiteral kSmemBytesAttr = "tile.smem_bytes";
constexpr StringLiteral kScratchOffsetAttr = "tile.scratch_offset";
/// Launch metadata recorded on the converted kernel function.
constexpr StringLiteral kLaunchAttr = "tile.launch";
/// The dynamic shared memory array every kernel of a module addresses.
constexpr StringLiteral kSmemSymbol = "tile_smem";
/// Byte offset of a tile.local_alloc in the dynamic shared memory.
constexpr StringLiteral kSmemOffsetAttr = "tile.smem_offset";
/// The hidden kernel parameter a tile.make_tensor_map becomes.
constexpr StringLiteral kParamIndexAttr = "tile.param_index";
/// The kernel's warps(n), kept on the llvm.func.
constexpr StringLiteral kNumWarpsAttr = "tile.num_warps";
/// On the llvm.func of a kernel with tile.warp_specialize: its warp index is
/// broadcast with shfl.sync so that ptxas sees it warp-uniform
/// (getThreadIds).
constexpr StringLiteral kUniformWarpIdAttr = "tile.uniform_warp_id";
/// Set by convert-tile-to-nvvm on ops inside tile.warp_specialize regions
/// before conversion: [named barrier id, threads, first thread] of the
/// warps executing the op.
constexpr StringLiteral kExecGroupAttr = "tile.exec_group";

Value i32Val(OpBuilder &b, Location loc, int64_t v);

/// Index arithmetic that cannot wrap (tile coordinates and element offsets
/// are non-negative and below 2^31, addresses below 2^63). The `nsw` flags
/// let LLVM turn loop-carried offsets into pointer increments.
Value addNsw(OpBuilder &b, Location loc, Value x, Value y);
Value mulNsw(OpBuilder &b, Location loc, Value x, Value y);
/// Sign extension of an i32 index to i64.
Value extIndex(OpBuilder &b, Location loc, Value x);
Value i64Val(OpBuilder &b, Location loc, int64_t v);

/// The thread's index in its block, lane and warp (i32).
struct ThreadIds {
  Value tid, lane, warp;
};
ThreadIds getThreadIds(OpBuilder &b, Location loc);

/// Per tensor dimension, the coordinate a thread's (lane, warp) contributes in
/// `layout` (add a register's compile-time coordinate to get an element's).
SmallVector<Value> emitThreadCoord(OpBuilder &b, Location loc,
                                   const tile::LinearLayout &layout,
                                   const ThreadIds &ids);

/// Per tensor dimension, the coordinate the warp alone contributes.
SmallVector<Value> emitWarpCoord(OpBuilder &b, Location loc,
                                 const tile::LinearLayout &layout,
                                 const ThreadIds &ids);

/// Number of warps of the kernel enclosing `op` (tile.kernel or the llvm.func
/// it became).
unsigned getNumWarps(Operation *op);

/// The element offset of the static coordinate (`c0`, `c1`), as
/// emitSwizzledOffset computes it at run time.
int64_t getSwizzledOffset(tile::SharedEncodingAttr encoding,
                          ArrayRef<int64_t> shape,
                          int64_t c0, int64_t c1);

/// Element offset (i32) of the 2-D tile coordinate (`c0`, `c1`) in a
/// shared-memory tile of `shape` laid out with `encoding`.
Value emitSwizzledOffset(OpBuilder &b, Location loc,
                         tile::SharedEncodingAttr encoding,
                         ArrayRef<int64_t> shape, Value c0, Value c1);

/// An i1 that is true in exactly one of the threads holding copies of the
/// same elements in `layout` (lanes/warps whose basis is zero, plus the lane
/// bits in `extraLaneMask`). Returns null when every thread is unique.
Value emitIsCanonicalThread(OpBuilder &b, Location loc,
                            const tile::LinearLayout &layout,
                            const ThreadIds &ids, unsigned extraLaneMask = 0);

/// Address `byteOffset` bytes into the module's dynamic shared memory.
Value getSmemPtr(OpBuilder &b, Location loc, Operation *anchor,
                 int64_t byteOffset);
/// Start of the scratch area planned for `anchor`.
Value getScratchPtr(OpBuilder &b, Location loc, Operation *anchor);
/// Returns `ptr` advanced by `index` elements of `elemType`.
Value gepElems(OpBuilder &b, Location loc, Value ptr, Type elemType,
               Value index);
/// Returns `ptr` (into stage 0 of a buffer of `type`) advanced to stage
/// `stage`.
Value gepStage(OpBuilder &b, Location loc, Value ptr, tile::SmemType type,
               Value stage);

/// Runs `body` under `scf.if cond`.
void emitIf(OpBuilder &b, Location loc, Value cond,
            function_ref<void(OpBuilder &, Location)> body);

/// PTX name of a tensor-core operand type: bf16, f16, e4m3, e5m2, s8 or
/// tf32 (for f32).
StringRef getPtxTypeName(Type t);

/// The TF32 of each f32 in `values` as the i32 tensor cores read
/// (`cvt.rna.tf32.f32`: nearest, ties away from zero). With `rest`, also the
/// TF32 of what the first leaves, x - tf32(x) (exact in f32): the small half
/// of 3xTF32.
SmallVector<Value> convertToTf32(OpBuilder &b, Location loc,
                                 ArrayRef<Value> values,
                                 SmallVectorImpl<Value> *rest);

/// Elements adjacent along K in one 32-bit register: two 16-bit or four
/// 8-bit ones (fp8 is carried as i8), as i32, or one TF32 register (i32)
/// as it is; or vector<2xf16> for f16 when `f16AsVector` (what
/// nvvm.mma.sync takes).
Value packRegister(OpBuilder &b, Location loc, ArrayRef<Value> elems,
                   bool f16AsVector);
/// The 32-bit register of an mma.sync operand fragment holding the `kWidth`
/// elements from `at` along dimension `kDim` (K: 1 for A, 0 for B) of a tile
/// in linear layout `ll` (`values` its per-thread elements).
Value packFragmentRegister(OpBuilder &b, Location loc, ArrayRef<Value> values,
                           const tile::LinearLayout &ll,
                           std::array<int64_t, 2> at, unsigned kDim,
                           unsigned kWidth, bool f16AsVector);
/// The four registers of an mma.sync m16n8k(8*kWidth) A fragment -- also
/// wgmma's register A -- of a tile in linear layout `ll` (`values` its
/// per-thread elements; `kWidth` of them per register: 2 for 16-bit, 4 for
/// 8-bit types), for the 16 rows from `row0` and the K step at `k0`
/// (h = 4 * kWidth): a0 (r, k..), a1 (r+8, k..), a2 (r, k+h..), a3 (r+8, k+h..).
SmallVector<Value> getMmaAFragment(OpBuilder &b, Location loc,
                                   ArrayRef<Value> values,
                                   const tile::LinearLayout &ll, int64_t row0,
                                   int64_t k0, unsigned kWidth,
                                   bool f16AsVector);

/// The threads executing `op`: all of the block, or those of a
/// tile.warp_specialize region (kExecGroupAttr).
struct ExecGroup {
  unsigned barrierId = 0;  // bar.sync id: 0 for the whole block
  unsigned numThreads = 0; // 0: every thread of the block
  unsigned firstThread = 0;
};
ExecGroup getExecGroup(Operation *op);

/// Synchronizes the threads executing `op`: bar.sync 0 for the block, a
/// named barrier inside tile.warp_specialize regions.
void emitBarrier(OpBuilder &b, Location loc, Operation *op);

/// True for a tile.convert_layout between distributed layouts that is not a
/// register permutation but keeps every element in its warp (the same warp
/// bases) and gives each warp elements of its own (no warp basis is zero):
/// its round trip through shared memory touches only its warp's part of the
/// staging area. Such conversions get a staging area of their own
/// (planSharedMemory) and synchronize with bar.warp.sync, not with the
/// other warps. Layouts that replicate elements across warps are not
/// warp-local: their warps share staging addresses, which one warp writes
/// for all (emitIsCanonicalThread).
bool isWarpLocalConversion(Operation *op);

/// i1: this thread is the one that issues single-thread operations (TMA
/// copies, expect-tx arrivals) for the threads executing `op`.
Value emitIsLeaderThread(OpBuilder &b, Location loc, Operation *op);

/// The inline-asm register constraint of a scalar type ("f", "r", "l", "h",
/// "d").
FailureOr<StringRef> getPtxConstraint(Type type);

/// shfl.sync.bfly of a value of up to 64 bits.
Value emitShuffleXor(OpBuilder &b, Location loc, Value v, unsigned laneMask);

/// Combines two values with a reduction kind (NaN-propagating max/min).
Value emitCombine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value x,
                  Value y);

/// Scalars of a per-thread vector, and back.
SmallVector<Value> unpackVector(OpBuilder &b, Location loc, Value vec);
Value packVector(OpBuilder &b, Location loc, Type vecType,
                 ArrayRef<Value> elems);

/// Storage type of a tile element type (fp8 is carried as i8).
Type getStorageType(Type elemType);

} // namespace mlir::tilec

#endif // TILEC_LIB_CONVERSION_TILETONVVM_UTILITY_H
