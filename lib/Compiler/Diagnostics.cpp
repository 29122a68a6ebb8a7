//===- Diagnostics.cpp - How tilec's drivers report errors ----------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Diagnostics.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace mlir::tilec;

std::optional<std::string> mlir::tilec::suggestOpName(MLIRContext *context,
                                                      StringRef name) {
  unsigned limit = std::max<unsigned>(2, name.size() / 3);
  std::optional<std::string> best;
  unsigned bestDistance = limit + 1;
  for (RegisteredOperationName op : context->getRegisteredOperations()) {
    StringRef candidate = op.getStringRef();
    unsigned d = name.edit_distance(candidate, /*AllowReplacements=*/true,
                                    /*MaxEditDistance=*/limit);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate.str();
    }
  }
  return best;
}

/// The op name of the parser's "custom op 'X' is unknown" error (custom
/// form) and of its "unregistered operation 'X'" error (generic form).
static std::optional<std::string> getUnknownOpName(const Diagnostic &diag) {
  if (diag.getSeverity() != DiagnosticSeverity::Error)
    return std::nullopt;
  std::string message = diag.str();
  static const llvm::Regex patterns[] = {
      llvm::Regex("^custom op '([^']+)' is unknown"),
      llvm::Regex("^unregistered operation '([^']+)'")};
  SmallVector<StringRef, 2> matches;
  for (const llvm::Regex &re : patterns)
    if (re.match(message, &matches))
      return matches[1].str();
  return std::nullopt;
}

/// Notes the closest op on an unknown-op error; always passes the
/// diagnostic on to the handler that prints it.
static LogicalResult addSuggestion(MLIRContext *context, Diagnostic &diag) {
  if (std::optional<std::string> name = getUnknownOpName(diag))
    if (std::optional<std::string> best = suggestOpName(context, *name))
      diag.attachNote() << "did you mean '" << *best << "'?";
  return failure();
}

SuggestionDiagnosticHandler::SuggestionDiagnosticHandler(MLIRContext *context)
    : ScopedDiagnosticHandler(context) {
  setHandler(
      [context](Diagnostic &diag) { return addSuggestion(context, diag); });
}

void mlir::tilec::addSuggestionsOnLoad(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tile::TileDialect *) {
    // Registered for the context's lifetime: it only adds notes.
    context->getDiagEngine().registerHandler(
        [context](Diagnostic &diag) { return addSuggestion(context, diag); });
  });
}
