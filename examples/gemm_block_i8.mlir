// INT8 GEMM as a block program: C = A * Bᵀ with A (M x K) and B (N x K) in
// i8 (signed, both K-contiguous: the layout torch._int_mm's tensor-core path
// reads), exact i32 accumulation (wrapping past 2^31, as the hardware and
// torch do), i32 output. One program per 128x256 tile, K in 128-wide steps.
//
//  * sm_90a: TMA ring, warp specialization and `wgmma m64n256k32.s32.s8.s8`,
//    both operands K-major from shared memory (8-bit wgmma has no
//    transpose).
//  * sm_80 / sm_89: cp.async ring, `ldmatrix` (16-byte rows of 16 i8) and
//    `mma.sync m16n8k32.s32.s8.s8.s32`.
//
// The hints: 16-byte aligned pointers, row strides that are multiples of 16
// bytes (A, B) and of 4 elements (C).
tile.kernel @linear_block_i8(%A: !tile.ptr<i8> {tile.align = 16 : i64},
                             %B: !tile.ptr<i8> {tile.align = 16 : i64},
                             %C: !tile.ptr<i32> {tile.align = 16 : i64},
                             %M: i32, %N: i32 {tile.divisibility = 4 : i64}, %K: i32,
                             %lda: i32 {tile.divisibility = 16 : i64},
                             %ldb: i32 {tile.divisibility = 16 : i64},
                             %ldc: i32 {tile.divisibility = 4 : i64})
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
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<i8>
  %b = tile.make_view %B[%N, %K] strides [%ldb, 1] : !tile.ptr<i8>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<i32>
  %zero = arith.constant dense<0> : tensor<128x256xi32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%acc = %zero) -> (tensor<128x256xi32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xi8, strides = [?, 1]> -> tensor<128x128xi8>
    %tw = tile.load %b[%n0, %k] : !tile.view<?x?xi8, strides = [?, 1]> -> tensor<256x128xi8>
    %tb = tile.trans %tw : tensor<256x128xi8> -> tensor<128x256xi8>
    %d = tile.dot %ta, %tb, %acc : tensor<128x128xi8>, tensor<128x256xi8> -> tensor<128x256xi32>
    scf.yield %d : tensor<128x256xi32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x256xi32>, !tile.view<?x?xi32, strides = [?, 1]>
  tile.return
}
