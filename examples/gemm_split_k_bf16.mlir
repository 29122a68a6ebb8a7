// A decode GEMM with a deep K (a few tokens times an nn.Linear weight
// [N, K]) in split-K: each tile of C has its K steps in four ranges, one
// program each, so that the programs fill the GPU where the tiles alone
// would leave SMs idle. tile-split-stages makes it two kernels, launched in
// order with the same arguments: @gemm_split_k_bf16_partial stores each
// range's f32 sums in the workspace W [4, M, N] (rows %ldw, matrices %sw
// elements apart), and @gemm_split_k_bf16_reduce adds them in range order
// (the same bits on every run), adds the bias and rounds to bf16. The tiles
// are the decode rule's (swap_ab: the weight's rows ride the MMA's M).
tile.kernel @gemm_split_k_bf16(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                               %bias: !tile.ptr<bf16>, %W: !tile.ptr<f32>,
                               %M: i32, %N: i32, %K: i32, %ldw: i32, %sw: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [1, %K] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %bv = tile.make_view %bias[%N] strides [1] : !tile.ptr<bf16>
  %w = tile.make_view %W[4, %M, %N] strides [%sw, %ldw, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c workspace(%w : !tile.view<4x?x?xf32, strides = [?, ?, 1]>) bias(%bv)
      config <split_k = 4, swap_ab = true, block_m = 16, block_n = 64, block_k = 128,
              warps = 4, tma_store = false>
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?xbf16, strides = [1]>
  tile.return
}
