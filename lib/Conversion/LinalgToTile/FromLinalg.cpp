//===- FromLinalg.cpp - linalg contractions and attention to tile ops -----===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-from-linalg, the linalg frontend of tilec. Named
// tile ops live in kernels over global memory, linalg ops in functions over
// tensors, so every match is *outlined*:
//
//   func.func @f(%a, %b)                func.func @f(%a, %b)
//     %e = tensor.empty                   %e = tensor.empty
//     %z = linalg.fill 0.0 -> %e   ==>    %r = tile.launch @f_gemm0(%a, %b)
//     %r = linalg.matmul %a, %b -> %z            outs(%e) args [...]
//                                       tile.kernel @f_gemm0(%A, %B, %C,
//                                                            %M, %N, %K)
//                                         tile.make_view ... tile.gemm
//
// tile.launch is the host-side boundary, in destination-passing style: its
// operands are the tensors the kernel's pointer parameters point at, as
// dense row-major buffers, and its `args` say how the host computes each
// kernel parameter from them. The kernels then go through the ordinary
// tilec flow (tile-expand-named-ops per chip, PTX, cubin); the function
// stays as host code, which one-shot bufferization and tile-lower-launches
// turn into calls of tilec's host runtime (`tilec --emit=host`).
//
// Patterns match from one anchor op each (linalg.matmul, linalg.batch_matmul,
// linalg.softmax, and the generic-op decomposition of softmax); a matmul that
// belongs to an attention pattern is left to the attention patterns, so the
// result does not depend on the order in which ops are visited.
//
// Semantics kept and changed:
//  - tile.gemm accumulates in f32 and rounds once when storing C; a linalg
//    matmul with bf16/f16 `outs` rounds at every step, and an epilogue with
//    casts in the middle rounds there. The kernels are at least as accurate.
//  - a batch_matmul becomes one batched tile.gemm (3-D views), one launch,
//    and a batch_reduce_matmul one batch-reduce tile.gemm (3-D A and B, 2-D
//    C); only the transpose kernel of an fp8/i8/f32 B [K, N] is still
//    launched per matrix (tile.launch `batch`).
//  - tile.attention's scale defaults to 1/sqrt(head_dim); the matched scale
//    (1.0 without a scale op) is always written.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/LinalgToTile/Passes.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "LinalgActivations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/DebugLog.h"

#include <limits>

#define DEBUG_TYPE "tile-from-linalg"

namespace mlir::tilec::tile {
#define GEN_PASS_DEF_TILEFROMLINALG
#include "tilec/Conversion/LinalgToTile/Passes.h.inc"
} // namespace mlir::tilec::tile

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;

/// Category of the remarks this pass emits (`--remarks-filter=...`).
static constexpr StringLiteral kRemarkCategory = "tile-from-linalg";

//===----------------------------------------------------------------------===//
// Matching helpers
//===----------------------------------------------------------------------===//

/// Records `reason` (the first one wins) and returns failure. Matchers report
/// why they do not apply through this, for notifyMatchFailure, remarks and
/// strict-mode errors alike.
static LogicalResult fail(std::string *why, const Twine &reason) {
  if (why && why->empty())
    *why = reason.str();
  return failure();
}

/// Prints a type into a string, for failure reasons.
static std::string typeToString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// The element type of a shaped value.
static Type getElementType(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// True for the input element types tile.gemm and tile.attention take.
static bool isHalfType(Type t) { return t.isBF16() || t.isF16(); }

/// True for the output element types tile.gemm stores.
static bool isGemmOutputType(Type t) { return isHalfType(t) || t.isF32(); }

/// If `v` is a `linalg.fill` of +-0.0 (or integer 0), returns the filled tensor
/// (the fill's destination), whose contents then do not matter.
static Value getZeroFillDest(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.hasPureTensorSemantics())
    return {};
  Value zero = fill.getInputs()[0];
  if (!matchPattern(zero, m_AnyZeroFloat()) && !matchPattern(zero, m_Zero()))
    return {};
  return fill.getOutputs()[0];
}

/// On memrefs: the `linalg.fill` of zero into `buffer` right before `op`
/// (nothing between can read `buffer`), if any.
static Operation *getZeroFillBefore(Operation *op, Value buffer) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  if (!fill || !fill.hasPureBufferSemantics() || fill.getOutputs()[0] != buffer)
    return nullptr;
  Value zero = fill.getInputs()[0];
  if (!matchPattern(zero, m_AnyZeroFloat()) && !matchPattern(zero, m_Zero()))
    return nullptr;
  return fill;
}

/// The constant float `v` holds, if any.
static std::optional<double> getConstantFloat(Value v) {
  APFloat value(0.0);
  if (!matchPattern(v, m_ConstantFloat(&value)))
    return std::nullopt;
  return value.convertToDouble();
}

/// Checks that the memref `memref`, named `name`, is a dense row-major
/// buffer: its strides are the row-major ones of its shape.
static LogicalResult checkDenseMemRef(MemRefType memref, StringRef name,
                                      std::string *why) {
  if (memref.getLayout().isIdentity())
    return success();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return fail(why, name + " is a memref with a non-strided layout");
  // Contiguous iff every stride is the product of the sizes inside it;
  // dynamic sizes or strides cannot be proven.
  int64_t expected = 1;
  for (int64_t d = memref.getRank() - 1; d >= 0; --d) {
    int64_t size = memref.getDimSize(d);
    if (size != 1 && ShapedType::isDynamic(strides[d]))
      return fail(why, name + " is a memref with a dynamic stride (" +
                           typeToString(memref) +
                           "); contiguity cannot be proven");
    if (size != 1 && strides[d] != expected)
      return fail(why, name + " is a non-contiguous strided memref (" +
                           typeToString(memref) + ")");
    if (ShapedType::isDynamic(size) && d > 0)
      return fail(why, name + " is a strided memref of dynamic shape (" +
                           typeToString(memref) +
                           "); contiguity cannot be proven");
    expected *= size;
  }
  return success();
}

/// Checks that the memref `memref`, named `name`, can be read through a
/// strided kernel view: dense row-major, or a strided layout (a subview, a
/// buffer with padded rows, one-shot bufferization's fully dynamic layout)
/// whose rows are contiguous. Such an operand's outer strides become kernel
/// parameters and its offset moves the base (KernelSignature::
/// getLayoutStride); a dynamic innermost stride is checked to be 1 at the
/// launch (tile-lower-launches). Vectors must be dense.
static LogicalResult checkRowStridedMemRef(MemRefType memref, StringRef name,
                                           std::string *why) {
  if (memref.getRank() < 2)
    return checkDenseMemRef(memref, name, why);
  if (succeeded(checkDenseMemRef(memref, name, nullptr)))
    return success();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return fail(why, name + " is a memref with a non-strided layout");
  int64_t inner = strides.back();
  if (!ShapedType::isDynamic(inner) && inner != 1 &&
      memref.getShape().back() != 1)
    return fail(why, name +
                         " is a strided memref whose rows are not "
                         "contiguous (" +
                         typeToString(memref) + ", inner stride " +
                         Twine(inner) +
                         "); tile views read rows of unit stride: copy "
                         "it into a dense buffer first (memref.copy)");
  return success();
}

/// Checks that `v` can be handed to a kernel as a pointer to a dense,
/// row-major buffer: a ranked tensor without encoding (when it is read from
/// a memref, `bufferization.to_tensor`, that memref must be dense), or a
/// dense memref. With `rowStrided`, a memref may also be strided with
/// contiguous rows (checkRowStridedMemRef).
static LogicalResult checkDenseOperand(Value v, StringRef name,
                                       std::string *why,
                                       bool rowStrided = false) {
  auto shaped = dyn_cast<ShapedType>(v.getType());
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  auto memref = dyn_cast<MemRefType>(v.getType());
  if (!tensor && !memref)
    return fail(why, name + " is not a ranked tensor or a memref");
  if (tensor && tensor.getEncoding())
    return fail(why, name + " has a tensor encoding");
  // Kernel sizes and strides are i32; an empty launch grid is not a launch.
  for (int64_t size : shaped.getShape()) {
    if (size == 0)
      return fail(why, name + " is empty (a zero-size dimension)");
    if (!ShapedType::isDynamic(size) &&
        size > std::numeric_limits<int32_t>::max())
      return fail(why, name + " has a dimension of " + Twine(size) +
                           " elements; kernel sizes are 32-bit");
  }
  if (memref)
    return rowStrided ? checkRowStridedMemRef(memref, name, why)
                      : checkDenseMemRef(memref, name, why);
  auto toTensor = v.getDefiningOp<bufferization::ToTensorOp>();
  if (!toTensor)
    return success();
  auto source = dyn_cast<MemRefType>(toTensor.getBuffer().getType());
  if (!source)
    return fail(why, name + " is read from a buffer that is not a memref");
  return checkDenseMemRef(source, name, why);
}

/// `(d0, ..., dn-1) -> (d0, ..., dn-2)`: a value per row, broadcast along
/// the last dimension.
static bool isRowMap(AffineMap map, unsigned rank) {
  if (map.getNumDims() != rank || map.getNumResults() != rank - 1)
    return false;
  for (unsigned i = 0; i + 1 < rank; ++i)
    if (map.getResult(i) != getAffineDimExpr(i, map.getContext()))
      return false;
  return true;
}

/// `(d0, ..., dn-1) -> (dn-1)`: a value per column (a bias), broadcast along
/// the other dimensions.
static bool isColumnMap(AffineMap map, unsigned rank) {
  return map.getNumDims() == rank && map.getNumResults() == 1 &&
         map.getResult(0) == getAffineDimExpr(rank - 1, map.getContext());
}

/// True for a generic on tensors whose loops are all parallel.
static bool isElementwise(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() && op.getNumDpsInits() == 1 &&
         llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
           return t == utils::IteratorType::parallel;
         });
}

/// The payload ops of `op`, without the terminator.
static SmallVector<Operation *> getPayload(linalg::GenericOp op) {
  SmallVector<Operation *> ops;
  for (Operation &inner : op.getBody()->without_terminator())
    ops.push_back(&inner);
  return ops;
}

/// The value `op`'s payload yields.
static Value getYielded(linalg::GenericOp op) {
  return op.getBody()->getTerminator()->getOperand(0);
}

