// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt %s --mlir-print-op-generic | tilec-opt | FileCheck %s

// Round trip of the shared-memory, cp.async and sm_90a ops and types that
// ops.mlir does not cover. The kernels have the shapes the compiler itself
// builds: the cp.async ring of tile-pipeline, and the persistent,
// warp-specialized TMA + wgmma GEMM of tile-expand-named-ops{chip=sm_90a}.
// The arith/scf glue around the ops is deliberately not checked.

#sa = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], segment = 0>
#sw128 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#plain = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0, 1]>
#rows = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#mma8 = #tile.mma<warpsPerCTA = [8, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>

// `segment = 0` is the default and is not printed.
// CHECK-DAG: #[[$SA:shared[0-9]*]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>{{$}}
// CHECK-DAG: #[[$SW:shared[0-9]*]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>{{$}}
// CHECK-DAG: #[[$PLAIN:shared[0-9]*]] = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0, 1]>{{$}}
// CHECK-DAG: #[[$ROWS:shared[0-9]*]] = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [1, 0]>{{$}}
// CHECK-DAG: #[[$MMA:mma[0-9]*]] = #tile.mma<warpsPerCTA = [2, 2]>{{$}}
// CHECK-DAG: #[[$MMA8:mma[0-9]*]] = #tile.mma<warpsPerCTA = [8, 1]>{{$}}
// CHECK-DAG: #[[$DA:dot_op[0-9]*]] = #tile.dot_operand<opIdx = 0, parent = #[[$MMA]], kWidth = 2>{{$}}
// CHECK-DAG: #[[$DB:dot_op[0-9]*]] = #tile.dot_operand<opIdx = 1, parent = #[[$MMA]], kWidth = 2>{{$}}

// CHECK-LABEL: func.func private @shared_types
// CHECK-SAME: (!tile.smem<4x128x32xbf16, #[[$SA]]>,
// CHECK-SAME: !tile.smem<2x32x64xf32, #[[$PLAIN]]>,
// CHECK-SAME: !tile.tensor_map<128x64xbf16, #[[$SW]]>,
// CHECK-SAME: !tile.tensor_map<32x16xf32, #[[$PLAIN]]>,
// CHECK-SAME: !tile.mbarrier<1>, !tile.mbarrier<4>)
func.func private @shared_types(!tile.smem<4x128x32xbf16, #sa>,
                                !tile.smem<2x32x64xf32, #plain>,
                                !tile.tensor_map<128x64xbf16, #sw128>,
                                !tile.tensor_map<32x16xf32, #plain>,
                                !tile.mbarrier<1>, !tile.mbarrier<4>)

