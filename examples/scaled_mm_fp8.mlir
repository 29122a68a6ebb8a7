// torch._scaled_mm as a named op: C = alpha * (A * B) with A (M x K,
// row-major) and B (K x N, column-major: stored N x K) in fp8, f32
// accumulation, bf16 output, for any M, N, K (ragged edges are masked). The
// per-tensor scales are tile.gemm's alpha = scale_a * scale_b (the named op
// is the kernel's only computation: the caller multiplies them).
//
// tile-expand-named-ops writes the block program of tile.gemm with K steps
// of the same bytes as bf16 (128 fp8 on sm_90a: wgmma m64n256k32 on a TMA
// ring, warp-specialized and persistent; 64 on sm_89: mma.sync m16n8k32).
// The kernel requires 16-byte aligned A and B and leading dimensions that are
// multiples of 16 bytes (checked by the runtime). FP8 needs sm_89 or later.
tile.kernel @scaled_mm_fp8(%A: !tile.ptr<f8E4M3FN>, %B: !tile.ptr<f8E4M3FN>, %C: !tile.ptr<bf16>,
                           %alpha: f32,
                           %M: i32, %N: i32, %K: i32,
                           %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c alpha(%alpha)
      : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// Row-wise scales (torch._scaled_mm with scale_a of shape M x 1 and scale_b
// of shape 1 x N): C[m, n] = scale_a[m] * scale_b[n] * (A * B)[m, n], the
// scales f32 vectors read once per output tile in the epilogue.
tile.kernel @scaled_mm_fp8_rowwise(%A: !tile.ptr<f8E4M3FN>, %B: !tile.ptr<f8E4M3FN>, %C: !tile.ptr<bf16>,
                                   %SA: !tile.ptr<f32>, %SB: !tile.ptr<f32>,
                                   %M: i32, %N: i32, %K: i32,
                                   %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %sa = tile.make_view %SA[%M] strides [1] : !tile.ptr<f32>
  %sb = tile.make_view %SB[%N] strides [1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c scale_a(%sa : !tile.view<?xf32, strides = [1]>)
      scale_b(%sb : !tile.view<?xf32, strides = [1]>)
      : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// Block scales (DeepGEMM's recipe; torch._scaled_mm's 1x128 / 128x128
// scaling): one f32 scale per row of A and 128-wide K block, stored
// [ceildiv(K, 128), M] (M contiguous), and one per 128x128 block of B,
// stored [ceildiv(N, 128), ceildiv(K, 128)]:
//   C[m, n] = sum_kb SA[kb, m] * SB[n / 128, kb] * (A * B over block kb)[m, n]
// Each K step's product is scaled and promoted to the f32 sum; 128-wide
// (or narrower) N tiles. KB = ceildiv(K, 128) and NB = ceildiv(N, 128) are
// parameters (the kernel holds only the GEMM).
tile.kernel @scaled_mm_fp8_blockwise(%A: !tile.ptr<f8E4M3FN>, %B: !tile.ptr<f8E4M3FN>, %C: !tile.ptr<bf16>,
                                     %SA: !tile.ptr<f32>, %SB: !tile.ptr<f32>,
                                     %M: i32, %N: i32, %K: i32, %KB: i32, %NB: i32,
                                     %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %sa = tile.make_view %SA[%KB, %M] strides [%M, 1] : !tile.ptr<f32>
  %sb = tile.make_view %SB[%NB, %KB] strides [%KB, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c scale_a(%sa : !tile.view<?x?xf32, strides = [?, 1]>)
      scale_b(%sb : !tile.view<?x?xf32, strides = [?, 1]>)
      : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
