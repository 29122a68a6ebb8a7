tile.kernel @k(%A: !tile.ptr<f32>, %N: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %A[%N] strides [1] : !tile.ptr<f32>
  %t = tile.lod %v[%c0] : !tile.view<?xf32, strides = [1]> -> tensor<128xf32>
  tile.return
}
