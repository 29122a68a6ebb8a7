// C = (2 * A) @ B on one warpgroup: the scaled A tile is computed in
// registers, so on sm_90a the dot runs on wgmma with A from registers (RS)
// and B from 128-byte swizzled shared memory.
tile.kernel @wgmma_rs(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64},
                      %C: !tile.ptr<f32>, %M: i32, %N: i32,
                      %K: i32 {tile.divisibility = 64 : i64},
                      %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64},
                      %ldc: i32) grid(ceildiv(%M, 64), ceildiv(%N, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  %two = arith.constant dense<2.0> : tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %ta2 = arith.mulf %ta, %two : tensor<64x64xbf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta2, %tb, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
