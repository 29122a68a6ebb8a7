// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// tile.warp_specialize is a branch on the warp index (tid.x >> 5). In a
// warp-specialized kernel that index is computed once, at the kernel's
// entry, and broadcast from lane 0 with shfl.sync so that ptxas knows it is
// warp-uniform (the kernel is marked tile.uniform_warp_id). The
// kernel's 8 warps run the default region, the 4 added warps (the block is
// 384 threads) the partition, which only their first warp (warp 8) enters.
// Each side first moves its register budget with setmaxnreg from the 168
// registers ptxas gives each of 384 threads (64K / 384, a multiple of 8):
// up to 232 for the consumers, down to 40 for the producer.
//
// Inside the regions, ops that synchronize or elect a leader use their
// side's threads: a tile.barrier is named barrier 1 of the default's 256
// threads, or barrier 2 of the partition warp's 32; the leader of a
// tile.tma_load / tile.mbarrier_expect_tx in the partition is thread 256.
// tile.warpgroup_id is that warp index / 4; tile.named_barrier is bar.sync (or
// bar.arrive) with its id and thread count, here the ping-pong of two
// consumer warpgroups on barriers 3 and 4.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @producer_consumer
  // CHECK-SAME: nvvm.reqntid = array<i32: 384, 1, 1>
  // CHECK-SAME: block = [384, 1, 1]
  // CHECK-SAME: num_warps = 8
  // CHECK-SAME: tile.uniform_warp_id
  // CHECK-NEXT: %[[ETID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[C5:.+]] = arith.constant 5 : i32
  // CHECK-NEXT: %[[TIDW:.+]] = arith.shrui %[[ETID]], %[[C5]] : i32
  // CHECK: %[[WARP:.+]] = nvvm.shfl.sync idx %{{.+}}, %[[TIDW]], %{{.+}}, %{{.+}} {tile.uniform_warp_id} : i32 -> i32
  // CHECK: %[[C0:.+]] = arith.constant 0 : i32
  // CHECK: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK: %[[C3:.+]] = arith.constant 3 : i32
  // CHECK: %[[FULL:.+]] = llvm.getelementptr %{{.+}}[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[EMPTY:.+]] = llvm.getelementptr %{{.+}}[8200] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.barrier0
  // The dispatch.
  // CHECK-NEXT: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[C31:.+]] = arith.constant 31 : i32
  // CHECK-NEXT: %{{.+}} = arith.andi %[[TID]], %[[C31]] : i32
  // CHECK-NEXT: %[[NW:.+]] = arith.constant 8 : i32
  // CHECK-NEXT: %[[ISDEF:.+]] = arith.cmpi ult, %[[WARP]], %[[NW]] : i32
  // CHECK-NEXT: scf.if %[[ISDEF]] {
  // Default region (consumers).
  // CHECK-NEXT: nvvm.setmaxregister increase 232
  // CHECK-NEXT: %[[FULL0:.+]] = llvm.getelementptr %[[FULL]][%[[C0]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: %{{.+}} = arith.constant 10000000 : i32
  // CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[FULL0]], %[[C0]], %{{.+}} : !llvm.ptr<3>, i32, i32
  // CHECK-NEXT: %{{.+}} = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %{{.+}} = arith.constant 31 : i32
  // CHECK-NEXT: %{{.+}} = arith.andi
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[WG:.+]] = arith.shrui %[[WARP]], %[[C2]] : i32
  // CHECK-NEXT: %[[MINE:.+]] = arith.addi %[[WG]], %[[C3]] : i32
  // CHECK-NEXT: %[[OTHER:.+]] = arith.subi %{{.+}}, %[[WG]] : i32
  // CHECK-NEXT: %[[OTHERID:.+]] = arith.addi %[[OTHER]], %[[C1]] : i32
  // CHECK-NEXT: %[[N256:.+]] = arith.constant 256 : i32
  // CHECK-NEXT: nvvm.barrier id = %[[MINE]] number_of_threads = %[[N256]]
  // The default region's block barrier: named barrier 1, 256 threads.
  // CHECK-NEXT: %[[D256:.+]] = arith.constant 256 : i32
  // CHECK-NEXT: %[[ID1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: nvvm.barrier id = %[[ID1]] number_of_threads = %[[D256]]
  // CHECK-NEXT: %[[A256:.+]] = arith.constant 256 : i32
  // CHECK-NEXT: nvvm.barrier.arrive id = %[[OTHERID]] number_of_threads = %[[A256]]
  // CHECK-NEXT: %[[EMPTY0:.+]] = llvm.getelementptr %[[EMPTY]][%[[C0]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
  // CHECK: scf.if %{{.+}} {
  // CHECK-NEXT: nvvm.mbarrier.arrive %[[EMPTY0]] : !llvm.ptr<3>
  // CHECK-NEXT: }
  // CHECK-NEXT: } else {
  // Partition (the producer warp).
  // CHECK-NEXT: nvvm.setmaxregister decrease 40
  // CHECK-NEXT: %[[PW:.+]] = arith.constant 8 : i32
  // CHECK-NEXT: %[[ISFIRST:.+]] = arith.cmpi eq, %[[WARP]], %[[PW]] : i32
  // CHECK-NEXT: scf.if %[[ISFIRST]] {
  // CHECK-NEXT: %[[EMPTYW:.+]] = llvm.getelementptr %[[EMPTY]][%[[C0]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
  // CHECK-NEXT: %{{.+}} = arith.constant 10000000 : i32
  // CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[EMPTYW]], %[[C1]], %{{.+}} : !llvm.ptr<3>, i32, i32
  // CHECK: %[[XTID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[LEAD:.+]] = arith.constant 256 : i32
  // CHECK-NEXT: %[[ISLEAD:.+]] = arith.cmpi eq, %[[XTID]], %[[LEAD]] : i32
  // CHECK-NEXT: scf.if %[[ISLEAD]] {
  // CHECK-NEXT: %[[BYTES:.+]] = arith.constant 8192 : i32
  // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %[[BYTES]] : !llvm.ptr<3>, i32
  // CHECK-NEXT: }
  // CHECK: %[[LTID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[LEAD2:.+]] = arith.constant 256 : i32
  // CHECK-NEXT: %[[ISLEAD2:.+]] = arith.cmpi eq, %[[LTID]], %[[LEAD2]] : i32
  // CHECK-NEXT: scf.if %[[ISLEAD2]] {
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK-NEXT: }
  // The partition's block barrier: named barrier 2 of its one warp.
  // CHECK-NEXT: %[[P32:.+]] = arith.constant 32 : i32
  // CHECK-NEXT: %[[ID2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: nvvm.barrier id = %[[ID2]] number_of_threads = %[[P32]]
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  // CHECK-NEXT: llvm.return
  tile.kernel @producer_consumer(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}) warps(8) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %va = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
    %tm = tile.make_tensor_map %va : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw>
    %buf = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 8 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      tile.mbarrier_wait %full[%c0], %c0 : !tile.mbarrier<1>
      // Warpgroup 0 waits on barrier 3 and releases 4; warpgroup 1 the other way.
      %wg = tile.warpgroup_id
      %mine = arith.addi %wg, %c3 : i32
      %other = arith.subi %c3, %wg : i32
      %otherid = arith.addi %other, %c1 : i32
      tile.named_barrier %mine, 256
      tile.barrier
      tile.named_barrier arrive %otherid, 256
      tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
    } partition warps(4) regs(40) {
      tile.mbarrier_wait %empty[%c0], %c1 : !tile.mbarrier<1>
      tile.mbarrier_expect_tx %full[%c0], 8192 : !tile.mbarrier<1>
      tile.tma_load %tm[%c0, %c0], %buf[%c0], %full[%c0] : !tile.tensor_map<64x64xbf16, #sw>, !tile.smem<1x64x64xbf16, #sw>, !tile.mbarrier<1>
      tile.barrier
    }
    tile.return
  }
}

