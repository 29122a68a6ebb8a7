// FlashAttention-2 forward written over 2-D row views, head dim 64, as the
// early Triton fused-attention tutorial did: Q, K, V and O are seen as
// [S * BH, 64] matrices (BH = batch * heads, contiguous [BH, S, 64]
// tensors), the row count computed in the kernel (%rows = S * BH), and
// program (m, bh) starts at row bh * S + m * 128. Rows past S belong to the
// next head: their scores are masked (keys) and their outputs are not
// stored (the store's mask). One program per 128 queries, 64-key blocks,
// 8 warps, non-causal.
tile.kernel @attention_rows(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
                            %K: !tile.ptr<bf16> {tile.align = 16 : i64},
                            %V: !tile.ptr<bf16> {tile.align = 16 : i64},
                            %O: !tile.ptr<bf16> {tile.align = 16 : i64},
                            %S: i32, %BH: i32, %sm_scale: f32)
    grid(ceildiv(%S, 128), %BH) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %bh = tile.program_id y
  %rows = arith.muli %S, %BH : i32
  %q = tile.make_view %Q[%rows, 64] strides [64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%rows, 64] strides [64, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%rows, 64] strides [64, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%rows, 64] strides [64, 1] : !tile.ptr<bf16>
  %m0 = arith.muli %mb, %c128 : i32
  %head0 = arith.muli %bh, %S : i32
  %row0 = arith.addi %head0, %m0 : i32
  %log2e = arith.constant 1.44269504 : f32
  %qk_scale = arith.mulf %sm_scale, %log2e : f32
  %tq = tile.load %q[%row0, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<128x64xbf16>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %s_b = tile.splat %S : tensor<128x64xi32>
  %scale = tile.splat %qk_scale : tensor<128x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %s0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l_init = arith.constant dense<0.0> : tensor<128xf32>
  %res:3 = scf.for %n = %c0 to %S step %c64
      iter_args(%acc = %acc0, %m_i = %m_init, %l_i = %l_init)
      -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>) : i32 {
    %krow = arith.addi %head0, %n : i32
    %tk = tile.load %k[%krow, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %tv = tile.load %v[%krow, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %kt = tile.trans %tk : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %qk = tile.dot %tq, %kt, %s0 : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %keep = arith.cmpi slt, %kjb, %s_b : tensor<128x64xi32>
    %s = arith.mulf %qk, %scale : tensor<128x64xf32>
    %sm = arith.select %keep, %s, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %sm axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    %mn2 = tile.expand_dims %m_new axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %mnb = tile.broadcast %mn2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %centered = arith.subf %sm, %mnb : tensor<128x64xf32>
    %p = math.exp2 %centered : tensor<128x64xf32>
    %dm = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = math.exp2 %dm : tensor<128xf32>
    %psum = tile.reduce sum %p axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
    %l_new = arith.addf %l_scaled, %psum : tensor<128xf32>
    %a2 = tile.expand_dims %alpha axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %ab = tile.broadcast %a2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %acc_scaled = arith.mulf %acc, %ab : tensor<128x64xf32>
    %pb = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %acc_new = tile.dot %pb, %tv, %acc_scaled : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    scf.yield %acc_new, %m_new, %l_new : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
  }
  %l2 = tile.expand_dims %res#2 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %l2 : tensor<128x1xf32> -> tensor<128x64xf32>
  %out = arith.divf %res#0, %lb : tensor<128x64xf32>
  %ob = arith.truncf %out : tensor<128x64xf32> to tensor<128x64xbf16>
  // Only this head's rows: m0 + r < S.
  %r = tile.range 0 to 128 : tensor<128xi32>
  %m0v = tile.splat %m0 : tensor<128xi32>
  %qi = arith.addi %r, %m0v : tensor<128xi32>
  %qi2 = tile.expand_dims %qi axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %qib = tile.broadcast %qi2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %mine = arith.cmpi slt, %qib, %s_b : tensor<128x64xi32>
  tile.store %ob, %o[%row0, %c0] mask(%mine : tensor<128x64xi1>) : tensor<128x64xbf16>, !tile.view<?x64xbf16, strides = [64, 1]>
  tile.return
}
