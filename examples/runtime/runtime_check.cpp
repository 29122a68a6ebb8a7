//===- runtime_check.cpp - GPU check of the C++ runtime -------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Loads examples/gemm_bf16.mlir's kernel through tilec::Kernel (cubin + json
// only) and checks, on the GPU:
//   - C = A * B on random odd-sized bf16 inputs with a NaN-poisoned output
//     (row padding included), against a CPU reference in double;
//   - invalid launches (wrong dtype, misaligned pointer, missing argument,
//     non-contiguous tensor) fail with their specific message, launch
//     nothing (the output stays poisoned) and leave the context usable: a
//     valid launch afterwards is correct;
//   - host overhead: microseconds per tilec::Kernel::launch against raw
//     cuLaunchKernel with the same prepared parameters.
//
//   runtime_check DIR...   (each DIR holds gemm_bf16.cubin and .json)
//
// Prints PASS/FAIL per check and exits non-zero if any check failed.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace tilec;

static int failures = 0;

/// Prints one check's outcome.
static void verdict(bool ok, const std::string &what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
  failures += !ok;
}

/// Whether a driver call succeeded; prints the failure.
static bool cuOk(CUresult r, const char *call) {
  if (r == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  std::printf("FAIL %s: %s\n", call, name ? name : "?");
  ++failures;
  return false;
}

static uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

static float fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// bf16 NaN, the poison of outputs.
static constexpr uint16_t kPoison = 0x7FC0;

/// A leading dimension for `cols` columns: a multiple of 8 (the kernel's
/// divisibility requirement) with at least 8 columns of padding, which must
/// stay untouched.
static int padded(int cols) { return (cols + 7) / 8 * 8 + 8; }

/// One GEMM problem in device memory: A (M x lda), B (K x ldb), C (M x ldc)
/// row-major bf16, with host copies of A and B.
struct Problem {
  int m, n, k, lda, ldb, ldc;
  std::vector<uint16_t> a, b;
  CUdeviceptr dA = 0, dB = 0, dC = 0;

  Problem(int m, int n, int k)
      : m(m), n(n), k(k), lda(padded(k)), ldb(padded(n)), ldc(padded(n)) {}
  Problem(const Problem &) = delete;
  ~Problem() {
    cuMemFree(dA);
    cuMemFree(dB);
    cuMemFree(dC);
  }

  bool allocate(std::mt19937 &rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    a.resize(size_t(m) * lda);
    b.resize(size_t(k) * ldb);
    for (uint16_t &v : a)
      v = toBf16(dist(rng));
    for (uint16_t &v : b)
      v = toBf16(dist(rng));
    return cuOk(cuMemAlloc(&dA, a.size() * 2), "cuMemAlloc") &&
           cuOk(cuMemAlloc(&dB, b.size() * 2), "cuMemAlloc") &&
           cuOk(cuMemAlloc(&dC, size_t(m) * ldc * 2 + 16), "cuMemAlloc") &&
           cuOk(cuMemcpyHtoD(dA, a.data(), a.size() * 2), "cuMemcpyHtoD") &&
           cuOk(cuMemcpyHtoD(dB, b.data(), b.size() * 2), "cuMemcpyHtoD") &&
           poison();
  }

  bool poison() {
    return cuOk(cuMemsetD16(dC, kPoison, size_t(m) * ldc), "cuMemsetD16");
  }

  /// The launch arguments, with A and B described as tensors.
  std::vector<Arg> args() const {
    return {Arg::tensor(dA, DType::BF16, {m, k}, {lda, 1}),
            Arg::tensor(dB, DType::BF16, {k, n}, {ldb, 1}),
            Arg::ptr(dC, DType::BF16),
            m,
            n,
            k,
            lda,
            ldb,
            ldc};
  }

  /// The output, copied back.
  std::vector<uint16_t> output() const {
    std::vector<uint16_t> c(size_t(m) * ldc);
    cuOk(cuMemcpyDtoH(c.data(), dC, c.size() * 2), "cuMemcpyDtoH");
    return c;
  }

  /// Whether every element of C, padding included, still holds the poison.
  bool untouched() const {
    std::vector<uint16_t> c = output();
    return std::all_of(c.begin(), c.end(),
                       [](uint16_t v) { return v == kPoison; });
  }

  /// Compares C with a double-precision reference: prints the max error
  /// relative to max |C|, requires every element written and the row
  /// padding untouched.
  bool verify(const std::string &label) const {
    std::vector<uint16_t> c = output();
    std::vector<double> ref(size_t(m) * n, 0.0);
    for (int i = 0; i < m; ++i)
      for (int kk = 0; kk < k; ++kk) {
        double av = fromBf16(a[size_t(i) * lda + kk]);
        const uint16_t *brow = &b[size_t(kk) * ldb];
        double *out = &ref[size_t(i) * n];
        for (int j = 0; j < n; ++j)
          out[j] += av * fromBf16(brow[j]);
      }
    double maxRef = 0, maxErr = 0;
    size_t unwritten = 0, padding = 0;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        float got = fromBf16(c[size_t(i) * ldc + j]);
        double want = ref[size_t(i) * n + j];
        maxRef = std::max(maxRef, std::fabs(want));
        if (std::isnan(got))
          ++unwritten;
        else
          maxErr = std::max(maxErr, std::fabs(got - want));
      }
      for (int j = n; j < ldc; ++j)
        padding += c[size_t(i) * ldc + j] != kPoison;
    }
    double rel = maxErr / (maxRef > 0 ? maxRef : 1);
    // f32 accumulation, one bf16 rounding of the output: within 2^-8.
    bool ok = unwritten == 0 && padding == 0 && rel < 1e-2;
    char line[256];
    std::snprintf(line, sizeof(line),
                  "%s M=%d N=%d K=%d: max rel err %.3e, %zu unwritten, %zu "
                  "padding writes",
                  label.c_str(), m, n, k, rel, unwritten, padding);
    verdict(ok, line);
    return ok;
  }
};

