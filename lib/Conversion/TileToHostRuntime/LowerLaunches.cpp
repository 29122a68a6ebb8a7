//===- LowerLaunches.cpp - tile.launch to host runtime calls --------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-lower-launches: bufferized tile.launch ops become
// calls of the host runtime (include/tilec/Runtime/HostRuntime.h):
//
//   tile.launch @k(%a, %b : memref<?x64xbf16>, memref<64x32xbf16>)
//       outs(%c : memref<?x32xbf16>) args [{arg = 0}, {arg = 1}, {arg = 2},
//                                          {arg = 0, dim = 0}]
//   ==>
//   %slots = llvm.alloca 4 x i64       // one 64-bit slot per parameter
//   llvm.store <address of %a>, slot 0 ... llvm.store <dim 0 of %a>, slot 3
//   func.call @tilecHostLaunch(@__tilec_cubin_k, size, @__tilec_launch_k,
//                              size, %slots, 4, %bad_operand)
//   (with `fallback @k2`: tilecHostLaunchWithFallback(<k's cubin and
//    metadata>, <k2's>, %slots, 4, %bad_operand))
//   ...                                // ops that touch no memory
//   func.call @tilecHostSynchronize()  // before the first one that may
//
// The runtime does the rest from the kernel's launch metadata (grid, dynamic
// shared memory, clusters, tensor maps), as tilec::Kernel does for C++ users.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileToHostRuntime/Passes.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILELOWERLAUNCHES
#include "tilec/Conversion/TileToHostRuntime/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

static constexpr StringLiteral kLaunchFn = "tilecHostLaunch";
static constexpr StringLiteral kLaunchWithFallbackFn =
    "tilecHostLaunchWithFallback";
static constexpr StringLiteral kSyncFn = "tilecHostSynchronize";
static constexpr StringLiteral kMetadataKey = "tilec.launch";

namespace {
/// The module constants of one kernel: its cubin and its launch metadata.
struct KernelImage {
  LLVM::GlobalOp cubin, metadata;
  int64_t cubinBytes = 0, metadataBytes = 0;
};
} // namespace

/// Creates (once) the runtime function `name` of type `type`.
static func::FuncOp getRuntimeFunction(ModuleOp module, StringRef name,
                                       FunctionType type) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name, type);
  f.setPrivate();
  return f;
}

/// An internal constant byte array holding `bytes`.
static LLVM::GlobalOp createByteGlobal(ModuleOp module, StringRef name,
                                       StringRef bytes) {
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
  auto global = LLVM::GlobalOp::create(
      b, module.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::Internal,
      name, b.getStringAttr(bytes), /*alignment=*/16);
  SymbolTable(module).insert(global);
  return global;
}

/// The object of `binary` to launch: the one for `chip`, or the only one.
static FailureOr<gpu::ObjectAttr>
selectObject(Operation *user, gpu::BinaryOp binary, StringRef chip) {
  SmallVector<gpu::ObjectAttr> objects;
  std::string chips;
  for (Attribute a : binary.getObjects()) {
    auto object = cast<gpu::ObjectAttr>(a);
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
    StringRef objectChip = target ? target.getChip() : "";
    chips += (chips.empty() ? "" : ", ") + objectChip.str();
    if (chip.empty() || objectChip == chip)
      objects.push_back(object);
  }
  if (objects.size() == 1)
    return objects.front();
  InFlightDiagnostic diag = user->emitOpError();
  if (chip.empty())
    diag << "launches gpu.binary @" << binary.getSymName() << ", which holds "
         << binary.getObjects().size()
         << " objects; pick one with the pass's chip option (objects for: "
         << chips << ")";
  else
    diag << "launches gpu.binary @" << binary.getSymName()
         << ", which has no object for " << chip << " (objects for: " << chips
         << ")";
  return failure();
}

