// The SwiGLU feed-forward's first half (Llama's MLP) as one dual GEMM:
// Y = silu(X Wgᵀ) * (X Wuᵀ), X (M x K), the gate and up weights Wg, Wu
// (N x K, nn.Linear's layout), bf16 in and out, f32 accumulators. The two
// dots share the X tile in one K loop. silu(g) = g / (1 + exp(-g)),
// written with math.exp and a plain arith.divf. One program per 128 x 128
// tile of Y (row-major program order), K in 64-wide steps, 8 warps.
tile.kernel @swiglu(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                    %Wg: !tile.ptr<bf16> {tile.align = 16 : i64},
                    %Wu: !tile.ptr<bf16> {tile.align = 16 : i64},
                    %Y: !tile.ptr<bf16> {tile.align = 16 : i64},
                    %M: i32, %N: i32, %K: i32,
                    %ldx: i32 {tile.divisibility = 16 : i64},
                    %ldw: i32 {tile.divisibility = 16 : i64},
                    %ldy: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %x = tile.make_view %X[%M, %K] strides [%ldx, 1] : !tile.ptr<bf16>
  %wg = tile.make_view %Wg[%N, %K] strides [%ldw, 1] : !tile.ptr<bf16>
  %wu = tile.make_view %Wu[%N, %K] strides [%ldw, 1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc:2 = scf.for %k = %c0 to %K step %c64 iter_args(%g = %zero, %u = %zero)
      -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tg = tile.load %wg[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tu = tile.load %wu[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tgt = tile.trans %tg : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %tut = tile.trans %tu : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %g2 = tile.dot %tx, %tgt, %g : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %u2 = tile.dot %tx, %tut, %u : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %g2, %u2 : tensor<128x128xf32>, tensor<128x128xf32>
  }
  %one = arith.constant dense<1.0> : tensor<128x128xf32>
  %neg = arith.negf %acc#0 : tensor<128x128xf32>
  %e = math.exp %neg : tensor<128x128xf32>
  %den = arith.addf %one, %e : tensor<128x128xf32>
  %silu = arith.divf %acc#0, %den : tensor<128x128xf32>
  %h = arith.mulf %silu, %acc#1 : tensor<128x128xf32>
  %out = arith.truncf %h : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %y[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
