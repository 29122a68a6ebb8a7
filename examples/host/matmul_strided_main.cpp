// Runs matmul_strided.mlir's host program (tilec --emit=host) on windows of
// larger buffers (row strides and offsets), against double references:
//   1. @matmul_strided, C = A B, with A, B and C windows (fully dynamic
//      layouts); every element of C's buffer outside its window must stay
//      NaN (the poison), every one inside must be A B;
//   2. @matmul_window, C += A B on windows the module takes itself
//      (memref.subview at dynamic offsets), outside untouched;
//   3. @matmul_strided with an A whose rows are not contiguous (inner
//      stride 2): the runtime must refuse the launch with an error and
//      leave C as it was;
//   4. @matmul_strided with K = 13 and A's rows 21 elements apart (not
//      16-byte chunks): the fast kernel cannot take them, so the runtime
//      must launch the `aligned = false` fallback (tilecHostFallbackLaunches
//      counts it; cases 1 and 2 must not need it), and C must be A B.
// One JSON line (host_test.h's fields) sums up all four.
#include "host_test.h"

#include <string>

using StridedBf16 = MemRef<bf16, 2>;
using StridedF32 = MemRef<float, 2>;

extern "C" void _mlir_ciface_matmul_strided(StridedBf16 *a, StridedBf16 *b,
                                            StridedF32 *c);
extern "C" void _mlir_ciface_matmul_window(MemRef<bf16, 2> *abig,
                                           MemRef<bf16, 2> *b,
                                           MemRef<float, 2> *cbig, int64_t row,
                                           int64_t col, int64_t m);

/// The [rows, cols] window at (row, col) of the dense `big`.
template <typename T>
MemRef<T, 2> window(const MemRef<T, 2> &big, int64_t row, int64_t col,
                    int64_t rows, int64_t cols) {
  MemRef<T, 2> w = big;
  w.offset = row * big.strides[0] + col;
  w.sizes[0] = rows;
  w.sizes[1] = cols;
  return w;
}

template <typename T>
T at(const MemRef<T, 2> &m, int64_t i, int64_t j) {
  return m.aligned[m.offset + i * m.strides[0] + j * m.strides[1]];
}

/// A B in double precision, from the windows' bf16 values.
std::vector<double> product(const StridedBf16 &a, const StridedBf16 &b) {
  const int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1];
  std::vector<double> ref(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l)
        s += double(bf16ToFloat(at(a, i, l))) * bf16ToFloat(at(b, l, j));
      ref[i * n + j] = s;
    }
  return ref;
}

/// Every element of `m` NaN (what no kernel wrote stays NaN).
void poison(MemRef<float, 2> &m) {
  for (int64_t i = 0; i < m.count(); ++i)
    m.aligned[i] = std::nanf("");
}

namespace {
struct Check {
  double maxErr = 0, maxRef = 0;
  int64_t outsideWritten = 0;
  bool finite = true;

  /// C's buffer: `ref` inside the window, `outside(i, j)` elsewhere.
  template <typename Outside>
  void compare(const MemRef<float, 2> &cbig, int64_t row, int64_t col,
               int64_t m, int64_t n, const std::vector<double> &ref,
               Outside outside) {
    for (int64_t i = 0; i < cbig.sizes[0]; ++i)
      for (int64_t j = 0; j < cbig.sizes[1]; ++j) {
        float v = cbig.aligned[i * cbig.strides[0] + j];
        bool inside = i >= row && i < row + m && j >= col && j < col + n;
        if (!inside) {
          float o = outside(i, j);
          if (!(std::isnan(o) ? std::isnan(v) : v == o))
            ++outsideWritten;
          continue;
        }
        double r = ref[(i - row) * n + (j - col)];
        finite &= std::isfinite(v);
        maxErr = std::fmax(maxErr, std::fabs(v - r));
        maxRef = std::fmax(maxRef, std::fabs(r));
      }
  }
};
} // namespace

