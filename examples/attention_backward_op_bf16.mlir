// The attention backward as one named op: tile.attention_backward computes
// dQ, dK and dV from Q, K, V, O, dO and the forward's log-sum-exp (bf16,
// head dim 128, [batch, heads, seq, 128] tensors, grouped-query K/V, the
// bottom-right aligned causal mask, the softmax scale a parameter).
//
// The backward is three kernels launched in order with the same arguments.
// tilec splits each kernel below into them (tile-split-attention-backward)
// and expands each (tile-expand-named-ops) into the block programs of
// examples/attention_backward_bf16.mlir, with the chip's tiles:
//
//  * @attention_bwd_op_bf16_d128_pre, _dq, _dkdv, _dkdv_sum: the
//    deterministic mode (dQ in its own kernel: the same bits on every run),
//    with dK and dV of K's and V's shape [B, HK, SK, 128]: the dK/dV kernel
//    writes one gradient per query head into the `expanded` scratch dKH and
//    dVH ([B, H, SK, 128]), and dkdv_sum adds up each group's;
//  * @attention_bwd_op_bf16_d128_atomic_pre_zero_dq, _dkdv_dq, _dq_scale:
//    the atomic mode (dQ added into an f32 accumulator by the dK/dV kernel),
//    without `expanded`: dK and dV are the per-query-head gradients
//    [B, H, SK, 128] themselves (the caller sums each group's heads when
//    HK < H, as FlashAttention-2 does).
//
// L2 and DELTA are f32 [B, H, SQ] scratch (the lse in the exp2 domain and
// rowsum(dO * O)), DQA the atomic mode's f32 [B, H, SQ, 128] accumulator.
//
//   tilec examples/attention_backward_op_bf16.mlir --chip=sm_90a --emit=cubin -o out
//
// writes out/attention_bwd_op_bf16_d128_pre.{ptx,cubin,json} and the
// others; each JSON names the kernel's grid, warps and parameters.

tile.kernel @attention_bwd_op_bf16_d128(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %dO: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
    %dQ: !tile.ptr<bf16>, %dK: !tile.ptr<bf16>, %dV: !tile.ptr<bf16>,
    %L2: !tile.ptr<f32>, %DELTA: !tile.ptr<f32>,
    %dKH: !tile.ptr<bf16>, %dVH: !tile.ptr<bf16>,
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
    %lse_batch: i32, %lse_head: i32, %dkv_batch: i32, %dkv_head: i32,
    %rows_batch: i32, %scale: f32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %lse_head, 1] : !tile.ptr<f32>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %dkh = tile.make_view %dKH[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dvh = tile.make_view %dVH[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv)
      scratch(%l2, %dl) expanded(%dkh, %dvh : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>)
      scale(%scale) causal
    : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

tile.kernel @attention_bwd_op_bf16_d128_atomic(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %dO: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
    %dQ: !tile.ptr<bf16>, %dK: !tile.ptr<bf16>, %dV: !tile.ptr<bf16>,
    %L2: !tile.ptr<f32>, %DELTA: !tile.ptr<f32>,
    %DQA: !tile.ptr<f32> {tile.align = 16 : i64},
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
    %lse_batch: i32, %lse_head: i32, %dkv_batch: i32, %dkv_head: i32,
    %rows_batch: i32, %scale: f32,
    %dqa_batch: i32, %dqa_head: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %lse_head, 1] : !tile.ptr<f32>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dqa = tile.make_view %DQA[%B, %H, %SQ, 128] strides [%dqa_batch, %dqa_head, 128, 1] : !tile.ptr<f32>
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv)
      scratch(%l2, %dl, %dqa : !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>) scale(%scale) causal atomic
    : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
