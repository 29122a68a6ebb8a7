// W8A8 linear layer (SmoothQuant's int8 GEMM): Y = (A Bᵀ) * sa[m] * sb[n]
// with A (M x K) and B (N x K) in int8 (both K-contiguous), exact i32
// accumulation, per-row activation scales sa (M) and per-column weight
// scales sb (N) in f32, bf16 output. One program per 128 x 128 tile, K in
// 128-wide steps, 8 warps.
tile.kernel @int8_gemm(%A: !tile.ptr<i8> {tile.align = 16 : i64},
                       %B: !tile.ptr<i8> {tile.align = 16 : i64},
                       %SA: !tile.ptr<f32> {tile.align = 16 : i64},
                       %SB: !tile.ptr<f32> {tile.align = 16 : i64},
                       %Y: !tile.ptr<bf16> {tile.align = 16 : i64},
                       %M: i32, %N: i32, %K: i32,
                       %lda: i32 {tile.divisibility = 16 : i64},
                       %ldb: i32 {tile.divisibility = 16 : i64},
                       %ldy: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<i8>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<i8>
  %sa = tile.make_view %SA[%M] strides [1] : !tile.ptr<f32>
  %sb = tile.make_view %SB[%N] strides [1] : !tile.ptr<f32>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0> : tensor<128x128xi32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%acc = %zero) -> (tensor<128x128xi32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xi8, strides = [?, 1]> -> tensor<128x128xi8>
    %tb = tile.load %b[%n0, %k] : !tile.view<?x?xi8, strides = [?, 1]> -> tensor<128x128xi8>
    %tbt = tile.trans %tb : tensor<128x128xi8> -> tensor<128x128xi8>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x128xi8>, tensor<128x128xi8> -> tensor<128x128xi32>
    scf.yield %d : tensor<128x128xi32>
  }
  %accf = arith.sitofp %acc : tensor<128x128xi32> to tensor<128x128xf32>
  %tsa = tile.load %sa[%m0] : !tile.view<?xf32, strides = [1]> -> tensor<128xf32>
  %tsb = tile.load %sb[%n0] : !tile.view<?xf32, strides = [1]> -> tensor<128xf32>
  %tsa2 = tile.expand_dims %tsa axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %tsb2 = tile.expand_dims %tsb axis = 0 : tensor<128xf32> -> tensor<1x128xf32>
  %tsab = tile.broadcast %tsa2 : tensor<128x1xf32> -> tensor<128x128xf32>
  %tsbb = tile.broadcast %tsb2 : tensor<1x128xf32> -> tensor<128x128xf32>
  %rs = arith.mulf %accf, %tsab : tensor<128x128xf32>
  %rcs = arith.mulf %rs, %tsbb : tensor<128x128xf32>
  %out = arith.truncf %rcs : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %y[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
