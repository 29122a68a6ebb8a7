//===- Passes.h - tilec conversion passes -----------------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_PASSES_H
#define TILEC_CONVERSION_PASSES_H

// Only what the declarations need: each pass's file includes its anchor op's
// and its dependent dialects' headers (as tile's Passes.h does).
#include "mlir/Pass/Pass.h"

namespace mlir::tilec {

#define GEN_PASS_DECL
#include "tilec/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Conversion/Passes.h.inc"

} // namespace mlir::tilec

#endif // TILEC_CONVERSION_PASSES_H
