/*===- mock-cuda-host.c - The mock driver's calls for host code -----*- C -*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* The driver functions the host runtime (lib/Runtime/HostRuntime.cpp) calls
 * besides those of mock-cuda.c: initialization, managed memory (host memory
 * here, so that host code can use it), pointer queries (known only for
 * memory from cuMemAllocManaged) and stream waits. Each prints its call. */

#include <cuda.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MOCK_MAX_ALLOCS 256
static struct {
  uintptr_t begin, end;
} mockAllocs[MOCK_MAX_ALLOCS];
static unsigned mockNumAllocs;

CUresult cuInit(unsigned flags) {
  (void)flags;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  (void)device;
  *context = NULL;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  (void)context;
  return CUDA_SUCCESS;
}

CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned flags) {
  (void)flags;
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p || mockNumAllocs == MOCK_MAX_ALLOCS)
    return CUDA_ERROR_OUT_OF_MEMORY;
  mockAllocs[mockNumAllocs].begin = (uintptr_t)p;
  mockAllocs[mockNumAllocs].end = (uintptr_t)p + bytes;
  ++mockNumAllocs;
  *ptr = (CUdeviceptr)(uintptr_t)p;
  printf("mock: cuMemAllocManaged(%zu bytes)\n", bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr ptr) {
  unsigned i;
  for (i = 0; i < mockNumAllocs; ++i)
    if (mockAllocs[i].begin == (uintptr_t)ptr) {
      printf("mock: cuMemFree(%zu bytes)\n",
             (size_t)(mockAllocs[i].end - mockAllocs[i].begin));
      mockAllocs[i] = mockAllocs[--mockNumAllocs];
      free((void *)(uintptr_t)ptr);
      return CUDA_SUCCESS;
    }
  printf("mock: cuMemFree(unknown pointer)\n");
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                               CUdeviceptr ptr) {
  unsigned i;
  if (attribute != CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
    return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < mockNumAllocs; ++i)
    if (mockAllocs[i].begin <= (uintptr_t)ptr &&
        (uintptr_t)ptr < mockAllocs[i].end) {
      *(unsigned *)data = CU_MEMORYTYPE_UNIFIED;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuStreamSynchronize(CUstream stream) {
  (void)stream;
  printf("mock: cuStreamSynchronize\n");
  return CUDA_SUCCESS;
}