/// Expects `s` to fail with a message that contains `expected`.
static void expectError(const Status &s, const std::string &expected,
                        const std::string &what) {
  bool ok = !s.ok() && s.message().find(expected) != std::string::npos;
  verdict(ok, what + " -> " + (s.ok() ? "accepted" : s.message()));
}

/// Median of `v` (sorted in place).
static double median(std::vector<double> &v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Host time per launch of tilec::Kernel::launch and of raw cuLaunchKernel
/// with the same parameters (tensor maps encoded once), on a tiny problem.
static void benchmark(Kernel &kernel, CUstream stream,
                      const std::string &label) {
  Problem p(64, 64, 64);
  std::mt19937 rng(7);
  if (!p.allocate(rng))
    return;
  std::vector<Arg> args = p.args();
  const KernelSpec &spec = kernel.getSpec();
  LaunchPlan plan;
  StatusOr<Kernel::ModuleInfo> info = kernel.getModuleInfo();
  if (Status s = spec.bind(args, plan); !s.ok() || !info.ok()) {
    verdict(false, label + " benchmark setup: " +
                       (s.ok() ? info.getStatus().message() : s.message()));
    return;
  }
  // The raw launch: parameters and tensor maps prepared by hand.
  std::vector<CUtensorMap> maps(plan.tensorMaps.size());
  for (size_t i = 0; i < maps.size(); ++i) {
    const TensorMapRequest &req = plan.tensorMaps[i];
    const TensorMapSpec &m = spec.tensorMaps[i];
    cuuint64_t sizes[5], strides[5];
    cuuint32_t box[5], ones[5] = {1, 1, 1, 1, 1};
    for (unsigned d = 0; d < req.rank; ++d) {
      sizes[d] = req.sizes[d];
      box[d] = m.box[d];
      strides[d] = d + 1 < req.rank ? req.strides[d] : 0;
    }
    CUtensorMapSwizzle swizzle = m.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : m.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                 : m.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
    // gemm_bf16 maps bf16 operands only.
    if (!cuOk(cuTensorMapEncodeTiled(
                  &maps[i], CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, req.rank,
                  reinterpret_cast<void *>(req.address), sizes, strides, box,
                  ones, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
              "cuTensorMapEncodeTiled"))
      return;
  }
  std::vector<void *> params(spec.getNumKernelParams());
  for (size_t i = 0; i < spec.params.size(); ++i)
    params[spec.params[i].position] = &plan.values[i];
  for (size_t i = 0; i < maps.size(); ++i)
    params[spec.tensorMaps[i].position] = &maps[i];
  // A persistent kernel's grid is capped as Kernel::launch caps it.
  int64_t programs = plan.grid[0];
  if (spec.persistent)
    programs = std::min<int64_t>(programs, info->residentPrograms);
  unsigned grid = static_cast<unsigned>(programs);

  constexpr int kBatch = 100, kReps = 30;
  auto time = [&](auto &&launchOnce) {
    std::vector<double> perLaunch;
    for (int rep = 0; rep < kReps + 2; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kBatch; ++i)
        launchOnce();
      auto t1 = std::chrono::steady_clock::now();
      cuStreamSynchronize(stream);
      if (rep >= 2) // warm-up
        perLaunch.push_back(
            std::chrono::duration<double, std::micro>(t1 - t0).count() /
            kBatch);
    }
    return median(perLaunch);
  };
  CUresult rawStatus = CUDA_SUCCESS;
  double raw = time([&] {
    CUresult r = cuLaunchKernel(
        info->function, grid, static_cast<unsigned>(plan.grid[1]),
        static_cast<unsigned>(plan.grid[2]), spec.block[0], spec.block[1],
        spec.block[2], spec.smemBytes, stream, params.data(), nullptr);
    if (r != CUDA_SUCCESS)
      rawStatus = r;
  });
  Status tilecStatus = Status::success();
  double tilec = time([&] {
    Status s = kernel.launch(args, stream);
    if (!s.ok())
      tilecStatus = s;
  });
  bool ok = rawStatus == CUDA_SUCCESS && tilecStatus.ok() &&
            cuOk(cuStreamSynchronize(stream), "cuStreamSynchronize");
  char line[256];
  std::snprintf(line, sizeof(line),
                "%s host time per launch: raw cuLaunchKernel %.2f us, "
                "tilec::Kernel::launch %.2f us, overhead %.2f us",
                label.c_str(), raw, tilec, tilec - raw);
  verdict(ok, line);
  // The benchmark's output must still be right.
  p.verify(label + " after benchmark");
}

/// All checks of the kernel in `dir`.
static void checkDirectory(const std::string &dir, CUstream stream) {
  std::string label = dir;
  StatusOr<Kernel> loaded = Kernel::load(dir + "/gemm_bf16.cubin");
  if (!loaded.ok()) {
    verdict(false, label + ": " + loaded.getStatus().message());
    return;
  }
  Kernel &kernel = *loaded;
  const KernelSpec &spec = kernel.getSpec();
  label = dir + " (" + spec.chip + ", cubin " + spec.cubinArch + ")";
  StatusOr<Kernel::ModuleInfo> info = kernel.getModuleInfo();
  if (!info.ok()) {
    verdict(false, label + ": " + info.getStatus().message());
    return;
  }
  std::printf("%s: %zu tensor maps, persistent %d, resident programs %u, "
              "smem %u bytes\n",
              label.c_str(), spec.tensorMaps.size(), spec.persistent,
              info->residentPrograms, spec.smemBytes);

  std::mt19937 rng(2024);
  // Odd sizes: ragged tiles on every edge; the last one has more tiles than
  // resident programs, so persistent kernels loop.
  const int sizes[][3] = {
      {517, 389, 263}, {1, 1, 1}, {129, 257, 72}, {3001, 2049, 72}};
  // Kernels with a TMA-store epilogue need N to be a multiple of 8: such N
  // are refused (checked below) and the sizes rounded up.
  int64_t nDiv = 1;
  for (const ParamSpec &param : spec.params)
    if (param.name == "N" && param.divisibility > 1)
      nDiv = param.divisibility;
  for (const auto &s : sizes) {
    int n = static_cast<int>((s[1] + nDiv - 1) / nDiv * nDiv);
    Problem p(s[0], n, s[2]);
    if (!p.allocate(rng))
      return;
    Status st = kernel.launch(p.args(), stream);
    if (!st.ok()) {
      verdict(false, label + ": " + st.message());
      continue;
    }
    if (cuOk(cuStreamSynchronize(stream), "cuStreamSynchronize"))
      p.verify(label);
  }

  // Invalid launches: refused before any driver call, nothing runs.
  Problem p(300, 200, 100);
  if (!p.allocate(rng))
    return;
  std::vector<Arg> args = p.args();
  std::vector<Arg> bad = args;
  bad[0] = Arg::ptr(p.dA, DType::F16);
  expectError(kernel.launch(bad, stream),
              "'A' points to bf16, got a pointer to f16",
              label + " wrong dtype");
  bad = args;
  bad[1] = Arg::ptr(p.dB + 2, DType::BF16);
  expectError(kernel.launch(bad, stream), "'B' must be 16-byte aligned",
              label + " misaligned pointer");
  expectError(kernel.launch(ArgList(args.data(), 8), stream),
              "missing argument 'ldc'", label + " missing argument");
  if (nDiv > 1) {
    bad = args;
    bad[4] = Arg(int32_t(p.n - 1));
    expectError(kernel.validate(bad), "'N' = " + std::to_string(p.n - 1) +
                                          " must be a multiple of 8",
                label + " N not a multiple of 8");
  }
  // Only tensor maps describe a parameter's layout in the metadata.
  if (!spec.tensorMaps.empty()) {
    bad = args;
    bad[0] = Arg::tensor(p.dA, DType::BF16, {p.m, p.k}, {p.lda, 2});
    expectError(kernel.validate(bad),
                "must be contiguous in its last dimension",
                label + " non-contiguous tensor (validate)");
  }
  bool quiet = cuOk(cuStreamSynchronize(stream), "cuStreamSynchronize");
  verdict(quiet && p.untouched(),
          label + " refused launches left the output poisoned");
  Status st = kernel.launch(args, stream);
  if (!st.ok())
    verdict(false, label + ": " + st.message());
  else if (cuOk(cuStreamSynchronize(stream), "cuStreamSynchronize"))
    p.verify(label + " valid launch after refused ones");

  // An empty problem launches nothing and succeeds.
  p.poison();
  args[3] = 0;
  st = kernel.launch(args, stream);
  quiet = cuOk(cuStreamSynchronize(stream), "cuStreamSynchronize");
  verdict(st.ok() && quiet && p.untouched(), label + " M = 0 launches nothing");

  benchmark(kernel, stream, label);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR...\n", argv[0]);
    return 2;
  }
  CUdevice device;
  CUcontext context;
  CUstream stream;
  if (!cuOk(cuInit(0), "cuInit") ||
      !cuOk(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !cuOk(cuDevicePrimaryCtxRetain(&context, device),
            "cuDevicePrimaryCtxRetain") ||
      !cuOk(cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
      !cuOk(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
    return 1;
  char name[256] = {0};
  cuDeviceGetName(name, sizeof(name), device);
  std::printf("device: %s\n", name);
  for (int i = 1; i < argc; ++i)
    checkDirectory(argv[i], stream);
  cuStreamDestroy(stream);
  std::printf("%s: %d failed checks\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
