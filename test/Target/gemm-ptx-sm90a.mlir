// The Hopper GEMM for --chip=sm_90a in PTX, and ptxas -arch=sm_90a accepts
// it. By default a persistent, warp-specialized kernel: thread 0 initializes
// the full/empty mbarrier rings; the kernel's 8 warps (two consumer
// warpgroups) grow to 232 registers, wait on full stages, run wgmma on the
// 128-byte swizzled ring in place with one group in flight and release
// stages; the added producer warpgroup drops to 40 registers and streams A
// and B with TMA (one 128x64 box of A, four 64x64 boxes of B per stage).
// The epilogue writes the bf16 tile into a 128-byte swizzled staging buffer
// (conflict-free 4-byte fragment stores) once the previous tile's TMA store
// has read it, and stores it with four 128x64 TMA boxes.
// The tensor maps are __grid_constant__ parameters described in the JSON.

// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_90a --emit=ptx -o %t.ws
// RUN: FileCheck %s --check-prefix=WS < %t.ws/gemm_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t.ws/gemm_bf16.ptx -o %t.ws/gemm_bf16.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t.ws/gemm_bf16.json

// WS: .target sm_90a
// WS: .param .align 64 .b8 gemm_bf16_param_9[128],
// WS-NEXT: .param .align 64 .b8 gemm_bf16_param_10[128],
// WS-NEXT: .param .align 64 .b8 gemm_bf16_param_11[128]
// WS: .reqntid 384, 1, 1
// WS: cvta.param.u64
// WS: mbarrier.init.shared.b64
// WS: fence.mbarrier_init.release.cluster;
// WS: bar.sync 0;
// WS: setmaxnreg.inc.sync.aligned.u32 232;
// WS: mbarrier.try_wait.parity.shared.b64
// WS: wgmma.fence.sync.aligned;
// WS-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// WS: wgmma.commit_group.sync.aligned;
// WS: wgmma.wait_group.sync.aligned 1;
// WS: mbarrier.arrive.shared.b64
// WS: wgmma.wait_group.sync.aligned 0;
// WS: cp.async.bulk.wait_group.read 0;
// WS: bar.sync 1, 256;
// WS-COUNT-64: st.shared.b32
// WS: fence.proxy.async.shared::cta;
// WS-NEXT: bar.sync 1, 256;
// WS-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// WS-NEXT: cp.async.bulk.commit_group;
// WS: setmaxnreg.dec.sync.aligned.u32 40;
// WS: mbarrier.try_wait.parity.shared.b64
// WS: mbarrier.arrive.expect_tx.shared.b64
// WS-COUNT-5: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// JSON: "block": [
// JSON-NEXT: 384,
// JSON: "persistent": true,
// JSON: "tensor_maps": [
// JSON-NEXT: {
// JSON-NEXT: "base": "A",
// JSON-NEXT: "box": [
// JSON-NEXT: 64,
// JSON-NEXT: 128
// JSON-NEXT: ],
// JSON-NEXT: "dtype": "bf16",
// JSON-NEXT: "elem_bytes": 2,
// JSON-NEXT: "index": 9,
// JSON-NEXT: "sizes": [
// JSON-NEXT: "K",
// JSON-NEXT: "M"
// JSON-NEXT: ],
// JSON-NEXT: "strides": [
// JSON-NEXT: 1,
// JSON-NEXT: "lda"
// JSON-NEXT: ],
// JSON-NEXT: "swizzle": 128
// JSON: "base": "B",
// JSON: "index": 10,
// JSON: "base": "C",
// JSON-NEXT: "box": [
// JSON-NEXT: 64,
// JSON-NEXT: 128
// JSON-NEXT: ],
// JSON: "index": 11,

// With warp_specialize = 0: a cp.async ring read in place by wgmma;
// fence.proxy.async orders the cp.async writes (generic proxy) before the
// wgmma reads (async proxy).

// RUN: tilec %S/Inputs/gemm_bf16_cp_async.mlir --chip=sm_90a --emit=ptx -o %t.cp
// RUN: FileCheck %s --check-prefix=CP < %t.cp/gemm_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t.cp/gemm_bf16.ptx -o %t.cp/gemm_bf16.cubin

// CP: .target sm_90a
// CP: .reqntid 256, 1, 1
// CP: cp.async.cg.shared.global
// CP: fence.proxy.async.shared::cta;
// CP: bar.sync 0;
// CP: wgmma.fence.sync.aligned;
// CP-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CP: wgmma.commit_group.sync.aligned;
// CP: wgmma.wait_group.sync.aligned 0;

// --chip=sm_90 (no arch-specific features) stays on mma.sync.

// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_90 --emit=ptx -o %t.sm90
// RUN: FileCheck %s --check-prefix=SM90 < %t.sm90/gemm_bf16.ptx

// SM90: .target sm_90
// SM90-NOT: wgmma
// SM90-NOT: setmaxnreg
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// Clusters of two programs (cluster_m = 2: neighbours along M share the B
// tile; cluster_n = 2: along N, sharing A). `.reqnctapercluster 2, 1, 1`;
// after the mbarrier initialization, and before exiting, a cluster barrier;
// consumers release a stage on both programs' empty barriers (mapa +
// mbarrier.arrive.shared::cluster); the producer loads its own A tile and half of
// the B boxes (two of four 64x64 boxes) multicast to both programs (mask
// 0b11), or half of A (one 64x64 box) and its own B.

// RUN: tilec %S/Inputs/gemm_bf16_cluster.mlir --chip=sm_90a --emit=ptx -o %t.cl
// RUN: FileCheck %s --check-prefix=CLM < %t.cl/gemm_cluster_m.ptx
// RUN: FileCheck %s --check-prefix=CLN < %t.cl/gemm_cluster_n.ptx
// RUN: %ptxas -arch=sm_90a %t.cl/gemm_cluster_m.ptx -o %t.cl/gemm_cluster_m.cubin
// RUN: %ptxas -arch=sm_90a %t.cl/gemm_cluster_n.ptx -o %t.cl/gemm_cluster_n.cubin
// RUN: FileCheck %s --check-prefix=CLJSON < %t.cl/gemm_cluster_m.json

// CLM: .explicitcluster
// CLM-NEXT: .reqnctapercluster 2, 1, 1
// CLM: fence.mbarrier_init.release.cluster;
// CLM: mov.u32 {{.*}}, %cluster_ctarank;
// CLM: barrier.cluster.arrive.aligned;
// CLM-NEXT: barrier.cluster.wait.aligned;
// CLM: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CLM: mapa.shared::cluster.u32
// CLM: mbarrier.arrive.shared::cluster.b64
// CLM: setmaxnreg.dec.sync.aligned.u32 40;
// CLM: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{{.*}}], [{{.*}}], [{{.*}}], [[MASK:%rs[0-9]+]];
// CLM: mbarrier.arrive.expect_tx.shared.b64
// CLM: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// CLM-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CLM: barrier.cluster.arrive.aligned;
// CLM-NEXT: barrier.cluster.wait.aligned;
// CLM-NEXT: ret;

// CLN: .reqnctapercluster 2, 1, 1
// CLN-DAG: mbarrier.arrive.shared::cluster.b64
// CLN-DAG: mbarrier.arrive.expect_tx.shared.b64
// CLN-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CLN-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [

// CLJSON: "cluster": [
// CLJSON-NEXT: 2,
// CLJSON-NEXT: 1,
// CLJSON-NEXT: 1
// CLJSON: "grid": [
// CLJSON-NEXT: "ceildiv(M, 256) * ceildiv(N, 256) * 2"
// CLJSON: "persistent": true
