/*===- aot-expr-mock.c - attention_rows_bf16.h on a mock driver ---*- C -*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* Launches through the AOT header of attention_rows_bf16 (tensor maps with
 * computed sizes and strides) linked with libtilec-runtime.so and
 * mock-cuda.c, one launch per line of tma-expr-cases.txt as launch-mock.cpp
 * --cases does through the C++ runtime, and prints "case NAME: ok" or "case
 * NAME: error: MESSAGE" each, and "MISMATCH" where the outcome is not the
 * expected one. argv[1]: the sizes of the kernel's parameters,
 * comma-separated; argv[2]: the cases. */

#include "attention_rows_bf16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mockSetParamSizes(const unsigned *sizes, unsigned count);
int mockGetLaunches(void);

int main(int argc, char **argv) {
  unsigned sizes[64], count = 0;
  char *p = argc > 2 ? argv[1] : NULL;
  char line[256], name[64], expected[16];
  long long s, bh;
  FILE *cases = argc > 2 ? fopen(argv[2], "r") : NULL;
  if (!cases) {
    printf("usage: %s PARAM_SIZES CASES\n", argv[0]);
    return 1;
  }
  while (p && *p && count < 64) {
    sizes[count++] = (unsigned)strtoul(p, &p, 10);
    if (*p == ',')
      ++p;
  }
  mockSetParamSizes(sizes, count);
  while (fgets(line, sizeof(line), cases)) {
    CUresult r;
    if (line[0] == '#' ||
        sscanf(line, "%63s %lld %lld %15s", name, &s, &bh, expected) != 4)
      continue;
    r = tilec_attention_rows_bf16_launch(NULL, 0x10000, 0x20000, 0x30000,
                                         0x40000, (int32_t)s, (int32_t)bh,
                                         0.5f);
    printf("case %s: %s%s\n", name, r == CUDA_SUCCESS ? "ok" : "error: ",
           r == CUDA_SUCCESS ? "" : tilec_attention_rows_bf16_error());
    if ((r == CUDA_SUCCESS) != (strcmp(expected, "ok") == 0))
      printf("MISMATCH: %s expected %s\n", name, expected);
  }
  fclose(cases);
  printf("launches: %d\n", mockGetLaunches());
  return 0;
}
