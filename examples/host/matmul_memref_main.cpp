// Runs matmul_memref.mlir's host program (tilec --emit=host) on random
// inputs: C, passed in poisoned with NaN, must come back as A B + A2 B (the
// first kernel must not read C, the second must), against a double
// reference rounded like the kernels (f32 sums, f16 stores).
#include "host_test.h"

extern "C" void _mlir_ciface_matmul_memref(MemRef<f16, 2> *a,
                                           MemRef<f16, 2> *b,
                                           MemRef<f16, 2> *a2,
                                           MemRef<f16, 2> *c);

int main() {
  const int64_t M = 333, K = 72, N = 40;
  std::mt19937 rng(4);
  auto a = allocTensor<f16, 2>({M, K});
  auto a2 = allocTensor<f16, 2>({M, K});
  auto b = allocTensor<f16, 2>({K, N});
  auto c = allocTensor<f16, 2>({M, N});
  fillRandom(a, rng);
  fillRandom(a2, rng);
  fillRandom(b, rng);
  for (int64_t i = 0; i < c.count(); ++i)
    c.aligned[i] = f16{0x7e00}; // NaN
  _mlir_ciface_matmul_memref(&a, &b, &a2, &c);

  std::vector<double> ref(M * N);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double first = 0, second = 0;
      for (int64_t k = 0; k < K; ++k) {
        double bk = f16ToFloat(b.aligned[k * N + n]);
        first += f16ToFloat(a.aligned[m * K + k]) * bk;
        second += f16ToFloat(a2.aligned[m * K + k]) * bk;
      }
      // The first kernel stores C in f16; the second reads that back.
      ref[m * N + n] = f16ToFloat(floatToF16(float(first))) + second;
    }
  // f16 output: 11-bit mantissa.
  return report("matmul_memref", c, ref, {M, N}, 2e-3);
}
