//===- HostRuntime.cpp - runtime of tilec's generated host code -----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The C ABI of include/tilec/Runtime/HostRuntime.h on top of tilec::Kernel
// (loading, argument checks, tensor maps and the launch itself) and the CUDA
// driver API.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/HostRuntime.h"
#include "tilec/Runtime/Runtime.h"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct HostState {
  std::mutex mutex;
  /// Kernels by the address of their embedded cubin.
  std::map<const char *, std::unique_ptr<tilec::Kernel>> kernels;
  std::string error;
  bool failed = false;
  CUstream stream = nullptr;
  /// Launches that took a tile.launch's fallback kernel.
  int64_t fallbackLaunches = 0;
};

HostState &getState() {
  static HostState state;
  return state;
}

/// Records the first error and prints it. Needs the state's mutex.
void fail(HostState &st, const std::string &message) {
  if (st.failed)
    return;
  st.failed = true;
  st.error = "tilec host runtime: " + message;
  std::fprintf(stderr, "%s\n", st.error.c_str());
}

std::string driverError(const char *call, CUresult r) {
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  return std::string(call) + " failed: " + (name ? name : "unknown error");
}

/// Makes a context current: the thread's, else device $TILEC_DEVICE's
/// primary context. Needs the state's mutex.
bool ensureContext(HostState &st) {
  CUresult r = cuInit(0);
  if (r != CUDA_SUCCESS) {
    fail(st, driverError("cuInit", r));
    return false;
  }
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current)
    return true;
  int ordinal = 0;
  if (const char *env = std::getenv("TILEC_DEVICE"))
    ordinal = std::atoi(env);
  CUdevice device;
  CUcontext primary;
  if ((r = cuDeviceGet(&device, ordinal)) != CUDA_SUCCESS) {
    fail(st, driverError("cuDeviceGet", r) + " (device " +
                 std::to_string(ordinal) + ")");
    return false;
  }
  if ((r = cuDevicePrimaryCtxRetain(&primary, device)) != CUDA_SUCCESS ||
      (r = cuCtxSetCurrent(primary)) != CUDA_SUCCESS) {
    fail(st, driverError("cuDevicePrimaryCtxRetain/cuCtxSetCurrent", r));
    return false;
  }
  return true;
}

bool isFloatDType(tilec::DType t) {
  return t == tilec::DType::F16 || t == tilec::DType::BF16 ||
         t == tilec::DType::F32 || t == tilec::DType::F64;
}

/// Whether `address` is memory a kernel may use: device, managed, or
/// page-locked host memory (mapped into the device's address space).
/// Pageable host memory is unknown to the driver: the query fails.
bool isDeviceAccessible(uint64_t address) {
  unsigned type = 0;
  return cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                               static_cast<CUdeviceptr>(address)) ==
         CUDA_SUCCESS;
}

/// The kernel of `cubin` (loaded once, keyed by the constant's address);
/// null after reporting a failure.
tilec::Kernel *getKernel(HostState &st, const char *cubin, int64_t cubinBytes,
                         const char *metadata, int64_t metadataBytes) {
  auto it = st.kernels.find(cubin);
  if (it == st.kernels.end()) {
    tilec::StatusOr<tilec::Kernel> kernel = tilec::Kernel::fromMemory(
        std::string(cubin, static_cast<size_t>(cubinBytes)),
        std::string_view(metadata, static_cast<size_t>(metadataBytes)));
    if (!kernel.ok()) {
      fail(st, kernel.getStatus().message());
      return nullptr;
    }
    it =
        st.kernels
            .emplace(cubin, std::make_unique<tilec::Kernel>(std::move(*kernel)))
            .first;
  }
  return it->second.get();
}

/// The launch's arguments for `spec`'s parameters from their 64-bit slots;
/// false after reporting a failure.
bool getArgs(HostState &st, const tilec::KernelSpec &spec, const int64_t *args,
             int64_t numArgs, int64_t badOperand,
             std::vector<tilec::Arg> &list) {
  if (badOperand >= 0) {
    fail(st, spec.name + ": operand " + std::to_string(badOperand) +
                 " of the tile.launch does not have the strides its "
                 "kernel assumes (a dense row-major buffer, or rows "
                 "of unit stride where the kernel takes the leading "
                 "strides)");
    return false;
  }
  if (numArgs != static_cast<int64_t>(spec.params.size())) {
    fail(st, spec.name + ": " + std::to_string(numArgs) + " arguments for " +
                 std::to_string(spec.params.size()) + " parameters");
    return false;
  }
  list.reserve(spec.params.size());
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const tilec::ParamSpec &p = spec.params[i];
    if (p.kind == tilec::ParamSpec::Kind::Pointer) {
      uint64_t address = static_cast<uint64_t>(args[i]);
      if (address && !isDeviceAccessible(address)) {
        fail(st, spec.name + ": parameter " + p.name +
                     " points at memory the GPU cannot access (pass "
                     "device or managed memory, e.g. tilecHostAlloc)");
        return false;
      }
      list.push_back(tilec::Arg::ptr(address));
    } else if (isFloatDType(p.dtype)) {
      double value;
      std::memcpy(&value, &args[i], sizeof(value));
      list.push_back(tilec::Arg(value));
    } else {
      list.push_back(tilec::Arg(args[i]));
    }
  }
  return true;
}

/// An embedded kernel: its cubin and launch metadata.
struct Image {
  const char *cubin;
  int64_t cubinBytes;
  const char *metadata;
  int64_t metadataBytes;
};

