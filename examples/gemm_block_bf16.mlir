// C = A * B as a block program, written the way a Triton user writes the
// tutorial matmul: one program per 128x256 tile of C (grouped rasterization:
// 8 tile rows per group, so that neighbouring programs share B tiles in L2),
// a loop over K in 64-wide steps, f32 accumulation, bf16 output. The second
// kernel is nn.Linear's form, C = A * Wᵀ with W stored N x K: the transpose
// of a loaded W tile (wgmma's and ldmatrix's native K-major B operand).
//
// The hints say what the data guarantees: 16-byte aligned pointers, row
// strides (and N) that are multiples of 8 elements. Without them the loads
// stay plain loads; tilec.compile(..., specialize=...) adds them from the
// actual tensors, as Triton does.
//
// What the passes make of it (see `tilec FILE --remarks=tile-`):
//  * sm_90a: tile-tma-pipeline turns both loads into TMA copies into a ring
//    of 128-byte swizzled stages (as deep as shared memory allows) guarded by
//    full/empty mbarriers; wgmma reads the stages in place (the transposed
//    W tile as a K-major operand); tile-async-wgmma keeps one wgmma group in
//    flight; tile-warp-specialize moves the copies to a producer warpgroup
//    (setmaxnreg 40, consumers 232); tile-tma-store writes the tile through a
//    swizzled staging buffer and a TMA store. schedule<persistent = true>
//    (the second kernel) adds tile-persistent: one program per SM walks the
//    tiles, the producer loading the next tile while the consumers store.
//  * sm_80 / sm_89: tile-pipeline's cp.async ring (3 stages) read by
//    ldmatrix (.trans for W) and mma.sync, in double-buffered 16-wide K steps.
tile.kernel @gemm_block_bf16(%A: !tile.ptr<bf16> {tile.align = 16 : i64},
                             %B: !tile.ptr<bf16> {tile.align = 16 : i64},
                             %C: !tile.ptr<bf16> {tile.align = 16 : i64},
                             %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32,
                             %lda: i32 {tile.divisibility = 8 : i64},
                             %ldb: i32 {tile.divisibility = 8 : i64},
                             %ldc: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  // Grouped rasterization of the program id.
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
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  tile.store %out, %c[%m0, %n0] : tensor<128x256xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

tile.kernel @linear_block_bf16(%A: !tile.ptr<bf16> {tile.align = 16 : i64},
                               %W: !tile.ptr<bf16> {tile.align = 16 : i64},
                               %C: !tile.ptr<bf16> {tile.align = 16 : i64},
                               %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32,
                               %lda: i32 {tile.divisibility = 8 : i64},
                               %ldw: i32 {tile.divisibility = 8 : i64},
                               %ldc: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8)
    schedule<persistent = true> {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c64 = arith.constant 64 : i32
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
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[%N, %K] strides [%ldw, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tw = tile.load %w[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<256x64xbf16>
    %tb = tile.trans %tw : tensor<256x64xbf16> -> tensor<64x256xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  tile.store %out, %c[%m0, %n0] : tensor<128x256xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
