//===- Compiler.cpp - From tile programs to PTX, cubin and metadata -------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements compileModule: the tilec-to-nvvm pipeline, PTX through
// the #nvvm.target serialization (LLVM's NVPTX backend), the cubin through
// ptxas (run with llvm::sys::ExecuteAndWait on RAII temporary files) and the
// launch metadata JSON that runtimes consume together with the cubin.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Pipelines/Pipelines.h"
#include "tilec/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/Threading.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <thread>

using namespace mlir;
using namespace mlir::tilec;

#ifndef TILEC_VERSION_STRING
#define TILEC_VERSION_STRING "0.1.0"
#endif

StringRef mlir::tilec::getTilecVersion() { return TILEC_VERSION_STRING; }

void mlir::tilec::printToolVersion(llvm::raw_ostream &os, StringRef tool) {
  os << tool << " " << getTilecVersion() << " (LLVM/MLIR "
     << LLVM_VERSION_STRING << ")\n";
}

std::optional<EmitStage> mlir::tilec::parseEmitStage(StringRef name) {
  return llvm::StringSwitch<std::optional<EmitStage>>(name)
      .Case("mlir", EmitStage::MLIR)
      .Case("llvm", EmitStage::LLVM)
      .Case("ptx", EmitStage::PTX)
      .Case("cubin", EmitStage::Cubin)
      .Case("header", EmitStage::Header)
      .Default(std::nullopt);
}

/// Whether `text` at `i` starts `array<index`, spaces allowed after `<`.
static bool startsIndexArray(StringRef text, size_t i) {
  if (!text.substr(i).starts_with("array<"))
    return false;
  StringRef rest = text.substr(i + 6).ltrim(" \t\n");
  return rest.starts_with("index");
}

std::optional<SourceProblem> mlir::tilec::findSourceProblem(StringRef text) {
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == StringRef::npos)
        break;
    } else if (c == '{' || c == '(' || c == '[') {
      if (++depth > kMaxSourceNesting)
        return SourceProblem{i, "the input nests brackets more than " +
                                    std::to_string(kMaxSourceNesting) +
                                    " deep"};
    } else if ((c == '}' || c == ')' || c == ']') && depth > 0) {
      --depth;
    } else if (c == 'a' && startsIndexArray(text, i)) {
      return SourceProblem{i, "'array<index: ...>' is not a valid dense array "
                              "(MLIR's parser crashes on it, "
                              "docs/known-issues.md)"};
    }
  }
  return std::nullopt;
}

OwningOpRef<ModuleOp>
mlir::tilec::parseTileSource(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                             MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
  if (std::optional<SourceProblem> problem =
          findSourceProblem(buffer->getBuffer())) {
    llvm::SMLoc loc =
        llvm::SMLoc::getFromPointer(buffer->getBufferStart() + problem->offset);
    auto [line, col] = sourceMgr->getLineAndColumn(loc);
    emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                  line, col))
        << problem->message << "; tilec refuses it before parsing";
    return nullptr;
  }
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
}

/// Returns `dir`/bin/ptxas if it is an executable.
static std::optional<std::string> ptxasIn(StringRef dir) {
  if (dir.empty())
    return std::nullopt;
  SmallString<256> path(dir);
  llvm::sys::path::append(path, "bin", "ptxas");
  if (llvm::sys::fs::can_execute(path))
    return std::string(path);
  return std::nullopt;
}

std::optional<std::string> mlir::tilec::findPtxas(StringRef cudaPath) {
  // An explicit toolkit must be used as given.
  if (!cudaPath.empty())
    return ptxasIn(cudaPath);
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    if (std::optional<std::string> p = ptxasIn(*home))
      return p;
  if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  return ptxasIn("/usr/local/cuda");
}

