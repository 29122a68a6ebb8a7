//===- TileOps.cpp - tile dialect operations ------------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the operations of the `tile` dialect: custom syntax
// (kernels and their grid rule, views) and verifiers.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/IR/HostExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tilec::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static bool isPowerOfTwoShape(ArrayRef<int64_t> shape) {
  return llvm::all_of(shape, [](int64_t d) { return d > 0 && llvm::isPowerOf2_64(d); });
}

/// Checks that a static `got` dimension agrees with a static `want` one.
static bool compatibleDim(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     FunctionType type, ArrayRef<std::string> argNames,
                     unsigned numWarps) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  SmallVector<Attribute> names;
  for (const std::string &n : argNames)
    names.push_back(builder.getStringAttr(n));
  state.addAttribute(getArgNamesAttrName(state.name),
                     builder.getArrayAttr(names));
  state.addAttribute(getNumWarpsAttrName(state.name),
                     builder.getI32IntegerAttr(numWarps));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Type t : type.getInputs())
    block->addArgument(t, state.location);
}

void KernelOp::setGridRule(AffineMap map, ArrayRef<int64_t> args) {
  setGridAttr(AffineMapAttr::get(map));
  setGridArgsAttr(DenseI64ArrayAttr::get(getContext(), args));
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  if (&region != &getBody())
    return;
  for (auto [i, arg] : llvm::enumerate(getBody().getArguments()))
    if (i < getArgNames().size())
      setNameFn(arg, getArgName(i));
}

namespace {
/// Recursive-descent parser of grid expressions:
///   expr   := term (('+' | '-') term)*
///   term   := factor ('*' factor)*
///   factor := integer | '-' factor | '(' expr ')' | %param
///           | ('ceildiv' | 'floordiv' | 'mod') '(' expr ',' expr ')'
/// Parameters become affine symbols; `params` collects their indices.
class GridExprParser {
public:
  GridExprParser(OpAsmParser &parser,
                 ArrayRef<OpAsmParser::Argument> arguments,
                 SmallVectorImpl<int64_t> &params)
      : parser(parser), arguments(arguments), params(params) {}

  FailureOr<AffineExpr> parseExpr() {
    FailureOr<AffineExpr> lhs = parseTerm();
    if (failed(lhs))
      return failure();
    while (true) {
      bool plus = succeeded(parser.parseOptionalPlus());
      if (!plus && failed(parser.parseOptionalMinus()))
        return lhs;
      FailureOr<AffineExpr> rhs = parseTerm();
      if (failed(rhs))
        return failure();
      lhs = plus ? *lhs + *rhs : *lhs - *rhs;
    }
  }

private:
  FailureOr<AffineExpr> parseTerm() {
    FailureOr<AffineExpr> lhs = parseFactor();
    if (failed(lhs))
      return failure();
    while (succeeded(parser.parseOptionalStar())) {
      FailureOr<AffineExpr> rhs = parseFactor();
      if (failed(rhs))
        return failure();
      lhs = *lhs * *rhs;
    }
    return lhs;
  }

  FailureOr<AffineExpr> parseBinaryCall(StringRef name) {
    if (parser.parseLParen())
      return failure();
    FailureOr<AffineExpr> a = parseExpr();
    if (failed(a) || parser.parseComma())
      return failure();
    FailureOr<AffineExpr> b = parseExpr();
    if (failed(b) || parser.parseRParen())
      return failure();
    if (name == "ceildiv")
      return a->ceilDiv(*b);
    if (name == "floordiv")
      return a->floorDiv(*b);
    return *a % *b;
  }

  FailureOr<AffineExpr> parseFactor() {
    MLIRContext *ctx = parser.getContext();
    int64_t value;
    OptionalParseResult intResult = parser.parseOptionalInteger(value);
    if (intResult.has_value()) {
      if (failed(*intResult))
        return failure();
      return getAffineConstantExpr(value, ctx);
    }
    if (succeeded(parser.parseOptionalMinus())) {
      FailureOr<AffineExpr> e = parseFactor();
      if (failed(e))
        return failure();
      return -*e;
    }
    if (succeeded(parser.parseOptionalLParen())) {
      FailureOr<AffineExpr> e = parseExpr();
      if (failed(e) || parser.parseRParen())
        return failure();
      return e;
    }
    for (StringRef name : {"ceildiv", "floordiv", "mod"})
      if (succeeded(parser.parseOptionalKeyword(name)))
        return parseBinaryCall(name);
    OpAsmParser::UnresolvedOperand operand;
    SMLoc loc = parser.getCurrentLocation();
    OptionalParseResult opResult = parser.parseOptionalOperand(operand);
    if (!opResult.has_value() || failed(*opResult))
      return parser.emitError(loc, "expected a grid expression");
    for (auto [i, arg] : llvm::enumerate(arguments)) {
      if (arg.ssaName.name != operand.name)
        continue;
      auto *it = llvm::find(params, static_cast<int64_t>(i));
      unsigned pos = it - params.begin();
      if (it == params.end())
        params.push_back(i);
      return getAffineSymbolExpr(pos, ctx);
    }
    return parser.emitError(loc, "'")
           << operand.name << "' is not a parameter of this kernel";
  }

  OpAsmParser &parser;
  ArrayRef<OpAsmParser::Argument> arguments;
  SmallVectorImpl<int64_t> &params;
};
} // namespace

void mlir::tilec::tile::printGridExpr(
    raw_ostream &os, AffineExpr expr,
    function_ref<void(raw_ostream &, unsigned)> printParam, bool nested) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    os << c.getValue();
    return;
  }
  if (auto s = dyn_cast<AffineSymbolExpr>(expr)) {
    printParam(os, s.getPosition());
    return;
  }
  auto bin = cast<AffineBinaryOpExpr>(expr);
  AffineExpr lhs = bin.getLHS(), rhs = bin.getRHS();
  switch (expr.getKind()) {
  case AffineExprKind::Add: {
    if (nested)
      os << "(";
    printGridExpr(os, lhs, printParam, /*nested=*/false);
    // a + b * -1 reads better as a - b.
    auto mul = dyn_cast<AffineBinaryOpExpr>(rhs);
    auto negOne = mul ? dyn_cast<AffineConstantExpr>(mul.getRHS()) : nullptr;
    if (mul && mul.getKind() == AffineExprKind::Mul && negOne &&
        negOne.getValue() == -1) {
      os << " - ";
      printGridExpr(os, mul.getLHS(), printParam, /*nested=*/true);
    } else if (auto c = dyn_cast<AffineConstantExpr>(rhs);
               c && c.getValue() < 0) {
      os << " - " << -c.getValue();
    } else {
      os << " + ";
      printGridExpr(os, rhs, printParam, /*nested=*/false);
    }
    if (nested)
      os << ")";
    return;
  }
  case AffineExprKind::Mul:
    printGridExpr(os, lhs, printParam, /*nested=*/true);
    os << " * ";
    printGridExpr(os, rhs, printParam, /*nested=*/true);
    return;
  case AffineExprKind::CeilDiv:
  case AffineExprKind::FloorDiv:
  case AffineExprKind::Mod:
    os << (expr.getKind() == AffineExprKind::CeilDiv    ? "ceildiv("
           : expr.getKind() == AffineExprKind::FloorDiv ? "floordiv("
                                                        : "mod(");
    printGridExpr(os, lhs, printParam);
    os << ", ";
    printGridExpr(os, rhs, printParam);
    os << ")";
    return;
  default:
    llvm_unreachable("unexpected expression in a grid rule");
  }
}

SmallVector<std::string> KernelOp::getGridRuleStrings() {
  SmallVector<std::string> out;
  std::optional<AffineMap> grid = getGrid();
  if (!grid)
    return out;
  ArrayRef<int64_t> params = *getGridArgs();
  for (AffineExpr e : grid->getResults()) {
    std::string s;
    llvm::raw_string_ostream os(s);
    printGridExpr(os, e, [&](raw_ostream &o, unsigned pos) {
      o << getArgName(params[pos]);
    });
    out.push_back(s);
  }
  return out;
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr nameAttr;
  if (parser.parseSymbolName(nameAttr, SymbolTable::getSymbolAttrName(),
                             result.attributes))
    return failure();

  SmallVector<OpAsmParser::Argument> arguments;
  if (parser.parseArgumentList(arguments, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true, /*allowAttrs=*/true))
    return failure();

  SmallVector<Type> argTypes;
  SmallVector<Attribute> argNames;
  for (auto [i, arg] : llvm::enumerate(arguments)) {
    argTypes.push_back(arg.type);
    StringRef name = arg.ssaName.name.drop_front(); // drop '%'
    if (name.empty() || llvm::isDigit(name.front()))
      argNames.push_back(builder.getStringAttr("arg" + std::to_string(i)));
    else
      argNames.push_back(builder.getStringAttr(name));
  }
  result.addAttribute(getFunctionTypeAttrName(result.name),
                      TypeAttr::get(builder.getFunctionType(argTypes, {})));
  result.addAttribute(getArgNamesAttrName(result.name),
                      builder.getArrayAttr(argNames));

  if (succeeded(parser.parseOptionalKeyword("grid"))) {
    SmallVector<int64_t> params;
    SmallVector<AffineExpr> exprs;
    GridExprParser exprParser(parser, arguments, params);
    auto parseOne = [&]() -> ParseResult {
      FailureOr<AffineExpr> e = exprParser.parseExpr();
      if (failed(e))
        return failure();
      exprs.push_back(*e);
      return success();
    };
    if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseOne))
      return failure();
    AffineMap map = AffineMap::get(0, params.size(), exprs, builder.getContext());
    result.addAttribute(getGridAttrName(result.name), AffineMapAttr::get(map));
    result.addAttribute(getGridArgsAttrName(result.name),
                        builder.getDenseI64ArrayAttr(params));
  }
  if (succeeded(parser.parseOptionalKeyword("warps"))) {
    int32_t warps;
    if (parser.parseLParen() || parser.parseInteger(warps) ||
        parser.parseRParen())
      return failure();
    result.addAttribute(getNumWarpsAttrName(result.name),
                        builder.getI32IntegerAttr(warps));
  }
  if (succeeded(parser.parseOptionalKeyword("cluster"))) {
    SmallVector<int32_t> dims;
    auto parseDim = [&]() -> ParseResult {
      return parser.parseInteger(dims.emplace_back());
    };
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseDim))
      return failure();
    if (dims.size() > 3)
      return parser.emitError(loc, "expected 1 to 3 cluster dimensions");
    dims.resize(3, 1);
    result.addAttribute(getClusterAttrName(result.name),
                        builder.getDenseI32ArrayAttr(dims));
  }
  if (succeeded(parser.parseOptionalKeyword("persistent")))
    result.addAttribute(getPersistentAttrName(result.name),
                        builder.getUnitAttr());
  if (succeeded(parser.parseOptionalKeyword("fast_math")))
    result.addAttribute(getFastMathAttrName(result.name),
                        builder.getUnitAttr());
  if (succeeded(parser.parseOptionalKeyword("schedule"))) {
    ScheduleAttr schedule;
    if (parser.parseCustomAttributeWithFallback(schedule))
      return failure();
    result.addAttribute(getScheduleAttrName(result.name), schedule);
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  call_interface_impl::addArgAndResultAttrs(
      builder, result, arguments, /*resultAttrs=*/{},
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));

  Region *body = result.addRegion();
  return parser.parseRegion(*body, arguments, /*enableNameShadowing=*/false);
}

int64_t KernelOp::getClusterSize() {
  std::optional<ArrayRef<int32_t>> cluster = getCluster();
  if (!cluster)
    return 1;
  int64_t size = 1;
  for (int32_t d : *cluster)
    size *= d;
  return size;
}

void KernelOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << '(';
  ArrayRef<BlockArgument> args = getBody().getArguments();
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (i)
      p << ", ";
    p.printRegionArgument(arg, ::mlir::function_interface_impl::getArgAttrs(
                                   *this, i));
  }
  p << ')';
  if (std::optional<AffineMap> grid = getGrid()) {
    SmallVector<Value> params;
    ArrayRef<int64_t> gridArgs = *getGridArgs();
    for (int64_t idx : gridArgs)
      params.push_back(args[idx]);
    p << " grid(";
    llvm::interleaveComma(grid->getResults(), p, [&](AffineExpr e) {
      printGridExpr(p.getStream(), e, [&](raw_ostream &, unsigned pos) {
        p.printOperand(params[pos]);
      });
    });
    p << ")";
  }
  p << " warps(" << getNumWarps() << ")";
  if (std::optional<ArrayRef<int32_t>> cluster = getCluster()) {
    p << " cluster(";
    llvm::interleaveComma(*cluster, p);
    p << ")";
  }
  if (getPersistent())
    p << " persistent";
  if (getFastMath())
    p << " fast_math";
  if (ScheduleAttr schedule = getScheduleAttr()) {
    p << " schedule";
    p.printStrippedAttrOrType(schedule);
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {SymbolTable::getSymbolAttrName(), getFunctionTypeAttrName(),
       getArgAttrsAttrName(), getResAttrsAttrName(), getArgNamesAttrName(),
       getNumWarpsAttrName(), getGridAttrName(), getGridArgsAttrName(),
       getPersistentAttrName(), getFastMathAttrName(), getClusterAttrName(),
       getScheduleAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

static bool isKernelParamType(Type type) {
  if (isa<PtrType>(type))
    return true;
  if (auto intTy = dyn_cast<IntegerType>(type))
    return intTy.isSignless() && (intTy.getWidth() == 32 || intTy.getWidth() == 64);
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// Checks the `tile.align` / `tile.divisibility` hint `name` of parameter `i`,
/// if present: an integer power of two (alignments are powers of two, and
/// passes combine divisibilities as powers of two: the sum of multiples of
/// 24 and 16 is a multiple of 8, not 16) on a parameter of the kind it
/// describes (`tile.align`: pointers, `tile.divisibility`: integers).
static LogicalResult verifyParamHint(KernelOp kernel, unsigned i,
                                     StringRef name, bool onPointer) {
  Attribute attr = kernel.getArgAttr(i, name);
  if (!attr)
    return success();
  Type type = kernel.getArgumentTypes()[i];
  if (onPointer != isa<PtrType>(type))
    return kernel.emitOpError("'")
           << name << "' applies to " << (onPointer ? "pointer" : "integer")
           << " parameters; '" << kernel.getArgName(i) << "' has type " << type;
  auto value = dyn_cast<IntegerAttr>(attr);
  if (!value || !value.getType().isSignlessInteger() ||
      !value.getValue().isStrictlyPositive() || !value.getValue().isPowerOf2())
    return kernel.emitOpError("expected '")
           << name << "' of parameter '" << kernel.getArgName(i)
           << "' to be a positive power-of-two integer, got " << attr;
  return success();
}

/// The largest tile a kernel may compute with: as many elements as an SM
/// has 32-bit registers (a thread block cannot hold more in registers, and
/// larger tiles made compiles run for minutes).
static constexpr int64_t kMaxTileElements = int64_t(1) << 16;
/// The deepest nesting of regions in a kernel body.
static constexpr unsigned kMaxNesting = 32;

/// A kernel name is a C identifier: PTX takes it as the entry's symbol and
/// the AOT header as a function name.
static bool isKernelName(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name.drop_front(), [](char ch) {
    return llvm::isAlnum(ch) || ch == '_';
  });
}

/// Checks the tiles of the ops in `kernel` (static, non-empty, at most
/// kMaxTileElements) and the nesting of their regions.
static LogicalResult verifyKernelBody(KernelOp kernel) {
  auto checkTile = [&](Operation *at, Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    if (!tensor.hasStaticShape() ||
        llvm::any_of(tensor.getShape(), [](int64_t d) { return d < 1; }))
      return at->emitOpError("tile ")
             << tensor << " must have static, positive dimensions";
    int64_t elems = 1;
    for (int64_t d : tensor.getShape())
      if (llvm::MulOverflow(elems, d, elems) || elems > kMaxTileElements)
        return at->emitOpError("tile ")
               << tensor << " has more than " << kMaxTileElements
               << " elements, more than the 65536 32-bit registers of an SM "
                  "hold";
    return success();
  };
  WalkResult result = kernel.getBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) {
    unsigned depth = 0;
    for (Operation *p = op->getParentOp(); p && p != kernel;
         p = p->getParentOp())
      ++depth;
    if (depth > kMaxNesting) {
      op->emitOpError("is nested ")
          << depth << " regions deep in its kernel; at most " << kMaxNesting
          << " are supported";
      return WalkResult::interrupt();
    }
    for (Type t : op->getResultTypes())
      if (failed(checkTile(op, t)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(checkTile(op, arg.getType())))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult KernelOp::verify() {
  if (!isKernelName(getSymName()))
    return emitOpError("kernel name '")
           << getSymName()
           << "' is not a C identifier ([A-Za-z_][A-Za-z0-9_]*): PTX takes it "
              "as the entry symbol and the AOT header as a function name";
  if (failed(verifyKernelBody(*this)))
    return failure();
  FunctionType type = getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError("expected no results, got ") << type.getNumResults();
  if (getArgNames().size() != type.getNumInputs())
    return emitOpError("expected ")
           << type.getNumInputs() << " parameter names, got "
           << getArgNames().size();
  llvm::StringSet<> seen;
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    if (!isKernelParamType(input))
      return emitOpError("parameter #")
             << i << " has type " << input
             << "; expected !tile.ptr<T>, i32, i64, f16, bf16, f32 or f64";
    if (!seen.insert(getArgName(i)).second)
      return emitOpError("duplicate parameter name '") << getArgName(i) << "'";
    if (failed(verifyParamHint(*this, i, mlir::tilec::tile::kAlignAttr,
                               /*onPointer=*/true)) ||
        failed(verifyParamHint(*this, i, mlir::tilec::tile::kDivisibilityAttr,
                               /*onPointer=*/false)))
      return failure();
  }
  int32_t warps = getNumWarps();
  if (warps < 1 || warps > 32 || !llvm::isPowerOf2_32(warps))
    return emitOpError("expected warps to be a power of two in [1, 32], got ")
           << warps;
  if (getGrid().has_value() != getGridArgs().has_value())
    return emitOpError("expected 'grid' and 'grid_args' together");
  if (std::optional<AffineMap> grid = getGrid()) {
    if (grid->getNumDims() != 0 ||
        grid->getNumSymbols() != getGridArgs()->size())
      return emitOpError("expected a grid map with one symbol per grid "
                         "parameter and no dimensions");
    if (grid->getNumResults() < 1 || grid->getNumResults() > 3)
      return emitOpError("expected a grid of 1 to 3 dimensions, got ")
             << grid->getNumResults();
    ArrayRef<int64_t> gridArgs = *getGridArgs();
    for (int64_t idx : gridArgs) {
      if (idx < 0 || idx >= static_cast<int64_t>(type.getNumInputs()))
        return emitOpError("grid parameter index ") << idx << " out of range";
      if (!isa<IntegerType>(type.getInput(idx)))
        return emitOpError("grid expressions may only use integer "
                           "parameters; '")
               << getArgName(idx) << "' has type " << type.getInput(idx);
    }
  }
  if (getPersistent() && (!getGrid() || getGrid()->getNumResults() != 1))
    return emitOpError("a persistent kernel needs a 1-D grid rule");
  if (std::optional<ArrayRef<int32_t>> cluster = getCluster()) {
    if (cluster->size() != 3 || llvm::any_of(*cluster, [](int32_t d) {
          return d < 1;
        }))
      return emitOpError("expected 3 positive cluster dimensions");
    if (getClusterSize() > 8)
      return emitOpError("a cluster of ")
             << getClusterSize()
             << " programs is over the portable limit of 8";
    if (getPersistent() && ((*cluster)[1] != 1 || (*cluster)[2] != 1))
      return emitOpError("a persistent kernel's cluster must be 1-D "
                         "(cluster(x)): its grid is");
  }
  // FunctionOpInterface already checks the entry block's arguments.
  Block &body = getBody().front();
  if (body.empty() || !isa<ReturnOp>(body.back()))
    return emitOpError("expected the body to end with 'tile.return'");
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramIdOp
//===----------------------------------------------------------------------===//

void ProgramIdOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "pid");
}

//===----------------------------------------------------------------------===//
// MakeViewOp
//===----------------------------------------------------------------------===//

/// Parses `[a, 4, %x]` into static values (kDynamic for SSA entries) and the
/// SSA operands.
static ParseResult
parseMixedList(OpAsmParser &parser, SmallVectorImpl<int64_t> &statics,
               SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands) {
  return parser.parseCommaSeparatedList(
      OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
        OpAsmParser::UnresolvedOperand operand;
        OptionalParseResult res = parser.parseOptionalOperand(operand);
        if (res.has_value()) {
          if (failed(*res))
            return failure();
          operands.push_back(operand);
          statics.push_back(ShapedType::kDynamic);
          return success();
        }
        int64_t v;
        if (parser.parseInteger(v))
          return failure();
        statics.push_back(v);
        return success();
      });
}

static void printMixedList(OpAsmPrinter &p, ArrayRef<int64_t> statics,
                           OperandRange operands) {
  p << "[";
  unsigned next = 0;
  llvm::interleaveComma(statics, p, [&](int64_t v) {
    if (ShapedType::isDynamic(v))
      p.printOperand(operands[next++]);
    else
      p << v;
  });
  p << "]";
}

ParseResult MakeViewOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand base;
  SmallVector<OpAsmParser::UnresolvedOperand> sizes, strides;
  SmallVector<int64_t> staticSizes, staticStrides;
  Type baseType;
  SMLoc typeLoc;
  if (parser.parseOperand(base) ||
      parseMixedList(parser, staticSizes, sizes) ||
      parser.parseKeyword("strides") ||
      parseMixedList(parser, staticStrides, strides) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.getCurrentLocation(&typeLoc) || parser.parseType(baseType))
    return failure();
  auto ptrType = dyn_cast<PtrType>(baseType);
  if (!ptrType)
    return parser.emitError(typeLoc, "expected a !tile.ptr type, got ")
           << baseType;
  if (staticSizes.size() != staticStrides.size())
    return parser.emitError(typeLoc, "expected as many strides as sizes");
  Type i32 = parser.getBuilder().getI32Type();
  auto viewType = ViewType::getChecked(
      [&] { return parser.emitError(typeLoc); }, parser.getContext(),
      ArrayRef<int64_t>(staticSizes), ptrType.getElementType(),
      ArrayRef<int64_t>(staticStrides));
  if (!viewType)
    return failure();
  result.addTypes(viewType);
  result.addAttribute(getOperandSegmentSizesAttrName(result.name),
                      parser.getBuilder().getDenseI32ArrayAttr(
                          {1, static_cast<int32_t>(sizes.size()),
                           static_cast<int32_t>(strides.size())}));
  return failure(parser.resolveOperand(base, ptrType, result.operands) ||
                 parser.resolveOperands(sizes, i32, result.operands) ||
                 parser.resolveOperands(strides, i32, result.operands));
}

MakeViewOp MakeViewOp::createTransposed(OpBuilder &b, Location loc) {
  ViewType view = getViewType();
  unsigned rank = view.getRank();
  // Mixed sizes and strides with the last two dimensions swapped.
  SmallVector<int64_t> shape(view.getShape()), strides(view.getStrides());
  SmallVector<OpFoldResult> sizes, strideList;
  for (unsigned d = 0; d < rank; ++d) {
    sizes.push_back(getMixedSize(d));
    strideList.push_back(getMixedStride(d));
  }
  std::swap(shape[rank - 1], shape[rank - 2]);
  std::swap(strides[rank - 1], strides[rank - 2]);
  std::swap(sizes[rank - 1], sizes[rank - 2]);
  std::swap(strideList[rank - 1], strideList[rank - 2]);
  auto dynamic = [](ArrayRef<OpFoldResult> mixed) {
    SmallVector<Value> values;
    for (OpFoldResult ofr : mixed)
      if (auto v = dyn_cast<Value>(ofr))
        values.push_back(v);
    return values;
  };
  auto type =
      ViewType::get(getContext(), shape, view.getElementType(), strides);
  return MakeViewOp::create(b, loc, type, getBase(), dynamic(sizes),
                            dynamic(strideList));
}

void MakeViewOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printOperand(getBase());
  printMixedList(p, getViewType().getShape(), getSizes());
  p << " strides ";
  printMixedList(p, getViewType().getStrides(), getStrides());
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getOperandSegmentSizesAttrName()});
  p << " : " << getBase().getType();
}

/// Entry `i` of a mixed static/dynamic list.
static OpFoldResult getMixed(ArrayRef<int64_t> statics, OperandRange dynamics,
                             unsigned i, MLIRContext *ctx) {
  if (!ShapedType::isDynamic(statics[i]))
    return IntegerAttr::get(IntegerType::get(ctx, 32), statics[i]);
  unsigned pos = llvm::count_if(statics.take_front(i), ShapedType::isDynamic);
  return dynamics[pos];
}

OpFoldResult MakeViewOp::getMixedSize(unsigned i) {
  return getMixed(getViewType().getShape(), getSizes(), i, getContext());
}

OpFoldResult MakeViewOp::getMixedStride(unsigned i) {
  return getMixed(getViewType().getStrides(), getStrides(), i, getContext());
}

LogicalResult MakeViewOp::verify() {
  ViewType type = getViewType();
  if (type.getElementType() != getBase().getType().getElementType())
    return emitOpError("view element type ")
           << type.getElementType() << " does not match pointer element type "
           << getBase().getType().getElementType();
  auto countDynamic = [](ArrayRef<int64_t> values) {
    return llvm::count_if(values, ShapedType::isDynamic);
  };
  if (countDynamic(type.getShape()) != static_cast<int64_t>(getSizes().size()))
    return emitOpError("expected one size operand per dynamic size");
  if (countDynamic(type.getStrides()) !=
      static_cast<int64_t>(getStrides().size()))
    return emitOpError("expected one stride operand per dynamic stride");
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

/// Checks the indexing shared by tile.load and tile.store.
static LogicalResult verifyAccess(Operation *op, ViewType view,
                                  size_t numOffsets, RankedTensorType tile,
                                  Value mask) {
  if (numOffsets != view.getRank())
    return op->emitOpError("expected ")
           << view.getRank() << " offsets for a rank-" << view.getRank()
           << " view, got " << numOffsets;
  if (tile.getRank() > view.getRank())
    return op->emitOpError("tile rank ")
           << tile.getRank() << " exceeds view rank " << view.getRank();
  if (tile.getElementType() != view.getElementType())
    return op->emitOpError("tile element type ")
           << tile.getElementType() << " does not match view element type "
           << view.getElementType();
  if (!isPowerOfTwoShape(tile.getShape()))
    return op->emitOpError("expected a tile shape of powers of two, got ")
           << tile;
  if (mask && cast<RankedTensorType>(mask.getType()).getShape() !=
                  tile.getShape())
    return op->emitOpError("mask shape does not match the tile shape");
  return success();
}

LogicalResult LoadOp::verify() {
  auto tile = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyAccess(*this, getView().getType(), getOffsets().size(),
                          tile, getMask())))
    return failure();
  if (getPadding() != Padding::Zero && !isa<FloatType>(tile.getElementType()))
    return emitOpError("padding '")
           << stringifyPadding(getPadding())
           << "' needs a floating-point element type";
  return success();
}

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getView().getType(), getOffsets().size(),
                      cast<RankedTensorType>(getValue().getType()), getMask());
}

LogicalResult AtomicAddOp::verify() {
  auto tile = cast<RankedTensorType>(getValue().getType());
  if (failed(verifyAccess(*this, getView().getType(), getOffsets().size(), tile,
                          getMask())))
    return failure();
  if (!tile.getElementType().isF32())
    return emitOpError("adds f32 elements only (red.global.add.f32), got ")
           << tile.getElementType();
  return success();
}

LogicalResult LoadScalarOp::verify() {
  ViewType view = getView().getType();
  if (getIndices().size() != static_cast<size_t>(view.getRank()))
    return emitOpError("expected ")
           << view.getRank() << " indices for a rank-" << view.getRank()
           << " view, got " << getIndices().size();
  if (getResult().getType() != view.getElementType())
    return emitOpError("result type ")
           << getResult().getType() << " differs from the view's element type "
           << view.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// RangeOp
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  if (type.getRank() != 1)
    return emitOpError("expected a 1-D result");
  int64_t size = static_cast<int64_t>(getEnd()) - getStart();
  if (size != type.getDimSize(0))
    return emitOpError("range [")
           << getStart() << ", " << getEnd() << ") has " << size
           << " elements but the result has " << type.getDimSize(0);
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ExpandDimsOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto res = cast<RankedTensorType>(getResult().getType());
  int32_t axis = getAxis();
  if (axis < 0 || axis > src.getRank())
    return emitOpError("axis ") << axis << " out of range for rank "
                                << src.getRank();
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (res.getShape() != ArrayRef(expected) ||
      res.getElementType() != src.getElementType())
    return emitOpError("expected result ")
           << RankedTensorType::get(expected, src.getElementType())
           << " (ignoring encodings), got " << res;
  if (src.getEncoding() && res.getEncoding()) {
    auto slice = dyn_cast<SliceEncodingAttr>(src.getEncoding());
    if (!slice || slice.getDim() != static_cast<unsigned>(axis) ||
        slice.getParent() != res.getEncoding())
      return emitOpError("expected the source layout to be the result "
                         "layout sliced along the new axis");
  }
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto res = cast<RankedTensorType>(getResult().getType());
  if (src.getRank() != res.getRank() ||
      src.getElementType() != res.getElementType())
    return emitOpError("expected source and result of equal rank and "
                       "element type");
  for (auto [s, r] : llvm::zip(src.getShape(), res.getShape()))
    if (s != r && s != 1)
      return emitOpError("source dimension ")
             << s << " can only broadcast to itself or from 1, not to " << r;
  if (src.getEncoding() != res.getEncoding())
    return emitOpError("expected source and result with the same layout");
  return success();
}

LogicalResult TransOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto res = cast<RankedTensorType>(getResult().getType());
  if (src.getRank() != 2 || res.getRank() != 2)
    return emitOpError("expected 2-D tiles");
  if (res.getDimSize(0) != src.getDimSize(1) ||
      res.getDimSize(1) != src.getDimSize(0) ||
      res.getElementType() != src.getElementType())
    return emitOpError("expected the result to be the transposed source");
  return success();
}

namespace {
/// trans(load %v[.., i, j]) -> load %vt[.., j, i], where %vt is %v with its
/// last two dimensions (sizes and strides) swapped: the tile is read in its
/// memory order, so a transposed dot operand (nn.Linear's B = Wᵀ, attention's
/// Kᵀ) reaches shared memory as a K-major tile instead of going through a
/// register transpose. Only before layouts are assigned, for a load whose one
/// user is the transpose and whose view is made by tile.make_view.
struct FoldTransposeIntoLoad : public OpRewritePattern<TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransOp op,
                                PatternRewriter &rewriter) const override {
    auto load = op.getSrc().getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse())
      return rewriter.notifyMatchFailure(op, "source is not a single-use load");
    auto type = cast<RankedTensorType>(op.getType());
    if (type.getEncoding() || load.getType().getEncoding())
      return rewriter.notifyMatchFailure(op, "layouts already assigned");
    auto make = load.getView().getDefiningOp<MakeViewOp>();
    if (!make)
      return rewriter.notifyMatchFailure(op, "view not made by tile.make_view");
    unsigned rank = make.getViewType().getRank();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(make);
    Value vt = make.createTransposed(rewriter, make.getLoc());
    rewriter.setInsertionPoint(load);
    SmallVector<Value> offsets(load.getOffsets());
    std::swap(offsets[rank - 1], offsets[rank - 2]);
    Value mask = load.getMask();
    if (mask)
      mask = TransOp::create(
          rewriter, op.getLoc(),
          RankedTensorType::get(type.getShape(),
                                rewriter.getI1Type()),
          mask);
    rewriter.replaceOpWithNewOp<LoadOp>(op, type, vt, offsets, mask,
                                        load.getPadding());
    rewriter.eraseOp(load);
    return success();
  }
};
} // namespace

void TransOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<FoldTransposeIntoLoad>(context);
}

LogicalResult ExtractSliceOp::verify() {
  auto src = cast<RankedTensorType>(getSource().getType());
  auto res = cast<RankedTensorType>(getResult().getType());
  ArrayRef<int64_t> offsets = getOffsets();
  if (res.getElementType() != src.getElementType() ||
      res.getEncoding() != src.getEncoding())
    return emitOpError("expected the result to have the source's element "
                       "type and encoding");
  if (res.getRank() != src.getRank() ||
      static_cast<int64_t>(offsets.size()) != src.getRank())
    return emitOpError("expected one offset per dimension of the source");
  for (auto [i, off] : llvm::enumerate(offsets)) {
    int64_t size = res.getDimSize(i);
    if (size < 1)
      return emitOpError("expected a non-empty slice, got size ")
             << size << " in dimension " << i;
    if (off < 0 || off % size != 0 || off + size > src.getDimSize(i))
      return emitOpError("offset ")
             << off << " of dimension " << i
             << " must be a multiple of the slice size " << size
             << " within the source size " << src.getDimSize(i);
  }
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  return {};
}

//===----------------------------------------------------------------------===//
// ReduceOp / DotOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto res = cast<RankedTensorType>(getResult().getType());
  int32_t axis = getAxis();
  if (src.getRank() < 2)
    return emitOpError("expected a source of rank at least 2 (use "
                       "tile.expand_dims to reduce a 1-D tile)");
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ") << axis << " out of range for rank "
                                << src.getRank();
  SmallVector<int64_t> expected(src.getShape());
  expected.erase(expected.begin() + axis);
  if (res.getShape() != ArrayRef(expected) ||
      res.getElementType() != src.getElementType())
    return emitOpError("expected result ")
           << RankedTensorType::get(expected, src.getElementType())
           << " (ignoring encodings), got " << res;
  if (src.getEncoding() && res.getEncoding()) {
    auto slice = dyn_cast<SliceEncodingAttr>(res.getEncoding());
    if (!slice || slice.getDim() != static_cast<unsigned>(axis) ||
        slice.getParent() != src.getEncoding())
      return emitOpError("expected the result layout to be the source "
                         "layout sliced along the reduced axis");
  }
  return success();
}

/// `precision(...)` other than the default is for f32 operands only (tile.dot
/// and tile.gemm); `what` names them ("operands", "inputs").
static LogicalResult verifyPrecisionType(Operation *op, DotPrecision precision,
                                         Type elemType, StringRef what) {
  if (precision == DotPrecision::IEEE || elemType.isF32())
    return success();
  return op->emitOpError("precision(")
         << stringifyDotPrecision(precision) << ") is for f32 " << what << "; "
         << elemType << " " << what << " multiply exactly";
}

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto c = cast<RankedTensorType>(getAcc().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("expected 2-D operands");
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError("K dimensions differ: A is ")
           << a.getDimSize(0) << "x" << a.getDimSize(1) << ", B is "
           << b.getDimSize(0) << "x" << b.getDimSize(1);
  if (c.getDimSize(0) != a.getDimSize(0) || c.getDimSize(1) != b.getDimSize(1))
    return emitOpError("expected a ")
           << a.getDimSize(0) << "x" << b.getDimSize(1)
           << " accumulator, got " << c.getDimSize(0) << "x"
           << c.getDimSize(1);
  Type ea = a.getElementType(), eb = b.getElementType(),
       ec = c.getElementType();
  bool ok = (ea.isBF16() && eb.isBF16() && ec.isF32()) ||
            (ea.isF16() && eb.isF16() && (ec.isF32() || ec.isF16())) ||
            (ea.isF32() && eb.isF32() && ec.isF32()) ||
            (isFp8Type(ea) && isFp8Type(eb) && ec.isF32()) ||
            (ea.isInteger(8) && eb.isInteger(8) && ec.isInteger(32));
  if (!ok)
    return emitOpError("unsupported element types ")
           << ea << " x " << eb << " -> " << ec
           << "; expected bf16 x bf16 -> f32, f16 x f16 -> f32|f16, "
              "f32 x f32 -> f32, fp8 x fp8 -> f32 or i8 x i8 -> i32 (signed)";
  return verifyPrecisionType(*this, getPrecision(), ea, "operands");
}

