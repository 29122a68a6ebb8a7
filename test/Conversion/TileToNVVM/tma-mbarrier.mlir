// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// A TMA round trip through one stage of a two-stage ring (no
// warp specialization, so the leader is thread 0):
//  * tile.make_tensor_map is the hidden __grid_constant__ CUtensorMap
//    parameter (after the user's), described in the launch metadata's
//    `tensor_maps` (innermost dimension first);
//  * tile.mbarrier_alloc: thread 0 initializes each barrier with the
//    arrival count and fences the initialization for the async proxy, then
//    the block synchronizes; the barriers sit after the 32 KB ring;
//  * tile.mbarrier_expect_tx: the leader's arrive.expect_tx of the bytes;
//  * tile.tma_load: the leader's copy of each 64x64 box (one per 64-wide row
//    segment, 8192 bytes apart in the stage) into the cluster window, its
//    coordinates innermost first, completing on the barrier;
//  * tile.mbarrier_wait: try_wait.parity with the 10 ms suspend hint;
//  * tile.mbarrier_arrive: lane 0 of each warp;
//  * tile.tma_store: the leader's shared-to-global copy of each box and one
//    bulk commit group; tile.tma_store_wait: the leader's wait_group.read.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @tma_ring
  // CHECK-SAME: (%{{.+}}: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %[[MAP:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
  // CHECK-SAME: smem_bytes = 32784
  // CHECK-SAME: tensor_maps = [{base = "A", box = [64, 64], dtype = "bf16", elem_bytes = 2 : i64, index = 4 : i64, sizes = ["K", "M"], strides = [1 : i32, "lda"], swizzle = 128 : i64}]
  // CHECK: %[[C0:.+]] = arith.constant 0 : i32
  // CHECK: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK: %[[PID:.+]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK: %[[RING:.+]] = llvm.mlir.addressof @tile_smem : !llvm.ptr<3>
  // CHECK: %[[BARS:.+]] = llvm.getelementptr %{{.+}}[32768] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // tile.mbarrier_alloc count 3 : !tile.mbarrier<2>
  // CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[T0:.+]] = arith.cmpi eq, %[[TID]], %{{.+}} : i32
  // CHECK: scf.if %[[T0]] {
  // CHECK: %[[CNT0:.+]] = arith.constant 3 : i32
  // CHECK: %[[BAR0:.+]] = llvm.getelementptr %[[BARS]][%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: nvvm.mbarrier.init %[[BAR0]], %[[CNT0]] : !llvm.ptr<3>, i32
  // CHECK: nvvm.mbarrier.init %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
  // CHECK-NEXT: nvvm.fence.mbarrier.init
  // CHECK-NEXT: }
  // CHECK-NEXT: nvvm.barrier0
  // tile.mbarrier_expect_tx %full[%c1], 16384
  // CHECK: %[[FULL1:.+]] = llvm.getelementptr %[[BARS]][%[[C1]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
  // CHECK: scf.if
  // CHECK-NEXT: %[[BYTES:.+]] = arith.constant 16384 : i32
  // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[FULL1]], %[[BYTES]] : !llvm.ptr<3>, i32
  // tile.tma_load %tm[%pid, %c0], %buf[%c1], %full[%c1]
  // CHECK: %[[STAGE:.+]] = llvm.getelementptr %[[RING]][%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NEXT: %[[LBAR:.+]] = llvm.getelementptr %[[BARS]][%[[C1]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: %[[LTID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[LEADER:.+]] = arith.cmpi eq, %[[LTID]], %[[ZERO]] : i32
  // CHECK-NEXT: scf.if %[[LEADER]] {
  // CHECK-NEXT: %[[D0:.+]] = llvm.getelementptr %[[STAGE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: %[[D0C:.+]] = llvm.addrspacecast %[[D0]] : !llvm.ptr<3> to !llvm.ptr<7>
  // CHECK: %[[X0:.+]] = arith.addi %[[C0]], %{{.+}} overflow<nsw> : i32
  // CHECK: %[[Y0:.+]] = arith.addi %[[PID]], %{{.+}} overflow<nsw> : i32
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[D0C]], %[[MAP]], %[[LBAR]], box[%[[X0]], %[[Y0]]] : !llvm.ptr<7>, !llvm.ptr
  // CHECK-NEXT: %[[D1:.+]] = llvm.getelementptr %[[STAGE]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: %[[D1C:.+]] = llvm.addrspacecast %[[D1]] : !llvm.ptr<3> to !llvm.ptr<7>
  // CHECK-NEXT: %[[C64:.+]] = arith.constant 64 : i32
  // CHECK-NEXT: %[[X1:.+]] = arith.addi %[[C0]], %[[C64]] overflow<nsw> : i32
  // CHECK: %[[Y1:.+]] = arith.addi %[[PID]], %{{.+}} overflow<nsw> : i32
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[D1C]], %[[MAP]], %[[LBAR]], box[%[[X1]], %[[Y1]]] : !llvm.ptr<7>, !llvm.ptr
  // CHECK-NEXT: }
  // tile.mbarrier_wait %full[%c1], %c0
  // CHECK-NEXT: %[[WBAR:.+]] = llvm.getelementptr %[[BARS]][%[[C1]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: %[[HINT:.+]] = arith.constant 10000000 : i32
  // CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[WBAR]], %[[C0]], %[[HINT]] : !llvm.ptr<3>, i32, i32
  // tile.mbarrier_arrive %full[%c0]
  // CHECK-NEXT: %[[ABAR:.+]] = llvm.getelementptr %[[BARS]][%[[C0]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: %[[ATID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[LANEMASK:.+]] = arith.constant 31 : i32
  // CHECK-NEXT: %[[LANE:.+]] = arith.andi %[[ATID]], %[[LANEMASK]] : i32
  // CHECK: %[[LANE0:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}} : i32
  // CHECK-NEXT: scf.if %[[LANE0]] {
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[ABAR]] : !llvm.ptr<3>
  // CHECK-NEXT: }
  // CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  // tile.tma_store %tm[%pid, %c0], %buf[%c1]
  // CHECK: %[[SSTAGE:.+]] = llvm.getelementptr %[[RING]][%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK: scf.if
  // CHECK-NEXT: %[[S0:.+]] = llvm.getelementptr %[[SSTAGE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %[[S0]], box[%{{.+}}, %{{.+}}] : !llvm.ptr, <3>
  // CHECK-NEXT: %[[S1:.+]] = llvm.getelementptr %[[SSTAGE]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %[[S1]], box[%{{.+}}, %{{.+}}] : !llvm.ptr, <3>
  // CHECK-NEXT: nvvm.cp.async.bulk.commit.group
  // CHECK-NEXT: }
  // tile.tma_store_wait 0
  // CHECK: %[[WTID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: arith.cmpi eq, %[[WTID]]
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
  // CHECK-NEXT: }
  // CHECK-NEXT: llvm.return
  tile.kernel @tma_ring(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %pid = tile.program_id x
    %va = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
    %tm = tile.make_tensor_map %va : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw>
    %buf = tile.local_alloc : !tile.smem<2x64x128xbf16, #sw>
    %full = tile.mbarrier_alloc count 3 : !tile.mbarrier<2>
    tile.mbarrier_expect_tx %full[%c1], 16384 : !tile.mbarrier<2>
    tile.tma_load %tm[%pid, %c0], %buf[%c1], %full[%c1] : !tile.tensor_map<64x64xbf16, #sw>, !tile.smem<2x64x128xbf16, #sw>, !tile.mbarrier<2>
    tile.mbarrier_wait %full[%c1], %c0 : !tile.mbarrier<2>
    tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<2>
    tile.fence_async_shared
    tile.tma_store %tm[%pid, %c0], %buf[%c1] : !tile.tensor_map<64x64xbf16, #sw>, !tile.smem<2x64x128xbf16, #sw>
    tile.tma_store_wait 0
    tile.return
  }
}

