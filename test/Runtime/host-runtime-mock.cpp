//===- host-runtime-mock.cpp - Generated host code on a mock driver -------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

// RUN: rm -rf %t && mkdir -p %t
// RUN: tilec %examples/host/mlp.mlir --chip=sm_80 --cubin-arch=sm_90 --emit=host -o %t
// RUN: llc -O2 -filetype=obj -relocation-model=pic %t/mlp.host.ll -o %t/mlp.o
// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_80 --cubin-arch=sm_90 --emit=cubin -o %t
// RUN: %cc -x c++ -c -I%S/../../include -I%cuda_root/include -DTILEC_GEMM="\"%t/gemm_bf16\"" %s -o %t/main.o
// RUN: %cc %t/main.o %t/mlp.o -L%tilec_lib -ltilec-host-runtime-mock \
// RUN:   -Wl,-rpath,%tilec_lib -lm -lstdc++ -o %t/host-mock
// RUN: %t/host-mock | FileCheck %s
//
// What the host program of examples/host/mlp.mlir (tilec --emit=host) asks
// of the driver through libtilec-host-runtime, without a GPU: managed
// allocations (the caller's, then the kernel's output), the module loaded
// once, one launch with the operands' addresses and M, a wait before the
// host's own tanh loop, the intermediate freed; then the runtime's refusals,
// which launch nothing and stay until cleared.

#include "tilec/Runtime/HostRuntime.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

extern "C" {
void mockSetParamSizes(const unsigned *sizes, unsigned count);
int mockGetLaunches(void);

struct MemRef2 {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};
struct MemRef1 {
  void *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
};
void _mlir_ciface_mlp(MemRef2 *y, MemRef2 *x, MemRef2 *w, MemRef1 *bias);
}

static std::string readFile(const std::string &path) {
  std::string data;
  if (FILE *f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
      data.append(buf, n);
    std::fclose(f);
  }
  return data;
}

static void report(const char *what) {
  const char *error = tilecHostGetError();
  std::printf("%s: %s (launches so far: %d)\n", what, error ? error : "ok",
              mockGetLaunches());
  tilecHostClearError();
}

int main() {
  // mlp_gemm0(A, W, bias, C, M) on the sm_80 path: no tensor maps.
  const unsigned mlpParams[] = {8, 8, 8, 8, 4};
  mockSetParamSizes(mlpParams, 5);
  const int64_t M = 5;
  MemRef2 x = {nullptr, nullptr, 0, {M, 256}, {256, 1}};
  MemRef2 w = {nullptr, nullptr, 0, {256, 192}, {192, 1}};
  MemRef1 b = {nullptr, nullptr, 0, {192}, {1}};
  x.allocated = x.aligned = tilecHostAlloc(M * 256 * 2);
  w.allocated = w.aligned = tilecHostAlloc(256 * 192 * 2);
  b.allocated = b.aligned = tilecHostAlloc(192 * 4);
  std::memset(x.aligned, 0, M * 256 * 2);
  std::printf("calling mlp\n");
  MemRef2 y;
  _mlir_ciface_mlp(&y, &x, &w, &b);
  std::printf("y: %lld x %lld\n", (long long)y.sizes[0],
              (long long)y.sizes[1]);
  report("mlp");
  _mlir_ciface_mlp(&y, &x, &w, &b);
  report("mlp again");

  // tilecHostLaunch directly, on gemm_bf16(A, B, C, M, N, K, lda, ldb, ldc).
  const unsigned gemmParams[] = {8, 8, 8, 4, 4, 4, 4, 4, 4};
  mockSetParamSizes(gemmParams, 9);
  std::string cubin = readFile(TILEC_GEMM ".cubin");
  std::string json = readFile(std::string(TILEC_GEMM) + ".json");
  void *buf = tilecHostAlloc(64 * 64 * 2 * 3);
  int64_t base = (int64_t)(uintptr_t)buf;
  int64_t args[9] = {base, base + 8192, base + 16384, 64, 64, 64, 64, 64, 64};
  auto launch = [&](int64_t numArgs, int64_t bad) {
    tilecHostLaunch(cubin.data(), (int64_t)cubin.size(), json.data(),
                    (int64_t)json.size(), args, numArgs, bad);
  };
  launch(9, 2);
  report("bad operand");
  launch(3, -1);
  report("argument count");
  int onStack[64];
  args[0] = (int64_t)(uintptr_t)onStack;
  launch(9, -1);
  launch(9, -1); // skipped: the error is kept until cleared
  report("host memory");
  args[0] = base;
  launch(9, -1);
  report("valid");
  tilecHostFree(buf);
  return 0;
}

// CHECK: mock: cuMemAllocManaged(2560 bytes)
// CHECK-NEXT: mock: cuMemAllocManaged(98304 bytes)
// CHECK-NEXT: mock: cuMemAllocManaged(768 bytes)
// CHECK-NEXT: calling mlp
// The kernel's output, then the tanh's (both 5 x 192 f32, padded for
// alignment by MLIR's allocation):
// CHECK-NEXT: mock: cuMemAllocManaged({{[0-9]+}} bytes)
// CHECK-NEXT: mock: cuModuleLoadData(ELF image, 8-byte aligned)
// CHECK-NEXT: mock: cuModuleGetFunction(mlp_gemm0)
// CHECK: mock: cuLaunchKernelEx(grid ({{[0-9]+}}, 1, 1), block ({{[0-9]+}}, 1, 1), smem {{[0-9]+}})
// CHECK-NEXT: mock:   params 0x{{[0-9a-f]+}} 0x{{[0-9a-f]+}} 0x{{[0-9a-f]+}} 0x{{[0-9a-f]+}} 0x5{{$}}
// CHECK-NEXT: mock: cuMemAllocManaged({{[0-9]+}} bytes)
// CHECK-NEXT: mock: cuStreamSynchronize
// CHECK-NEXT: mock: cuMemFree({{[0-9]+}} bytes)
// CHECK-NEXT: y: 5 x 192
// CHECK-NEXT: mlp: ok (launches so far: 1)
// The module is not loaded again.
// CHECK-NOT: cuModuleLoadData
// CHECK: mock: cuLaunchKernelEx
// CHECK: mlp again: ok (launches so far: 2)
// CHECK: bad operand: tilec host runtime: gemm_bf16: operand 2 of the tile.launch does not have the strides its kernel assumes (a dense row-major buffer, or rows of unit stride where the kernel takes the leading strides) (launches so far: 2)
// CHECK-NEXT: argument count: tilec host runtime: gemm_bf16: 3 arguments for 9 parameters (launches so far: 2)
// CHECK-NEXT: host memory: tilec host runtime: gemm_bf16: parameter A points at memory the GPU cannot access (pass device or managed memory, e.g. tilecHostAlloc) (launches so far: 2)
// CHECK: mock: cuLaunchKernelEx
// CHECK: valid: ok (launches so far: 3)
// CHECK-NEXT: mock: cuMemFree(24576 bytes)
