// Row softmax of an M x N f32 matrix (N <= 1024), one row per warp.
//
// @softmax_rows: columns past N load as -inf, so they contribute exp2(-inf)
// = 0 to the sum and are not stored.
// @softmax_rows_causal: additionally masks column j > row i (a causal mask
// built from index ranges), the pattern attention kernels use.
//
// exp(x - max) is computed as exp2((x - max) * log2(e)).
tile.kernel @softmax_rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>,
                          %M: i32, %N: i32, %ldx: i32, %ldy: i32)
    grid(ceildiv(%M, 4)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %pid = tile.program_id x
  %row = arith.muli %pid, %c4 : i32
  %vx = tile.make_view %x[%M, %N] strides [%ldx, 1] : !tile.ptr<f32>
  %vy = tile.make_view %y[%M, %N] strides [%ldy, 1] : !tile.ptr<f32>
  %t = tile.load %vx[%row, %c0] padding(neg_inf) : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<4x1024xf32>
  %m = tile.reduce max %t axis = 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %m1 = tile.expand_dims %m axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %log2e = arith.constant dense<1.44269504> : tensor<4x1024xf32>
  %d = arith.subf %t, %mb : tensor<4x1024xf32>
  %ds = arith.mulf %d, %log2e : tensor<4x1024xf32>
  %e = math.exp2 %ds : tensor<4x1024xf32>
  %s = tile.reduce sum %e axis = 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %s1 = tile.expand_dims %s axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %s1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %p = arith.divf %e, %sb : tensor<4x1024xf32>
  tile.store %p, %vy[%row, %c0] : tensor<4x1024xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

tile.kernel @softmax_rows_causal(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>,
                                 %M: i32, %N: i32, %ldx: i32, %ldy: i32)
    grid(ceildiv(%M, 4)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %pid = tile.program_id x
  %row = arith.muli %pid, %c4 : i32
  %vx = tile.make_view %x[%M, %N] strides [%ldx, 1] : !tile.ptr<f32>
  %vy = tile.make_view %y[%M, %N] strides [%ldy, 1] : !tile.ptr<f32>
  %t = tile.load %vx[%row, %c0] padding(neg_inf) : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<4x1024xf32>
  // keep[i, j] = j <= row + i
  %rows = tile.range 0 to 4 : tensor<4xi32>
  %r0 = tile.splat %row : tensor<4xi32>
  %ri = arith.addi %rows, %r0 : tensor<4xi32>
  %ri1 = tile.expand_dims %ri axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %rib = tile.broadcast %ri1 : tensor<4x1xi32> -> tensor<4x1024xi32>
  %cols = tile.range 0 to 1024 : tensor<1024xi32>
  %cj1 = tile.expand_dims %cols axis = 0 : tensor<1024xi32> -> tensor<1x1024xi32>
  %cjb = tile.broadcast %cj1 : tensor<1x1024xi32> -> tensor<4x1024xi32>
  %keep = arith.cmpi sle, %cjb, %rib : tensor<4x1024xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<4x1024xf32>
  %tm = arith.select %keep, %t, %ninf : tensor<4x1024xi1>, tensor<4x1024xf32>
  %m = tile.reduce max %tm axis = 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %m1 = tile.expand_dims %m axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %log2e = arith.constant dense<1.44269504> : tensor<4x1024xf32>
  %d = arith.subf %tm, %mb : tensor<4x1024xf32>
  %ds = arith.mulf %d, %log2e : tensor<4x1024xf32>
  %e = math.exp2 %ds : tensor<4x1024xf32>
  %s = tile.reduce sum %e axis = 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %s1 = tile.expand_dims %s axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %s1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %p = arith.divf %e, %sb : tensor<4x1024xf32>
  tile.store %p, %vy[%row, %c0] : tensor<4x1024xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
