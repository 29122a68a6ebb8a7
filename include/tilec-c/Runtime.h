/*===- tilec-c/Runtime.h - C ABI: launch tilec kernels --------------*- C
-*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * This header declares libtilec-runtime.so, the one implementation of
 * tilec's launch contract (tilec::Kernel, include/tilec/Runtime/Runtime.h)
 * behind a C ABI: a kernel is made from its cubin and the text of its
 * <kernel>.json; launch arguments are checked against the kernel's
 * requirements, the grid comes from the baked grid rule, tensor maps are
 * encoded, parameters packed, the module loaded once per context and the
 * kernel launched with cuLaunchKernelEx (with its cluster dimensions). The
 * Python package (ctypes) and the AOT headers of `tilec --emit=header` call
 * it; neither repeats any of it.
 *
 * The library links neither MLIR nor LLVM nor libcuda: it looks the CUDA
 * driver up at the first driver call (in the process, then libcuda.so.1),
 * so tilecRtKernelCreate, tilecRtKernelValidate, tilecRtKernelBind and
 * tilecRtEvaluateGrid work on machines without a GPU or driver. Link a
 * program with -ltilec-runtime (and -lcuda if it calls the driver itself).
 *
 * Errors: every function returning TilecRtStatus leaves, on failure, a
 * message naming the kernel, the parameter and the rule in a per-thread
 * buffer that tilecRtGetLastError returns (valid until the thread's next
 * call into the library).
 *
 * Thread safety: a TilecRtKernel may be used from several threads (and
 * contexts) at once; a TilecRtLaunch belongs to one thread at a time.
 */

#ifndef TILEC_C_RUNTIME_H
#define TILEC_C_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) || defined(__CYGWIN__)
#define TILEC_RT_EXPORTED
#else
#define TILEC_RT_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Version of the layout of the structs and enums below; bumped on every
/// incompatible change so that bindings (ctypes) can refuse a mismatch.
#define TILEC_RT_API_VERSION 1

/// Outcome of a call.
typedef enum TilecRtStatus {
  TilecRtSuccess = 0,
  /// The arguments break a requirement of the kernel (or the metadata is
  /// invalid); nothing reached the driver.
  TilecRtInvalidArguments = 1,
  /// A driver call failed, or no driver / no current context.
  TilecRtDriverError = 2,
  /// A NULL handle or a struct of an unknown size.
  TilecRtInvalidCall = 3,
} TilecRtStatus;

/// Element and scalar types, as <kernel>.json spells them (TilecRtDTypeAny:
/// no check of a pointer's element type).
typedef enum TilecRtDType {
  TilecRtDTypeAny = 0,
  TilecRtDTypeI1 = 1,
  TilecRtDTypeI8 = 2,
  TilecRtDTypeI16 = 3,
  TilecRtDTypeI32 = 4,
  TilecRtDTypeI64 = 5,
  TilecRtDTypeF16 = 6,
  TilecRtDTypeBF16 = 7,
  TilecRtDTypeF32 = 8,
  TilecRtDTypeF64 = 9,
  TilecRtDTypeF8E4M3 = 10,
  TilecRtDTypeF8E5M2 = 11,
} TilecRtDType;

/// What a TilecRtArg holds.
typedef enum TilecRtArgKind {
  TilecRtArgPointer = 0, ///< `address`: a device pointer.
  TilecRtArgInt = 1,     ///< `intValue`: an integer (or bool).
  TilecRtArgFloat = 2,   ///< `floatValue`: for f16, bf16, f32, f64.
} TilecRtArgKind;

/// Largest tensor rank a TilecRtArg describes (TMA's limit).
#define TILEC_RT_MAX_RANK 5

/// One launch argument (128 bytes). Arguments bind to parameters by
/// position, or by `name`; named ones follow the positional ones. Zero it,
/// then set the fields its kind uses.
typedef struct TilecRtArg {
  uint32_t kind;  ///< TilecRtArgKind.
  uint32_t dtype; ///< Pointers: TilecRtDType of the elements (0: any).
  /// Pointers: 0 (no shape), or the rank of `shape` and `strides`
  /// (elements, outermost first), checked against the tensor maps the
  /// kernel builds from the pointer.
  uint32_t rank;
  uint32_t reserved;
  const char *name; ///< NULL: positional.
  uint64_t address;
  int64_t intValue;
  double floatValue;
  int64_t shape[TILEC_RT_MAX_RANK];
  int64_t strides[TILEC_RT_MAX_RANK];
} TilecRtArg;

