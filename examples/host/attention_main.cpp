// Runs attention.mlir's host program (tilec --emit=host) on random inputs
// and checks O = softmax(Q Kᵀ / 8) V (bf16) against a double-precision
// reference: odd sequence lengths, seq_q != seq_kv.
#include "host_test.h"

extern "C" void _mlir_ciface_attention(MemRef<bf16, 3> *o, MemRef<bf16, 3> *q,
                                       MemRef<bf16, 3> *k, MemRef<bf16, 3> *v);

int main() {
  const int64_t B = 3, Sq = 333, Skv = 517, D = 128;
  std::mt19937 rng(3);
  auto q = allocTensor<bf16, 3>({B, Sq, D});
  auto k = allocTensor<bf16, 3>({B, Skv, D});
  auto v = allocTensor<bf16, 3>({B, Skv, D});
  fillRandom(q, rng);
  fillRandom(k, rng);
  fillRandom(v, rng);
  MemRef<bf16, 3> o{};
  _mlir_ciface_attention(&o, &q, &k, &v);

  std::vector<double> ref(B * Sq * D), s(Skv);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < Sq; ++i) {
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < Skv; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < D; ++d)
          dot += double(bf16ToFloat(q.aligned[(b * Sq + i) * D + d])) *
                 bf16ToFloat(k.aligned[(b * Skv + j) * D + d]);
        s[j] = dot / 8.0;
        mx = std::fmax(mx, s[j]);
      }
      for (int64_t j = 0; j < Skv; ++j)
        sum += (s[j] = std::exp(s[j] - mx));
      for (int64_t d = 0; d < D; ++d) {
        double acc = 0;
        for (int64_t j = 0; j < Skv; ++j)
          acc += s[j] * bf16ToFloat(v.aligned[(b * Skv + j) * D + d]);
        ref[(b * Sq + i) * D + d] = acc / sum;
      }
    }
  // bf16 output (8 bits of mantissa) and P rounded to bf16 in the kernel.
  int rc = report("attention", o, ref, {B, Sq, D}, 2e-2);
  tilecHostFree(o.allocated);
  return rc;
}
