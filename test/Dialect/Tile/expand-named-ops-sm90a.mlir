// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s

// On sm_90a tile.gemm becomes a persistent, warp-specialized block program:
// tensor maps of A and B, a 3-stage operand ring with full/empty mbarriers,
// wgmma consumers, and a TMA producer warpgroup. A bf16 output goes through
// a 128-byte swizzled staging tile and a TMA store (C gets the alignment
// facts TMA needs); the consumers only wait for the previous tile's store
// before rewriting the staging tile, and once more before exiting. TMA
// writes whole 16-byte chunks of a row, so N must be a multiple of 8.

// CHECK-LABEL: tile.kernel @gemm_tma_store
// CHECK-SAME: %C: !tile.ptr<bf16> {tile.align = 16 : i64}
// CHECK-SAME: %N: i32 {tile.divisibility = 8 : i64}
// CHECK-SAME: %ldc: i32 {tile.divisibility = 8 : i64}
// CHECK-SAME: persistent
// CHECK: %[[CV:[0-9]+]] = tile.make_view %C
// CHECK: %[[TMC:[0-9]+]] = tile.make_tensor_map %[[CV]] : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #{{.*}}>
// CHECK: %[[CBUF:[0-9]+]] = tile.local_alloc : !tile.smem<1x128x256xbf16,
// CHECK: tile.mbarrier_alloc
// CHECK: tile.warp_specialize
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK:       tile.mbarrier_wait
// CHECK:       tile.dot
// CHECK:       tile.warpgroup_wait 1
// CHECK:     tile.warpgroup_wait 0
// CHECK:     %[[OUT:[0-9]+]] = arith.truncf {{.*}} to tensor<128x256xbf16>
// CHECK:     tile.tma_store_wait 0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store %[[OUT]], %[[CBUF]][%[[STAGE:.*]]] :
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.tma_store %[[TMC]][%{{.*}}, %{{.*}}], %[[CBUF]][%[[STAGE]]]
// CHECK:   }
// CHECK: tile.tma_store_wait 0
// CHECK: partition warps(4) regs(40)
// CHECK: tile.tma_load
tile.kernel @gemm_tma_store(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                            %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
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
// CHECK-NOT: tile.tma_store
// CHECK: tile.store {{.*}} : tensor<128x256xbf16>
tile.kernel @gemm_no_tma_store(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                               %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config {tma_store = 0} : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// A constant N that is not a multiple of 8 keeps the plain epilogue.

// CHECK-LABEL: tile.kernel @gemm_ragged_constant_n
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
