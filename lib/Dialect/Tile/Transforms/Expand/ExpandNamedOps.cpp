//===- ExpandNamedOps.cpp - tile.gemm / tile.attention to block programs --===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-expand-named-ops. A named op is the only
// computation of its kernel; the expansion writes the block program in its
// place, sets the kernel's launch grid and warps, records the alignment the
// fast path assumes on the parameters, and sets the kernel's schedule
// attribute to what the op's config chose. The scheduling passes turn the
// block program into the chip's kernel, as they do for a program a user
// wrote.
//
// tile.gemm becomes, for a BM x BN block of C:
//
//   pid -> (pid_m, pid_n) with grouped rasterization (GROUP_M block rows
//          per group, so that consecutive programs reuse B tiles in L2)
//   acc = 0
//   for k in [0, K) step BK:      // tile-pipeline turns the loads into a
//     acc = dot(load A[m0, k], load B[k, n0], acc)        // cp.async ring
//   acc = act(alpha * scale_a[m] * scale_b[n] * acc + beta * C + bias) // f32
//   store C[m0, n0] = acc (cast to C's type)
//
// Split-K (`split_k` S > 1, two kernels made by tile-split-stages): the
// partial stage runs S programs per tile, each over one range of K steps,
// and stores acc to workspace[range]; the reduce stage adds a tile's S
// partial sums in range order and applies the epilogue once.
//
// On sm_90a the scheduling passes make it the persistent, warp-specialized
// TMA + wgmma kernel (tile-persistent, tile-tma-store, tile-tma-pipeline,
// tile-async-wgmma, tile-warp-specialize), in clusters with multicast where
// the config asks. tile.attention becomes a FlashAttention forward
// (ExpandAttention.cpp; on sm_90a still, by default, the hand-built
// FlashAttention-3 kernel of ExpandAttentionHandBuilt.cpp, which creates
// hardware ops itself). The configurations come from NamedOpConfigs.
//
//===----------------------------------------------------------------------===//

#include "ExpandNamedOps.h"

#include "tilec/Dialect/Tile/Transforms/NamedOpConfigs.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <numeric>

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEEXPANDNAMEDOPS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;
using namespace mlir::tilec::tile::expand;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value expand::getViewSize(ImplicitLocOpBuilder &b, Value view, unsigned dim) {
  auto make = view.getDefiningOp<MakeViewOp>();
  OpFoldResult size = make.getMixedSize(dim);
  if (auto v = dyn_cast<Value>(size))
    return v;
  return arith::ConstantIntOp::create(
      b, cast<IntegerAttr>(cast<Attribute>(size)).getInt(), 32);
}

FailureOr<AffineExpr> expand::getParamExpr(Value v, KernelOp kernel,
                                           SmallVectorImpl<int64_t> &params) {
  MLIRContext *ctx = kernel.getContext();
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner()->getParentOp() != kernel.getOperation())
      return failure();
    int64_t idx = arg.getArgNumber();
    auto *it = llvm::find(params, idx);
    unsigned pos = it - params.begin();
    if (it == params.end())
      params.push_back(idx);
    return getAffineSymbolExpr(pos, ctx);
  }
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return getAffineConstantExpr(value.getSExtValue(), ctx);
  return failure();
}

Value expand::constI32(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIntOp::create(b, v, 32);
}

Value expand::splatF32(ImplicitLocOpBuilder &b, ArrayRef<int64_t> shape,
                       double v) {
  auto type = RankedTensorType::get(shape, b.getF32Type());
  return arith::ConstantOp::create(
      b, type, DenseElementsAttr::get(type, b.getF32FloatAttr(v)));
}

Value expand::broadcastAlong(ImplicitLocOpBuilder &b, Value vec, unsigned axis,
                             ArrayRef<int64_t> shape) {
  Type et = cast<RankedTensorType>(vec.getType()).getElementType();
  SmallVector<int64_t> expanded(shape);
  expanded[axis] = 1;
  Value e = ExpandDimsOp::create(b, RankedTensorType::get(expanded, et), vec,
                                 b.getI32IntegerAttr(axis));
  return BroadcastOp::create(b, RankedTensorType::get(shape, et), e);
}

void expand::requireParam(KernelOp kernel, Value v, StringRef name,
                          int64_t value) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner()->getParentOp() != kernel.getOperation())
    return;
  // A parameter two views need (a stride of FP8 Q and of bf16 O): both
  // requirements: their least common multiple.
  if (auto old = kernel.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), name))
    value = std::lcm(value, old.getInt());
  kernel.setArgAttr(arg.getArgNumber(), name,
                    IntegerAttr::get(IntegerType::get(kernel.getContext(), 64),
                                     value));
}

