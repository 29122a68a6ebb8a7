//===- Resources.h - Shared memory and registers a kernel needs -*- C++ -*-===//
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
// the scheduling passes budget their rings against, and the estimate of the
// registers a thread keeps live through a loop that they budget register
// operands and setmaxnreg against.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_RESOURCES_H
#define TILEC_ANALYSIS_RESOURCES_H

#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tilec {

struct TargetInfo;

/// Size in bytes of a storage element (i1 counts as 1, fp8 as 1).
unsigned getStorageBytes(Type elemType);

/// True when converting a tile from layout `src` to `dst` only moves values
/// between the registers of each thread (same lane and warp mapping, every
/// register of `dst` present in `src`).
bool isRegisterPermutation(const tile::LinearLayout &src,
                           const tile::LinearLayout &dst);

/// How a conversion that keeps every element in its warp exchanges values
/// with lane shuffles instead of shared memory. Both layouts map each bit of
/// a (register, lane) index to one bit of an element coordinate; an element
/// bit is held by registers or lanes in each layout, and `srcIndex` and
/// `dstIndex` are the register or lane bit holding it in the source and the
/// result. The plan packs the elements that differ in `regReg[0 ..
/// wordBits)` into one 32-bit word, and moves words in 2^regLane.size()
/// shuffle rounds per word of a lane: in round k, the lane whose
/// `laneReg` bits are y sends its word whose `regLane` bits are y ^ k
/// (pairing regLane[i] with laneReg[i]); the receiver's `laneReg` bits
/// become register bits.
struct WarpShufflePlan {
  struct ElementBit {
    unsigned srcIndex, dstIndex;
  };
  /// In registers on both sides, by source register bit.
  SmallVector<ElementBit> regReg;
  /// Source register bit -> result lane bit.
  SmallVector<ElementBit> regLane;
  /// Source lane bit -> result register bit.
  SmallVector<ElementBit> laneReg;
  /// In lanes on both sides.
  SmallVector<ElementBit> laneLane;
  /// log2 of the elements one 32-bit word holds.
  unsigned wordBits = 0;
};

/// The shuffle plan for converting a tile of `elemBits`-bit elements from
/// `src` to `dst`, when the conversion keeps elements in their warp, no lane
/// of either layout holds copies, 32-bit words can be formed of elements
/// that stay in one thread on both sides, and at most two element bits move
/// from lanes to registers (a round costs one shuffle per word and the
/// selection between words 2^regLane.size() - 1 selects).
std::optional<WarpShufflePlan> planWarpShuffle(const tile::LinearLayout &src,
                                               const tile::LinearLayout &dst,
                                               unsigned elemBits);

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

/// 32-bit registers each of `threads` threads holds of a distributed tensor
/// of `type` (elements narrower than a byte count as bytes; 0 for a
/// non-tensor).
int64_t getRegistersPerThread(Type type, int64_t threads);

/// The most 32-bit registers each of `threads` threads of a block can get
/// on `target`: 255, or the register file over the threads.
int64_t getThreadRegisterBudget(const TargetInfo &target, int64_t threads);

/// Registers a thread keeps live through `loop` by this estimate: the
/// tensors it carries (a carried tile.broadcast counts as its source) and
/// the results of its dots (not those of nested loops) that start from a
/// constant accumulator and are not yielded (attention's scores; a dot
/// accumulating into a computed value reuses that value's registers). Addresses, indices and operand fragments come on
/// top (kRegisterReserve).
int64_t estimateLoopRegisters(scf::ForOp loop, int64_t threads);

/// Registers a thread keeps beside the tensors estimateLoopRegisters counts:
/// addresses, indices, the loop counter and the double-buffered fragments of
/// the operands read per K step.
constexpr int64_t kRegisterReserve = 32;

/// A loop may need at most this many times a thread's register budget.
constexpr int64_t kMaxRegisterOvershoot = 2;

/// Checks each loop of `kernel` whose estimated need (the above plus
/// kRegisterReserve) exceeds the most registers a thread of it can get (255,
/// or the register file over its threads): a warning (ptxas will spill,
/// which the program's author should hear before reading ptxas's
/// statistics), and an error past kMaxRegisterOvershoot times the budget
/// (such kernels spill kilobytes and take minutes to compile).
/// tile-assign-layouts calls it once layouts are known.
LogicalResult checkRegisterPressure(tile::KernelOp kernel,
                                    const TargetInfo &target);

/// One tile a kernel's threads hold in registers, for the report of a
/// ptxas spill ("the largest register tiles are ...").
struct RegisterTile {
  /// What holds it: "carried by a loop", "made by dot", "made by load", ...
  std::string role;
  /// Its shape and element type ("128x256xf32").
  std::string shape;
  /// Where it is made (file:line:col where known).
  std::string where;
  /// 32-bit registers a thread of the kernel holds of it.
  int64_t registers = 0;
};

/// The `count` register tiles of `kernel` (values with a distributed layout,
/// loop-carried or made by an op) that take the most registers a thread,
/// largest first; one entry per source location.
SmallVector<RegisterTile> getLargestRegisterTiles(tile::KernelOp kernel,
                                                  unsigned count);

} // namespace mlir::tilec

#endif // TILEC_ANALYSIS_RESOURCES_H
