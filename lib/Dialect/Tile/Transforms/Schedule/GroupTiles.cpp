//===- GroupTiles.cpp - A GEMM's output tiles in grouped order ------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-group-tiles. A block program that takes its
// output tile from its program id in row order
//
//   pm = pid / npn, pn = pid % npn            (one grid dimension)
//   pn = program_id x, pm = program_id y      (two)
//
// runs each wave of programs along a tile row, and a wave reads the whole B
// operand: wider than the L2 (a layer's weights), B streams from memory once
// per wave. The pass renumbers the tiles in grouped order (Triton's
// GROUP_SIZE_M, tile.gemm's groupM): the programs walk G tile rows column
// by column,
//
//   group = p / (G * cols), first = group * G, size = min(rows - first, G)
//   row = first + (p % (G * cols)) % size, col = (p % (G * cols)) / size
//
// a permutation of the tiles, so the kernel computes the same tiles in
// another order. On an H100 the corpus's SwiGLU ran at 688 / 720 TFLOP/s
// grouped against 438 / 380 in row order (8192 x 14336 x 4096 and
// 4096 x 28672 x 8192), its int8 GEMM at 1366 against 1055, its FP8 GEMM at
// 1132 against 935 (bench/results/2026-12-06_group_tiles_h100.json).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/CastInterfaces.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEGROUPTILES
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kGroupTilesPass = "tile-group-tiles";

/// Tile rows per group where the schedule does not say (tile.gemm's
/// groupM and Triton's tutorial use the same).
static constexpr int64_t kDefaultGroupRows = 8;

namespace {
/// Where a program's output tile comes from: the ops whose results are its
/// tile row and tile column (a division and remainder of the program id, or
/// the program ids y and x).
struct OutputTileCoords {
  SmallVector<Operation *> row, col;
};
} // namespace

/// The load a dot operand reads, through transposes, layout conversions and
/// casts; null when it is computed otherwise.
static LoadOp getOperandLoad(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto load = dyn_cast<LoadOp>(def))
      return load;
    if (!isa<TransOp, ConvertLayoutOp, CastOpInterface>(def) ||
        def->getNumOperands() != 1)
      return {};
    v = def->getOperand(0);
  }
  return {};
}

/// Whether what `load` reads (its view and offsets) is computed from the
/// tile row and from the tile column of `coords`.
static std::pair<bool, bool> getDependences(LoadOp load,
                                            const OutputTileCoords &coords) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  for (Value v : load->getOperands())
    (void)getBackwardSlice(v, &slice, options);
  auto reads = [&](ArrayRef<Operation *> sources) {
    return llvm::any_of(sources,
                        [&](Operation *src) { return slice.contains(src); });
  };
  return {reads(coords.row), reads(coords.col)};
}

