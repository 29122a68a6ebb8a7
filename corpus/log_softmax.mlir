// Row log-softmax (a classifier's output): y = x - max - log(sum(exp(x -
// max))) over rows of an M x N bf16 matrix (N <= 2048), f32 out. Four
// rows per program (a 4 x 2048 tile; columns past N load as -inf), 4 warps.
tile.kernel @log_softmax(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                         %Y: !tile.ptr<f32> {tile.align = 16 : i64},
                         %M: i32, %N: i32,
                         %ldx: i32 {tile.divisibility = 16 : i64},
                         %ldy: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%M, 4)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %pid = tile.program_id x
  %row = arith.muli %pid, %c4 : i32
  %x = tile.make_view %X[%M, %N] strides [%ldx, 1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<f32>
  %t = tile.load %x[%row, %c0] padding(neg_inf) : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<4x2048xbf16>
  %tf = arith.extf %t : tensor<4x2048xbf16> to tensor<4x2048xf32>
  %m = tile.reduce max %tf axis = 1 : tensor<4x2048xf32> -> tensor<4xf32>
  %m2 = tile.expand_dims %m axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m2 : tensor<4x1xf32> -> tensor<4x2048xf32>
  %d = arith.subf %tf, %mb : tensor<4x2048xf32>
  %e = math.exp %d : tensor<4x2048xf32>
  %s = tile.reduce sum %e axis = 1 : tensor<4x2048xf32> -> tensor<4xf32>
  %ls = math.log %s : tensor<4xf32>
  %ls2 = tile.expand_dims %ls axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %lsb = tile.broadcast %ls2 : tensor<4x1xf32> -> tensor<4x2048xf32>
  %out = arith.subf %d, %lsb : tensor<4x2048xf32>
  tile.store %out, %y[%row, %c0] : tensor<4x2048xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
