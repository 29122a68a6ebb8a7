// RUN: tilec-opt %s -split-input-file --tile-pipeline=chip=sm_80 | FileCheck %s

// Loads feeding dot operands become a 3-stage cp.async ring: swizzled
// buffers, a prologue of S-1 commit groups, a loop that waits for the
// current stage, refills the freed one and reads operands K step by K step
// (the first step of the next stage fetched at the end), and a drain. The
// loop is versioned: interior programs copy without bounds tests.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>

// CHECK-DAG: #[[$SA:.+]] = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
// CHECK-DAG: #[[$SB:.+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// CHECK-LABEL: tile.kernel @gemm_loop
// CHECK: %[[BA:.+]] = tile.local_alloc : !tile.smem<3x64x32xbf16, #[[$SA]]>
// CHECK: %[[BB:.+]] = tile.local_alloc : !tile.smem<3x32x128xbf16, #[[$SB]]>
// CHECK: scf.if %{{.*}} -> (tensor<64x128xf32, #mma>) {
// CHECK-COUNT-2: tile.async_copy {{.*}} unchecked
// CHECK: tile.async_commit
// CHECK-COUNT-2: tile.async_copy {{.*}} unchecked
// CHECK: tile.async_commit
// CHECK: tile.async_wait 1
// CHECK: tile.barrier
// CHECK: tile.local_load %[[BA]][%{{.*}}] : !tile.smem<3x64x32xbf16, #[[$SA]]> -> tensor<64x16xbf16, #dot_op>
// The second step's operands are fetched first; the copies for the stage
// S - 1 ahead go after the first step's mma, before the stage's wait.
// CHECK: scf.for
// CHECK-NOT: tile.async_copy
// CHECK:   tile.local_load %[[BA]][%{{.*}}] offsets [0, 16]
// CHECK:   tile.local_load %[[BB]][%{{.*}}] offsets [16, 0]
// CHECK:   tile.dot {{.*}} : tensor<64x16xbf16, #dot_op>, tensor<16x128xbf16, #dot_op1>
// CHECK-NEXT: scf.if
// CHECK-COUNT-2: tile.async_copy {{.*}} unchecked
// CHECK:   tile.async_commit
// CHECK-NEXT: tile.async_wait 1
// CHECK:   tile.barrier
// CHECK:   tile.local_load %[[BA]]
// CHECK:   tile.dot
// CHECK: } else {
// CHECK-NOT: unchecked
// CHECK: tile.async_copy
// CHECK: tile.async_wait 0
// CHECK: tile.barrier
tile.kernel @gemm_loop(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64},
                       %M: i32, %N: i32, %K: i32, %lda: i32 {tile.divisibility = 8 : i64},
                       %ldb: i32 {tile.divisibility = 8 : i64}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %va = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x32xbf16, #blocked>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<32x128xbf16, #blocked1>
    %a = tile.convert_layout %ta : tensor<64x32xbf16, #blocked> -> tensor<64x32xbf16, #a>
    %b = tile.convert_layout %tb : tensor<32x128xbf16, #blocked1> -> tensor<32x128xbf16, #b>
    %d = tile.dot %a, %b, %acc : tensor<64x32xbf16, #a>, tensor<32x128xbf16, #b> -> tensor<64x128xf32, #mma>
    scf.yield %d : tensor<64x128xf32, #mma>
  } {tile.num_stages = 3 : i64}
  tile.return
}

// -----

// Without known 16-byte alignment (no tile.align on the pointer) the load
// is left alone.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
// CHECK-LABEL: tile.kernel @unaligned
// CHECK-NOT: tile.async_copy
// CHECK: tile.load
tile.kernel @unaligned(%A: !tile.ptr<bf16>, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %va = tile.make_view %A[64, %K] strides [64, 1] : !tile.ptr<bf16>
  %b = arith.constant dense<1.0> : tensor<32x64xbf16, #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<64x?xbf16, strides = [64, 1]> -> tensor<64x32xbf16, #blocked>
    %a = tile.convert_layout %ta : tensor<64x32xbf16, #blocked> -> tensor<64x32xbf16, #a>
    %d = tile.dot %a, %b, %acc : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  tile.return
}

// -----

