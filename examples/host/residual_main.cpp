// Runs residual.mlir's host program (tilec --emit=host) on random inputs
// and checks y = relu(x W + r) (bf16) against a double-precision reference;
// r must be left as it was (the kernel writes y into a copy of it).
#include "host_test.h"

extern "C" void _mlir_ciface_residual(MemRef<bf16, 2> *y, MemRef<bf16, 2> *x,
                                      MemRef<bf16, 2> *w, MemRef<bf16, 2> *r);

int main() {
  const int64_t M = 777, K = 128, N = 96;
  std::mt19937 rng(5);
  auto x = allocTensor<bf16, 2>({M, K});
  auto w = allocTensor<bf16, 2>({K, N});
  auto r = allocTensor<bf16, 2>({M, N});
  fillRandom(x, rng);
  fillRandom(w, rng);
  fillRandom(r, rng);
  std::vector<bf16> r0(r.aligned, r.aligned + r.count());
  MemRef<bf16, 2> y{};
  _mlir_ciface_residual(&y, &x, &w, &r);

  std::vector<double> ref(M * N);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = bf16ToFloat(r0[m * N + n]);
      for (int64_t k = 0; k < K; ++k)
        acc += double(bf16ToFloat(x.aligned[m * K + k])) *
               bf16ToFloat(w.aligned[k * N + n]);
      ref[m * N + n] = std::fmax(acc, 0.0);
    }
  int rc = report("residual", y, ref, {M, N}, 1e-2);
  if (std::memcmp(r0.data(), r.aligned, r0.size() * sizeof(bf16)) != 0) {
    std::printf("{\"module\": \"residual\", \"error\": \"r was overwritten\", \"ok\": false}\n");
    rc = 1;
  }
  tilecHostFree(y.allocated);
  return rc;
}