/// cuTensorMapEncodeTiled's inputs for one tensor map of a launch.
typedef struct TilecRtTensorMap {
  uint64_t address;
  uint32_t rank;
  uint32_t dtype;    ///< TilecRtDType of the elements.
  uint32_t swizzle;  ///< Bytes: 0, 32, 64 or 128.
  uint32_t position; ///< Among the kernel function's parameters.
  uint64_t sizes[TILEC_RT_MAX_RANK];       ///< Innermost first.
  uint64_t byteStrides[TILEC_RT_MAX_RANK]; ///< Of dimensions 1 .. rank-1.
  uint32_t box[TILEC_RT_MAX_RANK];
  uint32_t reserved;
} TilecRtTensorMap;

/// What a launch of given arguments passes to the kernel (tilecRtKernelBind):
/// no driver call made. Set `structSize` to sizeof(TilecRtBinding) first.
typedef struct TilecRtBinding {
  size_t structSize;
  /// The grid rule's value (before a persistent kernel's cap at the
  /// programs resident at once); a size <= 0: nothing launches.
  int64_t grid[3];
  /// One 8-byte slot per parameter of the metadata, in its order: the
  /// address, or the scalar's bits in the low bytes (integers
  /// sign-extended, f16/bf16 rounded to nearest even).
  size_t numValues;
  const uint64_t *values;
  /// Position of each parameter among the kernel function's parameters.
  const uint32_t *positions;
  /// One entry per tensor map of the metadata.
  size_t numTensorMaps;
  const TilecRtTensorMap *tensorMaps;
} TilecRtBinding;

/// A kernel: cubin plus launch metadata, and its modules (one per context).
typedef struct TilecRtKernel TilecRtKernel;
/// A launch worked out once (tilecRtLaunchCreate), for callers that repeat
/// it.
typedef struct TilecRtLaunch TilecRtLaunch;

/// TILEC_RT_API_VERSION of the library.
TILEC_RT_EXPORTED unsigned tilecRtGetAPIVersion(void);

/// The message of the calling thread's last failure ("" if none).
TILEC_RT_EXPORTED const char *tilecRtGetLastError(void);

/// The CUresult of the calling thread's last failure when it was a
/// TilecRtDriverError (CUDA_ERROR_NOT_INITIALIZED without a driver,
/// CUDA_ERROR_INVALID_CONTEXT without a current context); 0 otherwise.
TILEC_RT_EXPORTED int tilecRtGetLastDriverResult(void);

/// Makes a kernel from `imageBytes` of a cubin or fatbin at `image` (copied)
/// and `metadataBytes` of its <kernel>.json text. Checks the metadata; makes
/// no driver call. `*kernel` is NULL on failure.
TILEC_RT_EXPORTED TilecRtStatus tilecRtKernelCreate(const void *image,
                                                    size_t imageBytes,
                                                    const char *metadata,
                                                    size_t metadataBytes,
                                                    TilecRtKernel **kernel);

/// Unloads the kernel's modules (in their contexts) and frees it; NULL is a
/// no-op.
TILEC_RT_EXPORTED void tilecRtKernelDestroy(TilecRtKernel *kernel);

/// The kernel's symbol.
TILEC_RT_EXPORTED const char *tilecRtKernelGetName(const TilecRtKernel *kernel);

/// Every check a launch makes before its first driver call; no GPU needed.
TILEC_RT_EXPORTED TilecRtStatus tilecRtKernelValidate(
    const TilecRtKernel *kernel, const TilecRtArg *args, size_t numArgs);

/// The checks of tilecRtKernelValidate, and what the launch would pass
/// (`binding`; its arrays live until the thread's next call into the
/// library). `grid`: NULL, or three sizes replacing the grid rule.
TILEC_RT_EXPORTED TilecRtStatus tilecRtKernelBind(const TilecRtKernel *kernel,
                                                  const TilecRtArg *args,
                                                  size_t numArgs,
                                                  const int64_t *grid,
                                                  TilecRtBinding *binding);

/// Loads the module into the current context now instead of at the first
/// launch there.
TILEC_RT_EXPORTED TilecRtStatus tilecRtKernelLoad(TilecRtKernel *kernel);

/// Launches the kernel on `stream` (a CUstream; NULL: the legacy stream) in
/// the current context. `grid`: NULL, or three sizes replacing the grid
/// rule (a kernel without one needs them). A grid without programs
/// launches nothing and succeeds.
TILEC_RT_EXPORTED TilecRtStatus tilecRtKernelLaunch(TilecRtKernel *kernel,
                                                    const TilecRtArg *args,
                                                    size_t numArgs,
                                                    const int64_t *grid,
                                                    void *stream);

