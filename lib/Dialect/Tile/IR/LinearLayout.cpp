//===- LinearLayout.cpp - Linear form of tile layouts ---------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements LinearLayout (see LinearLayout.h).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tilec::tile;

LinearLayout::LinearLayout(ArrayRef<int64_t> shape, SmallVector<Basis> regs,
                           SmallVector<Basis> lanes, SmallVector<Basis> warps)
    : shape(shape), regs(std::move(regs)), lanes(std::move(lanes)),
      warps(std::move(warps)) {
#ifndef NDEBUG
  for (ArrayRef<Basis> list : {ArrayRef(this->regs), ArrayRef(this->lanes),
                               ArrayRef(this->warps)})
    for (const Basis &b : list)
      assert(b.size() == shape.size() && "basis rank mismatch");
#endif
}

ArrayRef<LinearLayout::Basis> LinearLayout::getBases(In in) const {
  switch (in) {
  case In::Register:
    return regs;
  case In::Lane:
    return lanes;
  case In::Warp:
    return warps;
  }
  llvm_unreachable("unknown input dimension");
}

LinearLayout::Basis LinearLayout::combine(ArrayRef<Basis> bases,
                                          unsigned bits) const {
  Basis coord(shape.size(), 0);
  for (auto [i, b] : llvm::enumerate(bases)) {
    if (!(bits & (1u << i)))
      continue;
    for (unsigned d = 0; d < coord.size(); ++d)
      coord[d] ^= b[d];
  }
  return coord;
}

LinearLayout::Basis LinearLayout::apply(unsigned r, unsigned l,
                                        unsigned w) const {
  Basis c = combine(regs, r);
  Basis cl = combine(lanes, l);
  Basis cw = combine(warps, w);
  for (unsigned d = 0; d < c.size(); ++d)
    c[d] ^= cl[d] ^ cw[d];
  return c;
}

std::optional<unsigned> LinearLayout::findReg(ArrayRef<int64_t> coord) const {
  // Each non-zero register basis is a distinct bit of one dimension, so the
  // register index can be read off the coordinate bit by bit.
  unsigned reg = 0;
  Basis rest(coord.begin(), coord.end());
  for (auto [i, b] : llvm::enumerate(regs)) {
    for (unsigned d = 0; d < b.size(); ++d) {
      if (b[d] != 0 && (rest[d] & b[d])) {
        reg |= 1u << i;
        rest[d] ^= b[d];
      }
    }
  }
  if (llvm::any_of(rest, [](int64_t v) { return v != 0; }))
    return std::nullopt;
  return reg;
}

bool LinearLayout::hasSameThreadMapping(const LinearLayout &other) const {
  return shape == other.shape && lanes == other.lanes && warps == other.warps;
}

unsigned LinearLayout::getBroadcastMask(In in) const {
  unsigned mask = 0;
  for (auto [i, b] : llvm::enumerate(getBases(in)))
    if (llvm::all_of(b, [](int64_t v) { return v == 0; }))
      mask |= 1u << i;
  return mask;
}

LinearLayout LinearLayout::collapseDims(ArrayRef<unsigned> dims) const {
  auto zero = [&](const Basis &b) {
    Basis r = b;
    for (unsigned d : dims)
      r[d] = 0;
    return r;
  };
  auto isZero = [](const Basis &b) {
    return llvm::all_of(b, [](int64_t v) { return v == 0; });
  };
  SmallVector<Basis> newRegs, newLanes, newWarps;
  for (const Basis &b : regs)
    if (Basis z = zero(b); !isZero(z))
      newRegs.push_back(z);
  for (const Basis &b : lanes)
    newLanes.push_back(zero(b));
  for (const Basis &b : warps)
    newWarps.push_back(zero(b));
  SmallVector<int64_t> newShape(shape.begin(), shape.end());
  for (unsigned d : dims)
    newShape[d] = 1;
  return LinearLayout(newShape, std::move(newRegs), std::move(newLanes),
                      std::move(newWarps));
}

