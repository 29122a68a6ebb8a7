//===- ConvertTileToNVVM.cpp - Lower tile kernels to NVVM -----------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the type converter, the kernel-level patterns and the
// driver of convert-tile-to-nvvm. Before converting, the pass sizes each
// kernel's dynamic shared memory (persistent buffers + one scratch area
// reused by every op that exchanges data through shared memory) and checks it
// against the chip's budget.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"
#include "tilec/Conversion/TileToNVVM/TileToNVVM.h"
#include "tilec/Dialect/Tile/IR/HostExpr.h"

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tilec {
#define GEN_PASS_DEF_CONVERTTILETONVVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace mlir::tilec

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

//===----------------------------------------------------------------------===//
// TileTypeConverter
//===----------------------------------------------------------------------===//

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) {
  addConversion([](Type type) { return type; });
  addConversion([ctx](RankedTensorType type) -> std::optional<Type> {
    // A tile read in place from shared memory (wgmma operand): its address.
    if (isa_and_nonnull<SharedEncodingAttr>(type.getEncoding()))
      return LLVM::LLVMPointerType::get(ctx, 3);
    if (!getDistributedLayout(type))
      return std::nullopt;
    return VectorType::get({getElemsPerThread(type)},
                           getStorageType(type.getElementType()));
  });
  addConversion([ctx](PtrType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, 1);
  });
  addConversion([ctx](ViewType type) -> Type {
    SmallVector<Type> fields = {LLVM::LLVMPointerType::get(ctx, 1)};
    fields.append(2 * type.getRank(), IntegerType::get(ctx, 32));
    return LLVM::LLVMStructType::getLiteral(ctx, fields);
  });
  addConversion([ctx](SmemType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, 3);
  });
  addConversion([ctx](MBarrierType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, 3);
  });
  addConversion([ctx](TensorMapType) -> Type {
    return LLVM::LLVMPointerType::get(ctx);
  });
  auto cast = [](OpBuilder &builder, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// tile.kernel -> llvm.func with the nvvm.kernel attribute, one thread per
/// lane of `warps` warps (exact: nvvm.reqntid), and the launch metadata.
struct KernelOpLowering : public OpConversionPattern<KernelOp> {
  KernelOpLowering(TileTypeConverter &converter, MLIRContext *ctx,
                   const TargetInfo &target)
      : OpConversionPattern(converter, ctx), target(target) {}

  LogicalResult
  matchAndRewrite(KernelOp kernel, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;

private:
  DictionaryAttr buildLaunchInfo(KernelOp kernel, Builder &b) const;
  const TargetInfo &target;
};

/// tile.return -> llvm.return.
struct ReturnOpLowering : public OpConversionPattern<ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange());
    return success();
  }
};

/// tile.program_id / tile.num_programs -> %ctaid / %nctaid.
template <typename SourceOp, typename X, typename Y, typename Z>
struct GridQueryLowering : public OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value v;
    switch (op.getDim()) {
    case Dim::X:
      v = X::create(rewriter, op.getLoc(), i32);
      break;
    case Dim::Y:
      v = Y::create(rewriter, op.getLoc(), i32);
      break;
    case Dim::Z:
      v = Z::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// tile.make_view -> struct of base pointer, sizes and strides (i32).
struct MakeViewOpLowering : public OpConversionPattern<MakeViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MakeViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structType = getTypeConverter()->convertType(op.getType());
    Value view = LLVM::PoisonOp::create(rewriter, loc, structType);
    view = LLVM::InsertValueOp::create(rewriter, loc, view, adaptor.getBase(),
                                       ArrayRef<int64_t>{0});
    ViewType type = op.getViewType();
    auto insertMixed = [&](ArrayRef<int64_t> statics, ValueRange dynamics,
                           int64_t firstField) {
      unsigned next = 0;
      for (auto [i, s] : llvm::enumerate(statics)) {
        Value v = ShapedType::isDynamic(s) ? dynamics[next++]
                                           : i32Val(rewriter, loc, s);
        view = LLVM::InsertValueOp::create(
            rewriter, loc, view, v,
            ArrayRef<int64_t>{firstField + static_cast<int64_t>(i)});
      }
    };
    insertMixed(type.getShape(), adaptor.getSizes(), 1);
    insertMixed(type.getStrides(), adaptor.getStrides(), 1 + type.getRank());
    rewriter.replaceOp(op, view);
    return success();
  }
};

} // namespace

