// Attention forward with logit soft-capping (Gemma 2), non-causal, head dim
// 128: s = softcap * tanh(sm_scale * q.k / softcap), then the softmax. One
// program per 128 queries, 64-key blocks, 8 warps; keys past S are masked in
// every block. The cap is written as a user writes it: math.tanh and a plain
// arith.divf; the exponent is exp2 of the capped score times log2(e).
tile.kernel @attention_softcap(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %V: !tile.ptr<bf16> {tile.align = 16 : i64},
    %O: !tile.ptr<bf16> {tile.align = 16 : i64},
    %sz: i32 {tile.divisibility = 16 : i64},
    %sh: i32 {tile.divisibility = 16 : i64},
    %sm: i32 {tile.divisibility = 16 : i64},
    %B: i32,
    %H: i32,
    %S: i32,
    %sm_scale: f32,
    %softcap: f32)
    grid(ceildiv(%S, 128), %H, %B) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %mb, %c128 : i32
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sz, %sh, %sm, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %H, %S, 128] strides [%sz, %sh, %sm, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %H, %S, 128] strides [%sz, %sh, %sm, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%sz, %sh, %sm, 1] : !tile.ptr<bf16>
  %tq = tile.load %q[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]> -> tensor<128x128xbf16>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %s_b = tile.splat %S : tensor<128x64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %s0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l_init = arith.constant dense<0.0> : tensor<128xf32>
  %sm_b = tile.splat %sm_scale : tensor<128x64xf32>
  %cap = tile.splat %softcap : tensor<128x64xf32>
  %log2e_b = arith.constant dense<1.44269504> : tensor<128x64xf32>
  %res:3 = scf.for %n = %c0 to %S step %c64
      iter_args(%acc = %acc0, %m_i = %m_init, %l_i = %l_init)
      -> (tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>) : i32 {
    %tk = tile.load %k[%b, %h, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]> -> tensor<64x128xbf16>
    %tv = tile.load %v[%b, %h, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]> -> tensor<64x128xbf16>
    %kt = tile.trans %tk : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %qk = tile.dot %tq, %kt, %s0 : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %inside = arith.cmpi slt, %kjb, %s_b : tensor<128x64xi32>
    %s1 = arith.mulf %qk, %sm_b : tensor<128x64xf32>
    %s2 = arith.divf %s1, %cap : tensor<128x64xf32>
    %s3 = math.tanh %s2 : tensor<128x64xf32>
    %s4 = arith.mulf %s3, %cap : tensor<128x64xf32>
    %s = arith.mulf %s4, %log2e_b : tensor<128x64xf32>
    %sk = arith.select %inside, %s, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %sk axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    %mn2 = tile.expand_dims %m_new axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %mnb = tile.broadcast %mn2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %centered = arith.subf %sk, %mnb : tensor<128x64xf32>
    %p = math.exp2 %centered : tensor<128x64xf32>
    %dm = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = math.exp2 %dm : tensor<128xf32>
    %psum = tile.reduce sum %p axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
    %l_new = arith.addf %l_scaled, %psum : tensor<128xf32>
    %a2 = tile.expand_dims %alpha axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %ab = tile.broadcast %a2 : tensor<128x1xf32> -> tensor<128x128xf32>
    %acc_scaled = arith.mulf %acc, %ab : tensor<128x128xf32>
    %pb = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %acc_new = tile.dot %pb, %tv, %acc_scaled : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %acc_new, %m_new, %l_new : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>
  }
  %l2 = tile.expand_dims %res#2 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %l2 : tensor<128x1xf32> -> tensor<128x128xf32>
  %out = arith.divf %res#0, %lb : tensor<128x128xf32>
  %ob = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %ob, %o[%b, %h, %m0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  tile.return
}