/// Whether `coords` order the tiles of a GEMM: a dot in a loop reads an A
/// tile placed by one coordinate only and a B tile by the other only.
static bool isGemmOrder(KernelOp kernel, const OutputTileCoords &coords) {
  WalkResult found = kernel.walk([&](DotOp dot) {
    if (!dot->getParentOfType<scf::ForOp>())
      return WalkResult::advance();
    LoadOp a = getOperandLoad(dot.getA()), b = getOperandLoad(dot.getB());
    if (!a || !b)
      return WalkResult::advance();
    auto [aRow, aCol] = getDependences(a, coords);
    auto [bRow, bCol] = getDependences(b, coords);
    if ((aRow && !aCol && bCol && !bRow) || (aCol && !aRow && bRow && !bCol))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// The tile (row, col) that linear index `p` takes in grouped order over
/// `rows` x `cols` tiles, `g` rows per group. `size` is at least 1, so
/// that an index past the last whole row (whose result the caller drops)
/// does not divide by zero.
static std::pair<Value, Value> emitGroupedCoords(OpBuilder &b, Location loc,
                                                 Value p, Value rows,
                                                 Value cols, int64_t g) {
  Value gv = createI32(b, loc, g);
  Value width = arith::MulIOp::create(b, loc, cols, gv);
  Value group = arith::DivSIOp::create(b, loc, p, width);
  Value first = arith::MulIOp::create(b, loc, group, gv);
  Value left = arith::SubIOp::create(b, loc, rows, first);
  Value size = arith::MinSIOp::create(b, loc, left, gv);
  size = arith::MaxSIOp::create(b, loc, size, createI32(b, loc, 1));
  Value in = arith::RemSIOp::create(b, loc, p, width);
  Value row = arith::AddIOp::create(b, loc, first,
                                    arith::RemSIOp::create(b, loc, in, size));
  Value col = arith::DivSIOp::create(b, loc, in, size);
  return {row, col};
}

/// The pairs (pid / w, pid % w) of the program id x with one divisor, in
/// the order of the divisions.
static SmallVector<std::pair<Operation *, Operation *>>
findLinearCoords(KernelOp kernel) {
  SmallVector<std::pair<Operation *, Operation *>> pairs;
  kernel.walk([&](ProgramIdOp pid) {
    if (pid.getDim() != Dim::X)
      return;
    for (Operation *div : pid->getUsers()) {
      if (!isa<arith::DivSIOp, arith::DivUIOp>(div) ||
          div->getOperand(0) != pid.getResult())
        continue;
      for (Operation *rem : pid->getUsers())
        if (isa<arith::RemSIOp, arith::RemUIOp>(rem) &&
            rem->getOperand(0) == pid.getResult() &&
            rem->getOperand(1) == div->getOperand(1) &&
            rem->getBlock() == div->getBlock())
          pairs.push_back({div, rem});
    }
  });
  return pairs;
}

/// Rewrites `pid / w` and `pid % w` (`div`, `rem`) into the grouped order
/// over the grid's whole rows of `w` tiles; a program past them keeps its
/// tile.
static void groupLinear(KernelOp kernel, Operation *div, Operation *rem,
                        int64_t g) {
  Operation *first = div->isBeforeInBlock(rem) ? div : rem;
  Operation *last = first == div ? rem : div;
  // The grouped coordinates replace both results, so they must precede
  // every use: where the first result is used before the second op (a
  // program that computes its row, uses it, then its column), the second
  // op moves up beside the first (both read only pid and w).
  if (llvm::any_of(first->getUsers(), [&](Operation *user) {
        Operation *inBlock = first->getBlock()->findAncestorOpInBlock(*user);
        return inBlock && inBlock->isBeforeInBlock(last);
      }))
    last->moveAfter(first);
  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  Location loc = div->getLoc();
  Value pid = div->getOperand(0), w = div->getOperand(1);
  Value programs = emitGridSizes(b, loc, kernel).front();
  Value rows = arith::DivSIOp::create(b, loc, programs, w);
  Value whole = arith::MulIOp::create(b, loc, rows, w);
  Value inWhole =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, pid, whole);
  auto [row, col] = emitGroupedCoords(b, loc, pid, rows, w, g);
  for (auto [old, grouped] : {std::pair{div, row}, std::pair{rem, col}}) {
    Value result = old->getResult(0);
    auto pick = arith::SelectOp::create(b, loc, inWhole, grouped, result);
    result.replaceAllUsesExcept(pick, pick);
  }
}

/// Rewrites the program ids x (the tile column) and y (the tile row) into
/// the grouped order over the grid's x * y tiles (per z).
static void groupGrid(KernelOp kernel, const OutputTileCoords &coords,
                      int64_t g) {
  Block &body = kernel.getBody().front();
  OpBuilder b(&body, body.begin());
  Location loc = kernel.getLoc();
  SmallVector<Value> dims = emitGridSizes(b, loc, kernel);
  Value x = ProgramIdOp::create(b, loc, Dim::X);
  Value y = ProgramIdOp::create(b, loc, Dim::Y);
  Value p = arith::AddIOp::create(b, loc,
                                  arith::MulIOp::create(b, loc, y, dims[0]), x);
  auto [row, col] = emitGroupedCoords(b, loc, p, dims[1], dims[0], g);
  for (auto [ops, grouped] :
       {std::pair{coords.row, row}, std::pair{coords.col, col}})
    for (Operation *op : ops) {
      op->getResult(0).replaceAllUsesWith(grouped);
      op->erase();
    }
}

namespace {
struct TileGroupTilesPass : tile::impl::TileGroupTilesBase<TileGroupTilesPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileGroupTilesPass::runOnOperation() {
  KernelOp kernel = getOperation();
  ScheduleAttr schedule = kernel.getScheduleAttr();
  std::optional<int64_t> asked =
      schedule ? schedule.getGroupRows() : std::nullopt;
  int64_t g = asked.value_or(kDefaultGroupRows);
  if (g <= 1)
    return;
  auto decline = [&](const Twine &why) {
    if (asked)
      remarkMissed(kernel, kGroupTilesPass, "NotGrouped",
                   "the tiles keep the program's order: " + why);
  };
  std::optional<AffineMap> grid = kernel.getGrid();
  if (!grid)
    return decline("the kernel has no grid rule");
  if (kernel.getPersistent())
    return decline("the kernel is persistent");
  if (kernel.getClusterSize() > 1)
    return decline("the kernel runs in clusters, whose programs share tiles "
                   "by their rank");

  for (auto [div, rem] : findLinearCoords(kernel)) {
    if (!isGemmOrder(kernel, OutputTileCoords{{div}, {rem}}))
      continue;
    groupLinear(kernel, div, rem, g);
    ++numGrouped;
    remarkPassed(div, kGroupTilesPass, "Grouped",
                 "the output tiles (row program_id / n, column program_id "
                 "% n) are visited in groups of " +
                     Twine(g) +
                     " tile rows, so that the programs running "
                     "together share both operands' tiles in L2");
    return;
  }
  OutputTileCoords coords;
  kernel.walk([&](ProgramIdOp pid) {
    if (pid.getDim() == Dim::X)
      coords.col.push_back(pid);
    else if (pid.getDim() == Dim::Y)
      coords.row.push_back(pid);
  });
  if (grid->getNumResults() >= 2 && !coords.row.empty() &&
      !coords.col.empty() && isGemmOrder(kernel, coords)) {
    groupGrid(kernel, coords, g);
    ++numGrouped;
    remarkPassed(kernel, kGroupTilesPass, "Grouped",
                 "the output tiles (row program_id y, column program_id x) "
                 "are visited in groups of " +
                     Twine(g) +
                     " tile rows, so that the programs running "
                     "together share both operands' tiles in L2");
    return;
  }
  decline("no tile.dot in a loop reads an A tile placed by one tile "
          "coordinate of the program id and a B tile placed by the other");
}
