// Shared by the drivers of the host examples: memref descriptors as the
// generated `_mlir_ciface_<name>` functions take them, bf16 on the host,
// random inputs in managed memory, and the comparison with a reference.
#ifndef TILEC_EXAMPLES_HOST_TEST_H
#define TILEC_EXAMPLES_HOST_TEST_H

#include "tilec/Runtime/HostRuntime.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

/// MLIR's memref descriptor of rank N (the C interface).
template <typename T, int N> struct MemRef {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];

  int64_t count() const {
    int64_t n = 1;
    for (int i = 0; i < N; ++i)
      n *= sizes[i];
    return n;
  }
};

using bf16 = uint16_t;

inline float bf16ToFloat(bf16 v) {
  uint32_t bits = uint32_t(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline bf16 floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return bf16(bits >> 16);
}

/// IEEE half on the host, kept as its bits (a type of its own, so that
/// toFloat and fillRandom pick the right conversion).
struct f16 {
  uint16_t bits;
};

inline float f16ToFloat(f16 h) {
  uint32_t sign = uint32_t(h.bits & 0x8000) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1f, man = h.bits & 0x3ff;
  float f;
  if (exp == 0x1f) { // inf / NaN
    uint32_t bits = sign | 0x7f800000 | (man << 13);
    std::memcpy(&f, &bits, 4);
    return f;
  }
  f = std::ldexp(float(exp ? man | 0x400 : man), int(exp ? exp : 1) - 25);
  return sign ? -f : f;
}

/// Rounds to nearest (values here are small and normal).
inline f16 floatToF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t sign = (bits >> 16) & 0x8000;
  int exp = int((bits >> 23) & 0xff) - 127 + 15;
  uint32_t man = bits & 0x7fffff;
  if (exp <= 0) { // subnormal half
    float scaled = std::fabs(f) * 16777216.0f; // 2^24
    return f16{uint16_t(sign | uint32_t(std::nearbyint(scaled)))};
  }
  uint32_t h = (uint32_t(exp) << 10) | (man >> 13);
  uint32_t rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return f16{uint16_t(sign | h)};
}

/// A dense row-major tensor in managed memory (tilecHostAlloc).
template <typename T, int N>
MemRef<T, N> allocTensor(const int64_t (&sizes)[N]) {
  MemRef<T, N> m{};
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    m.sizes[i] = sizes[i];
    m.strides[i] = stride;
    stride *= sizes[i];
  }
  m.allocated = m.aligned =
      static_cast<T *>(tilecHostAlloc(stride * int64_t(sizeof(T))));
  return m;
}

/// Fills `m` with bf16 values uniform in [-1, 1) (never all zeros).
template <int N> void fillRandom(MemRef<bf16, N> &m, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < m.count(); ++i)
    m.aligned[i] = floatToBf16(dist(rng));
}

template <int N> void fillRandom(MemRef<f16, N> &m, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < m.count(); ++i)
    m.aligned[i] = floatToF16(dist(rng));
}

template <int N> void fillRandom(MemRef<float, N> &m, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < m.count(); ++i)
    m.aligned[i] = dist(rng);
}

inline float toFloat(float v) { return v; }
inline float toFloat(bf16 v) { return bf16ToFloat(v); }
inline float toFloat(f16 v) { return f16ToFloat(v); }

/// max |out - ref| / max |ref| over all elements; prints one JSON line and
/// returns the process exit code (0 when the error is below `bound`, the
/// shape matches and the runtime reported no error).
template <typename T, int N>
int report(const char *module, const MemRef<T, N> &out,
           const std::vector<double> &ref, const int64_t (&shape)[N],
           double bound) {
  bool shapeOk = true;
  for (int i = 0; i < N; ++i)
    shapeOk &= out.sizes[i] == shape[i];
  double maxErr = 0, maxRef = 0;
  bool finite = true;
  if (shapeOk && int64_t(ref.size()) == out.count()) {
    for (int64_t i = 0; i < out.count(); ++i) {
      double v = toFloat(out.aligned[i]);
      finite &= std::isfinite(v);
      maxErr = std::fmax(maxErr, std::fabs(v - ref[i]));
      maxRef = std::fmax(maxRef, std::fabs(ref[i]));
    }
  }
  double rel = maxRef > 0 ? maxErr / maxRef : maxErr;
  const char *error = tilecHostGetError();
  bool ok = shapeOk && finite && !error && rel <= bound;
  std::printf("{\"module\": \"%s\", \"shape\": [", module);
  for (int i = 0; i < N; ++i)
    std::printf("%s%lld", i ? ", " : "", (long long)shape[i]);
  std::printf("], \"max_rel_err\": %.3g, \"bound\": %.3g, \"runtime_error\": "
              "%s%s%s, \"ok\": %s}\n",
              rel, bound, error ? "\"" : "", error ? error : "null",
              error ? "\"" : "", ok ? "true" : "false");
  return ok ? 0 : 1;
}

#endif // TILEC_EXAMPLES_HOST_TEST_H