/// Launches `image`'s kernel, or, when given and the arguments break that
/// kernel's requirements (hints, alignment, tensor-map rules), `fallback`'s.
void launch(const Image &image, const Image *fallback, const int64_t *args,
            int64_t numArgs, int64_t badOperand) {
  HostState &st = getState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (st.failed || !ensureContext(st))
    return;
  tilec::Kernel *kernel = getKernel(st, image.cubin, image.cubinBytes,
                                    image.metadata, image.metadataBytes);
  std::vector<tilec::Arg> list;
  if (!kernel ||
      !getArgs(st, kernel->getSpec(), args, numArgs, badOperand, list))
    return;
  if (fallback && !kernel->validate(list).ok()) {
    kernel = getKernel(st, fallback->cubin, fallback->cubinBytes,
                       fallback->metadata, fallback->metadataBytes);
    if (!kernel)
      return;
    if (kernel->getSpec().params.size() != list.size())
      return fail(st, kernel->getSpec().name + ": the fallback has " +
                          std::to_string(kernel->getSpec().params.size()) +
                          " parameters, the launch " +
                          std::to_string(list.size()) + " arguments");
    ++st.fallbackLaunches;
  }
  tilec::Status status = kernel->launch(list, st.stream);
  if (!status.ok())
    fail(st, status.message());
}

} // namespace

extern "C" void tilecHostLaunch(const char *cubin, int64_t cubinBytes,
                                const char *metadata, int64_t metadataBytes,
                                const int64_t *args, int64_t numArgs,
                                int64_t badOperand) {
  launch({cubin, cubinBytes, metadata, metadataBytes}, /*fallback=*/nullptr,
         args, numArgs, badOperand);
}

extern "C" void tilecHostLaunchWithFallback(
    const char *cubin, int64_t cubinBytes, const char *metadata,
    int64_t metadataBytes, const char *fallbackCubin,
    int64_t fallbackCubinBytes, const char *fallbackMetadata,
    int64_t fallbackMetadataBytes, const int64_t *args, int64_t numArgs,
    int64_t badOperand) {
  Image fallback{fallbackCubin, fallbackCubinBytes, fallbackMetadata,
                 fallbackMetadataBytes};
  launch({cubin, cubinBytes, metadata, metadataBytes}, &fallback, args, numArgs,
         badOperand);
}

extern "C" int64_t tilecHostFallbackLaunches(void) {
  HostState &st = getState();
  std::lock_guard<std::mutex> lock(st.mutex);
  return st.fallbackLaunches;
}

extern "C" void tilecHostSynchronize(void) {
  HostState &st = getState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!ensureContext(st))
    return;
  CUresult r = cuStreamSynchronize(st.stream);
  if (r != CUDA_SUCCESS)
    fail(st, driverError("cuStreamSynchronize", r) +
                 " (a kernel failed while running)");
}

extern "C" void tilecHostSetStream(void *stream) {
  HostState &st = getState();
  std::lock_guard<std::mutex> lock(st.mutex);
  st.stream = static_cast<CUstream>(stream);
}

extern "C" const char *tilecHostGetError(void) {
  HostState &st = getState();
  std::lock_guard<std::mutex> lock(st.mutex);
  return st.failed ? st.error.c_str() : nullptr;
}

extern "C" void tilecHostClearError(void) {
  HostState &st = getState();
  std::lock_guard<std::mutex> lock(st.mutex);
  st.failed = false;
  st.error.clear();
}

extern "C" void *tilecHostAlloc(int64_t bytes) {
  HostState &st = getState();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!ensureContext(st))
    return nullptr;
  CUdeviceptr ptr = 0;
  // cuMemAllocManaged refuses 0 bytes; an empty buffer still gets an
  // address.
  CUresult r =
      cuMemAllocManaged(&ptr, bytes > 0 ? bytes : 1, CU_MEM_ATTACH_GLOBAL);
  if (r != CUDA_SUCCESS) {
    fail(st, driverError("cuMemAllocManaged", r) + " (" +
                 std::to_string(bytes) + " bytes)");
    return nullptr;
  }
  return reinterpret_cast<void *>(ptr);
}

extern "C" void tilecHostFree(void *ptr) {
  if (!ptr)
    return;
  HostState &st = getState();
  std::lock_guard<std::mutex> lock(st.mutex);
  CUresult r = cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  if (r != CUDA_SUCCESS)
    fail(st, driverError("cuMemFree", r));
}

/// An allocation of the host code; every byte 0xff (NaN in every float
/// type) when $TILEC_HOST_POISON is set, so that tests see what no kernel
/// wrote.
static void *allocForHostCode(size_t size) {
  void *ptr = tilecHostAlloc(static_cast<int64_t>(size));
  static const bool poison = std::getenv("TILEC_HOST_POISON") != nullptr;
  if (ptr && poison)
    std::memset(ptr, 0xff, size);
  return ptr;
}

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  return allocForHostCode(size);
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  // Managed allocations are 256-byte aligned; larger alignments are padded.
  if (alignment <= 256)
    return allocForHostCode(size);
  HostState &st = getState();
  {
    std::lock_guard<std::mutex> lock(st.mutex);
    fail(st, "alignment " + std::to_string(alignment) +
                 " above 256 bytes is not supported");
  }
  return nullptr;
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) { tilecHostFree(ptr); }