/// If `op` is an elementwise cast (`arith.truncf`/`arith.extf`) of one
/// identity-mapped input, returns that input.
static Value matchElementwiseCast(linalg::GenericOp op) {
  if (!isElementwise(op) || op.getNumDpsInputs() != 1 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  SmallVector<Operation *> payload = getPayload(op);
  if (payload.size() != 1 || !isa<arith::TruncFOp, arith::ExtFOp>(payload[0]))
    return {};
  if (payload[0]->getOperand(0) != op.getBody()->getArgument(0) ||
      getYielded(op) != payload[0]->getResult(0))
    return {};
  return op.getDpsInputs()[0];
}

/// Erases `ops` (the matched ops, now unused) and then every producer of
/// their operands that became trivially dead (fills, tensor.empty,
/// transposes, constants).
static void eraseMatchedOps(RewriterBase &rewriter, ArrayRef<Operation *> ops) {
  SmallVector<Operation *> worklist(ops.begin(), ops.end());
  llvm::SmallPtrSet<Operation *, 16> erased;
  // Users first: sweep until nothing more can go. No op is created here,
  // so erased pointers are never reused while `erased` holds them.
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned i = 0; i < worklist.size(); ++i) {
      Operation *op = worklist[i];
      if (erased.contains(op) || !op->use_empty() ||
          (!llvm::is_contained(ops, op) && !isOpTriviallyDead(op)))
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (!llvm::is_contained(worklist, def))
            worklist.push_back(def);
      rewriter.eraseOp(op);
      erased.insert(op);
      changed = true;
    }
  }
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

namespace {
/// A matrix-vector product computed as a skinny GEMM.
enum class VectorForm {
  None,
  Matvec, ///< y[M] = A[M, K] x[K]: x is B ([N, K] with N = 1), y one column
  Vecmat, ///< y[N] = x[K] A[K, N]: x is A ([M, K] with M = 1), y one row
};

/// How a linalg.matmul / linalg.batch_matmul / matvec / vecmat reads its
/// operands.
struct ContractionInfo {
  Value lhs, rhs, init, result;
  /// batch_matmul: every operand has a leading batch dimension.
  bool batched = false;
  /// batch_reduce_matmul (with `batched`): A and B have the batch
  /// dimension, the result sums over it and has none.
  bool batchReduce = false;
  VectorForm vector = VectorForm::None;
  /// `rhs` is stored [N, K] (transposed-B maps, or a linalg.transpose that
  /// was looked through).
  bool rhsTransposed = false;
  /// The linalg.transpose looked through, if any.
  Operation *transpose = nullptr;
};
} // namespace

/// Reads the operand layout of a matmul or batch_matmul on tensors: the
/// default maps or the transposed-B ones (what `linalg.matmul_transpose_b`
/// was before MLIR 22). A rhs produced by `linalg.transpose` of the two
/// matrix dimensions is looked through.
static FailureOr<ContractionInfo> getContractionInfo(Operation *op,
                                                     std::string *why) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (linalgOp && isa<linalg::MatvecOp, linalg::VecmatOp>(op)) {
    // Their maps are fixed: matvec (m, k) x (k) -> (m), vecmat (k) x (k, n)
    // -> (n).
    ContractionInfo info;
    bool matvec = isa<linalg::MatvecOp>(op);
    info.vector = matvec ? VectorForm::Matvec : VectorForm::Vecmat;
    info.lhs = linalgOp.getDpsInputs()[0];
    info.rhs = linalgOp.getDpsInputs()[1];
    info.init = linalgOp.getDpsInits()[0];
    info.result = op->getNumResults() ? op->getResult(0) : Value();
    // matvec's x, a [1, K] row, is B stored [N, K]: read K-major as is.
    info.rhsTransposed = matvec;
    return info;
  }
  if (!linalgOp || !isa<linalg::MatmulOp, linalg::BatchMatmulOp,
                        linalg::BatchReduceMatmulOp>(op))
    return fail(why, Twine("a contraction of another form (") +
                         op->getName().getStringRef() +
                         "); tile-from-linalg converts linalg.matmul, "
                         "linalg.batch_matmul, linalg.batch_reduce_matmul, "
                         "linalg.matvec and linalg.vecmat, and "
                         "linalg.generic / linalg.contract ops that are one "
                         "of them");
  // On tensors or on buffers: linalg's verifier allows no mix.
  ContractionInfo info;
  info.batchReduce = isa<linalg::BatchReduceMatmulOp>(op);
  info.batched = isa<linalg::BatchMatmulOp>(op) || info.batchReduce;
  MLIRContext *ctx = op->getContext();
  // Loops: [b,] m, n, k.
  unsigned o = info.batched ? 1 : 0;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto map = [&](ArrayRef<AffineExpr> exprs) {
    SmallVector<AffineExpr> results;
    if (info.batched)
      results.push_back(d(0));
    llvm::append_range(results, exprs);
    return AffineMap::get(3 + o, 0, results, ctx);
  };
  AffineMap lhsMap = map({d(o), d(o + 2)}), rhsMap = map({d(o + 2), d(o + 1)});
  AffineMap rhsTMap = map({d(o + 1), d(o + 2)}), outMap = map({d(o), d(o + 1)});
  if (info.batchReduce) // (the batch is summed over)
    outMap = AffineMap::get(3 + o, 0, {d(o), d(o + 1)}, ctx);
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  if (maps[0] == map({d(o + 2), d(o)}))
    return fail(why, "A is transposed; tile.gemm needs A contiguous along K");
  if (maps[0] != lhsMap || maps[2] != outMap ||
      (maps[1] != rhsMap && maps[1] != rhsTMap))
    return fail(why, "unsupported indexing maps (only the default and the "
                     "transposed-B ones are handled)");
  info.rhsTransposed = maps[1] == rhsTMap;
  info.lhs = linalgOp.getDpsInputs()[0];
  info.rhs = linalgOp.getDpsInputs()[1];
  info.init = linalgOp.getDpsInits()[0];
  info.result = op->getNumResults() ? op->getResult(0) : Value();
  if (!info.rhsTransposed) {
    if (auto t = info.rhs.getDefiningOp<linalg::TransposeOp>()) {
      ArrayRef<int64_t> perm = t.getPermutation();
      bool swapsMatrixDims = info.batched ? perm == ArrayRef<int64_t>{0, 2, 1}
                                          : perm == ArrayRef<int64_t>{1, 0};
      if (swapsMatrixDims && t.hasPureTensorSemantics()) {
        info.rhs = t.getInput();
        info.rhsTransposed = true;
        info.transpose = t;
      }
    }
  }
  return info;
}

//===----------------------------------------------------------------------===//
// Outlining: kernel signature, kernel, tile.launch
//===----------------------------------------------------------------------===//

namespace {
/// A size or stride of a kernel view: static, or an i32 kernel parameter.
struct Extent {
  int64_t staticValue = ShapedType::kDynamic;
  /// Index among the scalar parameters when dynamic.
  unsigned scalar = 0;

  static Extent get(int64_t v) { return {v, 0}; }
  bool isStatic() const { return !ShapedType::isDynamic(staticValue); }
};

/// The parameters of an outlined kernel and how the host computes each of
/// them from the launch operands: one `!tile.ptr` per launch operand, then
/// i32 sizes and strides, created on demand and deduplicated.
class KernelSignature {
public:
  explicit KernelSignature(MLIRContext *ctx) : ctx(ctx) {}

  /// Adds launch operand `v` and its pointer parameter `name`; returns the
  /// operand's index.
  unsigned addOperand(StringRef name, Value v) {
    operands.push_back(v);
    ptrNames.push_back(name.str());
    return operands.size() - 1;
  }

  /// A size that the launch operands' dimensions `sources` (operand, dim)
  /// all have: static when any of them knows it, else an i32 parameter read
  /// from the first source.
  Extent getSize(StringRef name,
                 ArrayRef<std::pair<unsigned, unsigned>> sources) {
    for (auto [arg, dim] : sources) {
      int64_t size = cast<ShapedType>(operands[arg].getType()).getDimSize(dim);
      if (!ShapedType::isDynamic(size))
        return Extent::get(size);
    }
    auto [arg, dim] = sources.front();
    return getScalar(name, {{"arg", arg}, {"dim", dim}});
  }

  /// The row-major stride of dimension `dim` of launch operand `arg`, which
  /// is `product` (the sizes inside it) when that is static.
  Extent getStride(StringRef name, unsigned arg, unsigned dim,
                   int64_t product) {
    if (!ShapedType::isDynamic(product))
      return Extent::get(product);
    return getScalar(name, {{"arg", arg}, {"stride", dim}});
  }

  /// Whether launch operand `arg` is a memref whose layout is not provably
  /// dense row-major (a strided one, checkRowStridedMemRef): the kernel then
  /// takes its strides (getLayoutStride).
  bool isStrided(unsigned arg) const {
    auto memref = dyn_cast<MemRefType>(operands[arg].getType());
    return memref && failed(checkDenseMemRef(memref, "", nullptr));
  }

  /// Stride `dim` of the strided launch operand `arg` (isStrided): 1 for
  /// its innermost dimension (the launch checks that a dynamic one is 1),
  /// else an i32 parameter read from the memref at the launch, static
  /// strides included (the launch checks every stride it does not pass).
  Extent getLayoutStride(StringRef name, unsigned arg, unsigned dim) {
    auto memref = cast<MemRefType>(operands[arg].getType());
    if (dim + 1 == static_cast<unsigned>(memref.getRank()))
      return Extent::get(1);
    return getScalar(name, {{"arg", arg}, {"stride", dim}});
  }

  ArrayRef<Value> getOperands() const { return operands; }

  /// Whether the kernel's launch requirements depend on values known only
  /// at run time: a size or stride parameter (its hints), or a strided
  /// memref (its offset moves the base).
  bool hasRuntimeExtents() const {
    return !scalars.empty() ||
           llvm::any_of(llvm::seq<unsigned>(0, operands.size()),
                        [&](unsigned i) { return isStrided(i); });
  }

  /// Parameter types, names and host descriptors, pointers first.
  void getParams(SmallVectorImpl<Type> &types,
                 SmallVectorImpl<std::string> &names,
                 SmallVectorImpl<Attribute> &descriptors) const {
    Builder b(ctx);
    for (auto [i, v] : llvm::enumerate(operands)) {
      types.push_back(PtrType::get(ctx, getElementType(v)));
      names.push_back(ptrNames[i]);
      descriptors.push_back(
          b.getDictionaryAttr(b.getNamedAttr("arg", b.getI64IntegerAttr(i))));
    }
    for (const Scalar &s : scalars) {
      types.push_back(b.getI32Type());
      names.push_back(s.name);
      descriptors.push_back(s.descriptor);
    }
  }

