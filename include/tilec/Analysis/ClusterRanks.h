//===- ClusterRanks.h - How values differ across a cluster ------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the rank analysis of a kernel launched in thread-block
// clusters along x (`cluster(n, 1, 1)`). The programs of a cluster run the
// same code with different program ids; the analysis proves, for an integer
// value, how it differs between them: v(r) = U + f(r) in the program of
// rank r, where U is the same in every program of the cluster and f is a
// known table. tile-tma-pipeline uses it to find the programs that load the
// same tile (equal f for every offset: they can share it by multicast) and
// to check that they walk their loops in step (equal trip counts).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_CLUSTERRANKS_H
#define TILEC_ANALYSIS_CLUSTERRANKS_H

#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace mlir::tilec::tile {

/// v(r) = U + f[r] for the program of rank r. U is a multiple of `align`
/// (align 0: U is 0, so v is known exactly in every program).
struct RankValue {
  int64_t align = 1;
  SmallVector<int64_t> f;
  /// v(r) >= 0 in every program.
  bool nonNegative = false;

  /// The same value in every program of the cluster.
  bool isUniform() const;
  /// The value, when it is the same known constant in every program.
  std::optional<int64_t> getConstant() const;
};

/// The rank analysis of one kernel (see the file comment).
class ClusterRankAnalysis {
public:
  explicit ClusterRankAnalysis(KernelOp kernel);

  /// The programs per cluster; 1 when the kernel has no cluster shape or
  /// one this analysis does not model (clusters along y or z).
  int64_t getClusterSize() const { return size; }

  /// How `v` (an integer or index) differs across the cluster, or nullopt
  /// when that is not known.
  std::optional<RankValue> lookup(Value v);

  /// True when every program of the cluster runs `loop` the same number of
  /// times.
  bool hasUniformTripCount(scf::ForOp loop);

private:
  std::optional<RankValue> compute(Value v);
  std::optional<RankValue> computeResult(OpResult v);

  int64_t size = 1;
  DenseMap<Value, std::optional<RankValue>> cache;
};

/// A table of one i32 value per rank of the cluster, as IR: a constant when
/// all are equal, else a chain of selects on `rank`.
Value createRankTable(OpBuilder &b, Location loc, Value rank,
                      ArrayRef<int64_t> values);

} // namespace mlir::tilec::tile

#endif // TILEC_ANALYSIS_CLUSTERRANKS_H
