//===- ScheduleUtils.cpp - Helpers of the scheduling passes ---------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the helpers declared in ScheduleUtils.h.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"
#include "tilec/Analysis/Resources.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr int64_t kMaxDivisibility = int64_t(1) << 16;

static int64_t getDivisibilityImpl(Value v, unsigned depth) {
  if (depth > 12)
    return 1;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c))) {
    int64_t x = c.getSExtValue();
    return x == 0 ? kMaxDivisibility
                  : std::min<int64_t>(kMaxDivisibility, x & -x);
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto kernel = dyn_cast<KernelOp>(owner)) {
      if (auto d = kernel.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), tile::kDivisibilityAttr))
        return d.getInt();
      return 1;
    }
    if (auto loop = dyn_cast<scf::ForOp>(owner);
        loop && arg == loop.getInductionVar())
      return std::min(getDivisibilityImpl(loop.getLowerBound(), depth + 1),
                      getDivisibilityImpl(loop.getStep(), depth + 1));
    return 1;
  }
  Operation *op = v.getDefiningOp();
  auto div = [&](unsigned i) {
    return getDivisibilityImpl(op->getOperand(i), depth + 1);
  };
  if (isa<arith::MulIOp>(op))
    return std::min(kMaxDivisibility, div(0) * div(1));
  if (isa<arith::AddIOp, arith::SubIOp>(op))
    return std::min(div(0), div(1));
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(op))
    return div(0);
  if (isa<arith::ShLIOp>(op) &&
      matchPattern(op->getOperand(1), m_ConstantInt(&c)))
    return std::min(kMaxDivisibility, div(0) << c.getZExtValue());
  return 1;
}

int64_t mlir::tilec::tile::getDivisibility(Value v) {
  return getDivisibilityImpl(v, 0);
}

int64_t mlir::tilec::tile::getDivisibility(OpFoldResult v) {
  if (auto attr = dyn_cast<Attribute>(v)) {
    int64_t c = cast<IntegerAttr>(attr).getInt();
    return c == 0 ? kMaxDivisibility : std::min(kMaxDivisibility, c & -c);
  }
  return getDivisibilityImpl(cast<Value>(v), 0);
}

int64_t mlir::tilec::tile::getPointerAlignment(Value ptr, unsigned elemBytes) {
  auto arg = dyn_cast<BlockArgument>(ptr);
  if (!arg)
    return elemBytes;
  if (auto kernel = dyn_cast<KernelOp>(arg.getOwner()->getParentOp()))
    if (auto a = kernel.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                      tile::kAlignAttr))
      return std::max<int64_t>(a.getInt(), elemBytes);
  return elemBytes;
}

/// The ops of `loop`'s body computing `values`, in body order.
static SmallVector<Operation *> getBodySlice(scf::ForOp loop,
                                             ValueRange values) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true; // the op defining each value too
  options.filter = [&](Operation *op) {
    return op->getBlock() == loop.getBody();
  };
  for (Value v : values)
    (void)getBackwardSlice(v, &slice, options);
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  return ordered;
}

bool mlir::tilec::tile::dependsOnLoadedData(Value v) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  (void)getBackwardSlice(v, &slice, options);
  return llvm::any_of(slice, [](Operation *op) {
    // tile.load_scalar is Pure (it reads memory the kernel never writes).
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    return isa<LoadScalarOp>(op) ||
           (effects && effects.hasEffect<MemoryEffects::Read>());
  });
}

bool mlir::tilec::tile::isRecomputableInLoop(Value v, scf::ForOp loop) {
  // Loop-carried values other than the induction variable differ per
  // iteration in ways a clone cannot know.
  for (Operation *op : getBodySlice(loop, v)) {
    // Memory-effect free suffices: the clones run where the loop would
    // have computed them (or under the same bound check).
    if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
      return false;
    for (Value operand : op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(operand);
          arg && arg.getOwner() == loop.getBody() &&
          arg != loop.getInductionVar())
        return false;
  }
  if (auto arg = dyn_cast<BlockArgument>(v);
      arg && arg.getOwner() == loop.getBody() && arg != loop.getInductionVar())
    return false;
  return true;
}

SmallVector<Value> mlir::tilec::tile::cloneForIteration(OpBuilder &b,
                                                        scf::ForOp loop,
                                                        ValueRange values,
                                                        Value iv) {
  IRMapping map;
  map.map(loop.getInductionVar(), iv);
  for (Operation *op : getBodySlice(loop, values))
    b.clone(*op, map);
  return llvm::map_to_vector(values,
                             [&](Value v) { return map.lookupOrDefault(v); });
}

Value mlir::tilec::tile::createI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

