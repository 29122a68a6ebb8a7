// FlashAttention-2's backward as block programs, the kernels behind
// tilec.attention's autograd formula (scripts/common/backward_kernels.py,
// written out by scripts/dev/attention_backward_example.py): bf16, head dim 128,
// [batch, heads, seq, 128] tensors, grouped-query K/V, causal (bottom-right
// aligned) and not.
//
//  * @attention_bwd_bf16_d128_pre: Delta = rowsum(dO * O) and the forward's
//    log-sum-exp in the exp2 domain (+inf for a row that saw no key).
//  * @attention_bwd_bf16_d128[_causal]_dq: per 128 queries, the key blocks:
//    S = Q Kᵀ, P = exp2(S * qk_scale - lse2), dP = dO Vᵀ,
//    dS = P (dP - Delta), dQ += dS K.
//  * @attention_bwd_bf16_d128[_causal]_dkdv: per 128 keys, the query blocks
//    with the transposed products: Sᵀ = K Qᵀ, dV += Pᵀ dO, dPᵀ = V dOᵀ,
//    dK += dSᵀ Q (one dK/dV per query head; the caller sums a group's).
//
// These are the sm_90a tiles (the dK/dV kernels ask for 240 consumer
// registers, a schedule knob other chips ignore); on sm_80 / sm_89
// tilec.attention_backward takes 32-wide steps at head dim 128
// (backward_kernels.tiles_for).
//
// dQ has its own kernel instead of atomics: deterministic. Each tile that
// two products read is loaded once per product, so that on sm_90a each
// becomes a TMA ring slot that one wgmma reads in place.
//
// The atomic mode (tilec.attention(..., deterministic=False)) follows:
//  * @attention_bwd_bf16_d128_pre_zero_dq: the preprocessing, also zeroing
//    an f32 dQ accumulator;
//  * @attention_bwd_bf16_d128_dkdv_dq: per 64 keys (one warpgroup), the
//    dK/dV steps plus dQ += dS K (dS = (dSᵀ)ᵀ), added into the accumulator
//    with tile.atomic_add (red.global.add.f32);
//  * @attention_bwd_bf16_d128_dq_scale: dQ = accumulator * sm_scale.
//
// What the passes make of it (`tilec FILE --remarks=tile-`): on sm_90a, TMA
// rings with a producer warpgroup, wgmma (Pᵀ and dSᵀ from registers), TMA
// stores of dQ, dK and dV; on sm_80 / sm_89, cp.async rings, ldmatrix and
// mma.sync.