int64_t expand::getChunkElems(Type t) {
  return 16 / std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

void expand::requireChunkAligned(KernelOp kernel, Value view) {
  auto make = view.getDefiningOp<MakeViewOp>();
  int64_t chunk = getChunkElems(make.getViewType().getElementType());
  requireParam(kernel, make.getBase(), tile::kAlignAttr, 16);
  for (unsigned d = 0, e = make.getViewType().getRank(); d < e; ++d)
    if (auto stride = dyn_cast<Value>(make.getMixedStride(d)))
      requireParam(kernel, stride, tile::kDivisibilityAttr, chunk);
}

/// `primary`'s knobs where it sets them, else `secondary`'s (either may be
/// null): the one place that lists ScheduleAttr's fields for a merge.
static ScheduleAttr mergeSchedules(MLIRContext *ctx, ScheduleAttr primary,
                                   ScheduleAttr secondary) {
  if (!primary || !secondary)
    return primary ? primary : secondary;
  auto flag = [](BoolAttr p, BoolAttr s) { return p ? p : s; };
  auto count = [](std::optional<int64_t> p, std::optional<int64_t> s) {
    return p ? p : s;
  };
  return ScheduleAttr::get(
      ctx, count(primary.getStages(), secondary.getStages()),
      flag(primary.getTma(), secondary.getTma()),
      flag(primary.getAsyncWgmma(), secondary.getAsyncWgmma()),
      flag(primary.getWarpSpecialize(), secondary.getWarpSpecialize()),
      count(primary.getProducerRegs(), secondary.getProducerRegs()),
      count(primary.getConsumerRegs(), secondary.getConsumerRegs()),
      flag(primary.getPersistent(), secondary.getPersistent()),
      flag(primary.getTmaStore(), secondary.getTmaStore()),
      flag(primary.getPingpong(), secondary.getPingpong()),
      flag(primary.getSplitLoops(), secondary.getSplitLoops()),
      flag(primary.getOperandsInSmem(), secondary.getOperandsInSmem()),
      flag(primary.getShareTiles(), secondary.getShareTiles()),
      count(primary.getGroupRows(), secondary.getGroupRows()));
}

namespace {
/// The fields of a #tile.schedule, each unset unless given: what the
/// helpers below merge into a kernel's schedule (a new field is added here
/// and in mergeSchedules only).
struct ScheduleFields {
  std::optional<int64_t> stages, producerRegs, consumerRegs, groupRows;
  BoolAttr tma, asyncWgmma, warpSpecialize, persistent, tmaStore, pingpong,
      splitLoops, operandsInSmem, shareTiles;

  ScheduleAttr get(MLIRContext *ctx) const {
    return ScheduleAttr::get(ctx, stages, tma, asyncWgmma, warpSpecialize,
                             producerRegs, consumerRegs, persistent, tmaStore,
                             pingpong, splitLoops, operandsInSmem, shareTiles,
                             groupRows);
  }
};
} // namespace

/// `kernel`'s schedule where it sets a field, else `fields`'.
static void setScheduleDefaults(KernelOp kernel, const ScheduleFields &fields) {
  MLIRContext *ctx = kernel.getContext();
  kernel.setScheduleAttr(
      mergeSchedules(ctx, kernel.getScheduleAttr(), fields.get(ctx)));
}

void expand::keepCpAsyncRing(KernelOp kernel,
                             std::optional<bool> operandsInSmem) {
  MLIRContext *ctx = kernel.getContext();
  BoolAttr no = BoolAttr::get(ctx, false);
  // No TMA, persistent tile loop or TMA store, whatever the kernel asked.
  ScheduleFields forced;
  forced.tma = forced.persistent = forced.tmaStore = no;
  // The config's choice, under what the kernel set itself.
  ScheduleFields choice;
  if (operandsInSmem)
    choice.operandsInSmem = BoolAttr::get(ctx, *operandsInSmem);
  kernel.setScheduleAttr(mergeSchedules(
      ctx, mergeSchedules(ctx, forced.get(ctx), kernel.getScheduleAttr()),
      choice.get(ctx)));
}

void expand::setWarpSpecializedSchedule(KernelOp kernel, int64_t stages,
                                        int64_t producerRegs,
                                        int64_t consumerRegs, bool persistent,
                                        bool tmaStore,
                                        std::optional<bool> pingpong,
                                        std::optional<bool> splitLoops) {
  MLIRContext *ctx = kernel.getContext();
  auto optional = [&](std::optional<bool> v) {
    return v ? BoolAttr::get(ctx, *v) : BoolAttr();
  };
  ScheduleFields defaults;
  defaults.stages = stages;
  defaults.tma = defaults.asyncWgmma = defaults.warpSpecialize =
      BoolAttr::get(ctx, true);
  defaults.producerRegs = producerRegs;
  defaults.consumerRegs = consumerRegs;
  defaults.persistent = BoolAttr::get(ctx, persistent);
  defaults.tmaStore = BoolAttr::get(ctx, tmaStore);
  defaults.pingpong = optional(pingpong);
  defaults.splitLoops = optional(splitLoops);
  setScheduleDefaults(kernel, defaults);
}

void expand::setRegisterBudgets(KernelOp kernel, int64_t producerRegs,
                                int64_t consumerRegs) {
  ScheduleFields budgets;
  budgets.producerRegs = producerRegs;
  budgets.consumerRegs = consumerRegs;
  setScheduleDefaults(kernel, budgets);
}

void expand::setShareTiles(KernelOp kernel) {
  ScheduleFields share;
  share.shareTiles = BoolAttr::get(kernel.getContext(), true);
  setScheduleDefaults(kernel, share);
}

LogicalResult expand::checkOnlyComputation(KernelOp kernel, Operation *named) {
  for (Operation &op : kernel.getBody().front()) {
    if (&op == named || isa<MakeViewOp, ReturnOp, arith::ConstantOp>(op))
      continue;
    return named->emitOpError("must be the only computation of its kernel; "
                              "found '")
           << op.getName() << "'";
  }
  for (Value operand : named->getOperands())
    if (isa<ViewType>(operand.getType()) && !operand.getDefiningOp<MakeViewOp>())
      return named->emitOpError("expects views made by tile.make_view");
  return success();
}

//===----------------------------------------------------------------------===//
// tile.gemm
//===----------------------------------------------------------------------===//

/// Applies `act` to an f32 tile. The math functions are approximate
/// (`afn`: erf's polynomial, exp's ex2.approx): an epilogue activation needs
/// no more than bf16 accuracy.
static Value applyActivation(ImplicitLocOpBuilder &b, Value x, Activation act,
                             ArrayRef<int64_t> shape) {
  switch (act) {
  case Activation::None:
    return x;
  case Activation::ReLU:
    return arith::MaximumFOp::create(b, x, splatF32(b, shape, 0.0));
  case Activation::GELU: {
    // 0.5 * x * (1 + erf(x / sqrt(2)))
    Value t = arith::MulFOp::create(b, x, splatF32(b, shape, M_SQRT1_2));
    Value e = math::ErfOp::create(b, t, arith::FastMathFlags::afn);
    Value one = arith::AddFOp::create(b, e, splatF32(b, shape, 1.0));
    Value h = arith::MulFOp::create(b, x, splatF32(b, shape, 0.5));
    return arith::MulFOp::create(b, h, one);
  }
  case Activation::SiLU: {
    // x / (1 + exp(-x))
    Value n = arith::NegFOp::create(b, x);
    Value e = math::ExpOp::create(b, n, arith::FastMathFlags::afn);
    Value d = arith::AddFOp::create(b, e, splatF32(b, shape, 1.0));
    return arith::DivFOp::create(b, x, d);
  }
  }
  llvm_unreachable("unknown activation");
}

/// Tile coordinates (m0, n0) of block tile `tileId` under grouped
/// rasterization: GROUP_M block rows per group, so that consecutive tiles
/// reuse B tiles in L2.
static std::pair<Value, Value> emitTileCoords(ImplicitLocOpBuilder &b,
                                              Value tileId, Value M, Value N,
                                              const GemmConfig &c) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, v, 32);
  };
  Value numPidM = arith::CeilDivSIOp::create(b, M, cst(c.blockM));
  Value numPidN = arith::CeilDivSIOp::create(b, N, cst(c.blockN));
  Value width = arith::MulIOp::create(b, numPidN, cst(c.groupM));
  Value group = arith::DivSIOp::create(b, tileId, width);
  Value firstM = arith::MulIOp::create(b, group, cst(c.groupM));
  Value rest = arith::SubIOp::create(b, numPidM, firstM);
  Value groupSize = arith::MinSIOp::create(b, rest, cst(c.groupM));
  Value inGroup = arith::RemSIOp::create(b, tileId, width);
  Value pidM = arith::AddIOp::create(
      b, firstM, arith::RemSIOp::create(b, inGroup, groupSize));
  Value pidN = arith::DivSIOp::create(b, inGroup, groupSize);
  return {arith::MulIOp::create(b, pidM, cst(c.blockM)),
          arith::MulIOp::create(b, pidN, cst(c.blockN))};
}

