// Batched GEMM over contiguous tensors, as a user passes them when only
// the sizes are at hand: C[i] = A[i] * B[i] for A (batch x M x K), B
// (batch x K x N), C (batch x M x N), bf16, every stride computed in the
// kernel from the sizes (A's batch stride M * K, and so on). The batch is
// the grid's z (tile.program_id z); one program per 128 x 128 tile of one
// matrix, K in 64-wide steps, 8 warps. K and N are multiples of 16 (the
// rows then start 32-byte aligned; the Triton twin's strides are
// specialized on the same divisibility).
tile.kernel @bmm(%A: !tile.ptr<bf16> {tile.align = 16 : i64},
                 %B: !tile.ptr<bf16> {tile.align = 16 : i64},
                 %C: !tile.ptr<bf16> {tile.align = 16 : i64},
                 %batch: i32, %M: i32,
                 %N: i32 {tile.divisibility = 16 : i64},
                 %K: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%N, 128), ceildiv(%M, 128), %batch) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pn = tile.program_id x
  %pm = tile.program_id y
  %i = tile.program_id z
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %sa = arith.muli %M, %K : i32
  %sb = arith.muli %K, %N : i32
  %sc = arith.muli %M, %N : i32
  %a = tile.make_view %A[%batch, %M, %K] strides [%sa, %K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%batch, %K, %N] strides [%sb, %N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%batch, %M, %N] strides [%sc, %N, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%i, %m0, %k] : !tile.view<?x?x?xbf16, strides = [?, ?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %b[%i, %k, %n0] : !tile.view<?x?x?xbf16, strides = [?, ?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %c[%i, %m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>
  tile.return
}
