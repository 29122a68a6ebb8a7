// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s

// On sm_90a tile.gemm becomes the block program a user would write (a K
// loop of tile.load and tile.dot, the epilogue, a tile.store) and a schedule
// that asks the scheduling passes for the persistent, warp-specialized
// kernel: TMA rings of 3 stages read in place by async wgmma, a producer
// warpgroup with 40 registers, and for a bf16 output a TMA-store epilogue
// (C gets the alignment facts TMA needs; TMA writes whole 16-byte chunks of
// a row, so N must be a multiple of 8). No hardware op is created here.

// CHECK-LABEL: tile.kernel @gemm_tma_store
// CHECK-SAME: %C: !tile.ptr<bf16> {tile.align = 16 : i64}
// CHECK-SAME: %N: i32 {tile.divisibility = 8 : i64}
// CHECK-SAME: %ldc: i32 {tile.divisibility = 8 : i64}
// CHECK-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8)
// CHECK-SAME: schedule<stages = 3, tma = true, async_wgmma = true, warp_specialize = true, producer_regs = 40, consumer_regs = 232, persistent = true, tma_store = true>
// CHECK-NOT: tile.warp_specialize
// CHECK-NOT: tile.make_tensor_map
// CHECK-NOT: tile.mbarrier
// CHECK-NOT: tile.local_alloc
// CHECK: %[[PID:.+]] = tile.program_id x
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %K step %{{.+}} iter_args(
// CHECK:   tile.load %{{.+}}[%{{.+}}, %[[K]]] : {{.*}} -> tensor<128x64xbf16>
// CHECK:   tile.load %{{.+}}[%[[K]], %{{.+}}] : {{.*}} -> tensor<64x256xbf16>
// CHECK:   tile.dot {{.*}} -> tensor<128x256xf32>
// The ring depth is the schedule's: a loop depth would also ask
// tile-pipeline for a cp.async ring (and a barrier before every tile).
// CHECK-NOT: tile.num_stages
// CHECK: arith.truncf {{.*}} to tensor<128x256xbf16>
// CHECK-NEXT: tile.store
// CHECK-NOT: tile.tma_store
// CHECK: tile.return
tile.kernel @gemm_tma_store(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                            %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// A schedule the kernel sets keeps its knobs; the config fills the rest.

// CHECK-LABEL: tile.kernel @gemm_user_schedule
// CHECK-SAME: schedule<stages = 2, tma = true, async_wgmma = true, warp_specialize = true, producer_regs = 40, consumer_regs = 232, persistent = false, tma_store = true>
tile.kernel @gemm_user_schedule(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                                %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32)
    schedule<stages = 2, persistent = false> {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// f32 outputs (and tma_store = 0) are stored from the accumulator fragments
// directly; C needs no alignment then.

// CHECK-LABEL: tile.kernel @gemm_f32_out
// CHECK-SAME: %C: !tile.ptr<f32>,
// CHECK-SAME: %ldc: i32)
// CHECK-SAME: schedule<stages = 4, {{.*}}, persistent = true, tma_store = false>
// CHECK-NOT: tile.tma_store
// CHECK: tile.store {{.*}} : tensor<128x256xf32>
// CHECK-NOT: tile.tma_store
tile.kernel @gemm_f32_out(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>,
                          %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @gemm_no_tma_store
// CHECK-SAME: %ldc: i32)
// CHECK-SAME: tma_store = false>
// CHECK-NOT: tile.tma_store
// CHECK: tile.store {{.*}} : tensor<128x256xbf16>
tile.kernel @gemm_no_tma_store(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                               %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config <tma_store = false> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// Static sizes take their shape class (include/tilec/Rules/ShapeRules.h,
// what tilec.gemm dispatches to at run time): 128x8192 has 32 tiles of
// 128x256, fewer than half of the 132 SMs, so it takes 64-wide N tiles
// (128 tiles); the op's config overrides the shape class.

// CHECK-LABEL: tile.kernel @gemm_static_decode_shape
// CHECK-SAME: grid(128)
// CHECK: tile.store {{.*}} : tensor<128x64xbf16>
tile.kernel @gemm_static_decode_shape(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>) {
  %a = tile.make_view %A[128, 8192] strides [8192, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[8192, 8192] strides [8192, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[128, 8192] strides [8192, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<128x8192xbf16, strides = [8192, 1]>, !tile.view<8192x8192xbf16, strides = [8192, 1]>, !tile.view<128x8192xbf16, strides = [8192, 1]>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @gemm_static_decode_shape_config
// CHECK-SAME: grid(32)
// CHECK: tile.store {{.*}} : tensor<128x256xbf16>
tile.kernel @gemm_static_decode_shape_config(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>) {
  %a = tile.make_view %A[128, 8192] strides [8192, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[8192, 8192] strides [8192, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[128, 8192] strides [8192, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config <block_n = 256> : !tile.view<128x8192xbf16, strides = [8192, 1]>, !tile.view<8192x8192xbf16, strides = [8192, 1]>, !tile.view<128x8192xbf16, strides = [8192, 1]>
  tile.return
}

// -----

// A constant N that is not a multiple of 8 keeps the plain epilogue.

// CHECK-LABEL: tile.kernel @gemm_ragged_constant_n
// CHECK-SAME: tma_store = false>
// CHECK-NOT: tile.tma_store
// CHECK: tile.store {{.*}} : tensor<128x256xbf16>
tile.kernel @gemm_ragged_constant_n(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                                    %M: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %n = arith.constant 1001 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %n] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %n] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// cluster_m = 2: clusters of two programs on vertically neighbouring tiles
// (256x256 cluster tiles, grid in whole clusters). The block program walks
// cluster tiles (pid / 2) and places the program of rank r at block tile
// (r % 2, r / 2) of it: both programs compute the same B offsets, which is
// what tile-tma-pipeline proves before it shares the B tile by multicast
// (test/Dialect/Tile/Transforms/Schedule/tma-pipeline-cluster.mlir). No hardware op here.

// CHECK-LABEL: tile.kernel @gemm_cluster_2x1
// CHECK-SAME: grid(ceildiv(%M, 256) * ceildiv(%N, 256) * 2) warps(8) cluster(2, 1, 1) schedule<stages = 3, {{.*}}persistent = true, tma_store = true>
// CHECK-NOT: tile.mbarrier
// CHECK-NOT: tile.cluster_barrier
// CHECK: %[[PID:.+]] = tile.program_id x
// CHECK: %[[TILE:.+]] = arith.divsi %[[PID]], %c2_i32{{.*}} : i32
// CHECK: %[[RANK:.+]] = tile.cluster_rank
// CHECK: %[[RM:.+]] = arith.remsi %[[RANK]], %c2_i32{{.*}} : i32
// CHECK: %[[RN:.+]] = arith.divsi %[[RANK]], %c2_i32{{.*}} : i32
// CHECK: %[[DM:.+]] = arith.muli %[[RM]], %c128_i32{{.*}} : i32
// CHECK: %[[M0:.+]] = arith.addi %{{.+}}, %[[DM]] : i32
// CHECK: %[[DN:.+]] = arith.muli %[[RN]], %c256_i32{{.*}} : i32
// CHECK: %[[N0:.+]] = arith.addi %{{.+}}, %[[DN]] : i32
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %K step %{{.+}} iter_args(
// CHECK:   tile.load %{{.+}}[%[[M0]], %[[K]]] : {{.*}} -> tensor<128x64xbf16>
// CHECK:   tile.load %{{.+}}[%[[K]], %[[N0]]] : {{.*}} -> tensor<64x256xbf16>
// CHECK: tile.store {{.*}}[%[[M0]], %[[N0]]]
// CHECK-NOT: tile.cluster_barrier
// CHECK: tile.return
tile.kernel @gemm_cluster_2x1(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                              %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config <cluster_m = 2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// cluster_n = 2: 128x512 cluster tiles; the two programs compute the same
// A offsets.

// CHECK-LABEL: tile.kernel @gemm_cluster_1x2
// CHECK-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 512) * 2) warps(8) cluster(2, 1, 1) schedule<
// CHECK: tile.cluster_rank
tile.kernel @gemm_cluster_1x2(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                              %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config <cluster_n = 2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// 2x2 clusters: 256x512 cluster tiles of four programs.

// CHECK-LABEL: tile.kernel @gemm_cluster_2x2_bcol
// CHECK-SAME: grid(ceildiv(%M, 256) * ceildiv(%N, 512) * 4) warps(8) cluster(4, 1, 1) schedule<
// CHECK: arith.divsi %pid, %c4_i32{{.*}} : i32
// CHECK: tile.cluster_rank
tile.kernel @gemm_cluster_2x2_bcol(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                                   %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config <cluster_m = 2, cluster_n = 2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// On sm_90a tile.attention is warp-specialized. The hand-built schedule
// (`by_passes = 0`; the default at head dim 256): a producer warp loads Q
// once
// and the Kᵀ and V tiles of each key block with TMA (4-D maps over one
// head; Kᵀ K-major) into a 2-stage ring with full and empty barriers per
// operand; two consumer warpgroups, taking turns to issue their products
// (ping-pong: each waits on named barrier 3 + its index, then arrives at
// the other's; warpgroup 1 arrives once first), peel block 0, then run the steps
// software-pipelined: Q Kᵀ(j) (SS) and P V(j-1) (RS) in flight together,
// the first retired (wait 1) and its K stage released before the softmax,
// the second (wait 0) after it, then its V stage released. The unmasked and
// masked loops carry the ring position; the last P V follows them. O
// leaves through Q's buffer (free once both warpgroups are past their last
// Q Kᵀ) and a TMA store that clips rows past Sq.

// CHECK-LABEL: tile.kernel @attention_ws
// CHECK-SAME: %Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<bf16> {tile.align = 16 : i64},
// The one expansion that writes hardware-level ops itself says so (the
// level check of tile-expand-named-ops lets it through by this mark).
// CHECK-SAME: grid(ceildiv(%SQ, 128), %H, %B) warps(8) attributes {tile.hand_scheduled = "fa3"}
// Causal: the last query blocks (the most keys) run first.
// CHECK: %[[PX:.*]] = tile.program_id x
// CHECK: %[[PY:.*]] = tile.program_id y
// CHECK: %[[PZ:.*]] = tile.program_id z
// CHECK: %[[NB:.*]] = arith.ceildivsi %SQ, %c128
// CHECK: %[[LASTB:.*]] = arith.subi %[[NB]], %c1
// CHECK: %[[MB:.*]] = arith.subi %[[LASTB]], %[[PX]]
// CHECK: %[[M0:.*]] = arith.muli %[[MB]], %c128
// CHECK: %[[KT:.*]] = tile.make_view %K[%B, %HK, 128, %SK] strides [%kb, %kh, 1, 128]
// CHECK: %[[TQ:.*]] = tile.make_tensor_map %{{.*}} -> !tile.tensor_map<1x1x128x64xbf16, #[[$ROWS:shared[0-9]*]]>
// CHECK: %[[BQ:.*]] = tile.local_alloc : !tile.smem<1x128x128xbf16, #[[$ROWS]]>
// CHECK: %[[TO:.*]] = tile.make_tensor_map %{{.*}} -> !tile.tensor_map<1x1x128x64xbf16, #[[$ROWS]]>
// CHECK: %[[FQ:.*]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
// CHECK: %[[TK:.*]] = tile.make_tensor_map %[[KT]] : {{.*}} -> !tile.tensor_map<1x1x64x128xbf16, #[[$COLS:shared[0-9]*]]>
// CHECK: %[[TV:.*]] = tile.make_tensor_map %{{.*}} -> !tile.tensor_map<1x1x128x64xbf16, #[[$ROWS]]>
// CHECK: %[[RK:.*]] = tile.local_alloc : !tile.smem<2x128x128xbf16, #[[$COLS]]>
// CHECK: %[[RV:.*]] = tile.local_alloc : !tile.smem<2x128x128xbf16, #[[$ROWS]]>
// CHECK: %[[FK:.*]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
// CHECK: %[[FV:.*]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
// CHECK: %[[EK:.*]] = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
// CHECK: %[[EV:.*]] = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
// CHECK: tile.warp_specialize regs(232) {
// CHECK:   tile.mbarrier_wait %[[FQ]]
// CHECK:   %[[Q:.*]] = tile.local_load %[[BQ]]
// CHECK:   %[[WG:.*]] = tile.warpgroup_id
// CHECK:   %[[MINE:.*]] = arith.addi %[[WG]], %c3
// CHECK:   %[[OTHER:.*]] = arith.subi %c4{{.*}}, %[[WG]]
// CHECK:   scf.if
// CHECK:     tile.named_barrier arrive %{{.*}}, 256
// CHECK:   scf.if
// CHECK:     tile.named_barrier %[[MINE]], 256
// CHECK:     tile.mbarrier_wait %[[FK]]
// CHECK:     tile.dot %[[Q]]
// CHECK:     tile.named_barrier arrive %[[OTHER]], 256
// CHECK:     tile.warpgroup_wait 0
// CHECK:     tile.mbarrier_arrive %[[EK]]
// CHECK:   %[[U:.*]]:6 = scf.for
// CHECK:     tile.named_barrier %[[MINE]], 256
// CHECK:     tile.mbarrier_wait %[[FK]][%[[S:.*]]],
// CHECK:     %[[K:.*]] = tile.local_load %[[RK]][%[[S]]]
// CHECK:     %[[SC:.*]] = tile.dot %[[Q]], %[[K]]
// CHECK:     tile.mbarrier_wait %[[FV]][%[[SP:arg[0-9]+]]]
// CHECK:     %[[VT:.*]] = tile.local_load %[[RV]][%[[SP]]]
// CHECK:     %[[PV:.*]] = tile.dot %{{.*}}, %[[VT]], %{{.*}} : tensor<128x128xbf16>, tensor<128x128xbf16, #[[$ROWS]]> -> tensor<128x128xf32>
// CHECK:     tile.named_barrier arrive %[[OTHER]], 256
// CHECK:     tile.warpgroup_wait 1, %[[SC]]
// CHECK:     tile.mbarrier_arrive %[[EK]][%[[S]]]
// CHECK-NOT: arith.select
// CHECK:     math.exp2
// CHECK:     tile.warpgroup_wait 0, %[[PV]]
// CHECK:     tile.mbarrier_arrive %[[EV]][%[[SP]]]
// CHECK:   %[[M:.*]]:6 = scf.for {{.*}} iter_args({{.*}} = %[[U]]#0,
// CHECK:     arith.select
// CHECK:     tile.warpgroup_wait 0
// CHECK:   scf.if
// CHECK:     tile.mbarrier_wait %[[FV]][%[[M]]#4], %[[M]]#5
// CHECK:     tile.dot %[[M]]#3
// CHECK:     tile.warpgroup_wait 0
// CHECK:     tile.mbarrier_arrive %[[EV]][%[[M]]#4]
// CHECK:   tile.barrier
// CHECK:   tile.local_store %{{.*}}, %[[BQ]]
// CHECK:   tile.fence_async_shared
// CHECK:   tile.barrier
// CHECK:   tile.tma_store %[[TO]][%[[PZ]], %[[PY]], %[[M0]], %{{.*}}], %[[BQ]]
// CHECK:   tile.tma_store_wait 0
// CHECK: } partition warps(4) regs(40) {
// CHECK:   tile.mbarrier_expect_tx %[[FQ]][%{{.*}}], 32768
// CHECK:   tile.tma_load %[[TQ]][%[[PZ]], %[[PY]], %[[M0]], %{{.*}}], %[[BQ]]
// CHECK:   scf.for
// CHECK:     tile.mbarrier_wait %[[EK]]
// CHECK:     tile.mbarrier_expect_tx %[[FK]][%{{.*}}], 32768
// CHECK:     tile.tma_load %[[TK]][%[[PZ]], %{{.*}}, %{{.*}}, %arg0], %[[RK]]
// CHECK:     tile.mbarrier_wait %[[EV]]
// CHECK:     tile.mbarrier_expect_tx %[[FV]][%{{.*}}], 32768
// CHECK:     tile.tma_load %[[TV]][%[[PZ]], %{{.*}}, %arg0, %{{.*}}], %[[RV]]
// CHECK-NOT: tile.attention
tile.kernel @attention_ws(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                          %O: !tile.ptr<bf16>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                          %sq: i32, %sh: i32, %kb: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o causal config <by_passes = false>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Without the causal mask the hand-built attention (`by_passes = false`) is
// persistent: one program per SM walks the (query block, head, batch) tiles from its
// program id in steps of the program count, in the producer and in the
// consumers alike, both carrying the K/V ring position from tile to tile.
// Q is double-buffered (slot and parity carried too): the producer waits
// for a slot's release before loading a later tile's Q there; the
// consumers release the previous tile's slot once its O's TMA store has
// read it (at the next tile's start), and wait for the last store before
// the block exits.

// CHECK-LABEL: tile.kernel @attention_persistent
// CHECK-SAME: grid(ceildiv(%SQ, 128) * %H * %B) warps(8) persistent
// CHECK: %[[NB:.*]] = arith.ceildivsi %SQ, %c128
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[NP:.*]] = tile.num_programs x
// CHECK: %[[BQ:.*]] = tile.local_alloc : !tile.smem<2x128x128xbf16, #[[$ROWS:shared[0-9]*]]>
// CHECK: %[[FQ:.*]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
// CHECK: %[[EQ:.*]] = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
// CHECK: tile.warp_specialize regs(232) {
// CHECK:   tile.named_barrier arrive %{{.*}}, 256
// CHECK:   scf.for %[[T:.*]] = %[[PID]] to %{{.*}} step %[[NP]] iter_args(%[[S0:.*]] = %{{.*}}, %[[P0:.*]] = %{{.*}}, %[[QS:.*]] = %{{.*}}, %[[QP:.*]] = %{{.*}}) -> (i32, i32, i32, i32)
// CHECK:     arith.remsi %[[T]], %[[NB]]
// CHECK:     %[[NOTFIRST:.*]] = arith.cmpi ne, %[[T]], %[[PID]]
// CHECK:     scf.if %[[NOTFIRST]] {
// CHECK:       tile.tma_store_wait 0
// CHECK:       tile.barrier
// CHECK:       tile.mbarrier_arrive %[[EQ]]
// CHECK:     tile.mbarrier_wait %[[FQ]][%[[QS]]], %[[QP]]
// CHECK:     tile.local_load %[[BQ]][%[[QS]]]
// CHECK:     tile.mbarrier_wait %{{.*}}[%[[S0]]], %[[P0]]
// CHECK:     scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[S0]], %{{.*}} = %[[P0]])
// CHECK:     tile.tma_store %{{.*}}, %[[BQ]][%[[QS]]]
// CHECK:     scf.yield
// CHECK:   tile.tma_store_wait 0
// CHECK: } partition warps(4) regs(40) {
// CHECK:   scf.for %[[PT:.*]] = %[[PID]] to %{{.*}} step %[[NP]] iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[PQS:.*]] = %{{.*}}, %[[PQP:.*]] = %{{.*}})
// CHECK:     %[[FREE:.*]] = arith.xori %[[PQP]], %c1
// CHECK:     tile.mbarrier_wait %[[EQ]][%[[PQS]]], %[[FREE]]
// CHECK:     tile.mbarrier_expect_tx %[[FQ]][%[[PQS]]], 32768
// CHECK:     tile.tma_load %{{.*}}, %[[BQ]][%[[PQS]]], %[[FQ]][%[[PQS]]]
// CHECK:     scf.for
// CHECK:       tile.tma_load
// CHECK:       tile.tma_load
// CHECK:     scf.yield
// CHECK-NOT: tile.attention
tile.kernel @attention_persistent(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                  %O: !tile.ptr<bf16>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                  %sq: i32, %sh: i32, %kb: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o config <by_passes = false>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Causal and persistent (config persistent = 1), hand-built (by_passes = 0;
// the passes build it by default, @attention_by_passes_pairs below). With at least one pair of
// blocks per program, program p takes pairs p, p + P, ... of one head's
// blocks, the longest with the shortest (n - 1 - j, then j): its loop ends
// after two tiles per pair, and tile t is block (t / P) % 2 of pair
// (t / 2P) P + t % P. With n odd, block n (past the last query) stands in for
// the missing partner and visits no key. With fewer pairs than programs the
// tiles run longest first across all (head, batch) pairs (the rank counts
// back from the last query block), and every other round of num_programs
// tiles is taken in reverse order unless it is cut short by the last tile.

// CHECK-LABEL: tile.kernel @attention_persistent_causal
// CHECK-SAME: persistent
// CHECK: %[[NB:.*]] = arith.ceildivsi %SQ, %c128
// CHECK: %[[NT:.*]] = arith.muli %[[NB]], %{{.*}}
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[NP:.*]] = tile.num_programs x
// CHECK: %[[NPAIR:.*]] = arith.ceildivsi %[[NB]], %c2
// CHECK: %[[ALL:.*]] = arith.muli %[[NPAIR]], %{{.*}}
// CHECK: %[[PAIRED:.*]] = arith.cmpi sge, %[[ALL]], %[[NP]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[ALL]], %[[PID]]
// CHECK: %[[LEFT0:.*]] = arith.maxsi %[[LEFT]], %c0
// CHECK: %[[MINE:.*]] = arith.ceildivsi %[[LEFT0]], %[[NP]]
// CHECK: %[[TWICE:.*]] = arith.muli %[[MINE]], %c2
// CHECK: %[[SPAN:.*]] = arith.muli %[[TWICE]], %[[NP]]
// CHECK: %[[PEND:.*]] = arith.addi %[[PID]], %[[SPAN]]
// CHECK: %[[END:.*]] = arith.select %[[PAIRED]], %[[PEND]], %[[NT]]
// CHECK: tile.warp_specialize
// CHECK: scf.for %[[T:.*]] = %[[PID]] to %[[END]] step %[[NP]]
// CHECK:   %[[R:.*]] = arith.divsi %[[T]], %[[NP]]
// CHECK:   %[[PARITY:.*]] = arith.andi %[[R]], %c1
// CHECK:   %[[ODD:.*]] = arith.cmpi ne, %[[PARITY]], %c0
// CHECK:   %[[RS:.*]] = arith.muli %[[R]], %[[NP]]
// CHECK:   %[[PLACE:.*]] = arith.subi %[[T]], %[[RS]]
// CHECK:   %[[HALF:.*]] = arith.shrsi %[[R]], %c1
// CHECK:   %[[HALFSTART:.*]] = arith.muli %[[HALF]], %[[NP]]
// CHECK:   %[[PAIR:.*]] = arith.addi %[[HALFSTART]], %[[PLACE]]
// CHECK:   %[[J:.*]] = arith.remsi %[[PAIR]], %[[NPAIR]]
// CHECK:   %[[LONG:.*]] = arith.subi %{{.*}}, %[[J]]
// CHECK:   %[[MBP:.*]] = arith.select %[[ODD]], %[[J]], %[[LONG]]
// CHECK:   %[[HBP:.*]] = arith.divsi %[[PAIR]], %[[NPAIR]]
// CHECK:   %[[MIRRORED:.*]] = arith.subi %{{.*}}, %[[PLACE]]
// CHECK:   %[[WHOLE:.*]] = arith.cmpi sle, %{{.*}}, %[[NT]]
// CHECK:   %[[SNAKE:.*]] = arith.andi %[[ODD]], %[[WHOLE]]
// CHECK:   %[[V:.*]] = arith.select %[[SNAKE]], %[[MIRRORED]], %[[T]]
// CHECK:   %[[PAIRS:.*]] = arith.muli %H, %B
// CHECK:   %[[RANK:.*]] = arith.divsi %[[V]], %[[PAIRS]]
// CHECK:   %[[MBS:.*]] = arith.subi %{{.*}}, %[[RANK]]
// CHECK:   %[[HBS:.*]] = arith.remsi %[[V]], %[[PAIRS]]
// CHECK:   %[[MB:.*]] = arith.select %[[PAIRED]], %[[MBP]], %[[MBS]]
// CHECK:   arith.select %[[PAIRED]], %[[HBP]], %[[HBS]]
// CHECK:   %[[M0:.*]] = arith.muli %[[MB]], %c128
// CHECK:   %[[INSIDE:.*]] = arith.cmpi slt, %[[M0]], %SQ
// CHECK:   arith.select %[[INSIDE]], %{{.*}}, %c0
// CHECK:   arith.select %[[INSIDE]], %{{.*}}, %c0
tile.kernel @attention_persistent_causal(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                         %O: !tile.ptr<bf16>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                         %sq: i32, %sh: i32, %kb: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o causal config <persistent = true, by_passes = false>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// By default up to head dim 128 (`by_passes = 1`; here 128 without the
// causal mask) the warp-specialized attention is the block program a user
// writes (Q loaded once, a key loop of loads and two dots with the
// online softmax, the edge blocks masked in a branch, O and the lse stored)
// and a schedule that asks the scheduling passes for the rest: no TMA,
// mbarrier, shared-memory or warp_specialize op is created here. Without the
// causal mask tile-persistent walks the tiles (schedule persistent = true),
// and tile-split-loops runs the key blocks before the masked ones without
// the branch (split_loops = true). The online softmax's guard for rows that
// saw no key sits in a branch on the same edge, so the split drops it from
// the unmasked blocks too.

// CHECK-LABEL: tile.kernel @attention_by_passes
// CHECK-SAME: grid(ceildiv(%SQ, 128), %H, %B) warps(8) schedule<stages = 2, tma = true, async_wgmma = true, warp_specialize = true, producer_regs = 40, consumer_regs = 232, persistent = true, tma_store = true, pingpong = true, split_loops = true> {
// CHECK-NOT: tile.hand_scheduled
// CHECK-NOT: tile.tma_load
// CHECK-NOT: tile.mbarrier
// CHECK-NOT: tile.local_alloc
// CHECK-NOT: tile.warp_specialize
// CHECK: %[[TQ:.*]] = tile.load %{{.*}} -> tensor<128x128xbf16>
// CHECK: scf.for %[[N:.*]] = %c0_i32{{[_0-9]*}} to %SK step %c128_i32{{[_0-9]*}}
// CHECK:   %[[KT:.*]] = tile.load {{.*}} -> tensor<128x128xbf16>
// CHECK:   %[[V:.*]] = tile.load {{.*}} -> tensor<128x128xbf16>
// CHECK:   tile.dot %[[TQ]], %[[KT]]
// CHECK:   %[[EDGE:.*]] = arith.cmpi sge, %[[N]], %{{.*}} : i32
// CHECK:   scf.if %[[EDGE]]
// CHECK:     arith.select
// CHECK:   tile.reduce max
// CHECK:   %[[M:.*]] = arith.maximumf
// CHECK:   scf.if %[[EDGE]] -> (tensor<128xf32>)
// CHECK:     arith.cmpf oeq, %[[M]]
// CHECK:     arith.select
// CHECK:   } else {
// CHECK-NEXT: scf.yield %[[M]]
// CHECK:   math.exp2
// CHECK:   tile.dot %{{.*}}, %[[V]]
// CHECK-NOT: tile.num_stages
// CHECK: tile.store {{.*}} : tensor<128x128xbf16>
// CHECK: tile.store {{.*}} : tensor<128xf32>
// CHECK-NOT: tile.attention
tile.kernel @attention_by_passes(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                 %O: !tile.ptr<bf16>, %L: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32,
                                 %SQ: i32, %SK: i32, %sq: i32, %sh: i32, %kb: i32, %kh: i32, %lb: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %L[%B, %H, %SQ] strides [%lb, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

// Causal (not persistent, head dim 64 or 128): by default the passes build
// the kernel from the block program: one program per query block, the
// longest first (block nM - 1 - x), and no tile loop from tile-persistent.
// Its key loop is not split (split_loops = false: one query block per
// program ran faster unsplit; the persistent kernels split it).

// CHECK-LABEL: tile.kernel @attention_by_passes_causal
// CHECK-SAME: grid(ceildiv(%SQ, 128), %H, %B) warps(8) schedule<{{.*}}persistent = false{{.*}}split_loops = false>
// CHECK: %[[NB:.*]] = arith.ceildivsi %SQ, %c128
// CHECK: %[[X:.*]] = tile.program_id x
// CHECK: %[[LAST:.*]] = arith.subi %[[NB]], %c1
// CHECK: arith.subi %[[LAST]], %[[X]]
// CHECK-NOT: tile.mbarrier
// CHECK: scf.for
// CHECK:   arith.cmpi sle
// CHECK-NOT: tile.warp_specialize
tile.kernel @attention_by_passes_causal(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                        %O: !tile.ptr<bf16>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                        %sq: i32, %sh: i32, %kb: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o causal
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Persistent and causal, by the passes: the program walks its tiles itself
// (a block program may: tile.num_programs), in pairs of one head's longest
// and shortest query blocks; the kernel is persistent (one program per SM,
// grid the number of tiles) and tile-persistent has nothing to add.

// CHECK-LABEL: tile.kernel @attention_by_passes_pairs
// CHECK-SAME: grid(ceildiv(%SQ, 128) * %H * %B) warps(8) persistent schedule<{{.*}}persistent = false{{.*}}split_loops = true>
// CHECK: %[[P:.*]] = tile.num_programs x
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[END:.*]] = arith.select
// CHECK: scf.for %[[T:.*]] = %[[PID]] to %[[END]] step %[[P]]
// CHECK:   arith.divsi %[[T]], %[[P]]
// CHECK:   tile.load
// CHECK:   scf.for
// CHECK:   tile.store
// CHECK-NOT: tile.mbarrier
tile.kernel @attention_by_passes_pairs(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                       %O: !tile.ptr<bf16>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                       %sq: i32, %sh: i32, %kb: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o causal config <by_passes = true, persistent = true>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// fp8 (B column-major, as torch._scaled_mm takes it): the same kernel with
// 128-element K steps (128-byte rows, wgmma k32 x 4), the strides' facts in
// 16-byte units (16 fp8 elements), alpha scaling the accumulator.
// CHECK-LABEL: tile.kernel @gemm_fp8
// CHECK-SAME: %lda: i32 {tile.divisibility = 16 : i64}
// CHECK-SAME: %ldb: i32 {tile.divisibility = 16 : i64}
// CHECK-SAME: schedule<stages = 3, tma = true, async_wgmma = true, warp_specialize = true
// CHECK: scf.for
// CHECK:   tile.load {{.*}} -> tensor<128x128xf8E4M3FN>
// CHECK:   tile.load {{.*}} -> tensor<128x256xf8E5M2>
// CHECK:   tile.dot {{.*}} : tensor<128x128xf8E4M3FN>, tensor<128x256xf8E5M2> -> tensor<128x256xf32>
// CHECK: arith.mulf
// CHECK: arith.truncf {{.*}} to tensor<128x256xbf16>
tile.kernel @gemm_fp8(%A: !tile.ptr<f8E4M3FN>, %B: !tile.ptr<f8E5M2>, %C: !tile.ptr<bf16>, %alpha: f32,
                      %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f8E5M2>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c alpha(%alpha) : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E5M2, strides = [1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// f32 as TF32 (B column-major): the same warp-specialized kernel with K steps
// of 32 (128-byte rows, wgmma k8 x 4), the strides' facts in 16-byte units
// (4 elements), and the dot keeps the precision.
// CHECK-LABEL: tile.kernel @gemm_tf32
// CHECK-SAME: %lda: i32 {tile.divisibility = 4 : i64}
// CHECK-SAME: %ldb: i32 {tile.divisibility = 4 : i64}
// CHECK-SAME: schedule<stages = {{[0-9]+}}, tma = true, async_wgmma = true, warp_specialize = true
// CHECK: scf.for
// CHECK:   tile.dot {{.*}} precision(tf32) : tensor<128x32xf32>, tensor<32x256xf32> -> tensor<128x256xf32>
tile.kernel @gemm_tf32(%A: !tile.ptr<f32>, %B: !tile.ptr<f32>, %C: !tile.ptr<f32>,
                       %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c precision(tf32) : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [1, ?]>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// 3xTF32 runs on mma.sync on sm_90a too: the cp.async ring (no warp
// specialization), mma.sync's 16-element K steps and 128 columns.
// CHECK-LABEL: tile.kernel @gemm_tf32x3
// CHECK-NOT: warp_specialize = true
// CHECK: scf.for
// CHECK:   tile.dot {{.*}} precision(tf32x3) : tensor<128x16xf32>, tensor<16x128xf32> -> tensor<128x128xf32>
// CHECK: tile.num_stages
tile.kernel @gemm_tf32x3(%A: !tile.ptr<f32>, %B: !tile.ptr<f32>, %C: !tile.ptr<f32>,
                         %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c precision(tf32x3) : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [1, ?]>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// Exact f32 (the default ieee precision) has no tensor-core instruction: FMA
// instructions on 128 x 128 tiles, 8-element K steps, no warp
// specialization.
// CHECK-LABEL: tile.kernel @gemm_f32_ieee
// CHECK-SAME: warps(8)
// CHECK-NOT: warp_specialize = true
// CHECK: scf.for
// CHECK:   tile.dot {{.*}} : tensor<128x8xf32>, tensor<8x128xf32> -> tensor<128x128xf32>
// FMA instructions have no K step: block_k may go below mma.sync's 8.
// CHECK-LABEL: tile.kernel @gemm_f32_ieee_k4
// CHECK:   tile.dot {{.*}} : tensor<128x4xf32>, tensor<4x128xf32> -> tensor<128x128xf32>
tile.kernel @gemm_f32_ieee(%A: !tile.ptr<f32>, %B: !tile.ptr<f32>, %C: !tile.ptr<f32>,
                           %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [1, ?]>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
tile.kernel @gemm_f32_ieee_k4(%A: !tile.ptr<f32>, %B: !tile.ptr<f32>, %C: !tile.ptr<f32>,
                              %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c config <block_k = 4> : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [1, ?]>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// i8 x i8 -> i32 (torch._int_mm): the fp8 configuration (128-element K
// steps, warp-specialized), i32 sums from zero, stored as they are.
// CHECK-LABEL: tile.kernel @int_mm
// CHECK-SAME: schedule<stages = {{[0-9]+}}, tma = true, async_wgmma = true, warp_specialize = true
// CHECK: arith.constant dense<0> : tensor<128x256xi32>
// CHECK: scf.for
// CHECK:   tile.dot {{.*}} : tensor<128x128xi8>, tensor<128x256xi8> -> tensor<128x256xi32>
// CHECK-NOT: arith.truncf
// CHECK: tile.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : tensor<128x256xi32>
tile.kernel @int_mm(%A: !tile.ptr<i8>, %B: !tile.ptr<i8>, %C: !tile.ptr<i32>,
                    %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<i8>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<i8>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c : !tile.view<?x?xi8, strides = [?, 1]>, !tile.view<?x?xi8, strides = [1, ?]>, !tile.view<?x?xi32, strides = [?, 1]>
  tile.return
}

// -----

// `aligned = false`: A, B and C of any base and row stride. The kernel asks
// nothing of its parameters (no tile.align, no tile.divisibility) and takes
// the schedule without the TMA producer: the passes then leave the loads to
// the threads (tilec.gemm's variant for operands the fast path cannot read).

// CHECK-LABEL: tile.kernel @gemm_unaligned
// CHECK-NOT: tile.align
// CHECK-NOT: tile.divisibility
// CHECK-SAME: warps(
// CHECK-NOT: warp_specialize = true
// CHECK: tile.dot
tile.kernel @gemm_unaligned(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                            %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config <aligned = false> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// Varlen (packed sequences, cu_seqlens): one program per (query block of
// the longest sequence, head, sequence). Each reads its sequence's first
// token and length from cu_seqlens, loads Q's rows and K/V's keys past the
// sequence's start in the packed views (a stride 0 on their one batch
// becomes a positive one, which TMA takes), and stores O's and the lse's
// rows masked at the sequence's end. Without the causal mask: persistent
// (tile-persistent walks the tiles) and no TMA store (see the causal case).
// CHECK-LABEL: tile.kernel @attention_varlen
// CHECK-SAME: grid(ceildiv(%MAXQ, 128), %H, %B1 - 1)
// CHECK-SAME: warp_specialize = true
// CHECK-SAME: persistent = true, tma_store = false
// CHECK: %[[CU:.*]] = tile.make_view %CQ[%B1] strides [1]
// CHECK: %[[Q:.*]] = tile.make_view %Q[1, %H, %T, 128] strides [128, 128, %ld, 1]
// CHECK: %[[O:.*]] = tile.make_view %O[1, %H, %T, 128] strides [128, 128, %ld, 1]
// CHECK: %[[KT:.*]] = tile.make_view %K[1, %H, 128, %T] strides [128, 128, 1, %ld]
// CHECK: %[[SEQ:.*]] = tile.program_id z
// CHECK: %[[Q0:.*]] = tile.load_scalar %[[CU]][%[[SEQ]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[SEQ]], %c1
// CHECK: %[[Q1:.*]] = tile.load_scalar %[[CU]][%[[NEXT]]]
// CHECK: %[[K0:.*]] = tile.load_scalar %[[CU]][%[[SEQ]]]
// CHECK: %[[ROW:.*]] = arith.addi %[[Q0]], %[[M0:.*]] : i32
// CHECK: tile.load %[[Q]][%[[B:.*]], %{{.*}}, %[[ROW]], %{{.*}}]
// CHECK: scf.for %[[N:[a-z0-9_]+]] =
// CHECK:   %[[KEY:.*]] = arith.addi %[[K0]], %[[N]] : i32
// CHECK:   tile.load %[[KT]][%[[B]], %{{.*}}, %{{.*}}, %[[KEY]]]
// CHECK: tile.store %{{.*}}, %[[O]][%[[B]], %{{.*}}, %[[ROW]], %{{.*}}] mask(%{{.*}} : tensor<128x128xi1>)
// CHECK-NOT: tile.attention
tile.kernel @attention_varlen(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %CQ: !tile.ptr<i32>, %B1: i32, %MAXQ: i32, %H: i32, %T: i32, %ld: i32) {
  %q = tile.make_view %Q[1, %H, %T, 128] strides [0, 128, %ld, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[1, %H, %T, 128] strides [0, 128, %ld, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[1, %H, %T, 128] strides [0, 128, %ld, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[1, %H, %T, 128] strides [0, 128, %ld, 1] : !tile.ptr<bf16>
  %cq = tile.make_view %CQ[%B1] strides [1] : !tile.ptr<i32>
  tile.attention %q, %k, %v, %o cu_seqlens(%cq, %cq : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>)
      max_seqlen_q(%MAXQ)
      : !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>,
        !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>
  tile.return
}

// -----

// Causal varlen: one block per program, and a block within its sequence
// stores O whole (the TMA store takes it), the last one masked.
// CHECK-LABEL: tile.kernel @attention_varlen_causal
// CHECK-SAME: persistent = false, tma_store = true
// CHECK: %[[WHOLE:.*]] = arith.cmpi sle, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: scf.if %[[WHOLE]] {
// CHECK-NEXT: tile.store %{{[^ ]*}}, %{{[^ ]*}}[%{{.*}}] : tensor<128x128xbf16>
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.store %{{.*}} mask(%{{.*}} : tensor<128x128xi1>)
tile.kernel @attention_varlen_causal(%Q: !tile.ptr<bf16>, %O: !tile.ptr<bf16>, %CQ: !tile.ptr<i32>,
    %B1: i32, %MAXQ: i32, %H: i32, %T: i32, %ld: i32) {
  %q = tile.make_view %Q[1, %H, %T, 128] strides [0, 128, %ld, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[1, %H, %T, 128] strides [0, 128, %ld, 1] : !tile.ptr<bf16>
  %cq = tile.make_view %CQ[%B1] strides [1] : !tile.ptr<i32>
  tile.attention %q, %q, %q, %o cu_seqlens(%cq, %cq : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>)
      max_seqlen_q(%MAXQ) causal
      : !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>,
        !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>
  tile.return
}

// -----

// A block list: query block m0 / 128's count of listed key blocks bounds a
// loop over the list, whose entry gives each block's first key (128 keys a
// listed block, one kernel block each here); every visited block is
// masked (here by causal).
// CHECK-LABEL: tile.kernel @attention_block_list
// CHECK: %[[NUM:.*]] = tile.make_view %N[%B, %H, %QB]
// CHECK: %[[IDX:.*]] = tile.make_view %I[%B, %H, %QB, %NB]
// CHECK: %[[COUNT:.*]] = tile.load_scalar %[[NUM]][%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: %[[BLOCKS:.*]] = arith.muli %[[COUNT]], %c1{{.*}} : i32
// CHECK: scf.for %[[J:[a-z0-9_]+]] = %{{.*}} to %[[BLOCKS]] step %c1
// CHECK:   %[[ENTRY:.*]] = arith.divsi %[[J]], %c1{{.*}} : i32
// CHECK:   %[[BLOCK:.*]] = tile.load_scalar %[[IDX]][%{{.*}}, %{{.*}}, %{{.*}}, %[[ENTRY]]]
// CHECK:   arith.muli %[[BLOCK]], %c128
// CHECK:   tile.dot
// CHECK:   arith.select
// CHECK: } {tile.masks_bounded}
tile.kernel @attention_block_list(%Q: !tile.ptr<bf16>, %N: !tile.ptr<i32>, %I: !tile.ptr<i32>,
    %B: i32, %H: i32, %S: i32, %QB: i32, %NB: i32, %ld: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%ld, %ld, 128, 1] : !tile.ptr<bf16>
  %num = tile.make_view %N[%B, %H, %QB] strides [%QB, 0, 1] : !tile.ptr<i32>
  %idx = tile.make_view %I[%B, %H, %QB, %NB] strides [%S, 0, %NB, 1] : !tile.ptr<i32>
  tile.attention %q, %q, %q, %q
      block_list(%num, %idx : !tile.view<?x?x?xi32, strides = [?, 0, 1]>, !tile.view<?x?x?x?xi32, strides = [?, 0, ?, 1]>)
      causal
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Head dim 256 with a block list: the scheduling passes build it (the
// hand-built kernel, head dim 256's default, has no block list).
// CHECK-LABEL: tile.kernel @attention_block_list_d256
// CHECK-NOT: tile.tma_load
// CHECK: tile.load_scalar %{{.*}} : !tile.view<?x?x?xi32, strides = [?, 0, 1]> -> i32
// CHECK: scf.for
// CHECK: tile.load_scalar %{{.*}} : !tile.view<?x?x?x?xi32, strides = [?, 0, ?, 1]> -> i32
tile.kernel @attention_block_list_d256(%Q: !tile.ptr<bf16>, %N: !tile.ptr<i32>, %I: !tile.ptr<i32>,
    %B: i32, %H: i32, %S: i32, %QB: i32, %NB: i32, %ld: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 256] strides [%ld, %ld, 256, 1] : !tile.ptr<bf16>
  %num = tile.make_view %N[%B, %H, %QB] strides [%QB, 0, 1] : !tile.ptr<i32>
  %idx = tile.make_view %I[%B, %H, %QB, %NB] strides [%S, 0, %NB, 1] : !tile.ptr<i32>
  tile.attention %q, %q, %q, %q
      block_list(%num, %idx : !tile.view<?x?x?xi32, strides = [?, 0, 1]>, !tile.view<?x?x?x?xi32, strides = [?, 0, ?, 1]>)
      causal
      : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>,
        !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>
  tile.return
}
