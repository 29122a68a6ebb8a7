// y = relu(x Wᵀ + b): nn.Linear followed by ReLU, as one block program. The
// kernel of docs/writing-a-kernel.md, which explains it line by line.
//
// x is M x K, W is N x K (nn.Linear's weight), b has N elements, y is M x N;
// all bf16, rows contiguous. One program computes a 128 x 128 tile of y:
// it walks K in 64-wide steps, multiplies on the tensor cores with f32
// accumulation, then adds the bias, applies ReLU and stores bf16. Tiles that
// reach past M, N or K read zeros there and store nothing there.
tile.kernel @linear_bias_relu_bf16(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                                   %W: !tile.ptr<bf16> {tile.align = 16 : i64},
                                   %Bias: !tile.ptr<bf16>,
                                   %Y: !tile.ptr<bf16> {tile.align = 16 : i64},
                                   %M: i32, %N: i32, %K: i32,
                                   %ldx: i32 {tile.divisibility = 8 : i64},
                                   %ldw: i32 {tile.divisibility = 8 : i64},
                                   %ldy: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%N, 128), ceildiv(%M, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  // Which tile of y this program computes.
  %pn = tile.program_id x
  %pm = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  // Views: a pointer with sizes and strides (in elements).
  %x = tile.make_view %X[%M, %K] strides [%ldx, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[%N, %K] strides [%ldw, 1] : !tile.ptr<bf16>
  %b = tile.make_view %Bias[%N] strides [1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<bf16>
  // The K loop: acc += x[m0:+128, k:+64] * W[n0:+128, k:+64]ᵀ.
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tw = tile.load %w[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %twt = tile.trans %tw : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %tx, %twt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  // The epilogue: + b[n0:+128] on every row, ReLU, bf16.
  %tb = tile.load %b[%n0] : !tile.view<?xbf16, strides = [1]> -> tensor<128xbf16>
  %tbf = arith.extf %tb : tensor<128xbf16> to tensor<128xf32>
  %tb2 = tile.expand_dims %tbf axis = 0 : tensor<128xf32> -> tensor<1x128xf32>
  %bias = tile.broadcast %tb2 : tensor<1x128xf32> -> tensor<128x128xf32>
  %sum = arith.addf %acc, %bias : tensor<128x128xf32>
  %relu = arith.maximumf %sum, %zero : tensor<128x128xf32>
  %out = arith.truncf %relu : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %y[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
