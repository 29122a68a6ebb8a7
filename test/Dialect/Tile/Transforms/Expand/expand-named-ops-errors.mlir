// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_89}))'

// Configurations the chip cannot run are compile-time errors naming the
// limit.

tile.kernel @too_much_smem(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{config needs 122880 bytes of shared memory for 5 stages of 128x32 and 32x256 tiles, more than the 101376 bytes a block may use on sm_89}}
  tile.gemm %a, %a, %a config <stages = 5> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// A bf16 output is staged in shared memory for coalesced stores (f32
// accumulator fragments are stored directly).
tile.kernel @epilogue_too_big(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{config needs 132096 bytes of shared memory to stage the 256x256 output tile, more than the 101376 bytes a block may use on sm_89}}
  tile.gemm %a, %a, %a config <block_m = 256, block_n = 256, stages = 2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @warps_do_not_divide(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{16 warps cannot split a 32x32 block into warp tiles of at least 16x8}}
  tile.gemm %a, %a, %a config <block_m = 32, block_n = 32, warps = 16> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @block_k(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{block_k = 8 is below the mma.sync K of 16}}
  tile.gemm %a, %a, %a config <block_k = 8> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @not_alone(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  %x = arith.addi %M, %M : i32
  // expected-error @+1 {{must be the only computation of its kernel; found 'arith.addi'}}
  tile.gemm %a, %a, %a : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @two_named_ops(%A: !tile.ptr<bf16>, %M: i32) {
  %c1 = arith.constant 1 : i32
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  %c = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  tile.gemm %a, %a, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  // expected-error @+1 {{a kernel may hold only one named op}}
  tile.gemm %a, %a, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @tma_store_f32(%A: !tile.ptr<bf16>, %C: !tile.ptr<f32>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %M] strides [%M, 1] : !tile.ptr<f32>
  // expected-error @+1 {{tma_store needs the warp-specialized kernel, a bf16/f16 output, block_n a multiple of 64 and a 2-D (not batched, batch-reduce or grouped) GEMM}}
  tile.gemm %a, %a, %c config <tma_store = true> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @attention_bad_warps(%Q: !tile.ptr<bf16>, %S: i32) {
  %q = tile.make_view %Q[%S, %S, %S, 64] strides [%S, %S, 64, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{block_m must be a multiple of 16 x warps, got block_m = 64, warps = 8}}
  tile.attention %q, %q, %q, %q config <block_m = 64, warps = 8>
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// sm_80-class chips have no thread-block clusters (nor the kernel that uses
// them).

tile.kernel @cluster_on_sm80(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{cluster_m = 2, cluster_n = 1: clusters need the warp-specialized kernel (sm_90a)}}
  tile.gemm %a, %a, %a config <cluster_m = 2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// The warp-specialized attention schedule is sm_90a's (TMA, setmaxnreg).

tile.kernel @attention_ws_on_sm89(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 64] strides [%S, %S, 64, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{warp_specialize: sm_89 has no wgmma/TMA/setmaxnreg (needs sm_90a)}}
  tile.attention %q, %q, %q, %q config <warp_specialize = true>
      : !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// Head dim 128 keeps Q (128 x 128) in shared memory beside the K/V ring.

tile.kernel @attention_q_and_ring_too_big(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{config needs 131072 bytes of shared memory for Q and a 3-stage K/V ring, more than the 101376 bytes a block may use on sm_89}}
  tile.attention %q, %q, %q, %q config <stages = 3, block_n = 64>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// sm_89 has no warp-specialized schedule, so a field only it reads is refused
// there (with `warp_specialize = false` spelled out, on any chip, by the
// config attribute's verifier: invalid-named-ops.mlir).

tile.kernel @attention_pingpong_sm89(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{pingpong needs the warp-specialized schedule}}
  tile.attention %q, %q, %q, %q config <pingpong = true>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Block scales: a tile's columns must share one 128-wide B block.
tile.kernel @gemm_block_scales_block_n(%A: !tile.ptr<f8E4M3FN>, %B: !tile.ptr<f8E4M3FN>, %C: !tile.ptr<bf16>,
                                       %SA: !tile.ptr<f32>, %SB: !tile.ptr<f32>,
                                       %M: i32, %N: i32, %K: i32, %KB: i32, %NB: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%K, %N] strides [1, %K] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %sa = tile.make_view %SA[%KB, %M] strides [%M, 1] : !tile.ptr<f32>
  %sb = tile.make_view %SB[%NB, %KB] strides [%KB, 1] : !tile.ptr<f32>
  // expected-error @+1 {{block scales need block_n and block_k that divide the 128-wide scale blocks, got block_n = 256, block_k = 64}}
  tile.gemm %a, %b, %c scale_a(%sa : !tile.view<?x?xf32, strides = [?, 1]>)
      scale_b(%sb : !tile.view<?x?xf32, strides = [?, 1]>) config <block_n = 256>
      : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// A split-K GEMM is two kernels: tile-split-stages must run first.
tile.kernel @gemm_split_unstaged(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
    %W: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32, %ldw: i32, %sw: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[2, %M, %N] strides [%sw, %ldw, 1] : !tile.ptr<f32>
  // expected-error @+1 {{split_k = 2 needs a stage to be expanded: the GEMM is two kernels, the partial products and their sum (tile-split-stages makes one per stage)}}
  tile.gemm %a, %b, %c workspace(%w : !tile.view<2x?x?xf32, strides = [?, ?, 1]>)
      config <split_k = 2>
    : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
      !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// Split-KV attention is two kernels: tile-split-stages must run first.
tile.kernel @attention_split_unstaged(%Q: !tile.ptr<bf16>, %W: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %R: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %wo = tile.make_view %W[2, %R, 128] strides [%R, 128, 1] : !tile.ptr<f32>
  %wl = tile.make_view %W[2, %R] strides [%R, 1] : !tile.ptr<f32>
  // expected-error @+1 {{with splits = 2 needs a stage to be expanded: split-KV attention is two kernels, the key ranges and their combination (tile-split-stages makes one per stage)}}
  tile.attention %q, %q, %q, %q workspace(%wo, %wl : !tile.view<2x?x128xf32, strides = [?, 128, 1]>, !tile.view<2x?xf32, strides = [?, 1]>)
      config <splits = 2>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// A key block of a paged cache lies within one page.
tile.kernel @attention_paged_block_n(%Q: !tile.ptr<bf16>, %T: !tile.ptr<i32>, %L: !tile.ptr<i32>, %B: i32, %H: i32, %P: i32) {
  %q = tile.make_view %Q[%B, %H, 1, 128] strides [%P, %P, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Q[%P, %H, 16, 128] strides [%P, %P, %P, 1] : !tile.ptr<bf16>
  %lens = tile.make_view %L[%B] strides [1] : !tile.ptr<i32>
  %t = tile.make_view %T[%B, %P] strides [%P, 1] : !tile.ptr<i32>
  // expected-error @+1 {{block_n = 64 is larger than the KV cache's pages (16 keys): a key block must lie within one page}}
  tile.attention %q, %k, %k, %q seqused_k(%lens : !tile.view<?xi32, strides = [1]>) block_table(%t : !tile.view<?x?xi32, strides = [?, 1]>)
      config <block_n = 64>
      : !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x16x128xbf16, strides = [?, ?, ?, 1]>,
        !tile.view<?x?x16x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
