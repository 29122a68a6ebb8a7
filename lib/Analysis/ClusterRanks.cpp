//===- ClusterRanks.cpp - How values differ across a cluster --------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The facts the analysis starts from, for cluster(n, 1, 1):
//   program_id x   = c * n + r     (a cluster's programs are consecutive)
//   num_programs x = a multiple of n (grids are whole clusters; the runtime
//                                     caps persistent grids at a multiple)
//   cluster_rank   = r
//   program_id y, z, num_programs y, z, kernel parameters: the same in all.
// Sums, products by constants, and quotients and remainders by a constant k
// that divides U's alignment carry a known table f; anything computed from
// uniform values alone is uniform; everything else is unknown.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/ClusterRanks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

/// Values past this bound are not tracked (no overflow in the tables).
static constexpr int64_t kMaxTracked = int64_t(1) << 40;

/// a * b, or nullopt on overflow.
static std::optional<int64_t> multiply(int64_t a, int64_t b) {
  return llvm::checkedMul(a, b);
}

/// An alignment a * b; 1 (every integer is a multiple of it) on overflow.
static int64_t multiplyAlign(int64_t a, int64_t b) {
  return multiply(a, b).value_or(1);
}

static int64_t floorDivide(int64_t a, int64_t k) {
  return a / k - ((a % k != 0) && ((a < 0) != (k < 0)));
}
static int64_t ceilDivide(int64_t a, int64_t k) {
  return -floorDivide(-a, k);
}
static int64_t floorMod(int64_t a, int64_t k) {
  return a - floorDivide(a, k) * k;
}

bool RankValue::isUniform() const {
  return llvm::all_equal(f);
}

std::optional<int64_t> RankValue::getConstant() const {
  if (align != 0 || !isUniform())
    return std::nullopt;
  return f.front();
}

/// The alignment of a uniform value U + c: a multiple of gcd(align, c).
static int64_t getUniformAlign(const RankValue &v) {
  return std::gcd(v.align, std::abs(v.f.front()));
}

ClusterRankAnalysis::ClusterRankAnalysis(KernelOp kernel) {
  std::optional<ArrayRef<int32_t>> cluster = kernel.getCluster();
  if (cluster && (*cluster)[1] == 1 && (*cluster)[2] == 1)
    size = (*cluster)[0];
}

std::optional<RankValue> ClusterRankAnalysis::lookup(Value v) {
  auto it = cache.find(v);
  if (it != cache.end())
    return it->second;
  std::optional<RankValue> result = compute(v);
  if (result && llvm::any_of(result->f, [](int64_t x) {
        return std::abs(x) > kMaxTracked;
      }))
    result.reset();
  cache[v] = result;
  return result;
}

std::optional<RankValue> ClusterRankAnalysis::compute(Value v) {
  if (size <= 1 || !v.getType().isIntOrIndex())
    return std::nullopt;
  RankValue uniform{1, SmallVector<int64_t>(size, 0), false};
  if (auto result = dyn_cast<OpResult>(v))
    return computeResult(result);
  auto arg = cast<BlockArgument>(v);
  Operation *owner = arg.getOwner()->getParentOp();
  if (isa<KernelOp>(owner))
    return uniform;
  auto loop = dyn_cast<scf::ForOp>(owner);
  if (!loop || arg != loop.getInductionVar())
    return std::nullopt;
  // lb + i * step: the step's alignment joins the lower bound's.
  std::optional<RankValue> lb = lookup(loop.getLowerBound());
  std::optional<RankValue> step = lookup(loop.getStep());
  if (!lb || !step || !step->isUniform())
    return std::nullopt;
  RankValue iv = *lb;
  iv.align = std::gcd(lb->align, getUniformAlign(*step));
  return iv;
}

