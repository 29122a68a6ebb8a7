//===- TileAttrs.cpp - tile dialect attributes ----------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the layout encodings of the `tile` dialect and their
// linear forms.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TensorEncoding.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilec::tile;

#include "tilec/Dialect/Tile/IR/TileAttrInterfaces.cpp.inc"
#include "tilec/Dialect/Tile/IR/TileOpsEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileOpsAttrDefs.cpp.inc"

namespace {
/// A distributed layout applies to tensors of its rank: the parser checks
/// it on every tensor type it reads (a rank-2 #tile.blocked on a rank-1
/// tensor made toLinearLayout read past its dims and loop forever).
template <typename AttrT>
struct LayoutRankModel
    : VerifiableTensorEncoding::ExternalModel<LayoutRankModel<AttrT>, AttrT> {
  LogicalResult
  verifyEncoding(Attribute attr, ArrayRef<int64_t> shape, Type elementType,
                 function_ref<InFlightDiagnostic()> emitError) const {
    unsigned rank = cast<DistributedLayoutAttrInterface>(attr).getRank();
    if (rank != shape.size())
      return emitError() << "layout " << attr << " is for rank-" << rank
                         << " tensors, not rank " << shape.size();
    return success();
  }
};
} // namespace

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/Tile/IR/TileOpsAttrDefs.cpp.inc"
      >();
  MLIRContext &ctx = *getContext();
  BlockedEncodingAttr::attachInterface<LayoutRankModel<BlockedEncodingAttr>>(ctx);
  SliceEncodingAttr::attachInterface<LayoutRankModel<SliceEncodingAttr>>(ctx);
  MmaEncodingAttr::attachInterface<LayoutRankModel<MmaEncodingAttr>>(ctx);
  DotOperandEncodingAttr::attachInterface<
      LayoutRankModel<DotOperandEncodingAttr>>(ctx);
}

static bool allPowersOfTwo(ArrayRef<unsigned> values) {
  return llvm::all_of(values,
                      [](unsigned v) { return llvm::isPowerOf2_32(v); });
}

static unsigned product(ArrayRef<unsigned> values) {
  unsigned p = 1;
  for (unsigned v : values)
    p *= v;
  return p;
}

//===----------------------------------------------------------------------===//
// BlockedEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<unsigned> sizePerThread,
                            ArrayRef<unsigned> threadsPerWarp,
                            ArrayRef<unsigned> warpsPerCTA,
                            ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0)
    return emitError() << "expected a layout of rank at least 1";
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank ||
      order.size() != rank)
    return emitError() << "expected sizePerThread, threadsPerWarp, "
                          "warpsPerCTA and order of the same rank";
  if (!allPowersOfTwo(sizePerThread) || !allPowersOfTwo(threadsPerWarp) ||
      !allPowersOfTwo(warpsPerCTA))
    return emitError() << "expected powers of two in sizePerThread, "
                          "threadsPerWarp and warpsPerCTA";
  if (product(threadsPerWarp) != 32)
    return emitError() << "expected threadsPerWarp to multiply to 32, got "
                       << product(threadsPerWarp);
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError() << "expected order to be a permutation of [0, "
                         << rank << ")";
    seen[d] = true;
  }
  return success();
}

LinearLayout BlockedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> covered(shape.size(), 1);
  SmallVector<LinearLayout::Basis> regs, lanes, warps;
  for (unsigned d : getOrder())
    appendBases(regs, shape, covered, d, getSizePerThread()[d],
                /*dropZero=*/true);
  for (unsigned d : getOrder())
    appendBases(lanes, shape, covered, d, getThreadsPerWarp()[d],
                /*dropZero=*/false);
  for (unsigned d : getOrder())
    appendBases(warps, shape, covered, d, getWarpsPerCTA()[d],
                /*dropZero=*/false);
  // Repeat the block tile over the rest of the tensor, fastest dim first.
  for (unsigned d : getOrder())
    while (covered[d] < shape[d])
      appendBases(regs, shape, covered, d, 2, /*dropZero=*/true);
  return LinearLayout(shape, std::move(regs), std::move(lanes),
                      std::move(warps));
}

