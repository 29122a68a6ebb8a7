//===- Diagnostics.h - How tilec's drivers report errors --------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares what the `tilec` driver, `tilec-opt` and the C API do
// to their diagnostics: an unknown op gets a "did you mean" note naming the
// closest registered op, and (by the drivers' defaults) an error on an op
// is not followed by a dump of that op in generic form.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_DIAGNOSTICS_H
#define TILEC_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace mlir::tilec {

/// The registered op of `context` closest to the unknown `name` (by edit
/// distance, at most a third of its length and at least 2), if any.
std::optional<std::string> suggestOpName(MLIRContext *context, StringRef name);

/// Adds a "did you mean" note to the parser's unknown-op errors, then lets
/// the diagnostic go on to the handlers registered before it.
class SuggestionDiagnosticHandler : public ScopedDiagnosticHandler {
public:
  explicit SuggestionDiagnosticHandler(MLIRContext *context);
};

/// Has every context that loads the tile dialect through `registry` add the
/// notes of SuggestionDiagnosticHandler (for drivers, such as tilec-opt's
/// MlirOptMain, that make the context themselves).
void addSuggestionsOnLoad(DialectRegistry &registry);

} // namespace mlir::tilec

#endif // TILEC_COMPILER_DIAGNOSTICS_H
