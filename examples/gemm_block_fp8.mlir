// FP8 GEMMs as block programs: C = (A * Bᵀ) * scale_a * scale_b with A
// (M x K) and B (N x K) in fp8, both K-contiguous -- torch._scaled_mm's
// layout (its second operand is column-major) -- f32 accumulation and a
// per-tensor scale, bf16 output. The second kernel multiplies e4m3 by e5m2
// (activations by gradients, as in FP8 training). The third
// (scaled_linear_block_fp8_promoted) sums each K block in f32; the fourth
// (scaled_linear_block_fp8_blockwise) scales each K block by 1x128 / 128x128 block
// scales before the sum.
//
// One program per 128x256 tile of C, K in 128-wide steps (128 bytes per row,
// one 128-byte swizzle segment), grouped rasterization.
//
// What the passes make of it (see `tilec FILE --remarks=tile-`):
//  * sm_90a: TMA ring, warp specialization and `wgmma m64n256k32` on
//    e4m3/e5m2, reading both operands K-major from shared memory (FP8 wgmma
//    has no transpose: an N-major B stays on mma.sync, with a remark saying
//    so).
//  * sm_89 (and sm_90 without `a`): cp.async ring, `ldmatrix` (16-byte rows
//    of 16 fp8 elements) and `mma.sync m16n8k32` on e4m3/e5m2.
//  * sm_80 has no FP8 tensor-core instruction: tilec says so and stops.
//
// The hints: 16-byte aligned pointers, row strides that are multiples of 16
// elements (16 bytes), as cp.async and TMA need.
tile.kernel @scaled_linear_block_fp8(%A: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                     %B: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                     %C: !tile.ptr<bf16> {tile.align = 16 : i64},
                                     %scale_a: f32, %scale_b: f32,
                                     %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32,
                                     %lda: i32 {tile.divisibility = 16 : i64},
                                     %ldb: i32 {tile.divisibility = 16 : i64},
                                     %ldc: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id x
  %npm = arith.ceildivsi %M, %c128 : i32
  %npn = arith.ceildivsi %N, %c256 : i32
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
  %n0 = arith.muli %pn, %c256 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %tw = tile.load %b[%n0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<256x128xf8E4M3FN>
    %tb = tile.trans %tw : tensor<256x128xf8E4M3FN> -> tensor<128x256xf8E4M3FN>
    %d = tile.dot %ta, %tb, %acc : tensor<128x128xf8E4M3FN>, tensor<128x256xf8E4M3FN> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %s = arith.mulf %scale_a, %scale_b : f32
  %ts = tile.splat %s : tensor<128x256xf32>
  %scaled = arith.mulf %acc, %ts : tensor<128x256xf32>
  %out = arith.truncf %scaled : tensor<128x256xf32> to tensor<128x256xbf16>
  tile.store %out, %c[%m0, %n0] : tensor<128x256xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// scaled_linear_block_fp8 with f32 promotion: each 128-wide K block goes into
// a fresh accumulator that is then added to the f32 sum (DeepGEMM's recipe).
// FP8 wgmma accumulates in reduced precision, so over long K the kernel
// above drifts from an f32 sum (as cuBLAS with use_fast_accum does); this one
// tracks cuBLAS's default mode. Two accumulators a thread need 128x128 tiles,
// and the per-block sum keeps the wgmma synchronous (tile-async-wgmma says why).
tile.kernel @scaled_linear_block_fp8_promoted(%A: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                     %B: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                     %C: !tile.ptr<bf16> {tile.align = 16 : i64},
                                     %scale_a: f32, %scale_b: f32,
                                     %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32,
                                     %lda: i32 {tile.divisibility = 16 : i64},
                                     %ldb: i32 {tile.divisibility = 16 : i64},
                                     %ldc: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npm = arith.ceildivsi %M, %c128 : i32
  %npn = arith.ceildivsi %N, %c256 : i32
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
  %n0 = arith.muli %pn, %c256 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %tw = tile.load %b[%n0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %tb = tile.trans %tw : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %d = tile.dot %ta, %tb, %zero : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
    %sum = arith.addf %acc, %d : tensor<128x128xf32>
    scf.yield %sum : tensor<128x128xf32>
  }
  %s = arith.mulf %scale_a, %scale_b : f32
  %ts = tile.splat %s : tensor<128x128xf32>
  %scaled = arith.mulf %acc, %ts : tensor<128x128xf32>
  %out = arith.truncf %scaled : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %c[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}


// Block-scaled FP8 (DeepGEMM's recipe): A carries one f32 scale per row and
// 128-wide K block (1x128, activations), B one per 128x128 block (weights):
//   C[m, n] = sum_kb scale_a[kb, m] * scale_b[n / 128, kb]
//                    * sum_{k in kb} A[m, k] * B[n, k]
// scale_a is stored [ceil(K/128), M] (M contiguous: DeepGEMM's and
// torch's layout of 1x128 scales), scale_b [ceil(N/128), ceil(K/128)].
// Each K block goes into a fresh accumulator (FP8 wgmma accumulates in
// reduced precision) that is scaled and added to the f32 sum: the
// promotion, one FMA per element. 128x128 tiles, so that a program's
// columns share one scale_b block. The scales are loaded a K block ahead,
// their latency hidden behind the block's wgmma, and take their layout
// from the accumulator's (tile-assign-layouts): each thread loads the
// scales of its own rows.
tile.kernel @scaled_linear_block_fp8_blockwise(%A: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                     %B: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                     %C: !tile.ptr<bf16> {tile.align = 16 : i64},
                                     %SA: !tile.ptr<f32> {tile.align = 16 : i64},
                                     %SB: !tile.ptr<f32> {tile.align = 16 : i64},
                                     %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32,
                                     %lda: i32 {tile.divisibility = 16 : i64},
                                     %ldb: i32 {tile.divisibility = 16 : i64},
                                     %ldc: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npm = arith.ceildivsi %M, %c128 : i32
  %npn = arith.ceildivsi %N, %c128 : i32
  %nkb = arith.ceildivsi %K, %c128 : i32
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
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %sa = tile.make_view %SA[%nkb, %M] strides [%M, 1] : !tile.ptr<f32>
  %sb = tile.make_view %SB[%npn, %nkb] strides [%nkb, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sa0 = tile.load %sa[%c0, %m0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128xf32>
  %sb0 = tile.load %sb[%pn, %c0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<1xf32>
  %acc:3 = scf.for %k = %c0 to %K step %c128 iter_args(%acc = %zero, %vsa = %sa0, %vsb = %sb0)
      -> (tensor<128x128xf32>, tensor<128xf32>, tensor<1xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %tw = tile.load %b[%n0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %tb = tile.trans %tw : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    // The next K block's scales, a step ahead (zero past the last block).
    %k1 = arith.addi %k, %c128 : i32
    %kb1 = arith.divsi %k1, %c128 : i32
    %nsa = tile.load %sa[%kb1, %m0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128xf32>
    %nsb = tile.load %sb[%pn, %kb1] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<1xf32>
    %d = tile.dot %ta, %tb, %zero : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
    %vsbb = tile.broadcast %vsb : tensor<1xf32> -> tensor<128xf32>
    %s = arith.mulf %vsa, %vsbb : tensor<128xf32>
    %s2 = tile.expand_dims %s axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %s3 = tile.broadcast %s2 : tensor<128x1xf32> -> tensor<128x128xf32>
    %sum = math.fma %d, %s3, %acc : tensor<128x128xf32>
    scf.yield %sum, %nsa, %nsb : tensor<128x128xf32>, tensor<128xf32>, tensor<1xf32>
  }
  %out = arith.truncf %acc#0 : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %c[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}


tile.kernel @linear_block_e4m3_e5m2(%A: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
                                    %B: !tile.ptr<f8E5M2> {tile.align = 16 : i64},
                                    %C: !tile.ptr<bf16> {tile.align = 16 : i64},
                                    %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32,
                                    %lda: i32 {tile.divisibility = 16 : i64},
                                    %ldb: i32 {tile.divisibility = 16 : i64},
                                    %ldc: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c256 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<f8E5M2>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %tw = tile.load %b[%n0, %k] : !tile.view<?x?xf8E5M2, strides = [?, 1]> -> tensor<256x128xf8E5M2>
    %tb = tile.trans %tw : tensor<256x128xf8E5M2> -> tensor<128x256xf8E5M2>
    %d = tile.dot %ta, %tb, %acc : tensor<128x128xf8E4M3FN>, tensor<128x256xf8E5M2> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  tile.store %out, %c[%m0, %n0] : tensor<128x256xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
