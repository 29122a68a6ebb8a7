/* Prints what the helpers shared by AOT headers compute (emit-header.test):
 * grid arithmetic with Python's rounding, and the f16/bf16 rounding of
 * scalar arguments, on the values test/Runtime/kernel-spec.cpp gives the C++
 * runtime. Unused header functions are not emitted: no libcuda needed. */
#include "aot_names.h"

#include <math.h>
#include <stdio.h>

int main(void) {
  int bad = 0;
  printf("floordiv(-7, 2) = %lld\n",
         (long long)tilec_aot_floordiv(-7, 2, &bad));
  printf("ceildiv(-7, 2) = %lld\n", (long long)tilec_aot_ceildiv(-7, 2, &bad));
  printf("ceildiv(7, 2) = %lld\n", (long long)tilec_aot_ceildiv(7, 2, &bad));
  printf("mod(-7, 2) = %lld\n", (long long)tilec_aot_mod(-7, 2, &bad));
  printf("mod(7, -2) = %lld\n", (long long)tilec_aot_mod(7, -2, &bad));
  printf("bad = %d\n", bad);
  tilec_aot_ceildiv(1, 0, &bad);
  printf("ceildiv(1, 0): bad = %d\n", bad);
  printf("f16: %04x %04x %04x %04x %04x\n", tilec_aot_f16_bits(1.0f),
         tilec_aot_f16_bits(65520.0f), tilec_aot_f16_bits(1e-7f),
         tilec_aot_f16_bits(-2.5f), tilec_aot_f16_bits(NAN));
  printf("bf16: %04x %04x %04x\n", tilec_aot_bf16_bits(1.0f),
         tilec_aot_bf16_bits(1.00390625f), tilec_aot_bf16_bits(1.01171875f));
  return 0;
}
