//===- LinalgActivations.h - Activations in linalg payloads -----*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Recognizes the activations tile.gemm's epilogue computes (GELU, SiLU) in
// the arith / math ops of an elementwise linalg.generic's payload, as
// frontends write them (torch-mlir's decompositions and the usual
// hand-written forms), so that tile-from-linalg can fuse the generic into a
// GEMM's epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_LINALGTOTILE_LINALGACTIVATIONS_H
#define TILEC_LIB_CONVERSION_LINALGTOTILE_LINALGACTIVATIONS_H

#include "tilec/Dialect/Tile/IR/TileOps.h"

#include <optional>

namespace mlir::tilec::tile {

/// The activation `out` computes from `x`, when it is one tile.gemm's
/// epilogue has, exactly:
///   - GELU, erf form: the product of x, 0.5 and 1 + erf(x / sqrt(2)), in
///     any order and grouping of the products (x * 0.70710678 for the
///     division; the constants may be written as products or quotients of
///     constants, and x as x - 0);
///   - SiLU: x / (1 + exp(-x)) or x * (1 / (1 + exp(-x))), with -x as
///     negf, x * -1 or 0 - x.
/// extf / truncf around any operand are looked through (the epilogue
/// computes in f32). Returns nullopt for anything else, e.g. the tanh
/// approximation of GELU, which tile.gemm does not compute.
std::optional<Activation> matchActivation(Value out, Value x);

} // namespace mlir::tilec::tile

#endif // TILEC_LIB_CONVERSION_LINALGTOTILE_LINALGACTIVATIONS_H
