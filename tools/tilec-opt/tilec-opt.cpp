//===- tilec-opt.cpp - tilec optimizer driver -----------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `tilec-opt`, the mlir-opt of tilec: every tilec dialect,
// pass and pipeline, plus the upstream passes that work on the dialects it
// loads (registerUpstreamPasses). `--help` lists those and MLIR's own
// options; LLVM's code-generation options (the AArch64, AMDGPU, ... flags
// libLLVM registers) still work but are listed only by `--help-hidden`. For
// every upstream pass, load tilec into `mlir-opt-22` as a plugin (README).
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Diagnostics.h"
#include "tilec/InitAll.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

/// The upstream passes on the dialects tilec-opt loads (arith, bufferization,
/// cf, func, gpu, linalg, llvm, math, memref, nvvm, scf, tensor, vector):
/// the generic transforms (canonicalize, cse, inline, ...), those dialects'
/// own passes, and the conversions between them down to LLVM/NVVM.
static void registerUpstreamPasses() {
  mlir::registerTransformsPasses();
  mlir::arith::registerArithPasses();
  mlir::bufferization::registerBufferizationPasses();
  mlir::func::registerFuncPasses();
  mlir::registerGPUPasses();
  mlir::registerLinalgPasses();
  mlir::math::registerMathPasses();
  mlir::memref::registerMemRefPasses();
  mlir::registerSCFPasses();
  mlir::tensor::registerTensorPasses();
  mlir::vector::registerVectorPasses();
  mlir::registerArithToLLVMConversionPass();
  mlir::registerConvertBufferizationToMemRefPass();
  mlir::registerConvertControlFlowToLLVMPass();
  mlir::registerConvertFuncToLLVMPass();
  mlir::registerConvertGpuOpsToNVVMOpsPass();
  mlir::registerConvertIndexToLLVMPass();
  mlir::registerConvertLinalgToStandardPass();
  mlir::registerConvertMathToLLVMPass();
  mlir::registerConvertNVVMToLLVMPass();
  mlir::registerConvertToLLVMPass();
  mlir::registerConvertVectorToLLVMPass();
  mlir::registerConvertVectorToSCFPass();
  mlir::registerFinalizeMemRefToLLVMConversionPass();
  mlir::registerReconcileUnrealizedCastsPass();
  mlir::registerSCFToControlFlowPass();
  mlir::registerUBToLLVMConversionPass();
}

/// Hides from `--help` the options registered before main runs: libLLVM's
/// global code-generation and analysis flags (hundreds of them: AArch64,
/// AMDGPU, Polly, ...; none about MLIR), all but --help, --version and
/// --color. MLIR's and tilec's options are registered later, by
/// registerAndParseCLIOptions, and stay listed. The hidden ones still parse,
/// and `--help-hidden` lists them.
static void hideLLVMOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    bool kept = llvm::is_contained({"help", "help-list", "version", "color"},
                                   entry.first);
    if (!kept && option->getOptionHiddenFlag() == llvm::cl::NotHidden)
      option->setHiddenFlag(llvm::cl::Hidden);
  }
}

int main(int argc, char **argv) {
  hideLLVMOptions();
  registerUpstreamPasses();
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