/// The dtype name used in launch metadata.
static std::string getDtypeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (t.isBF16())
    os << "bf16";
  else if (isa<Float8E4M3FNType>(t))
    os << "f8e4m3";
  else if (isa<Float8E5M2Type>(t))
    os << "f8e5m2";
  else
    os << t;
  return s;
}

/// A size or stride of a host-encoded view: the constant, the parameter's
/// name, or the expression over parameters that computes it (the grid
/// rule's syntax, e.g. "S * BH").
static Attribute getHostValueAttr(KernelOp kernel, OpFoldResult v,
                                  Builder &b) {
  if (auto attr = dyn_cast<Attribute>(v))
    return attr;
  std::string why;
  FailureOr<HostExpr> e = getHostExpr(kernel, cast<Value>(v), why);
  if (failed(e))
    return b.getStringAttr("?"); // excluded by the verifier
  if (std::optional<int64_t> c = e->getConstant())
    return b.getI64IntegerAttr(*c);
  return b.getStringAttr(e->print(kernel));
}

/// The kernel's tensor maps in the order of their hidden parameters: by the
/// parameter whose data each describes (A before B before C, whichever pass
/// made the map), then in program order.
static SmallVector<MakeTensorMapOp> getTensorMapsInParamOrder(KernelOp kernel) {
  SmallVector<MakeTensorMapOp> maps;
  kernel.walk([&](MakeTensorMapOp op) { maps.push_back(op); });
  auto baseOf = [](MakeTensorMapOp op) {
    auto makeView = op.getView().getDefiningOp<MakeViewOp>();
    std::optional<unsigned> base =
        makeView ? MakeTensorMapOp::getParamIndex(makeView.getBase())
                 : std::nullopt;
    return base.value_or(~0u);
  };
  llvm::stable_sort(maps, [&](MakeTensorMapOp l, MakeTensorMapOp r) {
    return baseOf(l) < baseOf(r);
  });
  return maps;
}

/// The launch-metadata entry of a tensor map: how runtimes encode it
/// (dimensions innermost first, as cuTensorMapEncodeTiled takes them).
static DictionaryAttr buildTensorMapInfo(KernelOp kernel, MakeTensorMapOp op,
                                         unsigned index, Builder &b) {
  auto makeView = op.getView().getDefiningOp<MakeViewOp>();
  TensorMapType type = op.getType();
  // The tile's contiguous dimension, its other one, then the leading ones.
  unsigned rank = type.getShape().size();
  unsigned contig = rank - 2 + type.getEncoding().getOrder()[0];
  unsigned elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  std::optional<unsigned> base = MakeTensorMapOp::getParamIndex(makeView.getBase());
  SmallVector<unsigned> dims = {contig, 2 * rank - 3 - contig};
  for (unsigned d = rank - 2; d-- > 0;)
    dims.push_back(d);
  SmallVector<Attribute> sizes, strides;
  SmallVector<int64_t> box;
  for (unsigned d : dims) {
    sizes.push_back(getHostValueAttr(kernel, makeView.getMixedSize(d), b));
    strides.push_back(getHostValueAttr(kernel, makeView.getMixedStride(d), b));
    box.push_back(type.getShape()[d]);
  }
  SmallVector<NamedAttribute> entry = {
      b.getNamedAttr("index", b.getI64IntegerAttr(index)),
      b.getNamedAttr("base", b.getStringAttr(kernel.getArgName(*base))),
      b.getNamedAttr("dtype",
                     b.getStringAttr(getDtypeName(type.getElementType()))),
      b.getNamedAttr("elem_bytes", b.getI64IntegerAttr(elemBytes)),
      b.getNamedAttr("sizes", b.getArrayAttr(sizes)),
      b.getNamedAttr("strides", b.getArrayAttr(strides)),
      b.getNamedAttr("box", b.getI64ArrayAttr(box)),
      b.getNamedAttr("swizzle",
                     b.getI64IntegerAttr(
                         *type.getEncoding().getHardwareSwizzleBytes(elemBytes)))};
  return b.getDictionaryAttr(entry);
}

