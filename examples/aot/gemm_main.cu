//===- gemm_main.cu - GPU check of an AOT header --------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Runs examples/gemm_bf16.mlir through the header `tilec --emit=header`
// generates for it (gemm_bf16.h, found on the include path: build once per
// chip with -I<artifacts>/<chip>), which embeds the cubin and the metadata
// and launches through libtilec-runtime.so (no metadata file at run time):
//   - C = A * B on random odd-sized bf16 inputs with NaN-poisoned C (row
//     padding included), against a simple reference kernel (f32 accumulation);
//   - the runtime's argument checks (misaligned A, lda not a multiple of 8)
//     return CUDA_ERROR_INVALID_VALUE with the runtime's message
//     (tilec_gemm_bf16_error()) and launch nothing, and M = 0 launches
//     nothing and succeeds.
// Prints PASS/FAIL per check with the max relative error.
//
//   nvcc -std=c++17 -arch=sm_90 -I<dir> -I<tilec>/include
//        examples/aot/gemm_main.cu -L<lib> -ltilec-runtime -lcuda
//
//===----------------------------------------------------------------------===//

#include "gemm_bf16.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

static int failures = 0;

/// Prints one check's outcome.
static void verdict(bool ok, const std::string &what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
  failures += !ok;
}

/// Whether a runtime call succeeded; prints the failure.
static bool cudaOk(cudaError_t e, const char *call) {
  if (e == cudaSuccess)
    return true;
  std::printf("FAIL %s: %s\n", call, cudaGetErrorString(e));
  ++failures;
  return false;
}

/// The name of a driver result.
static std::string resultName(CUresult r) {
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  return name ? name : std::to_string(r);
}

/// Reference C = A * B in f32, one thread per element.
__global__ void referenceGemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                              float *c, int m, int n, int k, int lda, int ldb) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n)
    return;
  float acc = 0.0f;
  for (int kk = 0; kk < k; ++kk)
    acc += __bfloat162float(a[size_t(i) * lda + kk]) *
           __bfloat162float(b[size_t(kk) * ldb + j]);
  c[size_t(i) * n + j] = acc;
}

/// bf16 NaN, the poison of C.
static constexpr unsigned short kPoison = 0x7FC0;

/// A leading dimension for `cols` columns: a multiple of 8 (the kernel's
/// divisibility requirement) with at least 8 columns of padding, which must
/// stay untouched.
static int padded(int cols) { return (cols + 7) / 8 * 8 + 8; }

/// One problem: A (M x lda), B (K x ldb), C (M x ldc) row-major bf16 and the
/// f32 reference.
struct Problem {
  int m, n, k, lda, ldb, ldc;
  __nv_bfloat16 *a = nullptr, *b = nullptr, *c = nullptr;
  float *ref = nullptr;

  Problem(int m, int n, int k)
      : m(m), n(n), k(k), lda(padded(k)), ldb(padded(n)), ldc(padded(n)) {}
  Problem(const Problem &) = delete;
  ~Problem() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(ref);
  }

  bool allocate(std::mt19937 &rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<__nv_bfloat16> ha(size_t(m) * lda), hb(size_t(k) * ldb);
    for (auto &v : ha)
      v = __float2bfloat16(dist(rng));
    for (auto &v : hb)
      v = __float2bfloat16(dist(rng));
    return cudaOk(cudaMalloc(&a, ha.size() * 2), "cudaMalloc") &&
           cudaOk(cudaMalloc(&b, hb.size() * 2), "cudaMalloc") &&
           cudaOk(cudaMalloc(&c, size_t(m) * ldc * 2 + 16), "cudaMalloc") &&
           cudaOk(cudaMalloc(&ref, size_t(m) * n * 4), "cudaMalloc") &&
           cudaOk(
               cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice),
               "cudaMemcpy") &&
           cudaOk(
               cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice),
               "cudaMemcpy") &&
           poison();
  }

  bool poison() {
    std::vector<unsigned short> p(size_t(m) * ldc, kPoison);
    return cudaOk(cudaMemcpy(c, p.data(), p.size() * 2, cudaMemcpyHostToDevice),
                  "cudaMemcpy");
  }

  /// The header's launch function on this problem.
  CUresult launch(cudaStream_t stream, CUdeviceptr aOffset = 0,
                  int ldaOverride = 0, int mOverride = -1) const {
    return tilec_gemm_bf16_launch(
        stream, reinterpret_cast<CUdeviceptr>(a) + aOffset,
        reinterpret_cast<CUdeviceptr>(b), reinterpret_cast<CUdeviceptr>(c),
        mOverride >= 0 ? mOverride : m, n, k, ldaOverride ? ldaOverride : lda,
        ldb, ldc);
  }

  std::vector<unsigned short> output() const {
    std::vector<unsigned short> h(size_t(m) * ldc);
    cudaOk(cudaMemcpy(h.data(), c, h.size() * 2, cudaMemcpyDeviceToHost),
           "cudaMemcpy");
    return h;
  }

  bool untouched() const {
    std::vector<unsigned short> h = output();
    return std::all_of(h.begin(), h.end(),
                       [](unsigned short v) { return v == kPoison; });
  }

  /// Compares C with the reference kernel's result.
  void verify(const std::string &label) const {
    dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
    referenceGemm<<<grid, block>>>(a, b, ref, m, n, k, lda, ldb);
    if (!cudaOk(cudaDeviceSynchronize(), "referenceGemm"))
      return;
    std::vector<unsigned short> h = output();
    std::vector<float> r(size_t(m) * n);
    cudaOk(cudaMemcpy(r.data(), ref, r.size() * 4, cudaMemcpyDeviceToHost),
           "cudaMemcpy");
    double maxRef = 0, maxErr = 0;
    size_t unwritten = 0, padding = 0;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        unsigned short bits = h[size_t(i) * ldc + j];
        unsigned u = unsigned(bits) << 16;
        float got;
        std::memcpy(&got, &u, 4);
        double want = r[size_t(i) * n + j];
        maxRef = std::max(maxRef, std::fabs(want));
        if (std::isnan(got))
          ++unwritten;
        else
          maxErr = std::max(maxErr, std::fabs(got - want));
      }
      for (int j = n; j < ldc; ++j)
        padding += h[size_t(i) * ldc + j] != kPoison;
    }
    double rel = maxErr / (maxRef > 0 ? maxRef : 1);
    char line[256];
    std::snprintf(line, sizeof(line),
                  "%s M=%d N=%d K=%d: max rel err %.3e, %zu unwritten, %zu "
                  "padding writes",
                  label.c_str(), m, n, k, rel, unwritten, padding);
    // f32 accumulation, one bf16 rounding of the output: within 2^-8.
    verdict(unwritten == 0 && padding == 0 && rel < 1e-2, line);
  }
};

