// RMSNorm (Llama): y = x * rsqrt(mean(x^2) + eps) * w over rows of an
// M x N bf16 matrix, N <= 4096, computed in f32, bf16 out. One program
// per row (the whole row in one 4096-wide tile, as Triton ports use
// BLOCK_SIZE = next_power_of_2(N)), 8 warps.
tile.kernel @rmsnorm(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                     %W: !tile.ptr<bf16> {tile.align = 16 : i64},
                     %Y: !tile.ptr<bf16> {tile.align = 16 : i64},
                     %M: i32, %N: i32,
                     %ldx: i32 {tile.divisibility = 16 : i64},
                     %ldy: i32 {tile.divisibility = 16 : i64},
                     %eps: f32)
    grid(%M) warps(8) {
  %c0 = arith.constant 0 : i32
  %row = tile.program_id x
  %x = tile.make_view %X[%M, %N] strides [%ldx, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[%N] strides [1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<bf16>
  %tx = tile.load %x[%row, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<1x4096xbf16>
  %xf = arith.extf %tx : tensor<1x4096xbf16> to tensor<1x4096xf32>
  %sq = arith.mulf %xf, %xf : tensor<1x4096xf32>
  %ss = tile.reduce sum %sq axis = 1 : tensor<1x4096xf32> -> tensor<1xf32>
  %nf = arith.sitofp %N : i32 to f32
  %n_r = tile.splat %nf : tensor<1xf32>
  %ms = arith.divf %ss, %n_r : tensor<1xf32>
  %eps_r = tile.splat %eps : tensor<1xf32>
  %mse = arith.addf %ms, %eps_r : tensor<1xf32>
  %rstd = math.rsqrt %mse : tensor<1xf32>
  %r2 = tile.expand_dims %rstd axis = 1 : tensor<1xf32> -> tensor<1x1xf32>
  %rb = tile.broadcast %r2 : tensor<1x1xf32> -> tensor<1x4096xf32>
  %tw = tile.load %w[%c0] : !tile.view<?xbf16, strides = [1]> -> tensor<4096xbf16>
  %wf = arith.extf %tw : tensor<4096xbf16> to tensor<4096xf32>
  %w2 = tile.expand_dims %wf axis = 0 : tensor<4096xf32> -> tensor<1x4096xf32>
  %xn = arith.mulf %xf, %rb : tensor<1x4096xf32>
  %yf = arith.mulf %xn, %w2 : tensor<1x4096xf32>
  %yb = arith.truncf %yf : tensor<1x4096xf32> to tensor<1x4096xbf16>
  tile.store %yb, %y[%row, %c0] : tensor<1x4096xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