/// Threads of a block of `kernel`: its warps plus warp-specialized
/// partitions.
static int64_t getBlockThreads(KernelOp kernel) {
  int64_t warps = kernel.getNumWarps();
  kernel.walk([&](WarpSpecializeOp ws) { warps += ws.getPartitionWarps(); });
  return 32 * warps;
}

/// The cluster shape of `kernel` ({1, 1, 1} without clusters).
static SmallVector<int64_t> getClusterDims(KernelOp kernel) {
  if (std::optional<ArrayRef<int32_t>> cluster = kernel.getCluster())
    return llvm::to_vector_of<int64_t>(*cluster);
  return {1, 1, 1};
}

DictionaryAttr KernelOpLowering::buildLaunchInfo(KernelOp kernel,
                                                 Builder &b) const {
  SmallVector<Attribute> params;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    SmallVector<NamedAttribute> entry;
    entry.push_back(b.getNamedAttr("name", b.getStringAttr(kernel.getArgName(i))));
    if (auto ptr = dyn_cast<PtrType>(type)) {
      entry.push_back(b.getNamedAttr("kind", b.getStringAttr("pointer")));
      entry.push_back(b.getNamedAttr(
          "dtype", b.getStringAttr(getDtypeName(ptr.getElementType()))));
    } else {
      entry.push_back(b.getNamedAttr("kind", b.getStringAttr("scalar")));
      entry.push_back(
          b.getNamedAttr("dtype", b.getStringAttr(getDtypeName(type))));
    }
    // Requirements the generated code relies on, for runtimes to check.
    if (auto align = kernel.getArgAttrOfType<IntegerAttr>(i, tile::kAlignAttr))
      entry.push_back(b.getNamedAttr("align", align));
    if (auto div =
            kernel.getArgAttrOfType<IntegerAttr>(i, tile::kDivisibilityAttr))
      entry.push_back(b.getNamedAttr("divisibility", div));
    params.push_back(b.getDictionaryAttr(entry));
  }
  SmallVector<Attribute> tensorMaps;
  for (MakeTensorMapOp op : getTensorMapsInParamOrder(kernel)) {
    auto index = op->getAttrOfType<IntegerAttr>(kParamIndexAttr);
    tensorMaps.push_back(buildTensorMapInfo(kernel, op, index.getInt(), b));
  }
  SmallVector<Attribute> grid;
  for (const std::string &g : kernel.getGridRuleStrings())
    grid.push_back(b.getStringAttr(g));
  int64_t smem = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(kSmemBytesAttr))
    smem = attr.getInt();
  int64_t threads = getBlockThreads(kernel);
  // The tiles to name if ptxas spills (the compiler reports it with the
  // kernel's registers).
  SmallVector<Attribute> registerTiles;
  for (const RegisterTile &t : getLargestRegisterTiles(kernel, /*count=*/3))
    registerTiles.push_back(b.getStringAttr(
        llvm::formatv("{0} ({1}) at {2}: {3} registers a thread", t.shape,
                      t.role, t.where, t.registers)
            .str()));
  SmallVector<NamedAttribute> info = {
      b.getNamedAttr("name", b.getStringAttr(kernel.getSymName())),
      b.getNamedAttr("params", b.getArrayAttr(params)),
      b.getNamedAttr("tensor_maps", b.getArrayAttr(tensorMaps)),
      b.getNamedAttr("grid", b.getArrayAttr(grid)),
      b.getNamedAttr("persistent", b.getBoolAttr(kernel.getPersistent())),
      b.getNamedAttr("block", b.getI64ArrayAttr({threads, 1, 1})),
      b.getNamedAttr("cluster", b.getI64ArrayAttr(getClusterDims(kernel))),
      b.getNamedAttr("num_warps", b.getI64IntegerAttr(kernel.getNumWarps())),
      b.getNamedAttr("smem_bytes", b.getI64IntegerAttr(smem)),
      b.getNamedAttr("chip", b.getStringAttr(target.chip)),
      b.getNamedAttr("ptx_version", b.getI64IntegerAttr(target.ptxVersion)),
      b.getNamedAttr("register_tiles", b.getArrayAttr(registerTiles))};
  return b.getDictionaryAttr(info);
}