// A cp.async ring (sm_80): copies of a stage with and without bounds
// checks, commit groups, waits, and ldmatrix-style operand reads, whole
// (default offsets, not printed) and K-sliced.
// CHECK-LABEL: tile.kernel @cp_async_ring
// CHECK-SAME: (%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64})
// CHECK-SAME: warps(4) {
// CHECK: %[[C0:.+]] = arith.constant 0 : i32
// CHECK: %[[C1:.+]] = arith.constant 1 : i32
// CHECK: %[[VA:.+]] = tile.make_view %A
// CHECK: %[[VB:.+]] = tile.make_view %B
// CHECK: %[[BA:.+]] = tile.local_alloc : !tile.smem<3x64x32xbf16, #[[$SA]]>{{$}}
// CHECK: %[[BB:.+]] = tile.local_alloc : !tile.smem<3x32x128xbf16, #[[$SA]]>{{$}}
// CHECK: tile.async_copy %[[VA]][%[[C0]], %[[C0]]], %[[BA]][%[[C0]]] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x64x32xbf16, #[[$SA]]>{{$}}
// CHECK: tile.async_copy %[[VB]][%[[C0]], %[[C0]]], %[[BB]][%[[C0]]] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x32x128xbf16, #[[$SA]]>{{$}}
// CHECK: tile.async_commit{{$}}
// CHECK: tile.async_wait 1{{$}}
// CHECK: tile.barrier{{$}}
// CHECK: %[[A0:.+]] = tile.local_load %[[BA]][%[[C1]]] : !tile.smem<3x64x32xbf16, #[[$SA]]> -> tensor<64x16xbf16, #[[$DA]]>{{$}}
// CHECK: %[[A1:.+]] = tile.local_load %[[BA]][%[[C1]]] offsets [0, 16] : !tile.smem<3x64x32xbf16, #[[$SA]]> -> tensor<64x16xbf16, #[[$DA]]>{{$}}
// CHECK: %[[B1:.+]] = tile.local_load %[[BB]][%[[C1]]] offsets [16, 0] : !tile.smem<3x32x128xbf16, #[[$SA]]> -> tensor<16x128xbf16, #[[$DB]]>{{$}}
// CHECK: tile.dot %[[A1]], %[[B1]], %{{.+}} : tensor<64x16xbf16, #[[$DA]]>, tensor<16x128xbf16, #[[$DB]]> -> tensor<64x128xf32, #[[$MMA]]>
// CHECK: tile.async_wait 0{{$}}
tile.kernel @cp_async_ring(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64},
                           %M: i32, %N: i32, %K: i32, %lda: i32 {tile.divisibility = 8 : i64},
                           %ldb: i32 {tile.divisibility = 8 : i64}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %ba = tile.local_alloc : !tile.smem<3x64x32xbf16, #sa>
  %bb = tile.local_alloc : !tile.smem<3x32x128xbf16, #sa>
  tile.async_copy %va[%c0, %c0], %ba[%c0] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x64x32xbf16, #sa>
  tile.async_copy %vb[%c0, %c0], %bb[%c0] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x32x128xbf16, #sa>
  tile.async_commit
  tile.async_wait 1
  tile.barrier
  %a0 = tile.local_load %ba[%c1] : !tile.smem<3x64x32xbf16, #sa> -> tensor<64x16xbf16, #dot_a>
  %a1 = tile.local_load %ba[%c1] offsets [0, 16] : !tile.smem<3x64x32xbf16, #sa> -> tensor<64x16xbf16, #dot_a>
  %b1 = tile.local_load %bb[%c1] offsets [16, 0] : !tile.smem<3x32x128xbf16, #sa> -> tensor<16x128xbf16, #dot_b>
  %acc = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
  %d = tile.dot %a1, %b1, %acc : tensor<64x16xbf16, #dot_a>, tensor<16x128xbf16, #dot_b> -> tensor<64x128xf32, #mma>
  tile.async_wait 0
  tile.return
}

// A tile of a rank-3 view covers its last two dimensions; an f32 ring
// contiguous along dimension 0 (order = [0, 1]).
// CHECK-LABEL: tile.kernel @async_copy_rank3
// CHECK: %[[V:.+]] = tile.make_view %X[4, %M, %N] strides [%ld, 1, %M] : !tile.ptr<f32>
// CHECK: %[[BUF:.+]] = tile.local_alloc : !tile.smem<2x32x64xf32, #[[$PLAIN]]>{{$}}
// CHECK: tile.async_copy %[[V]][%{{.+}}, %{{.+}}, %{{.+}}], %[[BUF]][%{{.+}}] : !tile.view<4x?x?xf32, strides = [?, 1, ?]>, !tile.smem<2x32x64xf32, #[[$PLAIN]]>{{$}}
tile.kernel @async_copy_rank3(%X: !tile.ptr<f32>, %M: i32, %N: i32, %ld: i32) {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %X[4, %M, %N] strides [%ld, 1, %M] : !tile.ptr<f32>
  %buf = tile.local_alloc : !tile.smem<2x32x64xf32, #plain>
  tile.async_copy %v[%c0, %c0, %c0], %buf[%c0] : !tile.view<4x?x?xf32, strides = [?, 1, ?]>, !tile.smem<2x32x64xf32, #plain>
  tile.async_commit
  tile.return
}

