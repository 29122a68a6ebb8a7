// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile-split-stages, tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile-split-stages, tile.kernel(tile-expand-named-ops{chip=sm_80}))' | FileCheck %s --check-prefix=SM80

// Split-K (config <split_k = S>): tile-split-stages makes the kernel two,
// and tile-expand-named-ops writes each. The partial stage runs S programs
// per tile of C, program pid taking K range pid / tiles of its tile pid %
// tiles (ceildiv(ceildiv(K, BK), S) K steps each), and stores the range's
// f32 sums, as they are, in the workspace's matrix of that range. The
// reduce stage adds a tile's S partial sums in range order (the same bits
// on every run) and applies the epilogue once.

// CHECK-LABEL: tile.kernel @gemm_split_partial(
// CHECK-SAME: %W: !tile.ptr<f32> {tile.align = 16 : i64}
// CHECK-SAME: %ldw: i32 {tile.divisibility = 4 : i64}, %sw: i32 {tile.divisibility = 4 : i64}
// CHECK-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256) * 4) warps(8)
// CHECK-SAME: tma_store = false
// CHECK: %[[W:.+]] = tile.make_view %W[4, %M, %N] strides [%sw, %ldw, 1]
// CHECK: %[[PID:.+]] = tile.program_id x
// CHECK: %[[TILES:.+]] = arith.muli
// CHECK: %[[SPLIT:.+]] = arith.divsi %[[PID]], %[[TILES]]
// CHECK: %[[TILE:.+]] = arith.remsi %[[PID]], %[[TILES]]
// CHECK: %[[STEPS:.+]] = arith.ceildivsi %K, %[[BK:.+]] : i32
// CHECK: %[[PER:.+]] = arith.ceildivsi %[[STEPS]], %c4_i32
// CHECK: %[[LEN:.+]] = arith.muli %[[PER]], %[[BK]]
// CHECK: %[[BEGIN:.+]] = arith.muli %[[SPLIT]], %[[LEN]]
// CHECK: %[[REACH:.+]] = arith.addi %[[BEGIN]], %[[LEN]]
// CHECK: %[[CLAMP:.+]] = arith.minsi %K, %[[REACH]]
// CHECK: %[[END:.+]] = arith.maxsi %[[BEGIN]], %[[CLAMP]]
// CHECK: %[[SUM:.+]] = scf.for %{{.+}} = %[[BEGIN]] to %[[END]] step
// CHECK:   tile.dot
// CHECK-NOT: math.exp
// CHECK: tile.store %[[SUM]], %[[W]][%[[SPLIT]], %{{.+}}, %{{.+}}] : tensor<128x256xf32>
// CHECK-NEXT: tile.return

// CHECK-LABEL: tile.kernel @gemm_split_reduce(
// CHECK-SAME: %W: !tile.ptr<f32> {tile.align = 16 : i64}
// CHECK-SAME: grid(ceildiv(%M, 32) * ceildiv(%N, 128)) warps(4)
// CHECK: %[[C:.+]] = tile.make_view %C[%M, %N]
// CHECK: %[[W:.+]] = tile.make_view %W[4, %M, %N] strides [%sw, %ldw, 1]
// CHECK: %[[TOTAL:.+]] = scf.for %[[S:.+]] = %c0_i32 to %c4_i32 step %c1_i32 iter_args(%[[ACC:.+]] = %{{.+}}) -> (tensor<32x128xf32>)
// CHECK:   %[[PART:.+]] = tile.load %[[W]][%[[S]], %{{.+}}, %{{.+}}] {{.*}} -> tensor<32x128xf32>
// CHECK:   %[[NEXT:.+]] = arith.addf %[[ACC]], %[[PART]]
// CHECK:   scf.yield %[[NEXT]]
// CHECK: tile.load %{{.+}} : !tile.view<?xbf16, strides = [1]> -> tensor<128xbf16>
// CHECK: math.exp
// CHECK: tile.store %{{.+}}, %[[C]]{{.*}} : tensor<32x128xbf16>

// SM80-LABEL: tile.kernel @gemm_split_partial(
// SM80-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256) * 4) warps(8)
// SM80: scf.for
// SM80: tile.num_stages
// SM80: tile.store %{{.+}} : tensor<128x256xf32>
// SM80-LABEL: tile.kernel @gemm_split_reduce(
// SM80-SAME: grid(ceildiv(%M, 32) * ceildiv(%N, 128)) warps(4)
tile.kernel @gemm_split(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
    %bias: !tile.ptr<bf16>, %W: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32,
    %lda: i32, %ldb: i32, %ldc: i32, %ldw: i32, %sw: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %bv = tile.make_view %bias[%N] strides [1] : !tile.ptr<bf16>
  %w = tile.make_view %W[4, %M, %N] strides [%sw, %ldw, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c workspace(%w : !tile.view<4x?x?xf32, strides = [?, ?, 1]>)
      bias(%bv) activation(silu) config <split_k = 4>
    : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
      !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?xbf16, strides = [1]>
  tile.return
}

// -----

// With swap_ab the partial stage computes Cᵀ's tiles and stores them
// through the workspace's transposed matrices; the reduce stage reads the
// workspace in C's orientation, as without it.

// CHECK-LABEL: tile.kernel @decode_split_partial(
// CHECK-SAME: grid(ceildiv(%N, 64) * ceildiv(%M, 16) * 3) warps(4)
// CHECK: %[[WT:.+]] = tile.make_view %W[3, %N, %M] strides [%sw, 1, %ldw]
// CHECK: tile.store %{{.+}}, %[[WT]][{{.+}}] : tensor<64x16xf32>, !tile.view<3x?x?xf32, strides = [?, 1, ?]>
// CHECK-LABEL: tile.kernel @decode_split_reduce(
// CHECK-SAME: grid(ceildiv(%M, 32) * ceildiv(%N, 128)) warps(4)
// CHECK: tile.load %{{.+}} : !tile.view<3x?x?xf32, strides = [?, ?, 1]> -> tensor<32x128xf32>

// SM80-LABEL: tile.kernel @decode_split_partial(
// SM80-SAME: grid(ceildiv(%N, 64) * ceildiv(%M, 16) * 3) warps(4)
// SM80: tile.store %{{.+}} : tensor<64x16xf32>, !tile.view<3x?x?xf32, strides = [?, 1, ?]>
tile.kernel @decode_split(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
    %W: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32,
    %lda: i32, %ldb: i32, %ldc: i32, %ldw: i32, %sw: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[3, %M, %N] strides [%sw, %ldw, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c workspace(%w : !tile.view<3x?x?xf32, strides = [?, ?, 1]>)
      config <split_k = 3, swap_ab = true, block_m = 16, block_n = 64, block_k = 128, warps = 4, tma_store = false>
    : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [1, ?]>,
      !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
