//===- FastMath.cpp - Fast-math flags and the IEEE math loops pay for ----===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-fast-math. MLIR's default float semantics are
// IEEE: `arith.divf` is `div.rn.f32` (about ten instructions on the FMA
// pipe, with a slow path for denormal and huge operands), `math.sqrt` is
// `sqrt.rn.f32`, `math.exp` is libdevice's range-reduced `__nv_expf`. A
// Triton user expects `/` to be `div.full.f32` and `exp` an `ex2.approx`;
// a loop over tiles pays for the difference on every element.
//
// A `fast_math` kernel (or every kernel under `tilec --fast-math`) gets
// `afn | arcp | contract` on every op with fast-math flags; otherwise each
// costly IEEE op inside a loop is named in a remark with its fix.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEFASTMATH
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kFastMathPass = "tile-fast-math";

/// What an IEEE op costs and what its fast form is, for the remark; empty
/// for ops whose IEEE form costs no more than the fast one.
static std::optional<std::pair<StringRef, StringRef>>
describeIeeeCost(Operation *op) {
  using Cost = std::pair<StringRef, StringRef>;
  return llvm::TypeSwitch<Operation *, std::optional<Cost>>(op)
      .Case([](arith::DivFOp) {
        return Cost{"an IEEE divide (div.rn.f32: about 10 instructions and "
                    "a slow path per element)",
                    "div.full.f32"};
      })
      .Case([](math::SqrtOp) {
        return Cost{"an IEEE square root (sqrt.rn.f32)", "sqrt.approx.f32"};
      })
      .Case<math::ExpOp, math::Exp2Op>([](Operation *) {
        return Cost{"an IEEE exponential (libdevice's range-reduced "
                    "__nv_expf/__nv_exp2f)",
                    "one ex2.approx.ftz.f32"};
      })
      .Case<math::LogOp, math::Log2Op>([](Operation *) {
        return Cost{"an IEEE logarithm (libdevice's __nv_logf/__nv_log2f)",
                    "lg2.approx.f32"};
      })
      .Case([](math::TanhOp) {
        return Cost{"an IEEE tanh (libdevice's __nv_tanhf, about 20 "
                    "instructions)",
                    "one tanh.approx.f32"};
      })
      .Case<math::SinOp, math::CosOp>([](Operation *) {
        return Cost{"an IEEE sine or cosine (libdevice's range reduction)",
                    "sin.approx.f32/cos.approx.f32"};
      })
      .Case<math::PowFOp, math::TanOp, math::ErfOp>([](Operation *) {
        return Cost{"an IEEE math function (libdevice)",
                    "libdevice's __nv_fast_* variant or a polynomial"};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The fast-math flags of `op` (none where the attribute is absent: some
/// ops hold it as an optional attribute).
static arith::FastMathFlags getFlags(arith::ArithFastMathInterface op) {
  arith::FastMathFlagsAttr attr = op.getFastMathFlagsAttr();
  return attr ? attr.getValue() : arith::FastMathFlags::none;
}

/// Whether `op` works on floats (scalars or tiles of them).
static bool hasFloatResult(Operation *op) {
  return llvm::any_of(op->getResultTypes(), [](Type t) {
    return isa<FloatType>(getElementTypeOrSelf(t));
  });
}

/// Whether `op` lies inside a loop of its kernel.
static bool isInLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); p && !isa<KernelOp>(p);
       p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      return true;
  return false;
}

namespace {
struct TileFastMathPass
    : public tile::impl::TileFastMathBase<TileFastMathPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  void setFastMathFlags(KernelOp kernel);
  void remarkIeeeMathInLoops(KernelOp kernel);
};
} // namespace

/// afn | arcp | contract on every op of `kernel` with fast-math flags.
void TileFastMathPass::setFastMathFlags(KernelOp kernel) {
  auto fast = arith::FastMathFlags::afn | arith::FastMathFlags::arcp |
              arith::FastMathFlags::contract;
  unsigned count = 0;
  kernel.walk([&](arith::ArithFastMathInterface op) {
    arith::FastMathFlags flags = getFlags(op);
    op->setAttr(op.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(op->getContext(), flags | fast));
    ++count;
  });
  numFastOps += count;
  remarkPassed(kernel, kFastMathPass, "FastMath",
               Twine("afn, arcp and contract on ") + Twine(count) +
                   " floating-point ops");
}

/// A missed remark for each costly IEEE float op inside a loop.
void TileFastMathPass::remarkIeeeMathInLoops(KernelOp kernel) {
  kernel.walk([&](arith::ArithFastMathInterface fmf) {
    Operation *op = fmf;
    if (bitEnumContainsAll(getFlags(fmf), arith::FastMathFlags::afn) ||
        !hasFloatResult(op) || !isInLoop(op))
      return;
    auto cost = describeIeeeCost(op);
    if (!cost)
      return;
    ++numIeeeInLoops;
    remarkMissed(op, kFastMathPass, "IEEEMath",
                 Twine("'") + op->getName().getStringRef() + "' in a loop is " +
                     cost->first +
                     "; fastmath<afn> on the op, `fast_math` "
                     "on the kernel or `--fast-math` make it " +
                     cost->second);
  });
}

void TileFastMathPass::runOnOperation() {
  KernelOp kernel = getOperation();
  if (all || kernel.getFastMath())
    return setFastMathFlags(kernel);
  remarkIeeeMathInLoops(kernel);
}
