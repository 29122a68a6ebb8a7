//===- TileDialect.cpp - tile dialect and types ---------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the `tile` dialect class and its types.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tilec::tile;

#include "tilec/Dialect/Tile/IR/TileOpsDialect.cpp.inc"

/// `4x128x32xbf16` in !tile.smem.
static ParseResult parseShape(AsmParser &parser, SmallVector<int64_t> &shape,
                              Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShape(AsmPrinter &printer, ArrayRef<int64_t> shape,
                       Type elementType) {
  for (int64_t d : shape)
    printer << d << "x";
  printer << elementType;
}

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileOpsTypes.cpp.inc"

namespace {
/// Short aliases for layout encodings (`#blocked`, `#mma1`, ...), which
/// otherwise make every tensor type in lowered IR several lines long.
struct TileOpAsmDialectInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr))
      os << "blocked";
    else if (isa<SliceEncodingAttr>(attr))
      os << "slice";
    else if (isa<MmaEncodingAttr>(attr))
      os << "mma";
    else if (isa<DotOperandEncodingAttr>(attr))
      os << "dot_op";
    else if (isa<SharedEncodingAttr>(attr))
      os << "shared";
    else
      return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileOpAsmDialectInterface>();
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/Tile/IR/TileOpsTypes.cpp.inc"
      >();
  registerAttributes();
}

//===----------------------------------------------------------------------===//
// PtrType
//===----------------------------------------------------------------------===//

static bool isTileElementType(Type type) {
  return type.isSignlessInteger() || isa<FloatType>(type);
}

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError,
                              Type elementType) {
  if (!isTileElementType(elementType))
    return emitError() << "expected an integer or float element type, got "
                       << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// ViewType
//===----------------------------------------------------------------------===//

static void printDimOrDynamic(AsmPrinter &printer, int64_t v) {
  if (ShapedType::isDynamic(v))
    printer << "?";
  else
    printer << v;
}

Type ViewType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape, strides;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseKeyword("strides") || parser.parseEqual())
    return {};
  auto parseStride = [&]() -> ParseResult {
    if (succeeded(parser.parseOptionalQuestion())) {
      strides.push_back(ShapedType::kDynamic);
      return success();
    }
    int64_t v;
    if (parser.parseInteger(v))
      return failure();
    strides.push_back(v);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     parseStride) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), ArrayRef<int64_t>(shape), elementType,
                    ArrayRef<int64_t>(strides));
}

void ViewType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape()) {
    printDimOrDynamic(printer, d);
    printer << "x";
  }
  printer << getElementType() << ", strides = [";
  llvm::interleaveComma(getStrides(), printer,
                        [&](int64_t s) { printDimOrDynamic(printer, s); });
  printer << "]>";
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               ArrayRef<int64_t> strides) {
  if (shape.empty())
    return emitError() << "expected a view of rank at least 1";
  if (shape.size() != strides.size())
    return emitError() << "expected " << shape.size()
                       << " strides for a rank-" << shape.size()
                       << " view, got " << strides.size();
  if (!isTileElementType(elementType))
    return emitError() << "expected an integer or float element type, got "
                       << elementType;
  for (int64_t d : shape)
    if (!ShapedType::isDynamic(d) && d < 0)
      return emitError() << "expected non-negative sizes";
  for (int64_t s : strides)
    if (!ShapedType::isDynamic(s) && s < 0)
      return emitError() << "expected non-negative strides";
  return success();
}

std::optional<unsigned> ViewType::getContiguousDim() const {
  // Prefer the innermost unit-stride dimension.
  for (int d = getRank() - 1; d >= 0; --d)
    if (getStrides()[d] == 1)
      return d;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// SmemType
//===----------------------------------------------------------------------===//

LogicalResult SmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               SharedEncodingAttr encoding) {
  if (shape.size() != 3)
    return emitError() << "expected a [stages, rows, cols] buffer shape";
  if (llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
    return emitError() << "expected positive buffer dimensions";
  if (!isTileElementType(elementType))
    return emitError() << "expected an integer or float element type, got "
                       << elementType;
  if (encoding.getOrder().size() != 2)
    return emitError() << "expected a 2-D shared encoding";
  unsigned contig = encoding.getOrder()[0];
  int64_t rowLen = encoding.getSegmentLength(shape[1 + contig]);
  if (rowLen % encoding.getVec() != 0 ||
      rowLen / encoding.getVec() < encoding.getMaxPhase())
    return emitError() << "rows of " << rowLen
                       << " elements cannot hold the swizzle (vec "
                       << encoding.getVec() << ", maxPhase "
                       << encoding.getMaxPhase() << ")";
  return success();
}

int64_t SmemType::getTileElems() const {
  return getShape()[1] * getShape()[2];
}

int64_t SmemType::getSizeInBytes() const {
  unsigned bytes = std::max(1u, getElementType().getIntOrFloatBitWidth() / 8);
  return getNumStages() * getTileElems() * bytes;
}

//===----------------------------------------------------------------------===//
// TensorMapType
//===----------------------------------------------------------------------===//

LogicalResult
TensorMapType::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> shape, Type elementType,
                      SharedEncodingAttr encoding) {
  // TMA copies boxes of rank 1 to 5; tiles are the last two dimensions.
  if (shape.size() < 2 || shape.size() > 5)
    return emitError() << "expected a box of rank 2 to 5, got rank "
                       << shape.size();
  for (int64_t d : shape)
    if (d < 1 || d > 256)
      return emitError() << "box dimensions must be in [1, 256] elements, got "
                         << d;
  for (int64_t d : shape.drop_back(2))
    if (d != 1)
      return emitError() << "leading box dimensions must be 1 (a box is a "
                            "tile of the last two dimensions), got "
                         << d;
  shape = shape.take_back(2);
  if (!isTileElementType(elementType) ||
      elementType.getIntOrFloatBitWidth() < 8)
    return emitError() << "expected an element type of at least 8 bits, got "
                       << elementType;
  if (encoding.getOrder().size() != 2)
    return emitError() << "expected a 2-D shared encoding";
  unsigned elemBytes = elementType.getIntOrFloatBitWidth() / 8;
  std::optional<int64_t> swizzle = encoding.getHardwareSwizzleBytes(elemBytes);
  if (!swizzle)
    return emitError() << encoding
                       << " is not a TMA swizzle mode for " << elementType
                       << " (16-byte chunks, 32/64/128-byte spans)";
  int64_t innerBytes = shape[encoding.getOrder()[0]] * elemBytes;
  if (*swizzle == 0 ? innerBytes % 16 != 0 : innerBytes != *swizzle)
    return emitError() << "the contiguous box dimension is " << innerBytes
                       << " bytes; "
                       << (*swizzle ? "the swizzle needs exactly "
                                    : "TMA needs a multiple of ")
                       << (*swizzle ? *swizzle : 16) << " bytes";
  return success();
}

ArrayRef<int64_t> TensorMapType::getTileBox() const {
  return getShape().take_back(2);
}

int64_t TensorMapType::getBoxBytes() const {
  return getTileBox()[0] * getTileBox()[1] *
         (getElementType().getIntOrFloatBitWidth() / 8);
}

//===----------------------------------------------------------------------===//
// MBarrierType
//===----------------------------------------------------------------------===//

LogicalResult
MBarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                     int64_t size) {
  if (size < 1)
    return emitError() << "expected at least one barrier, got " << size;
  return success();
}