//===----------------------------------------------------------------------===//
// Shared memory ops
//===----------------------------------------------------------------------===//

LogicalResult AsyncCopyOp::verify() {
  ViewType view = getView().getType();
  SmemType buffer = getBuffer().getType();
  if (getOffsets().size() != view.getRank())
    return emitOpError("expected ")
           << view.getRank() << " offsets for a rank-" << view.getRank()
           << " view, got " << getOffsets().size();
  if (view.getRank() < 2)
    return emitOpError("expected a view of rank at least 2");
  if (view.getElementType() != buffer.getElementType())
    return emitOpError("view element type ")
           << view.getElementType() << " does not match buffer element type "
           << buffer.getElementType();
  return success();
}

bool LocalLoadOp::isInPlaceRead(RankedTensorType tile, SmemType buffer) {
  auto shared = dyn_cast_or_null<SharedEncodingAttr>(tile.getEncoding());
  SharedEncodingAttr own = buffer.getEncoding();
  ArrayRef<int64_t> stage = buffer.getTileShape();
  if (!shared || tile.getRank() != 2 || stage.size() != 2)
    return false;
  if (shared == own && tile.getShape() == stage)
    return true;
  // The transpose: dimension d of the tile is dimension 1 - d of the stage.
  ArrayRef<unsigned> order = own.getOrder();
  auto swapped = SharedEncodingAttr::get(
      tile.getContext(), own.getVec(), own.getPerPhase(), own.getMaxPhase(),
      {1 - order[0], 1 - order[1]}, own.getSegment());
  return shared == swapped && tile.getDimSize(0) == stage[1] &&
         tile.getDimSize(1) == stage[0];
}

LogicalResult LocalLoadOp::verify() {
  SmemType buffer = getBuffer().getType();
  auto tile = cast<RankedTensorType>(getType());
  ArrayRef<int64_t> offsets = getOffsets();
  if (tile.getElementType() != buffer.getElementType())
    return emitOpError("tile element type ")
           << tile.getElementType() << " does not match buffer element type "
           << buffer.getElementType();
  if (tile.getRank() != 2 || offsets.size() != 2)
    return emitOpError("expected a 2-D tile and 2 offsets");
  if (!tile.hasStaticShape())
    return emitOpError("expected a static tile shape, got ") << tile;
  // In the buffer's own #tile.shared encoding the result is the stage
  // itself, read in place by wgmma through a matrix descriptor of the whole
  // stage: no sub-tiles, no relayout.
  if (auto shared = dyn_cast_or_null<SharedEncodingAttr>(tile.getEncoding())) {
    if (llvm::any_of(offsets, [](int64_t o) { return o != 0; }))
      return emitOpError("an in-place read (#tile.shared result) must be at "
                         "offsets [0, 0]");
    if (isInPlaceRead(tile, buffer))
      return success();
    ArrayRef<int64_t> stage = buffer.getTileShape();
    return emitOpError("an in-place read (#tile.shared result) must be a "
                       "whole ")
           << stage[0] << "x" << stage[1] << " stage in the buffer's layout "
           << buffer.getEncoding() << ", or its transpose, got " << tile;
  }
  for (unsigned d = 0; d < 2; ++d)
    if (offsets[d] < 0 ||
        offsets[d] + tile.getDimSize(d) > buffer.getTileShape()[d])
      return emitOpError("sub-tile at offset ")
             << offsets[d] << " of size " << tile.getDimSize(d)
             << " exceeds the buffer's " << buffer.getTileShape()[d]
             << " along dimension " << d;
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor maps, transaction barriers and warp specialization
//===----------------------------------------------------------------------===//

bool mlir::tilec::tile::isElementwiseOp(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() || isa<math::SincosOp>(op);
}

std::optional<unsigned> MakeTensorMapOp::getParamIndex(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (arg.getOwner()->isEntryBlock() &&
        isa_and_nonnull<KernelOp>(arg.getOwner()->getParentOp()))
      return arg.getArgNumber();
  return std::nullopt;
}

/// Entry `i` of a static/dynamic list of a view, when it is known: static,
/// or an integer constant. Static entries are read from the type as 64-bit
/// values (MakeViewOp::getMixed* builds i32 attributes).
static std::optional<int64_t> getKnownEntry(ArrayRef<int64_t> statics,
                                            OpFoldResult mixed, unsigned i) {
  if (!ShapedType::isDynamic(statics[i]))
    return statics[i];
  return getConstantIntValue(mixed);
}

/// Why `value`, the `what` (`size` or `stride`) of dimension `dim` of a view
/// in `kernel`, has no host expression (empty when it has one, in `out`).
static std::string getHostExprProblem(KernelOp kernel, Value value,
                                      StringRef what, unsigned dim,
                                      HostExpr &out) {
  std::string why;
  FailureOr<HostExpr> e = getHostExpr(kernel, value, why);
  if (succeeded(e)) {
    out = *e;
    return "";
  }
  return ("the " + what + " of dimension " + Twine(dim) + " " + why +
          "; the sizes and strides of a TMA view must be integer arithmetic "
          "on kernel parameters and constants, so that the tensor map can be "
          "encoded on the host: compute it from parameters or pass it as "
          "one")
      .str();
}

/// Checks the sizes of `makeView` for a tensor map: host expressions, and
/// sizes in [1, 2^32] where they are constants.
static std::string getSizesProblem(KernelOp kernel, MakeViewOp makeView) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  ViewType view = makeView.getType();
  for (unsigned d = 0; d < view.getRank(); ++d) {
    OpFoldResult mixed = makeView.getMixedSize(d);
    std::optional<int64_t> size = getKnownEntry(view.getShape(), mixed, d);
    HostExpr e;
    if (!size) {
      std::string problem =
          getHostExprProblem(kernel, cast<Value>(mixed), "size", d, e);
      if (!problem.empty())
        return problem;
      size = e.getConstant();
    }
    // cuTensorMapEncodeTiled takes global sizes in [1, 2^32].
    if (size && (*size < 1 || *size > (int64_t(1) << 32))) {
      os << "TMA needs sizes in [1, 2^32]; size " << *size << " of dimension "
         << d;
      return msg;
    }
  }
  return msg;
}

/// Checks stride `dim` of `makeView` for a tensor map of `elemBytes`
/// elements: a host expression, positive and below 2^40 bytes where it is a
/// constant, and known to be a multiple of 16 bytes (`quantum` elements).
static std::string getStrideProblem(KernelOp kernel, MakeViewOp makeView,
                                    unsigned dim, unsigned elemBytes,
                                    int64_t quantum) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  ViewType view = makeView.getType();
  OpFoldResult stride = makeView.getMixedStride(dim);
  std::optional<int64_t> c = getKnownEntry(view.getStrides(), stride, dim);
  HostExpr e;
  if (!c) {
    std::string problem =
        getHostExprProblem(kernel, cast<Value>(stride), "stride", dim, e);
    if (!problem.empty())
      return problem;
    c = e.getConstant();
  }
  if (c) {
    if (*c <= 0)
      os << "TMA needs positive strides; stride " << *c << " of dimension "
         << dim;
    else if (*c >= (int64_t(1) << 40) / elemBytes)
      os << "TMA needs strides below 2^40 bytes; stride " << *c
         << " of dimension " << dim << " is larger";
    else if (*c % quantum != 0)
      os << "TMA needs 16-byte aligned strides; stride " << *c
         << " of dimension " << dim << " is " << *c * elemBytes << " bytes";
    return msg;
  }
  if (std::optional<unsigned> idx = e.getParam()) {
    auto div = kernel.getArgAttrOfType<IntegerAttr>(
        *idx, mlir::tilec::tile::kDivisibilityAttr);
    if (!div || div.getInt() <= 0 || div.getInt() % quantum != 0)
      os << "TMA needs 16-byte aligned strides; annotate '"
         << kernel.getArgName(*idx) << "' with {tile.divisibility = " << quantum
         << " : i64}";
    return msg;
  }
  // A computed stride: a multiple of 16 bytes by the divisibility of its
  // constants and parameters.
  if (e.getKnownDivisor(kernel) % quantum != 0)
    os << "TMA needs 16-byte aligned strides; stride '" << e.print(kernel)
       << "' of dimension " << dim << " is not known to be a multiple of "
       << quantum << " elements: annotate its parameters ("
       << e.printParamNames(kernel)
       << ") with tile.divisibility so that it is (a product needs one "
          "factor with {tile.divisibility = "
       << quantum << " : i64}, a sum every term), or pass it as a parameter";
  return msg;
}

std::string MakeTensorMapOp::getViewProblem(Value viewValue, unsigned contig) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  auto view = cast<ViewType>(viewValue.getType());
  unsigned rank = view.getRank();
  if (view.getStrides()[contig] != 1) {
    os << "the box is contiguous along dimension " << contig
       << ", but the view's stride there is not 1";
    return msg;
  }
  // The map is encoded on the host: from the launch arguments.
  auto makeView = viewValue.getDefiningOp<MakeViewOp>();
  if (!makeView)
    return "expected the view to be made by tile.make_view";
  auto kernel = makeView->getParentOfType<KernelOp>();
  if (!kernel)
    return "expected to be inside a tile.kernel";
  std::optional<unsigned> base = getParamIndex(makeView.getBase());
  if (!base)
    return "the view's base must be a kernel parameter, so that the tensor "
           "map can be encoded on the host";
  std::string problem = getSizesProblem(kernel, makeView);
  if (!problem.empty())
    return problem;
  unsigned elemBytes = view.getElementType().getIntOrFloatBitWidth() / 8;
  auto align = kernel.getArgAttrOfType<IntegerAttr>(
      *base, mlir::tilec::tile::kAlignAttr);
  if (!align || align.getInt() <= 0 || align.getInt() % 16 != 0) {
    os << "TMA needs a 16-byte aligned base; annotate '"
       << kernel.getArgName(*base) << "' with {tile.align = 16 : i64}";
    return msg;
  }
  // Global strides other than the contiguous one: multiples of 16 bytes,
  // i.e. of `quantum` elements.
  int64_t quantum = 16 / std::gcd<int64_t>(16, elemBytes);
  for (unsigned dim = 0; dim < rank; ++dim) {
    if (dim == contig)
      continue;
    problem = getStrideProblem(kernel, makeView, dim, elemBytes, quantum);
    if (!problem.empty())
      return problem;
  }
  return msg;
}

LogicalResult MakeTensorMapOp::verify() {
  ViewType view = getView().getType();
  TensorMapType map = getType();
  unsigned rank = view.getRank();
  if (rank != map.getShape().size())
    return emitOpError("expected a view of the map's rank ")
           << map.getShape().size() << ", got rank " << rank;
  if (view.getElementType() != map.getElementType())
    return emitOpError("view element type ")
           << view.getElementType() << " does not match the map's "
           << map.getElementType();
  // The box is a tile of the last two dimensions.
  unsigned contig = rank - 2 + map.getEncoding().getOrder()[0];
  std::string problem = getViewProblem(getView(), contig);
  if (!problem.empty())
    return emitOpError(problem);
  return success();
}

/// Checks that `map` boxes tile `buffer`'s stage in its segment layout.
static LogicalResult verifyBoxesTileBuffer(Operation *op, TensorMapType map,
                                           SmemType buffer) {
  if (map.getElementType() != buffer.getElementType())
    return op->emitOpError("map element type ")
           << map.getElementType() << " does not match buffer element type "
           << buffer.getElementType();
  if (map.getEncoding() != buffer.getEncoding())
    return op->emitOpError("the map's layout ")
           << map.getEncoding() << " differs from the buffer's "
           << buffer.getEncoding();
  ArrayRef<int64_t> box = map.getTileBox(), tile = buffer.getTileShape();
  for (unsigned d = 0; d < 2; ++d)
    if (tile[d] % box[d] != 0)
      return op->emitOpError("the buffer's tile ")
             << tile[0] << "x" << tile[1] << " is not a whole number of "
             << box[0] << "x" << box[1] << " boxes";
  SharedEncodingAttr enc = buffer.getEncoding();
  unsigned contig = enc.getOrder()[0];
  if (box[contig] != enc.getSegmentLength(tile[contig]))
    return op->emitOpError("boxes must span one row segment (")
           << enc.getSegmentLength(tile[contig]) << " elements) of the tile";
  unsigned elemBytes = map.getElementType().getIntOrFloatBitWidth() / 8;
  if (enc.getHardwareSwizzleBytes(elemBytes).value_or(0) != 0 &&
      box[1 - contig] % 8 != 0)
    return op->emitOpError("swizzled boxes need a multiple of 8 rows");
  return success();
}

