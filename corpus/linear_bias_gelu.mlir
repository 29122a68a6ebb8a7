// nn.Linear + bias + GELU (tanh approximation: GPT-2's and F.gelu's
// approximate="tanh") in one kernel: Y = gelu(X Wᵀ + b), X (M x K), W
// (N x K), b (N), bf16 in and out. gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi)
// (x + 0.044715 x^3))), written with math.tanh. The tutorial matmul's
// program order (grouped by 8 block rows), 128 x 128 x 64 tiles, 8 warps.
tile.kernel @linear_bias_gelu(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                              %W: !tile.ptr<bf16> {tile.align = 16 : i64},
                              %Bias: !tile.ptr<bf16> {tile.align = 16 : i64},
                              %Y: !tile.ptr<bf16> {tile.align = 16 : i64},
                              %M: i32, %N: i32, %K: i32,
                              %ldx: i32 {tile.divisibility = 16 : i64},
                              %ldw: i32 {tile.divisibility = 16 : i64},
                              %ldy: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npm = arith.ceildivsi %M, %c128 : i32
  %npn = arith.ceildivsi %N, %c128 : i32
  %width = arith.muli %npn, %c8 : i32
  %group = arith.divsi %pid, %width : i32
  %first = arith.muli %group, %c8 : i32
  %rest = arith.subi %npm, %first : i32
  %gsize = arith.minsi %rest, %c8 : i32
  %ing = arith.remsi %pid, %width : i32
  %pmr = arith.remsi %ing, %gsize : i32
  %pm = arith.addi %first, %pmr : i32
  %pn = arith.divsi %ing, %gsize : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %x = tile.make_view %X[%M, %K] strides [%ldx, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[%N, %K] strides [%ldw, 1] : !tile.ptr<bf16>
  %bias = tile.make_view %Bias[%N] strides [1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tw = tile.load %w[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %twt = tile.trans %tw : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %tx, %twt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %tb = tile.load %bias[%n0] : !tile.view<?xbf16, strides = [1]> -> tensor<128xbf16>
  %tbf = arith.extf %tb : tensor<128xbf16> to tensor<128xf32>
  %tb2 = tile.expand_dims %tbf axis = 0 : tensor<128xf32> -> tensor<1x128xf32>
  %tbb = tile.broadcast %tb2 : tensor<1x128xf32> -> tensor<128x128xf32>
  %v = arith.addf %acc, %tbb : tensor<128x128xf32>
  %half = arith.constant dense<0.5> : tensor<128x128xf32>
  %one = arith.constant dense<1.0> : tensor<128x128xf32>
  %k0 = arith.constant dense<0.797884583> : tensor<128x128xf32>
  %k1 = arith.constant dense<0.044715> : tensor<128x128xf32>
  %v2 = arith.mulf %v, %v : tensor<128x128xf32>
  %v3 = arith.mulf %v2, %v : tensor<128x128xf32>
  %cubic = arith.mulf %v3, %k1 : tensor<128x128xf32>
  %inner0 = arith.addf %v, %cubic : tensor<128x128xf32>
  %inner = arith.mulf %inner0, %k0 : tensor<128x128xf32>
  %t = math.tanh %inner : tensor<128x128xf32>
  %onet = arith.addf %one, %t : tensor<128x128xf32>
  %hv = arith.mulf %v, %half : tensor<128x128xf32>
  %gelu = arith.mulf %hv, %onet : tensor<128x128xf32>
  %out = arith.truncf %gelu : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %y[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
