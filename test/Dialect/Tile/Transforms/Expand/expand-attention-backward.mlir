// The stages of tile.attention_backward expand to FlashAttention-2's
// backward block programs with each chip's tiles (NamedOpConfigs:
// getAttentionBackwardTiles). The programs themselves are compared op by op
// with scripts/common/backward_kernels.py's (the kernels measured on the H200)
// in attention-backward-matches-python.test.

// RUN: tilec-opt %examples/attention_backward_op_bf16.mlir --pass-pipeline='builtin.module(tile-split-stages, tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s --check-prefix=SM90A
// RUN: tilec-opt %examples/attention_backward_op_bf16.mlir --pass-pipeline='builtin.module(tile-split-stages, tile.kernel(tile-expand-named-ops{chip=sm_80}))' | FileCheck %s --check-prefix=SM80
// RUN: tilec-opt %examples/attention_backward_op_bf16.mlir --pass-pipeline='builtin.module(tile-split-stages, tile.kernel(tile-expand-named-ops{chip=sm_89}))' | FileCheck %s --check-prefix=SM89
// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s --check-prefix=CHECK-CONFIG

// sm_90a: rows of 128 (4 warps) for Delta and lse2; dQ programs of 128
// queries stepping 64 keys; dK/dV programs of 128 keys stepping 64 queries
// with 240 consumer registers, lse2 and Delta of the next block loaded one
// step ahead (carried). The stride parameters the copies read in 16-byte
// chunks are recorded.
// SM90A-LABEL: tile.kernel @attention_bwd_op_bf16_d128_pre(
// SM90A-SAME:    grid(ceildiv(%SQ, 128), %H, %B) warps(4)
// SM90A:         tile.reduce sum %{{.*}} axis = 1 : tensor<128x128xf32> -> tensor<128xf32>
// SM90A:         arith.cmpf oeq
// SM90A:         arith.select
// SM90A-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dq(
// SM90A-SAME:    %q_batch: i32 {tile.divisibility = 8 : i64}
// SM90A-SAME:    grid(ceildiv(%SQ, 128), %H, %B) warps(8) {
// SM90A:         scf.for {{.*}} step %c64_i32 iter_args({{.*}}) -> (tensor<128x128xf32>)
// SM90A:           tile.dot {{.*}} : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
// SM90A:           scf.if
// SM90A:           math.exp2 {{.*}} fastmath<afn>
// SM90A:           tile.dot {{.*}} : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
// SM90A:           tile.dot {{.*}} : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
// SM90A:         tile.store
// SM90A-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dkdv(
// SM90A-SAME:    grid(ceildiv(%SK, 128), %H, %B) warps(8) schedule<producer_regs = 24, consumer_regs = 240>
// SM90A:         %[[DKH:.*]] = tile.make_view %dKH
// SM90A:         scf.for {{.*}} to %SQ step %c64_i32 {{.*}} -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<64xf32>, tensor<64xf32>)
// SM90A-COUNT-4:   tile.dot
// SM90A:           scf.yield
// SM90A:         tile.store %{{.*}}, %[[DKH]][
// SM90A:         tile.store
// With expanded(...), the last stage sums each group's per-query-head
// gradients into dK and dV (K's heads), in f32, one after the other.
// SM90A-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dkdv_sum(
// SM90A-SAME:    grid(ceildiv(%SK, 64), %HK, %B) warps(4) {
// SM90A:         %[[DK:.*]] = tile.make_view %dK[
// SM90A:         %[[DKH2:.*]] = tile.make_view %dKH[
// SM90A:         %[[GROUP:.*]] = arith.divui %H, %HK
// SM90A:         scf.for {{.*}} to %[[GROUP]] {{.*}} -> (tensor<64x128xf32>)
// SM90A:           tile.load %[[DKH2]]
// SM90A:           arith.addf
// SM90A:         tile.store %{{.*}}, %[[DK]][
// SM90A:         scf.for {{.*}} to %[[GROUP]] {{.*}} -> (tensor<64x128xf32>)
// The atomic mode: 64 keys per program (one warpgroup), dS K as two
// 64-column products, each added into the accumulator.
// SM90A-LABEL: tile.kernel @attention_bwd_op_bf16_d128_atomic_pre_zero_dq(
// SM90A:         tile.store %{{.*}} : tensor<128x128xf32>, !tile.view<?x?x?x128xf32
// SM90A-LABEL: tile.kernel @attention_bwd_op_bf16_d128_atomic_dkdv_dq(
// SM90A-SAME:    grid(ceildiv(%SK, 64), %H, %B) warps(4) {
// SM90A:           tile.atomic_add {{.*}}, %c0_i32] : tensor<64x64xf32>
// SM90A:           tile.atomic_add {{.*}}, %c64_i32{{.*}}] : tensor<64x64xf32>
// SM90A-LABEL: tile.kernel @attention_bwd_op_bf16_d128_atomic_dq_scale(
// SM90A-SAME:    grid(ceildiv(%SQ, 128), %H, %B) warps(4)
// SM90A:         tile.load {{.*}} -> tensor<128x128xf32>
// SM90A:         arith.truncf

