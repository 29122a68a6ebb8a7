// A grouped GEMM (the experts of an MoE layer, torch._grouped_mm) in one
// launch: the rows of A [M, K] are the tokens of every group stacked, group
// g's rows [offsets[g - 1], offsets[g]) multiply expert g's weights (B, one
// [K, N] matrix per group, here an nn.Linear weight [N, K] per expert), and
// C [M, N] gets each group's rows; the experts' weights are %sb elements
// apart (N * K when packed). The offsets are read on the GPU, so the
// routing needs no host synchronization; groups may be empty.
// tile-expand-named-ops writes a block program whose programs find their
// group with tile.load_scalar (sm_90a: warp-specialized and persistent over
// every tile of every group).
tile.kernel @gemm_grouped_bf16(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                               %offsets: !tile.ptr<i32>, %groups: i32,
                               %M: i32, %N: i32, %K: i32, %sb: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%groups, %K, %N] strides [%sb, 1, %K] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offsets[%groups] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>)
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?x?xbf16, strides = [?, 1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
