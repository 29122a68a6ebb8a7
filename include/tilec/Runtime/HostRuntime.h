/*===- HostRuntime.h - runtime of tilec's generated host code ------*- C
-*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* The C ABI that host code lowered by `tilec --emit=host` (pipeline *|
|* tilec-host-to-llvm, pass tile-lower-launches) calls, implemented in *|
|* libtilec-host-runtime.so with the CUDA driver API. Link a program that *|
|* calls such host code with -ltilec-host-runtime -lcuda.                     *|
|*                                                                            *|
|* Contract:                                                                  *|
|*  - Work runs in the calling thread's current CUDA context, or in the       *|
|*    primary context of device $TILEC_DEVICE (default 0) when there is none, *|
|*    on the stream of tilecHostSetStream (default: the legacy stream).       *|
|*  - Buffers the host code allocates are CUDA managed memory, so both the    *|
|*    host code and the kernels use them; buffers passed in must be device    *|
|*    or managed memory (tilecHostAlloc gives managed memory). Results        *|
|*    returned by the host functions are freed with tilecHostFree.            *|
|*  - The host code waits for its kernels (tilecHostSynchronize) before it    *|
|*    touches memory they may use and before it returns.                      *|
|*  - An error (no driver or device, an argument the kernel cannot take, a    *|
|*    failed launch) is printed to stderr once and kept: tilecHostGetError    *|
|*    returns it, and launches are skipped until tilecHostClearError.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILEC_RUNTIME_HOSTRUNTIME_H
#define TILEC_RUNTIME_HOSTRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Launches the kernel of `cubin` described by `metadata` (its <kernel>.json)
   with one 64-bit slot per kernel parameter: a device address, an integer
   (sign-extended), or the bits of a double for floating-point parameters.
   The module is loaded once per context. `badOperand` >= 0 reports that
   operand `badOperand` of the tile.launch does not have the strides its
   kernel assumes (a dense row-major buffer, or rows of unit stride where the
   kernel takes the leading strides): an error, nothing is launched.
   Asynchronous. */
void tilecHostLaunch(const char *cubin, int64_t cubinBytes,
                     const char *metadata, int64_t metadataBytes,
                     const int64_t *args, int64_t numArgs, int64_t badOperand);

/* tilecHostLaunch for a tile.launch with a `fallback` kernel (the same
   parameters, any operands): launches the first kernel when the arguments
   meet its requirements (alignment and divisibility hints, tensor-map
   rules), else the fallback. */
void tilecHostLaunchWithFallback(const char *cubin, int64_t cubinBytes,
                                 const char *metadata, int64_t metadataBytes,
                                 const char *fallbackCubin,
                                 int64_t fallbackCubinBytes,
                                 const char *fallbackMetadata,
                                 int64_t fallbackMetadataBytes,
                                 const int64_t *args, int64_t numArgs,
                                 int64_t badOperand);

/* How many launches took their fallback kernel so far. */
int64_t tilecHostFallbackLaunches(void);

/* Waits for the launches on the runtime's stream. */
void tilecHostSynchronize(void);

/* The stream launches go to (a CUstream; NULL: the legacy stream). */
void tilecHostSetStream(void *stream);

/* The first error since the last tilecHostClearError, or NULL. */
const char *tilecHostGetError(void);
void tilecHostClearError(void);

/* CUDA managed memory, 256-byte aligned; NULL (and an error) on failure. */
void *tilecHostAlloc(int64_t bytes);
void tilecHostFree(void *ptr);

/* The allocation functions of MLIR's finalize-memref-to-llvm with
   use-generic-functions: managed memory as well, every byte 0xff (NaN in
   every float type) when the environment sets TILEC_HOST_POISON, for tests
   that check what no kernel wrote. */
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_RUNTIME_HOSTRUNTIME_H */
