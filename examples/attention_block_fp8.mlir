// FP8 attention forward as a block program (FlashAttention-3's FP8
// recipe): Q, K and V in e4m3 with per-tensor descales, S = Q Kᵀ and
// O = P V on FP8 wgmma (k32), P quantized to e4m3 (cvt.rn.satfinite) after
// the online softmax, and V read K-major: FP8 wgmma has no transpose, so V
// comes transposed, Vt [batch, heads, 128, seq] (seq contiguous, rows
// ldv apart), and tile.trans of its tile folds into a K-major view for TMA.
// The descales: q_descale * k_descale folds into qk_scale (with log2(e) /
// sqrt(d)), v_descale into the final 1 / l. O is bf16 [batch, heads, seq,
// 128]. Otherwise the algorithm of attention_block_bf16.mlir, and the same
// schedule on sm_90a: TMA rings, P·V with P from registers (RS), the
// softmax of one block beside the P·V of the previous one, a producer
// warpgroup. Keys past the sequence get -inf. The K/V ring is three stages
// deep (schedule<stages = 3>), not the five that shared memory allows: on
// the H200 three ran 3-5% faster (bench/attention_fp8.py --variants). Generated
// by scripts/common/attention_block_template.py --fp8.
tile.kernel @attention_block_fp8(%Q: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
    %K: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
    %V: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64},
    %O: !tile.ptr<bf16> {tile.align = 16 : i64},
    %B: i32, %H: i32, %S: i32,
    %sb: i32 {tile.divisibility = 8 : i64},
    %sh: i32 {tile.divisibility = 8 : i64},
    %sbq: i32 {tile.divisibility = 16 : i64},
    %shq: i32 {tile.divisibility = 16 : i64},
    %sbv: i32 {tile.divisibility = 16 : i64},
    %shv: i32 {tile.divisibility = 16 : i64},
    %ldv: i32 {tile.divisibility = 16 : i64},
    %qk_scale: f32, %v_descale: f32)
    grid(ceildiv(%S, 128), %H, %B) warps(8) schedule<stages = 3> {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %mb, %c128 : i32
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sbq, %shq, 128, 1] : !tile.ptr<f8E4M3FN>
  %k = tile.make_view %K[%B, %H, %S, 128] strides [%sbq, %shq, 128, 1] : !tile.ptr<f8E4M3FN>
  %vt = tile.make_view %V[%B, %H, 128, %S] strides [%sbv, %shv, %ldv, 1] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %tq = tile.load %q[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]> -> tensor<128x128xf8E4M3FN>
  // Keys [0, full) are visible to every row; [full, S) need the mask.
  %sfull = arith.divsi %S, %c128 : i32
  %full = arith.muli %sfull, %c128 : i32
  %cols = tile.range 0 to 128 : tensor<128xi32>
  %sb2 = tile.splat %S : tensor<128x128xi32>
  %scale = tile.splat %qk_scale : tensor<128x128xf32>
  %scale_r = tile.splat %qk_scale : tensor<128xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
  %s0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l_init = arith.constant dense<0.0> : tensor<128xf32>
  %res:3 = scf.for %n = %c0 to %S step %c128
      iter_args(%acc = %acc0, %m_i = %m_init, %l_i = %l_init)
      -> (tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>) : i32 {
    %tk = tile.load %k[%b, %h, %n, %c0] : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]> -> tensor<128x128xf8E4M3FN>
    %tvt = tile.load %vt[%b, %h, %c0, %n] : !tile.view<?x?x128x?xf8E4M3FN, strides = [?, ?, ?, 1]> -> tensor<128x128xf8E4M3FN>
    %tv = tile.trans %tvt : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %kt = tile.trans %tk : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %s = tile.dot %tq, %kt, %s0 : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
    %edge = arith.cmpi sge, %n, %full : i32
    %sm = scf.if %edge -> (tensor<128x128xf32>) {
      %ns = tile.splat %n : tensor<128xi32>
      %kj = arith.addi %cols, %ns : tensor<128xi32>
      %kj2 = tile.expand_dims %kj axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
      %kjb = tile.broadcast %kj2 : tensor<1x128xi32> -> tensor<128x128xi32>
      %keep = arith.cmpi slt, %kjb, %sb2 : tensor<128x128xi32>
      %masked = arith.select %keep, %s, %ninf : tensor<128x128xi1>, tensor<128x128xf32>
      scf.yield %masked : tensor<128x128xf32>
    } else {
      scf.yield %s : tensor<128x128xf32>
    }
    %rowmax = tile.reduce max %sm axis = 1 : tensor<128x128xf32> -> tensor<128xf32>
    %rowmax_s = arith.mulf %rowmax, %scale_r : tensor<128xf32>
    %m_new = arith.maximumf %m_i, %rowmax_s : tensor<128xf32>
    %alpha_e = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = math.exp2 %alpha_e fastmath<afn> : tensor<128xf32>
    %mn2 = tile.expand_dims %m_new axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %mnb = tile.broadcast %mn2 : tensor<128x1xf32> -> tensor<128x128xf32>
    %negm = arith.negf %mnb : tensor<128x128xf32>
    %e = math.fma %sm, %scale, %negm : tensor<128x128xf32>
    %p = math.exp2 %e fastmath<afn> : tensor<128x128xf32>
    %psum = tile.reduce sum %p axis = 1 : tensor<128x128xf32> -> tensor<128xf32>
    %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
    %l_new = arith.addf %l_scaled, %psum : tensor<128xf32>
    %a2 = tile.expand_dims %alpha axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %ab = tile.broadcast %a2 : tensor<128x1xf32> -> tensor<128x128xf32>
    %acc_scaled = arith.mulf %acc, %ab : tensor<128x128xf32>
    %pb = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf8E4M3FN>
    %acc_new = tile.dot %pb, %tv, %acc_scaled : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
    scf.yield %acc_new, %m_new, %l_new : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>
  }
  %vds = tile.splat %v_descale : tensor<128xf32>
  %inv = arith.divf %vds, %res#2 : tensor<128xf32>
  %i2 = tile.expand_dims %inv axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %ib = tile.broadcast %i2 : tensor<128x1xf32> -> tensor<128x128xf32>
  %out = arith.mulf %res#0, %ib : tensor<128x128xf32>
  %ob = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %ob, %o[%b, %h, %m0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
