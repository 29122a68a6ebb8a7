//===- Utility.cpp - Helpers shared by the tile-to-NVVM patterns ----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

Value mlir::tilec::i32Val(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

Value mlir::tilec::addNsw(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(
      b, loc, x, y,
      arith::IntegerOverflowFlagsAttr::get(b.getContext(),
                                           arith::IntegerOverflowFlags::nsw));
}

Value mlir::tilec::mulNsw(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulIOp::create(
      b, loc, x, y,
      arith::IntegerOverflowFlagsAttr::get(b.getContext(),
                                           arith::IntegerOverflowFlags::nsw));
}

Value mlir::tilec::extIndex(OpBuilder &b, Location loc, Value x) {
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), x);
}

Value mlir::tilec::i64Val(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

/// tid.x / 32, broadcast from lane 0 with shfl.sync.idx, for kernels marked
/// kUniformWarpIdAttr (the warp-specialized ones); null elsewhere. The value
/// is the same as tid.x / 32; the broadcast tells ptxas that it is
/// warp-uniform (as CUTLASS's canonical_warp_idx_sync and Triton's warp id
/// do), so that the values derived from it (the role branch, a warpgroup's
/// rows, the wgmma descriptors of its slice) can stay on the uniform
/// datapath. It is emitted once, at the start of the kernel, where all
/// threads are converged (shfl.sync needs every lane of its mask), and
/// reused by later calls (the op carries the attribute too).
///
/// Only warp-specialized kernels get it. Interleaved A/B on the H200
/// (bench/results/2026-12-04_uniform_warp_id_h200.json): warp-specialized
/// attention 0.98-1.04x (up to 1.04x at head dim 256 causal), GEMM
/// 0.99-1.04x; given to every kernel, the sm_80 GEMM with a column-major B
/// ran 0.93x.
static Value getUniformWarpId(OpBuilder &b) {
  Operation *at = b.getInsertionBlock()->getParentOp();
  auto func = dyn_cast<LLVM::LLVMFuncOp>(at);
  if (!func)
    func = at->getParentOfType<LLVM::LLVMFuncOp>();
  if (!func || !func->hasAttr(kUniformWarpIdAttr) || func.getBody().empty())
    return {};
  Block &entry = func.getBody().front();
  for (Operation &op : entry)
    if (op.hasAttr(kUniformWarpIdAttr))
      return op.getResult(0);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&entry);
  Location loc = func.getLoc();
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value warp = arith::ShRUIOp::create(b, loc, tid, i32Val(b, loc, 5));
  auto shfl = NVVM::ShflOp::create(
      b, loc, b.getI32Type(), i32Val(b, loc, -1), warp, i32Val(b, loc, 0),
      i32Val(b, loc, 0x1f),
      NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::idx), UnitAttr());
  shfl->setAttr(kUniformWarpIdAttr, b.getUnitAttr());
  return shfl;
}

ThreadIds mlir::tilec::getThreadIds(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value lane = arith::AndIOp::create(b, loc, tid, i32Val(b, loc, 31));
  Value warp = getUniformWarpId(b);
  if (!warp)
    warp = arith::ShRUIOp::create(b, loc, tid, i32Val(b, loc, 5));
  return {tid, lane, warp};
}

/// Sum over the bits of `id` of bit * basis[dim], emitted as shifted masks
/// for runs of bits that map to consecutive powers of two.
static Value emitBitsToCoord(OpBuilder &b, Location loc, Value id,
                             ArrayRef<LinearLayout::Basis> bases,
                             unsigned dim, Value acc) {
  unsigned n = bases.size();
  for (unsigned i = 0; i < n;) {
    int64_t v = bases[i][dim];
    if (v == 0) {
      ++i;
      continue;
    }
    unsigned len = 1;
    while (i + len < n && bases[i + len][dim] == (v << len))
      ++len;
    Value bits = arith::ShRUIOp::create(b, loc, id, i32Val(b, loc, i));
    bits = arith::AndIOp::create(b, loc, bits,
                                 i32Val(b, loc, (1 << len) - 1));
    if (v != 1)
      bits = arith::ShLIOp::create(b, loc, bits,
                                   i32Val(b, loc, llvm::Log2_64(v)));
    acc = acc ? arith::AddIOp::create(b, loc, acc, bits).getResult() : bits;
    i += len;
  }
  return acc;
}