/// Tile coordinates (m0, n0) of this program in a kernel launched in
/// clusters of clusterM x clusterN programs (consecutive along x): the
/// cluster takes cluster tile `pid / size` in grouped order, and the
/// program of rank r its block tile (r % clusterM, r / clusterM). The
/// programs of a tile row load the same A tile, those of a tile column the
/// same B tile: tile-tma-pipeline proves that from these offsets and shares
/// the tiles by multicast. Programs whose tile lies past M or N still take
/// part in loading their cluster's tiles; their stores are clipped.
static std::pair<Value, Value> emitClusterTileCoords(ImplicitLocOpBuilder &b,
                                                     Value pid, Value M,
                                                     Value N,
                                                     const GemmConfig &c) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, v, 32);
  };
  GemmConfig clusterTiles = c;
  clusterTiles.blockM *= c.clusterM;
  clusterTiles.blockN *= c.clusterN;
  Value tile = arith::DivSIOp::create(b, pid, cst(c.clusterM * c.clusterN));
  auto [m0, n0] = emitTileCoords(b, tile, M, N, clusterTiles);
  Value rank = ClusterRankOp::create(b);
  Value rankM = arith::RemSIOp::create(b, rank, cst(c.clusterM));
  Value rankN = arith::DivSIOp::create(b, rank, cst(c.clusterM));
  return {arith::AddIOp::create(
              b, m0, arith::MulIOp::create(b, rankM, cst(c.blockM))),
          arith::AddIOp::create(
              b, n0, arith::MulIOp::create(b, rankN, cst(c.blockN)))};
}

/// The tile of a grouped GEMM that program `pid` computes.
struct GroupTile {
  Value group;  // the group, which indexes B
  Value m0, n0; // the tile's first row (of A and C) and column
  Value rowEnd; // the group's row end: C's rows from it on are not written
  Value empty;  // i1: no tile (pid past the last group's tiles)
};

/// Tile `pid` of a grouped GEMM. Each group g takes the tiles of its rows
/// [offsets[g - 1], offsets[g]) (ceildiv(rows, BM) x ceildiv(N, BN), in
/// grouped rasterization as a GEMM of those rows), after those of the
/// groups before it. The offsets are read with tile.load_scalar in a scan
/// over the groups (scalar code, which the producer warp of a
/// warp-specialized schedule repeats). A pid past the last tile gets an
/// empty tile: group 0, rows [0, 0).
static GroupTile emitGroupTileCoords(ImplicitLocOpBuilder &b, Value offsets,
                                     Value numGroups, Value pid, Value N,
                                     const GemmConfig &c) {
  Value zero = constI32(b, 0), blockM = constI32(b, c.blockM);
  Value tilesN = arith::CeilDivSIOp::create(b, N, constI32(b, c.blockN));
  // Carried: the group's start row, the tiles before it, and for the
  // group holding pid: its index, rows and pid's tile within it.
  auto scan = scf::ForOp::create(
      b, zero, numGroups, constI32(b, 1),
      ValueRange{zero, zero, zero, zero, zero, zero},
      [&](OpBuilder &ob, Location loc, Value g, ValueRange it) {
        ImplicitLocOpBuilder lb(loc, ob);
        Value start = it[0], before = it[1];
        Value end =
            LoadScalarOp::create(lb, lb.getI32Type(), offsets, ValueRange{g});
        Value rows = arith::MaxSIOp::create(
            lb, arith::SubIOp::create(lb, end, start), zero);
        Value tiles = arith::MulIOp::create(
            lb, arith::CeilDivSIOp::create(lb, rows, blockM), tilesN);
        Value local = arith::SubIOp::create(lb, pid, before);
        // pid - before in [0, tiles) (a negative one compares as large).
        Value hit =
            arith::CmpIOp::create(lb, arith::CmpIPredicate::ult, local, tiles);
        auto pick = [&](Value ifHit, Value otherwise) -> Value {
          return arith::SelectOp::create(lb, hit, ifHit, otherwise);
        };
        scf::YieldOp::create(
            lb, ValueRange{end, arith::AddIOp::create(lb, before, tiles),
                           pick(g, it[2]), pick(start, it[3]),
                           pick(rows, it[4]), pick(local, it[5])});
      });
  Value group = scan.getResult(2), rowStart = scan.getResult(3);
  Value rows = scan.getResult(4), local = scan.getResult(5);
  // (At least one row, so that an empty tile's coordinates divide by a
  // non-zero count.)
  auto [m0, n0] = emitTileCoords(
      b, local, arith::MaxSIOp::create(b, rows, constI32(b, 1)), N, c);
  Value empty = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rows, zero);
  return {group, arith::AddIOp::create(b, rowStart, m0), n0,
          arith::AddIOp::create(b, rowStart, rows), empty};
}