int main() {
  const int64_t M = 333, K = 200, N = 136;
  const float nan = std::nanf("");
  std::mt19937 rng(11);
  Check check;
  // The first runtime error of the cases that must succeed.
  std::string firstError;
  auto noteError = [&] {
    const char *error = tilecHostGetError();
    if (firstError.empty() && error)
      firstError = error;
  };

  // 1. Windows of larger buffers: A at (5, 16) of [M + 7, K + 24], B at
  // (0, 40) of [K, N + 40], C at (2, 4) of [M + 3, N + 8]. The bases stay
  // 16-byte aligned and the row strides whole 16-byte chunks, so the fast
  // kernel takes them (case 4 needs the fallback).
  auto abig = allocTensor<bf16, 2>({M + 7, K + 24});
  auto bbig = allocTensor<bf16, 2>({K, N + 40});
  auto cbig = allocTensor<float, 2>({M + 3, N + 8});
  fillRandom(abig, rng);
  fillRandom(bbig, rng);
  poison(cbig);
  StridedBf16 a = window(abig, 5, 16, M, K);
  StridedBf16 b = window(bbig, 0, 40, K, N);
  StridedF32 c = window(cbig, 2, 4, M, N);
  _mlir_ciface_matmul_strided(&a, &b, &c);
  check.compare(cbig, 2, 4, M, N, product(a, b),
                [&](int64_t, int64_t) { return nan; });
  noteError();

  // 2. The module's own windows: A and C at (3, 8), C accumulated.
  const int64_t row = 3, col = 8, m = 250;
  auto abig2 = allocTensor<bf16, 2>({m + 9, K + 56});
  auto b2 = allocTensor<bf16, 2>({K, N});
  auto cbig2 = allocTensor<float, 2>({m + 5, N + 16});
  fillRandom(abig2, rng);
  fillRandom(b2, rng);
  fillRandom(cbig2, rng);
  std::vector<float> before(cbig2.aligned, cbig2.aligned + cbig2.count());
  _mlir_ciface_matmul_window(&abig2, &b2, &cbig2, row, col, m);
  std::vector<double> ref2 = product(window(abig2, row, col, m, K), b2);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < N; ++j)
      ref2[i * N + j] += before[(row + i) * cbig2.strides[0] + col + j];
  check.compare(cbig2, row, col, m, N, ref2, [&](int64_t i, int64_t j) {
    return before[i * cbig2.strides[0] + j];
  });
  noteError();

  // 3. Rows that are not contiguous: refused, C unchanged.
  StridedBf16 a3 = a;
  a3.strides[1] = 2;
  a3.sizes[1] = K / 2;
  StridedBf16 b3 = window(bbig, 0, 40, K / 2, N);
  poison(cbig);
  _mlir_ciface_matmul_strided(&a3, &b3, &c);
  tilecHostSynchronize();
  const char *refusal = tilecHostGetError();
  std::string refused = refusal ? refusal : "";
  int64_t written = 0;
  for (int64_t i = 0; i < cbig.count(); ++i)
    written += !std::isnan(cbig.aligned[i]);
  tilecHostClearError();
  bool refusedOk =
      refused.find("operand 0 of the tile.launch does not have "
                   "the strides its kernel assumes") != std::string::npos &&
      written == 0;

  // 4. Rows the fast kernel cannot take: the fallback runs.
  const int64_t fastFallbacks = tilecHostFallbackLaunches();
  const int64_t K4 = 13, M4 = 77, N4 = 40;
  auto abig4 = allocTensor<bf16, 2>({M4 + 1, K4 + 8});
  auto bbig4 = allocTensor<bf16, 2>({K4, N4});
  auto cbig4 = allocTensor<float, 2>({M4, N4});
  fillRandom(abig4, rng);
  fillRandom(bbig4, rng);
  poison(cbig4);
  StridedBf16 a4 = window(abig4, 1, 3, M4, K4);
  StridedBf16 b4 = window(bbig4, 0, 0, K4, N4);
  StridedF32 c4 = window(cbig4, 0, 0, M4, N4);
  _mlir_ciface_matmul_strided(&a4, &b4, &c4);
  check.compare(cbig4, 0, 0, M4, N4, product(a4, b4),
                [&](int64_t, int64_t) { return nan; });
  noteError();
  const int64_t fallbacks = tilecHostFallbackLaunches() - fastFallbacks;

  double rel = check.maxRef > 0 ? check.maxErr / check.maxRef : check.maxErr;
  bool ok = check.finite && firstError.empty() && rel <= 1e-4 &&
            check.outsideWritten == 0 && refusedOk && fastFallbacks == 0 &&
            fallbacks == 1;
  std::printf("{\"module\": \"matmul_strided\", \"shape\": [%lld, %lld, %lld], "
              "\"max_rel_err\": %.3g, \"bound\": 1e-4, "
              "\"outside_written\": %lld, \"runtime_error\": \"%s\", "
              "\"inner_stride_2_refused\": %s, \"fallbacks_aligned\": %lld, "
              "\"fallbacks_k13\": %lld, \"ok\": %s}\n",
              (long long)M, (long long)N, (long long)K, rel,
              (long long)check.outsideWritten, firstError.c_str(),
              refusedOk ? "true" : "false", (long long)fastFallbacks,
              (long long)fallbacks, ok ? "true" : "false");
  if (!refusedOk)
    std::fprintf(stderr, "refusal: '%s', elements written: %lld\n",
                 refused.c_str(), (long long)written);
  return ok ? 0 : 1;
}