SmallVector<Value> mlir::tilec::emitThreadCoord(OpBuilder &b, Location loc,
                                                const LinearLayout &layout,
                                                const ThreadIds &ids) {
  SmallVector<Value> coord;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    Value acc = emitBitsToCoord(b, loc, ids.lane,
                                layout.getBases(LinearLayout::In::Lane), d, {});
    acc = emitBitsToCoord(b, loc, ids.warp,
                          layout.getBases(LinearLayout::In::Warp), d, acc);
    coord.push_back(acc ? acc : i32Val(b, loc, 0));
  }
  return coord;
}

SmallVector<Value> mlir::tilec::emitWarpCoord(OpBuilder &b, Location loc,
                                              const LinearLayout &layout,
                                              const ThreadIds &ids) {
  SmallVector<Value> coord;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    Value acc = emitBitsToCoord(b, loc, ids.warp,
                                layout.getBases(LinearLayout::In::Warp), d, {});
    coord.push_back(acc ? acc : i32Val(b, loc, 0));
  }
  return coord;
}

unsigned mlir::tilec::getNumWarps(Operation *op) {
  for (; op; op = op->getParentOp()) {
    if (auto kernel = dyn_cast<KernelOp>(op))
      return kernel.getNumWarps();
    if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op)) {
      // The kernel's warps(n); warp-specialized partitions add threads to
      // the block (reqntid) but do not hold tiles.
      if (auto warps = func->getAttrOfType<IntegerAttr>(kNumWarpsAttr))
        return warps.getInt();
      if (auto reqntid = func->getAttrOfType<DenseI32ArrayAttr>(
              NVVM::NVVMDialect::getReqntidAttrName()))
        return reqntid.asArrayRef()[0] / 32;
    }
  }
  return 1;
}

int64_t mlir::tilec::getSwizzledOffset(tile::SharedEncodingAttr enc,
                                       ArrayRef<int64_t> shape, int64_t c0,
                                       int64_t c1) {
  unsigned contig = enc.getOrder()[0];
  int64_t col = contig == 1 ? c1 : c0, row = contig == 1 ? c0 : c1;
  int64_t seg = enc.getSegmentLength(shape[contig]);
  int64_t segIdx = col / seg;
  col %= seg;
  int64_t vec = enc.getVec();
  int64_t phase = (row / enc.getPerPhase()) % enc.getMaxPhase();
  int64_t swizzled = (col / vec) ^ phase;
  return row * seg + swizzled * vec + col % vec +
         segIdx * shape[1 - contig] * seg;
}

Value mlir::tilec::emitSwizzledOffset(OpBuilder &b, Location loc,
                                      SharedEncodingAttr enc,
                                      ArrayRef<int64_t> shape, Value c0,
                                      Value c1) {
  // chunk' = chunk ^ ((row / perPhase) % maxPhase), all powers of two.
  unsigned contig = enc.getOrder()[0];
  Value col = contig == 1 ? c1 : c0;
  Value row = contig == 1 ? c0 : c1;
  int64_t seg = enc.getSegmentLength(shape[contig]);
  int64_t rows = shape[1 - contig];
  auto log2 = [](int64_t v) { return llvm::Log2_64(v); };
  // Segment index and position inside the segment.
  Value segIdx;
  if (seg != shape[contig]) {
    segIdx = arith::ShRUIOp::create(b, loc, col, i32Val(b, loc, log2(seg)));
    col = arith::AndIOp::create(b, loc, col, i32Val(b, loc, seg - 1));
  }
  int64_t rowLen = seg;
  Value chunk = arith::ShRUIOp::create(b, loc, col, i32Val(b, loc, log2(enc.getVec())));
  Value phase = arith::ShRUIOp::create(b, loc, row, i32Val(b, loc, log2(enc.getPerPhase())));
  phase = arith::AndIOp::create(b, loc, phase, i32Val(b, loc, enc.getMaxPhase() - 1));
  Value swizzled = arith::XOrIOp::create(b, loc, chunk, phase);
  Value inChunk = arith::AndIOp::create(b, loc, col, i32Val(b, loc, enc.getVec() - 1));
  Value off = arith::ShLIOp::create(b, loc, swizzled, i32Val(b, loc, log2(enc.getVec())));
  off = arith::OrIOp::create(b, loc, off, inChunk);
  Value rowOff = arith::ShLIOp::create(b, loc, row, i32Val(b, loc, log2(rowLen)));
  Value result = arith::AddIOp::create(b, loc, rowOff, off);
  if (segIdx)
    result = arith::AddIOp::create(
        b, loc, result,
        arith::ShLIOp::create(b, loc, segIdx, i32Val(b, loc, log2(rows * seg))));
  return result;
}