LogicalResult
KernelOpLowering::matchAndRewrite(KernelOp kernel, OpAdaptor adaptor,
                                  ConversionPatternRewriter &rewriter) const {
  const TypeConverter &converter = *getTypeConverter();
  MLIRContext *ctx = rewriter.getContext();
  FunctionType type = kernel.getFunctionType();
  TypeConverter::SignatureConversion signature(type.getNumInputs());
  SmallVector<Type> argTypes;
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    Type converted = converter.convertType(t);
    if (!converted)
      return rewriter.notifyMatchFailure(kernel, "unconvertible parameter");
    signature.addInputs(i, converted);
    argTypes.push_back(converted);
  }
  // Hidden parameters: one __grid_constant__ CUtensorMap (128 bytes, 64-byte
  // aligned) per tensor map, after the user's parameters.
  SmallVector<MakeTensorMapOp> maps = getTensorMapsInParamOrder(kernel);
  auto genericPtr = LLVM::LLVMPointerType::get(ctx);
  for (MakeTensorMapOp op : maps) {
    op->setAttr(kParamIndexAttr, rewriter.getI64IntegerAttr(argTypes.size()));
    argTypes.push_back(genericPtr);
  }
  signature.addInputs(SmallVector<Type>(maps.size(), genericPtr));
  auto funcType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                              argTypes);
  auto func = LLVM::LLVMFuncOp::create(rewriter, kernel.getLoc(),
                                       kernel.getSymName(), funcType);
  for (unsigned i = type.getNumInputs(); i < argTypes.size(); ++i) {
    func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                    TypeAttr::get(LLVM::LLVMArrayType::get(
                        IntegerType::get(ctx, 8), 128)));
    func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                    rewriter.getI64IntegerAttr(64));
    func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                    rewriter.getUnitAttr());
  }
  if (kernel.getCluster()) {
    // `.explicitcluster` / `.reqnctapercluster x, y, z` (the pass checked
    // that the chip has clusters).
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  rewriter.getDenseI32ArrayAttr(*kernel.getCluster()));
  }
  int32_t threads = getBlockThreads(kernel);
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                rewriter.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                rewriter.getDenseI32ArrayAttr({threads, 1, 1}));
  // `.minnctapersm n`: ptxas keeps the registers to n programs' share,
  // where that is a limit (below the 255 a thread can have; with 4 warps
  // it is not, and the directive alone moved ptxas's schedule).
  auto programs = kernel->getAttrOfType<IntegerAttr>(tile::kProgramsPerSMAttr);
  if (programs && programs.getInt() * threads * 256 >
                      static_cast<int64_t>(target.regsPerSM))
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  rewriter.getI32IntegerAttr(programs.getInt()));
  func->setAttr(kLaunchAttr, buildLaunchInfo(kernel, rewriter));
  func->setAttr(kNumWarpsAttr,
                rewriter.getI64IntegerAttr(kernel.getNumWarps()));
  if (kernel.walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    func->setAttr(kUniformWarpIdAttr, rewriter.getUnitAttr());
  if (Attribute a = kernel->getAttr(kSmemBytesAttr))
    func->setAttr(kSmemBytesAttr, a);
  rewriter.inlineRegionBefore(kernel.getBody(), func.getBody(), func.end());
  if (failed(rewriter.convertRegionTypes(&func.getBody(), converter,
                                         &signature)))
    return failure();
  rewriter.eraseOp(kernel);
  return success();
}

