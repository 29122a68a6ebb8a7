// tile.attention (examples/attention_bf16.mlir: causal, GQA, head_dim 128,
// row lse) expanded to the FlashAttention-2 forward, in PTX for sm_80 and
// sm_90a, accepted by ptxas; the launch grid is (query blocks, heads,
// batch). On sm_80 K and V stream through a 2-stage cp.async ring, Q
// waits in shared memory, and both products run on mma.sync in 16-wide K
// steps, each reading its ldmatrix fragments right before its mma.sync
// (tile-split-dots). On sm_90a a producer warp loads Q, K and V with
// TMA and two consumer warpgroups run both products on wgmma, B read in
// place from the 128-byte swizzled ring (Kᵀ K-major, V MN-major: trans-b),
// Q from shared memory and P from registers, pipelined across blocks. The
// sm_90a kernel (causal, one query block per program) is the one the
// scheduling passes build from the block program (config `by_passes`'s
// default there).

// RUN: tilec %examples/attention_bf16.mlir --chip=sm_80 --emit=ptx -o %t.80
// RUN: FileCheck %s < %t.80/attention_bf16.ptx
// RUN: %ptxas -arch=sm_80 %t.80/attention_bf16.ptx -o %t.80/a.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t.80/attention_bf16.json
// RUN: tilec %examples/attention_bf16.mlir --chip=sm_90a --emit=ptx -o %t.90
// RUN: FileCheck %s --check-prefix=SM90A < %t.90/attention_bf16.ptx
// RUN: FileCheck %s --check-prefix=SM90AP < %t.90/attention_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t.90/attention_bf16.ptx -o %t.90/a.cubin

// CHECK: .entry attention_bf16(
// CHECK: .reqntid 128, 1, 1
// A thread's cp.async chunks of a K or V tile (rows 8 apart, 2048 bytes):
// one shared and one global base register plus constants in the
// instruction. A register per chunk, live through the key loop, made the
// 64-key blocks spill.
// CHECK: cp.async.cg.shared.global [%r[[S:[0-9]+]]+{{[0-9]+}}], [%rd[[G:[0-9]+]]], 16;
// CHECK-NEXT: cp.async.cg.shared.global [%r[[S]]+{{[0-9]+}}], [%rd[[G]]+2048], 16;
// CHECK-NEXT: cp.async.cg.shared.global [%r[[S]]+{{[0-9]+}}], [%rd[[G]]+4096], 16;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// Q's fragments past the swizzle period (64 columns): the base register of
// the first steps with the offset in the instruction.
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{.*}}}, [%r{{[0-9]+}}+128];
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx
// CHECK-DAG: lg2.approx
// CHECK: ret;

// SM90A: .entry attention_bf16(
// SM90A: .reqntid 384, 1, 1
// SM90A: setmaxnreg.inc.sync.aligned.u32 232;
// SM90A: mbarrier.try_wait.parity.shared.b64
// Block 0: S = Q Kᵀ from shared memory (SS), then the softmax.
// SM90A: wgmma.fence.sync.aligned;
// SM90A-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// SM90A: wgmma.wait_group.sync.aligned 0;
// SM90A: ex2.approx.ftz.f32
// The pipelined steps: Q Kᵀ(j) (SS) and P V(j-1) (RS: P from registers)
// in flight together; the softmax of block j after the first retires.
// SM90A: wgmma.fence.sync.aligned;
// SM90A-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// SM90A: wgmma.fence.sync.aligned;
// SM90A-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// SM90A: wgmma.wait_group.sync.aligned 1;
// SM90A: mbarrier.arrive.shared.b64
// (The softmax of block j lies in a block LLVM places before the loop's
// head, so its ex2 is not checked here in program order.)
// SM90A: wgmma.wait_group.sync.aligned 0;
// SM90A: mbarrier.arrive.shared.b64
// SM90A-NOT: mma.sync
// SM90A: ret;
// The producer warp (on its own: LLVM may place it before the consumers):
// Q, then K and V tiles of one head (4-D maps).
// SM90AP: setmaxnreg.dec.sync.aligned.u32 40;
// SM90AP: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SM90AP: mbarrier.try_wait.parity.shared.b64
// SM90AP: mbarrier.arrive.expect_tx.shared.b64
// SM90AP: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// JSON: "grid": [
// JSON-NEXT: "ceildiv(SQ, 128)",
// JSON-NEXT: "H",
// JSON-NEXT: "B"
