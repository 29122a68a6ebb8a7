// Regression: tile-tma-pipeline sized its ring without the cp.async ring
// that tile-pipeline builds later in the same loop for the dots left to
// mma.sync. In this kernel (the atomic backward's dK/dV + dQ kernel at head
// dim 128 with 32-query blocks, scripts/common/backward_kernels.py,
// Tiles(dkv_m=32)) the TMA ring took 6 stages, the cp.async ring 2 more,
// and the kernel needed 247296 bytes of shared memory, more than sm_90a's
// 232448. tile-tma-pipeline then left room for the smallest cp.async ring
// (4 TMA stages beside it).
//
// Since wgmma reads operands the threads stage (a transposed tile read
// twice: Qᵀ and dOᵀ here), only the 32-row dQ dot stays on mma.sync, and its
// operands come from outside the loop: all four loop loads take the TMA
// ring, 3 stages beside the staging buffers, with no cp.async ring left;
// the kernel must still fit and assemble.

// RUN: tilec %s --chip=sm_90a --emit=ptx -o %t --remarks=tile-tma-pipeline 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: [Passed] Pipelined | Category:tile-tma-pipeline | Remark="4 loads on TMA in a 3-stage ring"
// RUN: FileCheck %s --implicit-check-not=cp.async.cg < %t/attention_bwd_bf16_d128_dkdv_dq.ptx
// CHECK: .entry attention_bwd_bf16_d128_dkdv_dq(
// CHECK: cp.async.bulk.tensor
// CHECK: wgmma.mma_async
// RUN: %ptxas -arch=sm_90a %t/attention_bwd_bf16_d128_dkdv_dq.ptx -o %t/k.cubin

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
    grid(ceildiv(%SK, 128), %H, %B) warps(8) {
  %c0 = arith.constant 0 : i32
  %cm = arith.constant 32 : i32
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
  %dqa = tile.make_view %DQA[%B, %H, %SQ, 128] strides [%dqa_batch, %dqa_head, 128, 1] : !tile.ptr<f32>
  %tkq0 = tile.load %k[%b, %hk, %n0, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16>
  %scale = tile.splat %qk_scale : tensor<128x32xf32>
  %z = arith.constant dense<0.0> : tensor<128x32xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %tl0 = tile.load %l2[%b, %h, %c0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<32xf32>
  %td0 = tile.load %dl[%b, %h, %c0] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<32xf32>
  %res:4 = scf.for %m = %c0 to %SQ step %cm iter_args(%adk = %acc0, %adv = %acc0, %tl = %tl0, %td = %td0) -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<32xf32>, tensor<32xf32>) : i32 {
    %mn = arith.addi %m, %cm : i32
    %tln = tile.load %l2[%b, %h, %mn] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<32xf32>
    %tdn = tile.load %dl[%b, %h, %mn] : !tile.view<?x?x?xf32, strides = [?, ?, 1]> -> tensor<32xf32>
    %tq = tile.load %q[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<32x128xbf16>
    %qt = tile.trans %tq : tensor<32x128xbf16> -> tensor<128x32xbf16>
    %st = tile.dot %tk, %qt, %z : tensor<128x128xbf16>, tensor<128x32xbf16> -> tensor<128x32xf32>
    %lb_e = tile.expand_dims %tl axis = 0 : tensor<32xf32> -> tensor<1x32xf32>
    %lb = tile.broadcast %lb_e : tensor<1x32xf32> -> tensor<128x32xf32>
    %negl = arith.negf %lb : tensor<128x32xf32>
    %e = math.fma %st, %scale, %negl : tensor<128x32xf32>
    %pt = math.exp2 %e fastmath<afn> : tensor<128x32xf32>
    %ptb = arith.truncf %pt : tensor<128x32xf32> to tensor<128x32xbf16>
    %tdo = tile.load %do[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<32x128xbf16>
    %adv2 = tile.dot %ptb, %tdo, %adv : tensor<128x32xbf16>, tensor<32x128xbf16> -> tensor<128x128xf32>
    %tdo2 = tile.load %do[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<32x128xbf16>
    %dot = tile.trans %tdo2 : tensor<32x128xbf16> -> tensor<128x32xbf16>
    %dpt = tile.dot %tv, %dot, %z : tensor<128x128xbf16>, tensor<128x32xbf16> -> tensor<128x32xf32>
    %db_e = tile.expand_dims %td axis = 0 : tensor<32xf32> -> tensor<1x32xf32>
    %db = tile.broadcast %db_e : tensor<1x32xf32> -> tensor<128x32xf32>
    %dpd = arith.subf %dpt, %db : tensor<128x32xf32>
    %dst = arith.mulf %pt, %dpd : tensor<128x32xf32>
    %dstb = arith.truncf %dst : tensor<128x32xf32> to tensor<128x32xbf16>
    %tq2 = tile.load %q[%b, %h, %m, %c0] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<32x128xbf16>
    %adk2 = tile.dot %dstb, %tq2, %adk : tensor<128x32xbf16>, tensor<32x128xbf16> -> tensor<128x128xf32>
    %dsb = tile.trans %dstb : tensor<128x32xbf16> -> tensor<32x128xbf16>
    %zq = arith.constant dense<0.0> : tensor<32x128xf32>
    %dqp0 = tile.dot %dsb, %tkq0, %zq : tensor<32x128xbf16>, tensor<128x128xbf16> -> tensor<32x128xf32>
    tile.atomic_add %dqp0, %dqa[%b, %h, %m, %c0] : tensor<32x128xf32>, !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>
    scf.yield %adk2, %adv2, %tln, %tdn : tensor<128x128xf32>, tensor<128x128xf32>, tensor<32xf32>, tensor<32xf32>
  }
  %smv = tile.splat %sm_scale : tensor<128x128xf32>
  %dko = arith.mulf %res#0, %smv : tensor<128x128xf32>
  %dkb = arith.truncf %dko : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %dkb, %dk[%b, %h, %n0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  %dvb = arith.truncf %res#1 : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %dvb, %dv[%b, %h, %n0, %c0] : tensor<128x128xbf16>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
