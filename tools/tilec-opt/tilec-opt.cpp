//===- tilec-opt.cpp - tilec optimizer driver -----------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `tilec-opt`, the mlir-opt of tilec: every tilec dialect,
// pass and pipeline, plus the upstream passes tilec's pipelines use.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Diagnostics.h"
#include "tilec/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tilec::registerAllPasses();
  mlir::tilec::registerAllPipelines();
  mlir::DialectRegistry registry;
  mlir::tilec::registerAllDialects(registry);
  // Unknown ops get a "did you mean" note.
  mlir::tilec::addSuggestionsOnLoad(registry);
  // An error on an op is not followed by the op in generic form unless
  // --mlir-print-op-on-diagnostic asks for it (mlir-opt's default is to).
  std::vector<char *> args(argv, argv + argc);
  static char noOpDump[] = "--mlir-print-op-on-diagnostic=false";
  if (llvm::none_of(args, [](const char *a) {
        return llvm::StringRef(a).contains("-mlir-print-op-on-diagnostic");
      }))
    args.insert(args.begin() + 1, noOpDump);
  argc = static_cast<int>(args.size());
  argv = args.data();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    mlir::tilec::printToolVersion(os, "tilec-opt");
  });
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "tilec optimizer driver\n", registry);
  // Inputs tilec refuses before parsing (nesting deeper than MLIR's parser
  // and verifier recurse through in good time, inputs its parser crashes
  // on) are refused here too.
  if (input != "-") {
    if (auto buffer = llvm::MemoryBuffer::getFile(input)) {
      if (std::optional<mlir::tilec::SourceProblem> problem =
              mlir::tilec::findSourceProblem((*buffer)->getBuffer())) {
        llvm::errs() << input << ": error: " << problem->message
                     << " (at byte " << problem->offset
                     << "); tilec-opt refuses it before parsing\n";
        return 1;
      }
    }
  }
  // The parser and the passes recurse with the nesting of the input: a
  // large stack keeps deep (and then rejected) inputs from overflowing it.
  int rc = 1;
  llvm::thread worker(std::optional<unsigned>(512u << 20), [&] {
    rc = mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));
  });
  worker.join();
  return rc;
}
