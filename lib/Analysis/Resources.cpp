//===- Resources.cpp - Shared memory and registers a kernel needs ---------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the shared-memory and register facts declared in
// Resources.h.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/Resources.h"

#include "tilec/Target/TargetInfo.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

unsigned mlir::tilec::getStorageBytes(Type elemType) {
  return std::max(1u, elemType.getIntOrFloatBitWidth() / 8);
}

SmallVector<int64_t> mlir::tilec::getPaddedStrides(ArrayRef<int64_t> shape,
                                                   unsigned elemBytes,
                                                   int64_t *numElems) {
  unsigned rank = shape.size();
  SmallVector<int64_t> strides(rank, 1);
  int64_t pad = rank >= 2 ? std::max<int64_t>(1, 4 / elemBytes) : 0;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
    if (d == static_cast<int>(rank) - 1)
      stride += pad;
  }
  *numElems = stride;
  return strides;
}

bool mlir::tilec::isRegisterPermutation(const LinearLayout &src,
                                        const LinearLayout &dst) {
  if (!src.hasSameThreadMapping(dst))
    return false;
  for (unsigned r = 0; r < dst.getNumRegs(); ++r)
    if (!src.findReg(dst.getRegCoord(r)))
      return false;
  return true;
}

std::optional<WarpShufflePlan>
mlir::tilec::planWarpShuffle(const LinearLayout &src, const LinearLayout &dst,
                             unsigned elemBits) {
  using In = LinearLayout::In;
  if (elemBits != 8 && elemBits != 16 && elemBits != 32)
    return std::nullopt;
  if (src.getBases(In::Warp) != dst.getBases(In::Warp) ||
      src.getNumLanes() != dst.getNumLanes() ||
      src.getBroadcastMask(In::Lane) || dst.getBroadcastMask(In::Lane) ||
      src.getNumRegs() != dst.getNumRegs() || isRegisterPermutation(src, dst))
    return std::nullopt;
  // Where a layout keeps an element bit: a register bit (true) or a lane
  // bit, and its index.
  auto find = [](const LinearLayout &ll, const LinearLayout::Basis &bit)
      -> std::optional<std::pair<bool, unsigned>> {
    for (bool reg : {true, false}) {
      ArrayRef<LinearLayout::Basis> bases =
          ll.getBases(reg ? In::Register : In::Lane);
      if (const auto *it = llvm::find(bases, bit); it != bases.end())
        return std::make_pair(reg, static_cast<unsigned>(it - bases.begin()));
    }
    return std::nullopt;
  };
  WarpShufflePlan plan;
  for (bool reg : {true, false}) {
    for (auto [i, bit] :
         llvm::enumerate(src.getBases(reg ? In::Register : In::Lane))) {
      std::optional<std::pair<bool, unsigned>> at = find(dst, bit);
      if (!at)
        return std::nullopt;
      WarpShufflePlan::ElementBit e{static_cast<unsigned>(i), at->second};
      if (reg)
        (at->first ? plan.regReg : plan.regLane).push_back(e);
      else
        (at->first ? plan.laneReg : plan.laneLane).push_back(e);
    }
  }
  plan.wordBits = llvm::Log2_32(32 / elemBits);
  if (plan.regReg.size() < plan.wordBits || plan.regLane.size() > 2)
    return std::nullopt;
  return plan;
}

int64_t mlir::tilec::getScratchBytes(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto srcType = cast<RankedTensorType>(reduce.getSrc().getType());
    if (!getDistributedLayout(srcType))
      return 0;
    LinearLayout src = getLinearLayout(srcType);
    unsigned axisWarps = 1;
    for (const LinearLayout::Basis &bs : src.getBases(LinearLayout::In::Warp))
      if (bs[reduce.getAxis()] != 0)
        axisWarps *= 2;
    if (axisWarps == 1)
      return 0;
    auto resType = cast<RankedTensorType>(reduce.getType());
    return resType.getNumElements() * axisWarps *
           getStorageBytes(resType.getElementType());
  }
  if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) {
    auto srcType = cast<RankedTensorType>(cvt.getSrc().getType());
    auto dstType = cast<RankedTensorType>(cvt.getType());
    if (!getDistributedLayout(srcType) || !getDistributedLayout(dstType))
      return 0;
    LinearLayout src = getLinearLayout(srcType);
    LinearLayout dst = getLinearLayout(dstType);
    if (isRegisterPermutation(src, dst) ||
        planWarpShuffle(src, dst, srcType.getElementTypeBitWidth()))
      return 0;
    unsigned bytes = getStorageBytes(srcType.getElementType());
    int64_t elems;
    getPaddedStrides(srcType.getShape(), bytes, &elems);
    return elems * bytes;
  }
  return 0;
}

