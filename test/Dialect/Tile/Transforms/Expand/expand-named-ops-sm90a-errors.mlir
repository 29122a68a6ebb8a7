// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))'

// The TMA-store epilogue's limits on sm_90a.

tile.kernel @tma_store_ragged_n(%A: !tile.ptr<bf16>, %M: i32) {
  %n = arith.constant 1001 : i32
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  %c = tile.make_view %A[%M, %n] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{tma_store needs N to be a multiple of 8, got 1001}}
  tile.gemm %a, %a, %c config <tma_store = true> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// Thread-block clusters: 1 or 2 programs along each of M and N, on the
// warp-specialized kernel, with halves of whole boxes to multicast.

tile.kernel @cluster_too_wide(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{cluster_m = 4, cluster_n = 1: each must be 1 or 2}}
  tile.gemm %a, %a, %a config <cluster_m = 4> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @cluster_b_boxes(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{cluster_m = 2, cluster_n = 1: block_n must split into two halves of whole 64-column boxes (row-major B) or 8-row multiples (column-major B)}}
  tile.gemm %a, %a, %a config <cluster_m = 2, block_n = 64> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// The warp-specialized attention: 64 rows per consumer warpgroup, keys in
// whole 64-element TMA boxes, Q and the K/V ring within shared memory.

tile.kernel @attention_ws_rows(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{warp_specialize: block_m must be 16 x warps (64 rows per consumer warpgroup), got block_m = 128 with 4 warps}}
  tile.attention %q, %q, %q, %q config <warp_specialize = true, warps = 4>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @attention_ws_block_n(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{warp_specialize: block_n must be 64, 128 or 256, got 32}}
  tile.attention %q, %q, %q, %q config <warp_specialize = true, block_n = 32>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @attention_ws_smem(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{warp_specialize: Q and the K/V ring need 294912 bytes of shared memory for 4 stages, more than the 232448 bytes a block may use on sm_90a}}
  tile.attention %q, %q, %q, %q config <warp_specialize = true, stages = 4>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Ping-pong pairs two consumer warpgroups of the warp-specialized schedule.

tile.kernel @attention_pingpong_one_warpgroup(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{pingpong takes turns between two consumer warpgroups (8 warps), got 4 warps}}
  tile.attention %q, %q, %q, %q config <block_m = 64, warps = 4, pingpong = true>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// The persistent kernel double-buffers Q: with a third K/V stage at head
// dim 128 the second buffer does not fit.

tile.kernel @attention_persistent_smem(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{persistent: a second Q buffer beside Q and the K/V ring needs 262144 bytes of shared memory, more than the 232448 bytes a block may use on sm_90a}}
  tile.attention %q, %q, %q, %q config <stages = 3, persistent = true>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Exact f32 runs on FMA instructions: no warp-specialized wgmma kernel.
tile.kernel @ieee_warp_specialized(%A: !tile.ptr<f32>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<f32>
  %b = tile.make_view %A[%M, %M] strides [1, %M] : !tile.ptr<f32>
  // expected-error @+1 {{warp_specialize: f32 inputs in ieee precision run on FMA instructions, not wgmma}}
  tile.gemm %a, %b, %a config <warp_specialize = true> : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [1, ?]>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// 3xTF32 cannot run warp-specialized (wgmma reads B from shared memory, the
// split happens in registers): asking for it is an error.
tile.kernel @tf32x3_warp_specialized(%A: !tile.ptr<f32>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<f32>
  %b = tile.make_view %A[%M, %M] strides [1, %M] : !tile.ptr<f32>
  // expected-error @+1 {{warp_specialize: precision(tf32x3) splits the operands in registers, on mma.sync}}
  tile.gemm %a, %b, %a precision(tf32x3) config <warp_specialize = true> : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [1, ?]>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// The hand-built schedule has no FP8 form: FP8 attention is built by the
// scheduling passes.
tile.kernel @attention_fp8_hand_built(%Q: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>,
                                      %B: i32, %H: i32, %S: i32, %ld: i32, %d: f32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%ld, %ld, 128, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %H, %S, 128] strides [%ld, %ld, 1, %ld] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%ld, %ld, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{by_passes = false: the hand-built schedule has no FP8 form; FP8 attention is built by the scheduling passes}}
  tile.attention %q, %q, %v, %o descale(%d, %d, %d) config <by_passes = false>
      : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Nor a score_mod (at head dim 256, where the hand-built kernel is the
// default, a score_mod takes the scheduling passes; asking for the
// hand-built one is an error).
tile.kernel @attention_score_mod_hand_built(%Q: !tile.ptr<bf16>, %B: i32, %S: i32, %ld: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 256] strides [%ld, %ld, 256, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{by_passes = false: the hand-built schedule has no score_mod or mask_mod; attention with one is built by the scheduling passes}}
  tile.attention %q, %q, %q, %q config <by_passes = false> score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    tile.yield %s : f32
  } : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>,
      !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>
  tile.return
}

