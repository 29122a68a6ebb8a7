//===- HostExpr.h - Integers computed on the host at launch -----*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares HostExpr: a kernel value (a size or stride of a view
// that backs a TMA tensor map) written as an expression over the kernel's
// integer parameters, in the language of the grid rule (tile.kernel's
// `grid(...)`, printGridExpr): an AffineExpr whose symbols are parameters,
// with +, -, *, ceildiv, floordiv and mod. Runtimes evaluate it from the
// launch arguments to encode the tensor map on the host.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_HOSTEXPR_H
#define TILEC_DIALECT_TILE_IR_HOSTEXPR_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir {
class Value;
namespace tilec::tile {
class KernelOp;

/// An integer of a kernel computed from its parameters and constants:
/// symbol `i` of `expr` is kernel parameter `params[i]`.
///
/// The kernel computes view sizes and strides in 32-bit integers (wrapping)
/// and divides them rounding toward zero (arith.divsi); the expression
/// computes exactly and rounds toward negative infinity. The two agree when
/// every value the expression computes lies in [0, 2^31), which runtimes
/// check at launch (see docs/writing-a-kernel.md).
struct HostExpr {
  AffineExpr expr;
  SmallVector<unsigned> params;

  /// The value, when the expression is a constant.
  std::optional<int64_t> getConstant() const;
  /// The parameter, when the expression is one parameter.
  std::optional<unsigned> getParam() const;
  /// Whether the expression computes something: neither a constant nor a
  /// plain parameter (the launch metadata spells those as before).
  bool isComputed() const { return !getConstant() && !getParam(); }
  /// The expression in the grid rule's syntax, with parameter names.
  std::string print(KernelOp kernel) const;
  /// The names of the parameters it reads, quoted and comma-separated
  /// (`'H', 'D'`), for messages.
  std::string printParamNames(KernelOp kernel) const;
  /// The largest power of two known to divide the value, from constants and
  /// the parameters' `tile.divisibility` (products multiply, sums and
  /// remainders keep the smaller, exact divisions divide).
  int64_t getKnownDivisor(KernelOp kernel) const;
};

/// The HostExpr of `value`, an integer in `kernel`'s body: kernel
/// parameters and integer constants combined by arith.addi, subi, muli,
/// ceildivsi, ceildivui, floordivsi, divsi, divui, remsi, remui, shli /
/// shrsi / shrui by constants, index_cast(ui), extsi, extui and trunci (to
/// at least 32 bits). Otherwise failure, with `why` naming the value or op
/// that the host cannot evaluate.
FailureOr<HostExpr> getHostExpr(KernelOp kernel, Value value, std::string &why);

} // namespace tilec::tile
} // namespace mlir

#endif // TILEC_DIALECT_TILE_IR_HOSTEXPR_H