  /// Index of a scalar's parameter in the kernel signature.
  unsigned getParamIndex(const Extent &e) const {
    return operands.size() + e.scalar;
  }

private:
  struct Scalar {
    std::string name;
    DictionaryAttr descriptor;
  };

  Extent getScalar(StringRef name,
                   ArrayRef<std::pair<StringRef, unsigned>> fields) {
    Builder b(ctx);
    SmallVector<NamedAttribute> attrs;
    for (auto [key, value] : fields)
      attrs.push_back(b.getNamedAttr(key, b.getI64IntegerAttr(value)));
    DictionaryAttr desc = b.getDictionaryAttr(attrs);
    for (auto [i, s] : llvm::enumerate(scalars))
      if (s.descriptor == desc)
        return Extent{ShapedType::kDynamic, static_cast<unsigned>(i)};
    scalars.push_back({name.str(), desc});
    return Extent{ShapedType::kDynamic,
                  static_cast<unsigned>(scalars.size() - 1)};
  }

  MLIRContext *ctx;
  SmallVector<Value> operands;
  SmallVector<std::string> ptrNames;
  SmallVector<Scalar> scalars;
};

/// An outlined kernel under construction, and the signature its parameters
/// come from.
struct OutlinedKernel {
  KernelOp kernel;
  const KernelSignature *signature;
  LaunchOp launch;
  /// The tile.launch's result: the destination's new value.
  Value result;

  /// The i32 value of `e` in the kernel: a constant or a parameter.
  Value getExtentValue(OpBuilder &b, Location loc, const Extent &e) {
    if (e.isStatic())
      return arith::ConstantIntOp::create(b, loc, e.staticValue, 32);
    return kernel.getBody().front().getArgument(signature->getParamIndex(e));
  }

  /// `e` as an affine expression for the grid rule: a constant, or a symbol
  /// whose parameter index is appended to `params`.
  AffineExpr getExtentExpr(const Extent &e, SmallVectorImpl<int64_t> &params) {
    MLIRContext *ctx = kernel.getContext();
    if (e.isStatic())
      return getAffineConstantExpr(e.staticValue, ctx);
    params.push_back(signature->getParamIndex(e));
    return getAffineSymbolExpr(params.size() - 1, ctx);
  }

  /// A `tile.make_view` of pointer parameter `arg`.
  Value makeView(OpBuilder &b, Location loc, unsigned arg,
                 ArrayRef<Extent> sizes, ArrayRef<Extent> strides) {
    Block &body = kernel.getBody().front();
    SmallVector<int64_t> staticSizes, staticStrides;
    SmallVector<Value> dynSizes, dynStrides;
    auto add = [&](ArrayRef<Extent> extents, SmallVectorImpl<int64_t> &st,
                   SmallVectorImpl<Value> &dyn) {
      for (const Extent &e : extents) {
        st.push_back(e.staticValue);
        if (!e.isStatic())
          dyn.push_back(body.getArgument(signature->getParamIndex(e)));
      }
    };
    add(sizes, staticSizes, dynSizes);
    add(strides, staticStrides, dynStrides);
    Value base = body.getArgument(arg);
    auto type = ViewType::get(b.getContext(), staticSizes,
                              cast<PtrType>(base.getType()).getElementType(),
                              staticStrides);
    return MakeViewOp::create(b, loc, type, base, dynSizes, dynStrides);
  }
};
} // namespace

/// The first `<base><i>` that names no symbol of `module`.
static std::string getUniqueKernelName(ModuleOp module, StringRef base) {
  for (unsigned i = 0;; ++i) {
    std::string name = (base + Twine(i)).str();
    if (!SymbolTable::lookupSymbolIn(module, name))
      return name;
  }
}

/// Creates the kernel `<func>_<kind><i>` (an entry block to be filled by the
/// caller and terminated with tile.return) and the tile.launch of it right
/// before `before`, whose destination is the signature's last operand (the
/// launch's result is `OutlinedKernel::result`). `batchArgs` lists the
/// launch operands a batched kernel advances per batch index.
static OutlinedKernel outline(PatternRewriter &rewriter, Operation *anchor,
                              StringRef kind, const KernelSignature &sig,
                              Operation *before, ArrayRef<int64_t> batchArgs) {
  MLIRContext *ctx = rewriter.getContext();
  Location loc = anchor->getLoc();
  auto func = anchor->getParentOfType<func::FuncOp>();
  auto module = func->getParentOfType<ModuleOp>();
  std::string name =
      getUniqueKernelName(module, (func.getSymName() + "_" + kind).str());

  SmallVector<Type> paramTypes;
  SmallVector<std::string> paramNames;
  SmallVector<Attribute> descriptors;
  sig.getParams(paramTypes, paramNames, descriptors);

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(module.getBody());
  auto kernel = KernelOp::create(rewriter, loc, name,
                                 FunctionType::get(ctx, paramTypes, {}),
                                 paramNames, /*numWarps=*/4);

  // Every operand dominates `before` (they feed it or ops before it in the
  // same block).
  rewriter.setInsertionPoint(before);
  ArrayRef<Value> operands = sig.getOperands();
  Value dest = operands.back();
  // On memrefs the launch writes `dest` in place and has no result.
  Type resultType = isa<MemRefType>(dest.getType()) ? Type() : dest.getType();
  auto launch = LaunchOp::create(
      rewriter, loc, resultType, FlatSymbolRefAttr::get(ctx, name),
      operands.drop_back(), dest, rewriter.getArrayAttr(descriptors),
      batchArgs.empty() ? DenseI64ArrayAttr()
                        : rewriter.getDenseI64ArrayAttr(batchArgs),
      /*fallback=*/FlatSymbolRefAttr());
  return {kernel, &sig, launch, launch.getResult()};
}

/// Outlines a kernel whose launch replaces `result`, called right before
/// `result`'s producer; on memrefs (no result), right before `anchor`.
static OutlinedKernel outlineReplacing(PatternRewriter &rewriter,
                                       Operation *anchor, StringRef kind,
                                       const KernelSignature &sig, Value result,
                                       ArrayRef<int64_t> batchArgs) {
  if (!result)
    return outline(rewriter, anchor, kind, sig, anchor, batchArgs);
  OutlinedKernel kernel =
      outline(rewriter, anchor, kind, sig, result.getDefiningOp(), batchArgs);
  rewriter.replaceAllUsesWith(result, kernel.result);
  return kernel;
}

/// Adds the launch's fallback: a copy `<kernel>_aligned0` of the GEMM kernel
/// whose tile.gemm takes any operands (`aligned = false`: plain loads, no
/// TMA or cp.async). The host runtime launches it when the operands break
/// the first kernel's requirements (tile.launch's `fallback`), as tilec.gemm
/// picks its `_aligned0` variant in Python.
static void addAlignedFallback(PatternRewriter &rewriter,
                               OutlinedKernel &outlined) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfter(outlined.kernel);
  auto copy = cast<KernelOp>(rewriter.clone(*outlined.kernel));
  auto module = outlined.kernel->getParentOfType<ModuleOp>();
  std::string name = getUniqueKernelName(
      module, (outlined.kernel.getSymName() + "_aligned").str());
  copy.setSymName(name);
  MLIRContext *ctx = rewriter.getContext();
  copy.walk([&](GemmOp gemm) {
    gemm.setConfigAttr(GemmConfigAttr::get(
        ctx, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
        std::nullopt, std::nullopt, BoolAttr(), std::nullopt, std::nullopt,
        BoolAttr(), std::nullopt, std::nullopt, BoolAttr::get(ctx, false),
        BoolAttr(), std::nullopt));
  });
  outlined.launch.setFallbackAttr(FlatSymbolRefAttr::get(ctx, name));
}

/// Emits the remark of a successful outlining.
static void remarkOutlined(Operation *anchor, KernelOp kernel,
                           StringRef namedOp) {
  StringRef funcName;
  if (auto f = anchor->getParentOfType<func::FuncOp>())
    funcName = f.getSymName();
  remark::passed(anchor->getLoc(), remark::RemarkOpts::name("Outlined")
                                       .category(kRemarkCategory)
                                       .function(funcName))
      << remark::add("outlined into tile.kernel @{0} as {1}",
                     kernel.getSymName().str(), namedOp.str());
}

//===----------------------------------------------------------------------===//
// Softmax and attention
//===----------------------------------------------------------------------===//

namespace {
/// A softmax along the last dimension: `result = softmax(input)`.
struct SoftmaxMatch {
  Value input, result;
  SmallVector<Operation *> ops;
};

/// An attention pattern: O = softmax(scale * Q K^T) V.
struct AttentionPlan {
  Value q, k, v;
  /// O's buffer (the contents do not matter) and the value O replaces.
  Value dest, result;
  float scale = 1.0f;
  bool batched = false;
  SmallVector<Operation *> ops;
};
} // namespace

/// linalg.softmax along the last dimension, on tensors.
static FailureOr<SoftmaxMatch> matchSoftmax(linalg::SoftmaxOp op,
                                            std::string *why) {
  auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
  if (!type || op->getNumResults() != 1)
    return fail(why, "softmax on buffers; tile-from-linalg runs on tensors");
  if (op.getDimension() != static_cast<uint64_t>(type.getRank() - 1))
    return fail(why, "softmax is not along the last dimension");
  return SoftmaxMatch{op.getInput(), op->getResult(0), {op}};
}

/// If `row` is made by a generic reducing its identity-mapped input along the
/// last dimension into a row vector with one of `CombinerOps`, starting from
/// a linalg.fill (of zero with `zeroInit`), and has no other use, returns
/// that input.
template <typename... CombinerOps>
static Value matchRowReduction(Value row, bool zeroInit) {
  auto op = row.getDefiningOp<linalg::GenericOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || !row.hasOneUse())
    return {};
  unsigned rank = op.getNumLoops();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i < rank; ++i)
    if ((i + 1 == rank) != (iters[i] == utils::IteratorType::reduction))
      return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[0].isIdentity() || !isRowMap(maps[1], rank))
    return {};
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || (zeroInit && !getZeroFillDest(fill->getResult(0))))
    return {};
  SmallVector<Operation *> payload = getPayload(op);
  Block *body = op.getBody();
  if (payload.size() != 1 || !isa<CombinerOps...>(payload[0]) ||
      getYielded(op) != payload[0]->getResult(0))
    return {};
  Value a = payload[0]->getOperand(0), b = payload[0]->getOperand(1);
  Value in = body->getArgument(0), acc = body->getArgument(1);
  if (!((a == in && b == acc) || (a == acc && b == in)))
    return {};
  return op.getDpsInputs()[0];
}