// -----

// Nor a serving form (each batch's key count here).
tile.kernel @attention_seqused_hand_built(%Q: !tile.ptr<bf16>, %L: !tile.ptr<i32>, %B: i32, %S: i32, %ld: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 256] strides [%ld, %ld, 256, 1] : !tile.ptr<bf16>
  %lens = tile.make_view %L[%B] strides [1] : !tile.ptr<i32>
  // expected-error @+1 {{by_passes = false: the hand-built schedule has no serving form (seqused_k, splits, pack_gqa, cu_seqlens); such attention is built by the scheduling passes}}
  tile.attention %q, %q, %q, %q seqused_k(%lens : !tile.view<?xi32, strides = [1]>) config <by_passes = false>
      : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>,
        !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>
  tile.return
}

// -----

// The warp-specialized kernel's producer issues TMA copies.
tile.kernel @unaligned_warp_specialized(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{aligned = false takes no warp_specialize (its producer issues TMA copies, which need 16-byte aligned operands)}}
  tile.gemm %a, %a, %a config <aligned = false, warp_specialize = true> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// A batched GEMM takes no clusters.
tile.kernel @batched_cluster(%A: !tile.ptr<bf16>, %B: i32, %M: i32) {
  %a = tile.make_view %A[%B, %M, 256] strides [%M, 256, 1] : !tile.ptr<bf16>
  %b = tile.make_view %A[%B, 256, 256] strides [%M, 256, 1] : !tile.ptr<bf16>
  %c = tile.make_view %A[%B, %M, 256] strides [%M, 256, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{a batched GEMM takes no clusters (cluster_m = 2, cluster_n = 1)}}
  tile.gemm %a, %b, %c config <cluster_m = 2> : !tile.view<?x?x256xbf16, strides = [?, 256, 1]>, !tile.view<?x256x256xbf16, strides = [?, 256, 1]>, !tile.view<?x?x256xbf16, strides = [?, 256, 1]>
  tile.return
}

// -----

// Nor does a batch-reduce one (3-D A and B, 2-D C), and the error says which.
tile.kernel @batch_reduce_cluster(%A: !tile.ptr<bf16>, %B: i32, %M: i32) {
  %a = tile.make_view %A[%B, %M, 256] strides [%M, 256, 1] : !tile.ptr<bf16>
  %b = tile.make_view %A[%B, 256, 256] strides [%M, 256, 1] : !tile.ptr<bf16>
  %c = tile.make_view %A[%M, 256] strides [256, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{a batch-reduce GEMM takes no clusters (cluster_m = 2, cluster_n = 1)}}
  tile.gemm %a, %b, %c config <cluster_m = 2> : !tile.view<?x?x256xbf16, strides = [?, 256, 1]>, !tile.view<?x256x256xbf16, strides = [?, 256, 1]>, !tile.view<?x256xbf16, strides = [256, 1]>
  tile.return
}

// -----

// Nor does a grouped one.
tile.kernel @grouped_cluster(%A: !tile.ptr<bf16>, %O: !tile.ptr<i32>, %E: i32, %M: i32) {
  %a = tile.make_view %A[%M, 256] strides [256, 1] : !tile.ptr<bf16>
  %b = tile.make_view %A[%E, 256, 256] strides [%M, 256, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%E] strides [1] : !tile.ptr<i32>
  // expected-error @+1 {{a grouped GEMM takes no clusters (cluster_m = 1, cluster_n = 2)}}
  tile.gemm %a, %b, %a group_offsets(%o : !tile.view<?xi32, strides = [1]>) config <cluster_n = 2> : !tile.view<?x256xbf16, strides = [256, 1]>, !tile.view<?x256x256xbf16, strides = [?, 256, 1]>, !tile.view<?x256xbf16, strides = [256, 1]>
  tile.return
}

