// Runs batch_reduce.mlir's host program (tilec --emit=host) on random
// inputs and checks C = C0 + sum_b A[b] B[b] against a double-precision
// reference; the caller's C0 must stay unchanged (a tensor argument).
#include "host_test.h"

extern "C" void _mlir_ciface_brmm(MemRef<float, 2> *r, MemRef<bf16, 3> *a,
                                  MemRef<bf16, 3> *b, MemRef<float, 2> *c);

int main() {
  const int64_t Bt = 6, M = 129, K = 72, N = 80;
  std::mt19937 rng(4);
  auto a = allocTensor<bf16, 3>({Bt, M, K});
  auto b = allocTensor<bf16, 3>({Bt, K, N});
  auto c = allocTensor<float, 2>({M, N});
  fillRandom(a, rng);
  fillRandom(b, rng);
  fillRandom(c, rng);
  std::vector<float> c0(c.aligned, c.aligned + M * N);
  MemRef<float, 2> r{};
  _mlir_ciface_brmm(&r, &a, &b, &c);

  std::vector<double> ref(M * N);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = c0[m * N + n];
      for (int64_t i = 0; i < Bt; ++i)
        for (int64_t k = 0; k < K; ++k)
          acc += double(bf16ToFloat(a.aligned[(i * M + m) * K + k])) *
                 bf16ToFloat(b.aligned[(i * K + k) * N + n]);
      ref[m * N + n] = acc;
    }
  int rc = report("batch_reduce_matmul", r, ref, {M, N}, 1e-4);
  if (std::memcmp(c0.data(), c.aligned, c0.size() * sizeof(float)) != 0) {
    std::printf("{\"module\": \"batch_reduce_matmul\", \"error\": \"c was "
                "overwritten\", \"ok\": false}\n");
    rc = 1;
  }
  tilecHostFree(r.allocated);
  return rc;
}
