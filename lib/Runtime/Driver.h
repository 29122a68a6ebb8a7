//===- Driver.h - The CUDA driver entry points of the runtime ---*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the table of CUDA driver functions tilec::Kernel calls.
// The runtime does not link libcuda: it looks the functions up when the
// first launch needs them, in the process first (a program linked with
// -lcuda, or a test's mock driver) and then in libcuda.so.1. So the runtime
// library loads, validates arguments and computes grids on machines without
// a driver, and tests can put a driver of their own in place
// (tilecRtSetDriver in include/tilec-c/Runtime.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_RUNTIME_DRIVER_H
#define TILEC_LIB_RUNTIME_DRIVER_H

#include <cuda.h>

#include <string>

/// The driver functions of the runtime, as cuda.h names them (some names are
/// macros for versioned symbols, e.g. cuCtxPushCurrent_v2).
#define TILEC_CUDA_DRIVER_FUNCTIONS(X)                                         \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuDeviceGetAttribute)                                                      \
  X(cuModuleLoadData)                                                          \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuOccupancyMaxActiveClusters)                                              \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuLaunchKernelEx)

namespace tilec::detail {

/// One pointer per driver function, named as cuda.h names the function.
struct Driver {
#define TILEC_DRIVER_MEMBER(f) decltype(&::f) f = nullptr;
  TILEC_CUDA_DRIVER_FUNCTIONS(TILEC_DRIVER_MEMBER)
#undef TILEC_DRIVER_MEMBER
};

/// The driver in use: the one given to setDriver, else libcuda's (looked up
/// once). Null when libcuda cannot be found; `error` then says why.
const Driver *getDriver(std::string &error);

/// Replaces the driver (a copy of `driver` is kept); null restores libcuda's.
/// Not synchronized with launches: call it before any.
void setDriver(const Driver *driver);

} // namespace tilec::detail

#endif // TILEC_LIB_RUNTIME_DRIVER_H