Value mlir::tilec::emitIsCanonicalThread(OpBuilder &b, Location loc,
                                         const LinearLayout &layout,
                                         const ThreadIds &ids,
                                         unsigned extraLaneMask) {
  unsigned laneMask =
      layout.getBroadcastMask(LinearLayout::In::Lane) | extraLaneMask;
  unsigned warpMask = layout.getBroadcastMask(LinearLayout::In::Warp);
  Value pred;
  auto addCheck = [&](Value id, unsigned mask) {
    if (!mask)
      return;
    Value masked = arith::AndIOp::create(b, loc, id, i32Val(b, loc, mask));
    Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         masked, i32Val(b, loc, 0));
    pred = pred ? arith::AndIOp::create(b, loc, pred, isZero).getResult()
                : isZero;
  };
  addCheck(ids.lane, laneMask);
  addCheck(ids.warp, warpMask);
  return pred;
}

Value mlir::tilec::getSmemPtr(OpBuilder &b, Location loc, Operation *anchor,
                              int64_t byteOffset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, loc, ptrType, kSmemSymbol);
  if (byteOffset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{
                                 static_cast<int32_t>(byteOffset)});
}

Value mlir::tilec::getScratchPtr(OpBuilder &b, Location loc,
                                 Operation *anchor) {
  auto attr = anchor->getAttrOfType<IntegerAttr>(kScratchOffsetAttr);
  return getSmemPtr(b, loc, anchor, attr ? attr.getInt() : 0);
}

Value mlir::tilec::gepElems(OpBuilder &b, Location loc, Value ptr,
                            Type elemType, Value index) {
  return LLVM::GEPOp::create(b, loc, ptr.getType(), elemType, ptr,
                             ArrayRef<LLVM::GEPArg>{index});
}

Value mlir::tilec::gepStage(OpBuilder &b, Location loc, Value ptr,
                            tile::SmemType type, Value stage) {
  return gepElems(b, loc, ptr, getStorageType(type.getElementType()),
                  mulNsw(b, loc, stage, i32Val(b, loc, type.getTileElems())));
}

void mlir::tilec::emitIf(OpBuilder &b, Location loc, Value cond,
                         function_ref<void(OpBuilder &, Location)> body) {
  scf::IfOp::create(b, loc, cond, [&](OpBuilder &then, Location l) {
    body(then, l);
    scf::YieldOp::create(then, l);
  });
}

StringRef mlir::tilec::getPtxTypeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (isa<Float8E4M3FNType>(t))
    return "e4m3";
  if (isa<Float8E5M2Type>(t))
    return "e5m2";
  if (t.isInteger(8))
    return "s8"; // tile's i8 is signed, as torch's int8
  if (t.isF32())
    return "tf32"; // f32 operands multiply as TF32 on tensor cores
  llvm_unreachable("not a tensor-core operand type");
}