/// If `op` computes `x - m` elementwise with `m` a row vector broadcast
/// along the last dimension (`exp` applied after it when `withExp`),
/// returns `{x, m}`.
static std::optional<std::pair<Value, Value>> matchSubRow(linalg::GenericOp op,
                                                          bool withExp) {
  if (!isElementwise(op) || op.getNumDpsInputs() != 2)
    return std::nullopt;
  unsigned rank = op.getNumLoops();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[0].isIdentity() || !isRowMap(maps[1], rank) ||
      !maps[2].isIdentity())
    return std::nullopt;
  SmallVector<Operation *> payload = getPayload(op);
  if (payload.size() != (withExp ? 2u : 1u))
    return std::nullopt;
  auto sub = dyn_cast<arith::SubFOp>(payload[0]);
  Block *body = op.getBody();
  if (!sub || sub.getLhs() != body->getArgument(0) ||
      sub.getRhs() != body->getArgument(1))
    return std::nullopt;
  Value last = sub;
  if (withExp) {
    auto exp = dyn_cast<math::ExpOp>(payload[1]);
    if (!exp || exp.getOperand() != sub.getResult())
      return std::nullopt;
    last = exp;
  }
  if (getYielded(op) != last)
    return std::nullopt;
  return std::make_pair(op.getDpsInputs()[0], op.getDpsInputs()[1]);
}

/// The decomposition of softmax into generics that upstream's
/// `decompose_interface` produces (and torch-style frontends write):
///
///   m = max-reduce(x)            (maximumf or maxnumf, from a fill)
///   e = exp(x - m)               (one generic, or sub then exp)
///   s = sum-reduce(e)            (addf, from a zero fill)
///   y = e / s                    <- `div`, the anchor
static FailureOr<SoftmaxMatch> matchDecomposedSoftmax(linalg::GenericOp div,
                                                      std::string *why) {
  auto notSoftmax = [&] {
    return fail(why, "not the final division of a softmax decomposition");
  };
  if (!isElementwise(div) || div.getNumDpsInputs() != 2)
    return notSoftmax();
  unsigned rank = div.getNumLoops();
  SmallVector<AffineMap> maps = div.getIndexingMapsArray();
  if (!maps[0].isIdentity() || !isRowMap(maps[1], rank) ||
      !maps[2].isIdentity())
    return notSoftmax();
  SmallVector<Operation *> payload = getPayload(div);
  auto divf = payload.size() == 1 ? dyn_cast<arith::DivFOp>(payload[0])
                                  : arith::DivFOp();
  if (!divf || divf.getLhs() != div.getBody()->getArgument(0) ||
      divf.getRhs() != div.getBody()->getArgument(1) ||
      getYielded(div) != divf.getResult())
    return notSoftmax();

  Value e = div.getDpsInputs()[0], s = div.getDpsInputs()[1];
  Value sumInput = matchRowReduction<arith::AddFOp>(s, /*zeroInit=*/true);
  if (sumInput != e || !llvm::hasNItems(e.getUses(), 2))
    return notSoftmax();
  auto expOp = e.getDefiningOp<linalg::GenericOp>();
  if (!expOp)
    return notSoftmax();
  SoftmaxMatch match;
  std::optional<std::pair<Value, Value>> xm = matchSubRow(expOp, true);
  if (!xm) {
    // exp(t) with t = x - m in a generic of its own.
    SmallVector<Operation *> expPayload = getPayload(expOp);
    if (!isElementwise(expOp) || expOp.getNumDpsInputs() != 1 ||
        !llvm::all_of(expOp.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }) ||
        expPayload.size() != 1 || !isa<math::ExpOp>(expPayload[0]) ||
        expPayload[0]->getOperand(0) != expOp.getBody()->getArgument(0) ||
        getYielded(expOp) != expPayload[0]->getResult(0))
      return notSoftmax();
    Value t = expOp.getDpsInputs()[0];
    auto subOp = t.getDefiningOp<linalg::GenericOp>();
    if (!subOp || !t.hasOneUse() || !(xm = matchSubRow(subOp, false)))
      return notSoftmax();
    match.ops.push_back(subOp);
  }
  auto [x, m] = *xm;
  Value maxInput = matchRowReduction<arith::MaximumFOp, arith::MaxNumFOp>(
      m, /*zeroInit=*/false);
  if (maxInput != x)
    return notSoftmax();
  match.input = x;
  match.result = div->getResult(0);
  match.ops.append({m.getDefiningOp(), expOp, s.getDefiningOp(), div});
  return match;
}

