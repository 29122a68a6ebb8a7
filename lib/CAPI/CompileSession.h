//===- CompileSession.h - Shared core of the tilec C API -------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file defines TilecResult and declares the compile step that both C
// entry points (tilecCompile on text, tilecCompileModule on an MLIR-C
// module) share. Private to lib/CAPI: no public header.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CAPI_COMPILESESSION_H
#define TILEC_LIB_CAPI_COMPILESESSION_H

#include "tilec-c/Compiler.h"

#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class Operation;
} // namespace mlir

/// One compiled kernel, artifacts indexed by TilecArtifact.
struct TilecKernel {
  std::string name;
  std::string artifacts[TilecArtifactHeader + 1];
};

/// One recorded stage: the IR of an op after a pass.
struct TilecStage {
  std::string name;
  std::string ir;
};

/// Everything a compile call hands back. Filled under the C API's lock and
/// read-only afterwards.
struct TilecResult {
  bool succeeded = false;
  std::string diagnostics;
  std::vector<TilecKernel> kernels;
  std::vector<TilecStage> stages;
};

namespace mlir::tilec::capi {

/// Compiles `module` in place with the C `options` into `result` (kernels
/// and, if requested, stages). Diagnostics go to the context's handlers,
/// which the caller installs. Compilations are serialized.
LogicalResult compileInto(ModuleOp module, const TilecCompileOptions &options,
                          TilecResult &result);

/// Appends `op`, printed after verification (generic form if invalid), as
/// stage `name` of `result`.
void recordStage(TilecResult &result, StringRef name, Operation *op);

/// Hands `result` to the caller through `out` and maps it to a status.
TilecStatus release(std::unique_ptr<TilecResult> result, TilecResult **out);

} // namespace mlir::tilec::capi

#endif // TILEC_LIB_CAPI_COMPILESESSION_H