/// The cubin and metadata constants of the kernel `name` that `launch`
/// launches (its kernel or its fallback), created from its gpu.binary the
/// first time.
static FailureOr<KernelImage>
getKernelImage(LaunchOp launch, StringRef name, StringRef chip,
               llvm::StringMap<KernelImage> &images,
               llvm::SetVector<Operation *> &usedBinaries) {
  auto it = images.find(name);
  if (it != images.end())
    return it->second;
  auto module = launch->getParentOfType<ModuleOp>();
  Operation *symbol = SymbolTable::lookupSymbolIn(module, name);
  if (isa_and_nonnull<KernelOp>(symbol))
    return launch.emitOpError("launches @")
           << name
           << ", a tile.kernel that is not compiled yet: compile the kernels "
              "into gpu.binary ops first (tilec --emit=host does)";
  auto binary = dyn_cast_or_null<gpu::BinaryOp>(symbol);
  if (!binary)
    return launch.emitOpError("launches @")
           << name << ", but no gpu.binary of the module has that name";
  FailureOr<gpu::ObjectAttr> object = selectObject(launch, binary, chip);
  if (failed(object))
    return failure();
  if (object->getFormat() != gpu::CompilationTarget::Binary &&
      object->getFormat() != gpu::CompilationTarget::Fatbin)
    return launch.emitOpError("launches gpu.binary @")
           << name << ", whose object is not a cubin or fatbin (format "
           << gpu::stringifyCompilationTarget(object->getFormat()) << ")";
  DictionaryAttr props = object->getProperties();
  auto metadata = props ? props.getAs<StringAttr>(kMetadataKey) : StringAttr();
  if (!metadata)
    return launch.emitOpError("launches gpu.binary @")
           << name << ", whose object has no launch metadata (a `"
           << kMetadataKey << "` string in its properties)";
  KernelImage image;
  image.cubin = createByteGlobal(module, ("__tilec_cubin_" + name).str(),
                                 object->getObject().getValue());
  image.metadata = createByteGlobal(module, ("__tilec_launch_" + name).str(),
                                    metadata.getValue());
  image.cubinBytes = object->getObject().size();
  image.metadataBytes = metadata.size();
  usedBinaries.insert(binary);
  return images[name] = image;
}

/// Whether `op` cannot observe or change memory that a running kernel
/// uses: it has no memory effect, or it only allocates.
static bool isNeutralToKernels(Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface || op->getNumRegions() != 0)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Allocate>(e.getEffect());
  });
}

/// The op before which the host must wait for `launch`: the first later op
/// of its block that is neither neutral to kernels nor another launch
/// (which then carries the wait on); null when that is a launch.
static Operation *getSyncPoint(LaunchOp launch) {
  for (Operation *op = launch->getNextNode(); op; op = op->getNextNode()) {
    if (isa<LaunchOp>(op))
      return nullptr;
    if (!isNeutralToKernels(op) || op->hasTrait<OpTrait::IsTerminator>())
      return op;
  }
  return nullptr;
}

namespace {
/// Builds the host code of one launch.
class LaunchLowering {
public:
  LaunchLowering(LaunchOp launch, func::FuncOp launchFn,
                 func::FuncOp fallbackFn)
      : launch(launch), launchFn(launchFn), fallbackFn(fallbackFn), b(launch),
        loc(launch.getLoc()) {}

  /// The launch of `image`, or with a fallback (tile.launch's `fallback`)
  /// of `image` or else `fallback`.
  LogicalResult lower(KernelImage image, std::optional<KernelImage> fallback);

private:
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }
  Value toI64(Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  }
  /// Stores `value` into parameter slot `i`.
  void store(Value slots, unsigned i, Value value) {
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    Value slot = LLVM::GEPOp::create(b, loc, ptrType, b.getI64Type(), slots,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    LLVM::StoreOp::create(b, loc, value, slot);
  }
  /// The address of element 0 of operand `i`, advanced by `batchIndex`
  /// leading strides when given.
  Value getAddress(unsigned i, Value batchIndex = {});
  /// -1 when every operand has the strides its kernel assumes, else the
  /// first that does not: each stride the launch does not pass (an `args`
  /// entry {arg, stride}) must be the dense row-major one, so a passed
  /// leading stride leaves the innermost, which must be 1.
  Value getBadOperand();

  LaunchOp launch;
  func::FuncOp launchFn, fallbackFn;
  OpBuilder b;
  Location loc;
  SmallVector<memref::ExtractStridedMetadataOp> metadata;
};
} // namespace

