// Rotary position embedding (the rotate-half form of Llama and GPT-NeoX)
// applied to a contiguous [batch, seq, heads, 128] bf16 tensor, as q and k
// leave the QKV projection: out[..., :64] = x1 cos - x2 sin and
// out[..., 64:] = x2 cos + x1 sin with x1, x2 the two halves, cos and sin
// f32 tables [seq, 64]. A tile covers the last dimensions of a view, so
// the kernel views the tensor as [batch, heads, seq, 128] with strides it
// computes from the sizes (seq stride heads * 128). One program per 64
// positions of one (batch, head), 4 warps.
tile.kernel @rope(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                  %Cos: !tile.ptr<f32> {tile.align = 16 : i64},
                  %Sin: !tile.ptr<f32> {tile.align = 16 : i64},
                  %Out: !tile.ptr<bf16> {tile.align = 16 : i64},
                  %B: i32, %S: i32, %H: i32)
    grid(ceildiv(%S, 64), %H, %B) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %ps = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %s0 = arith.muli %ps, %c64 : i32
  %ss = arith.muli %H, %c128 : i32
  %sb = arith.muli %S, %ss : i32
  %x = tile.make_view %X[%B, %H, %S, 128] strides [%sb, 128, %ss, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Out[%B, %H, %S, 128] strides [%sb, 128, %ss, 1] : !tile.ptr<bf16>
  %cos = tile.make_view %Cos[%S, 64] strides [64, 1] : !tile.ptr<f32>
  %sin = tile.make_view %Sin[%S, 64] strides [64, 1] : !tile.ptr<f32>
  %x1 = tile.load %x[%b, %h, %s0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, 128, ?, 1]> -> tensor<64x64xbf16>
  %x2 = tile.load %x[%b, %h, %s0, %c64] : !tile.view<?x?x?x128xbf16, strides = [?, 128, ?, 1]> -> tensor<64x64xbf16>
  %tc = tile.load %cos[%s0, %c0] : !tile.view<?x64xf32, strides = [64, 1]> -> tensor<64x64xf32>
  %ts = tile.load %sin[%s0, %c0] : !tile.view<?x64xf32, strides = [64, 1]> -> tensor<64x64xf32>
  %f1 = arith.extf %x1 : tensor<64x64xbf16> to tensor<64x64xf32>
  %f2 = arith.extf %x2 : tensor<64x64xbf16> to tensor<64x64xf32>
  %a1 = arith.mulf %f1, %tc : tensor<64x64xf32>
  %b1 = arith.mulf %f2, %ts : tensor<64x64xf32>
  %o1 = arith.subf %a1, %b1 : tensor<64x64xf32>
  %a2 = arith.mulf %f2, %tc : tensor<64x64xf32>
  %b2 = arith.mulf %f1, %ts : tensor<64x64xf32>
  %o2 = arith.addf %a2, %b2 : tensor<64x64xf32>
  %h1 = arith.truncf %o1 : tensor<64x64xf32> to tensor<64x64xbf16>
  %h2 = arith.truncf %o2 : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %h1, %o[%b, %h, %s0, %c0] : tensor<64x64xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, 128, ?, 1]>
  tile.store %h2, %o[%b, %h, %s0, %c64] : tensor<64x64xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, 128, ?, 1]>
  tile.return
}
