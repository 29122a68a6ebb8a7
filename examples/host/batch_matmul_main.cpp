// Runs batch_matmul.mlir's host program (tilec --emit=host) on random
// inputs and checks C[b] = A[b] B[b] against a double-precision reference.
#include "host_test.h"

extern "C" void _mlir_ciface_bmm(MemRef<float, 3> *c, MemRef<bf16, 3> *a,
                                 MemRef<bf16, 3> *b);

int main() {
  const int64_t Bt = 5, M = 129, K = 64, N = 80;
  std::mt19937 rng(2);
  auto a = allocTensor<bf16, 3>({Bt, M, K});
  auto b = allocTensor<bf16, 3>({Bt, K, N});
  fillRandom(a, rng);
  fillRandom(b, rng);
  MemRef<float, 3> c{};
  _mlir_ciface_bmm(&c, &a, &b);

  std::vector<double> ref(Bt * M * N);
  for (int64_t i = 0; i < Bt; ++i)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += double(bf16ToFloat(a.aligned[(i * M + m) * K + k])) *
                 bf16ToFloat(b.aligned[(i * K + k) * N + n]);
        ref[(i * M + m) * N + n] = acc;
      }
  int rc = report("batch_matmul", c, ref, {Bt, M, N}, 1e-4);
  tilecHostFree(c.allocated);
  return rc;
}
