// The grouped GEMM (examples/gemm_grouped_bf16.mlir) in PTX, and ptxas
// accepts it. Each program finds its group by scanning the offsets with
// invariant loads (ld.global.nc, unrolled by LLVM); on sm_90a both the TMA
// producer warpgroup and the consumers do, since the producer needs the
// group (B's 3-D box) and the first row (A's 2-D box), the consumers the
// rows their masked epilogue may write. sm_80 runs the cp.async/mma.sync
// schedule on the same block program.

// RUN: tilec %examples/gemm_grouped_bf16.mlir --chip=sm_90a --emit=ptx -o %t.sm90a
// RUN: FileCheck %s --check-prefix=SM90A < %t.sm90a/gemm_grouped_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t.sm90a/gemm_grouped_bf16.ptx -o %t.sm90a/gemm_grouped_bf16.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t.sm90a/gemm_grouped_bf16.json
// RUN: tilec %examples/gemm_grouped_bf16.mlir --chip=sm_80 --emit=ptx -o %t.sm80
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80/gemm_grouped_bf16.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80/gemm_grouped_bf16.ptx -o %t.sm80/gemm_grouped_bf16.cubin

// SM90A: .visible .entry gemm_grouped_bf16(
// SM90A: setmaxnreg.inc.sync.aligned.u32 232;
// SM90A: ld.global.nc.b32
// SM90A: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// SM90A: setmaxnreg.dec.sync.aligned.u32 40;
// SM90A: ld.global.nc.b32
// SM90A-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SM90A-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// No TMA store: the epilogue writes only the group's rows.
// SM90A-NOT: cp.async.bulk.tensor.2d.global.shared

// JSON: "grid": [
// JSON-NEXT: "(ceildiv(M, 128) + groups) * ceildiv(N, 256)"
// JSON: "persistent": true

// SM80: ld.global.nc.b32
// SM80: cp.async.cg.shared.global
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
