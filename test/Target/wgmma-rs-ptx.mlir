// wgmma with A in registers (RS) for --chip=sm_90a, and ptxas -arch=sm_90a
// accepts it: the scaled A tile of Inputs/wgmma_rs.mlir stays in each
// warp's mma.sync A fragment (four 32-bit registers per 16-wide K step) and
// B is read through a 128-byte-swizzle descriptor (row-major B: trans-b 1).
// scale-d is a predicate set from a register inside the asm block. B comes
// through a TMA ring filled by a producer warpgroup (tile-tma-pipeline,
// tile-warp-specialize: 4 consumer warps + 4 producer warps), A through
// tile-pipeline's cp.async ring and ldmatrix. The group is retired in its
// iteration (wait 0): the next iteration rewrites the A registers, which a
// group in flight would still read (tile-async-wgmma declines).

// RUN: tilec %S/Inputs/wgmma_rs.mlir --chip=sm_90a --emit=ptx -o %t
// RUN: FileCheck %s < %t/wgmma_rs.ptx
// RUN: FileCheck %s --check-prefix=PRODUCER < %t/wgmma_rs.ptx
// RUN: %ptxas -arch=sm_90a %t/wgmma_rs.ptx -o %t/wgmma_rs.cubin

// CHECK: .target sm_90a
// CHECK: .reqntid 256, 1, 1
// CHECK: setmaxnreg.inc.sync.aligned.u32 256;
// CHECK: mbarrier.try_wait.parity
// CHECK: ldmatrix.sync.aligned
// CHECK: wgmma.fence.sync.aligned;
// CHECK: setp.ne.b32 p, %r{{[0-9]+}}, 0;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {[[ACC:(%r[0-9]+, ){63}%r[0-9]+]]}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {[[ACC]]}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: mbarrier.arrive
// PRODUCER: setmaxnreg.dec.sync.aligned.u32 40;
// PRODUCER: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// Dots whose operands no ring brings to shared memory run on wgmma too:
// the threads store the tiles (loaded without a known alignment, or B
// computed from a load) into swizzled buffers, fence them for the async
// proxy and wgmma reads them; nothing falls back to mma.sync. The buffers
// have a stage per iteration parity, so one wgmma group stays in flight
// while the next tiles are stored (wait_group 1).

// RUN: tilec %S/Inputs/wgmma_fallbacks.mlir --chip=sm_90a --emit=ptx -o %t.fb
// RUN: cat %t.fb/staged_unaligned.ptx %t.fb/staged_register_b.ptx | FileCheck %s --check-prefix=FB --implicit-check-not=mma.sync
// RUN: %ptxas -arch=sm_90a %t.fb/staged_unaligned.ptx -o %t.fb/a.cubin
// RUN: %ptxas -arch=sm_90a %t.fb/staged_register_b.ptx -o %t.fb/c.cubin
// FB: .entry staged_unaligned
// FB: st.shared
// FB: fence.proxy.async.shared::cta
// FB: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// FB: wgmma.wait_group.sync.aligned 1;
// FB: .entry staged_register_b
// FB: add.rn.bf16x2
// FB: st.shared
// FB: fence.proxy.async.shared::cta
// FB: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// FB: wgmma.wait_group.sync.aligned 1;

// Tiles two dots read as the same operand: one TMA copy each, which both
// dots read in place on wgmma.
// RUN: FileCheck %s --check-prefix=SHARED --implicit-check-not=mma.sync < %t.fb/wgmma_shared_loads.ptx
// RUN: %ptxas -arch=sm_90a %t.fb/wgmma_shared_loads.ptx -o %t.fb/b.cubin
// SHARED: .entry wgmma_shared_loads
// SHARED-DAG: cp.async.bulk.tensor.2d.shared::cluster.global
// SHARED-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

// Tiles loaded once outside any loop reach shared memory by TMA (one copy
// into a buffer of their own, tile-tma-pipeline) and the dot runs on wgmma.
// RUN: FileCheck %s --check-prefix=ONCE < %t.fb/mma_sync_no_loop.ptx
// ONCE: .entry mma_sync_no_loop
// ONCE-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// ONCE-DAG: mbarrier.try_wait.parity
// ONCE-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// The dot is outside any loop: its group is waited for before the
// accumulator is read (tile-verify-async found this wait missing).
// ONCE-DAG: wgmma.wait_group.sync.aligned 0;