unsigned BlockedEncodingAttr::getNumWarps() const { return product(getWarpsPerCTA()); }
unsigned BlockedEncodingAttr::getRank() const { return getOrder().size(); }

//===----------------------------------------------------------------------===//
// SliceEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned dim, Attribute parent) {
  auto layout = dyn_cast<DistributedLayoutAttrInterface>(parent);
  if (!layout)
    return emitError() << "expected a distributed layout as parent";
  if (layout.getRank() < 2)
    return emitError() << "expected a parent layout of rank at least 2";
  if (dim >= layout.getRank())
    return emitError() << "sliced dimension " << dim
                       << " out of range for a parent of rank "
                       << layout.getRank();
  return success();
}

LinearLayout SliceEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> parentShape(shape.begin(), shape.end());
  parentShape.insert(parentShape.begin() + getDim(), 1);
  return cast<DistributedLayoutAttrInterface>(getParent())
      .toLinearLayout(parentShape)
      .dropUnitDim(getDim());
}

unsigned SliceEncodingAttr::getNumWarps() const {
  return cast<DistributedLayoutAttrInterface>(getParent()).getNumWarps();
}
unsigned SliceEncodingAttr::getRank() const {
  return cast<DistributedLayoutAttrInterface>(getParent()).getRank() - 1;
}

//===----------------------------------------------------------------------===//
// MmaEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<unsigned> warpsPerCTA, bool mFirst,
                        unsigned warpRows) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "expected warpsPerCTA of rank 2";
  if (!allPowersOfTwo(warpsPerCTA))
    return emitError() << "expected powers of two in warpsPerCTA";
  if (mFirst && warpsPerCTA[0] % 4 != 0)
    return emitError() << "expected whole warpgroups along M (a multiple of "
                          "4 warps) with mFirst, got "
                       << warpsPerCTA[0];
  if (warpRows != 0 && warpRows != 16)
    return emitError() << "expected warpRows 16 (16-row slices per warp, "
                          "repeated down M) or none, got "
                       << warpRows;
  return success();
}

Attribute MmaEncodingAttr::parse(AsmParser &parser, Type) {
  SmallVector<unsigned> warps;
  bool mFirst = false;
  unsigned warpRows = 0;
  auto parseWarp = [&]() -> ParseResult {
    return parser.parseInteger(warps.emplace_back());
  };
  if (parser.parseLess() || parser.parseKeyword("warpsPerCTA") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseWarp))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key == "mFirst") {
      BoolAttr value;
      if (parser.parseAttribute(value))
        return {};
      mFirst = value.getValue();
    } else if (key == "warpRows") {
      if (parser.parseInteger(warpRows))
        return {};
    } else {
      parser.emitError(loc, "expected 'mFirst' or 'warpRows', got '")
          << key << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<MmaEncodingAttr>(parser.getContext(), warps, mFirst,
                                            warpRows);
}

void MmaEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<warpsPerCTA = [";
  llvm::interleaveComma(getWarpsPerCTA(), printer);
  printer << "]";
  if (getMFirst())
    printer << ", mFirst = true";
  if (getWarpRows())
    printer << ", warpRows = " << getWarpRows();
  printer << ">";
}

/// Appends bases for positions `from, 2*from, ...` below `limit` along `dim`;
/// positions at or beyond `size` wrap to zero.
static void appendRange(SmallVectorImpl<LinearLayout::Basis> &bases,
                        unsigned rank, unsigned dim, int64_t from,
                        int64_t limit, int64_t size, bool dropZero) {
  for (int64_t p = from; p < limit; p *= 2) {
    LinearLayout::Basis b(rank, 0);
    b[dim] = p < size ? p : 0;
    if (dropZero && b[dim] == 0)
      continue;
    bases.push_back(b);
  }
}

