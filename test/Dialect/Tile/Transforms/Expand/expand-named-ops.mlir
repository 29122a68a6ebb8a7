// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_80}))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_89}))' | FileCheck %s --check-prefix=SM89

// tile.gemm becomes a block program: grid rule, warps, the alignment the
// cp.async path assumes, grouped rasterization, a K loop of loads and dots
// (annotated with the pipeline depth) and the epilogue.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-SAME: %A: !tile.ptr<bf16> {tile.align = 16 : i64}
// CHECK-SAME: %lda: i32 {tile.divisibility = 8 : i64}
// CHECK-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8)
// CHECK: tile.program_id x
// CHECK: arith.minsi
// CHECK: scf.for {{.*}} -> (tensor<128x256xf32>)
// CHECK:   tile.load {{.*}} -> tensor<128x32xbf16>
// CHECK:   tile.load {{.*}} -> tensor<32x256xbf16>
// CHECK:   tile.dot
// CHECK: } {tile.num_stages = 4 : i64}
// CHECK: arith.truncf {{.*}} to tensor<128x256xbf16>
// CHECK: tile.store
// CHECK-NOT: tile.gemm
// SM89: grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8)
// SM89: tile.num_stages = 3
tile.kernel @gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                  %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// The epilogue in f32: alpha, beta * C (read only when beta != 0), bias,
// activation; config overrides the chip's rule.

