//===- VerifyAsync.cpp - Bounded proof of a kernel's async protocol -------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-verify-async: it chooses the paths (parameter
// values and programs) and runs the execution model of AsyncModel.cpp on
// each. The first violation becomes an error on its operation with a note
// naming the path, the warp and the loop iterations.
//
// Why concrete paths: a schedule's synchronization depends only on integer
// parameters (trip counts, the program's tile) and on ring positions, which
// repeat with period 2 x stages. Parameters that reach control flow take
// values that give trip counts 1 to 9 for 64-wide blocks (1 to 5 for
// 128-wide ones), which walks every ring of up to 4 stages through both
// parities at every stage, in the first and the last program of the grid
// (causal attention's short and long rows) and, for persistent kernels, the
// first and second program (or cluster) striding over several tiles.
//
//===----------------------------------------------------------------------===//

#include "AsyncModel.h"

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Threading.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEVERIFYASYNC
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kVerifyAsyncPass = "tile-verify-async";

/// Paths past max-steps after which a kernel's remaining paths are left out.
static constexpr unsigned kMaxTooLongPaths = 4;

/// Two families of paths: ragged sizes (every integer parameter 129, the
/// varied one 1, 65, ..., 513: partial tiles and the bounds-checked loop
/// versions) and whole tiles (256, the varied one 64, 128, ..., 512: the
/// unchecked versions that tile-pipeline takes when tiles fit).
struct PathFamily {
  int64_t base;
  ArrayRef<int64_t> varied;
};
static constexpr int64_t kRagged[] = {1, 65, 193, 257, 321, 385, 449, 513};
static constexpr int64_t kWhole[] = {64, 128, 192, 320, 384, 448, 512};
static const PathFamily kFamilies[] = {{129, kRagged}, {256, kWhole}};

/// Whether parameter `arg` decides a loop bound or a branch.
static bool reachesControlFlow(BlockArgument arg) {
  SetVector<Operation *> slice;
  getForwardSlice(Value(arg), &slice);
  return llvm::any_of(slice, [](Operation *op) {
    return isa<scf::ForOp, scf::IfOp>(op);
  });
}

/// The grid of `kernel` for `args`, or std::nullopt without a grid rule.
static std::optional<std::array<int64_t, 3>>
evalGrid(KernelOp kernel, const DenseMap<unsigned, int64_t> &args) {
  std::optional<AffineMap> grid = kernel.getGrid();
  if (!grid || !kernel.getGridArgs())
    return std::nullopt;
  Builder b(kernel.getContext());
  SmallVector<Attribute> operands;
  ArrayRef<int64_t> gridArgs = *kernel.getGridArgs(); // not in the for: the
                                                      // optional is temporary
  for (int64_t param : gridArgs) {
    auto it = args.find(param);
    if (it == args.end())
      return std::nullopt;
    operands.push_back(b.getI64IntegerAttr(it->second));
  }
  SmallVector<Attribute> results;
  if (failed(grid->constantFold(operands, results)))
    return std::nullopt;
  std::array<int64_t, 3> out = {1, 1, 1};
  for (auto [i, r] : llvm::enumerate(results))
    if (auto v = dyn_cast<IntegerAttr>(r); v && i < 3)
      out[i] = std::max<int64_t>(1, v.getInt());
  return out;
}

/// Tiles a simulated program of a persistent kernel strides over (at
/// most): its ring positions carry from tile to tile, which two or three
/// tiles exercise; striding over half of a batched grid's thousands of
/// tiles made one kernel's check take 7 s.
static constexpr int64_t kTilesPerProgram = 3;

/// The launches of one set of parameter values: the first and the last
/// program (cluster) of a grid kernel, the first and second of a persistent
/// one (launched with enough programs that each strides over at most
/// kTilesPerProgram tiles of its grid rule, and at least two).
static void addLaunches(KernelOp kernel, const async::Path &base,
                        SmallVectorImpl<async::Path> &out) {
  int64_t cs = kernel.getClusterSize();
  async::Path first = base;
  first.numPrograms[0] = cs;
  std::optional<std::array<int64_t, 3>> grid = evalGrid(kernel, base.args);
  if (!kernel.getPersistent() && grid) {
    for (int d = 0; d < 3; ++d)
      first.numPrograms[d] = (*grid)[d];
    first.numPrograms[0] = std::max(cs, (*grid)[0] / cs * cs);
  }
  int64_t programs = 2 * cs;
  if (kernel.getPersistent() && grid) {
    int64_t tiles = (*grid)[0] * (*grid)[1] * (*grid)[2];
    int64_t clusters = llvm::divideCeil(tiles, kTilesPerProgram * cs);
    programs = std::max<int64_t>(2, clusters) * cs;
    first.numPrograms[0] = programs;
  }
  out.push_back(first);
  async::Path second = first;
  if (kernel.getPersistent() || !grid) {
    second.numPrograms[0] = programs;
    second.firstProgram[0] = cs;
  } else {
    second.firstProgram[0] = second.numPrograms[0] - cs;
    second.firstProgram[1] = second.numPrograms[1] - 1;
    second.firstProgram[2] = second.numPrograms[2] - 1;
  }
  if (!llvm::equal(second.firstProgram, first.firstProgram))
    out.push_back(second);
}

