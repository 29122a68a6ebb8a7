/*===- aot-mock.c - The AOT header of gemm_bf16 on a mock driver --*- C -*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* Launches through gemm_bf16.h (any chip's, on the include path) linked with
 * libtilec-runtime.so and mock-cuda.c (exported: the runtime finds the
 * driver in the process), in the same sequence as launch-mock.cpp does
 * through the C++ runtime, and prints each result as it does. argv[1]: the
 * sizes of the kernel's parameters, comma-separated. */

#include "gemm_bf16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mockSetParamSizes(const unsigned *sizes, unsigned count);
int mockGetLaunches(void);

static const CUdeviceptr kA = 0x10000, kB = 0x20000, kC = 0x30000;

/* Prints the outcome of one call: "ok", or the runtime's message without
 * the kernel's name. */
static void report(const char *what, CUresult r) {
  const char *message = tilec_gemm_bf16_error();
  const char *colon = strstr(message, ": ");
  if (r == CUDA_SUCCESS)
    printf("%s: ok\n", what);
  else
    printf("%s: %s\n", what, colon ? colon + 2 : message);
}

int main(int argc, char **argv) {
  unsigned sizes[64], count = 0;
  char *p = argc > 1 ? argv[1] : NULL;
  while (p && *p && count < 64) {
    sizes[count++] = (unsigned)strtoul(p, &p, 10);
    if (*p == ',')
      ++p;
  }
  mockSetParamSizes(sizes, count);
  report("launch", tilec_gemm_bf16_launch(NULL, kA, kB, kC, 1000, 600, 300, 304,
                                          608, 600));
  report("again", tilec_gemm_bf16_launch(NULL, kA, kB, kC, 1000, 600, 300, 304,
                                         608, 600));
  report("large", tilec_gemm_bf16_launch(NULL, kA, kB, kC, 3001, 2048, 72, 80,
                                         2056, 2056));
  report("misaligned", tilec_gemm_bf16_launch(NULL, kA + 2, kB, kC, 1000, 600,
                                              300, 304, 608, 600));
  report("lda", tilec_gemm_bf16_launch(NULL, kA, kB, kC, 1000, 600, 300, 301,
                                       608, 600));
  report("empty",
         tilec_gemm_bf16_launch(NULL, kA, kB, kC, 0, 600, 300, 304, 608, 600));
  printf("launches: %d\n", mockGetLaunches());
  report("unload", tilec_gemm_bf16_unload());
  return 0;
}
