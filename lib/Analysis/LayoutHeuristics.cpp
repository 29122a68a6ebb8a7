//===- LayoutHeuristics.cpp - Choosing tile layouts -----------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the layout rules declared in LayoutHeuristics.h.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/LayoutHeuristics.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tilec::tile;

BlockedEncodingAttr mlir::tilec::tile::getCoalescedLayout(
    MLIRContext *ctx, ArrayRef<int64_t> shape, unsigned contiguousDim,
    unsigned elemBits, unsigned numWarps) {
  unsigned rank = shape.size();
  // order: the contiguous dimension, then the others from last to first.
  SmallVector<unsigned> order = {contiguousDim};
  for (int d = rank - 1; d >= 0; --d)
    if (static_cast<unsigned>(d) != contiguousDim)
      order.push_back(d);

  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  int64_t vec = std::max<int64_t>(1, 128 / std::max(elemBits, 8u));
  spt[contiguousDim] = std::min<int64_t>(vec, shape[contiguousDim]);

  unsigned threads = 32;
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    unsigned t = std::min<int64_t>(threads, room);
    tpw[d] = t;
    threads /= t;
  }
  tpw[order.back()] *= threads; // leftovers hold copies

  unsigned warps = numWarps;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    unsigned d = *it;
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    unsigned w = std::min<int64_t>(warps, room);
    wpc[d] = w;
    warps /= w;
  }
  wpc[order.back()] *= warps;
  return BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order);
}

BlockedEncodingAttr mlir::tilec::tile::getFmaAccumulatorLayout(
    MLIRContext *ctx, ArrayRef<int64_t> shape, unsigned numWarps) {
  int64_t m = shape[0], n = shape[1];
  int64_t perThread = std::max<int64_t>(1, m * n / (32 * numWarps));
  // sn * sm = perThread, sn the larger half of the bits (8 x 4 for 32).
  int64_t sn = std::min<int64_t>(
      n, int64_t(1) << llvm::divideCeil(llvm::Log2_64(perThread), 2));
  int64_t sm = std::clamp<int64_t>(perThread / sn, 1, m);
  unsigned tn = std::clamp<int64_t>(n / sn, 1, 32);
  unsigned tm = 32 / tn;
  unsigned wm = std::clamp<int64_t>(m / (sm * tm), 1, numWarps);
  unsigned wn = numWarps / wm;
  return BlockedEncodingAttr::get(
      ctx, {static_cast<unsigned>(sm), static_cast<unsigned>(sn)}, {tm, tn},
      {wm, wn}, {1, 0});
}

BlockedEncodingAttr
mlir::tilec::tile::getFmaOperandLayout(BlockedEncodingAttr acc, unsigned opIdx,
                                       int64_t k) {
  // K in registers; the threads and warps along the other dimension wrap
  // onto the operand's K extent of one block, i.e. hold copies. The order
  // stays the accumulator's: it also says which lane bits go to which
  // dimension.
  SmallVector<unsigned> spt(acc.getSizePerThread());
  spt[1 - opIdx] = static_cast<unsigned>(k);
  return BlockedEncodingAttr::get(acc.getContext(), spt,
                                  acc.getThreadsPerWarp(), acc.getWarpsPerCTA(),
                                  acc.getOrder());
}

FailureOr<std::pair<unsigned, unsigned>>
mlir::tilec::tile::chooseMmaWarps(int64_t m, int64_t n, unsigned numWarps,
                                  bool rowsOnly) {
  std::optional<std::pair<unsigned, unsigned>> best;
  int64_t bestCost = 0;
  for (unsigned wm = numWarps; wm >= 1; wm /= 2) {
    unsigned wn = numWarps / wm;
    if (rowsOnly && wn != 1)
      continue;
    if (m % (16 * wm) != 0 || n % (8 * wn) != 0)
      continue;
    int64_t cost = m / wm + n / wn;
    if (!best || cost < bestCost) {
      best = {wm, wn};
      bestCost = cost;
    }
  }
  if (!best)
    return failure();
  return *best;
}

SharedEncodingAttr mlir::tilec::tile::getLdmatrixSwizzle(MLIRContext *ctx,
                                                        ArrayRef<int64_t> shape,
                                                        unsigned contig,
                                                        unsigned elemBytes) {
  unsigned vec = 16 / elemBytes;
  int64_t rowLen = shape[contig];
  int64_t rowBytes = rowLen * elemBytes;
  unsigned perPhase = std::max<int64_t>(1, 128 / rowBytes);
  unsigned maxPhase =
      std::max<int64_t>(1, std::min<int64_t>(8 / perPhase, rowLen / vec));
  return SharedEncodingAttr::get(ctx, vec, perPhase, maxPhase,
                                 {contig, 1 - contig}, /*segment=*/0);
}