tile.kernel @attention_bwd_bf16_d128_pre(%O: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dO: !tile.ptr<bf16> {tile.align = 16 : i64},
    %LSE: !tile.ptr<f32> {tile.align = 16 : i64},
    %L2: !tile.ptr<f32> {tile.align = 16 : i64},
    %DELTA: !tile.ptr<f32> {tile.align = 16 : i64},
    %B: i32, %H: i32, %SQ: i32,
    %o_batch: i32 {tile.divisibility = 8 : i64},
    %o_head: i32 {tile.divisibility = 8 : i64},
    %do_batch: i32 {tile.divisibility = 8 : i64},
    %do_head: i32 {tile.divisibility = 8 : i64},
    %lse_batch: i32)
    grid(ceildiv(%SQ, 128), %H, %B) warps(4) {
  %c0 = arith.constant 0 : i32
  %cm = arith.constant 128 : i32
  %mb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %mb, %cm : i32
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%o_batch, %o_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%do_batch, %do_head, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  %HSQ = arith.muli %H, %SQ : i32
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %to = tile.load %o[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %tdo = tile.load %do[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %of = arith.extf %to : tensor<128x128xbf16> to tensor<128x128xf32>
  %dof = arith.extf %tdo : tensor<128x128xbf16> to tensor<128x128xf32>
  %prod = arith.mulf %of, %dof : tensor<128x128xf32>
  %delta = tile.reduce sum %prod axis = 1 : tensor<128x128xf32> -> tensor<128xf32>
  tile.store %delta, %dl[%b, %h, %m0] : tensor<128xf32>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  %tl = tile.load %l[%b, %h, %m0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<128xf32>
  %log2e = arith.constant dense<1.44269504> : tensor<128xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  %pinf = arith.constant dense<0x7F800000> : tensor<128xf32>
  %tl2 = arith.mulf %tl, %log2e : tensor<128xf32>
  %empty = arith.cmpf oeq, %tl, %ninf : tensor<128xf32>
  %tl3 = arith.select %empty, %pinf, %tl2 : tensor<128xi1>, tensor<128xf32>
  tile.store %tl3, %l2[%b, %h, %m0] : tensor<128xf32>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

tile.kernel @attention_bwd_bf16_d128_dq(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %V: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dO: !tile.ptr<bf16> {tile.align = 16 : i64},
    %L2: !tile.ptr<f32> {tile.align = 16 : i64},
    %DELTA: !tile.ptr<f32> {tile.align = 16 : i64},
    %dQ: !tile.ptr<bf16> {tile.align = 16 : i64},
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32 {tile.divisibility = 8 : i64},
    %q_head: i32 {tile.divisibility = 8 : i64},
    %kv_batch: i32 {tile.divisibility = 8 : i64},
    %kv_head: i32 {tile.divisibility = 8 : i64},
    %do_batch: i32 {tile.divisibility = 8 : i64},
    %do_head: i32 {tile.divisibility = 8 : i64},
    %dq_batch: i32 {tile.divisibility = 8 : i64},
    %dq_head: i32 {tile.divisibility = 8 : i64},
    %qk_scale: f32, %sm_scale: f32)
    grid(ceildiv(%SQ, 128), %H, %B) warps(8) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  %cn = arith.constant 64 : i32
  %mb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %mb, %cm : i32
  %group = arith.divui %H, %HK : i32
  %hk = arith.divui %h, %group : i32
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%do_batch, %do_head, 128, 1] : !tile.ptr<bf16>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%dq_batch, %dq_head, 128, 1] : !tile.ptr<bf16>
  %HSQ = arith.muli %H, %SQ : i32
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %tq = tile.load %q[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %tdo = tile.load %do[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %tl = tile.load %l2[%b, %h, %m0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<128xf32>
  %td = tile.load %dl[%b, %h, %m0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<128xf32>
  %lb_e = tile.expand_dims %tl axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %lb_e : tensor<128x1xf32> -> tensor<128x64xf32>
  %negl = arith.negf %lb : tensor<128x64xf32>
  %db_e = tile.expand_dims %td axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %db = tile.broadcast %db_e : tensor<128x1xf32> -> tensor<128x64xf32>
  %f0 = arith.divsi %SK, %cn : i32
  %full = arith.muli %f0, %cn : i32
  %klim = tile.splat %SK : tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %scale = tile.splat %qk_scale : tensor<128x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %s0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %res = scf.for %n = %c0 to %SK step %cn iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %tk = tile.load %k[%b, %hk, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %kt = tile.trans %tk : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %s = tile.dot %tq, %kt, %s0 : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %edge = arith.cmpi sge, %n, %full : i32
    %sm = scf.if %edge -> (tensor<128x64xf32>) {
      %ns = tile.splat %n : tensor<64xi32>
      %kj = arith.addi %cols, %ns : tensor<64xi32>
      %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
      %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
      %keep = arith.cmpi slt, %kjb, %klim : tensor<128x64xi32>
      %masked = arith.select %keep, %s, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
      scf.yield %masked : tensor<128x64xf32>
    } else {
      scf.yield %s : tensor<128x64xf32>
    }
    %e = math.fma %sm, %scale, %negl : tensor<128x64xf32>
    %p = math.exp2 %e fastmath<afn> : tensor<128x64xf32>
    %tv = tile.load %v[%b, %hk, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %vt = tile.trans %tv : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dp = tile.dot %tdo, %vt, %s0 : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %dpd = arith.subf %dp, %db : tensor<128x64xf32>
    %ds = arith.mulf %p, %dpd : tensor<128x64xf32>
    %dsb = arith.truncf %ds : tensor<128x64xf32> to tensor<128x64xbf16>
    %tk2 = tile.load %k[%b, %hk, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %acc_new = tile.dot %dsb, %tk2, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %acc_new : tensor<128x128xf32>
  }
  %smv = tile.splat %sm_scale : tensor<128x128xf32>
  %out = arith.mulf %res, %smv : tensor<128x128xf32>
  %ob = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %ob, %dq[%b, %h, %m0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

tile.kernel @attention_bwd_bf16_d128_dkdv(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %V: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dO: !tile.ptr<bf16> {tile.align = 16 : i64},
    %L2: !tile.ptr<f32> {tile.align = 16 : i64},
    %DELTA: !tile.ptr<f32> {tile.align = 16 : i64},
    %dK: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dV: !tile.ptr<bf16> {tile.align = 16 : i64},
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32 {tile.divisibility = 8 : i64},
    %q_head: i32 {tile.divisibility = 8 : i64},
    %kv_batch: i32 {tile.divisibility = 8 : i64},
    %kv_head: i32 {tile.divisibility = 8 : i64},
    %do_batch: i32 {tile.divisibility = 8 : i64},
    %do_head: i32 {tile.divisibility = 8 : i64},
    %dkv_batch: i32 {tile.divisibility = 8 : i64},
    %dkv_head: i32 {tile.divisibility = 8 : i64},
    %qk_scale: f32, %sm_scale: f32)
    grid(ceildiv(%SK, 128), %H, %B) warps(8) schedule<producer_regs = 24, consumer_regs = 240> {
  %c0 = arith.constant 0 : i32
  %cm = arith.constant 64 : i32
  %cn = arith.constant 128 : i32
  %nb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %n0 = arith.muli %nb, %cn : i32
  %group = arith.divui %H, %HK : i32
  %hk = arith.divui %h, %group : i32
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%do_batch, %do_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %HSQ = arith.muli %H, %SQ : i32
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %tk = tile.load %k[%b, %hk, %n0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %tv = tile.load %v[%b, %hk, %n0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %scale = tile.splat %qk_scale : tensor<128x64xf32>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %tl0 = tile.load %l2[%b, %h, %c0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
  %td0 = tile.load %dl[%b, %h, %c0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
  %res:4 = scf.for %m = %c0 to %SQ step %cm iter_args(%adk = %acc0, %adv = %acc0, %tl = %tl0, %td = %td0) -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<64xf32>, tensor<64xf32>) : i32 {
    %mn = arith.addi %m, %cm : i32
    %tln = tile.load %l2[%b, %h, %mn] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
    %tdn = tile.load %dl[%b, %h, %mn] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
    %tq = tile.load %q[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %qt = tile.trans %tq : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %st = tile.dot %tk, %qt, %z : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %lb_e = tile.expand_dims %tl axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
    %lb = tile.broadcast %lb_e : tensor<1x64xf32> -> tensor<128x64xf32>
    %negl = arith.negf %lb : tensor<128x64xf32>
    %e = math.fma %st, %scale, %negl : tensor<128x64xf32>
    %pt = math.exp2 %e fastmath<afn> : tensor<128x64xf32>
    %ptb = arith.truncf %pt : tensor<128x64xf32> to tensor<128x64xbf16>
    %tdo = tile.load %do[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %adv2 = tile.dot %ptb, %tdo, %adv : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %tdo2 = tile.load %do[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %dot = tile.trans %tdo2 : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dpt = tile.dot %tv, %dot, %z : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %db_e = tile.expand_dims %td axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
    %db = tile.broadcast %db_e : tensor<1x64xf32> -> tensor<128x64xf32>
    %dpd = arith.subf %dpt, %db : tensor<128x64xf32>
    %dst = arith.mulf %pt, %dpd : tensor<128x64xf32>
    %dstb = arith.truncf %dst : tensor<128x64xf32> to tensor<128x64xbf16>
    %tq2 = tile.load %q[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %adk2 = tile.dot %dstb, %tq2, %adk : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %adk2, %adv2, %tln, %tdn : tensor<128x128xf32>, tensor<128x128xf32>, tensor<64xf32>, tensor<64xf32>
  }
  %smv = tile.splat %sm_scale : tensor<128x128xf32>
  %dko = arith.mulf %res#0, %smv : tensor<128x128xf32>
  %dkb = arith.truncf %dko : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %dkb, %dk[%b, %h, %n0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  %dvb = arith.truncf %res#1 : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %dvb, %dv[%b, %h, %n0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

tile.kernel @attention_bwd_bf16_d128_causal_dq(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %V: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dO: !tile.ptr<bf16> {tile.align = 16 : i64},
    %L2: !tile.ptr<f32> {tile.align = 16 : i64},
    %DELTA: !tile.ptr<f32> {tile.align = 16 : i64},
    %dQ: !tile.ptr<bf16> {tile.align = 16 : i64},
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32 {tile.divisibility = 8 : i64},
    %q_head: i32 {tile.divisibility = 8 : i64},
    %kv_batch: i32 {tile.divisibility = 8 : i64},
    %kv_head: i32 {tile.divisibility = 8 : i64},
    %do_batch: i32 {tile.divisibility = 8 : i64},
    %do_head: i32 {tile.divisibility = 8 : i64},
    %dq_batch: i32 {tile.divisibility = 8 : i64},
    %dq_head: i32 {tile.divisibility = 8 : i64},
    %qk_scale: f32, %sm_scale: f32)
    grid(ceildiv(%SQ, 128), %H, %B) warps(8) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm = arith.constant 128 : i32
  %cn = arith.constant 64 : i32
  %mb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %mb, %cm : i32
  %group = arith.divui %H, %HK : i32
  %hk = arith.divui %h, %group : i32
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%do_batch, %do_head, 128, 1] : !tile.ptr<bf16>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%dq_batch, %dq_head, 128, 1] : !tile.ptr<bf16>
  %HSQ = arith.muli %H, %SQ : i32
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %tq = tile.load %q[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %tdo = tile.load %do[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %tl = tile.load %l2[%b, %h, %m0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<128xf32>
  %td = tile.load %dl[%b, %h, %m0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<128xf32>
  %lb_e = tile.expand_dims %tl axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %lb_e : tensor<128x1xf32> -> tensor<128x64xf32>
  %negl = arith.negf %lb : tensor<128x64xf32>
  %db_e = tile.expand_dims %td axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %db = tile.broadcast %db_e : tensor<128x1xf32> -> tensor<128x64xf32>
  %off = arith.subi %SK, %SQ : i32
  %last = arith.addi %m0, %cm : i32
  %end0 = arith.addi %last, %off : i32
  %end1 = arith.minsi %end0, %SK : i32
  %end = arith.maxsi %end1, %c0 : i32
  %f0 = arith.addi %m0, %off : i32
  %f1 = arith.addi %f0, %c1 : i32
  %f2 = arith.maxsi %f1, %c0 : i32
  %f3 = arith.divsi %f2, %cn : i32
  %f4 = arith.muli %f3, %cn : i32
  %full = arith.minsi %f4, %end : i32
  %rows = tile.range 0 to 128 : tensor<128xi32>
  %offs = tile.splat %f0 : tensor<128xi32>
  %qi = arith.addi %rows, %offs : tensor<128xi32>
  %qi2 = tile.expand_dims %qi axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %qlim = tile.broadcast %qi2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %scale = tile.splat %qk_scale : tensor<128x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %s0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %res = scf.for %n = %c0 to %end step %cn iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %tk = tile.load %k[%b, %hk, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %kt = tile.trans %tk : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %s = tile.dot %tq, %kt, %s0 : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %edge = arith.cmpi sge, %n, %full : i32
    %sm = scf.if %edge -> (tensor<128x64xf32>) {
      %ns = tile.splat %n : tensor<64xi32>
      %kj = arith.addi %cols, %ns : tensor<64xi32>
      %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
      %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
      %keep = arith.cmpi sle, %kjb, %qlim : tensor<128x64xi32>
      %masked = arith.select %keep, %s, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
      scf.yield %masked : tensor<128x64xf32>
    } else {
      scf.yield %s : tensor<128x64xf32>
    }
    %e = math.fma %sm, %scale, %negl : tensor<128x64xf32>
    %p = math.exp2 %e fastmath<afn> : tensor<128x64xf32>
    %tv = tile.load %v[%b, %hk, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %vt = tile.trans %tv : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dp = tile.dot %tdo, %vt, %s0 : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %dpd = arith.subf %dp, %db : tensor<128x64xf32>
    %ds = arith.mulf %p, %dpd : tensor<128x64xf32>
    %dsb = arith.truncf %ds : tensor<128x64xf32> to tensor<128x64xbf16>
    %tk2 = tile.load %k[%b, %hk, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %acc_new = tile.dot %dsb, %tk2, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %acc_new : tensor<128x128xf32>
  }
  %smv = tile.splat %sm_scale : tensor<128x128xf32>
  %out = arith.mulf %res, %smv : tensor<128x128xf32>
  %ob = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %ob, %dq[%b, %h, %m0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

tile.kernel @attention_bwd_bf16_d128_causal_dkdv(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %V: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dO: !tile.ptr<bf16> {tile.align = 16 : i64},
    %L2: !tile.ptr<f32> {tile.align = 16 : i64},
    %DELTA: !tile.ptr<f32> {tile.align = 16 : i64},
    %dK: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dV: !tile.ptr<bf16> {tile.align = 16 : i64},
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32 {tile.divisibility = 8 : i64},
    %q_head: i32 {tile.divisibility = 8 : i64},
    %kv_batch: i32 {tile.divisibility = 8 : i64},
    %kv_head: i32 {tile.divisibility = 8 : i64},
    %do_batch: i32 {tile.divisibility = 8 : i64},
    %do_head: i32 {tile.divisibility = 8 : i64},
    %dkv_batch: i32 {tile.divisibility = 8 : i64},
    %dkv_head: i32 {tile.divisibility = 8 : i64},
    %qk_scale: f32, %sm_scale: f32)
    grid(ceildiv(%SK, 128), %H, %B) warps(8) schedule<producer_regs = 24, consumer_regs = 240> {
  %c0 = arith.constant 0 : i32
  %cm = arith.constant 64 : i32
  %cn = arith.constant 128 : i32
  %nb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %n0 = arith.muli %nb, %cn : i32
  %group = arith.divui %H, %HK : i32
  %hk = arith.divui %h, %group : i32
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%do_batch, %do_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %HSQ = arith.muli %H, %SQ : i32
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %tk = tile.load %k[%b, %hk, %n0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %tv = tile.load %v[%b, %hk, %n0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %off = arith.subi %SK, %SQ : i32
  %s0i = arith.subi %n0, %off : i32
  %s1 = arith.maxsi %s0i, %c0 : i32
  %s2 = arith.divsi %s1, %cm : i32
  %s3 = arith.muli %s2, %cm : i32
  %start = arith.minsi %s3, %SQ : i32
  %f0 = arith.addi %s0i, %cn : i32
  %f1 = arith.maxsi %f0, %start : i32
  %full = arith.minsi %f1, %SQ : i32
  %rows = tile.range 0 to 128 : tensor<128xi32>
  %lims = tile.splat %s0i : tensor<128xi32>
  %kq = arith.addi %rows, %lims : tensor<128xi32>
  %kq2 = tile.expand_dims %kq axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %kqb = tile.broadcast %kq2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %scale = tile.splat %qk_scale : tensor<128x64xf32>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %tl0 = tile.load %l2[%b, %h, %start] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
  %td0 = tile.load %dl[%b, %h, %start] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
  %res:4 = scf.for %m = %start to %SQ step %cm iter_args(%adk = %acc0, %adv = %acc0, %tl = %tl0, %td = %td0) -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<64xf32>, tensor<64xf32>) : i32 {
    %mn = arith.addi %m, %cm : i32
    %tln = tile.load %l2[%b, %h, %mn] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
    %tdn = tile.load %dl[%b, %h, %mn] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
    %tq = tile.load %q[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %qt = tile.trans %tq : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %st = tile.dot %tk, %qt, %z : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %edge = arith.cmpi slt, %m, %full : i32
    %stm = scf.if %edge -> (tensor<128x64xf32>) {
      %ms = tile.splat %m : tensor<64xi32>
      %qi = arith.addi %cols, %ms : tensor<64xi32>
      %qi2 = tile.expand_dims %qi axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
      %qib = tile.broadcast %qi2 : tensor<1x64xi32> -> tensor<128x64xi32>
      %keep = arith.cmpi sge, %qib, %kqb : tensor<128x64xi32>
      %masked = arith.select %keep, %st, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
      scf.yield %masked : tensor<128x64xf32>
    } else {
      scf.yield %st : tensor<128x64xf32>
    }
    %lb_e = tile.expand_dims %tl axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
    %lb = tile.broadcast %lb_e : tensor<1x64xf32> -> tensor<128x64xf32>
    %negl = arith.negf %lb : tensor<128x64xf32>
    %e = math.fma %stm, %scale, %negl : tensor<128x64xf32>
    %pt = math.exp2 %e fastmath<afn> : tensor<128x64xf32>
    %ptb = arith.truncf %pt : tensor<128x64xf32> to tensor<128x64xbf16>
    %tdo = tile.load %do[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %adv2 = tile.dot %ptb, %tdo, %adv : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %tdo2 = tile.load %do[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %dot = tile.trans %tdo2 : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dpt = tile.dot %tv, %dot, %z : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %db_e = tile.expand_dims %td axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
    %db = tile.broadcast %db_e : tensor<1x64xf32> -> tensor<128x64xf32>
    %dpd = arith.subf %dpt, %db : tensor<128x64xf32>
    %dst = arith.mulf %pt, %dpd : tensor<128x64xf32>
    %dstb = arith.truncf %dst : tensor<128x64xf32> to tensor<128x64xbf16>
    %tq2 = tile.load %q[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %adk2 = tile.dot %dstb, %tq2, %adk : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %adk2, %adv2, %tln, %tdn : tensor<128x128xf32>, tensor<128x128xf32>, tensor<64xf32>, tensor<64xf32>
  }
  %smv = tile.splat %sm_scale : tensor<128x128xf32>
  %dko = arith.mulf %res#0, %smv : tensor<128x128xf32>
  %dkb = arith.truncf %dko : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %dkb, %dk[%b, %h, %n0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  %dvb = arith.truncf %res#1 : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %dvb, %dv[%b, %h, %n0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

tile.kernel @attention_bwd_bf16_d128_pre_zero_dq(%O: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dO: !tile.ptr<bf16> {tile.align = 16 : i64},
    %LSE: !tile.ptr<f32> {tile.align = 16 : i64},
    %L2: !tile.ptr<f32> {tile.align = 16 : i64},
    %DELTA: !tile.ptr<f32> {tile.align = 16 : i64},
    %DQA: !tile.ptr<f32> {tile.align = 16 : i64},
    %B: i32, %H: i32, %SQ: i32,
    %o_batch: i32 {tile.divisibility = 8 : i64},
    %o_head: i32 {tile.divisibility = 8 : i64},
    %do_batch: i32 {tile.divisibility = 8 : i64},
    %do_head: i32 {tile.divisibility = 8 : i64},
    %lse_batch: i32, %dqa_batch: i32 {tile.divisibility = 8 : i64},
    %dqa_head: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%SQ, 128), %H, %B) warps(4) {
  %c0 = arith.constant 0 : i32
  %cm = arith.constant 128 : i32
  %mb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %mb, %cm : i32
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%o_batch, %o_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%do_batch, %do_head, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  %HSQ = arith.muli %H, %SQ : i32
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %to = tile.load %o[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %tdo = tile.load %do[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %of = arith.extf %to : tensor<128x128xbf16> to tensor<128x128xf32>
  %dof = arith.extf %tdo : tensor<128x128xbf16> to tensor<128x128xf32>
  %prod = arith.mulf %of, %dof : tensor<128x128xf32>
  %delta = tile.reduce sum %prod axis = 1 : tensor<128x128xf32> -> tensor<128xf32>
  tile.store %delta, %dl[%b, %h, %m0] : tensor<128xf32>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  %tl = tile.load %l[%b, %h, %m0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<128xf32>
  %log2e = arith.constant dense<1.44269504> : tensor<128xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  %pinf = arith.constant dense<0x7F800000> : tensor<128xf32>
  %tl2 = arith.mulf %tl, %log2e : tensor<128xf32>
  %empty = arith.cmpf oeq, %tl, %ninf : tensor<128xf32>
  %tl3 = arith.select %empty, %pinf, %tl2 : tensor<128xi1>, tensor<128xf32>
  tile.store %tl3, %l2[%b, %h, %m0] : tensor<128xf32>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  %dqa = tile.make_view %DQA[%B, %H, %SQ, 128] strides [%dqa_batch, %dqa_head, 128, 1] : !tile.ptr<f32>
  %zq = arith.constant dense<0.0> : tensor<128x128xf32>
  tile.store %zq, %dqa[%b, %h, %m0, %c0] : tensor<128x128xf32>, !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>
  tile.return
}

tile.kernel @attention_bwd_bf16_d128_dkdv_dq(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %V: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dO: !tile.ptr<bf16> {tile.align = 16 : i64},
    %L2: !tile.ptr<f32> {tile.align = 16 : i64},
    %DELTA: !tile.ptr<f32> {tile.align = 16 : i64},
    %dK: !tile.ptr<bf16> {tile.align = 16 : i64},
    %dV: !tile.ptr<bf16> {tile.align = 16 : i64},
    %DQA: !tile.ptr<f32> {tile.align = 16 : i64},
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32 {tile.divisibility = 8 : i64},
    %q_head: i32 {tile.divisibility = 8 : i64},
    %kv_batch: i32 {tile.divisibility = 8 : i64},
    %kv_head: i32 {tile.divisibility = 8 : i64},
    %do_batch: i32 {tile.divisibility = 8 : i64},
    %do_head: i32 {tile.divisibility = 8 : i64},
    %dkv_batch: i32 {tile.divisibility = 8 : i64},
    %dkv_head: i32 {tile.divisibility = 8 : i64},
    %qk_scale: f32, %sm_scale: f32, %dqa_batch: i32 {tile.divisibility = 8 : i64},
    %dqa_head: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%SK, 64), %H, %B) warps(4) {
  %c0 = arith.constant 0 : i32
  %cm = arith.constant 64 : i32
  %cn = arith.constant 64 : i32
  %nb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %n0 = arith.muli %nb, %cn : i32
  %group = arith.divui %H, %HK : i32
  %hk = arith.divui %h, %group : i32
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%do_batch, %do_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %HSQ = arith.muli %H, %SQ : i32
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>
  %tk = tile.load %k[%b, %hk, %n0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
  %tv = tile.load %v[%b, %hk, %n0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
  %dqa = tile.make_view %DQA[%B, %H, %SQ, 128] strides [%dqa_batch, %dqa_head, 128, 1] : !tile.ptr<f32>
  %tkq0 = tile.load %k[%b, %hk, %n0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x64xbf16>
  %cq64 = arith.constant 64 : i32
  %tkq64 = tile.load %k[%b, %hk, %n0, %cq64] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x64xbf16>
  %scale = tile.splat %qk_scale : tensor<64x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
  %tl0 = tile.load %l2[%b, %h, %c0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
  %td0 = tile.load %dl[%b, %h, %c0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
  %res:4 = scf.for %m = %c0 to %SQ step %cm iter_args(%adk = %acc0, %adv = %acc0, %tl = %tl0, %td = %td0) -> (tensor<64x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>) : i32 {
    %mn = arith.addi %m, %cm : i32
    %tln = tile.load %l2[%b, %h, %mn] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
    %tdn = tile.load %dl[%b, %h, %mn] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<64xf32>
    %tq = tile.load %q[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %qt = tile.trans %tq : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %st = tile.dot %tk, %qt, %z : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %lb_e = tile.expand_dims %tl axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
    %lb = tile.broadcast %lb_e : tensor<1x64xf32> -> tensor<64x64xf32>
    %negl = arith.negf %lb : tensor<64x64xf32>
    %e = math.fma %st, %scale, %negl : tensor<64x64xf32>
    %pt = math.exp2 %e fastmath<afn> : tensor<64x64xf32>
    %ptb = arith.truncf %pt : tensor<64x64xf32> to tensor<64x64xbf16>
    %tdo = tile.load %do[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %adv2 = tile.dot %ptb, %tdo, %adv : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    %tdo2 = tile.load %do[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %dot = tile.trans %tdo2 : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %dpt = tile.dot %tv, %dot, %z : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %db_e = tile.expand_dims %td axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
    %db = tile.broadcast %db_e : tensor<1x64xf32> -> tensor<64x64xf32>
    %dpd = arith.subf %dpt, %db : tensor<64x64xf32>
    %dst = arith.mulf %pt, %dpd : tensor<64x64xf32>
    %dstb = arith.truncf %dst : tensor<64x64xf32> to tensor<64x64xbf16>
    %tq2 = tile.load %q[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<64x128xbf16>
    %adk2 = tile.dot %dstb, %tq2, %adk : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    %dsb = tile.trans %dstb : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %zq = arith.constant dense<0.0> : tensor<64x64xf32>
    %dqp0 = tile.dot %dsb, %tkq0, %zq : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.atomic_add %dqp0, %dqa[%b, %h, %m, %c0] : tensor<64x64xf32>, !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>
    %dqp64 = tile.dot %dsb, %tkq64, %zq : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.atomic_add %dqp64, %dqa[%b, %h, %m, %cq64] : tensor<64x64xf32>, !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>
    scf.yield %adk2, %adv2, %tln, %tdn : tensor<64x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>
  }
  %smv = tile.splat %sm_scale : tensor<64x128xf32>
  %dko = arith.mulf %res#0, %smv : tensor<64x128xf32>
  %dkb = arith.truncf %dko : tensor<64x128xf32> to tensor<64x128xbf16>
  tile.store %dkb, %dk[%b, %h, %n0, %c0] : tensor<64x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  %dvb = arith.truncf %res#1 : tensor<64x128xf32> to tensor<64x128xbf16>
  tile.store %dvb, %dv[%b, %h, %n0, %c0] : tensor<64x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

tile.kernel @attention_bwd_bf16_d128_dq_scale(%DQA: !tile.ptr<f32> {tile.align = 16 : i64},
    %dQ: !tile.ptr<bf16> {tile.align = 16 : i64},
    %B: i32, %H: i32, %SQ: i32,
    %dq_batch: i32 {tile.divisibility = 8 : i64},
    %dq_head: i32 {tile.divisibility = 8 : i64},
    %sm_scale: f32, %dqa_batch: i32 {tile.divisibility = 8 : i64},
    %dqa_head: i32 {tile.divisibility = 8 : i64})
    grid(ceildiv(%SQ, 128), %H, %B) warps(4) {
  %c0 = arith.constant 0 : i32
  %cm = arith.constant 128 : i32
  %mb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %mb, %cm : i32
  %dqa = tile.make_view %DQA[%B, %H, %SQ, 128] strides [%dqa_batch, %dqa_head, 128, 1] : !tile.ptr<f32>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%dq_batch, %dq_head, 128, 1] : !tile.ptr<bf16>
  %acc = tile.load %dqa[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]> -> tensor<128x128xf32>
  %smv = tile.splat %sm_scale : tensor<128x128xf32>
  %out = arith.mulf %acc, %smv : tensor<128x128xf32>
  %ob = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %ob, %dq[%b, %h, %m0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