void mlir::tilec::populateKernelOpToLLVMPatterns(TileTypeConverter &converter,
                                                 RewritePatternSet &patterns,
                                                 const TargetInfo &target) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<KernelOpLowering>(converter, ctx, target); // tile.kernel
  patterns.add<ReturnOpLowering,                          // tile.return
               GridQueryLowering<ProgramIdOp, NVVM::BlockIdXOp,
                                 NVVM::BlockIdYOp,
                                 NVVM::BlockIdZOp>, // tile.program_id
               GridQueryLowering<NumProgramsOp, NVVM::GridDimXOp,
                                 NVVM::GridDimYOp,
                                 NVVM::GridDimZOp>, // tile.num_programs
               MakeViewOpLowering                   // tile.make_view
               >(converter, ctx);
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertTileToNVVMPass
    : public tilec::impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// The op of `block` that is or contains `op`.
static Operation *getAncestorIn(Block *block, Operation *op) {
  return block->findAncestorOpInBlock(*op);
}

namespace {
/// A planned shared-memory region: a buffer or an op's scratch area.
struct Placed {
  int64_t begin, end; // live range: positions of top-level ops
  int64_t offset, bytes;
};
} // namespace

/// Where a region reuses memory an earlier one held (their live ranges are
/// disjoint, their bytes overlap), the threads still reading the earlier
/// one must be done before any thread writes the later: a barrier goes
/// before the later region's first top-level op unless a top-level
/// tile.barrier already lies between the two. (A layout conversion's
/// scratch read just before a loop, then the loop's cp.async ring written
/// over it by the prologue, raced without one.)
static void separateReusedMemory(Block &body, ArrayRef<Placed> regions) {
  SmallVector<Operation *> ops = llvm::map_to_vector(
      body.getOperations(), [](Operation &op) { return &op; });
  // barriers[i]: top-level barriers at positions < i.
  SmallVector<int64_t> barriers(ops.size() + 1, 0);
  for (auto [i, op] : llvm::enumerate(ops))
    barriers[i + 1] = barriers[i] + (isa<BarrierOp>(op) ? 1 : 0);
  llvm::SetVector<int64_t> before;
  for (const Placed &early : regions)
    for (const Placed &late : regions) {
      bool overlap = early.offset < late.offset + late.bytes &&
                     late.offset < early.offset + early.bytes;
      if (!overlap || early.end >= late.begin)
        continue;
      // A barrier at a position in (early.end, late.begin] separates them.
      if (barriers[late.begin + 1] - barriers[early.end + 1] == 0)
        before.insert(late.begin);
    }
  for (int64_t at : before) {
    OpBuilder builder(ops[at]);
    BarrierOp::create(builder, ops[at]->getLoc());
  }
}

/// The ops that use the buffer `alloc` allocates: its users, and the users
/// of every value that is a view of it (a tensor in a #tile.shared encoding:
/// tile.local_load of a stage that a wgmma then reads in place, and what
/// carries or transposes such a view), which read the memory where they
/// run, not where the view was made.
static SmallVector<Operation *> getBufferReaders(Operation *alloc) {
  SmallVector<Operation *> readers;
  SmallVector<Value> work(alloc->getResults());
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      readers.push_back(user);
      for (Value r : user->getResults())
        if (auto type = dyn_cast<RankedTensorType>(r.getType());
            type && isa_and_nonnull<SharedEncodingAttr>(type.getEncoding()))
          work.push_back(r);
    }
  }
  return readers;
}

