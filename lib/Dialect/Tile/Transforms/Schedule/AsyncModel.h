//===- AsyncModel.h - Execution model of tile-verify-async ------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tile-verify-async runs a scheduled kernel on an abstract machine: every
// warp of a program (and every program of a cluster) is an agent with a
// vector clock; mbarriers, named barriers, block and cluster barriers,
// cp.async groups, wgmma groups and TMA copies move clocks the way the PTX
// memory model orders memory. Shared-memory stages record who wrote and read
// them with epochs; a conflicting access that no synchronization orders is
// a violation. Scalars are evaluated concretely for one set of kernel
// arguments (a "path"); data (tiles) is not modelled. See VerifyAsync.cpp
// for the rules and for how paths are chosen.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILE_TRANSFORMS_SCHEDULE_ASYNCMODEL_H
#define TILEC_LIB_DIALECT_TILE_TRANSFORMS_SCHEDULE_ASYNCMODEL_H

#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::tilec::tile::async {

/// One execution of a kernel: the values of its integer parameters and of
/// the launch (programs per grid dimension, the first program simulated).
struct Path {
  llvm::DenseMap<unsigned, int64_t> args; // parameter index -> value
  int64_t numPrograms[3] = {1, 1, 1};
  int64_t firstProgram[3] = {0, 0, 0};
};

/// A protocol violation: the op, the message, and where on the path.
struct Violation {
  Operation *op = nullptr;
  std::string message;
  std::string where; // agent and loop iterations
};

/// Outcome of simulating one path.
struct PathResult {
  std::optional<Violation> violation;
  /// Set when the path could not be simulated (a control value depends on
  /// data, an operation the model does not know, the step budget): not a
  /// violation, the reason.
  std::string skipped;
  uint64_t steps = 0;
  /// The path ran past the step budget (then `skipped` says so).
  bool ranOut = false;
};

/// Runs `kernel` on `path`. `maxSteps` bounds the operations executed (all
/// agents together). With `shortenDataLoops`, loops whose bounds come from
/// loaded data run at most about 32 iterations (AsyncModel.cpp, "Data").
PathResult simulate(KernelOp kernel, const Path &path, uint64_t maxSteps,
                    bool shortenDataLoops = false);

/// Why `kernel` cannot be simulated at all (an operation with regions that
/// holds async operations and that the model does not execute), or empty.
std::string getUnsupportedReason(KernelOp kernel);

/// Whether `kernel` has anything for tile-verify-async to check (shared
/// memory, barriers, asynchronous copies or wgmma).
bool hasAsyncProtocol(KernelOp kernel);

} // namespace mlir::tilec::tile::async

#endif // TILEC_LIB_DIALECT_TILE_TRANSFORMS_SCHEDULE_ASYNCMODEL_H
