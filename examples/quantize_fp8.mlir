// Per-tensor FP8 quantization, as torch._scaled_mm's callers do it:
// q = saturate(x * scale) in e4m3 (or e5m2), and back: y = q * descale in
// bf16. Casts to fp8 round to nearest even and saturate at the largest
// finite value (cvt.rn.satfinite.e4m3x2.f32, two elements an instruction);
// casts from fp8 are exact (cvt.rn.f16x2.e4m3x2). Both need sm_89 or later.
//
// Each program handles a 32 x 128 tile of an M x N matrix with arbitrary
// row strides; ragged edges are masked by tile.load / tile.store.
tile.kernel @quantize_e4m3(%x: !tile.ptr<bf16>, %q: !tile.ptr<f8E4M3FN>, %scale: f32,
                           %M: i32, %N: i32, %ldx: i32, %ldq: i32)
    grid(ceildiv(%N, 128), ceildiv(%M, 32)) warps(4) {
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pn = tile.program_id x
  %pm = tile.program_id y
  %row = arith.muli %pm, %c32 : i32
  %col = arith.muli %pn, %c128 : i32
  %vx = tile.make_view %x[%M, %N] strides [%ldx, 1] : !tile.ptr<bf16>
  %vq = tile.make_view %q[%M, %N] strides [%ldq, 1] : !tile.ptr<f8E4M3FN>
  %tx = tile.load %vx[%row, %col] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<32x128xbf16>
  %fx = arith.extf %tx : tensor<32x128xbf16> to tensor<32x128xf32>
  %s = tile.splat %scale : tensor<32x128xf32>
  %sx = arith.mulf %fx, %s : tensor<32x128xf32>
  %t8 = arith.truncf %sx : tensor<32x128xf32> to tensor<32x128xf8E4M3FN>
  tile.store %t8, %vq[%row, %col] : tensor<32x128xf8E4M3FN>, !tile.view<?x?xf8E4M3FN, strides = [?, 1]>
  tile.return
}

tile.kernel @quantize_e5m2(%x: !tile.ptr<bf16>, %q: !tile.ptr<f8E5M2>, %scale: f32,
                           %M: i32, %N: i32, %ldx: i32, %ldq: i32)
    grid(ceildiv(%N, 128), ceildiv(%M, 32)) warps(4) {
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pn = tile.program_id x
  %pm = tile.program_id y
  %row = arith.muli %pm, %c32 : i32
  %col = arith.muli %pn, %c128 : i32
  %vx = tile.make_view %x[%M, %N] strides [%ldx, 1] : !tile.ptr<bf16>
  %vq = tile.make_view %q[%M, %N] strides [%ldq, 1] : !tile.ptr<f8E5M2>
  %tx = tile.load %vx[%row, %col] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<32x128xbf16>
  %fx = arith.extf %tx : tensor<32x128xbf16> to tensor<32x128xf32>
  %s = tile.splat %scale : tensor<32x128xf32>
  %sx = arith.mulf %fx, %s : tensor<32x128xf32>
  %t8 = arith.truncf %sx : tensor<32x128xf32> to tensor<32x128xf8E5M2>
  tile.store %t8, %vq[%row, %col] : tensor<32x128xf8E5M2>, !tile.view<?x?xf8E5M2, strides = [?, 1]>
  tile.return
}

tile.kernel @dequantize_e4m3(%q: !tile.ptr<f8E4M3FN>, %y: !tile.ptr<bf16>, %descale: f32,
                             %M: i32, %N: i32, %ldq: i32, %ldy: i32)
    grid(ceildiv(%N, 128), ceildiv(%M, 32)) warps(4) {
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pn = tile.program_id x
  %pm = tile.program_id y
  %row = arith.muli %pm, %c32 : i32
  %col = arith.muli %pn, %c128 : i32
  %vq = tile.make_view %q[%M, %N] strides [%ldq, 1] : !tile.ptr<f8E4M3FN>
  %vy = tile.make_view %y[%M, %N] strides [%ldy, 1] : !tile.ptr<bf16>
  %tq = tile.load %vq[%row, %col] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<32x128xf8E4M3FN>
  %f = arith.extf %tq : tensor<32x128xf8E4M3FN> to tensor<32x128xf32>
  %s = tile.splat %descale : tensor<32x128xf32>
  %d = arith.mulf %f, %s : tensor<32x128xf32>
  %out = arith.truncf %d : tensor<32x128xf32> to tensor<32x128xbf16>
  tile.store %out, %vy[%row, %col] : tensor<32x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
