// An f32 GEMM as a Triton user writes it: C = A * B with A (M x K) and B
// (K x N) row-major f32. Triton's tl.dot multiplies f32 tiles in TF32 by
// default (input_precision="tf32"); the port says so with precision(tf32).
// One program per 128 x 128 tile, K in 32-wide steps, 8 warps, f32 out.
tile.kernel @gemm_tf32(%A: !tile.ptr<f32> {tile.align = 16 : i64},
                       %B: !tile.ptr<f32> {tile.align = 16 : i64},
                       %C: !tile.ptr<f32> {tile.align = 16 : i64},
                       %M: i32, %N: i32, %K: i32,
                       %lda: i32 {tile.divisibility = 16 : i64},
                       %ldb: i32 {tile.divisibility = 16 : i64},
                       %ldc: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128x32xf32>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<32x128xf32>
    %d = tile.dot %ta, %tb, %acc precision(tf32) : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