std::optional<RankValue> ClusterRankAnalysis::computeResult(OpResult v) {
  Operation *op = v.getOwner();
  RankValue uniform{1, SmallVector<int64_t>(size, 0), false};
  SmallVector<int64_t> ranks(size);
  std::iota(ranks.begin(), ranks.end(), 0);

  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto attr = dyn_cast<IntegerAttr>(c.getValue());
    if (!attr)
      return std::nullopt;
    if (attr.getValue().getSignificantBits() > 41)
      return std::nullopt;
    int64_t x = attr.getValue().getSExtValue();
    return RankValue{0, SmallVector<int64_t>(size, x), x >= 0};
  }
  if (auto pid = dyn_cast<ProgramIdOp>(op)) {
    if (pid.getDim() != Dim::X)
      return RankValue{1, SmallVector<int64_t>(size, 0), true};
    return RankValue{size, ranks, true};
  }
  if (auto num = dyn_cast<NumProgramsOp>(op))
    return RankValue{num.getDim() == Dim::X ? size : 1,
                     SmallVector<int64_t>(size, 0), true};
  if (isa<ClusterRankOp>(op))
    return RankValue{0, ranks, true};

  // Ops of one or two known operands.
  SmallVector<RankValue, 2> in;
  for (Value operand : op->getOperands()) {
    std::optional<RankValue> x = lookup(operand);
    if (!x)
      return std::nullopt;
    in.push_back(*x);
  }
  auto map = [&](auto fn) {
    SmallVector<int64_t> out;
    for (int64_t r = 0; r < size; ++r)
      out.push_back(fn(r));
    return out;
  };
  if (isa<arith::IndexCastOp, arith::ExtSIOp>(op) ||
      (isa<arith::ExtUIOp>(op) && in[0].nonNegative))
    return in[0];
  if (isa<arith::AddIOp>(op))
    return RankValue{std::gcd(in[0].align, in[1].align),
                     map([&](int64_t r) { return in[0].f[r] + in[1].f[r]; }),
                     in[0].nonNegative && in[1].nonNegative};
  if (isa<arith::SubIOp>(op))
    return RankValue{std::gcd(in[0].align, in[1].align),
                     map([&](int64_t r) { return in[0].f[r] - in[1].f[r]; }),
                     false};
  if (isa<arith::MulIOp>(op)) {
    for (int i = 0; i < 2; ++i) {
      std::optional<int64_t> c = in[1 - i].getConstant();
      if (!c)
        continue;
      RankValue out{multiplyAlign(in[i].align, std::abs(*c)), {},
                    in[i].nonNegative && *c >= 0};
      for (int64_t x : in[i].f) {
        std::optional<int64_t> y = multiply(x, *c);
        if (!y)
          return std::nullopt;
        out.f.push_back(*y);
      }
      return out;
    }
  }
  // Quotients and remainders by a constant k: with U a multiple of k,
  // floor((U + f) / k) = U / k + floor(f / k) and (U + f) mod k = f mod k
  // (truncating division agrees with floor on non-negative values).
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp,
          arith::CeilDivSIOp, arith::RemSIOp, arith::RemUIOp>(op) &&
      !in[0].isUniform()) {
    std::optional<int64_t> k = in[1].getConstant();
    if (!k || *k <= 0 || in[0].align % *k != 0)
      return std::nullopt;
    bool floorOk = isa<arith::FloorDivSIOp, arith::CeilDivSIOp>(op) ||
                   in[0].nonNegative;
    if (!floorOk)
      return std::nullopt;
    const RankValue &a = in[0];
    if (isa<arith::RemSIOp, arith::RemUIOp>(op))
      return RankValue{0, map([&](int64_t r) { return floorMod(a.f[r], *k); }),
                       true};
    if (isa<arith::CeilDivSIOp>(op))
      return RankValue{a.align / *k,
                       map([&](int64_t r) { return ceilDivide(a.f[r], *k); }),
                       a.nonNegative};
    return RankValue{a.align / *k,
                     map([&](int64_t r) { return floorDivide(a.f[r], *k); }),
                     a.nonNegative};
  }
  // Anything else of uniform operands is uniform; products of uniform
  // values keep both alignments.
  bool pure = op->getNumOperands() > 0 && op->getNumRegions() == 0 &&
              isMemoryEffectFree(op);
  if (!pure || !llvm::all_of(in, [](const RankValue &x) {
        return x.isUniform();
      }))
    return std::nullopt;
  if (isa<arith::MulIOp>(op))
    uniform.align =
        multiplyAlign(getUniformAlign(in[0]), getUniformAlign(in[1]));
  return uniform;
}

bool ClusterRankAnalysis::hasUniformTripCount(scf::ForOp loop) {
  std::optional<RankValue> lb = lookup(loop.getLowerBound());
  std::optional<RankValue> ub = lookup(loop.getUpperBound());
  std::optional<RankValue> step = lookup(loop.getStep());
  if (!lb || !ub || !step || !step->isUniform())
    return false;
  SmallVector<int64_t> delta;
  for (int64_t r = 0; r < size; ++r)
    delta.push_back(ub->f[r] - lb->f[r]);
  if (llvm::all_equal(delta))
    return true;
  // The trip count max(0, ceil((D + delta[r]) / S)) changes only where
  // D + delta[r] crosses a multiple of S. D = U_ub - U_lb and S are
  // multiples of g; so no program differs when no multiple of g lies in
  // [min delta, max delta).
  int64_t g = std::gcd(std::gcd(ub->align, lb->align), getUniformAlign(*step));
  if (g <= 0)
    return false;
  auto [lo, hi] = std::minmax_element(delta.begin(), delta.end());
  return ceilDivide(*lo, g) * g >= *hi;
}

Value mlir::tilec::tile::createRankTable(OpBuilder &b, Location loc,
                                         Value rank, ArrayRef<int64_t> values) {
  Value table = arith::ConstantIntOp::create(b, loc, values.front(), 32);
  for (auto [r, x] : llvm::enumerate(values)) {
    if (x == values.front())
      continue;
    Value isRank = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, rank,
        arith::ConstantIntOp::create(b, loc, r, 32));
    table = arith::SelectOp::create(
        b, loc, isRank, arith::ConstantIntOp::create(b, loc, x, 32), table);
  }
  return table;
}
