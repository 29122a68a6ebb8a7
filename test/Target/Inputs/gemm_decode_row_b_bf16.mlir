// A decode step's projection x @ W with a row-major weight W [4096, 4096]
// (K x N, N contiguous), run transposed as the config asks: Wᵀ is an
// M-major A operand.
tile.kernel @gemm_decode_row_b_bf16(%X: !tile.ptr<bf16>, %W: !tile.ptr<bf16>, %Y: !tile.ptr<bf16>) {
  %x = tile.make_view %X[1, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[4096, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[1, 4096] strides [4096, 1] : !tile.ptr<bf16>
  tile.gemm %x, %w, %y config <block_m = 16, block_n = 64, block_k = 128, warps = 4, swap_ab = true, tma_store = false>
      : !tile.view<1x4096xbf16, strides = [4096, 1]>, !tile.view<4096x4096xbf16, strides = [4096, 1]>, !tile.view<1x4096xbf16, strides = [4096, 1]>
  tile.return
}