/// If `op` scales its input by a constant (`x * c`, `c * x` or `x / c`),
/// returns `{x, factor}`.
static std::optional<std::pair<Value, double>>
matchScale(linalg::GenericOp op) {
  if (!isElementwise(op) || op.getNumDpsInputs() != 1 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return std::nullopt;
  SmallVector<Operation *> payload = getPayload(op);
  // The constant may live in the payload or be captured from above.
  Operation *arithOp = nullptr;
  for (Operation *inner : payload) {
    if (isa<arith::ConstantOp>(inner))
      continue;
    if (arithOp)
      return std::nullopt;
    arithOp = inner;
  }
  if (!arithOp || arithOp->getNumOperands() != 2 ||
      getYielded(op) != arithOp->getResult(0))
    return std::nullopt;
  Value in = op.getBody()->getArgument(0);
  Value a = arithOp->getOperand(0), b = arithOp->getOperand(1);
  if (isa<arith::MulFOp>(arithOp)) {
    if (a != in)
      std::swap(a, b);
    std::optional<double> c = getConstantFloat(b);
    if (a != in || !c)
      return std::nullopt;
    return std::make_pair(op.getDpsInputs()[0], *c);
  }
  if (isa<arith::DivFOp>(arithOp)) {
    std::optional<double> c = getConstantFloat(b);
    if (a != in || !c || *c == 0.0)
      return std::nullopt;
    return std::make_pair(op.getDpsInputs()[0], 1.0 / *c);
  }
  return std::nullopt;
}

/// The only user of `v`, if it has exactly one use.
static Operation *getSingleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

/// Matches the attention pattern around a softmax:
///
///   S = matmul(Q, K^T)  [* scale]  -> softmax -> [cast] -> matmul(P, V)
///   [-> cast]
///
/// 2-D ([seq, head_dim]) or batched ([batch, seq, head_dim]) through
/// batch_matmul. Every intermediate must have no other use.
static FailureOr<AttentionPlan> matchAttention(const SoftmaxMatch &softmax,
                                               std::string *why) {
  AttentionPlan plan;
  plan.ops = softmax.ops;

  // Backwards: [scale] <- Q K^T.
  Value scores = softmax.input;
  if (llvm::any_of(scores.getUsers(), [&](Operation *user) {
        return !llvm::is_contained(softmax.ops, user);
      }))
    return fail(why, "the softmax input has other uses");
  if (auto scaleOp = scores.getDefiningOp<linalg::GenericOp>()) {
    std::optional<std::pair<Value, double>> scaled = matchScale(scaleOp);
    if (!scaled)
      return fail(why, "the softmax input is not a (scaled) Q*K^T matmul");
    if (!scaled->first.hasOneUse())
      return fail(why, "the scores Q*K^T have other uses");
    plan.scale = scaled->second;
    scores = scaled->first;
    plan.ops.push_back(scaleOp);
  }
  Operation *qkOp = scores.getDefiningOp();
  if (!isa_and_nonnull<linalg::MatmulOp, linalg::BatchMatmulOp>(qkOp))
    return fail(why, "the softmax input is not a (scaled) Q*K^T matmul");
  FailureOr<ContractionInfo> qk = getContractionInfo(qkOp, why);
  if (failed(qk))
    return failure();
  if (!qk->rhsTransposed)
    return fail(why, "Q*K^T must read K as [seq_kv, head_dim] (transposed-B "
                     "maps or a linalg.transpose)");
  if (!getZeroFillDest(qk->init))
    return fail(why, "Q*K^T must accumulate into a zero fill");
  plan.ops.push_back(qkOp);
  if (qk->transpose && qk->transpose->getResult(0).hasOneUse())
    plan.ops.push_back(qk->transpose);
  plan.batched = qk->batched;
  plan.q = qk->lhs;
  plan.k = qk->rhs;

  // Forwards: [cast] -> P V [-> cast].
  Value probs = softmax.result;
  Operation *user = getSingleUser(probs);
  if (auto cast = dyn_cast_or_null<linalg::GenericOp>(user)) {
    if (!matchElementwiseCast(cast))
      return fail(why, "the softmax result does not feed a P*V matmul");
    plan.ops.push_back(cast);
    probs = cast->getResult(0);
    user = getSingleUser(probs);
  }
  if (!isa_and_nonnull<linalg::MatmulOp, linalg::BatchMatmulOp>(user))
    return fail(why, "the softmax result does not feed a P*V matmul");
  FailureOr<ContractionInfo> pv = getContractionInfo(user, why);
  if (failed(pv))
    return failure();
  if (pv->lhs != probs || pv->rhsTransposed || pv->transpose)
    return fail(why, "P*V must read P as A and V as a row-major B");
  if (pv->batched != plan.batched)
    return fail(why, "Q*K^T and P*V must both be batched or both 2-D");
  Value dest = getZeroFillDest(pv->init);
  if (!dest)
    return fail(why, "P*V must accumulate into a zero fill");
  plan.ops.push_back(user);
  plan.v = pv->rhs;
  plan.dest = dest;
  plan.result = pv->result;
  if (auto cast =
          dyn_cast_or_null<linalg::GenericOp>(getSingleUser(plan.result))) {
    if (matchElementwiseCast(cast) &&
        !cast.payloadUsesValueFromOperand(cast.getDpsInitOperand(0))) {
      plan.ops.push_back(cast);
      plan.dest = cast.getDpsInits()[0];
      plan.result = cast->getResult(0);
    }
  }

  Block *block = plan.ops.front()->getBlock();
  if (llvm::any_of(plan.ops,
                   [&](Operation *op) { return op->getBlock() != block; }))
    return fail(why, "the attention pattern spans several blocks");

  // What tile.attention takes.
  Type et = getElementType(plan.q);
  if (!isHalfType(et))
    return fail(why,
                "expected bf16 or f16 Q, K and V, got " + typeToString(et));
  if (getElementType(plan.k) != et || getElementType(plan.v) != et)
    return fail(why, "expected Q, K and V of one element type");
  if (getElementType(plan.result) != et)
    return fail(why, "the attention output has element type " +
                         typeToString(getElementType(plan.result)) +
                         "; tile.attention writes Q's type " +
                         typeToString(et));
  auto qType = cast<RankedTensorType>(plan.q.getType());
  int64_t headDim = qType.getShape().back();
  if (headDim != 64 && headDim != 128 && headDim != 256)
    return fail(why,
                "head_dim must be a static 64, 128 or 256, got " +
                    (ShapedType::isDynamic(headDim) ? std::string("?")
                                                    : std::to_string(headDim)));
  int64_t vDim = cast<ShapedType>(plan.v.getType()).getShape().back();
  if (vDim != headDim)
    return fail(why, "V's head_dim differs from Q's (tile.attention needs "
                     "one head_dim)");
  // The batch strides seq * head_dim are i32 kernel values too.
  for (Value seqOperand : {plan.q, plan.k}) {
    int64_t seq = cast<ShapedType>(seqOperand.getType()).getShape().end()[-2];
    if (plan.batched && !ShapedType::isDynamic(seq) &&
        seq * headDim > std::numeric_limits<int32_t>::max())
      return fail(why, "a batch stride of " + Twine(seq * headDim) +
                           " elements does not fit the 32-bit kernel sizes");
  }
  if (!(plan.scale > 0.0f) || !std::isfinite(plan.scale))
    return fail(why, "the scale must be positive and finite");
  for (auto [name, v] : {std::pair<StringRef, Value>{"Q", plan.q},
                         {"K", plan.k},
                         {"V", plan.v},
                         {"O", plan.dest}})
    if (failed(checkDenseOperand(v, name, why)))
      return failure();
  return plan;
}

/// Finds the softmax an attention pattern around `matmul` would be anchored
/// at: the one its result feeds (through a scale) or the one its A operand
/// comes from (through a cast).
static SmallVector<SoftmaxMatch> findAdjacentSoftmaxes(Operation *matmul) {
  SmallVector<SoftmaxMatch> found;
  // Ensure a matmul on buffers (no result) does not crash.
  if (matmul->getNumResults() != 1)
    return found;
  auto tryAnchor = [&](Operation *op) {
    if (auto sm = dyn_cast_or_null<linalg::SoftmaxOp>(op)) {
      if (FailureOr<SoftmaxMatch> m = matchSoftmax(sm, nullptr); succeeded(m))
        found.push_back(*m);
    } else if (auto g = dyn_cast_or_null<linalg::GenericOp>(op)) {
      if (FailureOr<SoftmaxMatch> m = matchDecomposedSoftmax(g, nullptr);
          succeeded(m))
        found.push_back(*m);
    }
  };
  // Forwards: the decomposed form's anchor is up to three ops downstream
  // (max/sub/exp, then div).
  Value scores = matmul->getResult(0);
  if (auto scale = dyn_cast_or_null<linalg::GenericOp>(getSingleUser(scores)))
    if (std::optional<std::pair<Value, double>> s = matchScale(scale))
      scores = scale->getResult(0);
  SmallVector<Operation *> frontier(scores.getUsers());
  for (unsigned depth = 0; depth < 3; ++depth) {
    SmallVector<Operation *> next;
    for (Operation *op : frontier) {
      tryAnchor(op);
      if (isa<linalg::GenericOp>(op) && op->getNumResults() == 1)
        llvm::append_range(next, op->getResult(0).getUsers());
    }
    frontier = std::move(next);
  }
  // Backwards from A.
  Value lhs = matmul->getOperand(0);
  if (auto cast = lhs.getDefiningOp<linalg::GenericOp>())
    if (Value in = matchElementwiseCast(cast))
      lhs = in;
  tryAnchor(lhs.getDefiningOp());
  return found;
}

/// True when `matmul` is part of an attention pattern that the attention
/// patterns convert as a whole.
static bool isPartOfAttention(Operation *matmul) {
  for (const SoftmaxMatch &softmax : findAdjacentSoftmaxes(matmul)) {
    FailureOr<AttentionPlan> plan = matchAttention(softmax, nullptr);
    if (succeeded(plan) && llvm::is_contained(plan->ops, matmul))
      return true;
  }
  return false;
}

/// Outlines a matched attention pattern into a tile.attention kernel over
/// `[batch, 1, seq, head_dim]` views.
static void rewriteAttention(PatternRewriter &rewriter, Operation *anchor,
                             const AttentionPlan &plan) {
  KernelSignature sig(rewriter.getContext());
  unsigned q = sig.addOperand("Q", plan.q);
  unsigned k = sig.addOperand("K", plan.k);
  unsigned v = sig.addOperand("V", plan.v);
  unsigned o = sig.addOperand("O", plan.dest);
  unsigned s = plan.batched ? 1 : 0;
  int64_t headDim = cast<ShapedType>(plan.q.getType()).getShape().back();
  Extent batch = Extent::get(1);
  if (plan.batched)
    batch = sig.getSize("batch", {{q, 0}, {k, 0}, {v, 0}, {o, 0}});
  Extent seqQ = sig.getSize("seq_q", {{q, s}, {o, s}});
  Extent seqKv = sig.getSize("seq_kv", {{k, s}, {v, s}});
  Extent d = Extent::get(headDim);
  Extent one = Extent::get(1);
  // Row-major strides. The inserted heads dimension (and the batch dimension
  // of the 2-D form) has size 1, so its stride is never multiplied by a
  // non-zero index; it takes the row stride, which keeps TMA's 16-byte
  // stride rule. Q and O share seq_q * head_dim, K and V seq_kv * head_dim.
  auto batchStride = [&](StringRef name, unsigned arg, Extent seq) {
    if (!plan.batched)
      return d;
    return sig.getStride(name, arg, 0,
                         seq.isStatic() ? seq.staticValue * headDim
                                        : ShapedType::kDynamic);
  };
  Extent qStride = batchStride("stride_q", q, seqQ);
  Extent kvStride = batchStride("stride_kv", k, seqKv);

  SmallVector<int64_t> batchArgs;
  OutlinedKernel kernel = outlineReplacing(rewriter, anchor, "attention", sig,
                                           plan.result, batchArgs);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&kernel.kernel.getBody().front());
  Location loc = anchor->getLoc();
  auto view = [&](unsigned arg, Extent seq, Extent stride) {
    return kernel.makeView(rewriter, loc, arg, {batch, one, seq, d},
                           {stride, d, d, one});
  };
  Value qv = view(q, seqQ, qStride);
  Value kv = view(k, seqKv, kvStride);
  Value vv = view(v, seqKv, kvStride);
  Value ov = view(o, seqQ, qStride);
  AttentionOp::create(rewriter, loc, qv, kv, vv, ov, /*lse=*/Value(),
                      /*descales=*/ValueRange(), /*seqused_k=*/Value(),
                      /*block_table=*/Value(), /*cu_seqlens_q=*/Value(),
                      /*cu_seqlens_k=*/Value(), /*max_seqlen_q=*/Value(),
                      /*kv_num_blocks=*/Value(), /*kv_indices=*/Value(),
                      /*kv_full_blocks=*/Value(),
                      /*workspace_o=*/Value(), /*workspace_lse=*/Value(),
                      rewriter.getF32FloatAttr(plan.scale),
                      /*causal=*/false, /*stage=*/AttentionStageAttr(),
                      /*config=*/AttentionConfigAttr());
  ReturnOp::create(rewriter, loc);
  remarkOutlined(anchor, kernel.kernel, "tile.attention");
  eraseMatchedOps(rewriter, plan.ops);
}

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

namespace {
/// A contraction (plus fused epilogue) to outline as tile.gemm.
struct GemmPlan {
  ContractionInfo contraction;
  /// C's buffer and whether the kernel reads it (beta = 1: the matmul
  /// accumulates into an initialized tensor).
  Value dest;
  bool readsC = false;
  /// Fused epilogue: a length-N bias and an activation, in tile.gemm's
  /// order.
  Value bias;
  Activation activation = Activation::None;
  /// The value the kernel's C replaces.
  Value result;
  SmallVector<Operation *> ops;
  /// How f32 inputs multiply (ieee for the other types).
  DotPrecision precision = DotPrecision::IEEE;
  /// B is stored [K, N] but its type is read K-major only (fp8, i8, f32):
  /// a transpose kernel writes it as [N, K] first.
  bool transposeB = false;
};
} // namespace

/// If `v` is a `linalg.broadcast` of a 1-D tensor along every dimension but
/// the last, returns the 1-D tensor.
static Value getBroadcastBias(Value v, unsigned rank) {
  auto bcast = v.getDefiningOp<linalg::BroadcastOp>();
  if (!bcast || !bcast.hasPureTensorSemantics() ||
      cast<ShapedType>(bcast.getInput().getType()).getRank() != 1)
    return {};
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, static_cast<int64_t>(rank) - 1));
  if (bcast.getDimensions() != ArrayRef<int64_t>(dims))
    return {};
  return bcast.getInput();
}

/// Whether `sel` is a ReLU of `x` written as a compare and a select:
/// `select(x > 0, x, 0)` or `select(x < 0, 0, x)` (either operand order of
/// the compare, ordered or unordered, strict or not).
static bool isReluSelect(arith::SelectOp sel, Value x) {
  auto cmp = sel.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp)
    return false;
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  arith::CmpFPredicate pred = cmp.getPredicate();
  using P = arith::CmpFPredicate;
  if (lhs != x) { // 0 < x reads as x > 0
    std::swap(lhs, rhs);
    switch (pred) {
    case P::OGT:
      pred = P::OLT;
      break;
    case P::OGE:
      pred = P::OLE;
      break;
    case P::OLT:
      pred = P::OGT;
      break;
    case P::OLE:
      pred = P::OGE;
      break;
    case P::UGT:
      pred = P::ULT;
      break;
    case P::UGE:
      pred = P::ULE;
      break;
    case P::ULT:
      pred = P::UGT;
      break;
    case P::ULE:
      pred = P::UGE;
      break;
    default:
      return false;
    }
  }
  if (lhs != x || !matchPattern(rhs, m_AnyZeroFloat()))
    return false;
  bool greater = llvm::is_contained({P::OGT, P::OGE, P::UGT, P::UGE}, pred);
  bool less = llvm::is_contained({P::OLT, P::OLE, P::ULT, P::ULE}, pred);
  Value keep = greater ? sel.getTrueValue() : sel.getFalseValue();
  Value zero = greater ? sel.getFalseValue() : sel.getTrueValue();
  return (greater || less) && keep == x && matchPattern(zero, m_AnyZeroFloat());
}