/// Indices of a tile at (`row`, `col`) of matrix `batch` (null: a 2-D view).
static SmallVector<Value> tileIndices(Value batch, Value row, Value col) {
  if (batch)
    return {batch, row, col};
  return {row, col};
}

/// The rows of C in a [BM, BN] tile at (m0, n0) that lie before `rowEnd`
/// (a grouped GEMM's group end), as a store mask (null without a row end).
/// With `c.swapAB` the tile is Cᵀ's: C's rows are its columns.
static Value emitRowMask(ImplicitLocOpBuilder &b, Value m0, Value n0,
                         Value rowEnd, const GemmConfig &c) {
  if (!rowEnd)
    return Value();
  int64_t extent = c.swapAB ? c.blockN : c.blockM;
  auto rowsType = RankedTensorType::get({extent}, b.getI32Type());
  Value rows =
      arith::AddIOp::create(b, RangeOp::create(b, rowsType, 0, extent),
                            SplatOp::create(b, rowsType, c.swapAB ? n0 : m0));
  Value inRows = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, rows,
                                       SplatOp::create(b, rowsType, rowEnd));
  return broadcastAlong(b, inRows, c.swapAB ? 0 : 1, {c.blockM, c.blockN});
}

/// C[m0:, n0:] = act(alpha * acc + beta * C + bias), computed in f32 and
/// stored in C's type (tile-tma-store may turn the store into a TMA store)
/// through `cv`; with `rowEnd`, only C's rows before it are written. With
/// `c.swapAB`, the tile and `cv` are Cᵀ's: the bias and B's column scales
/// run along its rows, A's row scales along its columns.
static void emitGemmEpilogue(ImplicitLocOpBuilder &b, GemmOp op, Value acc,
                             Value cv, Value batch, Value m0, Value n0,
                             Value rowEnd, const GemmConfig &c) {
  Type outType = op.getC().getType().getElementType();
  Value mask = emitRowMask(b, m0, n0, rowEnd, c);
  // i8 x i8 -> i32 stores its exact sums (the verifier allows no epilogue).
  if (outType.isInteger(32)) {
    StoreOp::create(b, acc, cv, tileIndices(batch, m0, n0), mask);
    return;
  }
  SmallVector<int64_t> accShape = {c.blockM, c.blockN};
  auto accType = RankedTensorType::get(accShape, b.getF32Type());
  if (Value alpha = op.getAlpha())
    acc = arith::MulFOp::create(b, acc, SplatOp::create(b, accType, alpha));
  // Row scales (scale_a[m]) and column scales (scale_b[n]), broadcast
  // across the tile.
  // (Block scales were applied to each K block's product in the loop.)
  std::tuple<Value, Value, int64_t, unsigned> scales[] = {
      {op.getScaleA(), m0, c.blockM, 1}, {op.getScaleB(), n0, c.blockN, 0}};
  if (c.swapAB) {
    scales[0] = {op.getScaleA(), n0, c.blockN, 0};
    scales[1] = {op.getScaleB(), m0, c.blockM, 1};
  }
  for (auto [scale, at, extent, alongDim] : scales) {
    if (!scale || op.isBlockScaled())
      continue;
    auto vec = RankedTensorType::get({extent}, b.getF32Type());
    Value t = LoadOp::create(b, vec, scale, ValueRange{at}, Value(),
                             Padding::Zero);
    acc = arith::MulFOp::create(b, acc,
                                broadcastAlong(b, t, alongDim, accShape));
  }
  auto cTile = RankedTensorType::get(accShape, outType);
  if (Value beta = op.getBeta()) {
    // C is read only when beta != 0 (it may be uninitialized otherwise).
    Value nonZero = arith::CmpFOp::create(
        b, arith::CmpFPredicate::UNE, beta,
        arith::ConstantOp::create(b, b.getF32FloatAttr(0.0)));
    auto ifOp = scf::IfOp::create(
        b, nonZero,
        [&](OpBuilder &ob, Location loc) {
          ImplicitLocOpBuilder ib(loc, ob);
          Value tc = LoadOp::create(ib, cTile, cv, tileIndices(batch, m0, n0),
                                    Value(), Padding::Zero);
          if (!outType.isF32())
            tc = arith::ExtFOp::create(ib, accType, tc);
          Value scaled =
              arith::MulFOp::create(ib, tc, SplatOp::create(ib, accType, beta));
          scf::YieldOp::create(ib, ValueRange{
                                       arith::AddFOp::create(ib, acc, scaled)});
        },
        [&](OpBuilder &ob, Location loc) {
          scf::YieldOp::create(ob, loc, acc);
        });
    acc = ifOp.getResult(0);
  }
  if (Value bias = op.getBias()) {
    Type biasType = cast<ViewType>(bias.getType()).getElementType();
    // (Per column of C: along the tile's rows when it is Cᵀ's.)
    int64_t extent = c.swapAB ? c.blockM : c.blockN;
    auto row = RankedTensorType::get({extent}, biasType);
    Value tb = LoadOp::create(b, row, bias, ValueRange{c.swapAB ? m0 : n0},
                              Value(), Padding::Zero);
    if (!biasType.isF32())
      tb = arith::ExtFOp::create(
          b, RankedTensorType::get({extent}, b.getF32Type()), tb);
    acc = arith::AddFOp::create(
        b, acc, broadcastAlong(b, tb, c.swapAB ? 1 : 0, accShape));
  }
  acc = applyActivation(b, acc, op.getActivation(), accShape);
  Value out = outType.isF32() ? acc : arith::TruncFOp::create(b, cTile, acc);
  StoreOp::create(b, out, cv, tileIndices(batch, m0, n0), mask);
}

