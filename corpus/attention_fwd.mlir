// Triton tutorial 06 (fused attention), forward, non-causal, head dim 64:
// one program per 128 queries of one (batch, head) (the grid's y is
// batch * heads, split in the kernel), 64-key blocks, 4 warps. The online
// softmax runs in the log2 domain (qk_scale = sm_scale * log2(e)); l_i
// starts at 1 as in the tutorial (the first block's alpha is 0). The
// tutorial assumes whole blocks; this port masks keys past S in every
// block, as a user does first. Besides O it stores the row's log2-domain
// log-sum-exp M = m_i + log2(l_i), as the tutorial does for the backward.
tile.kernel @attention_fwd(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
                           %K: !tile.ptr<bf16> {tile.align = 16 : i64},
                           %V: !tile.ptr<bf16> {tile.align = 16 : i64},
                           %O: !tile.ptr<bf16> {tile.align = 16 : i64},
                           %Lse: !tile.ptr<f32> {tile.align = 16 : i64},
                           %sm_scale: f32,
                           %sz: i32 {tile.divisibility = 16 : i64},
                           %sh: i32 {tile.divisibility = 16 : i64},
                           %sm: i32 {tile.divisibility = 16 : i64},
                           %B: i32, %H: i32, %S: i32)
    grid(ceildiv(%S, 128), %B * %H) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %start_m = tile.program_id x
  %off_hz = tile.program_id y
  %off_z = arith.divsi %off_hz, %H : i32
  %off_h = arith.remsi %off_hz, %H : i32
  %m0 = arith.muli %start_m, %c128 : i32
  %q = tile.make_view %Q[%B, %H, %S, 64] strides [%sz, %sh, %sm, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %H, %S, 64] strides [%sz, %sh, %sm, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %H, %S, 64] strides [%sz, %sh, %sm, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %S, 64] strides [%sz, %sh, %sm, 1] : !tile.ptr<bf16>
  %log2e = arith.constant 1.44269504 : f32
  %qk_scale = arith.mulf %sm_scale, %log2e : f32
  %tq = tile.load %q[%off_z, %off_h, %m0, %c0] : !tile.view<?x?x?x64xbf16, strides = [?, ?, ?, 1]> -> tensor<128x64xbf16>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %s_b = tile.splat %S : tensor<128x64xi32>
  %scale = tile.splat %qk_scale : tensor<128x64xf32>
  %scale_r = tile.splat %qk_scale : tensor<128xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %s0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l_init = arith.constant dense<1.0> : tensor<128xf32>
  %res:3 = scf.for %n = %c0 to %S step %c64
      iter_args(%acc = %acc0, %m_i = %m_init, %l_i = %l_init)
      -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>) : i32 {
    %tk = tile.load %k[%off_z, %off_h, %n, %c0] : !tile.view<?x?x?x64xbf16, strides = [?, ?, ?, 1]> -> tensor<64x64xbf16>
    %kt = tile.trans %tk : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %qk = tile.dot %tq, %kt, %s0 : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %keep = arith.cmpi slt, %kjb, %s_b : tensor<128x64xi32>
    %qkm = arith.select %keep, %qk, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %qkm axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %rowmax_s = arith.mulf %rowmax, %scale_r : tensor<128xf32>
    %m_ij = arith.maximumf %m_i, %rowmax_s : tensor<128xf32>
    %qks = arith.mulf %qkm, %scale : tensor<128x64xf32>
    %m2 = tile.expand_dims %m_ij axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %mb = tile.broadcast %m2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %qkc = arith.subf %qks, %mb : tensor<128x64xf32>
    %p = math.exp2 %qkc : tensor<128x64xf32>
    %ad = arith.subf %m_i, %m_ij : tensor<128xf32>
    %alpha = math.exp2 %ad : tensor<128xf32>
    %l_ij = tile.reduce sum %p axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %a2 = tile.expand_dims %alpha axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %ab = tile.broadcast %a2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %acc_s = arith.mulf %acc, %ab : tensor<128x64xf32>
    %tv = tile.load %v[%off_z, %off_h, %n, %c0] : !tile.view<?x?x?x64xbf16, strides = [?, ?, ?, 1]> -> tensor<64x64xbf16>
    %pb = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %acc_n = tile.dot %pb, %tv, %acc_s : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %l_s = arith.mulf %l_i, %alpha : tensor<128xf32>
    %l_n = arith.addf %l_s, %l_ij : tensor<128xf32>
    scf.yield %acc_n, %m_ij, %l_n : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
  }
  %log_l = math.log2 %res#2 : tensor<128xf32>
  %lse = arith.addf %res#1, %log_l : tensor<128xf32>
  %l2 = tile.expand_dims %res#2 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %l2 : tensor<128x1xf32> -> tensor<128x64xf32>
  %out = arith.divf %res#0, %lb : tensor<128x64xf32>
  %ob = arith.truncf %out : tensor<128x64xf32> to tensor<128x64xbf16>
  tile.store %ob, %o[%off_z, %off_h, %m0, %c0] : tensor<128x64xbf16>, !tile.view<?x?x?x64xbf16, strides = [?, ?, ?, 1]>
  %bh = arith.muli %B, %H : i32
  %lse_v = tile.make_view %Lse[%bh, %S] strides [%S, 1] : !tile.ptr<f32>
  tile.store %lse, %lse_v[%off_hz, %m0] : tensor<128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