/// Tries to fuse the elementwise generic `op`, which reads `plan.result`,
/// into the epilogue: `act(acc + residual + bias)` with casts anywhere. The
/// payload must be a chain from the accumulator through (in this order,
/// each optional) the additions of a bias (length N, broadcast along rows)
/// and of a residual (a whole M x N tensor of the output type, which
/// becomes C, read with beta = 1), and an activation: a ReLU
/// (`maximumf`/`maxnumf` with 0, or a compare and select), or a GELU (erf
/// form) or SiLU that makes up the rest of the payload (matchActivation),
/// with extf/truncf in between. tile.gemm computes the chain in f32 and
/// rounds once when storing C.
static LogicalResult fuseEpilogue(GemmPlan &plan, linalg::GenericOp op) {
  const ContractionInfo &c = plan.contraction;
  unsigned rank = c.batched && !c.batchReduce ? 3 : 2;
  if (op->getBlock() != plan.result.getDefiningOp()->getBlock() ||
      !isElementwise(op) || op.getNumLoops() != rank ||
      !op.getIndexingMapsArray().back().isIdentity())
    return failure();
  // The accumulator is an input (then the destination must not be read) or
  // the destination itself (an in-place update).
  Value acc, biasArg, biasTensor, residualArg, residual;
  OpOperand *init = op.getDpsInitOperand(0);
  bool inPlace = init->get() == plan.result;
  if (!inPlace && op.payloadUsesValueFromOperand(init))
    return failure();
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (operand.get() == plan.result && map.isIdentity() && !acc) {
      acc = arg;
      continue;
    }
    if (op.isDpsInit(&operand))
      continue;
    if (isColumnMap(map, rank) &&
        cast<ShapedType>(operand.get().getType()).getRank() == 1 && !biasArg) {
      biasArg = arg;
      biasTensor = operand.get();
    } else if (Value b = map.isIdentity() && !biasArg
                             ? getBroadcastBias(operand.get(), rank)
                             : Value()) {
      biasArg = arg;
      biasTensor = b;
    } else if (map.isIdentity() && !residualArg) {
      residualArg = arg;
      residual = operand.get();
    } else {
      return failure();
    }
  }
  if (!acc)
    return failure();

  // Walk the chain: every payload op must extend it (or cast the bias or
  // the residual).
  Value cur = acc, bias = biasArg, res = residualArg;
  bool sawBias = false, sawResidual = false, sawRelu = false;
  std::optional<Activation> act;
  for (Operation *inner : getPayload(op)) {
    if (isa<arith::ExtFOp, arith::TruncFOp>(inner) &&
        inner->getOperand(0) == bias && bias == biasArg) {
      bias = inner->getResult(0);
      continue;
    }
    if (isa<arith::ExtFOp, arith::TruncFOp>(inner) &&
        inner->getOperand(0) == res && res == residualArg) {
      res = inner->getResult(0);
      continue;
    }
    if (isa<arith::ExtFOp, arith::TruncFOp>(inner) &&
        inner->getOperand(0) == cur) {
      cur = inner->getResult(0);
      continue;
    }
    if (isa<arith::ConstantOp>(inner))
      continue;
    auto add = dyn_cast<arith::AddFOp>(inner);
    if (add && (add.getLhs() == cur || add.getRhs() == cur)) {
      Value a = add.getLhs(), b = add.getRhs();
      if (a != cur)
        std::swap(a, b);
      if (a != cur || sawRelu || plan.activation != Activation::None)
        return failure();
      if (bias && b == bias && !sawBias && !plan.bias) {
        sawBias = true;
      } else if (res && b == res && !sawResidual) {
        sawResidual = true;
      } else {
        return failure();
      }
      cur = add;
      continue;
    }
    if (isa<arith::MaximumFOp, arith::MaxNumFOp>(inner) &&
        llvm::is_contained(inner->getOperands(), cur)) {
      Value a = inner->getOperand(0), b = inner->getOperand(1);
      if (a != cur)
        std::swap(a, b);
      if (a != cur || !matchPattern(b, m_AnyZeroFloat()) || sawRelu ||
          plan.activation != Activation::None)
        return failure();
      sawRelu = true;
      cur = inner->getResult(0);
      continue;
    }
    // A ReLU as compare and select: the compare is read by the select.
    if (auto cmp = dyn_cast<arith::CmpFOp>(inner)) {
      if (!cmp->hasOneUse() || !isa<arith::SelectOp>(*cmp->user_begin()))
        return failure();
      continue;
    }
    if (auto sel = dyn_cast<arith::SelectOp>(inner)) {
      if (!isReluSelect(sel, cur) || sawRelu ||
          plan.activation != Activation::None)
        return failure();
      sawRelu = true;
      cur = sel;
      continue;
    }
    // The rest of the payload: an activation of the chain's value (GELU,
    // SiLU), the yielded value, or nothing the epilogue computes.
    if (sawRelu || plan.activation != Activation::None)
      return failure();
    act = matchActivation(getYielded(op), cur);
    if (!act)
      return failure();
    break;
  }
  if ((!act && getYielded(op) != cur) || (biasArg && !sawBias) ||
      (residualArg && !sawResidual))
    return failure();
  Type outType = getElementType(op->getResult(0));
  if (!isGemmOutputType(outType))
    return failure();
  if (sawBias) {
    Type bt = getElementType(biasTensor);
    if (!isGemmOutputType(bt) ||
        failed(checkDenseOperand(biasTensor, "bias", nullptr)))
      return failure();
    plan.bias = biasTensor;
  }
  // The residual becomes C (read with beta = 1): it must have the output's
  // type and shape, and the kernel must not already read another C.
  if (sawResidual) {
    if (plan.readsC || residual.getType() != op->getResult(0).getType() ||
        failed(checkDenseOperand(residual, "residual", nullptr)))
      return failure();
    plan.dest = residual;
    plan.readsC = true;
  }
  if (sawRelu)
    plan.activation = Activation::ReLU;
  else if (act)
    plan.activation = *act;
  if (!inPlace && !sawResidual)
    plan.dest = init->get();
  plan.result = op->getResult(0);
  plan.ops.push_back(op);
  return success();
}

/// Whether a matmul / batch_matmul / batch_reduce_matmul extends integer
/// inputs as signed.
static bool castsSigned(Operation *op) {
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    return matmul.getCast() == linalg::TypeFn::cast_signed;
  if (auto reduce = dyn_cast<linalg::BatchReduceMatmulOp>(op))
    return reduce.getCast() == linalg::TypeFn::cast_signed;
  return cast<linalg::BatchMatmulOp>(op).getCast() ==
         linalg::TypeFn::cast_signed;
}

/// Checks the element types of a contraction against what tile.gemm takes,
/// and records the precision and whether B needs the transpose kernel.
static LogicalResult checkGemmTypes(Operation *op, GemmPlan &plan,
                                    DotPrecision f32Precision,
                                    std::string *why) {
  const ContractionInfo &info = plan.contraction;
  Type at = getElementType(info.lhs), bt = getElementType(info.rhs);
  Type ct = getElementType(info.init);
  bool f32 = at.isF32();
  std::string problem = getGemmElementTypeProblem(at, bt, ct);
  if (!problem.empty())
    return fail(why, "tile.gemm: " + problem);
  // What linalg means beyond tile.gemm's rules: integer casts, and an f32
  // matmul into a narrower output sums in that type.
  if (at.isInteger(8) && !castsSigned(op))
    return fail(why, "an unsigned i8 matmul (cast_unsigned); tile.gemm "
                     "multiplies signed i8");
  if (f32 && !ct.isF32())
    return fail(why, "an f32 matmul into " + typeToString(ct) +
                         " (linalg sums in the output type); tile.gemm "
                         "writes f32 for f32 inputs");
  if (f32)
    plan.precision = f32Precision;
  plan.transposeB = isKMajorOnlyMmaType(at) && !info.rhsTransposed;
  if (plan.transposeB && isa<MemRefType>(info.rhs.getType()))
    return fail(why, "a " + typeToString(at) +
                         " matmul on memrefs with B stored [K, N]: tensor "
                         "cores read it K-major, and the transpose kernel "
                         "needs a new buffer; convert it on tensors (before "
                         "bufferization) or store B [N, K]");
  return success();
}

/// Matches a matmul / batch_matmul that tile.gemm can compute, with the
/// elementwise epilogue that follows it.
static FailureOr<GemmPlan> matchGemm(Operation *op, DotPrecision f32Precision,
                                     std::string *why) {
  FailureOr<ContractionInfo> info = getContractionInfo(op, why);
  if (failed(info))
    return failure();
  GemmPlan plan;
  plan.contraction = *info;
  if (failed(checkGemmTypes(op, plan, f32Precision, why)))
    return failure();
  bool int8 = getElementType(info->lhs).isInteger(8);
  for (auto [name, v] :
       {std::pair<StringRef, Value>{"A", info->lhs}, {"B", info->rhs}})
    if (failed(checkDenseOperand(v, name, why, /*rowStrided=*/true)))
      return failure();
  plan.ops.push_back(op);
  if (info->transpose && info->transpose->getResult(0).hasOneUse())
    plan.ops.push_back(info->transpose);
  plan.result = info->result;
  if (Value zeroed = getZeroFillDest(info->init)) {
    plan.dest = zeroed;
  } else if (Operation *fill = getZeroFillBefore(op, info->init)) {
    // On memrefs, C zeroed right before: the kernel writes C without
    // reading it, and the fill goes.
    plan.dest = info->init;
    plan.ops.push_back(fill);
  } else if (int8) {
    return fail(why, "an i8 matmul accumulating into its init (not a zero "
                     "fill): tile.gemm stores the i32 sums as they are");
  } else {
    plan.dest = info->init;
    plan.readsC = true;
  }
  // Epilogue: elementwise generics that are the only users, one after the
  // other. Not with beta: C would be read from the wrong buffer. i8 sums
  // take none.
  while (plan.result && !plan.readsC && !int8 &&
         info->vector == VectorForm::None) {
    auto user = dyn_cast_or_null<linalg::GenericOp>(getSingleUser(plan.result));
    if (!user || failed(fuseEpilogue(plan, user)))
      break;
  }
  if (failed(checkDenseOperand(plan.dest, "C", why, /*rowStrided=*/true)))
    return failure();
  return plan;
}

/// Side of the square tiles of the transpose kernel.
static constexpr int64_t kTransposeTile = 64;

