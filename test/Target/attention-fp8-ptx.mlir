// FP8 tile.attention (FlashAttention-3's recipe) in PTX for sm_90a and
// sm_89, accepted by ptxas. sm_90a: both products on FP8 wgmma (k32, e4m3),
// P quantized to e4m3 pairs (cvt.rn.satfinite) and moved from the
// accumulator layout to wgmma's A layout by lane shuffles (no shared-memory
// exchange, no warp barrier), V read K-major through its transposed view.
// sm_89: mma.sync m16n8k32 on e4m3, P exchanged the same way.
// Head dim 64 on sm_90a: Q and K rows are 64 bytes, so both take the
// 64-byte swizzle (TMA boxes and wgmma descriptors), and Q Kᵀ stays on
// wgmma too.

// RUN: rm -rf %t && mkdir -p %t
// RUN: tilec %S/Inputs/attention_fp8.mlir --chip=sm_90a --emit=ptx -o %t/90
// RUN: tilec %S/Inputs/attention_fp8.mlir --chip=sm_89 --emit=ptx -o %t/89
// RUN: FileCheck %s --check-prefix=SM90A < %t/90/attention_f8e4m3_d128.ptx
// RUN: FileCheck %s --check-prefix=TMA < %t/90/attention_f8e4m3_d128.ptx
// RUN: FileCheck %s --check-prefix=SM90A < %t/90/attention_f8e4m3_d128_causal.ptx
// RUN: FileCheck %s --check-prefix=SM89 < %t/89/attention_f8e4m3_d128.ptx
// RUN: %ptxas -arch=sm_90a %t/90/attention_f8e4m3_d128.ptx -o %t/90/a.cubin
// RUN: %ptxas -arch=sm_90a %t/90/attention_f8e4m3_d128_causal.ptx -o %t/90/c.cubin
// RUN: %ptxas -arch=sm_89 %t/89/attention_f8e4m3_d128.ptx -o %t/89/a.cubin
// RUN: FileCheck %s --check-prefix=D64 < %t/90/attention_f8e4m3_d64.ptx
// RUN: FileCheck %s --check-prefix=D64MAP < %t/90/attention_f8e4m3_d64.json
// RUN: %ptxas -arch=sm_90a %t/90/attention_f8e4m3_d64.ptx -o %t/90/d64.cubin

// TMA: cp.async.bulk.tensor.4d

// SM90A-NOT: bar.warp.sync
// SM90A: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// SM90A: ex2.approx.ftz.f32
// SM90A: cvt.rn.satfinite.e4m3x2.f32
// SM90A: shfl.sync.idx.b32
// SM90A: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd
// SM90A-NOT: bar.warp.sync

// SM89-NOT: bar.warp.sync
// SM89: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// SM89: cvt.rn.satfinite.e4m3x2.f32
// SM89: shfl.sync.idx.b32
// SM89: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// SM89-NOT: bar.warp.sync

// D64-NOT: mma.sync
// D64: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// D64: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd
// D64-NOT: mma.sync

// Q's and K's tensor maps: 64-byte boxes in the 64-byte swizzle.
// D64MAP: "box": [
// D64MAP-NEXT: 64,
// D64MAP: "swizzle": 64
// D64MAP: "box": [
// D64MAP-NEXT: 64,
// D64MAP: "swizzle": 64
