// Residual add + RMSNorm (vLLM's fused_add_rms_norm): h = x + r is stored
// back into the residual stream R, and y = h * rsqrt(mean(h^2) + eps) * w,
// bf16 in and out, f32 math. Four rows per program (a 4 x 2048 tile,
// N <= 2048), 8 warps.
tile.kernel @add_rmsnorm(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                         %R: !tile.ptr<bf16> {tile.align = 16 : i64},
                         %W: !tile.ptr<bf16> {tile.align = 16 : i64},
                         %Y: !tile.ptr<bf16> {tile.align = 16 : i64},
                         %M: i32, %N: i32,
                         %ld: i32 {tile.divisibility = 16 : i64},
                         %eps: f32)
    grid(ceildiv(%M, 4)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %pid = tile.program_id x
  %row = arith.muli %pid, %c4 : i32
  %x = tile.make_view %X[%M, %N] strides [%ld, 1] : !tile.ptr<bf16>
  %r = tile.make_view %R[%M, %N] strides [%ld, 1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%ld, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[%N] strides [1] : !tile.ptr<bf16>
  %tx = tile.load %x[%row, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<4x2048xbf16>
  %tr = tile.load %r[%row, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<4x2048xbf16>
  %xf = arith.extf %tx : tensor<4x2048xbf16> to tensor<4x2048xf32>
  %rf = arith.extf %tr : tensor<4x2048xbf16> to tensor<4x2048xf32>
  %h = arith.addf %xf, %rf : tensor<4x2048xf32>
  %hb = arith.truncf %h : tensor<4x2048xf32> to tensor<4x2048xbf16>
  tile.store %hb, %r[%row, %c0] : tensor<4x2048xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  %sq = arith.mulf %h, %h : tensor<4x2048xf32>
  %ss = tile.reduce sum %sq axis = 1 : tensor<4x2048xf32> -> tensor<4xf32>
  %nf = arith.sitofp %N : i32 to f32
  %n_r = tile.splat %nf : tensor<4xf32>
  %ms = arith.divf %ss, %n_r : tensor<4xf32>
  %eps_r = tile.splat %eps : tensor<4xf32>
  %mse = arith.addf %ms, %eps_r : tensor<4xf32>
  %rstd = math.rsqrt %mse : tensor<4xf32>
  %r2 = tile.expand_dims %rstd axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %rb = tile.broadcast %r2 : tensor<4x1xf32> -> tensor<4x2048xf32>
  %tw = tile.load %w[%c0] : !tile.view<?xbf16, strides = [1]> -> tensor<2048xbf16>
  %wf = arith.extf %tw : tensor<2048xbf16> to tensor<2048xf32>
  %w1 = tile.expand_dims %wf axis = 0 : tensor<2048xf32> -> tensor<1x2048xf32>
  %wb = tile.broadcast %w1 : tensor<1x2048xf32> -> tensor<4x2048xf32>
  %hn = arith.mulf %h, %rb : tensor<4x2048xf32>
  %yf = arith.mulf %hn, %wb : tensor<4x2048xf32>
  %yb = arith.truncf %yf : tensor<4x2048xf32> to tensor<4x2048xbf16>
  tile.store %yb, %y[%row, %c0] : tensor<4x2048xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