/// Works out a launch of `args` in the current context (loading the module
/// there): checks, capped grid, tensor maps and parameters. The kernel must
/// outlive it. `*launch` is NULL on failure.
TILEC_RT_EXPORTED TilecRtStatus tilecRtLaunchCreate(TilecRtKernel *kernel,
                                                    const TilecRtArg *args,
                                                    size_t numArgs,
                                                    const int64_t *grid,
                                                    TilecRtLaunch **launch);

/// Binds `numArgs` arguments into `launch` without launching, when they
/// differ from the last ones given (checked as tilecRtLaunchCreate checks
/// them; on failure the launch keeps its arguments). A tilecRtLaunchRun
/// with the same arguments then launches without binding again.
TILEC_RT_EXPORTED TilecRtStatus tilecRtLaunchUpdate(TilecRtLaunch *launch,
                                                    const TilecRtArg *args,
                                                    size_t numArgs);

/// Launches `launch` on `stream`; its context must be current. `args`:
/// NULL to launch with the arguments it has, or `numArgs` arguments that
/// replace them when they differ from the last ones given (checked again;
/// on failure nothing launches and the launch keeps its arguments). Meant
/// for a buffer the caller keeps and updates in place: one call per launch.
TILEC_RT_EXPORTED TilecRtStatus tilecRtLaunchRun(TilecRtLaunch *launch,
                                                 const TilecRtArg *args,
                                                 size_t numArgs, void *stream);

/// The grid `launch` launches (capped for persistent kernels).
TILEC_RT_EXPORTED void tilecRtLaunchGetGrid(const TilecRtLaunch *launch,
                                            int64_t grid[3]);

/// Frees `launch`; NULL is a no-op.
TILEC_RT_EXPORTED void tilecRtLaunchDestroy(TilecRtLaunch *launch);

/// Evaluates the grid rule `exprs` (1 to 3 expressions in tile.kernel's
/// grid(...) syntax) with integer parameters `names[i]` = `values[i]`.
TILEC_RT_EXPORTED TilecRtStatus tilecRtEvaluateGrid(
    const char *const *exprs, size_t numExprs, const char *const *names,
    const int64_t *values, size_t numValues, int64_t grid[3]);

/// The CUDA driver functions the runtime calls, with the driver's ABI
/// (CUresult and enums as int, handles as pointers, CUdevice as int). For
/// tests and tools that stand in for the driver; set `structSize` to
/// sizeof(TilecRtDriver) and every function.
typedef struct TilecRtDriver {
  size_t structSize;
  int (*getErrorName)(int error, const char **name);
  int (*getErrorString)(int error, const char **text);
  int (*ctxGetCurrent)(void **context);
  int (*ctxPushCurrent)(void *context);
  int (*ctxPopCurrent)(void **context);
  int (*ctxGetDevice)(int *device);
  int (*deviceGetAttribute)(int *value, int attribute, int device);
  int (*moduleLoadData)(void **module, const void *image);
  int (*moduleUnload)(void *module);
  int (*moduleGetFunction)(void **function, void *module, const char *name);
  int (*funcSetAttribute)(void *function, int attribute, int value);
  int (*occupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, void *function,
                                                   int blockSize,
                                                   size_t dynamicSmemBytes);
  /// `config`: a CUlaunchConfig.
  int (*occupancyMaxActiveClusters)(int *clusters, void *function,
                                    const void *config);
  /// `map`: a CUtensorMap (128 bytes, 64-byte aligned).
  int (*tensorMapEncodeTiled)(void *map, int dtype, uint32_t rank,
                              void *address, const uint64_t *sizes,
                              const uint64_t *byteStrides, const uint32_t *box,
                              const uint32_t *elementStrides, int interleave,
                              int swizzle, int l2Promotion, int oobFill);
  /// `config`: a CUlaunchConfig.
  int (*launchKernelEx)(const void *config, void *function, void **params,
                        void **extra);
} TilecRtDriver;

/// Makes the runtime call `driver` (copied) instead of libcuda; NULL goes
/// back to libcuda. Call it before any launch, not during one.
TILEC_RT_EXPORTED TilecRtStatus tilecRtSetDriver(const TilecRtDriver *driver);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_C_RUNTIME_H */
