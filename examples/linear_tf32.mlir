// nn.Linear in f32 as a named op: C = A * Wᵀ with A (M x K, row-major) and
// W (N x K, so B = Wᵀ is column-major) in f32, f32 accumulation and output,
// for any M, N, K (ragged edges are masked).
//
//  * linear_tf32, `precision(tf32)`: TF32 products, as torch.matmul with
//    allow_tf32. On sm_90a the warp-specialized, persistent wgmma
//    m64n256k8.tf32 kernel on a TMA ring (K steps of 32: 128-byte rows);
//    elsewhere mma.sync m16n8k8.tf32 on a cp.async ring (K steps of 16).
//  * linear_tf32x3, `precision(tf32x3)`: three TF32 products per input pair
//    (about f32's accuracy), on mma.sync on every chip.
//  * linear_f32, the default `precision(ieee)`: exact f32 products, on FMA
//    instructions (no tensor core has them), 128 x 128 tiles, K steps of 8.
//
// The kernels require 16-byte aligned A and W and leading dimensions that
// are multiples of 4 elements (checked by the runtime).
tile.kernel @linear_tf32(%A: !tile.ptr<f32>, %W: !tile.ptr<f32>, %C: !tile.ptr<f32>,
                         %M: i32, %N: i32, %K: i32,
                         %lda: i32, %ldw: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %W[%K, %N] strides [1, %ldw] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c precision(tf32)
      : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [1, ?]>,
        !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

tile.kernel @linear_tf32x3(%A: !tile.ptr<f32>, %W: !tile.ptr<f32>, %C: !tile.ptr<f32>,
                           %M: i32, %N: i32, %K: i32,
                           %lda: i32, %ldw: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %W[%K, %N] strides [1, %ldw] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c precision(tf32x3)
      : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [1, ?]>,
        !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

tile.kernel @linear_f32(%A: !tile.ptr<f32>, %W: !tile.ptr<f32>, %C: !tile.ptr<f32>,
                        %M: i32, %N: i32, %K: i32,
                        %lda: i32, %ldw: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f32>
  %b = tile.make_view %W[%K, %N] strides [1, %ldw] : !tile.ptr<f32>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c
      : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [1, ?]>,
        !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
