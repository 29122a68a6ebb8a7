// GeGLU (T5 v1.1, Gemma's MLP) as one dual GEMM: Y = gelu(X Wgᵀ) * (X Wuᵀ)
// with the exact (erf) GELU, gelu(g) = 0.5 g (1 + erf(g / sqrt(2))), as
// torch's F.gelu. bf16 in and out, f32 accumulators; the two dots share
// the X tile in one K loop. One program per 128 x 64 tile of Y on a 2-D
// grid (x along N, y along M), K in 64-wide steps, 4 warps.
tile.kernel @geglu(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                   %Wg: !tile.ptr<bf16> {tile.align = 16 : i64},
                   %Wu: !tile.ptr<bf16> {tile.align = 16 : i64},
                   %Y: !tile.ptr<bf16> {tile.align = 16 : i64},
                   %M: i32, %N: i32, %K: i32,
                   %ldx: i32 {tile.divisibility = 16 : i64},
                   %ldw: i32 {tile.divisibility = 16 : i64},
                   %ldy: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%N, 64), ceildiv(%M, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pn = tile.program_id x
  %pm = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %x = tile.make_view %X[%M, %K] strides [%ldx, 1] : !tile.ptr<bf16>
  %wg = tile.make_view %Wg[%N, %K] strides [%ldw, 1] : !tile.ptr<bf16>
  %wu = tile.make_view %Wu[%N, %K] strides [%ldw, 1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc:2 = scf.for %k = %c0 to %K step %c64 iter_args(%g = %zero, %u = %zero)
      -> (tensor<128x64xf32>, tensor<128x64xf32>) : i32 {
    %tx = tile.load %x[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tg = tile.load %wg[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %tu = tile.load %wu[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %tgt = tile.trans %tg : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %tut = tile.trans %tu : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %g2 = tile.dot %tx, %tgt, %g : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %u2 = tile.dot %tx, %tut, %u : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    scf.yield %g2, %u2 : tensor<128x64xf32>, tensor<128x64xf32>
  }
  %half = arith.constant dense<0.5> : tensor<128x64xf32>
  %one = arith.constant dense<1.0> : tensor<128x64xf32>
  %rsqrt2 = arith.constant dense<0.707106781> : tensor<128x64xf32>
  %z = arith.mulf %acc#0, %rsqrt2 : tensor<128x64xf32>
  %erf = math.erf %z : tensor<128x64xf32>
  %onep = arith.addf %one, %erf : tensor<128x64xf32>
  %hg = arith.mulf %acc#0, %half : tensor<128x64xf32>
  %gelu = arith.mulf %hg, %onep : tensor<128x64xf32>
  %h = arith.mulf %gelu, %acc#1 : tensor<128x64xf32>
  %out = arith.truncf %h : tensor<128x64xf32> to tensor<128x64xbf16>
  tile.store %out, %y[%m0, %n0] : tensor<128x64xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