/// Plans the dynamic shared memory of `kernel` and records it:
///  * tile.local_alloc buffers (1024-byte aligned) live from their
///    allocation to their last use or the last use of a view of them
///    (getBufferReaders; in top-level ops of the kernel body),
///    mbarriers to the kernel's end; each goes to the lowest offset not taken by a buffer whose live
///    range overlaps its own, so consecutive loops' rings share memory;
///  * ops that exchange data through shared memory use a scratch area past
///    the buffers live at that point (at 0 when none is, so an epilogue
///    reuses the operand ring of the main loop).
/// Reused memory is separated by barriers (separateReusedMemory). Fails
/// with a diagnostic when the chip cannot provide the total.
static LogicalResult planSharedMemory(KernelOp kernel,
                                      const TargetInfo &target) {
  Block &body = kernel.getBody().front();
  Builder b(kernel.getContext());
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  SmallVector<Placed> placed;
  int64_t total = 0;
  kernel.walk([&](Operation *alloc) {
    int64_t bytes, align;
    if (auto local = dyn_cast<LocalAllocOp>(alloc)) {
      bytes = local.getType().getSizeInBytes();
      align = 1024; // a 128-byte swizzle repeats every 1024 bytes
    } else if (auto bars = dyn_cast<MBarrierAllocOp>(alloc)) {
      bytes = 8 * bars.getType().getSize();
      align = 8;
    } else {
      return;
    }
    int64_t begin = position[getAncestorIn(&body, alloc)], end = begin;
    for (Operation *user : getBufferReaders(alloc))
      end = std::max(end, position[getAncestorIn(&body, user)]);
    // A barrier's memory is its state: a copy still completing on it (a TMA
    // issued before a later loop) must not find it re-initialized as another
    // barrier. Barriers live until the kernel ends.
    if (isa<MBarrierAllocOp>(alloc))
      end = static_cast<int64_t>(body.getOperations().size());
    // The lowest aligned offset clear of every overlapping live buffer.
    SmallVector<const Placed *> live;
    for (const Placed &p : placed)
      if (p.begin <= end && begin <= p.end)
        live.push_back(&p);
    llvm::sort(live, [](const Placed *x, const Placed *y) {
      return x->offset < y->offset;
    });
    int64_t offset = 0;
    for (const Placed *p : live)
      if (static_cast<int64_t>(llvm::alignTo(offset, align)) + bytes > p->offset)
        offset = std::max(offset, p->offset + p->bytes);
    offset = static_cast<int64_t>(llvm::alignTo(offset, align));
    alloc->setAttr(kSmemOffsetAttr, b.getI64IntegerAttr(offset));
    placed.push_back({begin, end, offset, bytes});
    total = std::max(total, offset + bytes);
  });
  // Scratch areas past the buffers live at their position; a warp-local
  // conversion's (isWarpLocalConversion: it synchronizes only its warp)
  // also past every other scratch area at that position, so that no other
  // warp's exchange can touch it. Copies of one conversion (same types, as
  // the loops split from one share) use one area: each warp only ever
  // touches its own part of it.
  SmallVector<Placed> scratches;
  DenseMap<std::tuple<Type, Type, int64_t>, int64_t> warpLocalOffsets;
  auto placeScratch = [&](Operation *op, bool warpLocal) {
    int64_t bytes = getScratchBytes(op);
    if (bytes == 0 || isWarpLocalConversion(op) != warpLocal)
      return;
    int64_t at = position[getAncestorIn(&body, op)];
    std::tuple<Type, Type, int64_t> key = {op->getOperand(0).getType(),
                                           op->getResult(0).getType(), at};
    if (warpLocal) {
      if (auto it = warpLocalOffsets.find(key); it != warpLocalOffsets.end()) {
        op->setAttr(kScratchOffsetAttr, b.getI64IntegerAttr(it->second));
        return;
      }
    }
    int64_t offset = 0;
    for (const Placed &p : placed)
      if (p.begin <= at && at <= p.end)
        offset = std::max<int64_t>(offset, llvm::alignTo(p.offset + p.bytes, 16));
    if (warpLocal) {
      for (const Placed &p : scratches)
        if (p.begin == at)
          offset =
              std::max<int64_t>(offset, llvm::alignTo(p.offset + p.bytes, 16));
      warpLocalOffsets[key] = offset;
    }
    op->setAttr(kScratchOffsetAttr, b.getI64IntegerAttr(offset));
    scratches.push_back({at, at, offset, bytes});
    total = std::max(total, offset + bytes);
  };
  kernel.walk([&](Operation *op) { placeScratch(op, /*warpLocal=*/false); });
  kernel.walk([&](Operation *op) { placeScratch(op, /*warpLocal=*/true); });
  placed.append(scratches);
  separateReusedMemory(body, placed);
  if (total > target.maxSmemPerBlock)
    return kernel.emitOpError("needs ")
           << total << " bytes of shared memory, more than the "
           << target.maxSmemPerBlock << " bytes a block may use on "
           << target.chip;
  kernel->setAttr(kSmemBytesAttr, b.getI64IntegerAttr(total));
  return success();
}

