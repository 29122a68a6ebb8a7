//===- Compiler.h - From tile programs to PTX, cubin and metadata *- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the compile entry point shared by the `tilec` driver,
// the C API and the Python package: run tilec-to-nvvm on a module, then turn
// each kernel's gpu.module into LLVM IR, PTX (LLVM's NVPTX backend) and a
// cubin (ptxas), plus its launch metadata (<kernel>.json).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_COMPILER_H
#define TILEC_COMPILER_COMPILER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir::tilec {

/// The last stage a compilation produces. Header, the AOT C header that
/// embeds the cubin, implies the cubin.
enum class EmitStage { MLIR, LLVM, PTX, Cubin, Header };

/// Parses "mlir", "llvm", "ptx", "cubin" or "header".
std::optional<EmitStage> parseEmitStage(StringRef name);

struct CompileOptions {
  /// Target chip: sm_80, sm_86, sm_89, sm_90 or sm_90a.
  std::string chip = "sm_80";
  EmitStage emit = EmitStage::PTX;
  /// LLVM optimization level.
  unsigned optLevel = 3;
  /// CUDA toolkit root (contains bin/ptxas); empty: CUDA_HOME, PATH, then
  /// /usr/local/cuda.
  std::string cudaPath;
  /// ptxas target for the cubin; empty: the chip. sm_80/sm_89 PTX can be
  /// assembled for sm_90 to run on Hopper.
  std::string cubinArch;
  /// Seconds ptxas may run before the compile fails with a diagnostic (0:
  /// no limit).
  unsigned ptxasTimeoutSeconds = 300;
  /// Approximate float math in every kernel (`--fast-math`; see
  /// tile-fast-math).
  bool fastMath = false;
  /// Verify the IR after every pass of tilec-to-nvvm (`tilec --verify-each`),
  /// as tilec-opt does. Off: the input is verified when parsed and the
  /// pipeline's output once before translation; the passes in between are
  /// not (verifying the scalarized kernel after each of them cost about a
  /// sixth of the pipeline's time).
  bool verifyEachPass = false;
  /// Keep each kernel's optimized LLVM IR in KernelArtifacts::llvmIR
  /// (printing it costs time on large kernels; the driver asks for it only
  /// with --emit=llvm).
  bool keepLLVMIR = true;
  /// Where the compile's phases are timed (`tilec --timing`): the passes
  /// (one timer each), LLVM's optimization and NVPTX code generation, and
  /// ptxas nest under it. Null: untimed.
  TimingScope *timing = nullptr;
};

/// Everything produced for one kernel.
struct KernelArtifacts {
  std::string name;
  std::string llvmIR;    ///< EmitStage::LLVM and later
  std::string ptx;       ///< EmitStage::PTX and later
  std::string cubin;     ///< EmitStage::Cubin and later
  std::string header;    ///< EmitStage::Header
  std::string metadata;  ///< <kernel>.json, always
};

/// Deepest bracket nesting ('{', '(', '[') parseTileSource accepts: MLIR's
/// parser and verifier recurse with it (and slow down quadratically), and
/// no tile program comes near it (tile.kernel bodies nest at most 32
/// regions deep).
constexpr unsigned kMaxSourceNesting = 256;

/// What parseTileSource refuses before parsing, and where.
struct SourceProblem {
  size_t offset;
  std::string message;
};

/// The first problem of `text` outside string literals and `//` comments:
/// brackets nested deeper than kMaxSourceNesting, or an input MLIR's parser
/// is known to crash on (docs/known-issues.md).
std::optional<SourceProblem> findSourceProblem(StringRef text);

/// Parses the main buffer of `sourceMgr` into a module (diagnostics through
/// the context's handler), refusing first an input findSourceProblem
/// objects to.
OwningOpRef<ModuleOp>
parseTileSource(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                MLIRContext *context);

/// Compiles `module` in place (it ends up lowered to NVVM) and returns one
/// entry per kernel. Errors are reported through the context's diagnostic
/// handler; returns failure after the first.
FailureOr<SmallVector<KernelArtifacts>>
compileModule(ModuleOp module, const CompileOptions &options);

/// The host side (`tilec --emit=host`): runs tile-from-linalg on `module`,
/// compiles its kernels (a cubin each, for `options.chip` /
/// `options.cubinArch`), embeds them as gpu.binary ops and lowers the host
/// functions with tilec-host-to-llvm. Returns LLVM IR for the host's target
/// triple that calls include/tilec/Runtime/HostRuntime.h; public functions
/// have C wrappers (`_mlir_ciface_<name>`, memref descriptors). `module` is
/// lowered in place.
FailureOr<std::string> compileHostModule(ModuleOp module,
                                         const CompileOptions &options);

/// The AOT header of a kernel (`--emit=header`): C/C++ source that needs
/// only <cuda.h> and libcuda, embeds `cubin` and defines
/// `CUresult tilec_<kernel>_launch(CUstream, <typed parameters>)`, which
/// checks the kernel's requirements, loads the module, encodes the tensor
/// maps and launches as `metadata` (the kernel's <kernel>.json) says.
FailureOr<std::string> buildAotHeader(Location loc, StringRef metadata,
                                      StringRef cubin);

/// Locates ptxas: `cudaPath`/bin, $CUDA_HOME/bin, $PATH, /usr/local/cuda/bin.
std::optional<std::string> findPtxas(StringRef cudaPath);

/// The tilec version string.
StringRef getTilecVersion();

/// `<tool> <tilec version> (LLVM/MLIR <version>)`: what `--version` prints.
void printToolVersion(llvm::raw_ostream &os, StringRef tool);

} // namespace mlir::tilec

#endif // TILEC_COMPILER_COMPILER_H
