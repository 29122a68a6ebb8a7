// Triton tutorial 02 (fused softmax): the row softmax of an M x N f32
// matrix, N <= 1024 (the tutorial's BLOCK_SIZE = next_power_of_2(N)). The
// tutorial launches a fixed number of programs (%P: a few per SM) and each
// walks the rows pid, pid + P, ...; columns past N load as -inf, so they
// add exp(-inf) = 0 to the sum and are not stored. 8 warps, as the
// tutorial's num_warps.
tile.kernel @fused_softmax(%X: !tile.ptr<f32> {tile.align = 16 : i64},
                           %Y: !tile.ptr<f32> {tile.align = 16 : i64},
                           %ldx: i32 {tile.divisibility = 16 : i64},
                           %ldy: i32 {tile.divisibility = 16 : i64},
                           %M: i32, %N: i32, %P: i32)
    grid(%P) warps(8) {
  %c0 = arith.constant 0 : i32
  %pid = tile.program_id x
  %step = tile.num_programs x
  %x = tile.make_view %X[%M, %N] strides [%ldx, 1] : !tile.ptr<f32>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<f32>
  scf.for %row = %pid to %M step %step : i32 {
    %t = tile.load %x[%row, %c0] padding(neg_inf) : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<1x1024xf32>
    %max = tile.reduce max %t axis = 1 : tensor<1x1024xf32> -> tensor<1xf32>
    %max2 = tile.expand_dims %max axis = 1 : tensor<1xf32> -> tensor<1x1xf32>
    %maxb = tile.broadcast %max2 : tensor<1x1xf32> -> tensor<1x1024xf32>
    %shifted = arith.subf %t, %maxb : tensor<1x1024xf32>
    %num = math.exp %shifted : tensor<1x1024xf32>
    %den = tile.reduce sum %num axis = 1 : tensor<1x1024xf32> -> tensor<1xf32>
    %den2 = tile.expand_dims %den axis = 1 : tensor<1xf32> -> tensor<1x1xf32>
    %denb = tile.broadcast %den2 : tensor<1x1xf32> -> tensor<1x1024xf32>
    %out = arith.divf %num, %denb : tensor<1x1024xf32>
    tile.store %out, %y[%row, %c0] : tensor<1x1024xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  }
  tile.return
}
