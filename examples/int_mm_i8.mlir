// torch._int_mm as a named op: C = A * B with A (M x K, row-major) and B
// (K x N, column-major: stored N x K) in i8 (signed), exact i32 sums
// (wrapping past 2^31, as the hardware and torch do), i32 output, for any
// M, N, K (ragged edges are masked). No epilogue: the sums are stored as
// they are.
//
// tile-expand-named-ops writes the block program of tile.gemm with the fp8
// configuration (K steps of 128 bytes on sm_90a: wgmma m64n256k32.s32.s8.s8
// on a TMA ring, warp-specialized and persistent; 64 elsewhere:
// mma.sync m16n8k32.s32.s8.s8 on a cp.async ring). The kernel requires
// 16-byte aligned A and B and leading dimensions that are multiples of 16
// bytes (checked by the runtime).
tile.kernel @int_mm_i8(%A: !tile.ptr<i8>, %B: !tile.ptr<i8>, %C: !tile.ptr<i32>,
                       %M: i32, %N: i32, %K: i32,
                       %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<i8>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<i8>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c
      : !tile.view<?x?xi8, strides = [?, 1]>, !tile.view<?x?xi8, strides = [1, ?]>,
        !tile.view<?x?xi32, strides = [?, 1]>
  tile.return
}