/// Checks that `op` is in a kernel with a `cluster(...)` shape; `what`
/// names the feature for the diagnostic.
static LogicalResult verifyInClusterKernel(Operation *op, StringRef what) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel || kernel.getClusterSize() < 2)
    return op->emitOpError()
           << what << " needs a kernel with a cluster(...) shape of at least "
                      "2 programs";
  return success();
}

LogicalResult TmaLoadOp::verify() {
  if (getOffsets().size() != getMap().getType().getShape().size())
    return emitOpError("expected ")
           << getMap().getType().getShape().size()
           << " offsets (the map's rank), got " << getOffsets().size();
  if (failed(verifyBoxesTileBuffer(*this, getMap().getType(),
                                   getBuffer().getType())))
    return failure();
  if (getCtaMask() && failed(verifyInClusterKernel(*this, "multicast")))
    return failure();
  if (getPart() && !getCtaMask())
    return emitOpError("part(...) needs multicast(...): the other parts "
                       "come from the programs sharing the tile");
  if (!getPart() && getParts() != 1)
    return emitOpError("'parts' = ") << getParts() << " without a part index";
  ArrayRef<int64_t> box = getMap().getType().getTileBox();
  ArrayRef<int64_t> tile = getBuffer().getType().getTileShape();
  int64_t boxes = (tile[0] / box[0]) * (tile[1] / box[1]);
  if (boxes % getParts() != 0)
    return emitOpError("the tile's ")
           << boxes << " boxes do not split into " << getParts() << " parts";
  return success();
}

LogicalResult TmaStoreOp::verify() {
  if (getOffsets().size() != getMap().getType().getShape().size())
    return emitOpError("expected ")
           << getMap().getType().getShape().size()
           << " offsets (the map's rank), got " << getOffsets().size();
  // cp.reduce.async.bulk.tensor .add: f32, f16 / bf16 (.noftz), 32- and
  // 64-bit integers.
  Type et = getMap().getType().getElementType();
  if (getAdd() && !et.isF32() && !et.isF16() && !et.isBF16() &&
      !et.isInteger(32) && !et.isInteger(64))
    return emitOpError("add needs f32, f16, bf16, i32 or i64 elements (a "
                       "reducing TMA store), got ")
           << et;
  return verifyBoxesTileBuffer(*this, getMap().getType(),
                               getBuffer().getType());
}

LogicalResult LocalStoreOp::verify() {
  auto type = cast<RankedTensorType>(getValue().getType());
  SmemType buffer = getBuffer().getType();
  if (type.getElementType() != buffer.getElementType())
    return emitOpError("tile element type ")
           << type.getElementType() << " does not match buffer element type "
           << buffer.getElementType();
  if (type.getShape() != buffer.getTileShape())
    return emitOpError("expected a tile of the buffer's stage shape");
  return success();
}

LogicalResult MBarrierArriveOp::verify() {
  if (getCta())
    return verifyInClusterKernel(*this, "arriving on another program's "
                                        "barrier");
  return success();
}

LogicalResult ClusterRankOp::verify() {
  return verifyInClusterKernel(*this, "tile.cluster_rank");
}

LogicalResult ClusterBarrierOp::verify() {
  if (!isa_and_nonnull<KernelOp>((*this)->getParentOp()))
    return emitOpError("must be at the top level of a tile.kernel, where "
                       "every thread of the cluster executes it");
  return verifyInClusterKernel(*this, "tile.cluster_barrier");
}

LogicalResult MBarrierAllocOp::verify() {
  if (!isa_and_nonnull<KernelOp>((*this)->getParentOp()))
    return emitOpError("must be at the top level of a tile.kernel, where "
                       "every thread of the block executes it");
  return success();
}

/// The register file of an SM, per thread block.
static constexpr int64_t kRegistersPerBlock = 64 * 1024;

LogicalResult NamedBarrierOp::verify() {
  if (getThreads() % 32 != 0 || getThreads() > 1024)
    return emitOpError("threads must be whole warps (a multiple of 32, at "
                       "most 1024), got ")
           << getThreads();
  if (std::optional<int64_t> id = getConstantIntValue(getId()))
    if (*id < 3 || *id > 15)
      return emitOpError("barrier ids 0 to 2 belong to the lowering and the "
                         "hardware has 16; expected 3 to 15, got ")
             << *id;
  return success();
}

/// Parses `keyword ( <i32> )` into the named i32 attribute.
static ParseResult parseKeywordI32(OpAsmParser &parser, StringRef keyword,
                                   StringRef attrName,
                                   OperationState &result) {
  IntegerAttr value;
  if (parser.parseKeyword(keyword) || parser.parseLParen() ||
      parser.parseAttribute(value, parser.getBuilder().getI32Type()) ||
      parser.parseRParen())
    return failure();
  result.addAttribute(attrName, value);
  return success();
}

/// The regions are added to `result` before they are parsed. The parser then
/// owns them, and on an error it drops the uses of every value they define
/// before it frees them. An error inside a region can leave a forward
/// reference outside it bound to a value defined inside (a name used before
/// the op and defined in the region); freeing the region without dropping
/// that use corrupts the heap, which is what ODS's generated parser did.
ParseResult WarpSpecializeOp::parse(OpAsmParser &parser,
                                    OperationState &result) {
  Region *defaultRegion = result.addRegion();
  Region *partitionRegion = result.addRegion();
  auto parseBody = [&](Region &region) -> ParseResult {
    if (parser.parseRegion(region))
      return failure();
    if (region.empty())
      region.emplaceBlock();
    return success();
  };
  if (parseKeywordI32(parser, "regs", getDefaultRegsAttrName(result.name),
                      result) ||
      parseBody(*defaultRegion) || parser.parseKeyword("partition") ||
      parseKeywordI32(parser, "warps", getPartitionWarpsAttrName(result.name),
                      result) ||
      parseKeywordI32(parser, "regs", getPartitionRegsAttrName(result.name),
                      result) ||
      parseBody(*partitionRegion))
    return failure();
  return parser.parseOptionalAttrDict(result.attributes);
}

void WarpSpecializeOp::print(OpAsmPrinter &p) {
  p << " regs(" << getDefaultRegs() << ") ";
  p.printRegion(getDefaultRegion());
  p << " partition warps(" << getPartitionWarps() << ") regs("
    << getPartitionRegs() << ") ";
  p.printRegion(getPartitionRegion());
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getDefaultRegsAttrName(), getPartitionWarpsAttrName(),
                           getPartitionRegsAttrName()});
}

LogicalResult WarpSpecializeOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return emitOpError("expected to be inside a tile.kernel");
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpError("cannot be nested");
  int64_t warps = kernel.getNumWarps();
  if (warps % 4 != 0)
    return emitOpError("needs whole warpgroups: the kernel has ")
           << warps << " warps, not a multiple of 4";
  if (getPartitionWarps() % 4 != 0)
    return emitOpError("the partition needs whole warpgroups, got ")
           << getPartitionWarps() << " warps";
  if (warps + getPartitionWarps() > 32)
    return emitOpError("a block has at most 32 warps; ")
           << warps << " + " << getPartitionWarps() << " requested";
  for (int64_t regs : {getDefaultRegs(), getPartitionRegs()})
    if (regs < 24 || regs > 256 || regs % 8 != 0)
      return emitOpError("setmaxnreg takes 24 to 256 registers in steps of "
                         "8, got ")
             << regs;
  int64_t total = 32 * (warps * getDefaultRegs() +
                        getPartitionWarps() * getPartitionRegs());
  if (total > kRegistersPerBlock)
    return emitOpError("needs ")
           << total << " registers (" << warps << " warps x "
           << getDefaultRegs() << " + " << getPartitionWarps() << " warps x "
           << getPartitionRegs() << " per thread), more than the "
           << kRegistersPerBlock << " of an SM";
  return success();
}