// -----

// The direction of each setmaxnreg follows from the launch budget: 4 + 4
// warps (256 threads) launch with 255 registers (64K / 256 = 256, capped at
// 255), so 200 for the default warps is a decrease and 256 for the
// partition an increase. Empty regions leave only the dispatch.

gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @budget_directions
  // CHECK-SAME: nvvm.reqntid = array<i32: 256, 1, 1>
  // CHECK: %[[WARP:.+]] = nvvm.shfl.sync idx
  // CHECK: %[[NW:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[ISDEF:.+]] = arith.cmpi ult, %[[WARP]], %[[NW]] : i32
  // CHECK-NEXT: scf.if %[[ISDEF]] {
  // CHECK-NEXT: nvvm.setmaxregister decrease 200
  // CHECK-NEXT: } else {
  // CHECK-NEXT: nvvm.setmaxregister increase 256
  // CHECK-NEXT: %[[PW:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[ISFIRST:.+]] = arith.cmpi eq, %[[WARP]], %[[PW]] : i32
  // CHECK-NEXT: scf.if %[[ISFIRST]] {
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  // CHECK-NEXT: llvm.return
  tile.kernel @budget_directions() warps(4) {
    tile.warp_specialize regs(200) {
    } partition warps(4) regs(256) {
    }
    tile.return
  }
}
