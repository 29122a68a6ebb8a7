// MoE experts at decode (a few tokens per expert): the grouped GEMM of
// examples/gemm_grouped_bf16.mlir, transposed (swap_ab) on 64-weight x
// 16-token tiles. test/Target/gemm-grouped-swap-ptx.mlir compiles it.
tile.kernel @gemm_grouped_decode_bf16(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                                      %offsets: !tile.ptr<i32>, %groups: i32,
                                      %M: i32, %N: i32, %K: i32, %sb: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%groups, %K, %N] strides [%sb, 1, %K] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offsets[%groups] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>) config <swap_ab = true, block_m = 16, block_n = 64, block_k = 128, warps = 4, tma_store = false>
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?x?xbf16, strides = [?, 1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