Value LaunchLowering::getAddress(unsigned i, Value batchIndex) {
  Value operand = launch->getOperand(i);
  auto type = cast<MemRefType>(operand.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  Value base =
      toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand));
  Value offset = metadata[i].getOffset();
  if (batchIndex)
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, batchIndex, metadata[i].getStrides()[0]));
  Value offsetBytes = arith::MulIOp::create(b, loc, toI64(offset), i64(bytes));
  return arith::AddIOp::create(b, loc, base, offsetBytes);
}

Value LaunchLowering::getBadOperand() {
  Value bad = i64(-1);
  llvm::SmallDenseSet<std::pair<int64_t, int64_t>> passed;
  for (Attribute attr : launch.getArgs()) {
    auto desc = cast<DictionaryAttr>(attr);
    if (auto stride = desc.getAs<IntegerAttr>("stride"))
      passed.insert({desc.getAs<IntegerAttr>("arg").getInt(), stride.getInt()});
  }
  for (int i = launch->getNumOperands() - 1; i >= 0; --i) {
    auto type = cast<MemRefType>(launch->getOperand(i).getType());
    if (type.getLayout().isIdentity())
      continue;
    // Dense row-major: stride[d] == product of the sizes inside d, for the
    // strides the kernel does not take.
    Value dense = arith::ConstantIntOp::create(b, loc, 1, 1);
    Value product = arith::ConstantIndexOp::create(b, loc, 1);
    for (int d = type.getRank() - 1; d >= 0; --d) {
      if (passed.contains({i, d})) {
        product =
            arith::MulIOp::create(b, loc, product, metadata[i].getSizes()[d]);
        continue;
      }
      Value stride = metadata[i].getStrides()[d];
      Value size = metadata[i].getSizes()[d];
      // A dimension of size 1 may have any stride.
      Value one =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size,
                                arith::ConstantIndexOp::create(b, loc, 1));
      Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, stride,
                                       product);
      dense = arith::AndIOp::create(b, loc, dense,
                                    arith::OrIOp::create(b, loc, eq, one));
      product = arith::MulIOp::create(b, loc, product, size);
    }
    bad = arith::SelectOp::create(b, loc, dense, bad, i64(i));
  }
  return bad;
}

LogicalResult LaunchLowering::lower(KernelImage image,
                                    std::optional<KernelImage> fallback) {
  for (Value operand : launch->getOperands()) {
    auto type = cast<MemRefType>(operand.getType());
    if (type.getElementTypeBitWidth() % 8 != 0)
      return launch.emitOpError("operand element type ")
             << type.getElementType() << " is not a whole number of bytes";
    metadata.push_back(
        memref::ExtractStridedMetadataOp::create(b, loc, operand));
  }
  MLIRContext *ctx = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  ArrayAttr args = launch.getArgs();
  Value slots = LLVM::AllocaOp::create(b, loc, ptrType, b.getI64Type(),
                                       i64(std::max<size_t>(args.size(), 1)));
  ArrayRef<int64_t> batch = launch.getBatch().value_or(ArrayRef<int64_t>{});
  // Sizes and strides first; addresses of batched operands in the loop.
  for (auto [p, attr] : llvm::enumerate(args)) {
    auto desc = cast<DictionaryAttr>(attr);
    unsigned arg = desc.getAs<IntegerAttr>("arg").getInt();
    if (auto dim = desc.getAs<IntegerAttr>("dim"))
      store(slots, p, toI64(metadata[arg].getSizes()[dim.getInt()]));
    else if (auto stride = desc.getAs<IntegerAttr>("stride"))
      store(slots, p, toI64(metadata[arg].getStrides()[stride.getInt()]));
    else if (!llvm::is_contained(batch, arg))
      store(slots, p, getAddress(arg));
  }
  Value bad = getBadOperand();
  auto launchWith = [&] {
    SmallVector<Value> operands;
    for (const KernelImage &k : {image, fallback.value_or(KernelImage())}) {
      if (!k.cubin)
        continue;
      operands.append({LLVM::AddressOfOp::create(b, loc, k.cubin),
                       i64(k.cubinBytes),
                       LLVM::AddressOfOp::create(b, loc, k.metadata),
                       i64(k.metadataBytes)});
    }
    operands.append({slots, i64(static_cast<int64_t>(args.size())), bad});
    func::CallOp::create(b, loc, fallback ? fallbackFn : launchFn, operands);
  };
  if (batch.empty()) {
    launchWith();
    return success();
  }
  Value count = metadata[batch.front()].getSizes()[0];
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, zero, count, step);
  b.setInsertionPointToStart(loop.getBody());
  for (auto [p, attr] : llvm::enumerate(args)) {
    auto desc = cast<DictionaryAttr>(attr);
    unsigned arg = desc.getAs<IntegerAttr>("arg").getInt();
    if (desc.size() == 1 && llvm::is_contained(batch, arg))
      store(slots, p, getAddress(arg, loop.getInductionVar()));
  }
  launchWith();
  return success();
}

