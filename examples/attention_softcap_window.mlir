// Gemma-2's local attention forward over [batch, heads, seq, 128] bf16
// tensors: causal, a logit softcap (cap * tanh(s / cap)) and a sliding
// window (query i sees keys i - window < j <= i), with grouped-query K/V
// heads and the log-sum-exp of every row. The softcap is a score_mod and
// the window a mask_mod, as in FlexAttention: regions over one score / one
// query-key pair, applied by the expansion to every block of scores.
//   O = softmax(score_mod(Q Kᵀ / sqrt(128)) + mask_mod + causal mask) V
// The key loop of a query block starts at the first block its window
// reaches (the expansion reads the bound off the mask_mod) and ends at
// the causal diagonal.
tile.kernel @attention_softcap_window(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                     %O: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
                                     %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                     %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
                                     %lse_batch: i32, %cap: f32, %window: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) causal score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    // fastmath<afn>: div.full.f32 and tanh.approx.f32, as Triton and flex.
    %t = arith.divf %s, %cap fastmath<afn> : f32
    %th = math.tanh %t fastmath<afn> : f32
    %capped = arith.mulf %th, %cap : f32
    tile.yield %capped : f32
  } mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    // Queries are bottom-right aligned with the keys (SK - SQ ahead).
    %shift = arith.subi %SK, %SQ : i32
    %qk = arith.addi %qi, %shift : i32
    %behind = arith.subi %qk, %kj : i32
    %inside = arith.cmpi slt, %behind, %window : i32
    tile.yield %inside : i1
  } : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
