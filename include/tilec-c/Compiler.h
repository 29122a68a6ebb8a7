/*===- tilec-c/Compiler.h - C API: tile programs to PTX, cubins ---*- C -*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * This header declares the self-contained compile entry point of
 * libtilec-c.so: tile-program text in; per kernel its name, the NVVM-level
 * MLIR, LLVM IR, PTX, cubin and launch metadata (JSON) out; the IR after
 * every pass on request; diagnostics text on failure. It needs no other
 * header than the C standard library's, so that ctypes, cffi or any C caller
 * can use it without the MLIR C API.
 *
 * Ownership: a TilecResult is owned by the caller and released with
 * tilecResultDestroy. Every TilecStringRef returned by an accessor points into
 * the result and lives as long as it; its data is NUL-terminated (the length
 * excludes the NUL, and binary artifacts such as cubins may contain NULs).
 *
 * Thread safety: all functions may be called from any thread; compilations
 * are serialized inside the library (they set a process-wide LLVM option).
 */

#ifndef TILEC_C_COMPILER_H
#define TILEC_C_COMPILER_H

#include <stdbool.h>
#include <stddef.h>

#if defined(_WIN32) || defined(__CYGWIN__)
#define TILEC_CAPI_EXPORTED
#else
#define TILEC_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Version of the layout of the structs and enums below. Bumped on every
/// incompatible change so that bindings (ctypes) can refuse a mismatch.
#define TILEC_C_API_VERSION 3

/// A sized, NUL-terminated string owned by a TilecResult (or static).
typedef struct TilecStringRef {
  const char *data; ///< Never NULL; "" when empty.
  size_t length;    ///< Bytes, without the terminating NUL.
} TilecStringRef;

/// The last stage a compilation produces; each implies the ones before it
/// (PTX is produced for LLVM as well, since LLVM IR comes out of the NVPTX
/// serialization).
typedef enum TilecEmit {
  TilecEmitMLIR = 0,
  TilecEmitLLVM = 1,
  TilecEmitPTX = 2,
  TilecEmitCubin = 3,
  /// The AOT C header of `tilec --emit=header` (embeds the cubin).
  TilecEmitHeader = 4,
} TilecEmit;

/// The per-kernel outputs of a compilation.
typedef enum TilecArtifact {
  /// The kernel's gpu.module after tilec-to-nvvm (NVVM + LLVM dialect ops).
  /// Produced for TilecEmitMLIR or when stages are dumped.
  TilecArtifactMLIR = 0,
  TilecArtifactLLVM = 1,     ///< LLVM IR (TilecEmitLLVM and later).
  TilecArtifactPTX = 2,      ///< PTX text (TilecEmitLLVM and later).
  TilecArtifactCubin = 3,    ///< ptxas output, binary (TilecEmitCubin).
  TilecArtifactMetadata = 4, ///< <kernel>.json launch metadata, always.
  TilecArtifactHeader = 5,   ///< AOT C header (TilecEmitHeader).
} TilecArtifact;

/// Outcome of a compile call.
typedef enum TilecStatus {
  TilecSuccess = 0,
  /// The program or options were rejected; the result holds diagnostics.
  TilecFailure = 1,
  /// A NULL pointer where one is required; nothing was allocated.
  TilecInvalidArgument = 2,
} TilecStatus;

/// Options of one compilation. Initialize with tilecCompileOptionsInit, then
/// set the fields that differ. Strings are copied during the call.
typedef struct TilecCompileOptions {
  /// Target chip: sm_80, sm_86, sm_89, sm_90 or sm_90a. Required.
  const char *chip;
  /// Last stage to produce (default TilecEmitPTX).
  TilecEmit emit;
  /// LLVM optimization level (default 3).
  unsigned optLevel;
  /// CUDA toolkit root holding bin/ptxas; NULL or "": $CUDA_HOME, $PATH,
  /// then /usr/local/cuda.
  const char *cudaPath;
  /// ptxas target of the cubin; NULL or "": the chip.
  const char *cubinArch;
  /// Buffer name used in diagnostics (e.g. the file path); NULL: "<source>".
  const char *sourceName;
  /// Record the IR after every pass (see tilecResultGetStageIR). Disables
  /// multithreading in the pass manager so that the order is deterministic.
  bool dumpStages;
  /// Approximate divides, square roots and math functions in every kernel
  /// (tilec --fast-math; see the tile-fast-math pass). Default false.
  bool fastMath;
} TilecCompileOptions;

/// Opaque result of a compilation.
typedef struct TilecResult TilecResult;

/// Returns TILEC_C_API_VERSION of the library.
TILEC_CAPI_EXPORTED unsigned tilecGetAPIVersion(void);

/// Returns the tilec version (the "tilec_version" of the metadata).
TILEC_CAPI_EXPORTED const char *tilecGetVersion(void);

/// Returns the supported chips as a comma-separated list.
TILEC_CAPI_EXPORTED const char *tilecGetSupportedChips(void);

/// Sets every field of `options` to its default (chip NULL: must be set).
TILEC_CAPI_EXPORTED void tilecCompileOptionsInit(TilecCompileOptions *options);

/// Parses `length` bytes of tile-program text at `source` and compiles every
/// tile.kernel in it. `*result` receives a new TilecResult on TilecSuccess
/// and on TilecFailure (holding the diagnostics); the caller destroys it.
/// Returns TilecInvalidArgument, and leaves `*result` NULL, if `options` or
/// `result` is NULL or `source` is NULL with a non-zero length.
TILEC_CAPI_EXPORTED TilecStatus tilecCompile(const char *source, size_t length,
                                             const TilecCompileOptions *options,
                                             TilecResult **result);

/// Releases `result` and everything it owns; NULL is a no-op.
TILEC_CAPI_EXPORTED void tilecResultDestroy(TilecResult *result);

/// Whether the compilation succeeded.
TILEC_CAPI_EXPORTED bool tilecResultSucceeded(const TilecResult *result);

/// Every diagnostic (errors, warnings, remarks with their notes) as text, in
/// the `file:line:col: error: message` form of the tilec driver.
TILEC_CAPI_EXPORTED TilecStringRef
tilecResultGetDiagnostics(const TilecResult *result);

/// Number of kernels compiled (0 on failure).
TILEC_CAPI_EXPORTED size_t tilecResultGetNumKernels(const TilecResult *result);

/// Symbol name of kernel `index`; empty if `index` is out of range.
TILEC_CAPI_EXPORTED TilecStringRef
tilecResultGetKernelName(const TilecResult *result, size_t index);

/// An artifact of kernel `index`; empty if not produced or out of range.
TILEC_CAPI_EXPORTED TilecStringRef tilecResultGetKernelArtifact(
    const TilecResult *result, size_t index, TilecArtifact artifact);

/// Number of recorded stages (0 unless dumpStages was set). Stage 0 is the
/// parsed input ("input"); then one stage per pass execution, named after the
/// pass argument, followed by " @symbol" when the pass ran on a nested op.
TILEC_CAPI_EXPORTED size_t tilecResultGetNumStages(const TilecResult *result);

/// Name of stage `index`; empty if out of range.
TILEC_CAPI_EXPORTED TilecStringRef
tilecResultGetStageName(const TilecResult *result, size_t index);

/// IR of stage `index` (the op the pass ran on, printed after the pass);
/// empty if out of range.
TILEC_CAPI_EXPORTED TilecStringRef
tilecResultGetStageIR(const TilecResult *result, size_t index);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_C_COMPILER_H */
