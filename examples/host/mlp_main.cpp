// Runs mlp.mlir's host program (tilec --emit=host) on random inputs and
// checks y = tanh(relu(x W + bias)) against a double-precision reference.
#include "host_test.h"

extern "C" void _mlir_ciface_mlp(MemRef<float, 2> *y, MemRef<bf16, 2> *x,
                                 MemRef<bf16, 2> *w, MemRef<float, 1> *bias);

int main() {
  const int64_t M = 1000, K = 256, N = 192;
  std::mt19937 rng(1);
  auto x = allocTensor<bf16, 2>({M, K});
  auto w = allocTensor<bf16, 2>({K, N});
  auto bias = allocTensor<float, 1>({N});
  fillRandom(x, rng);
  fillRandom(w, rng);
  fillRandom(bias, rng);
  MemRef<float, 2> y{};
  _mlir_ciface_mlp(&y, &x, &w, &bias);

  std::vector<double> ref(M * N);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = bias.aligned[n];
      for (int64_t k = 0; k < K; ++k)
        acc += double(bf16ToFloat(x.aligned[m * K + k])) *
               bf16ToFloat(w.aligned[k * N + n]);
      ref[m * N + n] = std::tanh(std::fmax(acc, 0.0));
    }
  int rc = report("mlp", y, ref, {M, N}, 1e-4);
  tilecHostFree(y.allocated);
  return rc;
}
