// Packed variable-length sequences (flash-attn's varlen layout): Q, K, V
// and O are [total_tokens, heads, head_dim] tensors read as [1, heads,
// total_tokens, head_dim], and cu_seqlens_q / cu_seqlens_k ([B + 1] i32)
// say where each sequence's tokens start.

// Causal, grouped-query (H query heads over HK K/V heads), head dim 128,
// with the lse ([1, H, total_q]).
tile.kernel @varlen_causal(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %L: !tile.ptr<f32>, %CQ: !tile.ptr<i32>, %CK: !tile.ptr<i32>,
    %B1: i32, %MAXQ: i32, %H: i32, %HK: i32, %TQ: i32, %TK: i32, %qs: i32, %ks: i32) {
  %q = tile.make_view %Q[1, %H, %TQ, 128] strides [0, 128, %qs, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[1, %HK, %TK, 128] strides [0, 128, %ks, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[1, %HK, %TK, 128] strides [0, 128, %ks, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[1, %H, %TQ, 128] strides [0, 128, %qs, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %L[1, %H, %TQ] strides [0, %TQ, 1] : !tile.ptr<f32>
  %cq = tile.make_view %CQ[%B1] strides [1] : !tile.ptr<i32>
  %ck = tile.make_view %CK[%B1] strides [1] : !tile.ptr<i32>
  tile.attention %q, %k, %v, %o lse(%lse)
      cu_seqlens(%cq, %ck : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>)
      max_seqlen_q(%MAXQ) causal
      : !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>,
        !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>,
        !tile.view<1x?x?xf32, strides = [0, ?, 1]>
  tile.return
}

// Not causal, head dim 64, f16, each sequence's keys ended sooner by
// seqused_k.
tile.kernel @varlen_used(%Q: !tile.ptr<f16>, %K: !tile.ptr<f16>, %V: !tile.ptr<f16>,
    %O: !tile.ptr<f16>, %CQ: !tile.ptr<i32>, %CK: !tile.ptr<i32>, %LENS: !tile.ptr<i32>,
    %B: i32, %B1: i32, %MAXQ: i32, %H: i32, %TQ: i32, %TK: i32, %qs: i32) {
  %q = tile.make_view %Q[1, %H, %TQ, 64] strides [0, 64, %qs, 1] : !tile.ptr<f16>
  %k = tile.make_view %K[1, %H, %TK, 64] strides [0, 64, %qs, 1] : !tile.ptr<f16>
  %v = tile.make_view %V[1, %H, %TK, 64] strides [0, 64, %qs, 1] : !tile.ptr<f16>
  %o = tile.make_view %O[1, %H, %TQ, 64] strides [0, 64, %qs, 1] : !tile.ptr<f16>
  %cq = tile.make_view %CQ[%B1] strides [1] : !tile.ptr<i32>
  %ck = tile.make_view %CK[%B1] strides [1] : !tile.ptr<i32>
  %lens = tile.make_view %LENS[%B] strides [1] : !tile.ptr<i32>
  tile.attention %q, %k, %v, %o seqused_k(%lens : !tile.view<?xi32, strides = [1]>)
      cu_seqlens(%cq, %ck : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>)
      max_seqlen_q(%MAXQ)
      : !tile.view<1x?x?x64xf16, strides = [0, 64, ?, 1]>, !tile.view<1x?x?x64xf16, strides = [0, 64, ?, 1]>,
        !tile.view<1x?x?x64xf16, strides = [0, 64, ?, 1]>, !tile.view<1x?x?x64xf16, strides = [0, 64, ?, 1]>
  tile.return
}

// Head dim 256: O's masked store needs a conversion scratch of its tile
// beside Q and the K/V ring, so on sm_90a one consumer warpgroup of 64
// queries.
tile.kernel @varlen_d256(%Q: !tile.ptr<bf16>, %O: !tile.ptr<bf16>, %CQ: !tile.ptr<i32>,
    %B1: i32, %MAXQ: i32, %H: i32, %TQ: i32, %qs: i32) {
  %q = tile.make_view %Q[1, %H, %TQ, 256] strides [0, 256, %qs, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[1, %H, %TQ, 256] strides [0, 256, %qs, 1] : !tile.ptr<bf16>
  %cq = tile.make_view %CQ[%B1] strides [1] : !tile.ptr<i32>
  tile.attention %q, %q, %q, %o
      cu_seqlens(%cq, %cq : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>)
      max_seqlen_q(%MAXQ) causal
      : !tile.view<1x?x?x256xbf16, strides = [0, 256, ?, 1]>, !tile.view<1x?x?x256xbf16, strides = [0, 256, ?, 1]>,
        !tile.view<1x?x?x256xbf16, strides = [0, 256, ?, 1]>, !tile.view<1x?x?x256xbf16, strides = [0, 256, ?, 1]>
  tile.return
}
