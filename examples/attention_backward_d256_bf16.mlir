// The attention backward at head dim 256 (Gemma's), as the named op
// tile.attention_backward: bf16, grouped-query K/V (dK and dV of K's shape,
// each group's per-query-head gradients summed by the dkdv_sum stage), the
// bottom-right aligned causal mask. Deterministic only: at head dim 256 the
// atomic mode's fifth product does not fit beside dK and dV.
//
// The chip's rule (getAttentionBackwardConfig in lib/Rules/ShapeRules.cpp)
// takes 64-row programs whose accumulators (dQ; dK and dV) split their 256
// columns over two warpgroups on sm_90a (wgmma, TMA rings whose tiles two
// products read are one copy: share_tiles) or over warp columns on
// mma.sync, with the operands a chained product reads crossing warps
// through shared memory. 'make demo' compiles it for sm_80, sm_89 and
// sm_90a; test/Target/attention-backward-d256-ptx.test checks the PTX.
tile.kernel @attention_bwd_op_bf16_d256_causal_gqa(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %V: !tile.ptr<bf16> {tile.align = 16 : i64},
    %O: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dO: !tile.ptr<bf16> {tile.align = 16 : i64},
    %LSE: !tile.ptr<f32> {tile.align = 16 : i64},
    %dQ: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dK: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dV: !tile.ptr<bf16> {tile.align = 16 : i64},
    %L2: !tile.ptr<f32> {tile.align = 16 : i64},
    %DELTA: !tile.ptr<f32> {tile.align = 16 : i64},
    %dKH: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dVH: !tile.ptr<bf16> {tile.align = 16 : i64},
    %B: i32,
    %H: i32,
    %HK: i32,
    %SQ: i32,
    %SK: i32,
    %q_batch: i32,
    %q_head: i32,
    %k_batch: i32,
    %k_head: i32,
    %v_batch: i32,
    %v_head: i32,
    %o_batch: i32,
    %o_head: i32,
    %do_batch: i32,
    %do_head: i32,
    %dq_batch: i32,
    %dq_head: i32,
    %dk_batch: i32,
    %dk_head: i32,
    %dv_batch: i32,
    %dv_head: i32,
    %dkh_batch: i32,
    %dkh_head: i32,
    %dvh_batch: i32,
    %dvh_head: i32,
    %lse_batch: i32,
    %lse_head: i32,
    %rows_batch: i32,
    %scale: f32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 256] strides [%q_batch, %q_head, 256, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 256] strides [%k_batch, %k_head, 256, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 256] strides [%v_batch, %v_head, 256, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 256] strides [%o_batch, %o_head, 256, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 256] strides [%do_batch, %do_head, 256, 1] : !tile.ptr<bf16>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 256] strides [%dq_batch, %dq_head, 256, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %HK, %SK, 256] strides [%dk_batch, %dk_head, 256, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %HK, %SK, 256] strides [%dv_batch, %dv_head, 256, 1] : !tile.ptr<bf16>
  %dkh = tile.make_view %dKH[%B, %H, %SK, 256] strides [%dkh_batch, %dkh_head, 256, 1] : !tile.ptr<bf16>
  %dvh = tile.make_view %dVH[%B, %H, %SK, 256] strides [%dvh_batch, %dvh_head, 256, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %lse_head, 1] : !tile.ptr<f32>
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv)
      scratch(%l2, %dl) expanded(%dkh, %dvh : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>) scale(%scale) causal
      : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