static LinearLayout::Basis basis2(int64_t d0, int64_t d1) { return {d0, d1}; }

LinearLayout MmaEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  // One warp holds a 16x8 tile: lane l -> (l/4, 2*(l%4)); registers c0/c1 are
  // adjacent columns, c2/c3 the same columns 8 rows down.
  unsigned wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  int64_t m = shape[0], n = shape[1];
  // warpRows: 16-row slices per warp, the warps' 16 * wm rows repeated
  // down M (registers after the N repetitions).
  int64_t wtM = getWarpRows() ? int64_t(getWarpRows())
                              : std::max<int64_t>(m / wm, 16);
  int64_t wtN = std::max<int64_t>(n / wn, 8);
  SmallVector<LinearLayout::Basis> regs = {basis2(0, 1), basis2(8, 0)};
  SmallVector<LinearLayout::Basis> lanes = {basis2(0, 2), basis2(0, 4),
                                            basis2(1, 0), basis2(2, 0),
                                            basis2(4, 0)};
  SmallVector<LinearLayout::Basis> warps;
  appendRange(regs, 2, 1, 8, wtN, n, /*dropZero=*/true);
  appendRange(regs, 2, 0, 16, wtM, m, /*dropZero=*/true);
  if (getMFirst()) {
    appendRange(warps, 2, 0, wtM, wtM * wm, m, /*dropZero=*/false);
    appendRange(warps, 2, 1, wtN, wtN * wn, n, /*dropZero=*/false);
  } else {
    appendRange(warps, 2, 1, wtN, wtN * wn, n, /*dropZero=*/false);
    appendRange(warps, 2, 0, wtM, wtM * wm, m, /*dropZero=*/false);
  }
  appendRange(regs, 2, 0, wtM * wm, m, m, /*dropZero=*/true);
  return LinearLayout(shape, std::move(regs), std::move(lanes),
                      std::move(warps))
      .wrapToShape();
}

unsigned MmaEncodingAttr::getNumWarps() const { return product(getWarpsPerCTA()); }
unsigned MmaEncodingAttr::getRank() const { return 2; }

//===----------------------------------------------------------------------===//
// DotOperandEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
DotOperandEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned opIdx, Attribute parent,
                               unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "expected opIdx 0 (A) or 1 (B), got " << opIdx;
  if (!isa<MmaEncodingAttr>(parent))
    return emitError() << "expected a #tile.mma parent layout";
  if (kWidth != 1 && kWidth != 2 && kWidth != 4)
    return emitError()
           << "expected kWidth 1 (32-bit), 2 (16-bit) or 4 (8-bit), got "
           << kWidth;
  return success();
}

