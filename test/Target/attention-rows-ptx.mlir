// A FlashAttention-2 forward whose views are computed in the kernel (issue
// 51): Q, K and V are [S * BH, 128] (the rows of every (batch, head) one
// after the other), O is [BH, S, 128] with head stride S * 128. The tensor
// maps carry the expressions `S * BH` and `S * 128`, which runtimes evaluate
// at launch, so the kernel gets the same schedule as with the extents passed
// as parameters: K and V (and Q) by TMA into mbarrier rings, a producer
// warpgroup, wgmma, O through a TMA store. test/Runtime/tma-expr.cpp and
// python/tests/test_tma_expr.py launch this kernel on mock drivers.
//
// Not checked: the ring depths, register counts and the softmax code.

// RUN: tilec %s --chip=sm_90a --emit=cubin -o %t --remarks='tile-tma-.*' 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t/attention_rows_bf16.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/attention_rows_bf16.json
// RUN: %ptxas -arch=sm_90a %t/attention_rows_bf16.ptx -o %t/a.cubin

// REMARK-NOT: [Missed]
// REMARK: remark: [Passed] Staged | Category:tile-tma-store
// REMARK: remark: [Passed] LoadedOnce | Category:tile-tma-pipeline
// REMARK: remark: [Passed] Pipelined | Category:tile-tma-pipeline | Remark="2 loads on TMA
// REMARK-NOT: [Missed]

// The maps (Q, K, V, O) are hidden parameters after the user's seven.
// CHECK: .entry attention_rows_bf16(
// CHECK: .param .align 64 .b8 attention_rows_bf16_param_7[128],
// CHECK: .param .align 64 .b8 attention_rows_bf16_param_10[128]
// The consumer warpgroups compute, the producer issues the copies, O leaves
// by TMA stores.
// CHECK: setmaxnreg.inc.sync.aligned.u32
// CHECK: wgmma.mma_async
// CHECK: setmaxnreg.dec.sync.aligned.u32
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group

// Sizes and strides innermost first: the rows of Q, K and V are S * BH; O's
// head stride is S * 128 (a multiple of 128 elements: 16-byte aligned).
// JSON: "tensor_maps": [
// JSON: "base": "Q",
// JSON: "sizes": [
// JSON-NEXT: 128,
// JSON-NEXT: "S * BH"
// JSON: "strides": [
// JSON-NEXT: 1,
// JSON-NEXT: 128
// JSON: "base": "O",
// JSON: "sizes": [
// JSON-NEXT: 128,
// JSON-NEXT: "S",
// JSON-NEXT: "BH"
// JSON: "strides": [
// JSON-NEXT: 1,
// JSON-NEXT: 128,
// JSON-NEXT: "S * 128"
tile.kernel @attention_rows_bf16(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %V: !tile.ptr<bf16> {tile.align = 16 : i64},
    %O: !tile.ptr<bf16> {tile.align = 16 : i64},
    %S: i32, %BH: i32, %qk_scale: f32)
    grid(ceildiv(%S, 128), %BH) warps(8) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %bh = tile.program_id y
  %m0 = arith.muli %mb, %c128 : i32
  %rows = arith.muli %S, %BH : i32
  %q = tile.make_view %Q[%rows, %c128] strides [%c128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%rows, %c128] strides [%c128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%rows, %c128] strides [%c128, 1] : !tile.ptr<bf16>
  %hs = arith.muli %S, %c128 : i32
  %o = tile.make_view %O[%BH, %S, 128] strides [%hs, 128, 1] : !tile.ptr<bf16>
  // Rows past S belong to the next (batch, head): keys there get -inf, and
  // O's view stops at S.
  %base = arith.muli %bh, %S : i32
  %qrow = arith.addi %base, %m0 : i32
  %tq = tile.load %q[%qrow, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x128xbf16>
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
    %krow = arith.addi %base, %n : i32
    %tk = tile.load %k[%krow, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x128xbf16>
    %tv = tile.load %v[%krow, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x128xbf16>
    %kt = tile.trans %tk : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %s = tile.dot %tq, %kt, %s0 : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
    %ns = tile.splat %n : tensor<128xi32>
    %kj = arith.addi %cols, %ns : tensor<128xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x128xi32> -> tensor<128x128xi32>
    %keep = arith.cmpi slt, %kjb, %sb2 : tensor<128x128xi32>
    %sm = arith.select %keep, %s, %ninf : tensor<128x128xi1>, tensor<128x128xf32>
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
    %pb = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xbf16>
    %acc_new = tile.dot %pb, %tv, %acc_scaled : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
    scf.yield %acc_new, %m_new, %l_new : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>
  }
  %one = arith.constant dense<1.0> : tensor<128xf32>
  %inv = arith.divf %one, %res#2 : tensor<128xf32>
  %i2 = tile.expand_dims %inv axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %ib = tile.broadcast %i2 : tensor<128x1xf32> -> tensor<128x128xf32>
  %out = arith.mulf %res#0, %ib : tensor<128x128xf32>
  %ob = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %ob, %o[%bh, %m0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x128xbf16, strides = [?, 128, 1]>
  tile.return
}
