//===- launch-mock.cpp - Both launch paths on a mock driver ---------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

// RUN: rm -rf %t && mkdir -p %t
// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_90a --emit=header -o %t/sm_90a
// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_80 --cubin-arch=sm_90 --emit=header -o %t/sm_80
//
// The C++ runtime (tilec::Kernel, linked with mock-cuda.c); it also prints
// the sizes of the kernel's parameters for the mock:
// RUN: tilec-launch-mock-test %t/sm_90a/gemm_bf16.cubin > %t/rt-sm_90a.txt
// RUN: FileCheck %s --check-prefixes=CHECK,SM90A,RT < %t/rt-sm_90a.txt
// RUN: tilec-launch-mock-test %t/sm_80/gemm_bf16.cubin > %t/rt-sm_80.txt
// RUN: FileCheck %s --check-prefixes=CHECK,SM80,RT < %t/rt-sm_80.txt
//
// The AOT headers, thin wrappers of libtilec-runtime.so (the same runtime),
// linked with the same mock (exported, so that the runtime finds it):
// RUN: %cc -I%cuda_root/include -I%tilec_include -I%t/sm_90a %S/Inputs/aot-mock.c %S/Inputs/mock-cuda.c -rdynamic -L%tilec_lib -ltilec-runtime -Wl,-rpath,%tilec_lib -o %t/aot-sm_90a
// RUN: %t/aot-sm_90a `sed -n 's/^param sizes //p' %t/rt-sm_90a.txt` > %t/aot-sm_90a.txt
// RUN: FileCheck %s --check-prefixes=CHECK,SM90A,AOT < %t/aot-sm_90a.txt
// RUN: %cc -I%cuda_root/include -I%tilec_include -I%t/sm_80 %S/Inputs/aot-mock.c %S/Inputs/mock-cuda.c -rdynamic -L%tilec_lib -ltilec-runtime -Wl,-rpath,%tilec_lib -o %t/aot-sm_80
// RUN: %t/aot-sm_80 `sed -n 's/^param sizes //p' %t/rt-sm_80.txt` > %t/aot-sm_80.txt
// RUN: FileCheck %s --check-prefixes=CHECK,SM80,AOT < %t/aot-sm_80.txt
//
// A clustered persistent kernel (C++ runtime only; no example has clusters):
// RUN: tilec-launch-mock-test --clustered | FileCheck %s --check-prefix=CLUSTER
//
// Both paths launch with the same configuration and parameter bytes.
// RUN: grep -A1 cuLaunchKernelEx %t/rt-sm_90a.txt > %t/rt-launches-sm_90a.txt
// RUN: grep -A1 cuLaunchKernelEx %t/aot-sm_90a.txt | diff %t/rt-launches-sm_90a.txt -
// RUN: grep -A1 cuLaunchKernelEx %t/rt-sm_80.txt > %t/rt-launches-sm_80.txt
// RUN: grep -A1 cuLaunchKernelEx %t/aot-sm_80.txt | diff %t/rt-launches-sm_80.txt -
//
// What a launch asks of the driver, without a GPU: module loading (once),
// the shared-memory opt-in, the persistent grid cap (132 SMs, one program
// each), tensor-map encoding (cached by the runtime), the launch
// configuration and every parameter's bytes;
// refused launches and empty grids make no launch. Not checked: the numbers
// of the tile config (grid, box, shared memory) and maps besides A's and B's.

// RT: param sizes 8,8,8,4,4,4,4,4,4{{(,128)*$}}

