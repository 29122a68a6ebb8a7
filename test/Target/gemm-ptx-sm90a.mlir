// The Hopper GEMM data path for --chip=sm_90a in PTX: the operand ring is
// read in place by wgmma.mma_async (128-byte swizzled shared tiles, 64-bit
// matrix descriptors); fence.proxy.async orders the cp.async writes (generic
// proxy) before the wgmma reads (async proxy). ptxas -arch=sm_90a accepts it.
// --chip=sm_90 (no arch-specific features) stays on mma.sync.

// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_90a --emit=ptx -o %t.sm90a
// RUN: FileCheck %s < %t.sm90a/gemm_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t.sm90a/gemm_bf16.ptx -o %t.sm90a/gemm_bf16.cubin
// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_90 --emit=ptx -o %t.sm90
// RUN: FileCheck %s --check-prefix=SM90 < %t.sm90/gemm_bf16.ptx

// CHECK: .target sm_90a
// CHECK: cp.async.cg.shared.global
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 0;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned

// SM90: .target sm_90
// SM90-NOT: wgmma
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
