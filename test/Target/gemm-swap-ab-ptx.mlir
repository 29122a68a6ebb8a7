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

// A row-major weight (x @ W) runs transposed where the config asks: Wᵀ's
// tiles are contiguous along the weights, wgmma's transposed A (imm-trans-a
// 1, from an M-major TMA box) on sm_90a, ldmatrix.trans on sm_80; ptxas
// takes both.
// RUN: tilec %S/Inputs/gemm_decode_row_b_bf16.mlir --chip=sm_90a --emit=ptx -o %t.row
// RUN: FileCheck %s --check-prefix=ROW90 < %t.row/gemm_decode_row_b_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t.row/gemm_decode_row_b_bf16.ptx -o %t.row/sm90a.cubin
// RUN: tilec %S/Inputs/gemm_decode_row_b_bf16.mlir --chip=sm_80 --emit=ptx -o %t.row80
// RUN: FileCheck %s --check-prefix=ROW80 < %t.row80/gemm_decode_row_b_bf16.ptx
// RUN: %ptxas -arch=sm_80 %t.row80/gemm_decode_row_b_bf16.ptx -o %t.row80/sm80.cubin
// ROW90-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// ROW90-DAG: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {{.*}}, p, 1, {{ *}}1, 1, {{ *}}0;
// ROW90-NOT: mma.sync.aligned
// ROW80: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// ROW80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
