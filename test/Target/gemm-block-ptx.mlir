// The block-program GEMMs of examples/gemm_block_bf16.mlir (plain B and
// nn.Linear's B = Wᵀ) get the chip's fast schedule from the scheduling
// passes, and ptxas accepts both on every chip.
//
// sm_90a: TMA copies into a mbarrier ring filled by a producer warpgroup
// (8 consumer warps + 4 producer warps, setmaxnreg 232/40), wgmma reading
// the ring in place with one group in flight, and a TMA-store epilogue.
// The plain B tile is N-major (trans-b 1, 64-column boxes), the Wᵀ tile
// K-major (trans-b 0, one box per stage).

// RUN: tilec %examples/gemm_block_bf16.mlir --chip=sm_90a --emit=ptx -o %t.90
// RUN: FileCheck %s --check-prefixes=SM90,SM90-PLAIN < %t.90/gemm_block_bf16.ptx
// RUN: FileCheck %s --check-prefixes=SM90,SM90-LINEAR < %t.90/linear_block_bf16.ptx
// RUN: FileCheck %s --check-prefix=PRODUCER < %t.90/gemm_block_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t.90/gemm_block_bf16.ptx -o %t.90/a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --allow-empty
// RUN: %ptxas -arch=sm_90a %t.90/linear_block_bf16.ptx -o %t.90/b.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --allow-empty

// SM90: .reqntid 384, 1, 1
// SM90: setmaxnreg.inc.sync.aligned.u32 232;
// SM90: mbarrier.try_wait.parity
// SM90: wgmma.fence.sync.aligned;
// SM90-PLAIN-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// SM90-LINEAR-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// SM90: wgmma.commit_group.sync.aligned;
// SM90: wgmma.wait_group.sync.aligned 1;
// SM90: mbarrier.arrive.shared.b64
// SM90: wgmma.wait_group.sync.aligned 0;
// SM90: fence.proxy.async.shared::cta;
// SM90: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// SM90: cp.async.bulk.commit_group;
// SM90: cp.async.bulk.wait_group.read 0;
// PRODUCER: setmaxnreg.dec.sync.aligned.u32 40;
// PRODUCER: mbarrier.arrive.expect_tx.shared.b64
// PRODUCER: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// ptxas keeps the wgmma of the main loop asynchronous (no C7514 warning).
// PTXAS-NOT: C7514

// sm_80 (and sm_89, with a 2-stage ring in its 99 KB): cp.async ring read by
// ldmatrix (.trans for the N-major B tile) and mma.sync.

// RUN: tilec %examples/gemm_block_bf16.mlir --chip=sm_80 --emit=ptx -o %t.80
// RUN: FileCheck %s --check-prefixes=SM80,SM80-PLAIN < %t.80/gemm_block_bf16.ptx
// RUN: FileCheck %s --check-prefixes=SM80,SM80-LINEAR < %t.80/linear_block_bf16.ptx
// RUN: %ptxas -arch=sm_80 %t.80/gemm_block_bf16.ptx -o %t.80/a.cubin
// RUN: %ptxas -arch=sm_80 %t.80/linear_block_bf16.ptx -o %t.80/b.cubin
// RUN: tilec %examples/gemm_block_bf16.mlir --chip=sm_89 --emit=cubin -o %t.89
// SM80: cp.async.cg.shared.global
// SM80-PLAIN: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// SM80-LINEAR-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