/// The A and B tiles of K step `k` of matrices `aBatch` and `bBatch` (null:
/// 2-D views), zero past the views' sizes.
static std::pair<Value, Value>
loadOperandTiles(ImplicitLocOpBuilder &b, Value a, Value bv,
                 RankedTensorType aTile, RankedTensorType bTile, Value aBatch,
                 Value bBatch, Value m0, Value n0, Value k) {
  Value ta = LoadOp::create(b, aTile, a, tileIndices(aBatch, m0, k), Value(),
                            Padding::Zero);
  Value tb = LoadOp::create(b, bTile, bv, tileIndices(bBatch, k, n0), Value(),
                            Padding::Zero);
  return {ta, tb};
}

/// One K step of a GEMM loop body: the operand tiles of step `k` (of
/// matrices `aBatch` and `bBatch`) multiplied into `acc`, yielded.
static void emitKStep(ImplicitLocOpBuilder &lb, GemmOp op, Value a, Value bv,
                      RankedTensorType aTile, RankedTensorType bTile,
                      Value aBatch, Value bBatch, Value m0, Value n0, Value k,
                      Value acc) {
  auto [ta, tb] =
      loadOperandTiles(lb, a, bv, aTile, bTile, aBatch, bBatch, m0, n0, k);
  Value d = DotOp::create(lb, acc.getType(), ta, tb, acc, op.getPrecision());
  scf::YieldOp::create(lb, d);
}

/// The K loop of a GEMM over K steps [kBegin, kEnd) (null kBegin: from 0):
/// result 0 is the sum of their products.
static scf::ForOp emitGemmLoop(ImplicitLocOpBuilder &b, GemmOp op, Value a,
                               Value bv, Value kBegin, Value kEnd, Value aBatch,
                               Value bBatch, Value m0, Value n0,
                               RankedTensorType aTile, RankedTensorType bTile,
                               Value zero, const GemmConfig &c) {
  if (!kBegin)
    kBegin = constI32(b, 0);
  return scf::ForOp::create(
      b, kBegin, kEnd, constI32(b, c.blockK), ValueRange{zero},
      [&](OpBuilder &ob, Location loc, Value k, ValueRange iters) {
        ImplicitLocOpBuilder lb(loc, ob);
        emitKStep(lb, op, a, bv, aTile, bTile, aBatch, bBatch, m0, n0, k,
                  iters[0]);
      });
}

/// The K loop of a batch-reduce GEMM: one loop over the K steps of every
/// matrix of the batch in turn (step t: matrix t / steps, K offset
/// (t % steps) * BK; a matrix's last step reads zeros past K), so that the
/// pipeliners see one loop. Result 0 is the sum of all the products.
static scf::ForOp emitBatchReduceLoop(ImplicitLocOpBuilder &b, GemmOp op,
                                      Value a, Value bv, Value K, Value batch,
                                      Value m0, Value n0,
                                      RankedTensorType aTile,
                                      RankedTensorType bTile, Value zero,
                                      const GemmConfig &c) {
  Value blockK = constI32(b, c.blockK);
  Value steps = arith::CeilDivSIOp::create(b, K, blockK);
  Value total = arith::MulIOp::create(b, steps, batch);
  return scf::ForOp::create(
      b, constI32(b, 0), total, constI32(b, 1), ValueRange{zero},
      [&](OpBuilder &ob, Location loc, Value t, ValueRange iters) {
        ImplicitLocOpBuilder lb(loc, ob);
        Value matrix = arith::DivSIOp::create(lb, t, steps);
        Value k = arith::MulIOp::create(
            lb, arith::RemSIOp::create(lb, t, steps), blockK);
        emitKStep(lb, op, a, bv, aTile, bTile, matrix, matrix, m0, n0, k,
                  iters[0]);
      });
}

/// The K loop of a block-scaled GEMM (DeepGEMM's recipe). Each K step's
/// product goes into a fresh accumulator (FP8 wgmma accumulates in reduced
/// precision), is scaled by its rows' 1x128 scales and the tile's 128x128
/// B scale (the config keeps a tile's columns and a K step inside one
/// block), and is added to the f32 sum in one FMA. The scales of the next
/// step are loaded one step ahead (zero past the last block), so that
/// their latency hides behind the step's wgmma. Result 0 is the sum.
static scf::ForOp emitBlockScaledLoop(ImplicitLocOpBuilder &b, GemmOp op,
                                      Value a, Value bv, Value K, Value m0,
                                      Value n0, RankedTensorType aTile,
                                      RankedTensorType bTile, Value zero,
                                      const GemmConfig &c) {
  Value block = constI32(b, GemmOp::kScaleBlock);
  Value nb = arith::DivSIOp::create(b, n0, block);
  auto f32 = b.getF32Type();
  auto rows = RankedTensorType::get({c.blockM}, f32);
  auto one = RankedTensorType::get({1}, f32);
  auto loadScales = [&](ImplicitLocOpBuilder &lb, Value k) {
    Value kb = arith::DivSIOp::create(lb, k, block);
    Value sa = LoadOp::create(lb, rows, op.getScaleA(), ValueRange{kb, m0},
                              Value(), Padding::Zero);
    Value sb = LoadOp::create(lb, one, op.getScaleB(), ValueRange{nb, kb},
                              Value(), Padding::Zero);
    return std::make_pair(sa, sb);
  };
  auto [sa0, sb0] = loadScales(b, constI32(b, 0));
  SmallVector<int64_t> accShape = {c.blockM, c.blockN};
  auto loop = scf::ForOp::create(
      b, constI32(b, 0), K, constI32(b, c.blockK), ValueRange{zero, sa0, sb0},
      [&](OpBuilder &ob, Location loc, Value k, ValueRange iters) {
        ImplicitLocOpBuilder lb(loc, ob);
        auto [ta, tb] =
            loadOperandTiles(lb, a, bv, aTile, bTile,
                             /*aBatch=*/Value(), /*bBatch=*/Value(), m0, n0, k);
        auto [saNext, sbNext] = loadScales(
            lb, arith::AddIOp::create(lb, k, constI32(lb, c.blockK)));
        Value d =
            DotOp::create(lb, zero.getType(), ta, tb, zero, op.getPrecision());
        Value rowScale = arith::MulFOp::create(
            lb, iters[1], BroadcastOp::create(lb, rows, iters[2]));
        Value sum = math::FmaOp::create(
            lb, d, broadcastAlong(lb, rowScale, 1, accShape), iters[0]);
        scf::YieldOp::create(lb, ValueRange{sum, saNext, sbNext});
      });
  return loop;
}

