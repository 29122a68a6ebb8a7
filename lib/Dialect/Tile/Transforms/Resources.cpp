//===- Resources.cpp - Shared memory a tile kernel needs ------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the shared-memory facts declared in Resources.h.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Transforms/Resources.h"

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
    if (isRegisterPermutation(getLinearLayout(srcType),
                              getLinearLayout(dstType)))
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