/// Runs `program` and returns its exit code (negative when it could not run
/// or crashed), killing it after `timeoutSeconds` (0: never) and setting
/// `timedOut`. ExecuteAndWait's own timeout relies on SIGALRM reaching the
/// waiting thread, which it does not off the main thread (the drivers
/// compile on a thread with a large stack), so the child is polled.
static int runWithTimeout(StringRef program, ArrayRef<StringRef> args,
                          ArrayRef<std::optional<StringRef>> redirects,
                          unsigned timeoutSeconds, std::string &errMsg,
                          bool &timedOut) {
  timedOut = false;
  bool failedToRun = false;
  llvm::sys::ProcessInfo child = llvm::sys::ExecuteNoWait(
      program, args, /*Env=*/std::nullopt, redirects, /*MemoryLimit=*/0,
      &errMsg, &failedToRun);
  if (failedToRun)
    return -1;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(timeoutSeconds);
  while (true) {
    llvm::sys::ProcessInfo done =
        llvm::sys::Wait(child, timeoutSeconds ? std::optional<unsigned>(0)
                                              : std::nullopt,
                        &errMsg);
    if (done.Pid != 0)
      return done.ReturnCode;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(child.Pid, SIGKILL);
      llvm::sys::Wait(child, std::nullopt, &errMsg);
      timedOut = true;
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

namespace {
/// What ptxas reported of one kernel (`ptxas -v`).
struct PtxasStats {
  int64_t registers = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t stackFrameBytes = 0;
  int64_t staticSharedBytes = 0;
  int64_t barriers = 0;
};

/// The cubin of one module and ptxas's statistics of each of its kernels.
struct PtxasOutput {
  std::string cubin;
  llvm::StringMap<PtxasStats> stats;
};
} // namespace

/// The number before `unit` in `line` ("168 registers" -> 168), if any.
static std::optional<int64_t> numberBefore(StringRef line, StringRef unit) {
  size_t at = line.find(unit);
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef head = line.take_front(at).rtrim();
  StringRef digits =
      head.take_back(head.size() - head.find_last_not_of("0123456789") - 1);
  int64_t value;
  if (digits.empty() || digits.getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// Parses `ptxas -v` output: per entry function, "Function properties"
/// (stack frame, spill stores and loads) and "Used N registers, used B
/// barriers, S bytes smem".
static llvm::StringMap<PtxasStats> parsePtxasLog(StringRef log) {
  llvm::StringMap<PtxasStats> stats;
  PtxasStats *current = nullptr;
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    size_t quote = line.find("entry function '");
    if (quote != StringRef::npos) {
      StringRef name = line.drop_front(quote + 16);
      current = &stats[name.take_until([](char c) { return c == '\''; })];
      continue;
    }
    if (!current)
      continue;
    auto set = [&](StringRef unit, int64_t &field) {
      if (std::optional<int64_t> v = numberBefore(line, unit))
        field = *v;
    };
    set("bytes stack frame", current->stackFrameBytes);
    set("bytes spill stores", current->spillStoreBytes);
    set("bytes spill loads", current->spillLoadBytes);
    set(" registers", current->registers);
    set(" barriers", current->barriers);
    set("bytes smem", current->staticSharedBytes);
  }
  return stats;
}

/// Assembles `ptx` for `arch` with ptxas, which reports each kernel's
/// registers, spills and shared memory (-v).
static FailureOr<PtxasOutput> runPtxas(Location loc, StringRef ptxas,
                                       StringRef ptx, StringRef arch,
                                       unsigned optLevel,
                                       unsigned timeoutSeconds) {
  SmallString<128> inPath, outPath, logPath;
  if (llvm::sys::fs::createTemporaryFile("tilec", "ptx", inPath) ||
      llvm::sys::fs::createTemporaryFile("tilec", "cubin", outPath) ||
      llvm::sys::fs::createTemporaryFile("tilec", "log", logPath))
    return emitError(loc) << "cannot create temporary files for ptxas";
  llvm::FileRemover inRemover(inPath), outRemover(outPath),
      logRemover(logPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(inPath, ec);
    if (ec)
      return emitError(loc) << "cannot write " << inPath << ": "
                            << ec.message();
    os << ptx;
  }
  std::string archFlag = ("-arch=" + arch).str();
  std::string optFlag = "-O" + std::to_string(std::min(optLevel, 3u));
  SmallVector<StringRef> args = {ptxas,  archFlag, optFlag, "-v",
                                 inPath, "-o",     outPath};
  std::optional<StringRef> redirects[] = {StringRef(""), logPath.str(),
                                          logPath.str()};
  std::string errMsg;
  bool timedOut = false;
  int rc = runWithTimeout(ptxas, args, redirects, timeoutSeconds, errMsg,
                          timedOut);
  if (timedOut)
    return emitError(loc) << "ptxas (" << ptxas << ") did not finish within "
                          << timeoutSeconds << " s for " << arch
                          << " (--ptxas-timeout)";
  std::string log;
  if (auto buf = llvm::MemoryBuffer::getFile(logPath))
    log = (*buf)->getBuffer().str();
  if (rc != 0)
    return emitError(loc) << "ptxas (" << ptxas << ") rejected the PTX for "
                          << arch << (errMsg.empty() ? "" : ": ") << errMsg
                          << "\n"
                          << log;
  auto cubin = llvm::MemoryBuffer::getFile(outPath, /*IsText=*/false);
  if (!cubin)
    return emitError(loc) << "cannot read the cubin ptxas wrote";
  return PtxasOutput{(*cubin)->getBuffer().str(), parsePtxasLog(log)};
}

/// ptxas's statistics as launch metadata.
static llvm::json::Object toJson(const PtxasStats &s) {
  return llvm::json::Object{{"registers", s.registers},
                            {"spill_store_bytes", s.spillStoreBytes},
                            {"spill_load_bytes", s.spillLoadBytes},
                            {"stack_frame_bytes", s.stackFrameBytes},
                            {"static_shared_bytes", s.staticSharedBytes},
                            {"barriers", s.barriers}};
}

/// Tells the user what ptxas made of kernel `name`: a `tile-resources`
/// remark, and a warning naming the largest register tiles when it
/// spilled.
static void reportPtxasStats(Location loc, StringRef name, const PtxasStats &s,
                             DictionaryAttr launch) {
  remark::analysis(
      loc, remark::RemarkOpts::name("Resources").category("tile-resources"))
      << remark::add("ptxas: {0} registers a thread, {1} bytes spilled "
                     "(stores) and {2} (loads), {3} bytes stack frame, {4} "
                     "bytes static shared memory",
                     s.registers, s.spillStoreBytes, s.spillLoadBytes,
                     s.stackFrameBytes, s.staticSharedBytes);
  if (s.spillStoreBytes == 0 && s.spillLoadBytes == 0)
    return;
  InFlightDiagnostic diag = emitWarning(loc)
                            << "ptxas spilled " << s.spillStoreBytes
                            << " bytes (stores; " << s.spillLoadBytes
                            << " bytes loads) of kernel '" << name << "' at "
                            << s.registers << " registers a thread";
  auto tiles = launch ? launch.getAs<ArrayAttr>("register_tiles") : nullptr;
  if (tiles && !tiles.empty()) {
    diag << "; the largest tiles it holds in registers: ";
    llvm::interleave(
        tiles.getAsValueRange<StringAttr>(), [&](StringRef t) { diag << t; },
        [&] { diag << "; "; });
  }
  diag << " (smaller tiles or more warps lower the need)";
}

/// A launch-metadata attribute (dictionaries, arrays, strings, integers,
/// booleans) as JSON.
static llvm::json::Value toJson(Attribute attr) {
  if (auto s = dyn_cast<StringAttr>(attr))
    return s.getValue().str();
  if (auto b = dyn_cast<BoolAttr>(attr))
    return b.getValue();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getInt();
  if (auto a = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (Attribute v : a)
      array.push_back(toJson(v));
    return array;
  }
  if (auto d = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : d)
      object[entry.getName().getValue()] = toJson(entry.getValue());
    return object;
  }
  return nullptr;
}

/// `<kernel>.json`: the launch metadata, from the tile.launch attribute the
/// lowering left on the kernel function.
static std::string buildMetadata(DictionaryAttr launch,
                                 const TargetInfo &target, StringRef cubinArch,
                                 const PtxasStats *ptxasStats) {
  llvm::json::Object root;
  auto getInt = [&](StringRef key) {
    return cast<IntegerAttr>(launch.get(key)).getInt();
  };
  auto getInts = [&](StringRef key) {
    llvm::json::Array a;
    for (Attribute v : cast<ArrayAttr>(launch.get(key)))
      a.push_back(cast<IntegerAttr>(v).getInt());
    return a;
  };
  root["kernel"] = cast<StringAttr>(launch.get("name")).getValue().str();
  root["chip"] = target.chip.str();
  root["cubin_arch"] = cubinArch.str();
  root["ptx_version"] = llvm::formatv("{0}.{1}", target.ptxVersion / 10,
                                      target.ptxVersion % 10)
                            .str();
  root["tilec_version"] = getTilecVersion().str();
  root["num_warps"] = getInt("num_warps");
  root["block"] = getInts("block");
  root["cluster"] = getInts("cluster");
  root["smem_bytes"] = getInt("smem_bytes");
  llvm::json::Array grid;
  for (Attribute g : cast<ArrayAttr>(launch.get("grid")))
    grid.push_back(cast<StringAttr>(g).getValue().str());
  root["grid"] = std::move(grid);
  root["persistent"] = cast<BoolAttr>(launch.get("persistent")).getValue();
  root["params"] = toJson(launch.get("params"));
  root["tensor_maps"] = toJson(launch.get("tensor_maps"));
  if (ptxasStats)
    root["ptxas"] = toJson(*ptxasStats);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return out;
}

/// 32-bit shared-memory pointers (as Triton and nvcc use): shared addresses
/// fit in 32 bits, and 64-bit ones cost an extra instruction per access.
static void useShortSharedPointers() {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("nvptx-short-ptr");
  if (it != options.end())
    if (auto *opt = static_cast<llvm::cl::opt<bool> *>(it->second))
      opt->setValue(true);
}

namespace {
/// What LLVM and ptxas make of one gpu.module.
struct ModuleCode {
  std::string llvmIR, ptx;
  std::optional<PtxasOutput> ptxas; ///< when a cubin is asked for
};
} // namespace

/// Serializes `gpuModule` to PTX through its #nvvm.target (LLVM's O3 and
/// NVPTX backend), then, when `ptxas` is set, assembles it. Safe to run for
/// several modules at once: each serialization has its own LLVM context,
/// and ptxas runs as a process on its own temporary files.
static LogicalResult generateCode(gpu::GPUModuleOp gpuModule,
                                  const CompileOptions &options,
                                  StringRef cubinArch,
                                  const std::optional<std::string> &ptxas,
                                  TimingScope &timing, ModuleCode &out) {
  ArrayAttr targets = *gpuModule.getTargets();
  auto serializer = cast<gpu::TargetAttrInterface>(targets[0]);
  auto captureIR = [&](llvm::Module &m) {
    if (!options.keepLLVMIR)
      return;
    llvm::raw_string_ostream os(out.llvmIR);
    m.print(os, nullptr);
  };
  gpu::TargetOptions targetOptions(
      options.cudaPath, /*librariesToLink=*/{}, /*cmdOptions=*/{},
      /*elfSection=*/{}, gpu::CompilationTarget::Assembly,
      /*getSymbolTableCallback=*/{}, /*initialLlvmIRCallback=*/{},
      /*linkedLlvmIRCallback=*/{}, captureIR);
  TimingScope llvmTiming =
      timing.nest("LLVM: translation, O3, NVPTX code generation");
  std::optional<SmallVector<char, 0>> ptx =
      serializer.serializeToObject(gpuModule, targetOptions);
  llvmTiming.stop();
  if (!ptx)
    return gpuModule.emitError("PTX generation failed");
  out.ptx.assign(ptx->begin(), ptx->end());
  while (!out.ptx.empty() && out.ptx.back() == '\0')
    out.ptx.pop_back();
  if (!ptxas)
    return success();
  TimingScope ptxasTiming = timing.nest("ptxas");
  FailureOr<PtxasOutput> assembled =
      runPtxas(gpuModule.getLoc(), *ptxas, out.ptx, cubinArch, options.optLevel,
               options.ptxasTimeoutSeconds);
  if (failed(assembled))
    return failure();
  out.ptxas = std::move(*assembled);
  return success();
}

FailureOr<SmallVector<KernelArtifacts>>
mlir::tilec::compileModule(ModuleOp module, const CompileOptions &options) {
  useShortSharedPointers();
  FailureOr<TargetInfo> target = TargetInfo::get(options.chip);
  if (failed(target))
    return emitError(module.getLoc(), "unknown chip '")
           << options.chip << "'; expected one of "
           << TargetInfo::getSupportedChips();
  std::string cubinArch =
      options.cubinArch.empty() ? options.chip : options.cubinArch;
  bool needsCubin = options.emit >= EmitStage::Cubin;
  if (needsCubin && failed(TargetInfo::get(cubinArch)))
    return emitError(module.getLoc(), "unknown cubin architecture '")
           << cubinArch << "'";
  std::optional<std::string> ptxas;
  if (needsCubin) {
    ptxas = findPtxas(options.cudaPath);
    if (!ptxas)
      return emitError(module.getLoc(),
                       "cannot find ptxas (looked in ")
             << (options.cudaPath.empty()
                     ? StringRef("$CUDA_HOME/bin, $PATH, /usr/local/cuda/bin")
                     : StringRef(options.cudaPath + "/bin"))
             << "); pass --cuda-path=<CUDA toolkit root>";
  }
  if (module.getOps<tile::KernelOp>().empty() &&
      module.getOps<gpu::GPUModuleOp>().empty())
    return emitError(module.getLoc(), "no tile.kernel to compile");

  PassManager pm(module.getContext());
  pm.enableVerifier(options.verifyEachPass);
  TilecPipelineOptions pipelineOptions;
  pipelineOptions.chip = options.chip;
  pipelineOptions.optLevel = options.optLevel;
  pipelineOptions.fastMath = options.fastMath;
  buildTilecToNVVMPipeline(pm, pipelineOptions);
  TimingScope untimed;
  TimingScope &timing = options.timing ? *options.timing : untimed;
  {
    TimingScope passes = timing.nest("passes (tile dialect to NVVM)");
    if (options.timing)
      pm.enableTiming(passes);
    if (failed(pm.run(module)))
      return failure();
    // The NVVM-level module is translated below, which assumes valid IR.
    if (!options.verifyEachPass) {
      TimingScope verifying = passes.nest("verify the pipeline's output");
      if (failed(verify(module)))
        return failure();
    }
  }

  SmallVector<KernelArtifacts> result;
  // Each kernel's launch attribute and location, beside `result`.
  SmallVector<std::pair<DictionaryAttr, Location>> launches;
  SmallVector<gpu::GPUModuleOp> modules;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    size_t before = result.size();
    for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
      auto launch = func->getAttrOfType<DictionaryAttr>("tile.launch");
      if (!launch)
        continue;
      KernelArtifacts artifacts;
      artifacts.name = func.getName().str();
      artifacts.metadata =
          buildMetadata(launch, *target, cubinArch, /*ptxasStats=*/nullptr);
      result.push_back(std::move(artifacts));
      launches.emplace_back(launch, func.getLoc());
    }
    if (options.emit != EmitStage::MLIR && result.size() > before)
      modules.push_back(gpuModule);
  }

  // LLVM and ptxas per gpu.module (one per kernel: tile-attach-target), the
  // modules in parallel; diagnostics in module order.
  SmallVector<ModuleCode> code(modules.size());
  if (failed(failableParallelForEachN(
          module.getContext(), 0, modules.size(), [&](size_t i) {
            return generateCode(modules[i], options, cubinArch, ptxas, timing,
                                code[i]);
          })))
    return failure();

  for (auto [gpuModule, c] : llvm::zip(modules, code)) {
    // The module's PTX and cubin belong to each of its kernels.
    for (auto [a, launch] : llvm::zip(result, launches)) {
      if (!a.ptx.empty() || !gpuModule.lookupSymbol(a.name))
        continue;
      a.llvmIR = c.llvmIR;
      a.ptx = c.ptx;
      if (c.ptxas) {
        a.cubin = c.ptxas->cubin;
        auto stats = c.ptxas->stats.find(a.name);
        if (stats != c.ptxas->stats.end()) {
          reportPtxasStats(launch.second, a.name, stats->second, launch.first);
          a.metadata =
              buildMetadata(launch.first, *target, cubinArch, &stats->second);
        }
      }
      if (options.emit == EmitStage::Header) {
        FailureOr<std::string> header =
            buildAotHeader(gpuModule.getLoc(), a.metadata, a.cubin);
        if (failed(header))
          return failure();
        a.header = std::move(*header);
      }
    }
  }
  return result;
}