// The persistent, warp-specialized sm_90a GEMM: tensor maps, a 3-stage ring
// with full/empty transaction barriers, wgmma reading its operands in place
// (local_load into the buffer's own #tile.shared encoding), a TMA producer
// partition, and an epilogue staged in shared memory for a TMA store.
// CHECK-LABEL: tile.kernel @tma_warp_specialized
// CHECK-SAME: (%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64})
// CHECK-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8) persistent {
// CHECK: %[[C0:.+]] = arith.constant 0 : i32
// CHECK: %[[C1:.+]] = arith.constant 1 : i32
// CHECK: %[[VA:.+]] = tile.make_view %A
// CHECK: %[[VB:.+]] = tile.make_view %B
// CHECK: %[[VC:.+]] = tile.make_view %C
// CHECK: %[[TMA:.+]] = tile.make_tensor_map %[[VA]] : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #[[$SW]]>{{$}}
// CHECK: %[[TMB:.+]] = tile.make_tensor_map %[[VB]] : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #[[$SW]]>{{$}}
// CHECK: %[[TMC:.+]] = tile.make_tensor_map %[[VC]] : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #[[$SW]]>{{$}}
// CHECK: %[[BA:.+]] = tile.local_alloc : !tile.smem<3x128x64xbf16, #[[$SW]]>{{$}}
// CHECK: %[[BB:.+]] = tile.local_alloc : !tile.smem<3x64x256xbf16, #[[$SW]]>{{$}}
// CHECK: %[[BC:.+]] = tile.local_alloc : !tile.smem<1x128x256xbf16, #[[$SW]]>{{$}}
// CHECK: %[[FULL:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<3>{{$}}
// CHECK: %[[EMPTY:.+]] = tile.mbarrier_alloc count 8 : !tile.mbarrier<3>{{$}}
// CHECK: %[[PID:.+]] = tile.program_id x
// CHECK: tile.warp_specialize regs(232) {
// CHECK-NEXT: tile.mbarrier_wait %[[FULL]][%[[C0]]], %[[C0]] : !tile.mbarrier<3>{{$}}
// CHECK-NEXT: %[[A:.+]] = tile.local_load %[[BA]][%[[C0]]] : !tile.smem<3x128x64xbf16, #[[$SW]]> -> tensor<128x64xbf16, #[[$SW]]>{{$}}
// CHECK-NEXT: %[[B:.+]] = tile.local_load %[[BB]][%[[C0]]] : !tile.smem<3x64x256xbf16, #[[$SW]]> -> tensor<64x256xbf16, #[[$SW]]>{{$}}
// CHECK-NEXT: %[[ACC0:.+]] = arith.constant
// CHECK-NEXT: %[[D:.+]] = tile.dot %[[A]], %[[B]], %[[ACC0]] : tensor<128x64xbf16, #[[$SW]]>, tensor<64x256xbf16, #[[$SW]]> -> tensor<128x256xf32, #[[$MMA8]]>
// CHECK-NEXT: %[[ACC:.+]] = tile.warpgroup_wait 0, %[[D]] : tensor<128x256xf32, #[[$MMA8]]>{{$}}
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%[[C0]]] : !tile.mbarrier<3>{{$}}
// CHECK-NEXT: %[[OUT:.+]] = arith.truncf %[[ACC]]
// CHECK-NEXT: tile.tma_store_wait 0{{$}}
// CHECK-NEXT: tile.barrier{{$}}
// CHECK-NEXT: tile.local_store %[[OUT]], %[[BC]][%[[C0]]] : tensor<128x256xbf16, #[[$MMA8]]>, !tile.smem<1x128x256xbf16, #[[$SW]]>{{$}}
// CHECK-NEXT: tile.fence_async_shared{{$}}
// CHECK-NEXT: tile.barrier{{$}}
// CHECK-NEXT: tile.tma_store %[[TMC]][%[[PID]], %[[C0]]], %[[BC]][%[[C0]]] : !tile.tensor_map<128x64xbf16, #[[$SW]]>, !tile.smem<1x128x256xbf16, #[[$SW]]>{{$}}
// CHECK-NEXT: tile.tma_store add %[[TMC]][%[[PID]], %[[C0]]], %[[BC]][%[[C0]]] : !tile.tensor_map<128x64xbf16, #[[$SW]]>, !tile.smem<1x128x256xbf16, #[[$SW]]>{{$}}
// CHECK-NEXT: tile.tma_store_wait 0{{$}}
// CHECK-NEXT: tile.warpgroup_wait 0{{$}}
// CHECK-NEXT: } partition warps(4) regs(40) {
// CHECK-NEXT: tile.mbarrier_wait %[[EMPTY]][%[[C0]]], %[[C1]] : !tile.mbarrier<3>{{$}}
// CHECK-NEXT: tile.mbarrier_expect_tx %[[FULL]][%[[C0]]], 49152 : !tile.mbarrier<3>{{$}}
// CHECK-NEXT: tile.tma_load %[[TMA]][%[[PID]], %[[C0]]], %[[BA]][%[[C0]]], %[[FULL]][%[[C0]]] : !tile.tensor_map<128x64xbf16, #[[$SW]]>, !tile.smem<3x128x64xbf16, #[[$SW]]>, !tile.mbarrier<3>{{$}}
// CHECK-NEXT: tile.tma_load %[[TMB]][%[[C0]], %[[PID]]], %[[BB]][%[[C0]]], %[[FULL]][%[[C0]]] : !tile.tensor_map<64x64xbf16, #[[$SW]]>, !tile.smem<3x64x256xbf16, #[[$SW]]>, !tile.mbarrier<3>{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: tile.return
tile.kernel @tma_warp_specialized(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64},
                                  %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32, %K: i32,
                                  %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64},
                                  %ldc: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8) persistent {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %tma = tile.make_tensor_map %va : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw128>
  %tmb = tile.make_tensor_map %vb : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw128>
  %tmc = tile.make_tensor_map %vc : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #sw128>
  %ba = tile.local_alloc : !tile.smem<3x128x64xbf16, #sw128>
  %bb = tile.local_alloc : !tile.smem<3x64x256xbf16, #sw128>
  %bc = tile.local_alloc : !tile.smem<1x128x256xbf16, #sw128>
  %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<3>
  %empty = tile.mbarrier_alloc count 8 : !tile.mbarrier<3>
  %pid = tile.program_id x
  tile.warp_specialize regs(232) {
    tile.mbarrier_wait %full[%c0], %c0 : !tile.mbarrier<3>
    %a = tile.local_load %ba[%c0] : !tile.smem<3x128x64xbf16, #sw128> -> tensor<128x64xbf16, #sw128>
    %b = tile.local_load %bb[%c0] : !tile.smem<3x64x256xbf16, #sw128> -> tensor<64x256xbf16, #sw128>
    %acc0 = arith.constant dense<0.0> : tensor<128x256xf32, #mma8>
    %d = tile.dot %a, %b, %acc0 : tensor<128x64xbf16, #sw128>, tensor<64x256xbf16, #sw128> -> tensor<128x256xf32, #mma8>
    %acc = tile.warpgroup_wait 0, %d : tensor<128x256xf32, #mma8>
    tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<3>
    %out = arith.truncf %acc : tensor<128x256xf32, #mma8> to tensor<128x256xbf16, #mma8>
    tile.tma_store_wait 0
    tile.barrier
    tile.local_store %out, %bc[%c0] : tensor<128x256xbf16, #mma8>, !tile.smem<1x128x256xbf16, #sw128>
    tile.fence_async_shared
    tile.barrier
    tile.tma_store %tmc[%pid, %c0], %bc[%c0] : !tile.tensor_map<128x64xbf16, #sw128>, !tile.smem<1x128x256xbf16, #sw128>
    tile.tma_store add %tmc[%pid, %c0], %bc[%c0] : !tile.tensor_map<128x64xbf16, #sw128>, !tile.smem<1x128x256xbf16, #sw128>
    tile.tma_store_wait 0
    tile.warpgroup_wait 0
  } partition warps(4) regs(40) {
    tile.mbarrier_wait %empty[%c0], %c1 : !tile.mbarrier<3>
    tile.mbarrier_expect_tx %full[%c0], 49152 : !tile.mbarrier<3>
    tile.tma_load %tma[%pid, %c0], %ba[%c0], %full[%c0] : !tile.tensor_map<128x64xbf16, #sw128>, !tile.smem<3x128x64xbf16, #sw128>, !tile.mbarrier<3>
    tile.tma_load %tmb[%c0, %pid], %bb[%c0], %full[%c0] : !tile.tensor_map<64x64xbf16, #sw128>, !tile.smem<3x64x256xbf16, #sw128>, !tile.mbarrier<3>
  }
  tile.return
}