SmallVector<Value> mlir::tilec::convertToTf32(OpBuilder &b, Location loc,
                                              ArrayRef<Value> values,
                                              SmallVectorImpl<Value> *rest) {
  SmallVector<Value> big;
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto cvt = [&](Value x) {
    return NVVM::ConvertFloatToTF32Op::create(b, loc, i32, x,
                                              NVVM::FPRoundingMode::RNA,
                                              NVVM::SaturationMode::NONE,
                                              /*relu=*/false)
        .getResult();
  };
  for (Value x : values) {
    Value t = cvt(x);
    big.push_back(t);
    if (!rest)
      continue;
    // The low 13 bits of a .tf32 register are not specified: clear them
    // before reading it back as f32.
    Value head = LLVM::BitcastOp::create(
        b, loc, f32,
        LLVM::AndOp::create(b, loc, t,
                            LLVM::ConstantOp::create(
                                b, loc, i32, b.getI32IntegerAttr(
                                                 static_cast<int32_t>(0xffffe000)))));
    rest->push_back(cvt(LLVM::FSubOp::create(b, loc, x, head)));
  }
  return big;
}

Value mlir::tilec::packRegister(OpBuilder &b, Location loc,
                                ArrayRef<Value> elems, bool f16AsVector) {
  Type et = elems.front().getType();
  if (elems.size() == 1 && et.isInteger(32))
    return elems.front(); // a TF32 register
  Value packed = vector::FromElementsOp::create(
      b, loc, VectorType::get({static_cast<int64_t>(elems.size())}, et), elems);
  if (et.isF16() && f16AsVector)
    return packed;
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), packed);
}

Value mlir::tilec::packFragmentRegister(OpBuilder &b, Location loc,
                                        ArrayRef<Value> values,
                                        const tile::LinearLayout &ll,
                                        std::array<int64_t, 2> at,
                                        unsigned kDim, unsigned kWidth,
                                        bool f16AsVector) {
  SmallVector<Value> elems;
  for (unsigned e = 0; e < kWidth; ++e) {
    std::optional<unsigned> idx = ll.findReg({at[0], at[1]});
    assert(idx && "fragment element outside its layout");
    elems.push_back(values[*idx]);
    ++at[kDim];
  }
  return packRegister(b, loc, elems, f16AsVector);
}

SmallVector<Value> mlir::tilec::getMmaAFragment(
    OpBuilder &b, Location loc, ArrayRef<Value> values,
    const tile::LinearLayout &ll, int64_t row0, int64_t k0, unsigned kWidth,
    bool f16AsVector) {
  SmallVector<Value> frag;
  for (int j = 0; j < 4; ++j)
    frag.push_back(packFragmentRegister(
        b, loc, values, ll, {row0 + (j % 2) * 8, k0 + (j / 2) * 4 * kWidth},
        /*kDim=*/1, kWidth, f16AsVector));
  return frag;
}

ExecGroup mlir::tilec::getExecGroup(Operation *op) {
  ExecGroup group;
  if (auto attr = op->getAttrOfType<DenseI32ArrayAttr>(kExecGroupAttr)) {
    group.barrierId = attr[0];
    group.numThreads = attr[1];
    group.firstThread = attr[2];
  }
  return group;
}

void mlir::tilec::emitBarrier(OpBuilder &b, Location loc, Operation *op) {
  ExecGroup group = getExecGroup(op);
  if (group.numThreads == 0) {
    NVVM::Barrier0Op::create(b, loc);
    return;
  }
  NVVM::BarrierOp::create(b, loc, TypeRange{}, i32Val(b, loc, group.barrierId),
                          i32Val(b, loc, group.numThreads),
                          NVVM::BarrierReductionAttr(), Value());
}

bool mlir::tilec::isWarpLocalConversion(Operation *op) {
  auto cvt = dyn_cast<tile::ConvertLayoutOp>(op);
  if (!cvt)
    return false;
  auto srcType = cast<RankedTensorType>(cvt.getSrc().getType());
  auto dstType = cast<RankedTensorType>(cvt.getType());
  if (!tile::getDistributedLayout(srcType) ||
      !tile::getDistributedLayout(dstType))
    return false;
  tile::LinearLayout src = tile::getLinearLayout(srcType);
  tile::LinearLayout dst = tile::getLinearLayout(dstType);
  using In = tile::LinearLayout::In;
  return !isRegisterPermutation(src, dst) &&
         src.getBases(In::Warp) == dst.getBases(In::Warp) &&
         src.getBroadcastMask(In::Warp) == 0;
}

