//===- Driver.cpp - The CUDA driver entry points of the runtime -----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file looks the driver functions of Driver.h up with dlsym: in the
// process first, as a program linked with -lcuda would bind them, then in
// libcuda.so.1.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

using namespace tilec::detail;

#define TILEC_STRINGIFY_(x) #x
/// The symbol of a driver function: cuda.h's macro expanded
/// (cuCtxPushCurrent -> "cuCtxPushCurrent_v2").
#define TILEC_SYMBOL(f) TILEC_STRINGIFY_(f)

namespace {
/// The driver of the process or libcuda.so.1, looked up once.
struct LoadedDriver {
  Driver driver;
  std::string error;
  bool ok = false;

  LoadedDriver() {
    // The process first: every function must come from one place.
    if (lookUp(RTLD_DEFAULT))
      return;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *why = dlerror();
      error = std::string("cannot load the CUDA driver (libcuda.so.1): ") +
              (why ? why : "not found");
      return;
    }
    if (!lookUp(lib))
      error = "the CUDA driver (libcuda.so.1) lacks " + missing +
              "; tilec needs CUDA 12 or later";
  }

  /// Fills `driver` from `handle`; false (naming the first missing function
  /// in `missing`) unless every function is there.
  bool lookUp(void *handle) {
    Driver d;
#define TILEC_DRIVER_LOOKUP(f)                                                 \
  d.f = reinterpret_cast<decltype(d.f)>(dlsym(handle, TILEC_SYMBOL(f)));       \
  if (!d.f) {                                                                  \
    missing = TILEC_SYMBOL(f);                                                 \
    return false;                                                              \
  }
    TILEC_CUDA_DRIVER_FUNCTIONS(TILEC_DRIVER_LOOKUP)
#undef TILEC_DRIVER_LOOKUP
    driver = d;
    ok = true;
    return true;
  }

  std::string missing;
};

/// The driver of setDriver, if any.
std::mutex givenMutex;
Driver givenDriver;
std::atomic<bool> hasGivenDriver{false};
} // namespace

const Driver *tilec::detail::getDriver(std::string &error) {
  if (hasGivenDriver.load(std::memory_order_acquire))
    return &givenDriver;
  static LoadedDriver loaded;
  if (!loaded.ok) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.driver;
}

void tilec::detail::setDriver(const Driver *driver) {
  std::lock_guard<std::mutex> lock(givenMutex);
  if (!driver) {
    hasGivenDriver.store(false, std::memory_order_release);
    return;
  }
  givenDriver = *driver;
  hasGivenDriver.store(true, std::memory_order_release);
}