int main() {
  if (!cudaOk(cudaSetDevice(0), "cudaSetDevice") ||
      !cudaOk(cudaFree(nullptr),
              "cudaFree")) // makes the primary context current
    return 1;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::string label = std::string("aot gemm_bf16 (") + TILEC_GEMM_BF16_CHIP +
                      ", cubin " + TILEC_GEMM_BF16_CUBIN_ARCH + ")";
  std::printf("device: %s\n", prop.name);
  cudaStream_t stream;
  if (!cudaOk(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
              "cudaStreamCreate"))
    return 1;
  CUresult r = tilec_gemm_bf16_load();
  verdict(r == CUDA_SUCCESS, label + " load: " + resultName(r));

  std::mt19937 rng(2024);
  // Ragged M and K; N a multiple of 8, as the sm_90a kernel's TMA-store
  // epilogue requires (its launch refuses other N).
  const int sizes[][3] = {{517, 392, 263},
                          {1, 8, 1},
                          {129, 256, 72},
                          {3001, 2048, 72},
                          {1024, 1024, 1024}};
  for (const auto &s : sizes) {
    Problem p(s[0], s[1], s[2]);
    if (!p.allocate(rng))
      return 1;
    r = p.launch(stream);
    if (r != CUDA_SUCCESS) {
      verdict(false, label + " launch: " + resultName(r));
      continue;
    }
    if (cudaOk(cudaStreamSynchronize(stream), "cudaStreamSynchronize"))
      p.verify(label);
  }

  // Refused arguments and an empty problem launch nothing.
  Problem p(300, 200, 100);
  if (!p.allocate(rng))
    return 1;
  r = p.launch(stream, /*aOffset=*/2);
  std::string message = tilec_gemm_bf16_error();
  verdict(r == CUDA_ERROR_INVALID_VALUE &&
              message.find("'A' must be 16-byte aligned") != std::string::npos,
          label + " misaligned A -> " + resultName(r) + ": " + message);
  r = p.launch(stream, 0, /*ldaOverride=*/p.lda + 1);
  message = tilec_gemm_bf16_error();
  verdict(r == CUDA_ERROR_INVALID_VALUE &&
              message.find("must be a multiple of 8") != std::string::npos,
          label + " lda not a multiple of 8 -> " + resultName(r) + ": " +
              message);
  r = p.launch(stream, 0, 0, /*mOverride=*/0);
  verdict(r == CUDA_SUCCESS, label + " M = 0 -> " + resultName(r));
  cudaOk(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  verdict(p.untouched(), label + " nothing launched for them");
  r = p.launch(stream);
  if (r == CUDA_SUCCESS &&
      cudaOk(cudaStreamSynchronize(stream), "cudaStreamSynchronize"))
    p.verify(label + " valid launch after refused ones");
  else
    verdict(false, label + " launch: " + resultName(r));

  verdict(tilec_gemm_bf16_unload() == CUDA_SUCCESS, label + " unload");
  cudaStreamDestroy(stream);
  std::printf("%s: %d failed checks\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
