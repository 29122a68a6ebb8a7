/*===- mock-cuda.c - A CUDA driver that prints its calls ----------*- C -*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* The driver functions tilec's launch paths call (the C++ runtime and the
 * AOT headers), implemented to print their arguments instead of touching a
 * GPU, so that tests without a GPU can check what a launch would do. Linked
 * in place of libcuda.
 *
 * Tensor maps are "encoded" as their inputs (address and sizes), which
 * launches print back. Launches print each parameter with the sizes given to
 * mockSetParamSizes (the kernel's signature, which the driver would know). */

#include <cuda.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A context, module and function that are never dereferenced. */
static int mockObject;
#define MOCK_CONTEXT ((CUcontext)&mockObject)

static unsigned mockParamSizes[64];
static unsigned mockNumParams;
static int mockLaunches;

/* Sets the sizes of the kernel's parameters, which launches print. */
void mockSetParamSizes(const unsigned *sizes, unsigned count);
void mockSetParamSizes(const unsigned *sizes, unsigned count) {
  memcpy(mockParamSizes, sizes, count * sizeof(unsigned));
  mockNumParams = count;
}

/* The number of launches so far. */
int mockGetLaunches(void);
int mockGetLaunches(void) { return mockLaunches; }

CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_MOCK";
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == CUDA_SUCCESS ? "no error" : "mock error";
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = MOCK_CONTEXT;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext context) {
  return context == MOCK_CONTEXT ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuCtxPopCurrent(CUcontext *context) {
  *context = MOCK_CONTEXT;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device) {
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr,
                              CUdevice device) {
  (void)device;
  if (attr != CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    return CUDA_ERROR_INVALID_VALUE;
  *value = 132;
  printf("mock: cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) -> 132\n");
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  printf("mock: cuModuleLoadData(%s image, %s)\n",
         memcmp(image, "\177ELF", 4) == 0 ? "ELF" : "non-ELF",
         (uintptr_t)image % 8 == 0 ? "8-byte aligned" : "unaligned");
  *module = (CUmodule)&mockObject;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  (void)module;
  printf("mock: cuModuleUnload\n");
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  (void)module;
  printf("mock: cuModuleGetFunction(%s)\n", name);
  *function = (CUfunction)&mockObject;
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attr,
                            int value) {
  (void)function;
  printf("mock: cuFuncSetAttribute(%s, %d)\n",
         attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
             ? "MAX_DYNAMIC_SHARED_SIZE_BYTES"
             : "other",
         value);
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks,
                                                     CUfunction function,
                                                     int blockSize,
                                                     size_t smemBytes) {
  (void)function;
  printf("mock: cuOccupancyMaxActiveBlocksPerMultiprocessor(%d threads, %zu "
         "bytes) -> 1\n",
         blockSize, smemBytes);
  *blocks = 1;
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int *clusters, CUfunction function,
                                      const CUlaunchConfig *config) {
  unsigned a;
  (void)function;
  printf("mock: cuOccupancyMaxActiveClusters(");
  for (a = 0; a < config->numAttrs; ++a)
    if (config->attrs[a].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      printf("cluster (%u, %u, %u), ", config->attrs[a].value.clusterDim.x,
             config->attrs[a].value.clusterDim.y,
             config->attrs[a].value.clusterDim.z);
  printf("block (%u, %u, %u), smem %u) -> 16\n", config->blockDimX,
         config->blockDimY, config->blockDimZ, config->sharedMemBytes);
  *clusters = 16;
  return CUDA_SUCCESS;
}

/* Prints `count` unsigned 64-bit values as [a, b, ...]. */
static void printList64(const cuuint64_t *v, unsigned count) {
  unsigned i;
  printf("[");
  for (i = 0; i < count; ++i)
    printf("%s%llu", i ? ", " : "", (unsigned long long)v[i]);
  printf("]");
}

CUresult cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType dtype, cuuint32_t rank, void *address,
    const cuuint64_t *sizes, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
    CUtensorMapFloatOOBfill oobFill) {
  cuuint64_t box64[5], elem64[5];
  unsigned i;
  for (i = 0; i < rank; ++i) {
    box64[i] = box[i];
    elem64[i] = elementStrides[i];
  }
  printf("mock: cuTensorMapEncodeTiled(dtype %d, rank %u, %p, sizes ",
         (int)dtype, rank, address);
  printList64(sizes, rank);
  printf(", byte strides ");
  printList64(strides, rank - 1);
  printf(", box ");
  printList64(box64, rank);
  printf(", element strides ");
  printList64(elem64, rank);
  printf(", interleave %d, swizzle %d, L2 %d, OOB fill %d, map %s)\n",
         (int)interleave, (int)swizzle, (int)l2, (int)oobFill,
         (uintptr_t)map % 64 == 0 ? "64-byte aligned" : "unaligned");
  /* The "descriptor": its address and sizes, printed by launches. */
  memset(map, 0, sizeof(*map));
  map->opaque[0] = (cuuint64_t)(uintptr_t)address;
  for (i = 0; i < rank; ++i)
    map->opaque[1 + i] = sizes[i];
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction function,
                          void **params, void **extra) {
  unsigned i, a;
  (void)function;
  (void)extra;
  ++mockLaunches;
  printf("mock: cuLaunchKernelEx(grid (%u, %u, %u), block (%u, %u, %u), smem "
         "%u",
         config->gridDimX, config->gridDimY, config->gridDimZ,
         config->blockDimX, config->blockDimY, config->blockDimZ,
         config->sharedMemBytes);
  for (a = 0; a < config->numAttrs; ++a)
    if (config->attrs[a].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      printf(", cluster (%u, %u, %u)", config->attrs[a].value.clusterDim.x,
             config->attrs[a].value.clusterDim.y,
             config->attrs[a].value.clusterDim.z);
  printf(")\nmock:   params");
  for (i = 0; i < mockNumParams; ++i) {
    const unsigned char *p = (const unsigned char *)params[i];
    unsigned size = mockParamSizes[i];
    if (size == 128) {
      const CUtensorMap *map = (const CUtensorMap *)params[i];
      printf(" map(0x%llx, %llux%llu)", (unsigned long long)map->opaque[0],
             (unsigned long long)map->opaque[1],
             (unsigned long long)map->opaque[2]);
      continue;
    }
    /* Little-endian: the value of the parameter's `size` bytes. */
    {
      unsigned long long v = 0;
      unsigned b;
      for (b = 0; b < size; ++b)
        v |= (unsigned long long)p[b] << (8 * b);
      printf(" 0x%llx", v);
    }
  }
  printf("\n");
  return CUDA_SUCCESS;
}
