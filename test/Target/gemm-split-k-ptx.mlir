// Split-K (examples/gemm_split_k_bf16.mlir: a decode GEMM whose tiles'
// K steps run in four ranges) in PTX on sm_90a and sm_80, and ptxas
// accepts both kernels of each. The partial stage is the transposed
// decode kernel (sm_90a: m64n16k16 wgmma fed by 2-D TMA; sm_80: mma.sync
// with a cp.async ring) with four programs per tile, storing f32 sums to
// the workspace; the reduce stage reads them with 16-byte vector loads
// and writes bf16 C.

// RUN: tilec %examples/gemm_split_k_bf16.mlir --chip=sm_90a --emit=ptx -o %t90
// RUN: FileCheck %s --check-prefix=PARTIAL90 < %t90/gemm_split_k_bf16_partial.ptx
// RUN: FileCheck %s --check-prefix=REDUCE < %t90/gemm_split_k_bf16_reduce.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t90/gemm_split_k_bf16_partial.json
// RUN: FileCheck %s --check-prefix=JSONR < %t90/gemm_split_k_bf16_reduce.json
// RUN: %ptxas -arch=sm_90a %t90/gemm_split_k_bf16_partial.ptx -o %t90/partial.cubin
// RUN: %ptxas -arch=sm_90a %t90/gemm_split_k_bf16_reduce.ptx -o %t90/reduce.cubin
// RUN: tilec %examples/gemm_split_k_bf16.mlir --chip=sm_80 --emit=ptx -o %t80
// RUN: FileCheck %s --check-prefix=PARTIAL80 < %t80/gemm_split_k_bf16_partial.ptx
// RUN: FileCheck %s --check-prefix=REDUCE < %t80/gemm_split_k_bf16_reduce.ptx
// RUN: %ptxas -arch=sm_80 %t80/gemm_split_k_bf16_partial.ptx -o %t80/partial.cubin
// RUN: %ptxas -arch=sm_80 %t80/gemm_split_k_bf16_reduce.ptx -o %t80/reduce.cubin

// PARTIAL90: .visible .entry gemm_split_k_bf16_partial(
// PARTIAL90: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// PARTIAL90: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PARTIAL90-NOT: cp.async.bulk.tensor.2d.global.shared
// PARTIAL90-NOT: ex2.approx

// PARTIAL80: .visible .entry gemm_split_k_bf16_partial(
// PARTIAL80: cp.async.cg.shared.global
// PARTIAL80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PARTIAL80: st.global
// PARTIAL80-NOT: wgmma

// REDUCE: .visible .entry gemm_split_k_bf16_reduce(
// REDUCE: .reqntid 128, 1, 1
// REDUCE-NOT: mma
// REDUCE: ld.global.v4.b32
// REDUCE: add.rn.f32
// REDUCE: cvt.rn.bf16x2.f32

// JSON: "grid": [
// JSON-NEXT: "ceildiv(N, 64) * ceildiv(M, 16) * 4"
// JSON: "name": "W"

// JSONR: "grid": [
// JSONR-NEXT: "ceildiv(M, 32) * ceildiv(N, 128)"
// JSONR: "kernel": "gemm_split_k_bf16_reduce"
// JSONR: "align": 16
// JSONR-NEXT: "dtype": "f32"
// JSONR-NEXT: "kind": "pointer"
// JSONR-NEXT: "name": "W"
