// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_80}))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s --check-prefix=SM90A

// A batched tile.gemm (3-D views [batch, rows, cols]) becomes one block
// program for the whole batch: the grid is the tiles of one matrix times
// the batch, a program's matrix is pid / tiles and its tile pid % tiles,
// and every load and store leads with the matrix index.

// CHECK-LABEL: tile.kernel @gemm_batched
// CHECK-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256) * %B) warps(8)
// CHECK: %[[PID:.+]] = tile.program_id x
// CHECK-DAG: %[[TM:.+]] = arith.ceildivsi %M, %{{.+}} : i32
// CHECK-DAG: %[[TN:.+]] = arith.ceildivsi %N, %{{.+}} : i32
// CHECK: %[[TILES:.+]] = arith.muli %[[TM]], %[[TN]] : i32
// CHECK: %[[MAT:.+]] = arith.divsi %[[PID]], %[[TILES]] : i32
// CHECK: %[[TILE:.+]] = arith.remsi %[[PID]], %[[TILES]] : i32
// CHECK: scf.for
// CHECK:   tile.load %{{.+}}[%[[MAT]], %{{.+}}, %{{.+}}] {{.*}} -> tensor<128x32xbf16>
// CHECK:   tile.load %{{.+}}[%[[MAT]], %{{.+}}, %{{.+}}] {{.*}} -> tensor<32x256xbf16>
// CHECK:   tile.dot
// CHECK: tile.load %{{.+}}[%{{.+}}] {{.*}} -> tensor<256xf32>
// CHECK: tile.store %{{.+}}, %{{.+}}[%[[MAT]], %{{.+}}, %{{.+}}] : tensor<128x256xbf16>
// CHECK-NOT: tile.gemm
// The sm_90a kernel: warp-specialized and persistent, without the TMA
// store (a 2-D epilogue) or clusters.
// SM90A-LABEL: tile.kernel @gemm_batched
// SM90A-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256) * %B)
// SM90A-SAME: warp_specialize = true
// SM90A-SAME: persistent = true
// SM90A-SAME: tma_store = false
// SM90A: tile.load %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] {{.*}} -> tensor<128x64xbf16>
tile.kernel @gemm_batched(%A: !tile.ptr<bf16>, %Bm: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %bias: !tile.ptr<f32>,
                          %B: i32, %M: i32, %N: i32, %K: i32, %sa: i32, %sb: i32, %sc: i32) {
  %a = tile.make_view %A[%B, %M, %K] strides [%sa, %K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %Bm[%B, %K, %N] strides [%sb, %N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%B, %M, %N] strides [%sc, %N, 1] : !tile.ptr<bf16>
  %v = tile.make_view %bias[%N] strides [1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c bias(%v) : !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// Static sizes and a column-major B (K-major, as fp8 needs): a constant
// batch multiplies the grid (sm_80: 2 x 2 tiles of 128 x 256, times 6).
// On sm_90a the shape rule sees the matrices stacked (1536 x 512 x 128),
// whose 24 tiles of 128 x 256 would leave SMs idle: 64-column tiles, 96
// programs.
// CHECK-LABEL: tile.kernel @gemm_batched_static
// CHECK-SAME: grid(24)
// SM90A-LABEL: tile.kernel @gemm_batched_static
// SM90A-SAME: grid(96)
tile.kernel @gemm_batched_static(%A: !tile.ptr<f8E4M3FN>, %Bm: !tile.ptr<f8E4M3FN>, %C: !tile.ptr<bf16>) {
  %a = tile.make_view %A[6, 256, 128] strides [32768, 128, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %Bm[6, 128, 512] strides [65536, 1, 128] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[6, 256, 512] strides [131072, 512, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<6x256x128xf8E4M3FN, strides = [32768, 128, 1]>, !tile.view<6x128x512xf8E4M3FN, strides = [65536, 1, 128]>, !tile.view<6x256x512xbf16, strides = [131072, 512, 1]>
  tile.return
}