/// Outlines the transpose of the row-major matrices of `src` ([batch,] R x C
/// -> [batch,] C x R) into a block-program kernel `<func>_transpose<i>`,
/// launched right before `anchor` into a new tensor; returns that tensor.
/// Each program moves one 64 x 64 tile (its loads along C and its stores
/// along R are both contiguous: the layouts meet in shared memory); a
/// batched source is launched per matrix, as batched GEMMs are.
static Value outlineTranspose(PatternRewriter &rewriter, Operation *anchor,
                              Value src, bool batched) {
  Location loc = anchor->getLoc();
  auto srcType = cast<RankedTensorType>(src.getType());
  unsigned o = batched ? 1 : 0;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(anchor);
  SmallVector<int64_t> perm =
      llvm::to_vector(llvm::seq<int64_t>(0, srcType.getRank()));
  std::swap(perm[o], perm[o + 1]);
  SmallVector<int64_t> shape;
  SmallVector<Value> dynSizes;
  for (int64_t d : perm) {
    shape.push_back(srcType.getDimSize(d));
    if (srcType.isDynamicDim(d))
      dynSizes.push_back(tensor::DimOp::create(rewriter, loc, src, d));
  }
  Value dest = tensor::EmptyOp::create(rewriter, loc, shape,
                                       srcType.getElementType(), dynSizes);

  KernelSignature sig(rewriter.getContext());
  unsigned x = sig.addOperand("X", src);
  unsigned y = sig.addOperand("Y", dest);
  Extent rows = sig.getSize("R", {{x, o}, {y, o + 1}});
  Extent cols = sig.getSize("C", {{x, o + 1}, {y, o}});
  SmallVector<int64_t> batchArgs;
  if (batched)
    batchArgs = {x, y};
  OutlinedKernel kernel =
      outline(rewriter, anchor, "transpose", sig, anchor, batchArgs);

  // ceildiv(R, 64) * ceildiv(C, 64) programs, row tiles outer.
  SmallVector<int64_t> params;
  AffineExpr grid = kernel.getExtentExpr(rows, params).ceilDiv(kTransposeTile) *
                    kernel.getExtentExpr(cols, params).ceilDiv(kTransposeTile);
  kernel.kernel.setGridRule(
      AffineMap::get(0, params.size(), grid, rewriter.getContext()), params);

  rewriter.setInsertionPointToStart(&kernel.kernel.getBody().front());
  ImplicitLocOpBuilder b(loc, rewriter);
  Extent one = Extent::get(1);
  Value xv = kernel.makeView(b, loc, x, {rows, cols}, {cols, one});
  Value yv = kernel.makeView(b, loc, y, {cols, rows}, {rows, one});
  Value side = arith::ConstantIntOp::create(b, kTransposeTile, 32);
  Value colTiles =
      arith::CeilDivSIOp::create(b, kernel.getExtentValue(b, loc, cols), side);
  Value pid = ProgramIdOp::create(b, Dim::X);
  Value r0 =
      arith::MulIOp::create(b, arith::DivSIOp::create(b, pid, colTiles), side);
  Value c0 =
      arith::MulIOp::create(b, arith::RemSIOp::create(b, pid, colTiles), side);
  auto tileType = RankedTensorType::get({kTransposeTile, kTransposeTile},
                                        srcType.getElementType());
  Value t = LoadOp::create(b, tileType, xv, ValueRange{r0, c0}, Value(),
                           Padding::Zero);
  Value tt = TransOp::create(b, tileType, t);
  StoreOp::create(b, tt, yv, ValueRange{c0, r0}, Value());
  ReturnOp::create(b);
  remarkOutlined(anchor, kernel.kernel,
                 "a transpose of B to [N, K] (tensor cores read fp8, i8 and "
                 "TF32 operands K-major)");
  return kernel.result;
}

/// Outlines a matched GEMM into a tile.gemm kernel (batched for a
/// batch_matmul: one launch for the whole batch), with an `aligned = false`
/// fallback kernel when `fallbacks` asks for one and run-time values decide
/// which kernel can run (addAlignedFallback).
static void rewriteGemm(PatternRewriter &rewriter, Operation *anchor,
                        const GemmPlan &plan, bool fallbacks) {
  const ContractionInfo &c = plan.contraction;
  // B as the kernel reads it: [N, K] when transposed (by the maps, a
  // linalg.transpose or the transpose kernel), else [K, N].
  Value rhs = c.rhs;
  if (plan.transposeB)
    rhs = outlineTranspose(rewriter, anchor, c.rhs, c.batched);
  bool kMajorB = c.rhsTransposed || plan.transposeB;
  KernelSignature sig(rewriter.getContext());
  unsigned a = sig.addOperand("A", c.lhs);
  unsigned b = sig.addOperand("B", rhs);
  std::optional<unsigned> bias;
  if (plan.bias)
    bias = sig.addOperand("bias", plan.bias);
  unsigned cArg = sig.addOperand("C", plan.dest);
  unsigned o = c.batched ? 1 : 0;
  // (C's matrix dimensions: a batch-reduce GEMM's C has no batch.)
  unsigned oc = c.batchReduce ? 0 : o;
  unsigned bK = kMajorB ? o + 1 : o, bN = kMajorB ? o : o + 1;
  Extent one = Extent::get(1);
  Extent m = one, n = one, k;
  if (c.vector == VectorForm::Matvec) { // A [M, K], x [K], y [M]
    m = sig.getSize("M", {{a, 0}, {cArg, 0}});
    k = sig.getSize("K", {{a, 1}, {b, 0}});
  } else if (c.vector == VectorForm::Vecmat) { // x [K], B [K, N], y [N]
    k = sig.getSize("K", {{a, 0}, {b, 0}});
    n = sig.getSize("N", {{b, 1}, {cArg, 0}});
  } else {
    m = sig.getSize("M", {{a, o}, {cArg, oc}});
    SmallVector<std::pair<unsigned, unsigned>> nSources = {{b, bN},
                                                           {cArg, oc + 1}};
    if (bias)
      nSources.push_back({*bias, 0});
    n = sig.getSize("N", nSources);
    k = sig.getSize("K", {{a, o + 1}, {b, bK}});
  }

  // batch_matmul: one batched tile.gemm over 3-D views, one launch. The
  // batch strides are the matrices' sizes (a parameter when dynamic).
  Extent batch = one, strideA = one, strideB = one, strideC = one;
  auto product = [](Extent x, Extent y) {
    return x.isStatic() && y.isStatic() ? x.staticValue * y.staticValue
                                        : ShapedType::kDynamic;
  };
  // A strided memref operand passes its own strides (getLayoutStride).
  auto stride = [&](StringRef name, unsigned arg, unsigned dim,
                    function_ref<Extent()> rowMajor) {
    return sig.isStrided(arg) ? sig.getLayoutStride(name, arg, dim)
                              : rowMajor();
  };
  if (c.batched) {
    SmallVector<std::pair<unsigned, unsigned>> batchSources = {{a, 0}, {b, 0}};
    if (!c.batchReduce)
      batchSources.push_back({cArg, 0});
    batch = sig.getSize("batch", batchSources);
    strideA = stride("stride_a", a, 0, [&] {
      return sig.getStride("stride_a", a, 0, product(m, k));
    });
    strideB = stride("stride_b", b, 0, [&] {
      return sig.getStride("stride_b", b, 0, product(k, n));
    });
    if (!c.batchReduce)
      strideC = stride("stride_c", cArg, 0, [&] {
        return sig.getStride("stride_c", cArg, 0, product(m, n));
      });
  }
  // The matrices' leading strides: their row lengths unless strided.
  Extent lda = stride("lda", a, o, [&] { return k; });
  Extent ldb = stride("ldb", b, o, [&] { return kMajorB ? k : n; });
  Extent ldc = stride("ldc", cArg, oc, [&] { return n; });
  OutlinedKernel kernel = outlineReplacing(rewriter, anchor, "gemm", sig,
                                           plan.result, /*batchArgs=*/{});
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&kernel.kernel.getBody().front());
  Location loc = anchor->getLoc();
  // Row-major operands: the leading stride of a matrix is its row length
  // (a vector is a matrix of one row; matvec's y one column, stride 1).
  auto view = [&](unsigned arg, Extent rows, Extent cols, Extent rowStride,
                  Extent colStride, Extent batchStride) {
    if (!c.batched || (c.batchReduce && arg == cArg))
      return kernel.makeView(rewriter, loc, arg, {rows, cols},
                             {rowStride, colStride});
    return kernel.makeView(rewriter, loc, arg, {batch, rows, cols},
                           {batchStride, rowStride, colStride});
  };
  Value av = view(a, m, k, lda, one, strideA);
  Value bv = kMajorB ? view(b, k, n, one, ldb, strideB)
                     : view(b, k, n, ldb, one, strideB);
  Value cv = view(cArg, m, n, c.vector == VectorForm::Matvec ? one : ldc, one,
                  strideC);
  Value biasView;
  if (bias)
    biasView = kernel.makeView(rewriter, loc, *bias, {n}, {one});
  Value beta;
  if (plan.readsC)
    beta =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(1.0));
  GemmOp::create(rewriter, loc, av, bv, cv, /*group_offsets=*/Value(),
                 /*workspace=*/Value(), /*alpha=*/Value(), beta,
                 /*scale_a=*/Value(), /*scale_b=*/Value(), biasView,
                 plan.activation, plan.precision, /*stage=*/GemmStageAttr(),
                 /*config=*/GemmConfigAttr());
  ReturnOp::create(rewriter, loc);
  // Sizes, strides or bases known only at run time may break the fast
  // kernel's requirements (16-byte rows and bases): a fallback takes any.
  if (fallbacks && sig.hasRuntimeExtents())
    addAlignedFallback(rewriter, kernel);
  remarkOutlined(anchor, kernel.kernel, "tile.gemm");
  eraseMatchedOps(rewriter, plan.ops);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// linalg.matmul / linalg.batch_matmul (and the epilogue after it) ->
/// a tile.gemm kernel. Matmuls of an attention pattern are left to the
/// attention patterns.
template <typename OpTy>
struct ContractionToTileGemm : OpRewritePattern<OpTy> {
  ContractionToTileGemm(MLIRContext *ctx, DotPrecision f32Precision,
                        bool fallbacks)
      : OpRewritePattern<OpTy>(ctx), f32Precision(f32Precision),
        fallbacks(fallbacks) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!op->template getParentOfType<func::FuncOp>())
      return rewriter.notifyMatchFailure(op, "not inside a func.func");
    if (isPartOfAttention(op))
      return rewriter.notifyMatchFailure(op, "part of an attention pattern");
    std::string why;
    FailureOr<GemmPlan> plan = matchGemm(op, f32Precision, &why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    rewriteGemm(rewriter, op, *plan, fallbacks);
    return success();
  }

