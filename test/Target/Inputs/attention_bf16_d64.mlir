// tile.attention at head dim 64 without the causal mask, as tilec.kernels.attention_source
// writes it: on sm_90a the persistent pass-built kernel (O staged in Q's ring slot).
tile.kernel @attention_bf16_d64(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>, %O: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32, %lse_batch: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 64] strides [%kv_batch, %kv_head, 64, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 64] strides [%kv_batch, %kv_head, 64, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