std::pair<Value, Value> mlir::tilec::tile::advanceRing(OpBuilder &b,
                                                       Location loc, Value s,
                                                       Value ph,
                                                       int64_t stages) {
  return advanceRingBy(b, loc, s, ph, 1, stages);
}

std::pair<Value, Value> mlir::tilec::tile::advanceRingBy(OpBuilder &b,
                                                         Location loc, Value s,
                                                         Value ph, int64_t n,
                                                         int64_t stages) {
  Value next = arith::AddIOp::create(b, loc, s, createI32(b, loc, n));
  Value limit = createI32(b, loc, stages);
  Value wrap, s2;
  if (n == 1) {
    wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next, limit);
    s2 = arith::SelectOp::create(b, loc, wrap, createI32(b, loc, 0), next);
  } else {
    wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, next, limit);
    s2 = arith::SelectOp::create(b, loc, wrap,
                                 arith::SubIOp::create(b, loc, next, limit),
                                 next);
  }
  Value ph2 = arith::XOrIOp::create(
      b, loc, ph, arith::ExtUIOp::create(b, loc, b.getI32Type(), wrap));
  return {s2, ph2};
}

std::pair<Value, Value>
mlir::tilec::tile::advanceRingByCount(OpBuilder &b, Location loc, Value s,
                                      Value ph, Value n, int64_t stages) {
  Value t = arith::AddIOp::create(b, loc, s, n);
  Value limit = createI32(b, loc, stages);
  Value s2 = arith::RemUIOp::create(b, loc, t, limit);
  Value wraps = arith::DivUIOp::create(b, loc, t, limit);
  Value ph2 = arith::XOrIOp::create(
      b, loc, ph, arith::AndIOp::create(b, loc, wraps, createI32(b, loc, 1)));
  return {s2, ph2};
}

Value mlir::tilec::tile::getTripCount(OpBuilder &b, Location loc,
                                      scf::ForOp loop) {
  Value span = arith::SubIOp::create(b, loc, loop.getUpperBound(),
                                     loop.getLowerBound());
  Value n = arith::CeilDivSIOp::create(b, loc, span, loop.getStep());
  return arith::MaxSIOp::create(b, loc, n, createI32(b, loc, 0));
}

std::optional<int64_t> mlir::tilec::tile::getCarriedRingDepth(scf::ForOp loop,
                                                              Value stage) {
  auto arg = dyn_cast<BlockArgument>(stage);
  if (!arg || arg.getOwner() != loop.getBody() ||
      arg == loop.getInductionVar())
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Value next = yield.getOperand(arg.getArgNumber() - 1);
  // select(s + 1 == S, 0, s + 1), as advanceRing builds it.
  auto sel = next.getDefiningOp<arith::SelectOp>();
  if (!sel || !matchPattern(sel.getTrueValue(), m_Zero()))
    return std::nullopt;
  auto plus = sel.getFalseValue().getDefiningOp<arith::AddIOp>();
  auto cmp = sel.getCondition().getDefiningOp<arith::CmpIOp>();
  APInt one, depth;
  if (!plus || plus.getLhs() != arg ||
      !matchPattern(plus.getRhs(), m_ConstantInt(&one)) || one != 1 || !cmp ||
      cmp.getPredicate() != arith::CmpIPredicate::eq ||
      cmp.getLhs() != plus.getResult() ||
      !matchPattern(cmp.getRhs(), m_ConstantInt(&depth)))
    return std::nullopt;
  return depth.getSExtValue();
}

Value mlir::tilec::tile::getPreviousStage(OpBuilder &b, Location loc, Value s,
                                          int64_t stages) {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s,
                                      createI32(b, loc, 0));
  return arith::SelectOp::create(
      b, loc, first, createI32(b, loc, stages - 1),
      arith::SubIOp::create(b, loc, s, createI32(b, loc, 1)));
}

Value mlir::tilec::tile::getFreeParity(OpBuilder &b, Location loc, Value ph) {
  return arith::XOrIOp::create(b, loc, ph, createI32(b, loc, 1));
}

std::string mlir::tilec::tile::getLineOf(Operation *op) {
  if (auto fl = op->getLoc()->findInstanceOf<FileLineColLoc>())
    return llvm::formatv("line {0}", fl.getLine()).str();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getLoc();
  return s;
}

bool mlir::tilec::tile::isWgmma(DotOp dot) {
  return isa_and_nonnull<SharedEncodingAttr>(
      cast<RankedTensorType>(dot.getB().getType()).getEncoding());
}

bool mlir::tilec::tile::isAvailableBefore(Value v, Operation *top) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == top->getBlock();
  Operation *def = v.getDefiningOp();
  return def->getBlock() == top->getBlock() && def->isBeforeInBlock(top);
}

