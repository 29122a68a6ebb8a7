//===- Compiler.cpp - C API: tile programs to PTX and cubins --------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tilec-c/Compiler.h on top of tilec::compileModule: a
// private MLIRContext per call, diagnostics captured as text through a
// SourceMgrDiagnosticHandler, and the IR after every pass recorded through an
// action handler on the context (PassExecutionAction), which sees the passes
// of compileModule's own pass manager without changing it.
//
//===----------------------------------------------------------------------===//

#include "CompileSession.h"

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Diagnostics.h"
#include "tilec/InitAll.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Action.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tilec;

//===----------------------------------------------------------------------===//
// Shared compile step
//===----------------------------------------------------------------------===//

/// compileModule sets the process-wide `nvptx-short-ptr` option and drives
/// LLVM's NVPTX backend; one compilation at a time keeps that well defined.
static std::mutex &getCompileMutex() {
  static std::mutex mutex;
  return mutex;
}

void capi::recordStage(TilecResult &result, StringRef name, Operation *op) {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  // A local scope prints only `op`, never its siblings (which a parallel pass
  // manager could be rewriting); the printer verifies first and falls back to
  // the generic form for IR a failed pass left invalid.
  op->print(os, OpPrintingFlags().useLocalScope());
  os << "\n";
  result.stages.push_back({name.str(), std::move(ir)});
}

/// The stage name of one pass execution: the pass argument, plus the symbol
/// of the op it ran on when that is not the top-level module.
static std::string getStageName(const PassExecutionAction &action) {
  std::string name = action.getPass().getArgument().str();
  Operation *op = action.getOp();
  if (op && op->getParentOp())
    if (auto sym =
            op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      name += (" @" + sym.getValue()).str();
  return name;
}

/// The NVVM-level gpu.module that holds kernel `name`, printed.
static std::string printKernelModule(ModuleOp module, StringRef name) {
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    if (!gpuModule.lookupSymbol(name))
      continue;
    std::string ir;
    llvm::raw_string_ostream os(ir);
    gpuModule->print(os);
    os << "\n";
    return ir;
  }
  return {};
}

/// Converts the C options, diagnosing the values compileModule cannot.
static FailureOr<CompileOptions>
convertOptions(ModuleOp module, const TilecCompileOptions &options) {
  if (!options.chip || !*options.chip)
    return emitError(module.getLoc(), "no target chip given; expected one of ")
           << TargetInfo::getSupportedChips();
  if (options.emit < TilecEmitMLIR || options.emit > TilecEmitHeader)
    return emitError(module.getLoc(), "invalid emit stage ")
           << static_cast<int>(options.emit)
           << "; expected TilecEmitMLIR, TilecEmitLLVM, TilecEmitPTX, "
              "TilecEmitCubin or TilecEmitHeader";
  CompileOptions result;
  result.chip = options.chip;
  result.emit = static_cast<EmitStage>(options.emit);
  result.optLevel = options.optLevel;
  result.cudaPath = options.cudaPath ? options.cudaPath : "";
  result.cubinArch = options.cubinArch ? options.cubinArch : "";
  result.fastMath = options.fastMath;
  return result;
}

LogicalResult capi::compileInto(ModuleOp module,
                                const TilecCompileOptions &options,
                                TilecResult &result) {
  FailureOr<CompileOptions> compileOptions = convertOptions(module, options);
  if (failed(compileOptions))
    return failure();

  MLIRContext *context = module.getContext();
  bool dumpStages = options.dumpStages;
  bool wasMultithreaded = context->isMultithreadingEnabled();
  if (dumpStages) {
    recordStage(result, "input", module);
    // Single-threaded so that stages come out in pass order.
    context->disableMultithreading();
    context->registerActionHandler([&result](function_ref<void()> transform,
                                             const tracing::Action &action) {
      transform();
      auto *execution = dyn_cast<PassExecutionAction>(&action);
      // Pass-manager adaptors run nested pipelines and have no argument.
      if (!execution || execution->getPass().getArgument().empty())
        return;
      recordStage(result, getStageName(*execution), execution->getOp());
    });
  }
  llvm::scope_exit restore([&] {
    if (!dumpStages)
      return;
    context->registerActionHandler(nullptr);
    if (wasMultithreaded)
      context->enableMultithreading();
  });

  FailureOr<SmallVector<KernelArtifacts>> kernels;
  {
    std::lock_guard<std::mutex> lock(getCompileMutex());
    kernels = compileModule(module, *compileOptions);
  }
  if (failed(kernels))
    return failure();

  bool wantMLIR = dumpStages || compileOptions->emit == EmitStage::MLIR;
  for (KernelArtifacts &a : *kernels) {
    TilecKernel kernel;
    kernel.name = a.name;
    if (wantMLIR)
      kernel.artifacts[TilecArtifactMLIR] = printKernelModule(module, a.name);
    kernel.artifacts[TilecArtifactLLVM] = std::move(a.llvmIR);
    kernel.artifacts[TilecArtifactPTX] = std::move(a.ptx);
    kernel.artifacts[TilecArtifactCubin] = std::move(a.cubin);
    kernel.artifacts[TilecArtifactMetadata] = std::move(a.metadata);
    kernel.artifacts[TilecArtifactHeader] = std::move(a.header);
    result.kernels.push_back(std::move(kernel));
  }
  return success();
}