// CHECK-LABEL: tile.kernel @gemm_epilogue
// CHECK-SAME: grid(ceildiv(%M, 64) * ceildiv(%N, 128)) warps(4)
// CHECK: scf.for {{.*}} -> (tensor<64x128xf32>)
// CHECK: } {tile.num_stages = 2 : i64}
// CHECK: arith.mulf {{.*}} : tensor<64x128xf32>
// CHECK: arith.cmpf une
// CHECK: scf.if
// CHECK:   tile.load {{.*}} -> tensor<64x128xf32>
// CHECK: tile.load {{.*}} -> tensor<128xf32>
// CHECK: tile.expand_dims {{.*}} axis = 0
// CHECK: tile.broadcast
// CHECK: math.erf
// CHECK: tile.store {{.*}} : tensor<64x128xf32>
tile.kernel @gemm_epilogue(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>,
                           %bias: !tile.ptr<f32>, %alpha: f32, %beta: f32,
                           %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f16>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  %v = tile.make_view %bias[%N] strides [1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c alpha(%alpha) beta(%beta) bias(%v) activation(gelu)
      config <block_m = 64, block_n = 128, warps = 4, stages = 2>
      : !tile.view<?x?xf16, strides = [?, 1]>, !tile.view<?x?xf16, strides = [1, ?]>,
        !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// Row and column scales (torch._scaled_mm's row-wise scaling) multiply the
// product after alpha: a block of scale_a (its rows, broadcast along N) and
// one of scale_b (its columns, broadcast along M), zero-padded past M and N.

// CHECK-LABEL: tile.kernel @gemm_row_col_scales
// CHECK: scf.for
// CHECK: arith.mulf {{.*}} : tensor<64x128xf32>
// CHECK: %[[SA:.+]] = tile.load %{{.+}}[%{{.+}}] : !tile.view<?xf32, strides = [1]> -> tensor<64xf32>
// CHECK: tile.expand_dims %[[SA]] axis = 1 : tensor<64xf32> -> tensor<64x1xf32>
// CHECK: arith.mulf {{.*}} : tensor<64x128xf32>
// CHECK: %[[SB:.+]] = tile.load %{{.+}}[%{{.+}}] : !tile.view<?xf32, strides = [1]> -> tensor<128xf32>
// CHECK: tile.expand_dims %[[SB]] axis = 0 : tensor<128xf32> -> tensor<1x128xf32>
// CHECK: arith.mulf {{.*}} : tensor<64x128xf32>
// CHECK: arith.truncf {{.*}} to tensor<64x128xbf16>
tile.kernel @gemm_row_col_scales(%A: !tile.ptr<f8E4M3FN>, %B: !tile.ptr<f8E4M3FN>, %C: !tile.ptr<bf16>,
                                 %SA: !tile.ptr<f32>, %SB: !tile.ptr<f32>, %alpha: f32,
                                 %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %sa = tile.make_view %SA[%M] strides [1] : !tile.ptr<f32>
  %sb = tile.make_view %SB[%N] strides [1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c alpha(%alpha) scale_a(%sa : !tile.view<?xf32, strides = [1]>)
      scale_b(%sb : !tile.view<?xf32, strides = [1]>)
      config <block_m = 64, block_n = 128, warps = 4, stages = 2>
      : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// Block scales (DeepGEMM's recipe): each K step's product starts from zero,
// is scaled by its rows' 1x128 scales times the tile's 128x128 B scale and
// added in one FMA; the scales of step k + block_k are loaded in step k
// (the first step's before the loop) and carried. block_n defaults to 128
// (a tile's columns share one B block); no scale in the epilogue.

// CHECK-LABEL: tile.kernel @gemm_block_scales
// CHECK-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 128))
// CHECK: %[[NB:.+]] = arith.divsi %{{.+}}, %c128_i32
// CHECK: %[[SA0:.+]] = tile.load %[[VSA:.+]][%{{.+}}, %{{.+}}] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128xf32>
// CHECK: %[[SB0:.+]] = tile.load %[[VSB:.+]][%[[NB]], %{{.+}}] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<1xf32>
// CHECK: scf.for %[[K:.+]] = {{.+}} iter_args(%[[SUM:.+]] = %[[ZERO:[^,]+]], %[[SA:.+]] = %[[SA0]], %[[SB:.+]] = %[[SB0]])
// CHECK: %[[K1:.+]] = arith.addi %[[K]], %c{{[0-9]+}}_i32
// CHECK: %[[KB1:.+]] = arith.divsi %[[K1]], %c128_i32
// CHECK: %[[NSA:.+]] = tile.load %[[VSA]][%[[KB1]], %{{.+}}]
// CHECK: %[[NSB:.+]] = tile.load %[[VSB]][%[[NB]], %[[KB1]]]
// CHECK: %[[D:.+]] = tile.dot %{{.+}}, %{{.+}}, %[[ZERO]]
// CHECK: %[[SBB:.+]] = tile.broadcast %[[SB]] : tensor<1xf32> -> tensor<128xf32>
// CHECK: %[[S:.+]] = arith.mulf %[[SA]], %[[SBB]]
// CHECK: tile.expand_dims %[[S]] axis = 1
// CHECK: %[[NEXT:.+]] = math.fma %[[D]], %{{.+}}, %[[SUM]] : tensor<128x128xf32>
// CHECK: scf.yield %[[NEXT]], %[[NSA]], %[[NSB]]
// CHECK-NOT: tile.load
// CHECK: arith.truncf {{.*}} to tensor<128x128xbf16>
tile.kernel @gemm_block_scales(%A: !tile.ptr<f8E4M3FN>, %B: !tile.ptr<f8E4M3FN>, %C: !tile.ptr<bf16>,
                               %SA: !tile.ptr<f32>, %SB: !tile.ptr<f32>,
                               %M: i32, %N: i32, %K: i32, %KB: i32, %NB: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%K, %N] strides [1, %K] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %sa = tile.make_view %SA[%KB, %M] strides [%M, 1] : !tile.ptr<f32>
  %sb = tile.make_view %SB[%NB, %KB] strides [%KB, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c scale_a(%sa : !tile.view<?x?xf32, strides = [?, 1]>)
      scale_b(%sb : !tile.view<?x?xf32, strides = [?, 1]>)
      : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// tile.attention becomes a FlashAttention-2 forward: grid (query blocks,
// heads, batch), K/V loops (a 2-stage cp.async ring; Kᵀ through a
// transposed view) that stop at the last causally visible block, Q·Kᵀ in
// the log2 domain, a row max, exp2 of the shifted scores, the rescaled
// accumulator, P·V, and the normalized output plus the row lse. The blocks
// every row sees whole (below Sk and the first query's causal limit) run in
// a first loop without the mask; the rest in a second loop with it. A block
// has 128 queries and Q waits in shared memory: each key block reads its
// fragments there; head dim 128 steps through 64 keys at a time in a
// 2-stage ring (on sm_89, whose 99 KB leave no room for layout-conversion
// scratch beside it, 32 keys in a 3-stage ring).

// CHECK-LABEL: tile.kernel @attention
// SM89-LABEL: tile.kernel @attention
// SM89: } {tile.masks_bounded, tile.num_stages = 3 : i64}
// SM89: } {tile.masks_bounded, tile.num_stages = 3 : i64}
// CHECK-SAME: %K: !tile.ptr<bf16> {tile.align = 16 : i64}
// CHECK-SAME: %kb: i32 {tile.divisibility = 8 : i64}
// CHECK-SAME: grid(ceildiv(%SQ, 128), %H, %B) warps(4)
// Q waits in shared memory, read per key block: the schedule asks
// tile-pipeline for it; the expansion writes no hardware op.
// CHECK-SAME: schedule<tma = false, persistent = false, tma_store = false, operands_in_smem = true> {
// Causal: the query blocks with the most keys run first, across groups of
// (batch, head) pairs whose K and V fit about 32 MB: the program's linear
// index picks a rank (query block from the last) and a pair.
// CHECK: %[[KT:.*]] = tile.make_view %K[%B, %HK, 128, %SK] strides [%kb, %kh, 1, 128]
// CHECK: %[[NB:.*]] = arith.ceildivsi %SQ, %c128
// CHECK: tile.program_id z
// CHECK: arith.muli %H, %B
// CHECK: arith.divsi %c65536{{.*}}, %{{.*}} : i32
// CHECK: %[[IN:.*]] = arith.remsi %{{.*}}, %{{.*}} : i32
// CHECK: %[[RANK:.*]] = arith.divsi %[[IN]], %{{.*}} : i32
// CHECK: %[[LASTB:.*]] = arith.subi %[[NB]], %c1
// CHECK: arith.subi %[[LASTB]], %[[RANK]]
// CHECK: arith.remsi %{{.*}}, %H
// CHECK: arith.divsi %{{.*}}, %H
// CHECK: arith.divsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.minsi
// CHECK: %[[FULL:.*]] = arith.muli %{{.*}}, %c64_i32
// Q is loaded once, before the key loops.
// CHECK-NOT: tile.local_alloc
// CHECK-NOT: tile.async_copy
// CHECK: %[[Q:.*]] = tile.load %{{.*}} -> tensor<128x128xbf16>
// CHECK: %[[U:.*]]:3 = scf.for %{{.*}} = %c0_i32{{[_0-9]*}} to %[[FULL]] step %c64_i32{{[_0-9]*}} {{.*}} -> (tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>)
// CHECK-NOT: arith.select
// CHECK:   tile.load %[[KT]]{{.*}} -> tensor<128x64xbf16>
// CHECK:   tile.dot %[[Q]], {{.*}} -> tensor<128x64xf32>
// CHECK-NOT: arith.select
// CHECK:   tile.reduce max
// CHECK-NOT: arith.select
// CHECK:   tile.dot {{.*}} -> tensor<128x128xf32>
// CHECK: } {tile.masks_bounded, tile.num_stages = 2 : i64}
// CHECK: scf.for %{{.*}} = %[[FULL]] to %{{.*}} step %c64_i32{{[_0-9]*}} iter_args(%{{.*}} = %[[U]]#0, %{{.*}} = %[[U]]#1, %{{.*}} = %[[U]]#2)
// CHECK:   tile.load %[[KT]]{{.*}} -> tensor<128x64xbf16>
// CHECK:   tile.dot %[[Q]], {{.*}} -> tensor<128x64xf32>
// CHECK:   arith.cmpi sle
// CHECK:   arith.select
// CHECK:   tile.reduce max
// CHECK:   math.exp2
// CHECK:   tile.reduce sum
// CHECK:   tile.dot {{.*}} -> tensor<128x128xf32>
// CHECK: } {tile.masks_bounded, tile.num_stages = 2 : i64}
// The output: one division per row, a multiply per element.
// CHECK: arith.divf %{{.*}}, %{{.*}} : tensor<128xf32>
// CHECK-NOT: arith.divf
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<128x128xf32>
// CHECK: tile.store {{.*}} : tensor<128x128xbf16>
// CHECK: math.log2
// CHECK: tile.store {{.*}} : tensor<128xf32>
// CHECK-NOT: tile.attention
// CHECK-NOT: tile.hand_scheduled
tile.kernel @attention(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                       %O: !tile.ptr<bf16>, %L: !tile.ptr<f32>, %B: i32, %H: i32,
                       %HK: i32, %SQ: i32, %SK: i32, %sq: i32, %sh: i32, %kb: i32,
                       %kh: i32, %lb: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %L[%B, %H, %SQ] strides [%lb, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) causal
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

// With `q_in_smem = 0` Q's tile is the dot operand itself (registers), and
// the schedule tells tile-pipeline to keep it there.

// CHECK-LABEL: tile.kernel @attention_q_in_registers
// CHECK-SAME: grid(ceildiv(%S, 64), 4, %B)
// CHECK-SAME: operands_in_smem = false
// CHECK-NOT: tile.hand_scheduled
// CHECK-NOT: tile.local_alloc
// CHECK: %[[TQ:.*]] = tile.load {{.*}} -> tensor<64x128xbf16>
// CHECK-NOT: tile.local_load
// CHECK: tile.dot %[[TQ]], {{.*}} -> tensor<64x64xf32>
tile.kernel @attention_q_in_registers(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %q, %q config <block_m = 64, block_n = 64, q_in_smem = false>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// With `split_loops = 0` (the default at head dim 256) one loop covers all
// key blocks; those from the first partly visible one on take the mask in a
// branch.

// CHECK-LABEL: tile.kernel @attention_one_loop
// CHECK: %[[FULL:.*]] = arith.muli %{{.*}}, %c64_i32
// CHECK: scf.for %[[N:.*]] = %c0_i32{{[_0-9]*}} to %{{.*}} step %c64_i32
// CHECK:   tile.dot
// CHECK:   %[[EDGE:.*]] = arith.cmpi sge, %[[N]], %[[FULL]]
// CHECK:   scf.if %[[EDGE]] -> (tensor<128x64xf32>) {
// CHECK:     arith.cmpi sle
// CHECK:     arith.select
// CHECK:   } else {
// CHECK:   tile.reduce max
// CHECK:   tile.dot
// CHECK: } {tile.masks_bounded, tile.num_stages = 2 : i64}
// CHECK-NOT: scf.for
// CHECK: tile.store
tile.kernel @attention_one_loop(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 64] strides [%S, %S, 64, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %q, %q causal config <split_loops = false>
      : !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// `stages` sets the depth of the K/V ring of both loops.

// CHECK-LABEL: tile.kernel @attention_stages
// CHECK: } {tile.masks_bounded, tile.num_stages = 3 : i64}
// CHECK: } {tile.masks_bounded, tile.num_stages = 3 : i64}
tile.kernel @attention_stages(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 64] strides [%S, %S, 64, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %q, %q config <stages = 3>
      : !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}