LinearLayout DotOperandEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  // mma.sync m16n8k(8*kWidth) operand fragments: each 32-bit register holds
  // kWidth consecutive K elements; lane l holds K offset kWidth*(l%4) of row
  // (A) or column (B) l/4; the second K half sits 4*kWidth further.
  auto mma = cast<MmaEncodingAttr>(getParent());
  unsigned wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  int64_t kw = getKWidth();
  SmallVector<LinearLayout::Basis> regs, lanes, warps;
  if (getOpIdx() == 0) {
    int64_t m = shape[0], k = shape[1];
    int64_t wtM = mma.getWarpRows() ? int64_t(mma.getWarpRows())
                                    : std::max<int64_t>(m / wm, 16);
    appendRange(regs, 2, 1, 1, kw, k, true);
    regs.push_back(basis2(8, 0));
    appendRange(regs, 2, 1, 4 * kw, 8 * kw, k, true);
    lanes = {basis2(0, kw), basis2(0, 2 * kw), basis2(1, 0), basis2(2, 0),
             basis2(4, 0)};
    appendRange(regs, 2, 1, 8 * kw, k, k, true);
    appendRange(regs, 2, 0, 16, wtM, m, true);
    // Warps along N hold copies (in the parent's warp order).
    if (mma.getMFirst())
      appendRange(warps, 2, 0, wtM, wtM * wm, m, false);
    for (unsigned i = 1; i < wn; i *= 2)
      warps.push_back(basis2(0, 0));
    if (!mma.getMFirst())
      appendRange(warps, 2, 0, wtM, wtM * wm, m, false);
    // warpRows: the warps' rows repeated down M.
    appendRange(regs, 2, 0, wtM * wm, m, m, true);
  } else {
    int64_t k = shape[0], n = shape[1];
    int64_t wtN = std::max<int64_t>(n / wn, 8);
    appendRange(regs, 2, 0, 1, kw, k, true);
    appendRange(regs, 2, 0, 4 * kw, 8 * kw, k, true);
    lanes = {basis2(kw, 0), basis2(2 * kw, 0), basis2(0, 1), basis2(0, 2),
             basis2(0, 4)};
    appendRange(regs, 2, 0, 8 * kw, k, k, true);
    appendRange(regs, 2, 1, 8, wtN, n, true);
    // Warps along M hold copies (in the parent's warp order).
    if (mma.getMFirst())
      for (unsigned i = 1; i < wm; i *= 2)
        warps.push_back(basis2(0, 0));
    appendRange(warps, 2, 1, wtN, wtN * wn, n, false);
    if (!mma.getMFirst())
      for (unsigned i = 1; i < wm; i *= 2)
        warps.push_back(basis2(0, 0));
  }
  return LinearLayout(shape, std::move(regs), std::move(lanes),
                      std::move(warps))
      .wrapToShape();
}

unsigned DotOperandEncodingAttr::getNumWarps() const {
  return cast<MmaEncodingAttr>(getParent()).getNumWarps();
}
unsigned DotOperandEncodingAttr::getRank() const { return 2; }

//===----------------------------------------------------------------------===//
// SharedEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
SharedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           unsigned vec, unsigned perPhase, unsigned maxPhase,
                           ArrayRef<unsigned> order, unsigned segment) {
  // Checked first: getOffset and the segment check below divide by these
  // (isPowerOf2_32 rejects 0).
  if (!llvm::isPowerOf2_32(vec) || !llvm::isPowerOf2_32(perPhase) ||
      !llvm::isPowerOf2_32(maxPhase))
    return emitError() << "expected powers of two for vec, perPhase and "
                          "maxPhase";
  if (segment != 0 && (!llvm::isPowerOf2_32(segment) || segment % vec != 0))
    return emitError() << "expected a power-of-two segment that is a "
                          "multiple of vec";
  if (order.size() != 2 || order[0] == order[1] || order[0] > 1 ||
      order[1] > 1)
    return emitError() << "expected order [1, 0] or [0, 1]";
  return success();
}

int64_t SharedEncodingAttr::getOffset(ArrayRef<int64_t> coord,
                                      ArrayRef<int64_t> shape) const {
  unsigned c = getOrder()[0], r = getOrder()[1];
  int64_t seg = getSegmentLength(shape[c]);
  int64_t segIdx = coord[c] / seg, inSeg = coord[c] % seg;
  int64_t chunk = inSeg / getVec();
  int64_t phase = (coord[r] / getPerPhase()) % getMaxPhase();
  return segIdx * shape[r] * seg + coord[r] * seg +
         (chunk ^ phase) * getVec() + inSeg % getVec();
}

std::optional<int64_t>
SharedEncodingAttr::getHardwareSwizzleBytes(unsigned elemBytes) const {
  if (getMaxPhase() == 1)
    return 0;
  // Swizzle<B, 4, 3>: 16-byte chunks XOR-ed with address bits [7, 7 + B).
  // Rows of span bytes, 128 / span of them per phase.
  int64_t span = 16 * getMaxPhase();
  if (getVec() * elemBytes != 16 || span > 128 ||
      getPerPhase() * span != 128)
    return std::nullopt;
  return span;
}

