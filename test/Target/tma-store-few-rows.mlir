// Regression: a tile of fewer than 8 rows (a row-norm program's 4 x 2048
// output, with the row length known to be a multiple of 16) is not staged
// for a TMA store: the 128-byte swizzled box holds whole 8-row atoms. Before,
// tile-tma-store staged it and the compile failed in the verifier
// ("swizzled boxes need a multiple of 8 rows").

// RUN: tilec %s --chip=sm_90a --emit=cubin -o %t --remarks=tile-tma-store 2>&1 | FileCheck %s
// CHECK: remark: [Missed] NotStaged | Category:tile-tma-store | Reason="the tile is stored by the threads: the tile's 4 rows are not a multiple of 8 (a 128-byte swizzled box holds whole 8-row atoms)"
// CHECK-NOT: error

tile.kernel @rows4(%X: !tile.ptr<bf16> {tile.align = 16 : i64}, %Y: !tile.ptr<bf16> {tile.align = 16 : i64},
                   %M: i32 {tile.divisibility = 16 : i64}, %N: i32 {tile.divisibility = 16 : i64},
                   %ld: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%M, 4)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %pid = tile.program_id x
  %row = arith.muli %pid, %c4 : i32
  %x = tile.make_view %X[%M, %N] strides [%ld, 1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%ld, 1] : !tile.ptr<bf16>
  %t = tile.load %x[%row, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<4x2048xbf16>
  %f = arith.extf %t : tensor<4x2048xbf16> to tensor<4x2048xf32>
  %d = arith.addf %f, %f : tensor<4x2048xf32>
  %b = arith.truncf %d : tensor<4x2048xf32> to tensor<4x2048xbf16>
  tile.store %b, %y[%row, %c0] : tensor<4x2048xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