// -----

// A rank-4 map (one head of a [batch, heads, seq, dim] tensor): the box is
// 1x1x64x64 and the copy's coordinates are the tile's two (innermost first),
// then the leading offsets, innermost first.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @rank4
  // CHECK-SAME: %[[MAP:arg6]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
  // CHECK-SAME: tensor_maps = [{base = "Q", box = [64, 64, 1, 1], dtype = "bf16", elem_bytes = 2 : i64, index = 6 : i64, sizes = [64 : i32, "S", "H", "B"], strides = [1 : i32, 64 : i32, "sh", "sb"], swizzle = 128 : i64}]
  // CHECK: %[[B:.+]] = nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK: %[[H:.+]] = nvvm.read.ptx.sreg.ctaid.z : i32
  // CHECK: %[[M:.+]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK: %[[COL:.+]] = arith.addi %{{.+}}, %{{.+}} overflow<nsw> : i32
  // CHECK: %[[ROW:.+]] = arith.addi %[[M]], %{{.+}} overflow<nsw> : i32
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAP]], %{{.+}}, box[%[[COL]], %[[ROW]], %[[H]], %[[B]]] : !llvm.ptr<7>, !llvm.ptr
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  // CHECK: nvvm.mbarrier.try_wait.parity
  tile.kernel @rank4(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: i32, %H: i32, %S: i32, %sb: i32 {tile.divisibility = 8 : i64}, %sh: i32 {tile.divisibility = 8 : i64}) warps(4) {
    %c0 = arith.constant 0 : i32
    %b = tile.program_id y
    %h = tile.program_id z
    %m = tile.program_id x
    %vq = tile.make_view %Q[%B, %H, %S, 64] strides [%sb, %sh, 64, 1] : !tile.ptr<bf16>
    %tm = tile.make_tensor_map %vq : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x64x64xbf16, #sw>
    %buf = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    tile.mbarrier_expect_tx %bar[%c0], 8192 : !tile.mbarrier<1>
    tile.tma_load %tm[%b, %h, %m, %c0], %buf[%c0], %bar[%c0] : !tile.tensor_map<1x1x64x64xbf16, #sw>, !tile.smem<1x64x64xbf16, #sw>, !tile.mbarrier<1>
    tile.mbarrier_wait %bar[%c0], %c0 : !tile.mbarrier<1>
    tile.return
  }
}