private:
  DotPrecision f32Precision;
  bool fallbacks;
};

using MatmulToTileGemm = ContractionToTileGemm<linalg::MatmulOp>;
using BatchMatmulToTileGemm = ContractionToTileGemm<linalg::BatchMatmulOp>;
using BatchReduceMatmulToTileGemm =
    ContractionToTileGemm<linalg::BatchReduceMatmulOp>;
using MatvecToTileGemm = ContractionToTileGemm<linalg::MatvecOp>;
using VecmatToTileGemm = ContractionToTileGemm<linalg::VecmatOp>;

/// Q K^T -> [scale] -> softmax -> P V  ->  a tile.attention kernel, anchored
/// at the softmax's last op `OpT`, whose form `matchSoftmaxOp` recognizes.
template <typename OpT, FailureOr<SoftmaxMatch> (*matchSoftmaxOp)(
                            OpT, std::string *)>
struct SoftmaxToTileAttention : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    if (!op->template getParentOfType<func::FuncOp>())
      return rewriter.notifyMatchFailure(op, "not inside a func.func");
    std::string why;
    FailureOr<SoftmaxMatch> softmax = matchSoftmaxOp(op, &why);
    if (failed(softmax))
      return rewriter.notifyMatchFailure(op, why);
    FailureOr<AttentionPlan> plan = matchAttention(*softmax, &why);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, why);
    rewriteAttention(rewriter, op, *plan);
    return success();
  }
};

/// linalg.softmax.
using NamedSoftmaxToTileAttention =
    SoftmaxToTileAttention<linalg::SoftmaxOp, matchSoftmax>;
/// max / exp(x - max) / sum / div generics, anchored at the division.
using DecomposedSoftmaxToTileAttention =
    SoftmaxToTileAttention<linalg::GenericOp, matchDecomposedSoftmax>;
} // namespace

void mlir::tilec::tile::populateTileFromLinalgPatterns(
    RewritePatternSet &patterns, const TileFromLinalgOptions &options) {
  MLIRContext *ctx = patterns.getContext();
  DotPrecision precision = options.f32Precision;
  bool fallbacks = options.fallbacks;
  patterns.add<MatmulToTileGemm>(ctx, precision, fallbacks); // linalg.matmul
  patterns.add<BatchMatmulToTileGemm>(ctx, precision, fallbacks); // batched
  patterns.add<BatchReduceMatmulToTileGemm>(ctx, precision,
                                            fallbacks);      // summed
  patterns.add<MatvecToTileGemm>(ctx, precision, fallbacks); // A x
  patterns.add<VecmatToTileGemm>(ctx, precision, fallbacks); // x A
  patterns.add<NamedSoftmaxToTileAttention>(ctx);      // linalg.softmax
  patterns.add<DecomposedSoftmaxToTileAttention>(ctx); // linalg.generic
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct TileFromLinalgPass : tile::impl::TileFromLinalgBase<TileFromLinalgPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// Why a candidate op that is still there after the rewrite was not
/// converted.
static std::string explainMissed(Operation *op, DotPrecision f32Precision) {
  std::string why;
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
    FailureOr<SoftmaxMatch> m = matchSoftmax(softmax, &why);
    if (succeeded(m))
      (void)matchAttention(*m, &why);
  } else {
    (void)matchGemm(op, f32Precision, &why);
  }
  if (why.empty())
    why = "not converted";
  return why;
}

/// The ops tile-from-linalg converts or explains: softmaxes and every
/// contraction (named matmuls, generics and linalg.contract ops that
/// contract, matvec, mmt4d, ...).
static bool isCandidate(Operation *op) {
  if (isa<linalg::SoftmaxOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

/// A linalg.generic or linalg.contract that is a matmul or batch_matmul
/// (upstream's linalg::specializeGenericOp recognizes it) and converts is
/// replaced by that named op, which the patterns then convert. One that
/// would not convert stays as it was, and `reasons` says why.
static void
specializeContractions(ModuleOp module, DotPrecision f32Precision,
                       llvm::DenseMap<Operation *, std::string> &reasons) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (isa<linalg::GenericOp, linalg::ContractOp>(op) && isCandidate(op) &&
        op->getParentOfType<func::FuncOp>())
      ops.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : ops) {
    // Tried on a copy: the original stays unless the named form converts.
    rewriter.setInsertionPoint(op);
    auto copy = cast<linalg::LinalgOp>(rewriter.clone(*op));
    FailureOr<linalg::GenericOp> generic =
        isa<linalg::GenericOp>(copy)
            ? FailureOr<linalg::GenericOp>(cast<linalg::GenericOp>(copy))
            : linalg::generalizeNamedOp(rewriter, copy);
    if (failed(generic)) {
      rewriter.eraseOp(copy);
      reasons[op] = "a contraction that upstream's linalg generalization "
                    "does not take";
      continue;
    }
    SmallVector<AffineMap> maps = generic->getIndexingMapsArray();
    FailureOr<linalg::LinalgOp> named =
        linalg::specializeGenericOp(rewriter, *generic);
    Operation *made =
        succeeded(named) ? named->getOperation() : generic->getOperation();
    std::string why;
    // Upstream's specializer (LLVM 22) drops transposed operand maps and
    // makes a matmul that reads the operands wrongly (docs/known-issues.md):
    // the named op takes the generic's maps, and must verify with them.
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(made) &&
        cast<linalg::LinalgOp>(made).getIndexingMapsArray() != maps) {
      made->setAttr("indexing_maps", rewriter.getAffineMapArrayAttr(maps));
      if (failed(mlir::verify(made, /*verifyRecursively=*/false)))
        why = "a contraction whose indexing maps a linalg.matmul or "
              "batch_matmul cannot express";
    }
    if (why.empty() && isa<linalg::MatmulOp, linalg::BatchMatmulOp>(made) &&
        succeeded(matchGemm(made, f32Precision, &why))) {
      rewriter.replaceOp(op, made->getResults());
      continue;
    }
    if (why.empty())
      why = isa<linalg::GenericOp>(made)
                ? "a contraction that is not a matmul or batch_matmul "
                  "(upstream's linalg::specializeGenericOp names none)"
                : "a contraction that is a " +
                      made->getName().getStringRef().str() +
                      ", not a matmul or batch_matmul";
    reasons[op] = why;
    rewriter.eraseOp(made);
  }
}

/// The converted kernel whose result a linalg.generic reads on the host (a
/// consumer its epilogue could not take), if any.
static SymbolRefAttr getKernelRead(linalg::GenericOp op) {
  for (Value v : op.getDpsInputs())
    if (auto launch = v.getDefiningOp<LaunchOp>())
      return launch.getKernelAttr();
  return {};
}

void TileFromLinalgPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  RewritePatternSet patterns(ctx);
  TileFromLinalgOptions options;
  options.f32Precision = f32Precision;
  options.fallbacks = fallbacks;
  populateTileFromLinalgPatterns(patterns, options);
  FrozenRewritePatternSet frozen(std::move(patterns));

  // Only the linalg ops of functions are rewritten; ops elsewhere, and
  // unrelated code in the functions, are not touched (no folding, no DCE).
  // Why an op would be missed is worked out up front: once its neighbours
  // are rewritten (e.g. the matmuls around a softmax whose attention pattern
  // does not fit), the reason would no longer be visible.
  llvm::DenseMap<Operation *, std::string> reasons;
  specializeContractions(module, f32Precision, reasons);
  llvm::DenseSet<Operation *> oldKernels;
  SmallVector<Operation *> candidates;
  module.walk([&](Operation *op) {
    if (isa<KernelOp>(op))
      oldKernels.insert(op);
    if (!(isCandidate(op) || isa<linalg::GenericOp>(op)) ||
        !op->getParentOfType<func::FuncOp>())
      return;
    candidates.push_back(op);
    if (isCandidate(op) && !reasons.count(op))
      reasons[op] = explainMissed(op, f32Precision);
  });
  // The driver pops its worklist from the back: reversing keeps kernel
  // numbering in program order.
  std::reverse(candidates.begin(), candidates.end());
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps)
      .enableFolding(false)
      .enableConstantCSE(false)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  (void)applyOpPatternsGreedily(candidates, frozen, config);

  for (KernelOp kernel : module.getOps<KernelOp>()) {
    if (oldKernels.contains(kernel))
      continue;
    kernel.walk([&](Operation *op) {
      if (auto gemm = dyn_cast<GemmOp>(op)) {
        ++numGemms;
        if (gemm.getBias() || gemm.getActivation() != Activation::None)
          ++numFusedEpilogues;
      } else if (isa<AttentionOp>(op)) {
        ++numAttentions;
      }
    });
  }

  // What is left: a remark (unless `quiet`), or an error in strict mode.
  bool failedStrict = false;
  module.walk([&](Operation *op) {
    auto func = op->getParentOfType<func::FuncOp>();
    if (!func || isa<KernelOp>(op))
      return;
    // A consumer the epilogue did not take runs on the host.
    if (auto generic = dyn_cast<linalg::GenericOp>(op);
        generic && !isCandidate(op)) {
      if (SymbolRefAttr kernel = getKernelRead(generic); kernel && !quiet)
        op->emitRemark("tile-from-linalg: this linalg.generic reads the "
                       "result of kernel ")
            << kernel
            << " and stays outside it: tile.gemm's epilogue fuses a "
               "row-broadcast bias add, a residual add (a whole tensor of "
               "the output's type, into a matmul that does not accumulate), "
               "ReLU (maximumf/maxnumf with 0, or compare and select), GELU "
               "(x * 0.5 * (1 + erf(x / sqrt(2)))), SiLU (x / (1 + "
               "exp(-x))) and "
               "casts, each the only user of the one before; "
               "tile.attention's fuses none";
      return;
    }
    // Only linalg ops can be keys: the rewrite erased some keyed ops, and
    // the ops it created (none of them linalg ops) may reuse their memory.
    if (!isCandidate(op))
      return;
    auto it = reasons.find(op);
    if (it == reasons.end())
      return;
    const std::string &why = it->second;
    if (strict) {
      op->emitError("tile-from-linalg: cannot convert '")
          << op->getName() << "': " << why;
      failedStrict = true;
      return;
    }
    ++numMissed;
    LDBG() << "missed " << op->getName() << ": " << why;
    if (!quiet)
      op->emitRemark("tile-from-linalg: '")
          << op->getName() << "' left unconverted: " << why;
  });
  if (failedStrict)
    signalPassFailure();
}