// A loop meant for the ring (tile.num_stages) whose loads stay synchronous
// waits for the copies committed before it (e.g. attention's Q, which the
// ring's first wait would have covered) before it runs.
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// CHECK-LABEL: tile.kernel @unaligned_after_copy
// CHECK: tile.async_copy
// CHECK-NEXT: tile.async_commit
// CHECK: tile.async_wait 0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: scf.for
// CHECK: tile.load
tile.kernel @unaligned_after_copy(%A: !tile.ptr<bf16>, %Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %vq = tile.make_view %Q[64, 64] strides [64, 1] : !tile.ptr<bf16>
  %bq = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
  tile.async_copy %vq[%c0, %c0], %bq[%c0] : !tile.view<64x64xbf16, strides = [64, 1]>, !tile.smem<1x64x64xbf16, #sw>
  tile.async_commit
  %va = tile.make_view %A[64, %K] strides [64, 1] : !tile.ptr<bf16>
  %b = arith.constant dense<1.0> : tensor<32x64xbf16, #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<64x?xbf16, strides = [64, 1]> -> tensor<64x32xbf16, #blocked>
    %a = tile.convert_layout %ta : tensor<64x32xbf16, #blocked> -> tensor<64x32xbf16, #a>
    %d = tile.dot %a, %b, %acc : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.num_stages = 2 : i64}
  tile.return
}

// -----

// fp8 (sm_89's mma.sync m16n8k32): 16-byte chunks are 16 elements, rows of
// 64 bytes swizzle 2 per phase; B is stored N x K (contiguous along K, the
// layout m16n8k32 reads without a transpose). The dot is read in 32-wide K
// steps, one mma.sync K each.
#blocked = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [16, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>

// CHECK-DAG: #[[$SA8:.+]] = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]>
// CHECK-DAG: #[[$SB8:.+]] = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]>
// CHECK-LABEL: tile.kernel @gemm_loop_fp8
// CHECK: %[[BA:.+]] = tile.local_alloc : !tile.smem<3x64x64xf8E4M3FN, #[[$SA8]]>
// CHECK: %[[BB:.+]] = tile.local_alloc : !tile.smem<3x64x128xf8E5M2, #[[$SB8]]>
// CHECK: tile.local_load %[[BA]][%{{.*}}] : !tile.smem<3x64x64xf8E4M3FN, #[[$SA8]]> -> tensor<64x32xf8E4M3FN, #dot_op>
// CHECK: scf.for
// CHECK:   tile.local_load %[[BA]][%{{.*}}] offsets [0, 32]
// CHECK:   tile.local_load %[[BB]][%{{.*}}] offsets [32, 0]
// CHECK:   tile.dot {{.*}} : tensor<64x32xf8E4M3FN, #dot_op>, tensor<32x128xf8E5M2, #dot_op1>
tile.kernel @gemm_loop_fp8(%A: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %B: !tile.ptr<f8E5M2> {tile.align = 16 : i64},
                           %M: i32, %N: i32, %K: i32, %lda: i32 {tile.divisibility = 16 : i64},
                           %ldb: i32 {tile.divisibility = 16 : i64}) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %vb = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f8E5M2>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<64x64xf8E4M3FN, #blocked>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xf8E5M2, strides = [1, ?]> -> tensor<64x128xf8E5M2, #blocked1>
    %a = tile.convert_layout %ta : tensor<64x64xf8E4M3FN, #blocked> -> tensor<64x64xf8E4M3FN, #a>
    %b = tile.convert_layout %tb : tensor<64x128xf8E5M2, #blocked1> -> tensor<64x128xf8E5M2, #b>
    %d = tile.dot %a, %b, %acc : tensor<64x64xf8E4M3FN, #a>, tensor<64x128xf8E5M2, #b> -> tensor<64x128xf32, #mma>
    scf.yield %d : tensor<64x128xf32, #mma>
  } {tile.num_stages = 3 : i64}
  tile.return
}

// -----

// An fp8 row stride known to be a multiple of 8 elements is 8 bytes: not
// enough for 16-byte cp.async chunks, so the load is left alone.
#blocked = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
// CHECK-LABEL: tile.kernel @fp8_stride_8_bytes
// CHECK-NOT: tile.async_copy
// CHECK: tile.load
tile.kernel @fp8_stride_8_bytes(%A: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %M: i32, %K: i32,
                                %lda: i32 {tile.divisibility = 8 : i64}) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %b = arith.constant dense<1.0> : tensor<64x64xf8E4M3FN, #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<64x64xf8E4M3FN, #blocked>
    %a = tile.convert_layout %ta : tensor<64x64xf8E4M3FN, #blocked> -> tensor<64x64xf8E4M3FN, #a>
    %d = tile.dot %a, %b, %acc : tensor<64x64xf8E4M3FN, #a>, tensor<64x64xf8E4M3FN, #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.num_stages = 3 : i64}
  tile.return
}