// Empty regions: each still holds one (empty) block, printed as `{` `}`,
// which must parse back as a block and not as a region without one.
// CHECK-LABEL: tile.kernel @warp_specialize_empty_regions
// CHECK: tile.warp_specialize regs(232) {
// CHECK-NEXT: } partition warps(4) regs(40) {
// CHECK-NEXT: }
// CHECK-NEXT: tile.return
tile.kernel @warp_specialize_empty_regions() warps(4) {
  tile.warp_specialize regs(232) {
  } partition warps(4) regs(40) {
  }
  tile.return
}

// Unswizzled tensor maps over views with static strides (no
// tile.divisibility needed), contiguous along either dimension.
// CHECK-LABEL: tile.kernel @tma_static_strides
// CHECK: %[[V:.+]] = tile.make_view %X[%M, 64] strides [64, 1] : !tile.ptr<f32>
// CHECK: %[[TM:.+]] = tile.make_tensor_map %[[V]] : !tile.view<?x64xf32, strides = [64, 1]> -> !tile.tensor_map<16x32xf32, #[[$ROWS]]>{{$}}
// CHECK: %[[VT:.+]] = tile.make_view %X[%M, %M] strides [1, 64] : !tile.ptr<f32>
// CHECK: tile.make_tensor_map %[[VT]] : !tile.view<?x?xf32, strides = [1, 64]> -> !tile.tensor_map<32x16xf32, #[[$PLAIN]]>{{$}}
tile.kernel @tma_static_strides(%X: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32) {
  %v = tile.make_view %X[%M, 64] strides [64, 1] : !tile.ptr<f32>
  %tm = tile.make_tensor_map %v : !tile.view<?x64xf32, strides = [64, 1]> -> !tile.tensor_map<16x32xf32, #rows>
  %vt = tile.make_view %X[%M, %M] strides [1, 64] : !tile.ptr<f32>
  %tmt = tile.make_tensor_map %vt : !tile.view<?x?xf32, strides = [1, 64]> -> !tile.tensor_map<32x16xf32, #plain>
  tile.return
}