LinearLayout LinearLayout::dropUnitDim(unsigned dim) const {
  assert(shape[dim] == 1 && "can only drop unit dimensions");
  auto drop = [&](ArrayRef<Basis> list) {
    SmallVector<Basis> out;
    for (const Basis &b : list) {
      Basis r = b;
      r.erase(r.begin() + dim);
      out.push_back(r);
    }
    return out;
  };
  SmallVector<int64_t> newShape(shape.begin(), shape.end());
  newShape.erase(newShape.begin() + dim);
  return LinearLayout(newShape, drop(regs), drop(lanes), drop(warps));
}

LinearLayout LinearLayout::insertUnitDim(unsigned dim) const {
  auto insert = [&](ArrayRef<Basis> list) {
    SmallVector<Basis> out;
    for (const Basis &b : list) {
      Basis r = b;
      r.insert(r.begin() + dim, 0);
      out.push_back(r);
    }
    return out;
  };
  SmallVector<int64_t> newShape(shape.begin(), shape.end());
  newShape.insert(newShape.begin() + dim, 1);
  return LinearLayout(newShape, insert(regs), insert(lanes), insert(warps));
}

LinearLayout LinearLayout::permuteDims(ArrayRef<unsigned> perm) const {
  auto permute = [&](ArrayRef<Basis> list) {
    SmallVector<Basis> out;
    for (const Basis &b : list) {
      Basis r(b.size());
      for (unsigned i = 0; i < perm.size(); ++i)
        r[i] = b[perm[i]];
      out.push_back(r);
    }
    return out;
  };
  SmallVector<int64_t> newShape;
  for (unsigned p : perm)
    newShape.push_back(shape[p]);
  return LinearLayout(newShape, permute(regs), permute(lanes), permute(warps));
}

LinearLayout LinearLayout::wrapToShape() const {
  auto wrap = [&](const Basis &b) {
    Basis r = b;
    for (unsigned d = 0; d < r.size(); ++d)
      if (r[d] >= shape[d])
        r[d] = 0;
    return r;
  };
  auto isZero = [](const Basis &b) {
    return llvm::all_of(b, [](int64_t v) { return v == 0; });
  };
  SmallVector<Basis> newRegs, newLanes, newWarps;
  for (const Basis &b : regs)
    if (Basis w = wrap(b); !isZero(w))
      newRegs.push_back(w);
  for (const Basis &b : lanes)
    newLanes.push_back(wrap(b));
  for (const Basis &b : warps)
    newWarps.push_back(wrap(b));
  return LinearLayout(shape, std::move(newRegs), std::move(newLanes),
                      std::move(newWarps));
}

bool LinearLayout::isSurjective() const {
  // With power-of-two bases on distinct bits, the image covers the tensor iff
  // every bit of every dimension is produced by some basis.
  for (unsigned d = 0; d < shape.size(); ++d) {
    int64_t bits = 0;
    for (ArrayRef<Basis> list :
         {ArrayRef<Basis>(regs), ArrayRef<Basis>(lanes), ArrayRef<Basis>(warps)})
      for (const Basis &b : list)
        bits |= b[d];
    if (bits != shape[d] - 1)
      return false;
  }
  return true;
}

bool LinearLayout::operator==(const LinearLayout &other) const {
  return shape == other.shape && regs == other.regs && lanes == other.lanes &&
         warps == other.warps;
}

std::string LinearLayout::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto printList = [&](StringRef name, ArrayRef<Basis> list) {
    os << name << ": [";
    llvm::interleaveComma(list, os, [&](const Basis &b) {
      os << "(";
      llvm::interleaveComma(b, os);
      os << ")";
    });
    os << "]";
  };
  os << "shape [";
  llvm::interleaveComma(shape, os);
  os << "] ";
  printList("reg", regs);
  os << " ";
  printList("lane", lanes);
  os << " ";
  printList("warp", warps);
  return s;
}

void mlir::tilec::tile::appendBases(SmallVectorImpl<LinearLayout::Basis> &bases,
                                    ArrayRef<int64_t> shape,
                                    SmallVectorImpl<int64_t> &covered,
                                    unsigned dim, int64_t count,
                                    bool dropZero) {
  assert(llvm::isPowerOf2_64(count) && "basis count must be a power of two");
  for (int64_t i = 1; i < count; i *= 2) {
    LinearLayout::Basis b(shape.size(), 0);
    if (covered[dim] < shape[dim])
      b[dim] = covered[dim];
    covered[dim] *= 2;
    if (dropZero && b[dim] == 0)
      continue;
    bases.push_back(b);
  }
}
