//===- HostExpr.cpp - Integers computed on the host at launch -------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements HostExpr: the expression over kernel parameters of a
// view size or stride, read off the integer arithmetic that computes it, its
// printed form (the grid rule's) and the power of two known to divide it.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/HostExpr.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tilec::tile;

/// Ops and nesting a HostExpr may have: a view size is a few operations on a
/// few parameters; anything far larger is refused rather than walked.
static constexpr unsigned kMaxHostOps = 64;
static constexpr unsigned kMaxHostDepth = 32;
/// Constants of a HostExpr stay below this magnitude, so that the affine
/// simplifier's constant folding cannot overflow 64 bits.
static constexpr int64_t kMaxHostConstant = int64_t(1) << 31;

std::optional<int64_t> HostExpr::getConstant() const {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return c.getValue();
  return std::nullopt;
}

std::optional<unsigned> HostExpr::getParam() const {
  if (auto s = dyn_cast<AffineSymbolExpr>(expr))
    return params[s.getPosition()];
  return std::nullopt;
}

std::string HostExpr::print(KernelOp kernel) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  printGridExpr(os, expr, [&](raw_ostream &o, unsigned pos) {
    o << kernel.getArgName(params[pos]);
  });
  return s;
}

std::string HostExpr::printParamNames(KernelOp kernel) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(params, os, [&](unsigned p) {
    os << "'" << kernel.getArgName(p) << "'";
  });
  return s;
}

/// log2 of the largest power of two known to divide `e` (62 stands for
/// "any": zero is a multiple of everything). `symbolLog2[i]` is that of
/// symbol `i`.
static unsigned getKnownLog2Divisor(AffineExpr e,
                                    ArrayRef<unsigned> symbolLog2) {
  constexpr unsigned kAny = 62;
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue() == 0 ? kAny : llvm::countr_zero(uint64_t(c.getValue()));
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return symbolLog2[s.getPosition()];
  auto bin = cast<AffineBinaryOpExpr>(e);
  unsigned lhs = getKnownLog2Divisor(bin.getLHS(), symbolLog2);
  unsigned rhs = getKnownLog2Divisor(bin.getRHS(), symbolLog2);
  switch (e.getKind()) {
  case AffineExprKind::Mul:
    return std::min(kAny, lhs + rhs);
  case AffineExprKind::Add:
  case AffineExprKind::Mod: // a mod b = a - b * floor(a / b)
    return std::min(lhs, rhs);
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    // Exact when the divisor is a power of two dividing the dividend.
    auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (c && c.getValue() > 0 && llvm::isPowerOf2_64(c.getValue()) &&
        rhs <= lhs)
      return lhs - rhs;
    return 0;
  }
  default:
    return 0;
  }
}

int64_t HostExpr::getKnownDivisor(KernelOp kernel) const {
  SmallVector<unsigned> symbolLog2;
  for (unsigned p : params) {
    auto div = kernel.getArgAttrOfType<IntegerAttr>(
        p, mlir::tilec::tile::kDivisibilityAttr);
    // The verifier makes hints positive powers of two.
    symbolLog2.push_back(div && div.getInt() > 0
                             ? llvm::countr_zero(uint64_t(div.getInt()))
                             : 0);
  }
  return int64_t(1) << std::min(30u, getKnownLog2Divisor(expr, symbolLog2));
}

