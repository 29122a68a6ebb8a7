// A decode step's projection: one token times an nn.Linear weight
// [4096, 4096] (static sizes, so the shape rule configures it).
tile.kernel @gemm_decode_bf16(%X: !tile.ptr<bf16>, %W: !tile.ptr<bf16>, %Y: !tile.ptr<bf16>) {
  %x = tile.make_view %X[1, 4096] strides [4096, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[4096, 4096] strides [1, 4096] : !tile.ptr<bf16>
  %y = tile.make_view %Y[1, 4096] strides [4096, 1] : !tile.ptr<bf16>
  tile.gemm %x, %w, %y : !tile.view<1x4096xbf16, strides = [4096, 1]>, !tile.view<4096x4096xbf16, strides = [1, 4096]>, !tile.view<1x4096xbf16, strides = [4096, 1]>
  tile.return
}