/// The first op of `kernel` that needs an instruction `target` lacks gets
/// a diagnostic naming the instruction (LLVM's instruction selection would
/// abort on it instead).
static LogicalResult verifyChipFeatures(KernelOp kernel,
                                        const TargetInfo &target) {
  if (kernel.getCluster() && !target.hasClusters)
    return kernel.emitOpError("thread-block clusters need sm_90 or newer; ")
           << target.chip << " has none";
  WalkResult result = kernel.walk([&](Operation *op) {
    StringRef needs;
    bool has = true;
    if (isa<TmaLoadOp, TmaStoreOp, TmaStoreWaitOp, MakeTensorMapOp>(op)) {
      needs = "TMA (cp.async.bulk.tensor, sm_90)";
      has = target.hasTma;
    } else if (isa<MBarrierAllocOp, MBarrierExpectTxOp, MBarrierArriveOp,
                   MBarrierWaitOp>(op)) {
      needs = "transaction mbarriers (sm_90)";
      has = target.hasTma;
    } else if (isa<FenceAsyncSharedOp>(op)) {
      needs = "fence.proxy.async (sm_90)";
      has = target.hasTma;
    } else if (isa<ClusterRankOp, ClusterBarrierOp>(op)) {
      needs = "thread-block clusters (sm_90)";
      has = target.hasClusters;
    } else if (isa<WarpgroupWaitOp>(op)) {
      needs = "wgmma (sm_90a)";
      has = target.hasWgmma;
    } else if (isa<WarpSpecializeOp>(op)) {
      needs = "setmaxnreg (sm_90a)";
      has = target.hasSetmaxnreg;
    } else if (isa<AsyncCopyOp, AsyncCommitOp, AsyncWaitOp>(op)) {
      needs = "cp.async (sm_80)";
      has = target.hasCpAsync;
    }
    if (has)
      return WalkResult::advance();
    op->emitOpError("needs ") << needs << ", which " << target.chip
                              << " does not have";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

void ConvertTileToNVVMPass::runOnOperation() {
  gpu::GPUModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  FailureOr<TargetInfo> target = resolveTarget(module, chip);
  if (failed(target))
    return signalPassFailure();

  bool needsSmem = false;
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    if (failed(verifyChipFeatures(kernel, *target)))
      return signalPassFailure();
    if (failed(planSharedMemory(kernel, *target)))
      return signalPassFailure();
    needsSmem |=
        kernel->getAttrOfType<IntegerAttr>(kSmemBytesAttr).getInt() > 0;
  }
  if (needsSmem && !module.lookupSymbol(kSmemSymbol)) {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
    LLVM::GlobalOp::create(b, module.getLoc(), arrayType, /*isConstant=*/false,
                           LLVM::Linkage::External, kSmemSymbol, Attribute(),
                           /*alignment=*/1024, /*addrSpace=*/3);
  }

  markWarpSpecializeGroups(module);
  GroupFactsMap groupFacts = analyzeGroupFacts(module);
  TileTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  ConversionTarget conversionTarget(*ctx);
  conversionTarget.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
  conversionTarget.addIllegalDialect<TileDialect>();
  conversionTarget.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return converter.isLegal(op); });
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       conversionTarget);
  populateKernelOpToLLVMPatterns(converter, patterns, *target);
  populateLoadStoreOpToLLVMPatterns(converter, patterns, groupFacts);
  populateElementwiseOpToLLVMPatterns(converter, patterns);
  populateFp8CastOpToLLVMPatterns(converter, patterns, *target);
  populateLayoutOpToLLVMPatterns(converter, patterns);
  populateReduceOpToLLVMPatterns(converter, patterns);
  populateSharedMemoryOpToLLVMPatterns(converter, patterns);
  populateFmaDotPatterns(converter, patterns);
  populateMmaSm80Patterns(converter, patterns, *target);
  populateWgmmaSm90Patterns(converter, patterns, *target);
  populateTmaOpToLLVMPatterns(converter, patterns);
  populateWarpSpecializeOpToLLVMPatterns(converter, patterns, *target);
  if (failed(applyPartialConversion(module, conversionTarget,
                                    std::move(patterns))))
    return signalPassFailure();
}
