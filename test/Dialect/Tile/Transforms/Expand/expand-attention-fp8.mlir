// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_89}))' | FileCheck %s --check-prefixes=CHECK,SM89

// FP8 tile.attention (FlashAttention-3's recipe) expands to the block program
// of bf16 attention on e4m3 tiles: Q, Kᵀ and V (V read through its
// transposed view, contiguous along seq, so that its tile is K-major) load
// as f8E4M3FN, the scores are multiplied by qk_scale * q_descale *
// k_descale (computed once, before the loops), P is quantized to e4m3 for
// the second dot, and O's rows are multiplied by v_descale / l before O
// leaves as bf16. On sm_90a the scheduling passes build it (by_passes; the
// hand-built schedule has no FP8 form) with a 3-stage K/V ring, no
// ping-pong, one query block per program and the key loop split at the
// masked blocks (all measured on the H200); on sm_89 it is the cp.async
// schedule on mma.sync m16n8k32.

// CHECK-LABEL: tile.kernel @attention_fp8
// SM90-SAME: schedule<stages = 3, tma = true, async_wgmma = true, warp_specialize = true, producer_regs = 40, consumer_regs = 232, persistent = false, tma_store = true, pingpong = false, split_loops = true>
// SM89-SAME: warps(4) schedule<tma = false, persistent = false, tma_store = false, operands_in_smem = true>
// CHECK: %[[QK:.*]] = arith.mulf %dq, %dk : f32
// CHECK: %[[SC:.*]] = arith.mulf %[[QK]], %{{.*}} : f32
// CHECK: tile.load %{{.*}} -> tensor<{{[0-9]+}}x128xf8E4M3FN>
// CHECK: scf.for
// CHECK:   tile.load %{{.*}} : !tile.view<?x?x128x?xf8E4M3FN, strides = [?, ?, 1, 128]> -> tensor<128x{{[0-9]+}}xf8E4M3FN>
// CHECK:   tile.load %{{.*}} : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]> -> tensor<{{[0-9]+}}x128xf8E4M3FN>
// CHECK:   %[[S:.*]] = tile.dot
// CHECK-NOT: arith.mulf %[[QK]]
// CHECK:   tile.splat %[[SC]]
// CHECK:   math.exp2
// CHECK:   arith.truncf %{{.*}} to tensor<{{[0-9]+}}x{{[0-9]+}}xf8E4M3FN>
// CHECK:   tile.dot
// CHECK: tile.splat %dv
// CHECK: arith.truncf %{{.*}} to tensor<{{[0-9]+}}x128xbf16>
// CHECK: tile.store {{.*}} : tensor<{{[0-9]+}}x128xbf16>
// CHECK-NOT: tile.attention
tile.kernel @attention_fp8(%Q: !tile.ptr<f8E4M3FN>, %K: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>,
                           %O: !tile.ptr<bf16>, %B: i32, %H: i32, %S: i32, %sq: i32, %sh: i32,
                           %vb: i32, %vh: i32, %ldv: i32, %dq: f32, %dk: f32, %dv: f32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<f8E4M3FN>
  %k = tile.make_view %K[%B, %H, %S, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %H, %S, 128] strides [%vb, %vh, 1, %ldv] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o descale(%dq, %dk, %dv)
      : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Head dim 256 on sm_90a: 128-key blocks (P·V's K must fill FP8 wgmma's
// 128-byte rows) in a 2-stage ring, so that Q and the ring fit.

// CHECK-LABEL: tile.kernel @attention_fp8_d256
// SM90-SAME: schedule<stages = 2,
// SM90: scf.for %{{.*}} = %{{.*}} to %S step %c128_i32
// SM90:   tile.load %{{.*}} -> tensor<256x128xf8E4M3FN>
// SM90:   tile.load %{{.*}} -> tensor<128x256xf8E4M3FN>
tile.kernel @attention_fp8_d256(%Q: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>,
                                %B: i32, %H: i32, %S: i32, %sq: i32, %sh: i32, %ldv: i32, %d: f32) {
  %q = tile.make_view %Q[%B, %H, %S, 256] strides [%sq, %sh, 256, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %H, %S, 256] strides [%sq, %sh, 1, %ldv] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 256] strides [%sq, %sh, 256, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %v, %o descale(%d, %d, %d)
      : !tile.view<?x?x?x256xf8E4M3FN, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xf8E4M3FN, strides = [?, ?, 256, 1]>,
        !tile.view<?x?x?x256xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>
  tile.return
}

// -----

// Head dim 64 on sm_90a: 256-key blocks without the causal mask (Q Kᵀ as
// m64n256k32, K = 64 in the 64-byte swizzle), 128 with it.

// CHECK-LABEL: tile.kernel @attention_fp8_d64
// SM90: scf.for %{{.*}} = %{{.*}} to %S step %c256_i32
// SM90:   tile.load %{{.*}} -> tensor<64x256xf8E4M3FN>
// SM90:   tile.load %{{.*}} -> tensor<256x64xf8E4M3FN>
// CHECK-LABEL: tile.kernel @attention_fp8_d64_causal
// SM90: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128_i32
// SM90:   tile.load %{{.*}} -> tensor<64x128xf8E4M3FN>
tile.kernel @attention_fp8_d64(%Q: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>,
                               %B: i32, %H: i32, %S: i32, %sq: i32, %sh: i32, %ldv: i32, %d: f32) {
  %q = tile.make_view %Q[%B, %H, %S, 64] strides [%sq, %sh, 64, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %H, %S, 64] strides [%sq, %sh, 1, %ldv] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 64] strides [%sq, %sh, 64, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %v, %o descale(%d, %d, %d)
      : !tile.view<?x?x?x64xf8E4M3FN, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xf8E4M3FN, strides = [?, ?, 64, 1]>,
        !tile.view<?x?x?x64xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}
tile.kernel @attention_fp8_d64_causal(%Q: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>,
                                      %B: i32, %H: i32, %S: i32, %sq: i32, %sh: i32, %ldv: i32, %d: f32) {
  %q = tile.make_view %Q[%B, %H, %S, 64] strides [%sq, %sh, 64, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %H, %S, 64] strides [%sq, %sh, 1, %ldv] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 64] strides [%sq, %sh, 64, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %v, %o descale(%d, %d, %d) causal
      : !tile.view<?x?x?x64xf8E4M3FN, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xf8E4M3FN, strides = [?, ?, 64, 1]>,
        !tile.view<?x?x?x64xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// Without warp specialization on sm_90a: the cp.async schedule (a K/V ring
// the loop's own warps fill) with the products still on FP8 wgmma.

// CHECK-LABEL: tile.kernel @attention_fp8_no_ws
// SM90-SAME: schedule<tma = false, persistent = false
// SM90: scf.for
// SM90: } {tile.masks_bounded, tile.num_stages = {{[0-9]+}} : i64}
tile.kernel @attention_fp8_no_ws(%Q: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>,
                                 %B: i32, %H: i32, %S: i32, %sq: i32, %sh: i32, %ldv: i32, %d: f32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %H, %S, 128] strides [%sq, %sh, 1, %ldv] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %v, %o descale(%d, %d, %d) config <warp_specialize = false>
      : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Descale views [batch, kv_heads] (FlashAttention-3's descale tensors): each
// query block reads its (batch, K/V head) entry of each view once per query
// row, through the view read as [B, Hk, rows] with stride 0 along the rows,
// before the key loop; the scores' multiplier is then one factor per row,
// broadcast along the keys.

// CHECK-LABEL: tile.kernel @attention_fp8_descale_views
// CHECK: %[[Y:.*]] = tile.program_id y
// CHECK: %[[Z:.*]] = tile.program_id z
// CHECK: %[[G:.*]] = arith.divsi %H, %HK : i32
// CHECK: %[[KVH:.*]] = arith.divsi %[[Y]], %[[G]] : i32
// CHECK: %[[DQV:.*]] = tile.make_view %DQ[%B, %HK, [[BM:[0-9]+]]] strides [%dqb, %dqh, 0] : !tile.ptr<f32>
// CHECK: %[[DQ:.*]] = tile.load %[[DQV]][%[[Z]], %[[KVH]], %{{.*}}] : !tile.view<?x?x[[BM]]xf32, strides = [?, ?, 0]> -> tensor<[[BM]]xf32>
// CHECK: %[[DKV:.*]] = tile.make_view %DK[%B, %HK, [[BM]]] strides [%dkb, 1, 0] : !tile.ptr<f32>
// CHECK: %[[DK:.*]] = tile.load %[[DKV]][%[[Z]], %[[KVH]], %{{.*}}]
// CHECK: %[[QK:.*]] = arith.mulf %[[DQ]], %[[DK]] : tensor<[[BM]]xf32>
// CHECK: %[[SC:.*]] = arith.mulf %[[QK]], %{{.*}} : tensor<[[BM]]xf32>
// CHECK: %[[DVV:.*]] = tile.make_view %DK[%B, %HK, [[BM]]] strides [0, 0, 0] : !tile.ptr<f32>
// CHECK: %[[DV:.*]] = tile.load %[[DVV]][%[[Z]], %[[KVH]], %{{.*}}]
// CHECK: scf.for
// CHECK:   tile.dot
// CHECK:   arith.mulf %{{.*}}, %[[SC]] : tensor<[[BM]]xf32>
// CHECK:   %[[SE:.*]] = tile.expand_dims %[[SC]] axis = 1
// CHECK:   %[[SB:.*]] = tile.broadcast %[[SE]]
// CHECK:   math.fma %{{.*}}, %[[SB]], %{{.*}}
// CHECK: arith.divf %[[DV]], %{{.*}} : tensor<[[BM]]xf32>
// CHECK-NOT: tile.attention
tile.kernel @attention_fp8_descale_views(%Q: !tile.ptr<f8E4M3FN>, %K: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>,
                           %O: !tile.ptr<bf16>, %DQ: !tile.ptr<f32>, %DK: !tile.ptr<f32>,
                           %B: i32, %H: i32, %HK: i32, %S: i32, %sq: i32, %sh: i32, %skb: i32, %skh: i32,
                           %vb: i32, %vh: i32, %ldv: i32, %dqb: i32, %dqh: i32, %dkb: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<f8E4M3FN>
  %k = tile.make_view %K[%B, %HK, %S, 128] strides [%skb, %skh, 128, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %HK, %S, 128] strides [%vb, %vh, 1, %ldv] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %dq = tile.make_view %DQ[%B, %HK] strides [%dqb, %dqh] : !tile.ptr<f32>
  %dk = tile.make_view %DK[%B, %HK] strides [%dkb, 1] : !tile.ptr<f32>
  %dv = tile.make_view %DK[%B, %HK] strides [0, 0] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o descale(%dq, %dk, %dv : !tile.view<?x?xf32, strides = [?, ?]>,
                                        !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [0, 0]>)
      : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