// -----

// The transposed product needs bf16/f16 inputs.
tile.kernel @swap_ab_f32(%A: !tile.ptr<f32>, %M: i32) {
  %a = tile.make_view %A[%M, 256] strides [256, 1] : !tile.ptr<f32>
  %b = tile.make_view %A[256, 256] strides [1, 256] : !tile.ptr<f32>
  // expected-error @+1 {{swap_ab needs bf16 or f16 inputs}}
  tile.gemm %a, %b, %a config <swap_ab = true> : !tile.view<?x256xf32, strides = [256, 1]>, !tile.view<256x256xf32, strides = [1, 256]>, !tile.view<?x256xf32, strides = [256, 1]>
  tile.return
}

// -----

tile.kernel @swap_ab_batched(%A: !tile.ptr<bf16>, %B: i32, %M: i32) {
  %a = tile.make_view %A[%B, %M, 256] strides [%M, 256, 1] : !tile.ptr<bf16>
  %b = tile.make_view %A[%B, 256, 256] strides [%M, 1, 256] : !tile.ptr<bf16>
  // expected-error @+1 {{swap_ab needs a 2-D or grouped GEMM (not batched or batch-reduce)}}
  tile.gemm %a, %b, %a config <swap_ab = true> : !tile.view<?x?x256xbf16, strides = [?, 256, 1]>, !tile.view<?x256x256xbf16, strides = [?, 1, 256]>, !tile.view<?x?x256xbf16, strides = [?, 256, 1]>
  tile.return
}

// -----

tile.kernel @swap_ab_unaligned(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, 256] strides [256, 1] : !tile.ptr<bf16>
  %b = tile.make_view %A[256, 256] strides [1, 256] : !tile.ptr<bf16>
  // expected-error @+1 {{swap_ab needs aligned operands (its operands reach wgmma through TMA)}}
  tile.gemm %a, %b, %a config <swap_ab = true, aligned = false> : !tile.view<?x256xbf16, strides = [256, 1]>, !tile.view<256x256xbf16, strides = [1, 256]>, !tile.view<?x256xbf16, strides = [256, 1]>
  tile.return
}


// -----

// A block list's 128-key blocks must hold whole key blocks of the kernel.
tile.kernel @block_list_wide_blocks(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %N: !tile.ptr<i32>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 64] strides [%S, %S, 64, 1] : !tile.ptr<bf16>
  %num = tile.make_view %N[%B, %H, %S] strides [%H, %S, 1] : !tile.ptr<i32>
  %idx = tile.make_view %N[%B, %H, %S, %S] strides [%H, %S, %S, 1] : !tile.ptr<i32>
  // expected-error @+1 {{a block list's blocks of 128 queries and keys must each hold whole blocks of the kernel: block_m = 128 and block_n = 256 must divide 128}}
  tile.attention %q, %q, %q, %q block_list(%num, %idx : !tile.view<?x?x?xi32, strides = [?, ?, 1]>, !tile.view<?x?x?x?xi32, strides = [?, ?, ?, 1]>)
      config <block_n = 256>
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// The hand-built schedule has no block list (it would visit every block).
tile.kernel @block_list_hand_built(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %N: !tile.ptr<i32>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 256] strides [%S, %S, 256, 1] : !tile.ptr<bf16>
  %num = tile.make_view %N[%B, %H, %S] strides [%H, %S, 1] : !tile.ptr<i32>
  %idx = tile.make_view %N[%B, %H, %S, %S] strides [%H, %S, %S, 1] : !tile.ptr<i32>
  // expected-error @+1 {{by_passes = false: the hand-built schedule has no block list; attention with one is built by the scheduling passes}}
  tile.attention %q, %q, %q, %q block_list(%num, %idx : !tile.view<?x?x?xi32, strides = [?, ?, 1]>, !tile.view<?x?x?x?xi32, strides = [?, ?, ?, 1]>)
      causal config <by_passes = false>
      : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>,
        !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>
  tile.return
}
