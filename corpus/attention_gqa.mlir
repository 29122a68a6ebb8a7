// Grouped-query attention forward (Llama 2/3), non-causal, head dim 128: H
// query heads share Hkv key/value heads, query head h reading K/V head
// h / (H / Hkv), computed in the kernel. Q/O and K/V have their own batch and
// head strides (rows of 128 elements). One program per 128 queries,
// 128-key blocks, 8 warps, as examples/attention_block_bf16.mlir but with
// every block masked.
tile.kernel @attention_gqa(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %V: !tile.ptr<bf16> {tile.align = 16 : i64},
    %O: !tile.ptr<bf16> {tile.align = 16 : i64},
    %sqz: i32 {tile.divisibility = 16 : i64},
    %sqh: i32 {tile.divisibility = 16 : i64},
    %skz: i32 {tile.divisibility = 16 : i64},
    %skh: i32 {tile.divisibility = 16 : i64},
    %B: i32,
    %H: i32,
    %Hkv: i32,
    %S: i32,
    %sm_scale: f32)
    grid(ceildiv(%S, 128), %H, %B) warps(8) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %h = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %mb, %c128 : i32
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sqz, %sqh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %Hkv, %S, 128] strides [%skz, %skh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %Hkv, %S, 128] strides [%skz, %skh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%sqz, %sqh, 128, 1] : !tile.ptr<bf16>
  %log2e = arith.constant 1.44269504 : f32
  %qk_scale = arith.mulf %sm_scale, %log2e : f32
  %tq = tile.load %q[%b, %h, %m0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %cols = tile.range 0 to 128 : tensor<128xi32>
  %s_b = tile.splat %S : tensor<128x128xi32>
  %scale = tile.splat %qk_scale : tensor<128x128xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
  %s0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l_init = arith.constant dense<0.0> : tensor<128xf32>
  %group = arith.divsi %H, %Hkv : i32
  %hk = arith.divsi %h, %group : i32
  %res:3 = scf.for %n = %c0 to %S step %c128
      iter_args(%acc = %acc0, %m_i = %m_init, %l_i = %l_init)
      -> (tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>) : i32 {
    %tk = tile.load %k[%b, %hk, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
    %tv = tile.load %v[%b, %hk, %n, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
    %kt = tile.trans %tk : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %qk = tile.dot %tq, %kt, %s0 : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
    %ns = tile.splat %n : tensor<128xi32>
    %kj = arith.addi %cols, %ns : tensor<128xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x128xi32> -> tensor<128x128xi32>
    %inside = arith.cmpi slt, %kjb, %s_b : tensor<128x128xi32>
    %s = arith.mulf %qk, %scale : tensor<128x128xf32>
    %sk = arith.select %inside, %s, %ninf : tensor<128x128xi1>, tensor<128x128xf32>
    %rowmax = tile.reduce max %sk axis = 1 : tensor<128x128xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    %mn2 = tile.expand_dims %m_new axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %mnb = tile.broadcast %mn2 : tensor<128x1xf32> -> tensor<128x128xf32>
    %centered = arith.subf %sk, %mnb : tensor<128x128xf32>
    %p = math.exp2 %centered : tensor<128x128xf32>
    %dm = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = math.exp2 %dm : tensor<128xf32>
    %psum = tile.reduce sum %p axis = 1 : tensor<128x128xf32> -> tensor<128xf32>
    %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
    %l_new = arith.addf %l_scaled, %psum : tensor<128xf32>
    %a2 = tile.expand_dims %alpha axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %ab = tile.broadcast %a2 : tensor<128x1xf32> -> tensor<128x128xf32>
    %acc_scaled = arith.mulf %acc, %ab : tensor<128x128xf32>
    %pb = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xbf16>
    %acc_new = tile.dot %pb, %tv, %acc_scaled : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
    scf.yield %acc_new, %m_new, %l_new : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>
  }
  %l2 = tile.expand_dims %res#2 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %l2 : tensor<128x1xf32> -> tensor<128x128xf32>
  %out = arith.divf %res#0, %lb : tensor<128x128xf32>
  %ob = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %ob, %o[%b, %h, %m0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