// CHECK: mock: cuModuleLoadData(ELF image, 8-byte aligned)
// CHECK-NEXT: mock: cuModuleGetFunction(gemm_bf16)
// CHECK-NEXT: mock: cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, [[SMEM:[0-9]+]])
// SM90A-NEXT: mock: cuOccupancyMaxActiveBlocksPerMultiprocessor([[THREADS:[0-9]+]] threads, [[SMEM]] bytes) -> 1
// SM90A-NEXT: mock: cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) -> 132
// A is M x K with row stride lda: [K, M] innermost first, lda * 2 bytes.
// SM90A-NEXT: mock: cuTensorMapEncodeTiled(dtype 9, rank 2, 0x10000, sizes [300, 1000], byte strides [608], box [{{[0-9]+}}, {{[0-9]+}}], element strides [1, 1], interleave 0, swizzle 3, L2 3, OOB fill 0, map 64-byte aligned)
// SM90A-NEXT: mock: cuTensorMapEncodeTiled(dtype 9, rank 2, 0x20000, sizes [600, 300], byte strides [1216], box [{{[0-9]+}}, {{[0-9]+}}], element strides [1, 1], interleave 0, swizzle 3, L2 3, OOB fill 0, map 64-byte aligned)
// SM80-NOT: cuTensorMapEncodeTiled
// CHECK: mock: cuLaunchKernelEx(grid ([[GRID:[0-9]+]], 1, 1), block ({{[0-9]+}}, 1, 1), smem [[SMEM]])
// SM90A-NEXT: mock:   params 0x10000 0x20000 0x30000 0x3e8 0x258 0x12c 0x130 0x260 0x258 map(0x10000, 300x1000) map(0x20000, 600x300){{.*}}
// SM80-NEXT: mock:   params 0x10000 0x20000 0x30000 0x3e8 0x258 0x12c 0x130 0x260 0x258{{$}}
// CHECK-NEXT: launch: ok
// The module is loaded once; the runtime reuses encoded maps.
// CHECK-NOT: cuModuleLoadData
// CHECK-NOT: cuTensorMapEncodeTiled
// CHECK: mock: cuLaunchKernelEx(grid ([[GRID]], 1, 1)
// CHECK: again: ok
// More tiles than the 132 resident programs: a persistent kernel's grid is
// capped.
// SM90A: mock: cuTensorMapEncodeTiled(dtype 9, rank 2, 0x10000, sizes [72, 3001], byte strides [160],
// SM90A: mock: cuLaunchKernelEx(grid (132, 1, 1)
// SM80: mock: cuLaunchKernelEx(grid ({{[0-9]+}}, 1, 1)
// CHECK: large: ok
// CHECK-NOT: mock:
// CHECK-NEXT: misaligned: 'A' must be 16-byte aligned, got address 0x10002
// CHECK-NEXT: lda: 'lda' = 301 must be a multiple of 8
// CHECK-NEXT: empty: ok
// CHECK-NEXT: launches: 3
// RT-NEXT: mock: cuModuleUnload
// AOT-NEXT: mock: cuModuleUnload
// AOT-NEXT: unload: ok

// CLUSTER: mock: cuModuleGetFunction(clustered)
// CLUSTER-NOT: cuFuncSetAttribute
// CLUSTER-NEXT: mock: cuOccupancyMaxActiveClusters(cluster (2, 1, 1), block (128, 1, 1), smem 1024) -> 16
// CLUSTER-NEXT: mock: cuLaunchKernelEx(grid (32, 1, 1), block (128, 1, 1), smem 1024, cluster (2, 1, 1))
// CLUSTER-NEXT: mock:   params 0x64 0x7
// CLUSTER-NEXT: clustered: ok
// A grid of whole clusters below the cap stays as it is.
// CLUSTER-NEXT: mock: cuLaunchKernelEx(grid (6, 1, 1), block (128, 1, 1), smem 1024, cluster (2, 1, 1))
// CLUSTER-NEXT: mock:   params 0x3 0x2
// CLUSTER-NEXT: few: ok

#include "tilec/Runtime/Runtime.h"

#include <cstdio>
#include <string>
#include <vector>

extern "C" void mockSetParamSizes(const unsigned *sizes, unsigned count);
extern "C" int mockGetLaunches(void);

using namespace tilec;

static const uint64_t kA = 0x10000, kB = 0x20000, kC = 0x30000;

/// Launches and prints "what: ok" or "what: <message without the kernel>".
static void launch(Kernel &kernel, const char *what, ArgList args) {
  Status s = kernel.launch(args);
  std::string message = s.message();
  size_t colon = message.find(": ");
  std::printf("%s: %s\n", what,
              s.ok() ? "ok" : message.substr(colon + 2).c_str());
}

/// Prints "param sizes N,N,..." (the kernel's signature, as its PTX
/// declares it: 8-byte pointers, scalars of their type's size, 128-byte
/// tensor maps) and gives them to the mock.
static void setParamSizes(const KernelSpec &spec) {
  std::vector<unsigned> sizes(spec.getNumKernelParams(), 128);
  for (const ParamSpec &p : spec.params)
    sizes[p.position] =
        p.kind == ParamSpec::Kind::Pointer ? 8 : getDTypeBytes(p.dtype);
  std::printf("param sizes");
  for (size_t i = 0; i < sizes.size(); ++i)
    std::printf("%c%u", i ? ',' : ' ', sizes[i]);
  std::printf("\n");
  mockSetParamSizes(sizes.data(), static_cast<unsigned>(sizes.size()));
}