/// `type` as the IR spells it, for messages.
static std::string printType(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// The largest magnitude of a constant in `e` (1 without constants).
static int64_t getMaxConstant(AffineExpr e) {
  int64_t m = 1;
  e.walk([&](AffineExpr sub) {
    if (auto c = dyn_cast<AffineConstantExpr>(sub))
      m = std::max(m, c.getValue() < 0 ? -c.getValue() : c.getValue());
  });
  return m;
}

namespace {
/// Reads the HostExpr of kernel values off the ops computing them: a walk
/// over their operands, memoized so that shared subterms are visited once.
class HostExprBuilder {
public:
  HostExprBuilder(KernelOp kernel, std::string &why)
      : kernel(kernel), why(why) {}

  FailureOr<AffineExpr> build(Value value, unsigned depth);

  /// Kernel parameters, by symbol position.
  SmallVector<unsigned> params;

private:
  FailureOr<AffineExpr> buildOp(Operation *op, unsigned depth);
  FailureOr<AffineExpr> buildParam(BlockArgument arg);
  /// Combines `lhs` and `rhs` with `kind`, refusing constants that could
  /// overflow the simplifier's folding and divisions by zero.
  FailureOr<AffineExpr> combine(Operation *op, AffineExprKind kind,
                                AffineExpr lhs, AffineExpr rhs);
  FailureOr<AffineExpr> fail(const Twine &reason) {
    why = reason.str();
    return failure();
  }

  KernelOp kernel;
  std::string &why;
  DenseMap<Value, AffineExpr> built;
  unsigned numOps = 0;
};
} // namespace

FailureOr<AffineExpr> HostExprBuilder::buildParam(BlockArgument arg) {
  if (arg.getOwner() != &kernel.getBody().front())
    return fail("is a block argument of '" +
                arg.getOwner()->getParentOp()->getName().getStringRef() +
                "', not a kernel parameter");
  unsigned index = arg.getArgNumber();
  auto *it = llvm::find(params, index);
  if (it == params.end()) {
    params.push_back(index);
    it = std::prev(params.end());
  }
  return getAffineSymbolExpr(it - params.begin(), kernel.getContext());
}

FailureOr<AffineExpr> HostExprBuilder::combine(Operation *op,
                                               AffineExprKind kind,
                                               AffineExpr lhs, AffineExpr rhs) {
  int64_t bound;
  if (__builtin_mul_overflow(getMaxConstant(lhs), getMaxConstant(rhs),
                             &bound) ||
      bound >= (int64_t(1) << 62))
    return fail("is computed by '" + op->getName().getStringRef() +
                "' from constants too large to evaluate on the host");
  auto c = dyn_cast<AffineConstantExpr>(rhs);
  if (c && c.getValue() == 0 && kind != AffineExprKind::Add &&
      kind != AffineExprKind::Mul)
    return fail("is computed by '" + op->getName().getStringRef() +
                "', which divides by zero");
  return getAffineBinaryOpExpr(kind, lhs, rhs);
}

FailureOr<AffineExpr> HostExprBuilder::build(Value value, unsigned depth) {
  if (AffineExpr e = built.lookup(value))
    return e;
  Type type = value.getType();
  auto intType = dyn_cast<IntegerType>(type);
  if (!type.isIndex() && !(intType && intType.isSignless()))
    return fail("has type " + printType(type) + ", not an integer");
  // Narrower arithmetic wraps below the range runtimes check.
  if (intType && intType.getWidth() < 32)
    return fail("is computed in " + printType(type) +
                "; the host evaluates 32- and 64-bit integers only");
  if (depth > kMaxHostDepth || ++numOps > kMaxHostOps)
    return fail("is computed by too many operations to evaluate on the host");
  FailureOr<AffineExpr> e = failure();
  APInt c;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    e = buildParam(arg);
  } else if (matchPattern(value, m_ConstantInt(&c))) {
    int64_t v = c.getSExtValue();
    if (v <= -kMaxHostConstant || v >= kMaxHostConstant)
      return fail("is the constant " + Twine(v) +
                  ", outside the 32-bit range of view sizes and strides");
    e = getAffineConstantExpr(v, kernel.getContext());
  } else {
    e = buildOp(value.getDefiningOp(), depth);
  }
  if (succeeded(e))
    built[value] = *e;
  return e;
}