int64_t mlir::tilec::estimateSharedMemory(KernelOp kernel) {
  int64_t buffers = 0, scratch = 0;
  kernel.walk([&](Operation *op) {
    if (auto local = dyn_cast<LocalAllocOp>(op))
      buffers = llvm::alignTo(buffers, 1024) + local.getType().getSizeInBytes();
    else if (auto bars = dyn_cast<MBarrierAllocOp>(op))
      buffers += 8 * bars.getType().getSize();
    scratch = std::max(scratch, getScratchBytes(op));
  });
  return buffers + (scratch ? llvm::alignTo(scratch, 16) : 0);
}

int64_t mlir::tilec::getThreadRegisterBudget(const TargetInfo &target,
                                             int64_t threads) {
  return std::min<int64_t>(target.maxRegsPerThread, target.regsPerSM / threads);
}

int64_t mlir::tilec::getRegistersPerThread(Type type, int64_t threads) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat() || threads <= 0)
    return 0;
  int64_t bits = tensor.getNumElements() *
                 std::max<int64_t>(8, tensor.getElementTypeBitWidth());
  // A register operand of mma is held whole by every warp of its rows (A)
  // or columns (B): the warps splitting the other dimension each hold a
  // copy.
  if (auto operand =
          dyn_cast_or_null<tile::DotOperandEncodingAttr>(tensor.getEncoding()))
    if (auto mma = dyn_cast<tile::MmaEncodingAttr>(operand.getParent()))
      bits *= mma.getWarpsPerCTA()[operand.getOpIdx() == 0 ? 1 : 0];
  return llvm::divideCeil(bits, 32 * threads);
}

/// True when `value` is yielded by `yield`, directly or through the
/// warpgroup_wait that retires it.
static bool isYielded(Value value, Operation *yield) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (user == yield)
      return true;
    if (auto wait = dyn_cast<WarpgroupWaitOp>(user))
      if (use.getOperandNumber() < wait->getNumResults() &&
          isYielded(wait->getResult(use.getOperandNumber()), yield))
        return true;
  }
  return false;
}

int64_t mlir::tilec::estimateLoopRegisters(scf::ForOp loop, int64_t threads) {
  // A carried tile.broadcast (attention's rescale factor) holds what its
  // source holds: the copies along the broadcast dimension are one value.
  Operation *yield = loop.getBody()->getTerminator();
  int64_t live = 0;
  for (Value carried : yield->getOperands()) {
    Value held = carried;
    if (auto bcast = carried.getDefiningOp<BroadcastOp>())
      held = bcast.getSrc();
    live += getRegistersPerThread(held.getType(), threads);
  }
  // The dots of this loop, not of loops nested in it (each has its own
  // estimate).
  loop.getBody()->walk([&](Operation *op) {
    if (isa<scf::ForOp>(op))
      return WalkResult::skip();
    // A dot accumulating into a computed value (the carried accumulator,
    // rescaled) takes over that value's registers; one starting from a
    // constant (attention's scores) needs its own.
    if (auto dot = dyn_cast<DotOp>(op)) {
      Operation *acc = dot.getAcc().getDefiningOp();
      bool fresh = acc && (acc->hasTrait<OpTrait::ConstantLike>() ||
                           isa<SplatOp>(acc));
      if (fresh && !isYielded(dot.getResult(), yield))
        live += getRegistersPerThread(dot.getType(), threads);
    }
    return WalkResult::advance();
  });
  return live;
}

