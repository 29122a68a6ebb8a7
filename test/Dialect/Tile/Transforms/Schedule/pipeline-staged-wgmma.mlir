// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile-attach-target{chip=sm_90a},gpu.module(tile.kernel(canonicalize,tile-assign-layouts,loop-invariant-code-motion,tile-tma-pipeline,tile-pipeline,tile-prefetch-loads,tile-async-wgmma)))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile-attach-target{chip=sm_90a},gpu.module(tile.kernel(canonicalize,tile-assign-layouts,loop-invariant-code-motion,tile-tma-pipeline,tile-pipeline,tile-prefetch-loads,tile-async-wgmma)))' --remarks-filter=tile-async-wgmma --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=REMARK

// A GEMM loop over views not known to be 16-byte aligned (tilec.gemm's
// any-strides variant): no ring brings A or B, so tile-pipeline stages both
// tiles of an iteration through two-stage buffers (kStagingBufferAttr), one
// stage per iteration parity, behind one wait and barrier; the loads are
// issued an iteration ahead (tile-prefetch-loads). The wait before the
// stores lets the previous iteration's group run on (1 pending), so
// tile-async-wgmma keeps one group in flight: the tensor cores work on
// iteration k while the threads store the tiles of k + 1.

// REMARK: remark: [Passed] InFlight | Category:tile-async-wgmma | Remark="one wgmma group stays in flight across iterations"

// CHECK-LABEL: tile.kernel @staged_gemm
// CHECK-DAG: %[[BA:.+]] = tile.local_alloc {tile.staging_buffer} : !tile.smem<2x128x64xbf16, #[[SW:shared[0-9]*]]>
// CHECK-DAG: %[[BB:.+]] = tile.local_alloc {tile.staging_buffer} : !tile.smem<2x64x128xbf16, #[[SW]]>
// CHECK: scf.for %[[K:[^ ]+]] = %c0_i32 to %K step %c64_i32 iter_args(%{{[^ ]+}} = %{{[^,]+}}, %[[TA:[^ ]+]] = %{{[^,]+}}, %[[TB:[^ ]+]] = %{{[^ ]+}})
// CHECK:   tile.load
// CHECK:   tile.load
// CHECK:   %[[N:.+]] = arith.subi %[[K]], %c0_i32 : i32
// CHECK:   %[[IT:.+]] = arith.divui %[[N]], %c64_i32 : i32
// CHECK:   %[[S:.+]] = arith.andi %[[IT]], %{{.+}} : i32
// CHECK:   tile.warpgroup_wait 1
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store %[[TA]], %[[BA]][%[[S]]]
// CHECK-NEXT: tile.local_store %[[TB]], %[[BB]][%[[S]]]
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[A:.+]] = tile.local_load %[[BA]][%[[S]]]
// CHECK-NEXT: %[[B:.+]] = tile.local_load %[[BB]][%[[S]]]
// CHECK-NEXT: %[[D:.+]] = tile.dot %[[A]], %[[B]]
// CHECK-NEXT: %[[W:.+]] = tile.warpgroup_wait 1, %[[D]]
// CHECK: scf.yield %[[W]]
// CHECK: tile.warpgroup_wait 0
tile.kernel @staged_gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>,
    %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32) grid(1) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %r, %c[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// A tile staged once, before the loop that reads it (loop-invariant): one
// stage, written after every wgmma group retired.

// CHECK-LABEL: tile.kernel @staged_once
// CHECK: %[[BUF:.+]] = tile.local_alloc : !tile.smem<1x64x128xbf16
// CHECK: tile.warpgroup_wait 0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store %{{.+}}, %[[BUF]][%{{.+}}]
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK: scf.for
tile.kernel @staged_once(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16>,
    %C: !tile.ptr<f32>, %K: i32 {tile.divisibility = 64 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %a = tile.make_view %A[64, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[64, 128] strides [128, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[64, 128] strides [128, 1] : !tile.ptr<f32>
  %two = arith.constant dense<2.0> : tensor<64x128xbf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<64x128xbf16, strides = [128, 1]> -> tensor<64x128xbf16>
  %bb = arith.mulf %tb, %two : tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<64x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %d = tile.dot %ta, %bb, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<64x128xf32, strides = [128, 1]>
  tile.return
}