/// The sequence of aot-mock.c on the GEMM kernel in `cubinPath`.
static int runGemm(const char *cubinPath) {
  StatusOr<Kernel> kernel = Kernel::load(cubinPath);
  if (!kernel.ok()) {
    std::printf("%s\n", kernel.getStatus().message().c_str());
    return 1;
  }
  setParamSizes(kernel->getSpec());
  launch(*kernel, "launch",
         {Arg::ptr(kA), Arg::ptr(kB), Arg::ptr(kC), 1000, 600, 300, 304, 608,
          600});
  launch(*kernel, "again",
         {Arg::ptr(kA), Arg::ptr(kB), Arg::ptr(kC), 1000, 600, 300, 304, 608,
          600});
  launch(*kernel, "large",
         {Arg::ptr(kA), Arg::ptr(kB), Arg::ptr(kC), 3001, 2048, 72, 80, 2056,
          2056});
  launch(*kernel, "misaligned",
         {Arg::ptr(kA + 2), Arg::ptr(kB), Arg::ptr(kC), 1000, 600, 300, 304,
          608, 600});
  launch(*kernel, "lda",
         {Arg::ptr(kA), Arg::ptr(kB), Arg::ptr(kC), 1000, 600, 300, 301, 608,
          600});
  launch(
      *kernel, "empty",
      {Arg::ptr(kA), Arg::ptr(kB), Arg::ptr(kC), 0, 600, 300, 304, 608, 600});
  std::printf("launches: %d\n", mockGetLaunches());
  // Destroying the kernel unloads its module.
  { Kernel gone = std::move(*kernel); }
  return 0;
}

/// A persistent kernel with 2x1x1 clusters, from metadata written here (no
/// example compiles to one yet) and a stand-in cubin.
static int runClustered() {
  StatusOr<Kernel> kernel = Kernel::fromMemory(std::string("\177ELF", 4), R"({
    "kernel": "clustered", "block": [128, 1, 1], "cluster": [2, 1, 1],
    "smem_bytes": 1024, "persistent": true, "grid": ["m * n"],
    "params": [{"name": "m", "kind": "scalar", "dtype": "i32"},
               {"name": "n", "kind": "scalar", "dtype": "i32"}]})");
  if (!kernel.ok()) {
    std::printf("%s\n", kernel.getStatus().message().c_str());
    return 1;
  }
  const unsigned sizes[] = {4, 4};
  mockSetParamSizes(sizes, 2);
  launch(*kernel, "clustered", {100, 7});
  launch(*kernel, "few", {3, 2});
  return 0;
}

/// The launches of `casesPath` (tma-expr.test) on attention_rows_bf16 in
/// `cubinPath`: "case NAME: ok" or "case NAME: error: MESSAGE" each, and
/// "MISMATCH" where the outcome is not the one the file expects.
static int runCases(const char *casesPath, const char *cubinPath) {
  StatusOr<Kernel> kernel = Kernel::load(cubinPath);
  std::FILE *cases = std::fopen(casesPath, "r");
  if (!kernel.ok() || !cases) {
    std::printf("cannot load %s or %s\n", cubinPath, casesPath);
    return 1;
  }
  setParamSizes(kernel->getSpec());
  const uint64_t kQ = 0x10000, kK = 0x20000, kV = 0x30000, kO = 0x40000;
  char line[256], name[64], expected[16];
  long long s, bh;
  while (std::fgets(line, sizeof(line), cases)) {
    if (line[0] == '#' ||
        std::sscanf(line, "%63s %lld %lld %15s", name, &s, &bh, expected) != 4)
      continue;
    Status status = kernel->launch({Arg::ptr(kQ), Arg::ptr(kK), Arg::ptr(kV),
                                    Arg::ptr(kO), static_cast<int64_t>(s),
                                    static_cast<int64_t>(bh), 0.5f});
    std::printf("case %s: %s%s\n", name,
                status.ok() ? "ok" : "error: ", status.message().c_str());
    if (status.ok() != (std::string(expected) == "ok"))
      std::printf("MISMATCH: %s expected %s\n", name, expected);
  }
  std::fclose(cases);
  std::printf("launches: %d\n", mockGetLaunches());
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && std::string(argv[1]) == "--cases")
    return runCases(argv[2], argv[3]);
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: %s KERNEL.cubin | --clustered | --cases CASES "
                 "KERNEL.cubin\n",
                 argv[0]);
    return 2;
  }
  return std::string(argv[1]) == "--clustered" ? runClustered()
                                               : runGemm(argv[1]);
}