LogicalResult mlir::tilec::checkRegisterPressure(KernelOp kernel,
                                                 const TargetInfo &target) {
  int64_t threads = kernel.getNumWarps() * 32;
  int64_t budget = getThreadRegisterBudget(target, threads);
  WalkResult result = kernel.walk([&](scf::ForOp loop) {
    int64_t need = estimateLoopRegisters(loop, threads) + kRegisterReserve;
    if (need <= budget)
      return WalkResult::advance();
    // Name the largest tile the loop carries.
    Type largest;
    int64_t most = 0;
    for (Value arg : loop.getRegionIterArgs())
      if (int64_t regs = getRegistersPerThread(arg.getType(), threads);
          regs > most) {
        most = regs;
        largest = arg.getType();
      }
    bool refuse = need > kMaxRegisterOvershoot * budget;
    InFlightDiagnostic diag =
        refuse ? loop.emitError() : loop.emitWarning();
    diag << "this loop keeps an estimated " << need
         << " registers a thread live, more than the " << budget
         << " a thread of this " << threads << "-thread kernel gets: "
         << (refuse ? "refused (more than twice the budget; use more warps "
                      "or smaller tiles)"
                    : "ptxas will spill");
    if (largest)
      diag << " (the largest tile it carries, " << largest << ", takes "
           << most << ")";
    return refuse ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  // One tile alone past the same bound (a 65536-element f32 tile on 4
  // warps: 512 registers a thread), loop or not: its scalarized code took
  // minutes to compile (found by `make fuzz`).
  result = kernel.walk([&](Operation *op) {
    for (Value v : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || isa_and_nonnull<SharedEncodingAttr>(type.getEncoding()))
        continue;
      int64_t regs = getRegistersPerThread(type, threads);
      if (regs <= kMaxRegisterOvershoot * budget)
        continue;
      op->emitError() << "tile " << type << " takes " << regs
                      << " registers a thread of this " << threads
                      << "-thread kernel, more than twice the " << budget
                      << " a thread gets: refused (use more warps or smaller "
                         "tiles)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// `loc` as file:line:col, or as MLIR prints it.
static std::string describeLocation(Location loc) {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else if (auto fused = dyn_cast<FusedLoc>(loc);
           fused && !fused.getLocations().empty())
    return describeLocation(fused.getLocations().front());
  else if (auto named = dyn_cast<NameLoc>(loc))
    return describeLocation(named.getChildLoc());
  else
    os << loc;
  return out;
}

SmallVector<RegisterTile> mlir::tilec::getLargestRegisterTiles(KernelOp kernel,
                                                               unsigned count) {
  int64_t threads = kernel.getNumWarps() * 32;
  SmallVector<RegisterTile> tiles;
  auto consider = [&](Value v, StringRef role, Location loc) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.getEncoding() ||
        isa<SharedEncodingAttr>(type.getEncoding()))
      return;
    RegisterTile tile;
    tile.registers = getRegistersPerThread(type, threads);
    if (tile.registers == 0)
      return;
    tile.role = role.str();
    llvm::raw_string_ostream os(tile.shape);
    llvm::interleave(type.getShape(), os, "x");
    os << "x" << type.getElementType();
    tile.where = describeLocation(loc);
    tiles.push_back(std::move(tile));
  };
  kernel.walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      for (Value arg : loop.getRegionIterArgs())
        consider(arg, "carried by a loop", loop.getLoc());
    // (Constants are splats: the ops they feed name the tile better.)
    if (op->hasTrait<OpTrait::ConstantLike>())
      return;
    for (Value result : op->getResults())
      consider(result, ("made by " + op->getName().stripDialect()).str(),
               op->getLoc());
  });
  llvm::stable_sort(tiles, [](const RegisterTile &a, const RegisterTile &b) {
    return a.registers > b.registers;
  });
  SmallVector<RegisterTile> largest;
  for (RegisterTile &t : tiles) {
    if (largest.size() == count)
      break;
    if (llvm::none_of(
            largest, [&](const RegisterTile &l) { return l.where == t.where; }))
      largest.push_back(std::move(t));
  }
  return largest;
}
