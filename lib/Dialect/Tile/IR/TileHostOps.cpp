//===- TileHostOps.cpp - host-level tile ops ------------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tile.launch: its verifier, its memory effects, and its bufferization (an
// external model of upstream's BufferizableOpInterface, registered by
// registerBufferizableOpInterfaceExternalModels).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

LogicalResult LaunchOp::verify() {
  bool buffers = hasBufferSemantics();
  for (Value v : getOperation()->getOperands()) {
    if (isa<MemRefType>(v.getType()) != buffers ||
        !cast<ShapedType>(v.getType()).hasRank())
      return emitOpError("operands must be all ranked tensors or all memrefs");
  }
  if (buffers && getResult())
    return emitOpError("on memrefs has no result");
  if (!buffers &&
      (!getResult() || getResult().getType() != getInit().getType()))
    return emitOpError("on tensors returns the new value of `init`, of type ")
           << getInit().getType();

  unsigned numOperands = getNumOperands();
  auto rankOf = [&](int64_t i) {
    return cast<ShapedType>(getOperand(i).getType()).getRank();
  };
  for (auto [p, attr] : llvm::enumerate(getArgs())) {
    auto desc = cast<DictionaryAttr>(attr);
    auto arg = desc.getAs<IntegerAttr>("arg");
    if (!arg || arg.getInt() < 0 || arg.getInt() >= numOperands)
      return emitOpError("args[")
             << p << "] needs an integer `arg` that indexes the " << numOperands
             << " operands";
    auto dim = desc.getAs<IntegerAttr>("dim");
    auto stride = desc.getAs<IntegerAttr>("stride");
    if (dim && stride)
      return emitOpError("args[") << p << "] has both `dim` and `stride`";
    if (IntegerAttr d = dim ? dim : stride) {
      if (d.getInt() < 0 || d.getInt() >= rankOf(arg.getInt()))
        return emitOpError("args[")
               << p << "] names dimension " << d.getInt() << " of operand "
               << arg.getInt() << ", which has rank " << rankOf(arg.getInt());
    }
    if (desc.size() != (dim || stride ? 2u : 1u))
      return emitOpError("args[")
             << p << "] has keys other than `arg`, `dim` and `stride`";
  }
  if (getFallback() && getFallback() == getKernel())
    return emitOpError("fallback names the launched kernel @")
           << getKernel() << " itself";
  if (std::optional<ArrayRef<int64_t>> batch = getBatch()) {
    for (int64_t i : *batch)
      if (i < 0 || i >= numOperands || rankOf(i) < 1)
        return emitOpError("batch operand ")
               << i << " is not an operand with a leading dimension";
  }
  return success();
}

void LaunchOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!hasBufferSemantics())
    return;
  for (OpOperand &operand : getInputsMutable())
    effects.emplace_back(MemoryEffects::Read::get(), &operand,
                         SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Read::get(), &getInitMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getInitMutable(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// Bufferization
//===----------------------------------------------------------------------===//

namespace {
/// tile.launch on tensors becomes tile.launch on the operands' buffers; its
/// result is `init`'s buffer. Reads and aliasing are the destination-style
/// defaults: every operand is read (a kernel may read its destination, as
/// a GEMM with beta = 1 does), only `init` is written, and the result
/// aliases it.
struct LaunchOpInterface
    : public bufferization::DstBufferizableOpInterfaceExternalModel<
          LaunchOpInterface, LaunchOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto launch = cast<LaunchOp>(op);
    if (launch.hasBufferSemantics())
      return success();
    SmallVector<Value> inputs;
    for (Value v : launch.getInputs()) {
      FailureOr<Value> buffer =
          bufferization::getBuffer(rewriter, v, options, state);
      if (failed(buffer))
        return failure();
      inputs.push_back(*buffer);
    }
    FailureOr<Value> init =
        bufferization::getBuffer(rewriter, launch.getInit(), options, state);
    if (failed(init))
      return failure();
    rewriter.setInsertionPoint(op);
    LaunchOp::create(rewriter, op->getLoc(), Type(), launch.getKernelAttr(),
                     inputs, *init, launch.getArgsAttr(), launch.getBatchAttr(),
                     launch.getFallbackAttr());
    bufferization::replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};
} // namespace

void mlir::tilec::tile::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TileDialect *) {
    LaunchOp::attachInterface<LaunchOpInterface>(*ctx);
  });
}
