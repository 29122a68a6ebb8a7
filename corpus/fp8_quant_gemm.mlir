// FP8 inference GEMM in two kernels, as torch._scaled_mm's callers run it:
// @fp8_quant_gemm_quantize turns the bf16 activations X (M x K) into e4m3
// with a per-tensor scale (q = clamp(x / scale, +-448), given 1 / scale),
// 32 x 128 tiles over 4 warps; @fp8_quant_gemm_matmul then computes
// Y = (Xq Wqᵀ) * sx * sw with Wq (N x K) quantized ahead of time, both
// operands K-contiguous, f32 accumulation, bf16 out: 128 x 128 tiles, K in
// 128-wide steps, 8 warps. FP8 needs sm_89 or later.
tile.kernel @fp8_quant_gemm_quantize(%X: !tile.ptr<bf16> {tile.align = 16 : i64},
                                     %Xq: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                     %inv_scale: f32, %M: i32, %K: i32,
                                     %ldx: i32 {tile.divisibility = 16 : i64},
                                     %ldq: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%K, 128), ceildiv(%M, 32)) warps(4) {
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pk = tile.program_id x
  %pm = tile.program_id y
  %m0 = arith.muli %pm, %c32 : i32
  %k0 = arith.muli %pk, %c128 : i32
  %x = tile.make_view %X[%M, %K] strides [%ldx, 1] : !tile.ptr<bf16>
  %xq = tile.make_view %Xq[%M, %K] strides [%ldq, 1] : !tile.ptr<f8E4M3FN>
  %t = tile.load %x[%m0, %k0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<32x128xbf16>
  %tf = arith.extf %t : tensor<32x128xbf16> to tensor<32x128xf32>
  %s = tile.splat %inv_scale : tensor<32x128xf32>
  %scaled = arith.mulf %tf, %s : tensor<32x128xf32>
  %hi = arith.constant dense<448.0> : tensor<32x128xf32>
  %lo = arith.constant dense<-448.0> : tensor<32x128xf32>
  %c1 = arith.minimumf %scaled, %hi : tensor<32x128xf32>
  %c2 = arith.maximumf %c1, %lo : tensor<32x128xf32>
  %q = arith.truncf %c2 : tensor<32x128xf32> to tensor<32x128xf8E4M3FN>
  tile.store %q, %xq[%m0, %k0] : tensor<32x128xf8E4M3FN>, !tile.view<?x?xf8E4M3FN, strides = [?, 1]>
  tile.return
}

tile.kernel @fp8_quant_gemm_matmul(%A: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                   %B: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                   %Y: !tile.ptr<bf16> {tile.align = 16 : i64},
                                   %scale_a: f32, %scale_b: f32,
                                   %M: i32, %N: i32, %K: i32,
                                   %lda: i32 {tile.divisibility = 16 : i64},
                                   %ldb: i32 {tile.divisibility = 16 : i64},
                                   %ldy: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<f8E4M3FN>
  %y = tile.make_view %Y[%M, %N] strides [%ldy, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %tb = tile.load %b[%n0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %tbt = tile.trans %tb : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %s = arith.mulf %scale_a, %scale_b : f32
  %ts = tile.splat %s : tensor<128x128xf32>
  %scaled = arith.mulf %acc, %ts : tensor<128x128xf32>
  %out = arith.truncf %scaled : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %y[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
