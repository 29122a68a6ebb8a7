// examples/attention_bf16.mlir with config <by_passes = false>: the hand-built
// FlashAttention-3 kernel (the causal default before the scheduling passes built
// it), the base of the attention mutants of scripts/dev/gen_async_mutants.py.
// Causal attention forward over [batch, heads, seq, 128] bf16 tensors with
// grouped-query K/V heads and the log-sum-exp of every row: one named op,
// expanded per chip by tile-expand-named-ops.
//   O = softmax(Q Kᵀ / sqrt(128) + causal mask) V
tile.kernel @attention_bf16(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                            %O: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
                            %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                            %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
                            %lse_batch: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) causal config <by_passes = false>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
