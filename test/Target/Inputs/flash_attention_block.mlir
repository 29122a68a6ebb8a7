tile.kernel @flash_attention_block_program(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>,
                                           %V: !tile.ptr<bf16>, %O: !tile.ptr<bf16>,
                                           %S: i32, %qk_scale: f32)
    grid(ceildiv(%S, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c128 : i32
  %q = tile.make_view %Q[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %tq = tile.load %q[%m0, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<128x64xbf16>
  %rows = tile.range 0 to 128 : tensor<128xi32>
  %m0s = tile.splat %m0 : tensor<128xi32>
  %qi = arith.addi %rows, %m0s : tensor<128xi32>
  %qi2 = tile.expand_dims %qi axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %qib = tile.broadcast %qi2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %scale = tile.splat %qk_scale : tensor<128x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l_init = arith.constant dense<0.0> : tensor<128xf32>
  %end = arith.addi %m0, %c128 : i32
  %res:3 = scf.for %n = %c0 to %end step %c64
      iter_args(%acc = %acc0, %m_i = %m_init, %l_i = %l_init)
      -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>) : i32 {
    %tk = tile.load %k[%n, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %tv = tile.load %v[%n, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %kt = tile.trans %tk : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %s = tile.dot %tq, %kt, %acc0 : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %ss = arith.mulf %s, %scale : tensor<128x64xf32>
    // causal: key n + j <= query m0 + i
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %keep = arith.cmpi sle, %kjb, %qib : tensor<128x64xi32>
    %sm = arith.select %keep, %ss, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %sm axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    %alpha = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha2 = math.exp2 %alpha : tensor<128xf32>
    %mn2 = tile.expand_dims %m_new axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %mnb = tile.broadcast %mn2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %sd = arith.subf %sm, %mnb : tensor<128x64xf32>
    %p = math.exp2 %sd : tensor<128x64xf32>
    %psum = tile.reduce sum %p axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_scaled = arith.mulf %l_i, %alpha2 : tensor<128xf32>
    %l_new = arith.addf %l_scaled, %psum : tensor<128xf32>
    %a2 = tile.expand_dims %alpha2 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
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
  tile.store %ob, %o[%m0, %c0] : tensor<128x64xbf16>, !tile.view<?x64xbf16, strides = [64, 1]>
  tile.return
}