LogicalResult WarpSpecializeOp::verifyRegions() {
  WalkResult result = getPartitionRegion().walk([&](Operation *op) {
    auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
    if (llvm::any_of(op->getOperandTypes(), isTile) ||
        llvm::any_of(op->getResultTypes(), isTile)) {
      op->emitOpError("distributed tiles are not available in a "
                      "warp_specialize partition (it runs scalar code)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

bool GemmOp::isRhsColumnMajor() {
  ViewType b = getB().getType();
  unsigned o = b.getRank() - 2;
  return b.getStrides()[o + 1] != 1 && b.getStrides()[o] == 1;
}

bool GemmOp::isBlockScaled() {
  Value scale = getScaleA() ? getScaleA() : getScaleB();
  return scale && cast<ViewType>(scale.getType()).getRank() == 2;
}

int64_t GemmOp::getSplitK() {
  GemmConfigAttr config = getConfigAttr();
  return config ? config.getSplitK().value_or(1) : 1;
}

SmallVector<StringRef, 4> GemmOp::getKernelStages() {
  if (getSplitK() == 1)
    return {};
  return {stringifyGemmStage(GemmStage::Partial),
          stringifyGemmStage(GemmStage::Reduce)};
}

/// The name of a staged op's stage, if it has one (StagedOpInterface).
template <typename StageT>
static std::optional<StringRef> getStageName(std::optional<StageT> stage) {
  if (!stage)
    return std::nullopt;
  return stringifyEnum(*stage);
}

std::optional<StringRef> GemmOp::getKernelStage() {
  return getStageName(getStage());
}

void GemmOp::setKernelStage(StringRef stage) {
  setStage(symbolizeEnum<GemmStage>(stage));
}

/// Split-K's rules: a workspace exactly with split_k > 1 (f32 [split_k, M,
/// N], contiguous along N), a stage only then, and a 2-D GEMM without block
/// scales or i8 inputs.
static LogicalResult verifySplitK(GemmOp op) {
  int64_t splitK = op.getSplitK();
  Value workspace = op.getWorkspace();
  if (splitK == 1) {
    if (workspace)
      return op.emitOpError("a workspace is for split-K (config <split_k = "
                            "S> with S > 1)");
    if (op.getStage())
      return op.emitOpError("a stage is for split-K (config <split_k = S> "
                            "with S > 1)");
    return success();
  }
  if (op.getBatchRank() != 0 || op.isGrouped())
    return op.emitOpError("split_k needs a 2-D GEMM (not batched, "
                          "batch-reduce or grouped)");
  if (op.isBlockScaled())
    return op.emitOpError("split_k takes no block scales");
  if (op.getA().getType().getElementType().isInteger(8))
    return op.emitOpError("split_k takes no i8 inputs (its partial sums "
                          "are f32)");
  if (!workspace)
    return op.emitOpError("split_k = ")
           << splitK << " needs a workspace(%ws : !tile.view<" << splitK
           << "x?x?xf32, strides = [?, ?, 1]>) for the partial products";
  auto wt = cast<ViewType>(workspace.getType());
  ViewType c = op.getC().getType();
  if (wt.getRank() != 3 || !wt.getElementType().isF32() ||
      wt.getStrides()[2] != 1)
    return op.emitOpError("expected an f32 workspace [split_k, M, N] "
                          "contiguous along N (strides = [?, ?, 1]), got ")
           << wt;
  if (!compatibleDim(wt.getShape()[0], splitK))
    return op.emitOpError("the workspace holds ")
           << wt.getShape()[0]
           << " partial products, expected split_k = " << splitK;
  if (!compatibleDim(wt.getShape()[1], c.getShape()[0]) ||
      !compatibleDim(wt.getShape()[2], c.getShape()[1]))
    return op.emitOpError("the workspace's matrices differ from C's M x N");
  return success();
}

/// ceildiv(extent, GemmOp::kScaleBlock), dynamic when `extent` is.
static int64_t getScaleBlocks(int64_t extent) {
  if (ShapedType::isDynamic(extent))
    return extent;
  return llvm::divideCeil(extent, GemmOp::kScaleBlock);
}

/// Block scales: both 2-D contiguous-row f32 views, scale_a
/// [ceildiv(K, 128), M] and scale_b [ceildiv(N, 128), ceildiv(K, 128)], on
/// fp8 inputs.
static LogicalResult verifyBlockScales(GemmOp op, ViewType a, ViewType c) {
  if (!isFp8Type(a.getElementType()))
    return op.emitOpError("block scales (2-D scale_a / scale_b) need fp8 "
                          "inputs, got ")
           << a.getElementType();
  if (!op.getScaleA() || !op.getScaleB())
    return op.emitOpError("block scales need both scale_a and scale_b");
  int64_t kBlocks = getScaleBlocks(a.getShape()[1]);
  std::tuple<StringRef, Value, int64_t, int64_t, StringRef> scales[] = {
      {"scale_a", op.getScaleA(), kBlocks, c.getShape()[0],
       "[ceildiv(K, 128), M]"},
      {"scale_b", op.getScaleB(), getScaleBlocks(c.getShape()[1]), kBlocks,
       "[ceildiv(N, 128), ceildiv(K, 128)]"}};
  for (auto [name, scale, rows, cols, expected] : scales) {
    auto st = cast<ViewType>(scale.getType());
    if (st.getRank() != 2 || st.getStrides()[1] != 1 ||
        !st.getElementType().isF32())
      return op.emitOpError("expected ")
             << name << " to be a 2-D f32 view " << expected
             << " with contiguous rows (strides = [?, 1]), as block scales "
                "are, got "
             << st;
    if (!compatibleDim(st.getShape()[0], rows) ||
        !compatibleDim(st.getShape()[1], cols))
      return op.emitOpError("")
             << name << " is " << st.getShape()[0] << "x" << st.getShape()[1]
             << ", expected " << expected << " = " << rows << "x" << cols;
  }
  return success();
}

/// A grouped GEMM: a 1-D i32 view of E offsets, 2-D A and C, B [E, K, N],
/// and no scales.
static LogicalResult verifyGroupOffsets(GemmOp op) {
  ViewType a = op.getA().getType(), b = op.getB().getType(),
           c = op.getC().getType();
  auto offsets = cast<ViewType>(op.getGroupOffsets().getType());
  if (offsets.getRank() != 1 || !offsets.getElementType().isInteger(32))
    return op.emitOpError("expected group_offsets to be a 1-D i32 view (the "
                          "groups' cumulative row ends), got ")
           << offsets;
  if (a.getRank() != 2 || b.getRank() != 3 || c.getRank() != 2)
    return op.emitOpError("a grouped GEMM takes a 2-D A [M, K], a 3-D B "
                          "[groups, K, N] and a 2-D C [M, N]");
  if (!compatibleDim(offsets.getShape()[0], b.getShape()[0]))
    return op.emitOpError("group_offsets has ")
           << offsets.getShape()[0] << " elements, B holds " << b.getShape()[0]
           << " matrices";
  if (op.getScaleA() || op.getScaleB())
    return op.emitOpError("a grouped GEMM takes no scale_a / scale_b");
  return success();
}

std::string mlir::tilec::tile::getGemmElementTypeProblem(Type a, Type b,
                                                         Type c) {
  std::string problem;
  llvm::raw_string_ostream os(problem);
  bool fp8 = isFp8Type(a);
  if (!a.isBF16() && !a.isF16() && !fp8 && !a.isF32() && !a.isInteger(8))
    os << "inputs must be bf16, f16, fp8 (f8E4M3FN, f8E5M2), f32 or i8, got "
       << a;
  // fp8 may mix e4m3 and e5m2.
  else if (fp8 ? !isFp8Type(b) : b != a)
    os << "A and B must have the same element type (fp8 may mix e4m3 and "
          "e5m2), got "
       << a << " and " << b;
  // i8 x i8 -> i32 is torch._int_mm: exact (wrapping) i32 sums.
  else if (a.isInteger(8) ? !c.isInteger(32)
                          : !c.isBF16() && !c.isF16() && !c.isF32())
    os << (a.isInteger(8) ? "i8 inputs must produce i32 (exact i32 sums, as "
                            "torch._int_mm), got "
                          : "the output must be bf16, f16 or f32, got ")
       << c;
  return problem;
}

LogicalResult GemmOp::verify() {
  ViewType a = getA().getType(), b = getB().getType(), c = getC().getType();
  int64_t rank = a.getRank();
  if (isGrouped()) {
    if (failed(verifyGroupOffsets(*this)))
      return failure();
  } else if ((rank != 2 && rank != 3) || b.getRank() != rank ||
             (c.getRank() != rank && !isBatchReduce())) {
    return emitOpError("expected 2-D views for A, B and C, 3-D ones [batch, "
                       "rows, cols] for a batched GEMM, or 3-D A and B with "
                       "a 2-D C for a batch-reduce GEMM");
  }
  // Matrix dimensions: o (rows) and o + 1 (columns) of A, ob and ob + 1 of
  // B (a grouped GEMM's B leads with the group), oc and oc + 1 of C (a
  // batch-reduce GEMM's C has no batch).
  unsigned o = rank - 2, ob = b.getRank() - 2, oc = c.getRank() - 2;
  if (o == 1 && (!compatibleDim(a.getShape()[0], b.getShape()[0]) ||
                 (oc == 1 && !compatibleDim(a.getShape()[0], c.getShape()[0]))))
    return emitOpError("the batch size differs between A, B and C");
  if (o == 1 && (getScaleA() || getScaleB()))
    return emitOpError("a ") << (isBatchReduce() ? "batch-reduce" : "batched")
                             << " GEMM takes no scale_a / scale_b";
  Type et = a.getElementType();
  bool fp8 = isFp8Type(et);
  bool int8 = et.isInteger(8);
  std::string problem = getGemmElementTypeProblem(et, b.getElementType(),
                                                  c.getElementType());
  if (!problem.empty())
    return emitOpError(problem);
  if (failed(verifyPrecisionType(*this, getPrecision(), et, "inputs")))
    return failure();
  // Tensor cores read fp8, i8 and tf32 operands K-major only (the layout
  // torch._scaled_mm and torch._int_mm take).
  if (isKMajorOnlyMmaType(et) && b.getStrides()[ob] != 1) {
    StringRef name = fp8 ? "fp8" : int8 ? "i8" : "f32";
    return emitOpError("expected an ")
           << name << " B contiguous along K (column-major, strides = [1, ?]"
           << (et.isF32() ? ", e.g. an nn.Linear weight" : "") << "): "
           << (et.isF32() ? "TF32" : name)
           << " tensor-core operands are read K-major"
           << (fp8    ? ", as torch._scaled_mm takes them"
               : int8 ? ", as torch._int_mm takes them"
                      : "");
  }
  // i8 x i8 -> i32: no floating-point epilogue.
  if (int8 && (getAlpha() || getBeta() || getScaleA() || getScaleB() ||
               getBias() || getActivation() != Activation::None))
    return emitOpError("i8 inputs take no epilogue (alpha, beta, scales, "
                       "bias, activation): the i32 sums are stored as they "
                       "are, as torch._int_mm does");
  if (a.getStrides()[o + 1] != 1)
    return emitOpError("expected A contiguous along K (strides = [?, 1])");
  if (b.getStrides()[ob + 1] != 1 && b.getStrides()[ob] != 1)
    return emitOpError("expected B contiguous along N (row-major, strides = "
                       "[?, 1]) or along K (column-major, strides = [1, ?])");
  if (c.getStrides()[oc + 1] != 1)
    return emitOpError("expected C contiguous along N (strides = [?, 1])");
  if (!compatibleDim(a.getShape()[o + 1], b.getShape()[ob]))
    return emitOpError("K differs between A and B");
  if (!compatibleDim(a.getShape()[o], c.getShape()[oc]))
    return emitOpError("M differs between A and C");
  if (!compatibleDim(b.getShape()[ob + 1], c.getShape()[oc + 1]))
    return emitOpError("N differs between B and C");
  // Row and column scales: contiguous f32 vectors of length M and N.
  std::pair<StringRef, Value> scales[] = {{"scale_a", getScaleA()},
                                          {"scale_b", getScaleB()}};
  if (isBlockScaled()) {
    if (failed(verifyBlockScales(*this, a, c)))
      return failure();
    scales[0].second = scales[1].second = Value();
  }
  for (auto [i, entry] : llvm::enumerate(scales)) {
    auto [name, scale] = entry;
    if (!scale)
      continue;
    auto st = cast<ViewType>(scale.getType());
    if (st.getRank() != 1 || st.getStrides()[0] != 1 ||
        !st.getElementType().isF32())
      return emitOpError("expected ")
             << name << " to be a contiguous 1-D f32 view (strides = [1]), got "
             << st;
    int64_t extent = i == 0 ? c.getShape()[0] : c.getShape()[1];
    if (!compatibleDim(st.getShape()[0], extent))
      return emitOpError("")
             << name << " has " << st.getShape()[0] << " elements, expected "
             << (i == 0 ? "M" : "N") << " = " << extent;
  }
  if (Value bias = getBias()) {
    auto bt = cast<ViewType>(bias.getType());
    if (bt.getRank() != 1)
      return emitOpError("expected a 1-D bias view");
    if (bt.getStrides()[0] != 1)
      return emitOpError("expected a contiguous bias (strides = [1])");
    if (!compatibleDim(bt.getShape()[0], c.getShape()[oc + 1]))
      return emitOpError("bias length differs from N");
    Type bet = bt.getElementType();
    if (!bet.isBF16() && !bet.isF16() && !bet.isF32())
      return emitOpError("expected a bf16, f16 or f32 bias, got ") << bet;
  }
  if (failed(verifySplitK(*this)))
    return failure();
  if (!isa<KernelOp>((*this)->getParentOp()))
    return emitOpError("expected to be directly inside a tile.kernel");
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

int64_t AttentionOp::getSplits() {
  AttentionConfigAttr config = getConfigAttr();
  return config ? config.getSplits().value_or(1) : 1;
}

SmallVector<StringRef, 4> AttentionOp::getKernelStages() {
  if (getSplits() == 1)
    return {};
  return {stringifyAttentionStage(AttentionStage::Split),
          stringifyAttentionStage(AttentionStage::Combine)};
}

std::optional<StringRef> AttentionOp::getKernelStage() {
  return getStageName(getStage());
}

void AttentionOp::setKernelStage(StringRef stage) {
  setStage(symbolizeEnum<AttentionStage>(stage));
}

/// Varlen's rules: both cu_seqlens 1-D i32 views with `max_seqlen_q`, Q,
/// K, V, O (and lse) packed as one batch, and none of the forms it does not
/// combine with.
static LogicalResult verifyVarlen(AttentionOp op) {
  if (!op.isVarlen())
    return op.getMaxSeqlenQ()
               ? op.emitOpError("max_seqlen_q is for variable-length "
                                "sequences only (cu_seqlens)")
               : success();
  for (Value cu : {op.getCuSeqlensQ(), op.getCuSeqlensK()}) {
    auto type = cast<ViewType>(cu.getType());
    if (type.getRank() != 1 || !type.getElementType().isInteger(32))
      return op.emitOpError("expected 1-D i32 cu_seqlens views [batch + 1] "
                            "(cumulative sequence lengths), got ")
             << type;
  }
  if (!op.getMaxSeqlenQ())
    return op.emitOpError("variable-length sequences (cu_seqlens) need "
                          "max_seqlen_q(%m): the longest sequence's queries "
                          "size the grid");
  std::pair<StringRef, Value> packed[] = {{"Q", op.getQ()},
                                          {"K", op.getK()},
                                          {"V", op.getV()},
                                          {"O", op.getO()},
                                          {"lse", op.getLse()}};
  for (auto [name, view] : packed)
    if (view && cast<ViewType>(view.getType()).getShape()[0] != 1)
      return op.emitOpError("expected packed variable-length ")
             << name << " with a batch dimension of 1 ([1, heads, "
             << "total_tokens, ...]), got " << view.getType();
  StringRef other = op.getBlockTable()   ? "block_table"
                    : op.getSplits() > 1 ? "split-KV"
                    : op.getScoreModBlock() || op.getMaskModBlock()
                        ? "score_mod or mask_mod"
                        : "";
  AttentionConfigAttr config = op.getConfigAttr();
  if (other.empty() && config && config.getPackGqa() &&
      config.getPackGqa().getValue())
    other = "pack_gqa";
  if (!other.empty())
    return op.emitOpError("variable-length sequences (cu_seqlens) do not "
                          "take ")
           << other << " yet";
  return success();
}

/// A block list's rules: i32 views [batch, heads, query_blocks] and
/// [batch, heads, query_blocks, max_blocks], and none of the forms it does
/// not combine with.
static LogicalResult verifyBlockList(AttentionOp op) {
  Value num = op.getKvNumBlocks(), indices = op.getKvIndices(),
        full = op.getKvFullBlocks();
  if (!num)
    return full ? op.emitOpError("full_blocks counts blocks of a block_list")
                : success();
  SmallVector<std::pair<Value, int64_t>> views = {{num, 3}, {indices, 4}};
  if (full)
    views.push_back({full, 3});
  for (auto [view, rank] : views) {
    auto type = cast<ViewType>(view.getType());
    if (type.getRank() != rank || !type.getElementType().isInteger(32))
      return op.emitOpError("expected a block list of i32 views [batch, "
                            "heads, query_blocks] (the counts) and [batch, "
                            "heads, query_blocks, max_blocks], got ")
             << type;
  }
  AttentionConfigAttr config = op.getConfigAttr();
  StringRef other =
      op.getSplits() > 1   ? "split-KV"
      : op.isVarlen()      ? "cu_seqlens"
      : op.getBlockTable() ? "block_table"
      : config && config.getPackGqa() && config.getPackGqa().getValue()
          ? "pack_gqa"
          : "";
  if (!other.empty())
    return op.emitOpError("a block list does not take ") << other << " yet";
  return success();
}

/// The serving forms' rules: `seqused_k` a 1-D i32 view; a workspace
/// (f32 `[S, rows, head_dim]` and `[S, rows]`, contiguous along the last
/// dimension) exactly with `splits = S > 1`, a stage only then, and 16-bit
/// inputs; `pack_gqa` only for one query per head and no regions; varlen
/// (verifyVarlen).
static LogicalResult verifyServingForms(AttentionOp op, int64_t d) {
  if (failed(verifyVarlen(op)) || failed(verifyBlockList(op)))
    return failure();
  if (Value lens = op.getSequsedK()) {
    auto type = cast<ViewType>(lens.getType());
    if (type.getRank() != 1 || !type.getElementType().isInteger(32))
      return op.emitOpError("expected a 1-D i32 seqused_k view [batch] (each "
                            "batch's number of keys), got ")
             << type;
  }
  if (Value table = op.getBlockTable()) {
    auto type = cast<ViewType>(table.getType());
    if (type.getRank() != 2 || !type.getElementType().isInteger(32))
      return op.emitOpError("expected a 2-D i32 block_table view [batch, "
                            "max_pages], got ")
             << type;
    if (!op.getSequsedK())
      return op.emitOpError("a paged KV cache (block_table) needs seqused_k: "
                            "each batch's number of keys");
    int64_t page = op.getK().getType().getShape()[2];
    if (ShapedType::isDynamic(page) || !llvm::isPowerOf2_64(page) ||
        page < 16 || page > 256)
      return op.emitOpError("expected paged K and V [pages, kv_heads, "
                            "page_size, head_dim] with a static page_size, a "
                            "power of two from 16 to 256, got ")
             << op.getK().getType();
    if (isFp8Type(op.getQ().getType().getElementType()))
      return op.emitOpError("a paged KV cache takes bf16 or f16 inputs");
  }
  int64_t splits = op.getSplits();
  Value wo = op.getWorkspaceO(), wl = op.getWorkspaceLse();
  if (splits == 1 && wo)
    return op.emitOpError("a workspace is for split-KV attention only "
                          "(config <splits = S> with S > 1)");
  if (splits == 1 && op.getStage())
    return op.emitOpError("a stage is for split-KV attention only (config "
                          "<splits = S> with S > 1)");
  if (splits > 1) {
    if (!wo)
      return op.emitOpError("split-KV attention (splits = ")
             << splits
             << ") needs workspace(%partial_o, %partial_lse): f32 views ["
             << splits << ", rows, " << d << "] and [" << splits
             << ", rows] the two kernels pass the partial results through";
    if (isFp8Type(op.getQ().getType().getElementType()))
      return op.emitOpError("split-KV attention takes bf16 or f16 inputs");
    auto check = [&](Value view, int64_t rank,
                     StringRef what) -> LogicalResult {
      auto type = cast<ViewType>(view.getType());
      ArrayRef<int64_t> shape = type.getShape();
      if (type.getRank() != rank || !type.getElementType().isF32() ||
          type.getStrides().back() != 1 || !compatibleDim(shape[0], splits) ||
          (rank == 3 && !compatibleDim(shape[2], d)))
        return op.emitOpError("expected the workspace's ")
               << what << " to be an f32 view [" << splits << ", rows"
               << (rank == 3 ? ", " + Twine(d).str() : "")
               << "] contiguous along its last dimension, got " << type;
      return success();
    };
    if (failed(check(wo, 3, "partial O")) ||
        failed(check(wl, 2, "partial lse")))
      return failure();
  }
  AttentionConfigAttr config = op.getConfigAttr();
  if (config && config.getPackGqa() && config.getPackGqa().getValue()) {
    if (op.getQ().getType().getShape()[2] != 1)
      return op.emitOpError("pack_gqa needs one query per head (Q's seq "
                            "dimension 1 in its type)");
    if (op.getScoreModBlock() || op.getMaskModBlock())
      return op.emitOpError("pack_gqa takes no score_mod or mask_mod (the "
                            "rows of a packed block are different heads)");
    if (isFp8Type(op.getQ().getType().getElementType()))
      return op.emitOpError("pack_gqa takes bf16 or f16 inputs");
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  ViewType q = getQ().getType(), k = getK().getType(), v = getV().getType(),
           o = getO().getType();
  std::pair<StringRef, ViewType> views[] = {
      {"Q", q}, {"K", k}, {"V", v}, {"O", o}};
  Type et = q.getElementType();
  bool fp8 = isFp8Type(et);
  for (auto [name, view] : views) {
    if (view.getRank() != 4)
      return emitOpError("expected a 4-D [batch, heads, seq, head_dim] view "
                         "for ")
             << name;
    // FP8 wgmma reads V (P V's B operand) K-major only: contiguous keys.
    if (fp8 && name == "V") {
      if (view.getStrides()[2] != 1)
        return emitOpError("expected an FP8 V contiguous along seq (stride "
                           "1 on dimension 2: V transposed in memory, "
                           "[batch, heads, head_dim, seq]), as FP8 tensor "
                           "cores read P V's B operand K-major");
      continue;
    }
    if (view.getStrides()[3] != 1)
      return emitOpError("expected ")
             << name << " contiguous along head_dim (last stride 1)";
  }
  if (fp8) {
    for (auto [name, view] : ArrayRef(views).take_front(3))
      if (!isFp8Type(view.getElementType()))
        return emitOpError("expected FP8 Q, K and V together, got ")
               << name << " of " << view.getElementType();
    Type ot = o.getElementType();
    if (!ot.isBF16() && !ot.isF16() && !ot.isF32())
      return emitOpError("expected a bf16, f16 or f32 O for FP8 inputs, got ")
             << ot;
    if (getDescales().size() != 3)
      return emitOpError("expected descale(q, k, v) for FP8 inputs (the "
                         "per-tensor factors that turn Q, K and V back into "
                         "their values; 1.0 if none)");
    // Three f32 values, or three f32 views [batch, kv_heads].
    bool views = hasDescaleViews();
    for (Value d : getDescales()) {
      auto view = dyn_cast<ViewType>(d.getType());
      if (views != static_cast<bool>(view))
        return emitOpError("expected three f32 descale values or three "
                           "descale views, not a mix");
      if (view && (view.getRank() != 2 || !view.getElementType().isF32()))
        return emitOpError("expected 2-D f32 descale views [batch, "
                           "kv_heads], got ")
               << view;
    }
  } else {
    if (!et.isBF16() && !et.isF16())
      return emitOpError("expected bf16, f16 or FP8 (f8E4M3FN, f8E5M2) "
                         "Q/K/V, got ")
             << et;
    for (auto [name, view] : views)
      if (view.getElementType() != et)
        return emitOpError("expected Q, K, V and O of one element type");
    if (!getDescales().empty())
      return emitOpError("descale is for FP8 inputs only");
  }
  int64_t d = q.getShape()[3];
  if (ShapedType::isDynamic(d) || (d != 64 && d != 128 && d != 256))
    return emitOpError("expected a static head_dim of 64, 128 or 256");
  for (auto [name, view] : views)
    if (view.getShape()[3] != d)
      return emitOpError("expected the same head_dim for Q, K, V and O");
  // Paged K and V are views of the page pool: their first dimension is the
  // pages, not the batch.
  bool paged = static_cast<bool>(getBlockTable());
  for (auto [name, view] : views)
    if (!(paged && (name == "K" || name == "V")) &&
        !compatibleDim(view.getShape()[0], q.getShape()[0]))
      return emitOpError("batch size of ") << name << " differs from Q's";
  if (!compatibleDim(q.getShape()[1], o.getShape()[1]) ||
      !compatibleDim(q.getShape()[2], o.getShape()[2]))
    return emitOpError("expected O to have Q's heads and sequence length");
  if (!compatibleDim(k.getShape()[1], v.getShape()[1]) ||
      !compatibleDim(k.getShape()[2], v.getShape()[2]))
    return emitOpError("expected K and V of the same heads and sequence "
                       "length");
  int64_t hq = q.getShape()[1], hk = k.getShape()[1];
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hk) &&
      (hk == 0 || hq % hk != 0))
    return emitOpError("K/V heads (") << hk << ") must divide Q heads ("
                                      << hq << ")";
  if (Value lse = getLse()) {
    auto lt = cast<ViewType>(lse.getType());
    if (lt.getRank() != 3 || !lt.getElementType().isF32())
      return emitOpError("expected an f32 [batch, heads, seq] lse view");
    if (lt.getStrides()[2] != 1)
      return emitOpError("expected lse contiguous along seq");
  }
  if (std::optional<APFloat> scale = getScale())
    if (!scale->isFiniteNonZero() || scale->isNegative())
      return emitOpError("expected a positive finite scale");
  if (!isa<KernelOp>((*this)->getParentOp()))
    return emitOpError("expected to be directly inside a tile.kernel");
  return verifyServingForms(*this, d);
}

/// Whether `t` is a scalar a score_mod or mask_mod computes with: an
/// integer (i1 included) or a float.
static bool isModScalar(Type t) { return isa<IntegerType, FloatType>(t); }

namespace {
/// How an i32 of a mod region varies over a block of scores (see
/// ExpandAttention's ModRegionApplier): uniform, the query or key index
/// plus a uniform offset, or otherwise.
enum class ModIndexKind { Uniform, Query, Key, Other };
} // namespace

static ModIndexKind getModIndexKind(Value v, Block &block) {
  using K = ModIndexKind;
  if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == &block) {
    int64_t i = arg.getArgNumber() - (block.getNumArguments() - 4);
    return i < 0 ? K::Other : i < 2 ? K::Uniform : i == 2 ? K::Query : K::Key;
  }
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != &block)
    return K::Uniform;
  auto kinds = llvm::map_to_vector(def->getOperands(), [&](Value x) {
    return isa<ViewType>(x.getType()) ? K::Uniform : getModIndexKind(x, block);
  });
  bool uniform = llvm::all_of(kinds, [](K k) { return k == K::Uniform; });
  if (uniform)
    return K::Uniform;
  if (isa<arith::AddIOp>(def) && llvm::is_contained(kinds, K::Uniform))
    return kinds[0] == K::Uniform ? kinds[1] : kinds[0];
  if (isa<arith::SubIOp>(def) && kinds[1] == K::Uniform)
    return kinds[0];
  return K::Other;
}

/// A table read of a mod region: a view from above, read at uniform
/// indices, or along the query or key index in its last one.
static LogicalResult verifyModLoad(LoadScalarOp load, Block &block) {
  if (load.getView().getParentBlock() == &block)
    return load.emitOpError("in a score_mod or mask_mod must read a view "
                            "made outside it");
  auto indices = load.getIndices();
  for (auto [i, index] : llvm::enumerate(indices)) {
    ModIndexKind kind = getModIndexKind(index, block);
    bool last = i + 1 == indices.size();
    if (kind == ModIndexKind::Uniform || (last && kind != ModIndexKind::Other))
      continue;
    return load.emitOpError("in a score_mod or mask_mod reads at indices "
                            "the same for the whole block (batch, head, "
                            "values from above) or, in the last index only, "
                            "the query or key index plus such an offset");
  }
  return success();
}

/// A score_mod / mask_mod region `name` of `op`: one block with arguments
/// `argTypes` of elementwise arith/math ops and constants on scalars,
/// ending in tile.yield of one `result` (`what` names it).
static LogicalResult verifyModRegion(AttentionOp op, Region &region,
                                     StringRef name, TypeRange argTypes,
                                     StringRef argNames, Type result,
                                     StringRef what) {
  if (region.empty())
    return success();
  if (!region.hasOneBlock())
    return op.emitOpError("expected ") << name << " to be one block";
  Block &block = region.front();
  if (block.getArgumentTypes() != argTypes)
    return op.emitOpError("expected ")
           << name << "'s block arguments to be " << argNames;
  if (isFp8Type(op.getQ().getType().getElementType()))
    return op.emitOpError()
           << name << " with FP8 inputs is not supported yet (its descales "
           << "scale the scores per row)";
  for (Operation &inner : block.without_terminator()) {
    if (auto load = dyn_cast<LoadScalarOp>(inner)) {
      if (failed(verifyModLoad(load, block)))
        return failure();
      continue;
    }
    bool scalars = llvm::all_of(inner.getOperandTypes(), isModScalar) &&
                   llvm::all_of(inner.getResultTypes(), isModScalar);
    bool elementwise =
        inner.hasTrait<OpTrait::Elementwise>() && inner.getNumRegions() == 0 &&
        isa<arith::ArithDialect, math::MathDialect>(inner.getDialect());
    if (!(elementwise || isa<arith::ConstantOp>(inner)) || !scalars)
      return inner.emitOpError("is not allowed in tile.attention's ")
             << name
             << ", which holds elementwise arith and math ops, constants "
                "and tile.load_scalar on scalars";
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield || yield.getValues().size() != 1 ||
      yield.getValues()[0].getType() != result)
    return op.emitOpError("expected ")
           << name << " to end in tile.yield of one " << result << " " << what;
  return success();
}

/// score_mod (score f32, batch, head, query, key i32) -> f32 score;
/// mask_mod (batch, head, query, key i32) -> i1 visible.
LogicalResult AttentionOp::verifyRegions() {
  Builder b(getContext());
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  if (failed(verifyModRegion(
          *this, getScoreMod(), "score_mod", {f32, i32, i32, i32, i32},
          "(score: f32, batch: i32, head: i32, query: i32, key: i32)", f32,
          "score")))
    return failure();
  return verifyModRegion(*this, getMaskMod(), "mask_mod", {i32, i32, i32, i32},
                         "(batch: i32, head: i32, query: i32, key: i32)",
                         b.getI1Type(), "(whether the key is visible)");
}

//===----------------------------------------------------------------------===//
// AttentionBackwardOp
//===----------------------------------------------------------------------===//

SmallVector<AttentionBackwardStage, 4> AttentionBackwardOp::getModeStages() {
  SmallVector<AttentionBackwardStage, 4> stages;
  if (getAtomic())
    stages = {AttentionBackwardStage::PreZeroDq, AttentionBackwardStage::DkdvDq,
              AttentionBackwardStage::DqScale};
  else
    stages = {AttentionBackwardStage::Pre, AttentionBackwardStage::Dq,
              AttentionBackwardStage::Dkdv};
  if (getDkExpanded())
    stages.push_back(AttentionBackwardStage::DkdvSum);
  return stages;
}

SmallVector<StringRef, 4> AttentionBackwardOp::getKernelStages() {
  return llvm::map_to_vector<4>(getModeStages(),
                                stringifyAttentionBackwardStage);
}

std::optional<StringRef> AttentionBackwardOp::getKernelStage() {
  return getStageName(getStage());
}

void AttentionBackwardOp::setKernelStage(StringRef stage) {
  setStage(symbolizeEnum<AttentionBackwardStage>(stage));
}

LogicalResult AttentionBackwardOp::verify() {
  auto type = [](Value v) { return cast<ViewType>(v.getType()); };
  ViewType q = type(getQ()), k = type(getK());
  // The [batch, heads, seq, head_dim] views, and which of Q's (query heads
  // and seq) or K's (keys) extents they have.
  enum Rows { QueryRows, KeyRows, PerQueryHeadKeyRows };
  bool expanded = static_cast<bool>(getDkExpanded());
  if (expanded != static_cast<bool>(getDvExpanded()))
    return emitOpError("expected both expanded views (dK's and dV's per "
                       "query head) or neither");
  Rows gradRows = expanded ? KeyRows : PerQueryHeadKeyRows;
  struct Operand {
    StringRef name;
    ViewType type;
    Rows rows;
  };
  SmallVector<Operand, 10> tiles = {{"Q", q, QueryRows},
                                    {"K", k, KeyRows},
                                    {"V", type(getV()), KeyRows},
                                    {"O", type(getO()), QueryRows},
                                    {"dO", type(getDout()), QueryRows},
                                    {"dQ", type(getDq()), QueryRows},
                                    {"dK", type(getDk()), gradRows},
                                    {"dV", type(getDv()), gradRows}};
  if (expanded) {
    tiles.push_back(
        {"expanded dK", type(getDkExpanded()), PerQueryHeadKeyRows});
    tiles.push_back(
        {"expanded dV", type(getDvExpanded()), PerQueryHeadKeyRows});
  }
  Type et = q.getElementType();
  if (!et.isBF16() && !et.isF16())
    return emitOpError("expected bf16 or f16 Q, K, V, O, dO and gradients, "
                       "got ")
           << et;
  for (const Operand &t : tiles)
    if (t.type.getRank() != 4)
      return emitOpError("expected a 4-D [batch, heads, seq, head_dim] view "
                         "for ")
             << t.name;
  int64_t d = q.getShape()[3];
  if (d != 64 && d != 128 && d != 256)
    return emitOpError("expected a static head_dim of 64, 128 or 256");
  // (dS K, the atomic dK/dV kernel's fifth product, does not fit beside dK
  // and dV at head dim 256.)
  if (d == 256 && getAtomic())
    return emitOpError("the atomic mode takes head dims 64 and 128; at head "
                       "dim 256 dQ has its own kernel (leave out `atomic`)");
  for (const Operand &t : tiles) {
    if (t.type.getElementType() != et)
      return emitOpError("expected ")
             << t.name << " of Q's element type " << et;
    if (t.type.getShape()[3] != d)
      return emitOpError("expected ") << t.name << " with Q's head_dim " << d;
    if (t.type.getStrides()[3] != 1)
      return emitOpError("expected ")
             << t.name << " contiguous along head_dim (last stride 1)";
    ArrayRef<int64_t> shape = t.type.getShape();
    if (!compatibleDim(shape[0], q.getShape()[0]))
      return emitOpError("batch size of ") << t.name << " differs from Q's";
    int64_t heads = t.rows == KeyRows ? k.getShape()[1] : q.getShape()[1];
    int64_t seq = t.rows == QueryRows ? q.getShape()[2] : k.getShape()[2];
    if (!compatibleDim(shape[1], heads) || !compatibleDim(shape[2], seq))
      return emitOpError("expected ")
             << t.name
             << (t.rows == QueryRows ? " to have Q's heads and seq"
                 : t.rows == KeyRows
                     ? " to have K's heads and seq"
                     : " to have Q's heads (one gradient per query head) and "
                       "K's seq")
             << (t.rows == KeyRows && expanded && t.name.starts_with("d")
                     ? " (the gradient of K or V; expanded(...) holds the "
                       "per-query-head ones)"
                 : t.rows == PerQueryHeadKeyRows && !expanded
                     ? " (with expanded(...), dK and dV get K's heads)"
                     : "");
  }
  int64_t hq = q.getShape()[1], hk = k.getShape()[1];
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hk) &&
      (hk == 0 || hq % hk != 0))
    return emitOpError("K/V heads (")
           << hk << ") must divide Q heads (" << hq << ")";
  // The f32 rows: the forward's lse and the two scratch views.
  std::pair<StringRef, Value> rows[] = {
      {"lse", getLse()}, {"lse2", getLse2()}, {"delta", getDelta()}};
  for (auto [name, value] : rows) {
    ViewType r = type(value);
    if (r.getRank() != 3 || !r.getElementType().isF32())
      return emitOpError("expected an f32 [batch, heads, seq] view for ")
             << name;
    if (r.getStrides()[2] != 1)
      return emitOpError("expected ") << name << " contiguous along seq";
    if (!compatibleDim(r.getShape()[0], q.getShape()[0]) ||
        !compatibleDim(r.getShape()[1], hq) ||
        !compatibleDim(r.getShape()[2], q.getShape()[2]))
      return emitOpError("expected ")
             << name << " to have Q's [batch, heads, seq]";
  }
  if (Value acc = getDqAccum()) {
    if (!getAtomic())
      return emitOpError("a dQ accumulator (the third scratch view) is for "
                         "the atomic mode only");
    ViewType a = type(acc);
    if (a.getRank() != 4 || !a.getElementType().isF32() ||
        a.getShape()[3] != d || a.getStrides()[3] != 1)
      return emitOpError("expected an f32 [batch, heads, seq, ")
             << d << "] dQ accumulator contiguous along head_dim";
    if (!compatibleDim(a.getShape()[0], q.getShape()[0]) ||
        !compatibleDim(a.getShape()[1], hq) ||
        !compatibleDim(a.getShape()[2], q.getShape()[2]))
      return emitOpError("expected the dQ accumulator to have Q's batch, "
                         "heads and seq");
  } else if (getAtomic()) {
    return emitOpError("the atomic mode needs a third scratch view, the f32 "
                       "dQ accumulator [batch, heads, seq, head_dim]");
  }
  if (std::optional<AttentionBackwardStage> stage = getStage()) {
    if (*stage == AttentionBackwardStage::DkdvSum && !expanded)
      return emitOpError("stage 'dkdv_sum' needs expanded(...) views");
    if (!llvm::is_contained(getModeStages(), *stage))
      return emitOpError("stage '")
             << stringifyAttentionBackwardStage(*stage) << "' is "
             << (getAtomic() ? "not one of the atomic mode's"
                             : "the atomic mode's; add `atomic`");
  }
  if (!isa<KernelOp>((*this)->getParentOp()))
    return emitOpError("expected to be directly inside a tile.kernel");
  return success();
}

//===----------------------------------------------------------------------===//
// tile.attention's descale list
//===----------------------------------------------------------------------===//

/// The list of `descale(%a, %b, %c)` after its parenthesis: operands that
/// are f32 values, or views whose types follow a colon
/// (`descale(%a, %b, %c : !tile.view<...>, ...)`).
static ParseResult
parseDescales(OpAsmParser &parser,
              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
              SmallVectorImpl<Type> &types) {
  if (parser.parseOperandList(operands))
    return failure();
  if (succeeded(parser.parseOptionalRParen())) {
    types.assign(operands.size(), parser.getBuilder().getF32Type());
    return success();
  }
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseColonTypeList(types))
    return failure();
  if (types.size() != operands.size())
    return parser.emitError(loc, "expected ")
           << operands.size() << " descale types, got " << types.size();
  return parser.parseRParen();
}

static void printDescales(OpAsmPrinter &p, Operation *, OperandRange operands,
                          TypeRange types) {
  p << operands;
  if (!llvm::all_of(types, [](Type t) { return t.isF32(); }))
    p << " : " << types;
  p << ")";
}

#include "tilec/Dialect/Tile/IR/TileOpInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"
