// Decode-time MoE experts (Inputs/gemm_grouped_decode_bf16.mlir: a grouped
// GEMM run transposed, swap_ab, on 64-weight x 16-token tiles) in PTX, and
// ptxas accepts it. sm_90a: m64n16k16 wgmma on one consumer warpgroup,
// the experts' weights (Bᵀ, one [N, K] matrix per group) through a 3-D
// TMA box, the tokens (Aᵀ) through a 2-D one, the group found by the
// offsets scan; the masked epilogue (the group's tokens only) stored by
// the threads. sm_80: the cp.async/mma.sync schedule of the same program.

// RUN: tilec %S/Inputs/gemm_grouped_decode_bf16.mlir --chip=sm_90a --emit=ptx -o %t.sm90a
// RUN: FileCheck %s --check-prefix=SM90A < %t.sm90a/gemm_grouped_decode_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t.sm90a/gemm_grouped_decode_bf16.ptx -o %t.sm90a/k.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t.sm90a/gemm_grouped_decode_bf16.json
// RUN: tilec %S/Inputs/gemm_grouped_decode_bf16.mlir --chip=sm_80 --emit=ptx -o %t.sm80
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80/gemm_grouped_decode_bf16.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80/gemm_grouped_decode_bf16.ptx -o %t.sm80/k.cubin

// SM90A: .visible .entry gemm_grouped_decode_bf16(
// SM90A: ld.global.nc.b32
// SM90A: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// SM90A-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SM90A-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SM90A-NOT: cp.async.bulk.tensor.2d.global.shared

// JSON: "grid": [
// JSON-NEXT: "(ceildiv(M, 16) + groups) * ceildiv(N, 64)"
// JSON: "persistent": true

// SM80: .visible .entry gemm_grouped_decode_bf16(
// SM80: ld.global.nc.b32
// SM80: cp.async.cg.shared.global
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