FailureOr<AffineExpr> HostExprBuilder::buildOp(Operation *op, unsigned depth) {
  auto operand = [&](unsigned i) {
    return build(op->getOperand(i), depth + 1);
  };
  // Value-preserving within the range runtimes check ([0, 2^31)).
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op))
    return operand(0);
  std::optional<AffineExprKind> kind =
      llvm::TypeSwitch<Operation *, std::optional<AffineExprKind>>(op)
          .Case<arith::AddIOp>([](auto) { return AffineExprKind::Add; })
          .Case<arith::MulIOp>([](auto) { return AffineExprKind::Mul; })
          .Case<arith::CeilDivSIOp, arith::CeilDivUIOp>(
              [](auto) { return AffineExprKind::CeilDiv; })
          .Case<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp>(
              [](auto) { return AffineExprKind::FloorDiv; })
          .Case<arith::RemSIOp, arith::RemUIOp>(
              [](auto) { return AffineExprKind::Mod; })
          .Default([](Operation *) { return std::nullopt; });
  bool isSub = isa<arith::SubIOp>(op);
  bool isShift = isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op);
  if (!kind && !isSub && !isShift)
    return fail("is computed by '" + op->getName().getStringRef() +
                "', which has no form in the host's expression language "
                "(+, -, *, ceildiv, floordiv, mod)");
  FailureOr<AffineExpr> lhs = operand(0);
  if (failed(lhs))
    return failure();
  if (isShift) {
    // A shift by a constant is a product or a division by a power of two.
    APInt k;
    if (!matchPattern(op->getOperand(1), m_ConstantInt(&k)) ||
        k.getZExtValue() >= 31)
      return fail("is computed by '" + op->getName().getStringRef() +
                  "' by an amount that is not a constant below 31");
    AffineExpr pow =
        getAffineConstantExpr(int64_t(1) << k.getZExtValue(), op->getContext());
    return combine(op,
                   isa<arith::ShLIOp>(op) ? AffineExprKind::Mul
                                          : AffineExprKind::FloorDiv,
                   *lhs, pow);
  }
  FailureOr<AffineExpr> rhs = operand(1);
  if (failed(rhs))
    return failure();
  if (isSub)
    return combine(op, AffineExprKind::Add, *lhs,
                   *rhs * getAffineConstantExpr(-1, op->getContext()));
  return combine(op, *kind, *lhs, *rhs);
}

/// Whether the printed form of `e` (printGridExpr) has a negative value of
/// its own: a negative constant or a negation, other than the subtractions
/// the printer writes for `a + b * -1` and `a + -c`. Runtimes refuse every
/// such value (see HostExpr), so no launch could succeed: `128 - m` is
/// `m * -1 + 128` in the affine form, and prints so.
static bool printsNegative(AffineExpr e) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue() < 0;
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (e.getKind() != AffineExprKind::Add)
    return printsNegative(bin.getLHS()) || printsNegative(bin.getRHS());
  if (printsNegative(bin.getLHS()))
    return true;
  AffineExpr rhs = bin.getRHS();
  if (isa<AffineConstantExpr>(rhs))
    return false; // `a - c` or `a + c`
  auto mul = dyn_cast<AffineBinaryOpExpr>(rhs);
  auto negOne = mul && mul.getKind() == AffineExprKind::Mul
                    ? dyn_cast<AffineConstantExpr>(mul.getRHS())
                    : AffineConstantExpr();
  if (negOne && negOne.getValue() == -1)
    return printsNegative(mul.getLHS()); // `a - b`
  return printsNegative(rhs);
}

FailureOr<HostExpr> mlir::tilec::tile::getHostExpr(KernelOp kernel, Value value,
                                                   std::string &why) {
  HostExprBuilder builder(kernel, why);
  FailureOr<AffineExpr> e = builder.build(value, 0);
  if (failed(e))
    return failure();
  HostExpr out;
  out.expr = *e;
  out.params = builder.params;
  // Simplification may have dropped parameters (x - x): renumber the
  // symbols that remain, in order of first use.
  SmallVector<bool> used(out.params.size(), false);
  out.expr.walk([&](AffineExpr sub) {
    if (auto s = dyn_cast<AffineSymbolExpr>(sub))
      used[s.getPosition()] = true;
  });
  SmallVector<AffineExpr> replacements;
  SmallVector<unsigned> kept;
  for (auto [pos, param] : llvm::enumerate(out.params)) {
    replacements.push_back(
        getAffineSymbolExpr(used[pos] ? kept.size() : 0, kernel.getContext()));
    if (used[pos])
      kept.push_back(param);
  }
  out.expr = out.expr.replaceSymbols(replacements);
  out.params = kept;
  if (!out.getConstant() && printsNegative(out.expr)) {
    why = "is '" + out.print(kernel) +
          "' on the host, whose negative term every launch would refuse "
          "(runtimes keep every value in [0, 2^31), where the kernel's 32-bit "
          "arithmetic agrees); avoid negative constants and subtracting from a "
          "constant";
    return failure();
  }
  return out;
}