namespace {
struct TileLowerLaunchesPass
    : public tile::impl::TileLowerLaunchesBase<TileLowerLaunchesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LaunchOp> launches;
    module.walk([&](LaunchOp op) { launches.push_back(op); });
    MLIRContext *ctx = &getContext();
    for (LaunchOp launch : launches) {
      if (!launch.hasBufferSemantics()) {
        launch.emitOpError("is on tensors: bufferize the host functions first "
                           "(one-shot-bufferize{bufferize-function-"
                           "boundaries})");
        return signalPassFailure();
      }
    }

    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    func::FuncOp launchFn, fallbackFn, syncFn;
    for (LaunchOp launch : launches) {
      if (!launch.getFallback() && !launchFn)
        launchFn = getRuntimeFunction(
            module, kLaunchFn,
            FunctionType::get(
                ctx, {ptrType, i64, ptrType, i64, ptrType, i64, i64}, {}));
      if (launch.getFallback() && !fallbackFn)
        fallbackFn = getRuntimeFunction(
            module, kLaunchWithFallbackFn,
            FunctionType::get(ctx,
                              {ptrType, i64, ptrType, i64, ptrType, i64,
                               ptrType, i64, ptrType, i64, i64},
                              {}));
    }
    if (!launches.empty())
      syncFn =
          getRuntimeFunction(module, kSyncFn, FunctionType::get(ctx, {}, {}));

    llvm::StringMap<KernelImage> images;
    llvm::SetVector<Operation *> usedBinaries;
    llvm::SetVector<Operation *> syncPoints;
    for (LaunchOp launch : launches) {
      FailureOr<KernelImage> image = getKernelImage(launch, launch.getKernel(),
                                                    chip, images, usedBinaries);
      if (failed(image))
        return signalPassFailure();
      std::optional<KernelImage> fallback;
      if (std::optional<StringRef> name = launch.getFallback()) {
        FailureOr<KernelImage> f =
            getKernelImage(launch, *name, chip, images, usedBinaries);
        if (failed(f))
          return signalPassFailure();
        fallback = *f;
      }
      if (Operation *point = getSyncPoint(launch))
        syncPoints.insert(point);
      if (failed(LaunchLowering(launch, launchFn, fallbackFn)
                     .lower(*image, fallback)))
        return signalPassFailure();
      launch.erase();
      ++numLaunches;
    }
    for (Operation *point : syncPoints) {
      OpBuilder b(point);
      func::CallOp::create(b, point->getLoc(), syncFn, ValueRange{});
      ++numSyncs;
    }
    for (Operation *binary : usedBinaries)
      binary->erase();

    if (cInterface) {
      for (auto f : module.getOps<func::FuncOp>())
        if (f.isPublic() && !f.isExternal())
          f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                     UnitAttr::get(ctx));
    }
  }
};
} // namespace