// Every field of tile.gemm's typed config, flags included; printed in the
// attribute's order, flags as booleans.
// CHECK-LABEL: tile.kernel @gemm_config_keys
// CHECK: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} config <block_m = 128, block_n = 256, block_k = 64, stages = 3, warps = 8, group_m = 8, warp_specialize = true, consumer_regs = 232, producer_regs = 40, tma_store = true, cluster_m = 2, cluster_n = 1> :
tile.kernel @gemm_config_keys(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                              %M: i32, %N: i32, %K: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c
      config <block_m = 128, block_n = 256, block_k = 64, stages = 3, warps = 8,
              group_m = 8, warp_specialize = true, consumer_regs = 232,
              producer_regs = 40, tma_store = true, cluster_m = 2, cluster_n = 1>
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// Every field of tile.attention's typed config; flags written 0 / 1 read
// as false / true.
// CHECK-LABEL: tile.kernel @attention_config_keys
// CHECK: tile.attention %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} causal config <block_m = 128, block_n = 128, stages = 2, warps = 8, warp_specialize = true, consumer_regs = 232, producer_regs = 40, pingpong = true, tma_store = false, persistent = true, by_passes = true, q_in_smem = false, split_loops = true> :
tile.kernel @attention_config_keys(%Q: !tile.ptr<bf16>, %S: i32) {
  %q = tile.make_view %Q[%S, %S, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %q, %q causal
      config <split_loops = 1, q_in_smem = 0, by_passes = true, persistent = 1,
              tma_store = false, pingpong = true, producer_regs = 40,
              consumer_regs = 232, warp_specialize = true, warps = 8,
              stages = 2, block_n = 128, block_m = 128>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// Thread-block clusters: the kernel's cluster shape (given as 1 to 3
// dimensions, printed as 3), the program's rank, cluster barriers,
// multicast TMA loads of one part of a tile, and arrivals on another
// program's barrier.
// CHECK-LABEL: tile.kernel @cluster_ops
// CHECK-SAME: warps(8) cluster(2, 1, 1) persistent {
// CHECK: %[[FULL:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<3>
// CHECK-NEXT: %[[EMPTY:.+]] = tile.mbarrier_alloc count 16 : !tile.mbarrier<3>
// CHECK-NEXT: tile.cluster_barrier{{$}}
// CHECK-NEXT: %[[R:.+]] = tile.cluster_rank{{$}}
// CHECK: tile.tma_load %[[TM:.+]][%[[C0:.+]], %[[C0]]], %[[BUF:.+]][%[[C0]]], %[[FULL]][%[[C0]]] multicast(%[[MASK:.+]]) part(%[[R]] of 2) : !tile.tensor_map<64x64xbf16, #[[$SW]]>, !tile.smem<3x64x256xbf16, #[[$SW]]>, !tile.mbarrier<3>{{$}}
// CHECK-NEXT: tile.tma_load %[[TM]][%[[C0]], %[[C0]]], %[[BUF]][%[[C0]]], %[[FULL]][%[[C0]]] multicast(%[[MASK]]) : !tile.tensor_map<64x64xbf16, #[[$SW]]>, !tile.smem<3x64x256xbf16, #[[$SW]]>, !tile.mbarrier<3>{{$}}
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%[[C0]]] cta(%[[R]]) : !tile.mbarrier<3>{{$}}
// CHECK-NEXT: tile.cluster_barrier{{$}}
tile.kernel @cluster_ops(%B: !tile.ptr<bf16> {tile.align = 16 : i64}, %N: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%N, 256)) warps(8) cluster(2) persistent {
  %c0 = arith.constant 0 : i32
  %mask = arith.constant 3 : i32
  %b = tile.make_view %B[%N, %N] strides [%N, 1] : !tile.ptr<bf16>
  %tm = tile.make_tensor_map %b : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw128>
  %buf = tile.local_alloc : !tile.smem<3x64x256xbf16, #sw128>
  %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<3>
  %empty = tile.mbarrier_alloc count 16 : !tile.mbarrier<3>
  tile.cluster_barrier
  %r = tile.cluster_rank
  tile.tma_load %tm[%c0, %c0], %buf[%c0], %full[%c0] multicast(%mask) part(%r of 2) : !tile.tensor_map<64x64xbf16, #sw128>, !tile.smem<3x64x256xbf16, #sw128>, !tile.mbarrier<3>
  tile.tma_load %tm[%c0, %c0], %buf[%c0], %full[%c0] multicast(%mask) : !tile.tensor_map<64x64xbf16, #sw128>, !tile.smem<3x64x256xbf16, #sw128>, !tile.mbarrier<3>
  tile.mbarrier_arrive %empty[%c0] cta(%r) : !tile.mbarrier<3>
  tile.cluster_barrier
  tile.return
}

// Warpgroup turns: the executing warpgroup's index and named barriers.

// CHECK-LABEL: func.func @warpgroup_turns
// CHECK: %[[WG:.+]] = tile.warpgroup_id{{$}}
// CHECK: tile.named_barrier %[[WG]], 256{{$}}
// CHECK: tile.named_barrier arrive %[[WG]], 256{{$}}
func.func @warpgroup_turns() {
  %wg = tile.warpgroup_id
  tile.named_barrier %wg, 256
  tile.named_barrier arrive %wg, 256
  return
}

// An in-place read of a stage as its transpose: the transposed shape with
// the order swapped holds the same bytes (one copy read K-major by one
// wgmma and N-major by another).
// CHECK-LABEL: tile.kernel @in_place_transposed
// CHECK: tile.local_load %{{.+}}[%{{.+}}] : !tile.smem<2x64x128xbf16, #{{.+}}> -> tensor<64x128xbf16, #{{.+}}>
// CHECK: tile.local_load %{{.+}}[%{{.+}}] : !tile.smem<2x64x128xbf16, #{{.+}}> -> tensor<128x64xbf16, #{{.+}}>
tile.kernel @in_place_transposed() {
  %c0 = arith.constant 0 : i32
  %buf = tile.local_alloc : !tile.smem<2x64x128xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>
  %q = tile.local_load %buf[%c0] : !tile.smem<2x64x128xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>> -> tensor<64x128xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>
  %qt = tile.local_load %buf[%c0] : !tile.smem<2x64x128xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>> -> tensor<128x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>
  tile.return
}