/// The launch grid of a GEMM of M x N (a batch of them, or E groups
/// stacked in M rows): ceildiv(M, BM) * ceildiv(N, BN) programs along x per
/// matrix, times `perTile` (split-K's K ranges; at most one program per SM
/// for the persistent kernel), as a rule over the kernel's parameters.
static LogicalResult setGemmGrid(GemmOp op, KernelOp kernel, Value M, Value N,
                                 Value batchSize, Value numGroups,
                                 const GemmConfig &c, int64_t perTile = 1) {
  SmallVector<int64_t> params;
  FailureOr<AffineExpr> mExpr = getParamExpr(M, kernel, params);
  FailureOr<AffineExpr> nExpr = getParamExpr(N, kernel, params);
  if (failed(mExpr) || failed(nExpr))
    return op.emitOpError("M and N must be kernel parameters or constants "
                          "(they define the launch grid)");
  // Clusters: one program per block tile of whole cluster tiles.
  AffineExpr grid = mExpr->ceilDiv(c.blockM * c.clusterM) *
                    nExpr->ceilDiv(c.blockN * c.clusterN) *
                    (c.clusterM * c.clusterN);
  if (batchSize) {
    FailureOr<AffineExpr> batchExpr = getParamExpr(batchSize, kernel, params);
    if (failed(batchExpr))
      return op.emitOpError("the batch size must be a kernel parameter or a "
                            "constant (it defines the launch grid)");
    grid = grid * *batchExpr;
  }
  if (numGroups) {
    FailureOr<AffineExpr> groupsExpr = getParamExpr(numGroups, kernel, params);
    if (failed(groupsExpr))
      return op.emitOpError("the number of groups (group_offsets' size) must "
                            "be a kernel parameter or a constant (it bounds "
                            "the launch grid)");
    // Each group adds at most one partial tile of its rows to ceildiv(M,
    // BM) (transposed, swap_ab: of its columns to ceildiv(N, BN)).
    if (c.swapAB)
      grid =
          (nExpr->ceilDiv(c.blockN) + *groupsExpr) * mExpr->ceilDiv(c.blockM);
    else
      grid =
          (mExpr->ceilDiv(c.blockM) + *groupsExpr) * nExpr->ceilDiv(c.blockN);
  }
  grid = grid * perTile;
  kernel.setGridRule(AffineMap::get(0, params.size(), grid, op.getContext()),
                     params);
  return success();
}

/// The views of the transposed product Cᵀ = Bᵀ Aᵀ (swap_ab): Bᵀ, Aᵀ, Cᵀ
/// and the split-K workspace's transposed matrices (where it has one), in
/// place of `a`, `bv`, `cv` and `ws`.
static LogicalResult transposeForSwapAB(ImplicitLocOpBuilder &b, GemmOp op,
                                        Value &a, Value &bv, Value &cv,
                                        Value &ws) {
  SmallVector<Value *> views = {&bv, &a, &cv};
  if (ws)
    views.push_back(&ws);
  SmallVector<Value> transposed;
  for (Value *view : views) {
    auto make = view->getDefiningOp<MakeViewOp>();
    if (!make)
      return op.emitOpError("swap_ab needs views made by tile.make_view");
    transposed.push_back(make.createTransposed(b, b.getLoc()));
  }
  a = transposed[0];
  bv = transposed[1];
  cv = transposed[2];
  if (ws)
    ws = transposed[3];
  return success();
}

/// Whether the TMA-store epilogue of `c` can take C's N (TMA stores write
/// whole 16-byte chunks of a row: C's columns up to the next multiple of 8
/// past N would be written). A constant N that is not a multiple keeps the
/// plain epilogue (runtimes dispatch other N to a tma_store = 0 variant),
/// unless the op's config asks for the TMA store; a parameter N is required
/// to be one.
static FailureOr<bool> canStoreByTma(GemmOp op, KernelOp kernel, Value N,
                                     const GemmConfig &c) {
  if (!c.tmaStore)
    return false;
  int64_t chunk = getChunkElems(op.getC().getType().getElementType());
  APInt value;
  if (!matchPattern(N, m_ConstantInt(&value))) {
    requireParam(kernel, N, tile::kDivisibilityAttr, chunk);
    return true;
  }
  if (value.getSExtValue() % chunk == 0)
    return true;
  if (op.getConfigAttr() && op.getConfigAttr().getTmaStore())
    return op.emitOpError("tma_store needs N to be a multiple of ")
           << chunk << ", got " << value.getSExtValue();
  return false;
}

/// Split-K range `split` of K: ceildiv(ceildiv(K, BK), splitK) K steps each
/// (the last ones shorter or empty), as [begin, end).
static std::pair<Value, Value> emitSplitKRange(ImplicitLocOpBuilder &b,
                                               Value split, Value K,
                                               const GemmConfig &c) {
  Value blockK = constI32(b, c.blockK);
  Value steps = arith::CeilDivSIOp::create(b, K, blockK);
  Value perRange = arith::MulIOp::create(
      b, arith::CeilDivSIOp::create(b, steps, constI32(b, c.splitK)), blockK);
  Value begin = arith::MulIOp::create(b, split, perRange);
  Value end =
      arith::MinSIOp::create(b, K, arith::AddIOp::create(b, begin, perRange));
  // (An empty range runs no step and stores zeros.)
  return {begin, arith::MaxSIOp::create(b, begin, end)};
}

/// Tiles along M and N of the [BM, BN] blocks of an M x N product.
static Value emitTileCount(ImplicitLocOpBuilder &b, Value M, Value N,
                           const GemmConfig &c) {
  return arith::MulIOp::create(
      b, arith::CeilDivSIOp::create(b, M, constI32(b, c.blockM)),
      arith::CeilDivSIOp::create(b, N, constI32(b, c.blockN)));
}

