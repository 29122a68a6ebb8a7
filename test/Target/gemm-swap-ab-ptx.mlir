// A decode GEMM (Inputs/gemm_decode_bf16.mlir: 1 x 4096 x 4096, an
// nn.Linear weight) in PTX on sm_90a, and ptxas accepts it. The shape rule
// runs it transposed (swap_ab): the weight's rows ride wgmma's M, 64 per
// program (one consumer warpgroup, 64 programs), the token its N, padded
// to 16 only (m64n16k16), both operands K-major through 2-D TMA boxes, in
// 128-wide K steps; the one valid row of Yᵀ's 64 x 16 tile is stored by
// the threads (no TMA store).

// RUN: tilec %S/Inputs/gemm_decode_bf16.mlir --chip=sm_90a --emit=ptx -o %t
// RUN: FileCheck %s < %t/gemm_decode_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t/gemm_decode_bf16.ptx -o %t/gemm_decode_bf16.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t/gemm_decode_bf16.json

// CHECK: .visible .entry gemm_decode_bf16(
// CHECK: .reqntid 256, 1, 1
// CHECK: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared

// JSON: "grid": [
// JSON-NEXT: "64"
