//===- InitAll.h - Register everything tilec provides -----------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the registration entry points used by tilec-opt, tilec,
// the mlir-opt plugin and the C API.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INITALL_H
#define TILEC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tilec {

/// Inserts the tile dialect and every upstream dialect tilec's pipelines
/// create or parse, plus the interfaces they need (LLVM translation, NVVM
/// target serialization, conversion to LLVM).
void registerAllDialects(DialectRegistry &registry);

/// Registers every tilec pass (under its command-line name).
void registerAllPasses();

/// Registers the named pipelines tilec-to-nvvm and tilec-to-ptx.
void registerAllPipelines();

} // namespace mlir::tilec

#endif // TILEC_INITALL_H
