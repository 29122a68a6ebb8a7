// f32 GEMM on the tensor cores as a block program: C = A * Bᵀ with A (M x K)
// and B (N x K) in f32, both K-contiguous (nn.Linear's weight layout), f32
// accumulation and output. One program per output tile, K in 32-wide steps.
//
// `precision` says how the f32 products are formed:
//
//  * linear_block_tf32, `precision(tf32)`: one TF32 product (10-bit
//    mantissa), what torch.matmul does with allow_tf32.
//    - sm_90a: TMA ring, warp specialization and
//      `wgmma m64n256k8.f32.tf32.tf32`, both operands K-major (tf32 wgmma
//      has no transpose).
//    - sm_80 / sm_89: cp.async ring, `ldmatrix` (16-byte rows of 4 f32),
//      `cvt.rna.tf32.f32` and `mma.sync m16n8k8.tf32`.
//  * linear_block_tf32x3, `precision(tf32x3)`: each input split into a TF32
//    head and the TF32 of its remainder, three products per step (about
//    f32's accuracy). mma.sync on every chip: the split happens in
//    registers, and wgmma would read B from shared memory.
//  * linear_block_f32, the default `precision(ieee)`: exact products, which
//    no tensor core has, on FMA instructions (`fma.rn.f32`, K in order),
//    with K in 8-wide steps: each thread keeps 8 rows of A and 8 columns of
//    B for its 8 x 8 accumulator tile.
//
// The hints: 16-byte aligned pointers, row strides that are multiples of 4
// elements (16 bytes).
tile.kernel @linear_block_tf32(%A: !tile.ptr<f32> {tile.align = 16 : i64},
                               %B: !tile.ptr<f32> {tile.align = 16 : i64},
                               %C: !tile.ptr<f32> {tile.align = 16 : i64},
                               %M: i32, %N: i32 {tile.divisibility = 4 : i64}, %K: i32,
                               %lda: i32 {tile.divisibility = 4 : i64},
                               %ldb: i32 {tile.divisibility = 4 : i64},
                               %ldc: i32 {tile.divisibility = 4 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c256 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c256 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128x32xf32>
    %tw = tile.load %b[%n0, %k] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<256x32xf32>
    %tb = tile.trans %tw : tensor<256x32xf32> -> tensor<32x256xf32>
    %d = tile.dot %ta, %tb, %acc precision(tf32)
        : tensor<128x32xf32>, tensor<32x256xf32> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x256xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

tile.kernel @linear_block_tf32x3(%A: !tile.ptr<f32> {tile.align = 16 : i64},
                                 %B: !tile.ptr<f32> {tile.align = 16 : i64},
                                 %C: !tile.ptr<f32> {tile.align = 16 : i64},
                                 %M: i32, %N: i32 {tile.divisibility = 4 : i64}, %K: i32,
                                 %lda: i32 {tile.divisibility = 4 : i64},
                                 %ldb: i32 {tile.divisibility = 4 : i64},
                                 %ldc: i32 {tile.divisibility = 4 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128x32xf32>
    %tw = tile.load %b[%n0, %k] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128x32xf32>
    %tb = tile.trans %tw : tensor<128x32xf32> -> tensor<32x128xf32>
    %d = tile.dot %ta, %tb, %acc precision(tf32x3)
        : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

tile.kernel @linear_block_f32(%A: !tile.ptr<f32> {tile.align = 16 : i64},
                               %B: !tile.ptr<f32> {tile.align = 16 : i64},
                               %C: !tile.ptr<f32> {tile.align = 16 : i64},
                               %M: i32, %N: i32 {tile.divisibility = 4 : i64}, %K: i32,
                               %lda: i32 {tile.divisibility = 4 : i64},
                               %ldb: i32 {tile.divisibility = 4 : i64},
                               %ldc: i32 {tile.divisibility = 4 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c8 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128x8xf32>
    %tw = tile.load %b[%n0, %k] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128x8xf32>
    %tb = tile.trans %tw : tensor<128x8xf32> -> tensor<8x128xf32>
    %d = tile.dot %ta, %tb, %acc
        : tensor<128x8xf32>, tensor<8x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
