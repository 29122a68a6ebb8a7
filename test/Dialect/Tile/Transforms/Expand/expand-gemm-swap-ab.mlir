// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_80}))' | FileCheck %s --check-prefix=SM80

// The transposed product (swap_ab) for decode GEMMs: tile.gemm's block
// program computes Cᵀ = Bᵀ Aᵀ on transposed views of the same memory, so
// that B's columns (the nn.Linear weight's rows) ride wgmma's M and A's few
// rows its N. The config's block_m x block_n is C's tile (16 tokens x 64
// weights here); the dot's is its transpose, 64 x 16, on one consumer
// warpgroup. The bias runs along the tile's rows, A's row scales along its
// columns, and the store writes Cᵀ's tile (no TMA store).

// CHECK-LABEL: tile.kernel @swap_config
// CHECK-SAME: grid(ceildiv(%N, 64) * ceildiv(%M, 16)) warps(4)
// CHECK-SAME: tma_store = false
// CHECK-DAG: %[[WT:.+]] = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<bf16>
// CHECK-DAG: %[[XT:.+]] = tile.make_view %A[%K, %M] strides [1, %lda] : !tile.ptr<bf16>
// CHECK-DAG: %[[YT:.+]] = tile.make_view %C[%N, %M] strides [1, %ldc] : !tile.ptr<bf16>
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %K step %{{.+}} iter_args(
// CHECK:   tile.load %[[WT]][%[[N0:.+]], %[[K]]] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
// CHECK:   tile.load %[[XT]][%[[K]], %[[M0:.+]]] : !tile.view<?x?xbf16, strides = [1, ?]> -> tensor<128x16xbf16>
// CHECK:   tile.dot {{.*}} : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
// CHECK: %[[SA:.+]] = tile.load %{{.+}}[%[[M0]]] {{.*}} -> tensor<16xf32>
// CHECK: tile.expand_dims %[[SA]] axis = 0 : tensor<16xf32> -> tensor<1x16xf32>
// CHECK: %[[BIAS:.+]] = tile.load %{{.+}}[%[[N0]]] {{.*}} -> tensor<64xbf16>
// CHECK: %[[BIASF:.+]] = arith.extf %[[BIAS]] : tensor<64xbf16> to tensor<64xf32>
// CHECK: tile.expand_dims %[[BIASF]] axis = 1 : tensor<64xf32> -> tensor<64x1xf32>
// CHECK: tile.store %{{.+}}, %[[YT]][%[[N0]], %[[M0]]] : tensor<64x16xbf16>, !tile.view<?x?xbf16, strides = [1, ?]>
// SM80-LABEL: tile.kernel @swap_config
// SM80: tile.dot {{.*}} : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
// SM80: tile.store {{.*}} : tensor<64x16xbf16>, !tile.view<?x?xbf16, strides = [1, ?]>
tile.kernel @swap_config(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %bias: !tile.ptr<bf16>, %SA: !tile.ptr<f32>,
                         %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %v = tile.make_view %bias[%N] strides [1] : !tile.ptr<bf16>
  %s = tile.make_view %SA[%M] strides [1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c scale_a(%s : !tile.view<?xf32, strides = [1]>) bias(%v)
      config <block_m = 16, block_n = 64, block_k = 128, warps = 4, swap_ab = true>
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?xbf16, strides = [1]>
  tile.return
}

// -----

// A row-major B (x @ W) runs transposed where the config asks: Bᵀ's view
// is contiguous along the weights, so the dot's A is M-major (wgmma's
// transposed A on sm_90a, ldmatrix.trans on sm_80).

// CHECK-LABEL: tile.kernel @swap_config_row_major_b
// CHECK-DAG: %[[WT:.+]] = tile.make_view %B[%N, %K] strides [1, %ldb] : !tile.ptr<bf16>
// CHECK: tile.load %[[WT]][%{{.+}}, %{{.+}}] : !tile.view<?x?xbf16, strides = [1, ?]> -> tensor<64x128xbf16>
// CHECK: tile.dot {{.*}} : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
// SM80-LABEL: tile.kernel @swap_config_row_major_b
// SM80: tile.dot {{.*}} : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
tile.kernel @swap_config_row_major_b(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                                     %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config <block_m = 16, block_n = 64, block_k = 128, warps = 4, swap_ab = true>
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// Static decode shapes take it from the shape rule: M = 1 gets 16-token
// tiles with 128-wide K steps, M = 48 64-token tiles, 128 weights each
// where N is at least 8192; M = 65 is past the rule's bound, and a
// row-major B stays untransposed (the rule's transposed tiles are measured
// on column-major weights; config <swap_ab = true> asks for it).
// On sm_80 (mma.sync) the rule takes 64 x 16 tiles with 64-wide K steps
// in an 8-deep cp.async ring, and 64 x 32 ones from M = 17.
// CHECK-LABEL: tile.kernel @swap_rule_m1
// CHECK-SAME: grid(64) warps(4)
// CHECK: tile.dot {{.*}} : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
// SM80-LABEL: tile.kernel @swap_rule_m1
// SM80-SAME: grid(64) warps(4)
// SM80: tile.dot {{.*}} : tensor<64x64xbf16>, tensor<64x16xbf16> -> tensor<64x16xf32>
// SM80: } {tile.num_stages = 8 : i64}
tile.kernel @swap_rule_m1(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>) {
  %a = tile.make_view %A[1, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[4096, 4096] strides [1, 4096] : !tile.ptr<bf16>
  %c = tile.make_view %C[1, 4096] strides [4096, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<1x4096xbf16, strides = [4096, 1]>, !tile.view<4096x4096xbf16, strides = [1, 4096]>, !tile.view<1x4096xbf16, strides = [4096, 1]>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @swap_rule_m48
// CHECK-SAME: grid(112) warps(8)
// CHECK: tile.dot {{.*}} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
// SM80-LABEL: tile.kernel @swap_rule_m48
// SM80-SAME: grid(448) warps(4)
// SM80: tile.dot {{.*}} : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
// SM80: } {tile.num_stages = 4 : i64}
tile.kernel @swap_rule_m48(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>) {
  %a = tile.make_view %A[48, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[4096, 14336] strides [1, 4096] : !tile.ptr<bf16>
  %c = tile.make_view %C[48, 14336] strides [14336, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<48x4096xbf16, strides = [4096, 1]>, !tile.view<4096x14336xbf16, strides = [1, 4096]>, !tile.view<48x14336xbf16, strides = [14336, 1]>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @no_swap_m65
// CHECK: tile.dot {{.*}} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
// SM80-LABEL: tile.kernel @no_swap_m65
// SM80: tile.dot {{.*}} : tensor<128x32xbf16>, tensor<32x256xbf16> -> tensor<128x256xf32>
tile.kernel @no_swap_m65(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>) {
  %a = tile.make_view %A[65, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[4096, 4096] strides [1, 4096] : !tile.ptr<bf16>
  %c = tile.make_view %C[65, 4096] strides [4096, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<65x4096xbf16, strides = [4096, 1]>, !tile.view<4096x4096xbf16, strides = [1, 4096]>, !tile.view<65x4096xbf16, strides = [4096, 1]>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @no_swap_row_major_b
// CHECK: tile.dot {{.*}} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
// SM80-LABEL: tile.kernel @no_swap_row_major_b
// SM80: tile.dot {{.*}} : tensor<128x32xbf16>, tensor<32x256xbf16> -> tensor<128x256xf32>
tile.kernel @no_swap_row_major_b(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>) {
  %a = tile.make_view %A[1, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[4096, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[1, 4096] strides [4096, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<1x4096xbf16, strides = [4096, 1]>, !tile.view<4096x4096xbf16, strides = [4096, 1]>, !tile.view<1x4096xbf16, strides = [4096, 1]>
  tile.return
}

// -----

// Regression: a decode shape with a column-major B and `aligned = false`
// failed ("swap_ab needs aligned operands"): the static shape's rule picked
// the transposed product, which reads its operands by TMA, for a config
// that takes operands of any alignment. It now keeps the untransposed
// tiles (the operands staged for wgmma by the threads).

// CHECK-LABEL: tile.kernel @no_swap_any_alignment
// CHECK-NOT: tile.align
// CHECK: tile.dot {{.*}} : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
// SM80-LABEL: tile.kernel @no_swap_any_alignment
// SM80: tile.dot
tile.kernel @no_swap_any_alignment(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>) {
  %a = tile.make_view %A[16, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[4096, 4096] strides [1, 4096] : !tile.ptr<bf16>
  %c = tile.make_view %C[16, 4096] strides [4096, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config <aligned = false> : !tile.view<16x4096xbf16, strides = [4096, 1]>, !tile.view<4096x4096xbf16, strides = [1, 4096]>, !tile.view<16x4096xbf16, strides = [4096, 1]>
  tile.return
}