/// Rows and columns of the reduce stage's tile of C, and its warps (each
/// thread adds 32 f32 values per partial product).
static constexpr int64_t kSplitKReduceRows = 32;
static constexpr int64_t kSplitKReduceCols = 128;
static constexpr int64_t kSplitKReduceWarps = 4;

/// The reduce stage of a split-K GEMM: each program adds the split_k
/// partial products of its tile of C in range order (so the sum is the same
/// bits on every run) and applies the epilogue once, in C's orientation
/// whatever the partial stage's (swap_ab).
static LogicalResult expandSplitKReduce(GemmOp op, KernelOp kernel,
                                        const GemmConfig &partial) {
  ImplicitLocOpBuilder b(op.getLoc(), op);
  Value ws = op.getWorkspace(), cv = op.getC();
  Value M = getViewSize(b, cv, 0), N = getViewSize(b, cv, 1);
  GemmConfig c = partial;
  c.blockM = kSplitKReduceRows;
  c.blockN = kSplitKReduceCols;
  c.swapAB = false;
  if (failed(setGemmGrid(op, kernel, M, N, Value(), Value(), c)))
    return failure();
  kernel.setNumWarps(kSplitKReduceWarps);
  requireChunkAligned(kernel, ws);
  keepCpAsyncRing(kernel);
  auto [m0, n0] = emitTileCoords(b, ProgramIdOp::create(b, Dim::X), M, N, c);
  auto tile = RankedTensorType::get({c.blockM, c.blockN}, b.getF32Type());
  auto sum = scf::ForOp::create(
      b, constI32(b, 0), constI32(b, c.splitK), constI32(b, 1),
      ValueRange{splatF32(b, tile.getShape(), 0.0)},
      [&](OpBuilder &ob, Location loc, Value split, ValueRange iters) {
        ImplicitLocOpBuilder lb(loc, ob);
        Value t = LoadOp::create(lb, tile, ws, ValueRange{split, m0, n0},
                                 Value(), Padding::Zero);
        scf::YieldOp::create(
            lb, ValueRange{arith::AddFOp::create(lb, iters[0], t)});
      });
  emitGemmEpilogue(b, op, sum.getResult(0), cv, Value(), m0, n0, Value(), c);
  op.erase();
  return success();
}

/// Sets the kernel's schedule to what `c` chose (`tmaStore`: whether the
/// epilogue may leave through a TMA store) and its clusters.
static void setGemmSchedule(KernelOp kernel, const GemmConfig &c,
                            bool tmaStore) {
  if (c.warpSpecialize)
    setWarpSpecializedSchedule(kernel, c.stages, c.producerRegs, c.consumerRegs,
                               /*persistent=*/true, tmaStore, std::nullopt);
  else
    keepCpAsyncRing(kernel);
  int64_t clusterSize = c.clusterM * c.clusterN;
  if (clusterSize > 1)
    kernel.setCluster(
        ArrayRef<int32_t>{static_cast<int32_t>(clusterSize), 1, 1});
}

/// The K loop of `op`'s program for the tile at (m0, n0): over K steps
/// [kBegin, kEnd) (null kBegin: from 0) of matrices `aBatch` (A) and
/// `bBatch` (B), or, for a batch-reduce GEMM, every step of the
/// `batchSize` matrices.
static scf::ForOp emitProgramLoop(ImplicitLocOpBuilder &b, GemmOp op, Value a,
                                  Value bv, Value K, Value kBegin, Value kEnd,
                                  Value batchSize, Value aBatch, Value bBatch,
                                  Value m0, Value n0, const GemmConfig &c) {
  // (fp8 A and B may differ: e4m3 x e5m2.)
  Type aType = op.getA().getType().getElementType();
  Type bType = op.getB().getType().getElementType();
  SmallVector<int64_t> accShape = {c.blockM, c.blockN};
  // f32 sums, or i32 ones for i8 inputs.
  bool int8 = aType.isInteger(8);
  auto accType = RankedTensorType::get(accShape, int8 ? Type(b.getI32Type())
                                                      : b.getF32Type());
  auto aTile = RankedTensorType::get({c.blockM, c.blockK}, aType);
  auto bTile = RankedTensorType::get({c.blockK, c.blockN}, bType);
  Value zero =
      int8 ? Value(arith::ConstantOp::create(
                 b, DenseElementsAttr::get(accType, b.getI32IntegerAttr(0))))
           : splatF32(b, accShape, 0.0);
  // (A block-scaled loop takes the same schedule; tile-async-wgmma keeps
  // its wgmma synchronous, since the sum is not the dot's accumulator.)
  if (op.isBlockScaled())
    return emitBlockScaledLoop(b, op, a, bv, K, m0, n0, aTile, bTile, zero, c);
  if (op.isBatchReduce())
    return emitBatchReduceLoop(b, op, a, bv, K, batchSize, m0, n0, aTile, bTile,
                               zero, c);
  return emitGemmLoop(b, op, a, bv, kBegin, kEnd, aBatch, bBatch, m0, n0, aTile,
                      bTile, zero, c);
}