// -----

// A cluster of two programs sharing a 64x128 tile (two boxes): each loads
// its part (part(%rank of 2): box 0 on rank 0, box 1 on rank 1) and
// multicasts it to both (mask 3, as i16), signalling the same barrier in
// each. The consumers release the stage on the peer's barrier (mapa into
// the cluster window, then arrive on it). Cluster barriers after the
// barriers' initialization and before exit.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @multicast
  // CHECK-SAME: %[[MAP:arg4]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
  // CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
  // CHECK-SAME: cluster = [2, 1, 1]
  // CHECK: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK: %[[MASK:.+]] = arith.constant 3 : i32
  // The empty barrier expects 8 arrivals.
  // CHECK: %[[EMPTY:.+]] = llvm.getelementptr %{{.+}}[16392] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[EIGHT:.+]] = arith.constant 8 : i32
  // CHECK: nvvm.mbarrier.init %{{.+}}, %[[EIGHT]] : !llvm.ptr<3>, i32
  // CHECK: nvvm.barrier0
  // CHECK-NEXT: nvvm.cluster.arrive {aligned}
  // CHECK-NEXT: nvvm.cluster.wait {aligned}
  // CHECK-NEXT: %[[RANK:.+]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
  // CHECK-NEXT: %[[PEER:.+]] = arith.xori %[[RANK]], %[[C1]] : i32
  // CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
  // CHECK: %[[M16:.+]] = arith.trunci %[[MASK]] : i32 to i16
  // CHECK: scf.if %{{.+}} {
  // CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[RANK]], %{{.+}} : i32
  // CHECK-NEXT: scf.if %[[IS0]] {
  // CHECK-NEXT: llvm.getelementptr %{{.+}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAP]], %{{.+}}, box[%{{.+}}, %{{.+}}] multicast_mask = %[[M16]] : !llvm.ptr<7>, !llvm.ptr
  // CHECK-NEXT: }
  // CHECK: %[[IS1:.+]] = arith.cmpi eq, %[[RANK]], %{{.+}} : i32
  // CHECK-NEXT: scf.if %[[IS1]] {
  // CHECK-NEXT: llvm.getelementptr %{{.+}}[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MAP]], %{{.+}}, box[%{{.+}}, %{{.+}}] multicast_mask = %[[M16]] : !llvm.ptr<7>, !llvm.ptr
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  // CHECK: nvvm.mbarrier.try_wait.parity
  // CHECK: %[[EBAR:.+]] = llvm.getelementptr %[[EMPTY]][%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
  // CHECK: scf.if
  // CHECK-NEXT: %[[REMOTE:.+]] = nvvm.mapa %[[EBAR]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
  // CHECK-NEXT: }
  // CHECK-NEXT: nvvm.cluster.arrive {aligned}
  // CHECK-NEXT: nvvm.cluster.wait {aligned}
  // CHECK-NEXT: llvm.return
  tile.kernel @multicast(%B: !tile.ptr<bf16> {tile.align = 16 : i64}, %N: i32, %K: i32, %ldb: i32 {tile.divisibility = 8 : i64}) grid(%N) warps(4) cluster(2) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %vb = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
    %tm = tile.make_tensor_map %vb : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw>
    %buf = tile.local_alloc : !tile.smem<1x64x128xbf16, #sw>
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 8 : !tile.mbarrier<1>
    tile.cluster_barrier
    %rank = tile.cluster_rank
    %peer = arith.xori %rank, %c1 : i32
    tile.mbarrier_expect_tx %full[%c0], 16384 : !tile.mbarrier<1>
    tile.tma_load %tm[%c0, %c0], %buf[%c0], %full[%c0] multicast(%c3) part(%rank of 2) : !tile.tensor_map<64x64xbf16, #sw>, !tile.smem<1x64x128xbf16, #sw>, !tile.mbarrier<1>
    tile.mbarrier_wait %full[%c0], %c0 : !tile.mbarrier<1>
    tile.mbarrier_arrive %empty[%c0] cta(%peer) : !tile.mbarrier<1>
    tile.cluster_barrier
    tile.return
  }
}