std::optional<int64_t>
SharedEncodingAttr::getSegmentSwizzleBytes(unsigned elemBytes) const {
  std::optional<int64_t> span = getHardwareSwizzleBytes(elemBytes);
  if (!span || (*span != 128 && *span != 64) ||
      getSegment() * elemBytes != *span)
    return std::nullopt;
  return span;
}

SharedEncodingAttr
SharedEncodingAttr::getHardwareSwizzled(MLIRContext *ctx, unsigned elemBytes,
                                        unsigned swizzleBytes,
                                        unsigned contig) {
  assert((swizzleBytes == 32 || swizzleBytes == 64 || swizzleBytes == 128) &&
         elemBytes && 16 % elemBytes == 0 && contig < 2 &&
         "not a hardware swizzle");
  // Swizzle<B, 4, 3>: 16-byte chunks, swizzleBytes / 16 phases, each
  // 128 / swizzleBytes rows long.
  return get(ctx, /*vec=*/16 / elemBytes, /*perPhase=*/128 / swizzleBytes,
             /*maxPhase=*/swizzleBytes / 16, {contig, 1 - contig},
             /*segment=*/swizzleBytes / elemBytes);
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//

/// setmaxnreg budgets (of a schedule or a named op's config) are multiples
/// of 8 in [24, 256].
static LogicalResult
verifySetmaxnregBudgets(function_ref<InFlightDiagnostic()> emitError,
                        std::optional<int64_t> producerRegs,
                        std::optional<int64_t> consumerRegs) {
  for (auto [name, regs] : {std::make_pair("producer_regs", producerRegs),
                            std::make_pair("consumer_regs", consumerRegs)})
    if (regs && (*regs < 24 || *regs > 256 || *regs % 8 != 0))
      return emitError() << name
                         << " must be a multiple of 8 in [24, 256], got "
                         << *regs;
  return success();
}

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   std::optional<int64_t> stages, BoolAttr tma,
                                   BoolAttr asyncWgmma, BoolAttr warpSpecialize,
                                   std::optional<int64_t> producerRegs,
                                   std::optional<int64_t> consumerRegs,
                                   BoolAttr persistent, BoolAttr tmaStore,
                                   BoolAttr pingpong, BoolAttr splitLoops,
                                   BoolAttr operandsInSmem, BoolAttr shareTiles,
                                   std::optional<int64_t> groupRows) {
  if (stages && (*stages < 2 || *stages > 16))
    return emitError() << "stages must be in [2, 16], got " << *stages;
  if (groupRows && (*groupRows < 1 || *groupRows > 64))
    return emitError() << "group_rows must be in [1, 64], got " << *groupRows;
  return verifySetmaxnregBudgets(emitError, producerRegs, consumerRegs);
}

ScheduleAttr ScheduleAttr::of(Operation *op) {
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    kernel = op->getParentOfType<KernelOp>();
  return kernel ? kernel.getScheduleAttr() : ScheduleAttr();
}

//===----------------------------------------------------------------------===//
// Named-op configurations
//===----------------------------------------------------------------------===//

FailureOr<BoolAttr> mlir::tilec::tile::parseConfigFlag(AsmParser &parser) {
  MLIRContext *ctx = parser.getContext();
  if (succeeded(parser.parseOptionalKeyword("true")))
    return BoolAttr::get(ctx, true);
  if (succeeded(parser.parseOptionalKeyword("false")))
    return BoolAttr::get(ctx, false);
  int64_t value = 0;
  OptionalParseResult parsed = parser.parseOptionalInteger(value);
  if (!parsed.has_value() || failed(*parsed) || (value != 0 && value != 1))
    return failure();
  return BoolAttr::get(ctx, value == 1);
}