Value mlir::tilec::emitIsLeaderThread(OpBuilder &b, Location loc,
                                      Operation *op) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                               i32Val(b, loc, getExecGroup(op).firstThread));
}

FailureOr<StringRef> mlir::tilec::getPtxConstraint(Type type) {
  if (type.isF32())
    return StringRef("f");
  if (type.isF64())
    return StringRef("d");
  if (type.isInteger(32))
    return StringRef("r");
  if (type.isInteger(64))
    return StringRef("l");
  if (type.isInteger(16) || type.isF16() || type.isBF16())
    return StringRef("h");
  return failure();
}

Value mlir::tilec::emitShuffleXor(OpBuilder &b, Location loc, Value v,
                                  unsigned laneMask) {
  Type type = v.getType();
  Type i32 = b.getI32Type();
  unsigned bits = type.getIntOrFloatBitWidth();
  auto shfl = [&](Value x) -> Value {
    return NVVM::ShflOp::create(
        b, loc, x.getType(), i32Val(b, loc, -1), x, i32Val(b, loc, laneMask),
        i32Val(b, loc, 0x1f),
        NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::bfly),
        UnitAttr());
  };
  if (type.isF32() || type.isInteger(32))
    return shfl(v);
  if (bits == 64) {
    Type i64 = b.getI64Type();
    Value x = type.isInteger(64) ? v : arith::BitcastOp::create(b, loc, i64, v);
    Value lo = arith::TruncIOp::create(b, loc, i32, x);
    Value hi = arith::TruncIOp::create(
        b, loc, i32, arith::ShRUIOp::create(b, loc, x, i64Val(b, loc, 32)));
    lo = arith::ExtUIOp::create(b, loc, i64, shfl(lo));
    hi = arith::ExtUIOp::create(b, loc, i64, shfl(hi));
    Value r = arith::OrIOp::create(
        b, loc, lo, arith::ShLIOp::create(b, loc, hi, i64Val(b, loc, 32)));
    return type.isInteger(64) ? r : arith::BitcastOp::create(b, loc, type, r);
  }
  // Narrow types travel in the low bits of an i32.
  Type narrowInt = b.getIntegerType(bits);
  Value x = isa<IntegerType>(type)
                ? v
                : arith::BitcastOp::create(b, loc, narrowInt, v).getResult();
  Value wide = arith::ExtUIOp::create(b, loc, i32, x);
  Value r = arith::TruncIOp::create(b, loc, narrowInt, shfl(wide));
  return isa<IntegerType>(type) ? r
                                : arith::BitcastOp::create(b, loc, type, r);
}

Value mlir::tilec::emitCombine(OpBuilder &b, Location loc, ReduceKind kind,
                               Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::Sum:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case ReduceKind::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case ReduceKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                   : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  llvm_unreachable("unknown reduction kind");
}

SmallVector<Value> mlir::tilec::unpackVector(OpBuilder &b, Location loc,
                                             Value vec) {
  auto type = cast<VectorType>(vec.getType());
  SmallVector<Value> elems;
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
    elems.push_back(vector::ExtractOp::create(b, loc, vec, i));
  return elems;
}

Value mlir::tilec::packVector(OpBuilder &b, Location loc, Type vecType,
                              ArrayRef<Value> elems) {
  return vector::FromElementsOp::create(b, loc, cast<VectorType>(vecType),
                                        elems);
}

Type mlir::tilec::getStorageType(Type elemType) {
  if (isa<FloatType>(elemType) && elemType.getIntOrFloatBitWidth() == 8)
    return IntegerType::get(elemType.getContext(), 8);
  return elemType;
}

