//===- LinearLayout.h - Linear form of tile layouts -------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares LinearLayout, the common form of every distributed tile
// layout. A thread block holds a tile as registers of lanes of warps; a linear
// layout maps the bits of a (register, lane, warp) index to tensor coordinates
// (one basis vector per input bit, combined with XOR):
//
//   coord(r, l, w) = XOR_{i: bit i of r} reg[i]  ^  XOR_{i} lane[i]  ^  ...
//
// The idea is Triton's "linear layouts"; tilec uses the restricted form in
// which every basis is zero (broadcast: the bit does not change the element)
// or a power of two along exactly one dimension, and no two non-zero bases
// share a bit. For such layouts XOR equals addition, so a thread's coordinate
// is `regCoord(r) + threadCoord(lane, warp)` with a compile-time first term.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_LINEARLAYOUT_H
#define TILEC_DIALECT_TILE_IR_LINEARLAYOUT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace mlir::tilec::tile {

class LinearLayout {
public:
  /// One coordinate per tensor dimension.
  using Basis = SmallVector<int64_t, 4>;
  enum class In { Register, Lane, Warp };

  LinearLayout() = default;
  LinearLayout(ArrayRef<int64_t> shape, SmallVector<Basis> regs,
               SmallVector<Basis> lanes, SmallVector<Basis> warps);

  ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  ArrayRef<Basis> getBases(In in) const;

  unsigned getNumRegs() const { return 1u << regs.size(); }
  unsigned getNumLanes() const { return 1u << lanes.size(); }
  unsigned getNumWarps() const { return 1u << warps.size(); }

  /// Coordinate of register `r` of lane 0 of warp 0.
  Basis getRegCoord(unsigned r) const { return combine(regs, r); }
  /// Coordinate contributed by lane `l` (resp. warp `w`).
  Basis getLaneCoord(unsigned l) const { return combine(lanes, l); }
  Basis getWarpCoord(unsigned w) const { return combine(warps, w); }
  Basis apply(unsigned r, unsigned l, unsigned w) const;

  /// Returns the register of a thread (any lane/warp: the register part is
  /// the same for all) whose register-part coordinate is `coord`, if any.
  std::optional<unsigned> findReg(ArrayRef<int64_t> coord) const;

  /// True when both layouts assign the same coordinates to lanes and warps,
  /// i.e. converting between them only permutes (or duplicates) registers.
  bool hasSameThreadMapping(const LinearLayout &other) const;

  /// Mask of the input bits of `in` whose basis is zero (the element does not
  /// change with that bit: broadcast).
  unsigned getBroadcastMask(In in) const;

  /// Returns this layout with the coordinates of `dims` zeroed (registers
  /// whose basis becomes zero are dropped), the shape entry set to 1.
  LinearLayout collapseDims(ArrayRef<unsigned> dims) const;
  /// Returns this layout with tensor dimension `dim` (of size 1) removed.
  LinearLayout dropUnitDim(unsigned dim) const;
  /// Returns this layout with a unit tensor dimension inserted at `dim`.
  LinearLayout insertUnitDim(unsigned dim) const;
  /// Returns the layout with tensor dimensions permuted: result dim i is
  /// dimension perm[i] of this layout.
  LinearLayout permuteDims(ArrayRef<unsigned> perm) const;

  /// Returns the layout restricted to its shape: coordinates at or beyond a
  /// dimension's size wrap to zero (the threads hold copies), and registers
  /// whose basis becomes zero are dropped.
  LinearLayout wrapToShape() const;

  /// True when every element of the tensor is held by some thread.
  bool isSurjective() const;

  bool operator==(const LinearLayout &other) const;
  bool operator!=(const LinearLayout &other) const { return !(*this == other); }

  std::string str() const;

private:
  Basis combine(ArrayRef<Basis> bases, unsigned bits) const;

  SmallVector<int64_t, 4> shape;
  SmallVector<Basis> regs, lanes, warps;
};

/// Builds the basis list for `count` (a power of two) consecutive bits laid
/// along dimension `dim` of `shape`, starting at `covered[dim]` and doubling
/// it per bit. Positions beyond the shape wrap to zero (broadcast); when
/// `dropZero` is set such bits are skipped (used for registers, which never
/// hold duplicates).
void appendBases(SmallVectorImpl<LinearLayout::Basis> &bases,
                 ArrayRef<int64_t> shape, SmallVectorImpl<int64_t> &covered,
                 unsigned dim, int64_t count, bool dropZero);

} // namespace mlir::tilec::tile

#endif // TILEC_DIALECT_TILE_IR_LINEARLAYOUT_H
