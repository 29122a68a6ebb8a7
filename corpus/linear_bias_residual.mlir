// nn.Linear + bias + residual add in fp16 (a transformer block's output
// projection): Y = X Wᵀ + b + R, X (M x K), W (N x K), b (N), R and Y
// (M x N). One program per 128 x 256 tile on a 2-D grid (x along N, y
// along M), K in 64-wide steps, 8 warps.
tile.kernel @linear_bias_residual(%X: !tile.ptr<f16> {tile.align = 16 : i64},
                                  %W: !tile.ptr<f16> {tile.align = 16 : i64},
                                  %Bias: !tile.ptr<f16> {tile.align = 16 : i64},
                                  %R: !tile.ptr<f16> {tile.align = 16 : i64},
                                  %Y: !tile.ptr<f16> {tile.align = 16 : i64},
                                  %M: i32, %N: i32, %K: i32,
                                  %ldx: i32 {tile.divisibility = 16 : i64},
                                  %ldw: i32 {tile.divisibility = 16 : i64},
                                  %ldr: i32 {tile.divisibility = 16 : i64},
                                  %ldy: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%N, 256), ceildiv(%M, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pn = tile.program_id x
  %pm = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %x = tile.make_view %X[%M, %K] strides [%ldx, 1] : !tile.ptr<f16>
  %w = tile.make_view %W[%N, %K] strides [%ldw, 1] : !tile.ptr<f16>
  %bias = tile.make_view %Bias[%N] strides [1] : !tile.ptr<f16>
  %r = tile.make_view %R[%M, %N] strides [%ldr, 1] : !tile.ptr<f16>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<f16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %tx = tile.load %x[%m0, %k] : !tile.view<?x?xf16, strides = [?, 1]> -> tensor<128x64xf16>
    %tw = tile.load %w[%n0, %k] : !tile.view<?x?xf16, strides = [?, 1]> -> tensor<256x64xf16>
    %twt = tile.trans %tw : tensor<256x64xf16> -> tensor<64x256xf16>
    %d = tile.dot %tx, %twt, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %tb = tile.load %bias[%n0] : !tile.view<?xf16, strides = [1]> -> tensor<256xf16>
  %tbf = arith.extf %tb : tensor<256xf16> to tensor<256xf32>
  %tb2 = tile.expand_dims %tbf axis = 0 : tensor<256xf32> -> tensor<1x256xf32>
  %tbb = tile.broadcast %tb2 : tensor<1x256xf32> -> tensor<128x256xf32>
  %tr = tile.load %r[%m0, %n0] : !tile.view<?x?xf16, strides = [?, 1]> -> tensor<128x256xf16>
  %trf = arith.extf %tr : tensor<128x256xf16> to tensor<128x256xf32>
  %sum0 = arith.addf %acc, %tbb : tensor<128x256xf32>
  %sum = arith.addf %sum0, %trf : tensor<128x256xf32>
  %out = arith.truncf %sum : tensor<128x256xf32> to tensor<128x256xf16>
  tile.store %out, %y[%m0, %n0] : tensor<128x256xf16>, !tile.view<?x?xf16, strides = [?, 1]>
  tile.return
}