// mma.sync chips: 32-wide steps at head dim 128 (registers under 255, two
// ring stages), no register budgets; the atomic kernel steps 16 queries.
// SM80-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dq(
// SM80:         scf.for {{.*}} step %c32_i32
// SM80-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dkdv(
// SM80-SAME:    grid(ceildiv(%SK, 128), %H, %B) warps(8) {
// SM80:         scf.for {{.*}} step %c32_i32
// SM80-LABEL: tile.kernel @attention_bwd_op_bf16_d128_atomic_dkdv_dq(
// SM80-SAME:    grid(ceildiv(%SK, 128), %H, %B) warps(8) {
// SM80:           tile.atomic_add {{.*}} : tensor<16x128xf32>

// sm_89 (99 KB of shared memory per block): the atomic kernel's 128 keys
// would not fit; it takes 64 keys and 32-query steps.
// SM89-LABEL: tile.kernel @attention_bwd_op_bf16_d128_atomic_dkdv_dq(
// SM89-SAME:    grid(ceildiv(%SK, 64), %H, %B) warps(4) {
// SM89:           tile.atomic_add {{.*}} : tensor<32x128xf32>

// -----

tile.kernel @no_stage(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %t = tile.make_view %P[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{needs a stage to be expanded: the backward is several kernels (tile-split-stages makes one per stage)}}
  tile.attention_backward %t, %t, %t, %t, %t, %r grads(%t, %t, %t) scratch(%r, %r)
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

// The op must be the only computation of its kernel, as the other named
// ops.
tile.kernel @only_computation(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %c2 = arith.constant 2 : i32
  %t = tile.make_view %P[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{must be the only computation of its kernel; found 'arith.muli'}}
  tile.attention_backward %t, %t, %t, %t, %t, %r grads(%t, %t, %t) scratch(%r, %r) stage(dq)
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  %x = arith.muli %c2, %B : i32
  tile.return
}

// -----

// config <...> overrides the rule's tiles: 128-key dQ steps, 32-column dQ
// slices for the atomic adds.
// CHECK-CONFIG-LABEL: tile.kernel @overrides(
// CHECK-CONFIG-SAME:    grid(ceildiv(%S, 64), %H, %B) warps(4) {
// CHECK-CONFIG-COUNT-2: tile.atomic_add {{.*}} : tensor<64x32xf32>
tile.kernel @overrides(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %t = tile.make_view %P[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %a = tile.make_view %F[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<f32>
  tile.attention_backward %t, %t, %t, %t, %t, %r grads(%t, %t, %t) scratch(%r, %r, %a : !tile.view<?x?x?x64xf32, strides = [?, ?, 64, 1]>)
      atomic stage(dkdv_dq) config <dkv_n = 64, dkv_warps = 4, dq_add_cols = 32>
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @add_cols_past_head_dim(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %t = tile.make_view %P[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %a = tile.make_view %F[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<f32>
  // expected-error @+1 {{config dq_add_cols = 128 is wider than the head dim 64}}
  tile.attention_backward %t, %t, %t, %t, %t, %r grads(%t, %t, %t) scratch(%r, %r, %a : !tile.view<?x?x?x64xf32, strides = [?, ?, 64, 1]>)
      atomic stage(dkdv_dq) config <dq_add_cols = 128>
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
