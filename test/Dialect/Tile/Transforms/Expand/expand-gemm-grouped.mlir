// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_80}))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s --check-prefix=SM90A

// A grouped tile.gemm (group_offsets) becomes one block program for every
// group. The grid bounds the groups' row tiles: ceildiv(M, BM) plus one
// partial tile per group, times the column tiles. A program scans the
// offsets with tile.load_scalar to find its group (the one whose tiles hold
// pid), the group's first row and its row count, and its tile within the
// group; B's loads take the group as matrix index, A's and C's the group's
// rows. The store keeps to the group's rows, and an empty tile (pid past
// every group's tiles) runs no K step.

// CHECK-LABEL: tile.kernel @gemm_grouped
// CHECK-SAME: grid((ceildiv(%M, 128) + %E) * ceildiv(%N, 256)) warps(8)
// CHECK: %[[PID:.+]] = tile.program_id x
// CHECK: %[[TN:.+]] = arith.ceildivsi %N, %{{.+}} : i32
// CHECK: %[[SCAN:.+]]:6 = scf.for %[[G:.+]] = %{{.+}} to %E step %{{.+}} iter_args(%[[START:.+]] = %{{.+}}, %[[BEFORE:.+]] = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}})
// CHECK:   %[[END:.+]] = tile.load_scalar %{{.+}}[%[[G]]] : !tile.view<?xi32, strides = [1]> -> i32
// CHECK:   %[[ROWS:.+]] = arith.maxsi
// CHECK:   %[[TM:.+]] = arith.ceildivsi %[[ROWS]], %{{.+}} : i32
// CHECK:   %[[TILES:.+]] = arith.muli %[[TM]], %[[TN]] : i32
// CHECK:   %[[LOCAL:.+]] = arith.subi %[[PID]], %[[BEFORE]] : i32
// CHECK:   %[[HIT:.+]] = arith.cmpi ult, %[[LOCAL]], %[[TILES]] : i32
// CHECK:   %[[NEXT:.+]] = arith.addi %[[BEFORE]], %[[TILES]] : i32
// CHECK:   %[[GSEL:.+]] = arith.select %[[HIT]], %[[G]], %{{.+}} : i32
// CHECK:   scf.yield %[[END]], %[[NEXT]], %[[GSEL]],
// CHECK: %[[EMPTY:.+]] = arith.cmpi eq, %[[SCAN]]#4, %{{.+}} : i32
// CHECK: %[[M0:.+]] = arith.addi %[[SCAN]]#3, %{{.+}} : i32
// CHECK: %[[END:.+]] = arith.addi %[[SCAN]]#3, %[[SCAN]]#4 : i32
// CHECK: %[[KEND:.+]] = arith.select %[[EMPTY]], %{{.+}}, %K : i32
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[KEND]] step
// CHECK:   tile.load %{{.+}}[%[[M0]], %{{.+}}] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x32xbf16>
// CHECK:   tile.load %{{.+}}[%[[SCAN]]#2, %{{.+}}, %{{.+}}] : !tile.view<?x?x?xbf16, strides = [?, 1, ?]> -> tensor<32x256xbf16>
// CHECK:   tile.dot
// CHECK: %[[ROWIDX:.+]] = arith.addi %{{.+}}, %{{.+}} : tensor<128xi32>
// CHECK: %[[LIMIT:.+]] = tile.splat %[[END]] : tensor<128xi32>
// CHECK: %[[IN:.+]] = arith.cmpi slt, %[[ROWIDX]], %[[LIMIT]] : tensor<128xi32>
// CHECK: %[[MASK:.+]] = tile.broadcast %{{.+}} : tensor<128x1xi1> -> tensor<128x256xi1>
// CHECK: tile.store %{{.+}}, %{{.+}}[%[[M0]], %{{.+}}] mask(%[[MASK]] : tensor<128x256xi1>) : tensor<128x256xbf16>
// CHECK-NOT: tile.gemm
// The sm_90a kernel: warp-specialized and persistent over every tile of
// every group, without the TMA store (a masked epilogue) or clusters.
// SM90A-LABEL: tile.kernel @gemm_grouped
// SM90A-SAME: grid((ceildiv(%M, 128) + %E) * ceildiv(%N, 256))
// SM90A-SAME: warp_specialize = true
// SM90A-SAME: persistent = true
// SM90A-SAME: tma_store = false
// SM90A: tile.load_scalar
// SM90A: tile.load %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] {{.*}} -> tensor<64x256xbf16>
// SM90A: tile.store {{.*}} mask(
tile.kernel @gemm_grouped(%A: !tile.ptr<bf16>, %Bm: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %offs: !tile.ptr<i32>,
                          %E: i32, %M: i32, %N: i32, %K: i32, %sb: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %Bm[%E, %K, %N] strides [%sb, 1, %K] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offs[%E] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?x?xbf16, strides = [?, 1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// A constant group count bounds the grid as a parameter does.
// CHECK-LABEL: tile.kernel @gemm_grouped_static
// CHECK-SAME: grid((ceildiv(%M, 128) + 8) * ceildiv(%N, 256))
// SM90A-LABEL: tile.kernel @gemm_grouped_static
tile.kernel @gemm_grouped_static(%A: !tile.ptr<bf16>, %Bm: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %offs: !tile.ptr<i32>,
                                 %M: i32, %N: i32, %K: i32, %ldb: i32, %sb: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %Bm[8, %K, %N] strides [%sb, %ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offs[8] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<8xi32, strides = [1]>) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<8x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// Decode-time experts (a few tokens per group) run transposed (swap_ab):
// each program computes Eᵀ's tile of 64 weights x 16 tokens, Wᵀ[g] Xᵀ, on
// transposed views. The groups split the tokens, now the product's
// columns: the scan counts ceildiv(rows, 16) x ceildiv(N, 64) tiles per
// group, the group indexes Bᵀ's loads, and the store keeps to the group's
// tokens along the tile's columns.
// CHECK-LABEL: tile.kernel @gemm_grouped_swap
// CHECK-SAME: grid((ceildiv(%M, 16) + %E) * ceildiv(%N, 64)) warps(4)
// CHECK-DAG: %[[WT:.+]] = tile.make_view %Bm[%E, %N, %K] strides [%sb, %K, 1]
// CHECK-DAG: %[[XT:.+]] = tile.make_view %A[%K, %M] strides [1, %K]
// CHECK-DAG: %[[YT:.+]] = tile.make_view %C[%N, %M] strides [1, %N]
// CHECK: %[[SCAN:.+]]:6 = scf.for
// CHECK:   %[[ROWS:.+]] = arith.maxsi
// CHECK:   arith.ceildivsi %[[ROWS]], %c16_i32
// CHECK: %[[T0:.+]] = arith.muli %{{.+}}, %c16_i32
// CHECK: %[[W0:.+]] = arith.muli %{{.+}}, %c64_i32
// CHECK: %[[TOK:.+]] = arith.addi %[[SCAN]]#3, %[[T0]]
// CHECK: %[[END:.+]] = arith.addi %[[SCAN]]#3, %[[SCAN]]#4
// CHECK: scf.for
// CHECK:   tile.load %[[WT]][%[[SCAN]]#2, %[[W0]], %{{.+}}] {{.*}} -> tensor<64x128xbf16>
// CHECK:   tile.load %[[XT]][%{{.+}}, %[[TOK]]] {{.*}} -> tensor<128x16xbf16>
// CHECK: %[[COLS:.+]] = arith.addi %{{.+}}, %{{.+}} : tensor<16xi32>
// CHECK: %[[IN:.+]] = arith.cmpi slt, %[[COLS]], %{{.+}} : tensor<16xi32>
// CHECK: tile.expand_dims %[[IN]] axis = 0
// CHECK: tile.store %{{.+}}, %[[YT]][%[[W0]], %[[TOK]]] mask(%{{.+}} : tensor<64x16xi1>)
// SM90A-LABEL: tile.kernel @gemm_grouped_swap
// SM90A-SAME: grid((ceildiv(%M, 16) + %E) * ceildiv(%N, 64)) warps(4)
// SM90A-SAME: warp_specialize = true
// SM90A: tile.dot {{.*}} : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
tile.kernel @gemm_grouped_swap(%A: !tile.ptr<bf16>, %Bm: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %offs: !tile.ptr<i32>,
                               %E: i32, %M: i32, %N: i32, %K: i32, %sb: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %Bm[%E, %K, %N] strides [%sb, 1, %K] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offs[%E] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>)
      config <swap_ab = true, block_m = 16, block_n = 64, block_k = 128, warps = 4, tma_store = false>
    : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?x?xbf16, strides = [?, 1, ?]>,
      !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// Static sizes take the compiler's grouped rule (getGroupedGemmShapeConfig):
// 128 rows over 8 groups, 16 tokens per expert on average, run transposed
// on 16-token tiles ((8 + 8) x 224 programs), as tilec.grouped_gemm
// dispatches them at run time.
// CHECK-LABEL: tile.kernel @gemm_grouped_decode_static
// CHECK-SAME: grid(3584) warps(4)
// CHECK: tile.dot {{.*}} : tensor<64x64xbf16>, tensor<64x16xbf16> -> tensor<64x16xf32>
// SM90A-LABEL: tile.kernel @gemm_grouped_decode_static
// SM90A-SAME: grid(3584) warps(4)
// SM90A: tile.dot {{.*}} : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
tile.kernel @gemm_grouped_decode_static(%A: !tile.ptr<bf16>, %Bm: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %offs: !tile.ptr<i32>) {
  %a = tile.make_view %A[128, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %b = tile.make_view %Bm[8, 4096, 14336] strides [58720256, 1, 4096] : !tile.ptr<bf16>
  %c = tile.make_view %C[128, 14336] strides [14336, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offs[8] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<8xi32, strides = [1]>)
    : !tile.view<128x4096xbf16, strides = [4096, 1]>, !tile.view<8x4096x14336xbf16, strides = [58720256, 1, 4096]>,
      !tile.view<128x14336xbf16, strides = [14336, 1]>
  tile.return
}

// -----

// 1024 rows over 8 groups (128 per expert) keep the untransposed tiles of
// the stacked rows (8 x 56 tiles of 128 x 256 fill the SMs).
// CHECK-LABEL: tile.kernel @gemm_grouped_prefill_static
// CHECK-SAME: grid(896)
// SM90A-LABEL: tile.kernel @gemm_grouped_prefill_static
// SM90A-SAME: grid(896)
// SM90A-NOT: tensor<128x16xbf16>
tile.kernel @gemm_grouped_prefill_static(%A: !tile.ptr<bf16>, %Bm: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %offs: !tile.ptr<i32>) {
  %a = tile.make_view %A[1024, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %b = tile.make_view %Bm[8, 4096, 14336] strides [58720256, 1, 4096] : !tile.ptr<bf16>
  %c = tile.make_view %C[1024, 14336] strides [14336, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offs[8] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<8xi32, strides = [1]>)
    : !tile.view<1024x4096xbf16, strides = [4096, 1]>, !tile.view<8x4096x14336xbf16, strides = [58720256, 1, 4096]>,
      !tile.view<1024x14336xbf16, strides = [14336, 1]>
  tile.return
}

// -----

// A dynamic group count: the rule sees the stacked rows only (128 rows:
// sm_90a's 128-column tiles), never a transposed class.
// CHECK-LABEL: tile.kernel @gemm_grouped_dynamic_groups
// CHECK-SAME: grid((%E + 1) * 56)
// SM90A-LABEL: tile.kernel @gemm_grouped_dynamic_groups
// SM90A-SAME: grid((%E + 1) * 112)
// SM90A: tile.dot {{.*}} : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
tile.kernel @gemm_grouped_dynamic_groups(%A: !tile.ptr<bf16>, %Bm: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %offs: !tile.ptr<i32>, %E: i32) {
  %a = tile.make_view %A[128, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %b = tile.make_view %Bm[%E, 4096, 14336] strides [58720256, 1, 4096] : !tile.ptr<bf16>
  %c = tile.make_view %C[128, 14336] strides [14336, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offs[%E] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>)
    : !tile.view<128x4096xbf16, strides = [4096, 1]>, !tile.view<?x4096x14336xbf16, strides = [58720256, 1, 4096]>,
      !tile.view<128x14336xbf16, strides = [14336, 1]>
  tile.return
}
