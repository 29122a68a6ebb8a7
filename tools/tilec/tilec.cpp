//===- tilec.cpp - tilec compile driver -----------------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `tilec FILE --chip=...
// --emit=mlir|llvm|ptx|cubin|header [-o DIR|-]`: compiles every tile.kernel of
// FILE and writes, per kernel, <kernel>.{mlir,ll,ptx,cubin,h} (what the stage
// produces; the AOT header comes with the PTX and cubin it embeds) and
// <kernel>.json (launch metadata) into DIR, or the chosen stage to stdout with
// `-o -`. `--emit=host` instead writes <stem>.host.ll: the host functions of
// FILE (linalg on tensors, converted by tile-from-linalg, or functions with
// tile.launch ops) as LLVM IR that embeds the kernels' cubins and launches
// them through tilec's host runtime. Every failure is a diagnostic and exit
// code 1. `--remarks=REGEX`
// prints what the scheduling passes matching REGEX did or declined, and why.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Diagnostics.h"
#include "tilec/InitAll.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/thread.h"

using namespace mlir;
using namespace mlir::tilec;
namespace cl = llvm::cl;

/// tilec's own options; --help lists only these (LLVM's stay usable).
static cl::OptionCategory tilecCategory("tilec options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required, cl::cat(tilecCategory));
static cl::opt<std::string> chipOpt("chip", cl::Required,
                                    cl::desc("sm_80, sm_86, sm_89, sm_90, sm_90a"),
                                    cl::cat(tilecCategory));
static cl::opt<std::string>
    emitOpt("emit", cl::init("ptx"),
            cl::desc("mlir, llvm, ptx, cubin, header (per kernel), or host "
                     "(LLVM IR of the host functions, kernels embedded)"),
            cl::cat(tilecCategory));
static cl::opt<std::string> outputOpt(
    "o", cl::init("."), cl::desc("Output directory, or - for stdout"),
    cl::cat(tilecCategory));
static cl::opt<std::string> cudaPathOpt(
    "cuda-path", cl::init(""), cl::desc("CUDA toolkit root holding bin/ptxas"),
    cl::cat(tilecCategory));
static cl::opt<std::string> cubinArchOpt(
    "cubin-arch", cl::init(""),
    cl::desc("ptxas target for the cubin (default: the chip)"),
    cl::cat(tilecCategory));
static cl::opt<bool> timingOpt(
    "timing", cl::init(false),
    cl::desc("Print where the compile's time goes to stderr: parsing, each "
             "pass, LLVM's O3 and NVPTX code generation, ptxas, writing"),
    cl::cat(tilecCategory));

static cl::opt<unsigned> ptxasTimeoutOpt(
    "ptxas-timeout", cl::init(300),
    cl::desc("Seconds ptxas may run before the compile fails (0: no limit)"),
    cl::cat(tilecCategory));
static cl::opt<unsigned> optLevelOpt("O", cl::init(3), cl::Prefix,
                                     cl::desc("LLVM optimization level"),
                                     cl::cat(tilecCategory));
static cl::opt<bool> verifyEachOpt(
    "verify-each", cl::init(false),
    cl::desc("Verify the IR after every pass, as tilec-opt does (for "
             "debugging the compiler; by default the input and the "
             "pipeline's output are verified)"),
    cl::cat(tilecCategory));
static cl::opt<bool> verboseOpt("v", cl::desc("Print the files written"),
                                 cl::cat(tilecCategory));
static cl::opt<bool> printOpOnDiagnosticOpt(
    "print-op-on-diagnostic",
    cl::desc("Follow an error on an op with that op in generic form (for "
             "debugging the compiler; off by default)"),
    cl::cat(tilecCategory));
static cl::opt<bool> fastMathOpt(
    "fast-math", cl::init(false),
    cl::desc("Approximate divides (div.full.f32), square roots and math "
             "functions (ex2/lg2/tanh.approx, libdevice's __nv_fast_*) in "
             "every kernel, as if each were marked fast_math"),
    cl::cat(tilecCategory));
static cl::opt<std::string> remarksOpt(
    "remarks", cl::init(""),
    cl::desc("Print the optimization remarks of the passes whose name matches "
             "this regex (e.g. 'tile-.*', or 'tile-tma-pipeline|tile-pipeline'):"
             " what each scheduling pass did, and why it declined"),
    cl::cat(tilecCategory));

namespace {
/// Remarks go to the diagnostic handler (printAsEmitRemarks); the engine still
/// wants a streamer, and this one keeps nothing.
class DiscardingRemarkStreamer final
    : public remark::detail::MLIRRemarkStreamerBase {
public:
  void streamOptimizationRemark(const remark::detail::Remark &) override {}
};
} // namespace

/// Turns on the remarks selected by --remarks, printed as `remark:` lines.
static LogicalResult enableRemarks(MLIRContext &context) {
  if (remarksOpt.empty())
    return success();
  std::string regexErr;
  if (!llvm::Regex(remarksOpt).isValid(regexErr)) {
    llvm::WithColor::error(llvm::errs(), "tilec")
        << "invalid --remarks regex '" << remarksOpt << "': " << regexErr
        << "\n";
    return failure();
  }
  remark::RemarkCategories cats;
  cats.passed = cats.missed = cats.analysis = cats.failed = remarksOpt;
  return remark::enableOptimizationRemarks(
      context, std::make_unique<DiscardingRemarkStreamer>(),
      std::make_unique<remark::RemarkEmittingPolicyAll>(), cats,
      /*printAsEmitRemarks=*/true);
}

/// Writes `data` to `path`; reports failures as errors.
static LogicalResult writeFile(StringRef path, StringRef data) {
  std::string err;
  auto out = openOutputFile(path, &err);
  if (!out) {
    llvm::WithColor::error(llvm::errs(), "tilec") << err << "\n";
    return failure();
  }
  out->os() << data;
  out->keep();
  if (verboseOpt)
    llvm::outs() << "wrote " << path << "\n";
  return success();
}

/// The text of `stage` for one kernel (the NVVM-level gpu.module for MLIR).
static std::string stageText(ModuleOp module, const KernelArtifacts &a,
                             EmitStage stage) {
  switch (stage) {
  case EmitStage::MLIR: {
    std::string s;
    llvm::raw_string_ostream os(s);
    if (Operation *gm = module.lookupSymbol(a.name))
      gm->print(os);
    os << "\n";
    return s;
  }
  case EmitStage::LLVM:
    return a.llvmIR;
  case EmitStage::PTX:
    return a.ptx;
  case EmitStage::Cubin:
    return a.cubin;
  case EmitStage::Header:
    return a.header;
  }
  llvm_unreachable("unknown stage");
}

/// Stack of the thread that parses and compiles.
static constexpr unsigned kStackBytes = 512u << 20;

/// --emit=host: the host functions as LLVM IR, written to
/// `<output>/<input stem>.host.ll` or stdout.
static LogicalResult emitHost(ModuleOp module, const CompileOptions &options) {
  FailureOr<std::string> ir = compileHostModule(module, options);
  if (failed(ir))
    return failure();
  if (outputOpt == "-") {
    llvm::outs() << *ir;
    return success();
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(outputOpt)) {
    llvm::WithColor::error(llvm::errs(), "tilec")
        << "cannot create '" << outputOpt << "': " << ec.message() << "\n";
    return failure();
  }
  SmallString<256> path(outputOpt);
  StringRef stem =
      inputFile == "-" ? StringRef("stdin") : llvm::sys::path::stem(inputFile);
  llvm::sys::path::append(path, stem + ".host.ll");
  return writeFile(path, *ir);
}

static LogicalResult runTilec(MLIRContext &context) {
  bool host = emitOpt == "host";
  std::optional<EmitStage> stage =
      host ? std::optional<EmitStage>(EmitStage::Cubin)
           : parseEmitStage(emitOpt);
  if (!stage) {
    llvm::WithColor::error(llvm::errs(), "tilec")
        << "unknown --emit='" << emitOpt
        << "'; expected mlir, llvm, ptx, cubin, header or host\n";
    return failure();
  }
  // --timing: the report prints when `timingManager` goes, after `timing`.
  DefaultTimingManager timingManager;
  timingManager.setEnabled(timingOpt);
  TimingScope timing = timingManager.getRootScope();
  TimingScope parseTiming = timing.nest("parse");
  std::string err;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &err);
  if (!input) {
    llvm::WithColor::error(llvm::errs(), "tilec") << err << "\n";
    return failure();
  }
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
  SuggestionDiagnosticHandler suggestions(&context);
  context.printOpOnDiagnostic(printOpOnDiagnosticOpt);
  OwningOpRef<ModuleOp> module = parseTileSource(sourceMgr, &context);
  if (!module)
    return failure();
  parseTiming.stop();
  if (failed(enableRemarks(context)))
    return failure();

  CompileOptions options;
  options.chip = chipOpt;
  options.emit = *stage;
  options.optLevel = optLevelOpt;
  options.cudaPath = cudaPathOpt;
  options.cubinArch = cubinArchOpt;
  options.fastMath = fastMathOpt;
  options.ptxasTimeoutSeconds = ptxasTimeoutOpt;
  options.verifyEachPass = verifyEachOpt;
  options.keepLLVMIR = *stage == EmitStage::LLVM;
  options.timing = timingOpt ? &timing : nullptr;
  if (host)
    return emitHost(*module, options);
  FailureOr<SmallVector<KernelArtifacts>> kernels =
      compileModule(*module, options);
  if (failed(kernels))
    return failure();

  TimingScope writeTiming = timing.nest("write outputs");
  if (outputOpt == "-") {
    if (*stage == EmitStage::Cubin && kernels->size() != 1) {
      emitError(module->getLoc(), "-o - with --emit=cubin needs exactly one "
                                  "kernel, found ")
          << kernels->size();
      return failure();
    }
    for (const KernelArtifacts &a : *kernels)
      llvm::outs() << stageText(*module, a, *stage);
    return success();
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(outputOpt)) {
    llvm::WithColor::error(llvm::errs(), "tilec")
        << "cannot create '" << outputOpt << "': " << ec.message() << "\n";
    return failure();
  }
  static const char *extensions[] = {".mlir", ".ll", ".ptx", ".cubin", ".h"};
  for (const KernelArtifacts &a : *kernels) {
    SmallString<256> base(outputOpt);
    llvm::sys::path::append(base, a.name);
    for (int s = *stage >= EmitStage::Cubin ? 2 : static_cast<int>(*stage);
         s <= static_cast<int>(*stage); ++s)
      if (failed(writeFile((base + extensions[s]).str(),
                           stageText(*module, a, static_cast<EmitStage>(s)))))
        return failure();
    if (failed(writeFile((base + ".json").str(), a.metadata)))
      return failure();
  }
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(tilecCategory);
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { printToolVersion(os, "tilec"); });
  cl::ParseCommandLineOptions(argc, argv, "tilec: tile programs to PTX/cubin\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // The parser and the passes recurse with the nesting of the input: a
  // large stack keeps deep (and then rejected) inputs from overflowing it.
  int rc = 1;
  llvm::thread worker(std::optional<unsigned>(kStackBytes), [&] {
    rc = succeeded(runTilec(context)) ? 0 : 1;
  });
  worker.join();
  return rc;
}