static LogicalResult expandGemm(GemmOp op, KernelOp kernel,
                                const TargetInfo &target) {
  if (failed(checkOnlyComputation(kernel, op)))
    return failure();
  FailureOr<GemmConfig> config = getGemmConfig(op, target);
  if (failed(config))
    return failure();
  const GemmConfig &c = *config;
  // Split-K is two kernels: the partial products (below) and their sum.
  std::optional<GemmStage> stage = op.getStage();
  if (c.splitK > 1 && !stage)
    return op.emitOpError("split_k = ")
           << c.splitK
           << " needs a stage to be expanded: the GEMM is two kernels, the "
              "partial products and their sum (tile-split-stages makes one "
              "per stage)";
  if (stage == GemmStage::Reduce)
    return expandSplitKReduce(op, kernel, c);

  ImplicitLocOpBuilder b(op.getLoc(), op);
  Value a = op.getA(), bv = op.getB(), cv = op.getC(), ws = op.getWorkspace();
  // Matrix dimensions start at `o`; a batched GEMM's views lead with the
  // batch.
  unsigned o = op.getBatchRank();
  Value M = getViewSize(b, a, o), K = getViewSize(b, a, o + 1);
  Value N = getViewSize(b, cv, op.getC().getType().getRank() - 1);
  // The transposed product Cᵀ = Bᵀ Aᵀ: from here on the block program
  // computes a GEMM of N x M (2-D or grouped views, as getGemmConfig
  // checked).
  if (c.swapAB) {
    if (failed(transposeForSwapAB(b, op, a, bv, cv, ws)))
      return failure();
    std::swap(M, N);
  }
  Value batchSize = o ? getViewSize(b, a, 0) : Value();
  Value offsets = op.getGroupOffsets();
  Value numGroups = offsets ? getViewSize(b, offsets, 0) : Value();

  // (A batch-reduce GEMM's programs are C's tiles alone.)
  bool reduce = op.isBatchReduce();
  if (failed(setGemmGrid(op, kernel, M, N, reduce ? Value() : batchSize,
                         numGroups, c, c.splitK)))
    return failure();
  kernel.setNumWarps(c.warps);
  FailureOr<bool> tmaStore = canStoreByTma(op, kernel, N, c);
  if (failed(tmaStore))
    return failure();

  // cp.async and TMA load (and the TMA store of C) copy 16-byte chunks;
  // `aligned = false` asks for none of it (any strides: plain loads).
  if (c.aligned) {
    requireChunkAligned(kernel, a);
    requireChunkAligned(kernel, bv);
    if (*tmaStore)
      requireChunkAligned(kernel, cv);
  }
  // (Both stages read the workspace with 16-byte vectors.)
  if (ws)
    requireChunkAligned(kernel, op.getWorkspace());

  // The block program; its schedule says what the config chose.
  setGemmSchedule(kernel, c, *tmaStore);
  Value pid = ProgramIdOp::create(b, Dim::X);
  // Batched: matrix pid / tiles, tile pid % tiles (a matrix's tiles run
  // next to each other, in grouped order); split-K: K range pid / tiles.
  Value batch, split;
  if ((batchSize && !reduce) || ws) {
    Value tiles = emitTileCount(b, M, N, c);
    (ws ? split : batch) = arith::DivSIOp::create(b, pid, tiles);
    pid = arith::RemSIOp::create(b, pid, tiles);
  }
  // Grouped: B's matrix is the tile's group, C's rows end with the group's,
  // and an empty tile runs no K step.
  Value aBatch = batch, bBatch = batch, rowEnd, kBegin, kEnd = K;
  Value m0, n0;
  if (numGroups) {
    // (Transposed: the groups split the product's columns, A's rows, and
    // the group indexes its left operand, B's transpose.)
    GemmConfig groupTiles = c;
    if (c.swapAB)
      std::swap(groupTiles.blockM, groupTiles.blockN);
    GroupTile t = emitGroupTileCoords(b, offsets, numGroups, pid,
                                      c.swapAB ? M : N, groupTiles);
    m0 = c.swapAB ? t.n0 : t.m0;
    n0 = c.swapAB ? t.m0 : t.n0;
    (c.swapAB ? aBatch : bBatch) = t.group;
    rowEnd = t.rowEnd;
    kEnd = arith::SelectOp::create(b, t.empty, constI32(b, 0), K);
  } else {
    std::tie(m0, n0) = c.clusterM * c.clusterN > 1
                           ? emitClusterTileCoords(b, pid, M, N, c)
                           : emitTileCoords(b, pid, M, N, c);
  }
  if (split)
    std::tie(kBegin, kEnd) = emitSplitKRange(b, split, K, c);
  scf::ForOp loop = emitProgramLoop(b, op, a, bv, K, kBegin, kEnd, batchSize,
                                    aBatch, bBatch, m0, n0, c);
  // The warp-specialized schedule carries the depth of its TMA ring; a
  // loop attribute would also ask tile-pipeline for a cp.async ring (and,
  // finding the loads taken, for a drain and a barrier before every tile).
  if (!c.warpSpecialize)
    loop->setAttr(tile::kNumStagesAttr, b.getI64IntegerAttr(c.stages));
  // Split-K's partial stage stores the range's sums as they are (the reduce
  // stage applies the epilogue to their total).
  if (split)
    StoreOp::create(b, loop.getResult(0), ws, ValueRange{split, m0, n0},
                    Value());
  else
    emitGemmEpilogue(b, op, loop.getResult(0), cv, batch, m0, n0, rowEnd, c);
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct TileExpandNamedOpsPass
    : tile::impl::TileExpandNamedOpsBase<TileExpandNamedOpsPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileExpandNamedOpsPass::runOnOperation() {
  KernelOp kernel = getOperation();
  SmallVector<Operation *> named;
  kernel.walk([&](Operation *op) {
    if (isa<GemmOp, AttentionOp, AttentionBackwardOp>(op))
      named.push_back(op);
  });
  if (named.empty())
    return;
  if (named.size() > 1) {
    named[1]->emitOpError("a kernel may hold only one named op");
    return signalPassFailure();
  }
  FailureOr<TargetInfo> target = resolveTarget(kernel, chip);
  if (failed(target))
    return signalPassFailure();
  LogicalResult result = success();
  if (auto gemm = dyn_cast<GemmOp>(named[0]))
    result = expandGemm(gemm, kernel, *target);
  else if (auto attention = dyn_cast<AttentionOp>(named[0]))
    result = expandAttention(attention, kernel, *target);
  else
    result = expandAttentionBackward(cast<AttentionBackwardOp>(named[0]),
                                     kernel, *target);
  if (failed(result))
    return signalPassFailure();
  // The level boundary (DESIGN.md, "The levels"): the expansion writes a
  // block program; only the scheduling passes create hardware-level ops.
  if (kernel->hasAttr(kHandScheduledAttr))
    return;
  WalkResult crossed = kernel.walk([&](Operation *op) {
    if (!op->hasTrait<HardwareLevel>())
      return WalkResult::advance();
    op->emitError("tile-expand-named-ops created the hardware-level op '")
        << op->getName()
        << "'; only the scheduling passes may create such ops (an "
           "internal error of the expansion)";
    return WalkResult::interrupt();
  });
  if (crossed.wasInterrupted())
    signalPassFailure();
}