static SmallVector<async::Path> buildPaths(KernelOp kernel,
                                           unsigned maxPaths) {
  Block &body = kernel.getBody().front();
  SmallVector<unsigned> ints, varied;
  for (BlockArgument arg : body.getArguments()) {
    if (!isa<IntegerType, IndexType>(arg.getType()))
      continue;
    ints.push_back(arg.getArgNumber());
    if (reachesControlFlow(arg))
      varied.push_back(arg.getArgNumber());
  }
  SmallVector<async::Path> paths;
  for (const PathFamily &family : kFamilies) {
    async::Path base;
    for (unsigned arg : ints)
      base.args[arg] = family.base;
    addLaunches(kernel, base, paths);
    for (unsigned arg : varied) {
      for (int64_t v : family.varied) {
        async::Path p = base;
        p.args[arg] = v;
        addLaunches(kernel, p, paths);
      }
    }
  }
  if (paths.size() > maxPaths)
    paths.resize(maxPaths);
  return paths;
}

static std::string describePath(KernelOp kernel, const async::Path &path) {
  std::string s;
  llvm::raw_string_ostream os(s);
  Block &body = kernel.getBody().front();
  llvm::interleaveComma(
      llvm::make_filter_range(body.getArguments(),
                              [&](BlockArgument a) {
                                return path.args.count(a.getArgNumber());
                              }),
      os, [&](BlockArgument a) {
        os << kernel.getArgName(a.getArgNumber()) << " = "
           << path.args.lookup(a.getArgNumber());
      });
  os << "; " << path.numPrograms[0] << "x" << path.numPrograms[1] << "x"
     << path.numPrograms[2] << " programs";
  return s;
}

namespace {
struct TileVerifyAsyncPass
    : tile::impl::TileVerifyAsyncBase<TileVerifyAsyncPass> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!async::hasAsyncProtocol(kernel))
      return;
    std::string why = async::getUnsupportedReason(kernel);
    if (!why.empty())
      return notChecked(kernel, why);
    SmallVector<async::Path> paths = buildPaths(kernel, maxPaths);
    unsigned checked = 0, tooLong = 0;
    uint64_t steps = 0;
    // The paths are independent: a batch of them is simulated in parallel
    // (the 2-core build machine halves a grouped GEMM's 0.7 s check), and the
    // results are read in order, so that the first violation, the paths
    // left out and the remark are those of a sequential run.
    MLIRContext *ctx = &getContext();
    size_t batch = ctx->isMultithreadingEnabled()
                       ? std::max<size_t>(1, ctx->getNumThreads())
                       : 1;
    SmallVector<async::PathResult> results;
    SmallVector<char> ranLong;
    // From the first path that runs long as written on, paths run with
    // their data-bounded loops shortened (simulatePath): decided in path
    // order, so that the outcome does not depend on the batch size.
    bool shorten = false;
    for (auto [i, path] : llvm::enumerate(paths)) {
      if (i % batch == 0) {
        size_t end = std::min(paths.size(), i + batch);
        results.assign(end - i, async::PathResult());
        ranLong.assign(end - i, false);
        bool shortenBatch = shorten;
        parallelFor(ctx, i, end, [&](size_t j) {
          results[j - i] =
              simulatePath(kernel, paths[j], shortenBatch, ranLong[j - i]);
        });
        for (size_t j = i; j < end; ++j) {
          char unused;
          if (shorten && !shortenBatch)
            results[j - i] = simulatePath(kernel, paths[j], true, unused);
          shorten |= ranLong[j - i] != 0;
        }
      }
      // Paths that run past max-steps cost max-steps each and check
      // nothing: after a few, the longer ones of the same kernel are not
      // simulated (a persistent kernel's 128 paths took 40 s of compile
      // time, 124 of them past the limit).
      if (tooLong == kMaxTooLongPaths) {
        why += llvm::formatv("; the last {0} paths were not simulated after {1} "
                             "ran past it",
                             paths.size() - i, kMaxTooLongPaths)
                   .str();
        break;
      }
      async::PathResult &r = results[i % batch];
      steps += r.steps;
      if (r.violation) {
        Operation *at = r.violation->op ? r.violation->op
                                        : kernel.getOperation();
        InFlightDiagnostic diag = at->emitError(r.violation->message);
        diag.attachNote() << "on the path " << describePath(kernel, path)
                          << (r.violation->where.empty() ? "" : ", in ")
                          << r.violation->where;
        return signalPassFailure();
      }
      if (!r.skipped.empty()) {
        why = r.skipped;
        tooLong += r.ranOut;
        continue;
      }
      ++checked;
    }
    numPaths += checked;
    if (checked == 0)
      return notChecked(kernel, why);
    remarkPassed(kernel, kVerifyAsyncPass, "Verified",
                 llvm::formatv("asynchronous protocol verified on {0} of {1} "
                               "paths ({2} operations executed){3}{4}",
                               checked, paths.size(), steps,
                               why.empty() ? "" : "; not checked: ", why));
  }

  /// `path` as written within an eighth of max-steps; with `shorten`, or
  /// where that runs past it (`ranLong`), again with the loops bounded by
  /// loaded data shortened (a block list's 257 blocks run 17).
  async::PathResult simulatePath(KernelOp kernel, const async::Path &path,
                                 bool shorten, char &ranLong) {
    ranLong = false;
    uint64_t first = maxSteps / 8;
    if (shorten)
      return async::simulate(kernel, path, maxSteps, true);
    async::PathResult r = async::simulate(kernel, path, first);
    if (r.violation || !r.ranOut)
      return r;
    ranLong = true;
    async::PathResult s = async::simulate(kernel, path, maxSteps, true);
    s.steps += r.steps;
    return s;
  }

  void notChecked(KernelOp kernel, StringRef why) {
    if (strict) {
      kernel.emitError("tile-verify-async cannot check this kernel: ") << why;
      return signalPassFailure();
    }
    remarkMissed(kernel, kVerifyAsyncPass, "NotChecked", why);
  }
};
} // namespace
