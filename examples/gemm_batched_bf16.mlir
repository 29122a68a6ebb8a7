// A batched GEMM, C[i] = A[i] B[i] for every matrix i of the batch, in one
// launch (torch.bmm): 3-D views [batch, rows, cols] with any batch strides.
// tile-expand-named-ops turns it into one block program whose programs take
// the tiles of every matrix (sm_90a: warp-specialized and persistent over
// all of them). linalg.batch_matmul becomes this through tile-from-linalg.
tile.kernel @gemm_batched_bf16(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                               %batch: i32, %M: i32, %N: i32, %K: i32,
                               %sa: i32, %sb: i32, %sc: i32) {
  %a = tile.make_view %A[%batch, %M, %K] strides [%sa, %K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%batch, %K, %N] strides [%sb, %N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%batch, %M, %N] strides [%sc, %N, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c
      : !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>,
        !tile.view<?x?x?xbf16, strides = [?, ?, 1]>
  tile.return
}