TilecStatus capi::release(std::unique_ptr<TilecResult> result,
                          TilecResult **out) {
  if (!result->succeeded) {
    result->kernels.clear();
    if (result->diagnostics.empty())
      result->diagnostics = "error: compilation failed without a diagnostic\n";
  }
  TilecStatus status = result->succeeded ? TilecSuccess : TilecFailure;
  *out = result.release();
  return status;
}

//===----------------------------------------------------------------------===//
// C entry points
//===----------------------------------------------------------------------===//

/// A TilecStringRef over `s` (which outlives it).
static TilecStringRef wrap(const std::string &s) {
  return {s.c_str(), s.size()};
}

/// The empty string, for absent artifacts and out-of-range indices.
static TilecStringRef getEmptyRef() { return {"", 0}; }

unsigned tilecGetAPIVersion(void) { return TILEC_C_API_VERSION; }

const char *tilecGetVersion(void) {
  // getTilecVersion() returns a string literal, hence NUL-terminated.
  return getTilecVersion().data();
}

const char *tilecGetSupportedChips(void) {
  static const std::string chips = TargetInfo::getSupportedChips().str();
  return chips.c_str();
}

void tilecCompileOptionsInit(TilecCompileOptions *options) {
  if (!options)
    return;
  *options = TilecCompileOptions();
  options->chip = nullptr;
  options->emit = TilecEmitPTX;
  options->optLevel = 3;
  options->cudaPath = nullptr;
  options->cubinArch = nullptr;
  options->sourceName = nullptr;
  options->dumpStages = false;
  options->fastMath = false;
}

TilecStatus tilecCompile(const char *source, size_t length,
                         const TilecCompileOptions *options,
                         TilecResult **result) {
  if (!result)
    return TilecInvalidArgument;
  *result = nullptr;
  if (!options || (!source && length))
    return TilecInvalidArgument;

  auto owned = std::make_unique<TilecResult>();
  {
    DialectRegistry registry;
    registerAllDialects(registry);
    // Stage dumps run single-threaded (see compileInto): no thread pool.
    MLIRContext context(registry, options->dumpStages
                                      ? MLIRContext::Threading::DISABLED
                                      : MLIRContext::Threading::ENABLED);
    context.loadAllAvailableDialects();

    StringRef bufferName = options->sourceName && *options->sourceName
                               ? StringRef(options->sourceName)
                               : StringRef("<source>");
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(
            StringRef(source ? source : "", length), bufferName),
        llvm::SMLoc());
    llvm::raw_string_ostream diagnostics(owned->diagnostics);
    SourceMgrDiagnosticHandler handler(*sourceMgr, &context, diagnostics);
    SuggestionDiagnosticHandler suggestions(&context);
    context.printOpOnDiagnostic(false);

    OwningOpRef<ModuleOp> module = parseTileSource(sourceMgr, &context);
    owned->succeeded =
        module && succeeded(capi::compileInto(*module, *options, *owned));
  }
  return capi::release(std::move(owned), result);
}

void tilecResultDestroy(TilecResult *result) { delete result; }

bool tilecResultSucceeded(const TilecResult *result) {
  return result && result->succeeded;
}

TilecStringRef tilecResultGetDiagnostics(const TilecResult *result) {
  return result ? wrap(result->diagnostics) : getEmptyRef();
}

size_t tilecResultGetNumKernels(const TilecResult *result) {
  return result ? result->kernels.size() : 0;
}

TilecStringRef tilecResultGetKernelName(const TilecResult *result,
                                        size_t index) {
  if (!result || index >= result->kernels.size())
    return getEmptyRef();
  return wrap(result->kernels[index].name);
}

TilecStringRef tilecResultGetKernelArtifact(const TilecResult *result,
                                            size_t index,
                                            TilecArtifact artifact) {
  if (!result || index >= result->kernels.size() ||
      artifact < TilecArtifactMLIR || artifact > TilecArtifactHeader)
    return getEmptyRef();
  return wrap(result->kernels[index].artifacts[artifact]);
}

size_t tilecResultGetNumStages(const TilecResult *result) {
  return result ? result->stages.size() : 0;
}

TilecStringRef tilecResultGetStageName(const TilecResult *result,
                                       size_t index) {
  if (!result || index >= result->stages.size())
    return getEmptyRef();
  return wrap(result->stages[index].name);
}

TilecStringRef tilecResultGetStageIR(const TilecResult *result, size_t index) {
  if (!result || index >= result->stages.size())
    return getEmptyRef();
  return wrap(result->stages[index].ir);
}