bool mlir::tilec::tile::isTwoProgramSoftmaxLoop(scf::ForOp loop,
                                                const TargetInfo &target) {
  auto kernel = loop->getParentOfType<KernelOp>();
  if (!kernel || (kernel.getNumWarps() != 4 && kernel.getNumWarps() != 8))
    return false;
  if (kernel.getNumWarps() == 8) {
    int64_t threads = 8 * 32;
    int64_t need = estimateLoopRegisters(loop, threads) + kRegisterReserve;
    if (need * threads * 2 > static_cast<int64_t>(target.regsPerSM))
      return false;
  }
  Block *body = loop.getBody();
  // Two dots: the forward's S = Q Kᵀ and P V (the rule was measured there;
  // a backward's five products keep their schedule).
  SmallVector<DotOp> dots(body->getOps<DotOp>());
  if (dots.size() != 2)
    return false;
  // Does a dot's A or B operand depend, within the body, on another dot?
  // Loop-carried values lead to what the body yields for them (after
  // tile-wgmma-overlap, P of one iteration is carried into the next).
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (DotOp dot : dots) {
    SmallVector<Value> work = {dot.getA(), dot.getB()};
    DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() == body && arg != loop.getInductionVar())
          work.push_back(
              yield.getOperand(arg.getArgNumber() - loop.getNumInductionVars()));
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != body)
        continue;
      if (isa<DotOp>(def) && def != dot.getOperation())
        return true;
      llvm::append_range(work, def->getOperands());
      // A branch's result comes from its regions (a mask applied in an
      // scf.if, tile-mask-bounds).
      def->walk([&](Operation *inner) {
        if (inner != def)
          llvm::append_range(work, inner->getOperands());
      });
    }
  }
  return false;
}

WarpgroupWaitOp mlir::tilec::tile::getWaitFor(DotOp dot) {
  auto wait = dyn_cast_or_null<WarpgroupWaitOp>(dot->getNextNode());
  if (!wait || wait.getPending() != 0 || wait.getValues().size() != 1 ||
      wait.getValues()[0] != dot.getResult() || !dot->hasOneUse())
    return {};
  return wait;
}

void mlir::tilec::tile::remarkMissed(Operation *op, StringRef pass,
                                     StringRef name, const Twine &reason) {
  std::string text = reason.str();
  remark::missed(op->getLoc(), remark::RemarkOpts::name(name).category(pass))
      << remark::reason("{0}", text);
}

void mlir::tilec::tile::remarkPassed(Operation *op, StringRef pass,
                                     StringRef name, const Twine &what) {
  remarkPassed(op->getLoc(), pass, name, what);
}

void mlir::tilec::tile::remarkPassed(Location loc, StringRef pass,
                                     StringRef name, const Twine &what) {
  std::string text = what.str();
  remark::passed(loc, remark::RemarkOpts::name(name).category(pass))
      << remark::add("{0}", text);
}

/// `expr` over the i32 values `symbols`, as arith ops.
static Value emitGridExpr(OpBuilder &b, Location loc, AffineExpr expr,
                          ArrayRef<Value> symbols) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return createI32(b, loc, c.getValue());
  if (auto s = dyn_cast<AffineSymbolExpr>(expr))
    return symbols[s.getPosition()];
  auto bin = cast<AffineBinaryOpExpr>(expr);
  Value l = emitGridExpr(b, loc, bin.getLHS(), symbols);
  Value r = emitGridExpr(b, loc, bin.getRHS(), symbols);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(b, loc, l, r);
  case AffineExprKind::Mul:
    return arith::MulIOp::create(b, loc, l, r);
  case AffineExprKind::CeilDiv:
    return arith::CeilDivSIOp::create(b, loc, l, r);
  case AffineExprKind::FloorDiv:
    return arith::FloorDivSIOp::create(b, loc, l, r);
  case AffineExprKind::Mod:
    return arith::RemSIOp::create(b, loc, l, r);
  default:
    llvm_unreachable("not a binary grid expression");
  }
}

SmallVector<Value> mlir::tilec::tile::emitGridSizes(OpBuilder &b, Location loc,
                                                    KernelOp kernel) {
  std::optional<AffineMap> grid = kernel.getGrid();
  if (!grid)
    return {};
  Block &body = kernel.getBody().front();
  SmallVector<int64_t> gridArgs(*kernel.getGridArgs());
  SmallVector<Value> symbols;
  for (int64_t idx : gridArgs)
    symbols.push_back(body.getArgument(idx));
  SmallVector<Value> dims;
  for (AffineExpr e : grid->getResults())
    dims.push_back(emitGridExpr(b, loc, e, symbols));
  return dims;
}
