// Triton tutorial 01 (vector addition): z = x + y on n f32 elements, one
// program per 1024 elements, 4 warps (the tutorial's BLOCK_SIZE and
// Triton's default num_warps). The tail past n is masked by the view.
tile.kernel @vector_add(%X: !tile.ptr<f32> {tile.align = 16 : i64},
                        %Y: !tile.ptr<f32> {tile.align = 16 : i64},
                        %Z: !tile.ptr<f32> {tile.align = 16 : i64},
                        %n: i32)
    grid(ceildiv(%n, 1024)) warps(4) {
  %c1024 = arith.constant 1024 : i32
  %pid = tile.program_id x
  %start = arith.muli %pid, %c1024 : i32
  %x = tile.make_view %X[%n] strides [1] : !tile.ptr<f32>
  %y = tile.make_view %Y[%n] strides [1] : !tile.ptr<f32>
  %z = tile.make_view %Z[%n] strides [1] : !tile.ptr<f32>
  %tx = tile.load %x[%start] : !tile.view<?xf32, strides = [1]> -> tensor<1024xf32>
  %ty = tile.load %y[%start] : !tile.view<?xf32, strides = [1]> -> tensor<1024xf32>
  %sum = arith.addf %tx, %ty : tensor<1024xf32>
  tile.store %sum, %z[%start] : tensor<1024xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
