// C = A * B with A (M x K) and B (K x N) row-major bf16, C bf16, f32
// accumulation, for any M, N, K (ragged edges are masked).
//
// tile-expand-named-ops picks the per-chip configuration (128x256x32 tiles,
// 4-stage cp.async ring on sm_80) and sets the launch grid; the kernel then
// requires 16-byte aligned A and B and leading dimensions that are multiples
// of 8 (recorded in gemm_bf16.json and checked by the runtime).
tile.kernel @gemm_bf16(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                       %M: i32, %N: i32, %K: i32,
                       %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