FailureOr<std::optional<int64_t>>
mlir::tilec::tile::parseConfigCount(AsmParser &parser) {
  int64_t value = 0;
  OptionalParseResult parsed = parser.parseOptionalInteger(value);
  if (!parsed.has_value() || failed(*parsed))
    return failure();
  return std::optional<int64_t>(value);
}

namespace {
/// A count of a configuration, as the verifier bounds it.
struct ConfigCount {
  StringRef name;
  std::optional<int64_t> value;
  /// Counts past this fit no chip; bounding them keeps the configuration's
  /// size arithmetic (bytes of rings, tiles) far from overflow.
  int64_t max;
  int64_t min = 1;
  bool powerOfTwo = false;
};
} // namespace

static LogicalResult
verifyConfigCounts(function_ref<InFlightDiagnostic()> emitError,
                   ArrayRef<ConfigCount> counts) {
  for (const ConfigCount &c : counts) {
    if (!c.value)
      continue;
    int64_t v = *c.value;
    if (v < c.min)
      return emitError() << c.name << " = " << v << " must be at least "
                         << c.min;
    if (v > c.max)
      return emitError() << c.name << " = " << v << " is larger than "
                         << c.max;
    if (c.powerOfTwo && !llvm::isPowerOf2_64(v))
      return emitError() << c.name << " = " << v
                         << " must be a power of two";
  }
  return success();
}

/// The fields in `wsOnly` (name, set) only mean something to the
/// warp-specialized kernel: setting one beside `warp_specialize = false`
/// asks for a kernel no chip has.
static LogicalResult verifyWarpSpecializedOnly(
    function_ref<InFlightDiagnostic()> emitError, BoolAttr warpSpecialize,
    ArrayRef<std::pair<StringRef, bool>> wsOnly) {
  if (!warpSpecialize || warpSpecialize.getValue())
    return success();
  for (auto [name, set] : wsOnly)
    if (set)
      return emitError() << name << " needs the warp-specialized kernel, "
                         << "but warp_specialize = false";
  return success();
}

static bool isTrue(BoolAttr flag) { return flag && flag.getValue(); }

LogicalResult GemmConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<int64_t> blockM,
    std::optional<int64_t> blockN, std::optional<int64_t> blockK,
    std::optional<int64_t> stages, std::optional<int64_t> warps,
    std::optional<int64_t> groupM, BoolAttr warpSpecialize,
    std::optional<int64_t> consumerRegs, std::optional<int64_t> producerRegs,
    BoolAttr tmaStore, std::optional<int64_t> clusterM,
    std::optional<int64_t> clusterN, BoolAttr aligned, BoolAttr swapAB,
    std::optional<int64_t> splitK) {
  // The transposed product stores Cᵀ's tiles by the threads.
  if (isTrue(swapAB) && (isTrue(tmaStore) || clusterM.value_or(1) != 1 ||
                         clusterN.value_or(1) != 1))
    return emitError() << "swap_ab takes no tma_store or clusters";
  // Any strides and bases: neither TMA (stores, multicast) nor 16-byte copies.
  if (aligned && !aligned.getValue() &&
      (isTrue(tmaStore) || clusterM.value_or(1) != 1 ||
       clusterN.value_or(1) != 1))
    return emitError() << "aligned = false takes no tma_store or clusters "
                          "(TMA needs 16-byte aligned operands)";
  // Split-K's partial products leave through the threads, in f32.
  if (splitK.value_or(1) > 1 &&
      (isTrue(tmaStore) || clusterM.value_or(1) != 1 ||
       clusterN.value_or(1) != 1))
    return emitError() << "split_k takes no tma_store or clusters (the "
                          "partial products are stored by the threads, in "
                          "f32)";
  if (failed(
          verifyConfigCounts(emitError, {{"block_m", blockM, 1024, 1, true},
                                         {"block_n", blockN, 1024, 1, true},
                                         {"block_k", blockK, 1024, 1, true},
                                         {"stages", stages, 32, /*min=*/2},
                                         {"warps", warps, 32, 1, true},
                                         {"group_m", groupM, int64_t(1) << 16},
                                         {"cluster_m", clusterM, 16},
                                         {"cluster_n", clusterN, 16},
                                         {"split_k", splitK, 64}})) ||
      failed(verifySetmaxnregBudgets(emitError, producerRegs, consumerRegs)))
    return failure();
  return verifyWarpSpecializedOnly(
      emitError, warpSpecialize,
      {{"tma_store", isTrue(tmaStore)},
       {"cluster_m", clusterM.value_or(1) != 1},
       {"cluster_n", clusterN.value_or(1) != 1},
       {"consumer_regs", consumerRegs.has_value()},
       {"producer_regs", producerRegs.has_value()}});
}

