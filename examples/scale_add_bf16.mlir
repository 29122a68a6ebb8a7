// out = alpha * x + y over an M x N bf16 matrix with arbitrary row strides.
//
// Each program handles a 32 x 128 tile; tiles at the right and bottom edges
// are ragged: tile.load pads the elements outside the view and tile.store
// skips them. The arithmetic runs in f32.
tile.kernel @scale_add_bf16(%x: !tile.ptr<bf16>, %y: !tile.ptr<bf16>,
                            %out: !tile.ptr<bf16>, %alpha: f32,
                            %M: i32, %N: i32,
                            %ldx: i32, %ldy: i32, %ldo: i32)
    grid(ceildiv(%N, 128), ceildiv(%M, 32)) warps(4) {
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pn = tile.program_id x
  %pm = tile.program_id y
  %row = arith.muli %pm, %c32 : i32
  %col = arith.muli %pn, %c128 : i32
  %vx = tile.make_view %x[%M, %N] strides [%ldx, 1] : !tile.ptr<bf16>
  %vy = tile.make_view %y[%M, %N] strides [%ldy, 1] : !tile.ptr<bf16>
  %vo = tile.make_view %out[%M, %N] strides [%ldo, 1] : !tile.ptr<bf16>
  %tx = tile.load %vx[%row, %col] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<32x128xbf16>
  %ty = tile.load %vy[%row, %col] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<32x128xbf16>
  %fx = arith.extf %tx : tensor<32x128xbf16> to tensor<32x128xf32>
  %fy = arith.extf %ty : tensor<32x128xbf16> to tensor<32x128xf32>
  %a = tile.splat %alpha : tensor<32x128xf32>
  %ax = arith.mulf %a, %fx : tensor<32x128xf32>
  %sum = arith.addf %ax, %fy : tensor<32x128xf32>
  %r = arith.truncf %sum : tensor<32x128xf32> to tensor<32x128xbf16>
  tile.store %r, %vo[%row, %col] : tensor<32x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
