//===- Registration.cpp - C API: tilec through MLIR-C ---------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tilec-c/Registration.h: the MLIR-C handles are
// unwrapped to the C++ objects of the one libMLIR.so that both tilec and the
// caller's MLIR-C functions (exported from libtilec-c.so) link against.
//
//===----------------------------------------------------------------------===//

#include "tilec-c/Registration.h"
#include "CompileSession.h"

#include "tilec/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

void tilecRegisterAllDialects(MlirDialectRegistry registry) {
  tilec::registerAllDialects(*unwrap(registry));
}

void tilecRegisterAllPasses(void) {
  // Registering a pipeline name twice is a fatal error in MLIR.
  static std::once_flag once;
  std::call_once(once, [] {
    tilec::registerAllPasses();
    tilec::registerAllPipelines();
  });
}

/// Prints `loc` as `file:line:col` when it has a file location, as MLIR
/// prints it otherwise.
static void printLocation(llvm::raw_ostream &os, Location loc) {
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>()) {
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
    return;
  }
  os << loc;
}

/// Appends `diag` and its notes to `os` in the driver's format.
static void printDiagnostic(llvm::raw_ostream &os, Diagnostic &diag) {
  auto severity = [](DiagnosticSeverity s) {
    switch (s) {
    case DiagnosticSeverity::Note:
      return "note";
    case DiagnosticSeverity::Warning:
      return "warning";
    case DiagnosticSeverity::Error:
      return "error";
    case DiagnosticSeverity::Remark:
      return "remark";
    }
    llvm_unreachable("unknown diagnostic severity");
  };
  printLocation(os, diag.getLocation());
  os << ": " << severity(diag.getSeverity()) << ": " << diag << "\n";
  for (Diagnostic &note : diag.getNotes()) {
    printLocation(os, note.getLocation());
    os << ": note: " << note << "\n";
  }
}

TilecStatus tilecCompileModule(MlirModule module,
                               const TilecCompileOptions *options,
                               TilecResult **result) {
  if (!result)
    return TilecInvalidArgument;
  *result = nullptr;
  if (!options || mlirModuleIsNull(module))
    return TilecInvalidArgument;

  auto owned = std::make_unique<TilecResult>();
  ModuleOp moduleOp = unwrap(module);
  {
    llvm::raw_string_ostream diagnostics(owned->diagnostics);
    ScopedDiagnosticHandler handler(moduleOp.getContext(),
                                    [&](Diagnostic &diag) {
                                      printDiagnostic(diagnostics, diag);
                                      return success();
                                    });
    owned->succeeded =
        succeeded(tilec::capi::compileInto(moduleOp, *options, *owned));
  }
  return tilec::capi::release(std::move(owned), result);
}
