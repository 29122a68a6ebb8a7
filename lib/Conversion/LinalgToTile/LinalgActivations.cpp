//===- LinalgActivations.cpp - Activations in linalg payloads -------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The matchers are structural: a product is flattened into its factors,
// constants are folded (in double precision) and compared with a relative
// tolerance of 1e-6, and every other factor must be the one expected.
//
//===----------------------------------------------------------------------===//

#include "LinalgActivations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tilec::tile;

/// `v` without the extf / truncf around it.
static Value stripCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// The value of a constant, or of a product or quotient of constants.
static std::optional<double> getConstant(Value v) {
  v = stripCasts(v);
  FloatAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.getValueAsDouble();
  Operation *def = v.getDefiningOp();
  if (!isa_and_nonnull<arith::MulFOp, arith::DivFOp>(def))
    return std::nullopt;
  std::optional<double> a = getConstant(def->getOperand(0));
  std::optional<double> b = getConstant(def->getOperand(1));
  if (!a || !b)
    return std::nullopt;
  return isa<arith::MulFOp>(def) ? *a * *b : *a / *b;
}

/// Whether `got` is `want` within the matchers' tolerance (1e-6, relative
/// above 1).
static bool isNear(double got, double want) {
  return std::abs(got - want) <= 1e-6 * std::max(1.0, std::abs(want));
}

static bool isConstant(Value v, double want) {
  std::optional<double> c = getConstant(v);
  return c && isNear(*c, want);
}

/// Whether `v` is `x` (or x - 0, x + 0).
static bool isX(Value v, Value x) {
  v = stripCasts(v);
  if (v == stripCasts(x))
    return true;
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<arith::SubFOp>(def))
    return isX(def->getOperand(0), x) && isConstant(def->getOperand(1), 0.0);
  if (isa_and_nonnull<arith::AddFOp>(def))
    return (isX(def->getOperand(0), x) &&
            isConstant(def->getOperand(1), 0.0)) ||
           (isX(def->getOperand(1), x) && isConstant(def->getOperand(0), 0.0));
  return false;
}

/// Flattens the arith.mulf tree at `v` into `factors`.
static void getFactors(Value v, SmallVectorImpl<Value> &factors) {
  v = stripCasts(v);
  if (auto mul = v.getDefiningOp<arith::MulFOp>()) {
    getFactors(mul.getLhs(), factors);
    getFactors(mul.getRhs(), factors);
    return;
  }
  factors.push_back(v);
}

/// Splits `factors` into the product of the constants and the rest.
static double splitConstants(ArrayRef<Value> factors,
                             SmallVectorImpl<Value> &rest) {
  double k = 1.0;
  for (Value f : factors) {
    if (std::optional<double> c = getConstant(f))
      k *= *c;
    else
      rest.push_back(f);
  }
  return k;
}

/// Whether `v` is `x` times a constant: the product (as flattened factors)
/// of x once and constants, or x divided by a constant. Returns the
/// constant.
static std::optional<double> getScaleOf(Value v, Value x) {
  v = stripCasts(v);
  if (auto div = v.getDefiningOp<arith::DivFOp>()) {
    std::optional<double> d = getConstant(div.getRhs());
    std::optional<double> n = getScaleOf(div.getLhs(), x);
    if (d && n && *d != 0.0)
      return *n / *d;
    return std::nullopt;
  }
  SmallVector<Value> factors, rest;
  getFactors(v, factors);
  double k = splitConstants(factors, rest);
  if (rest.size() != 1 || !isX(rest[0], x))
    return std::nullopt;
  return k;
}

/// Whether `v` is 1 + t (either order) with `isTerm(t)`.
static bool isOnePlus(Value v, function_ref<bool(Value)> isTerm) {
  auto add = stripCasts(v).getDefiningOp<arith::AddFOp>();
  return add && ((isConstant(add.getLhs(), 1.0) && isTerm(add.getRhs())) ||
                 (isConstant(add.getRhs(), 1.0) && isTerm(add.getLhs())));
}

/// Whether `v` is 1 + erf(x / sqrt(2)).
static bool isOnePlusErf(Value v, Value x) {
  return isOnePlus(v, [&](Value t) {
    auto erf = stripCasts(t).getDefiningOp<math::ErfOp>();
    std::optional<double> k =
        erf ? getScaleOf(erf.getOperand(), x) : std::nullopt;
    return k && isNear(*k, M_SQRT1_2);
  });
}

static bool isGelu(Value out, Value x) {
  SmallVector<Value> factors, rest;
  getFactors(out, factors);
  double k = splitConstants(factors, rest);
  if (rest.size() != 2 || !isNear(k, 0.5))
    return false;
  return (isX(rest[0], x) && isOnePlusErf(rest[1], x)) ||
         (isX(rest[1], x) && isOnePlusErf(rest[0], x));
}

/// Whether `v` is -x.
static bool isNegX(Value v, Value x) {
  v = stripCasts(v);
  if (auto neg = v.getDefiningOp<arith::NegFOp>())
    return isX(neg.getOperand(), x);
  if (auto sub = v.getDefiningOp<arith::SubFOp>())
    return isConstant(sub.getLhs(), 0.0) && isX(sub.getRhs(), x);
  std::optional<double> k = getScaleOf(v, x);
  return k && isNear(*k, -1.0);
}

/// Whether `v` is 1 + exp(-x).
static bool isOnePlusExpNegX(Value v, Value x) {
  return isOnePlus(v, [&](Value t) {
    auto exp = stripCasts(t).getDefiningOp<math::ExpOp>();
    return exp && isNegX(exp.getOperand(), x);
  });
}

static bool isSilu(Value out, Value x) {
  out = stripCasts(out);
  // x / (1 + exp(-x))
  if (auto div = out.getDefiningOp<arith::DivFOp>())
    return isX(div.getLhs(), x) && isOnePlusExpNegX(div.getRhs(), x);
  // x * sigmoid(x), sigmoid(x) = 1 / (1 + exp(-x))
  SmallVector<Value> factors, rest;
  getFactors(out, factors);
  double k = splitConstants(factors, rest);
  if (rest.size() != 2 || !isNear(k, 1.0))
    return false;
  auto isSigmoid = [&](Value v) {
    auto div = stripCasts(v).getDefiningOp<arith::DivFOp>();
    return div && isConstant(div.getLhs(), 1.0) &&
           isOnePlusExpNegX(div.getRhs(), x);
  };
  return (isX(rest[0], x) && isSigmoid(rest[1])) ||
         (isX(rest[1], x) && isSigmoid(rest[0]));
}

std::optional<Activation> mlir::tilec::tile::matchActivation(Value out,
                                                             Value x) {
  if (isGelu(out, x))
    return Activation::GELU;
  if (isSilu(out, x))
    return Activation::SiLU;
  return std::nullopt;
}