LogicalResult AttentionConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<int64_t> blockM,
    std::optional<int64_t> blockN, std::optional<int64_t> stages,
    std::optional<int64_t> warps, BoolAttr warpSpecialize,
    std::optional<int64_t> consumerRegs, std::optional<int64_t> producerRegs,
    BoolAttr pingpong, BoolAttr tmaStore, BoolAttr persistent,
    BoolAttr byPasses, BoolAttr qInSmem, BoolAttr splitLoops,
    std::optional<int64_t> splits, BoolAttr packGqa) {
  if (failed(verifyConfigCounts(emitError,
                                {{"block_m", blockM, 1024, 1, true},
                                 {"block_n", blockN, 1024, /*min=*/16, true},
                                 {"stages", stages, 32, /*min=*/2},
                                 {"warps", warps, 32, 1, true},
                                 {"splits", splits, 256, 1}})) ||
      failed(verifySetmaxnregBudgets(emitError, producerRegs, consumerRegs)))
    return failure();
  return verifyWarpSpecializedOnly(
      emitError, warpSpecialize,
      {{"pingpong", isTrue(pingpong)},
       {"tma_store", isTrue(tmaStore)},
       {"persistent", isTrue(persistent)},
       {"consumer_regs", consumerRegs.has_value()},
       {"producer_regs", producerRegs.has_value()}});
}

LogicalResult AttentionBackwardConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<int64_t> dqM,
    std::optional<int64_t> dqN, std::optional<int64_t> dqWarps,
    std::optional<int64_t> dkvN, std::optional<int64_t> dkvM,
    std::optional<int64_t> dkvWarps, BoolAttr prefetchRows,
    std::optional<int64_t> consumerRegs, std::optional<int64_t> producerRegs,
    std::optional<int64_t> dqAddCols, BoolAttr shareTiles) {
  if (failed(verifyConfigCounts(emitError,
                                {{"dq_m", dqM, 256, /*min=*/16, true},
                                 {"dq_n", dqN, 256, /*min=*/16, true},
                                 {"dq_warps", dqWarps, 16, /*min=*/4, true},
                                 {"dkv_n", dkvN, 256, /*min=*/16, true},
                                 {"dkv_m", dkvM, 256, /*min=*/16, true},
                                 {"dkv_warps", dkvWarps, 16, /*min=*/4, true},
                                 {"dq_add_cols", dqAddCols, 256, 16, true}})))
    return failure();
  return verifySetmaxnregBudgets(emitError, producerRegs, consumerRegs);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

DistributedLayoutAttrInterface mlir::tilec::tile::getDistributedLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  return dyn_cast_or_null<DistributedLayoutAttrInterface>(tensor.getEncoding());
}

LinearLayout mlir::tilec::tile::getLinearLayout(RankedTensorType type) {
  auto layout = getDistributedLayout(type);
  assert(layout && "expected a tensor with a distributed layout");
  return layout.toLinearLayout(type.getShape());
}

unsigned mlir::tilec::tile::getElemsPerThread(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !getDistributedLayout(tensor))
    return 1;
  return getLinearLayout(tensor).getNumRegs();
}
