//===- Passes.h - tile.launch to host runtime calls -------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares tile-lower-launches, the lowering of host code's
// tile.launch ops to calls of tilec's host runtime
// (lib/Conversion/TileToHostRuntime/).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_TILETOHOSTRUNTIME_PASSES_H
#define TILEC_CONVERSION_TILETOHOSTRUNTIME_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

namespace mlir::tilec::tile {

#define GEN_PASS_DECL
#include "tilec/Conversion/TileToHostRuntime/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Conversion/TileToHostRuntime/Passes.h.inc"

} // namespace mlir::tilec::tile

#endif // TILEC_CONVERSION_TILETOHOSTRUNTIME_PASSES_H
