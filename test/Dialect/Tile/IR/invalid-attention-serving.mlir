// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of tile.attention's serving forms: seqused_k,
// split-KV (a workspace exactly with splits > 1, a stage only then),
// pack_gqa, paged caches and varlen (cu_seqlens).

tile.kernel @seqused_k_type(%Q: !tile.ptr<bf16>, %L: !tile.ptr<i64>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %lens = tile.make_view %L[%B] strides [1] : !tile.ptr<i64>
  // expected-error @+1 {{expected a 1-D i32 seqused_k view [batch] (each batch's number of keys), got '!tile.view<?xi64, strides = [1]>'}}
  tile.attention %q, %q, %q, %q seqused_k(%lens : !tile.view<?xi64, strides = [1]>)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @workspace_without_splits(%Q: !tile.ptr<bf16>, %W: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %R: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %wo = tile.make_view %W[2, %R, 128] strides [%R, 128, 1] : !tile.ptr<f32>
  %wl = tile.make_view %W[2, %R] strides [%R, 1] : !tile.ptr<f32>
  // expected-error @+1 {{a workspace is for split-KV attention only (config <splits = S> with S > 1)}}
  tile.attention %q, %q, %q, %q workspace(%wo, %wl : !tile.view<2x?x128xf32, strides = [?, 128, 1]>, !tile.view<2x?xf32, strides = [?, 1]>)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @stage_without_splits(%Q: !tile.ptr<bf16>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{a stage is for split-KV attention only (config <splits = S> with S > 1)}}
  tile.attention %q, %q, %q, %q stage(combine)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @splits_without_workspace(%Q: !tile.ptr<bf16>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{split-KV attention (splits = 4) needs workspace(%partial_o, %partial_lse): f32 views [4, rows, 128] and [4, rows] the two kernels pass the partial results through}}
  tile.attention %q, %q, %q, %q config <splits = 4>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @workspace_shape(%Q: !tile.ptr<bf16>, %W: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %R: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %wo = tile.make_view %W[2, %R, 64] strides [%R, 64, 1] : !tile.ptr<f32>
  %wl = tile.make_view %W[2, %R] strides [%R, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected the workspace's partial O to be an f32 view [2, rows, 128] contiguous along its last dimension, got '!tile.view<2x?x64xf32, strides = [?, 64, 1]>'}}
  tile.attention %q, %q, %q, %q workspace(%wo, %wl : !tile.view<2x?x64xf32, strides = [?, 64, 1]>, !tile.view<2x?xf32, strides = [?, 1]>)
      config <splits = 2>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @workspace_lse_splits(%Q: !tile.ptr<bf16>, %W: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %R: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %wo = tile.make_view %W[2, %R, 128] strides [%R, 128, 1] : !tile.ptr<f32>
  %wl = tile.make_view %W[3, %R] strides [%R, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected the workspace's partial lse to be an f32 view [2, rows] contiguous along its last dimension, got '!tile.view<3x?xf32, strides = [?, 1]>'}}
  tile.attention %q, %q, %q, %q workspace(%wo, %wl : !tile.view<2x?x128xf32, strides = [?, 128, 1]>, !tile.view<3x?xf32, strides = [?, 1]>)
      config <splits = 2>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @splits_fp8(%Q: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>, %W: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %R: i32, %d: f32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<f8E4M3FN>
  %vt = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 1, 128] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %wo = tile.make_view %W[2, %R, 128] strides [%R, 128, 1] : !tile.ptr<f32>
  %wl = tile.make_view %W[2, %R] strides [%R, 1] : !tile.ptr<f32>
  // expected-error @+1 {{split-KV attention takes bf16 or f16 inputs}}
  tile.attention %q, %q, %vt, %o descale(%d, %d, %d) workspace(%wo, %wl : !tile.view<2x?x128xf32, strides = [?, 128, 1]>, !tile.view<2x?xf32, strides = [?, 1]>)
      config <splits = 2>
      : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, 128]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @pack_gqa_queries(%Q: !tile.ptr<bf16>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{pack_gqa needs one query per head (Q's seq dimension 1 in its type)}}
  tile.attention %q, %q, %q, %q config <pack_gqa = true>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @pack_gqa_mods(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, 1, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{pack_gqa takes no score_mod or mask_mod (the rows of a packed block are different heads)}}
  tile.attention %q, %k, %k, %q config <pack_gqa = true> score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    tile.yield %s : f32
  } : !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @splits_zero(%Q: !tile.ptr<bf16>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{splits = 0 must be at least 1}}
  tile.attention %q, %q, %q, %q config <splits = 0>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @block_table_type(%Q: !tile.ptr<bf16>, %T: !tile.ptr<i64>, %L: !tile.ptr<i32>, %B: i32, %H: i32, %P: i32) {
  %q = tile.make_view %Q[%B, %H, 1, 128] strides [%P, %P, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Q[%P, %H, 64, 128] strides [%P, %P, %P, 1] : !tile.ptr<bf16>
  %lens = tile.make_view %L[%B] strides [1] : !tile.ptr<i32>
  %t = tile.make_view %T[%B, %P] strides [%P, 1] : !tile.ptr<i64>
  // expected-error @+1 {{expected a 2-D i32 block_table view [batch, max_pages], got '!tile.view<?x?xi64, strides = [?, 1]>'}}
  tile.attention %q, %k, %k, %q seqused_k(%lens : !tile.view<?xi32, strides = [1]>) block_table(%t : !tile.view<?x?xi64, strides = [?, 1]>)
      : !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x64x128xbf16, strides = [?, ?, ?, 1]>,
        !tile.view<?x?x64x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @block_table_without_lengths(%Q: !tile.ptr<bf16>, %T: !tile.ptr<i32>, %B: i32, %H: i32, %P: i32) {
  %q = tile.make_view %Q[%B, %H, 1, 128] strides [%P, %P, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Q[%P, %H, 64, 128] strides [%P, %P, %P, 1] : !tile.ptr<bf16>
  %t = tile.make_view %T[%B, %P] strides [%P, 1] : !tile.ptr<i32>
  // expected-error @+1 {{a paged KV cache (block_table) needs seqused_k: each batch's number of keys}}
  tile.attention %q, %k, %k, %q block_table(%t : !tile.view<?x?xi32, strides = [?, 1]>)
      : !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x64x128xbf16, strides = [?, ?, ?, 1]>,
        !tile.view<?x?x64x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @block_table_page_size(%Q: !tile.ptr<bf16>, %T: !tile.ptr<i32>, %L: !tile.ptr<i32>, %B: i32, %H: i32, %P: i32) {
  %q = tile.make_view %Q[%B, %H, 1, 128] strides [%P, %P, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Q[%P, %H, 48, 128] strides [%P, %P, %P, 1] : !tile.ptr<bf16>
  %lens = tile.make_view %L[%B] strides [1] : !tile.ptr<i32>
  %t = tile.make_view %T[%B, %P] strides [%P, 1] : !tile.ptr<i32>
  // expected-error @+1 {{expected paged K and V [pages, kv_heads, page_size, head_dim] with a static page_size, a power of two from 16 to 256, got '!tile.view<?x?x48x128xbf16, strides = [?, ?, ?, 1]>'}}
  tile.attention %q, %k, %k, %q seqused_k(%lens : !tile.view<?xi32, strides = [1]>) block_table(%t : !tile.view<?x?xi32, strides = [?, 1]>)
      : !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x48x128xbf16, strides = [?, ?, ?, 1]>,
        !tile.view<?x?x48x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

// Varlen (cu_seqlens): 1-D i32 cumulative lengths, max_seqlen_q with them
// (and only with them), Q/K/V/O/lse packed as one batch, and none of the
// forms it does not combine with.

tile.kernel @cu_seqlens_type(%Q: !tile.ptr<bf16>, %C: !tile.ptr<i64>, %B: i32, %H: i32, %T: i32, %M: i32) {
  %q = tile.make_view %Q[1, %H, %T, 128] strides [0, 128, %H, 1] : !tile.ptr<bf16>
  %cu = tile.make_view %C[%B] strides [1] : !tile.ptr<i64>
  // expected-error @+1 {{expected 1-D i32 cu_seqlens views [batch + 1] (cumulative sequence lengths), got '!tile.view<?xi64, strides = [1]>'}}
  tile.attention %q, %q, %q, %q cu_seqlens(%cu, %cu : !tile.view<?xi64, strides = [1]>, !tile.view<?xi64, strides = [1]>) max_seqlen_q(%M)
      : !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>,
        !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>
  tile.return
}

// -----

tile.kernel @cu_seqlens_without_max(%Q: !tile.ptr<bf16>, %C: !tile.ptr<i32>, %B: i32, %H: i32, %T: i32) {
  %q = tile.make_view %Q[1, %H, %T, 128] strides [0, 128, %H, 1] : !tile.ptr<bf16>
  %cu = tile.make_view %C[%B] strides [1] : !tile.ptr<i32>
  // expected-error @+1 {{variable-length sequences (cu_seqlens) need max_seqlen_q(%m): the longest sequence's queries size the grid}}
  tile.attention %q, %q, %q, %q cu_seqlens(%cu, %cu : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>)
      : !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>,
        !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>
  tile.return
}

// -----

tile.kernel @max_seqlen_without_cu(%Q: !tile.ptr<bf16>, %B: i32, %H: i32, %S: i32, %M: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{max_seqlen_q is for variable-length sequences only (cu_seqlens)}}
  tile.attention %q, %q, %q, %q max_seqlen_q(%M)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @varlen_batched(%Q: !tile.ptr<bf16>, %C: !tile.ptr<i32>, %B: i32, %H: i32, %T: i32, %M: i32) {
  %q = tile.make_view %Q[%B, %H, %T, 128] strides [%T, 128, %H, 1] : !tile.ptr<bf16>
  %cu = tile.make_view %C[%B] strides [1] : !tile.ptr<i32>
  // expected-error @+1 {{expected packed variable-length Q with a batch dimension of 1 ([1, heads, total_tokens, ...]), got '!tile.view<?x?x?x128xbf16, strides = [?, 128, ?, 1]>'}}
  tile.attention %q, %q, %q, %q cu_seqlens(%cu, %cu : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>) max_seqlen_q(%M)
      : !tile.view<?x?x?x128xbf16, strides = [?, 128, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, 128, ?, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, 128, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, 128, ?, 1]>
  tile.return
}

// -----

tile.kernel @varlen_paged(%Q: !tile.ptr<bf16>, %C: !tile.ptr<i32>, %B: i32, %H: i32, %T: i32, %M: i32) {
  %q = tile.make_view %Q[1, %H, %T, 128] strides [0, 128, %H, 1] : !tile.ptr<bf16>
  %kc = tile.make_view %Q[1, %H, 64, 128] strides [0, 128, %H, 1] : !tile.ptr<bf16>
  %cu = tile.make_view %C[%B] strides [1] : !tile.ptr<i32>
  %bt = tile.make_view %C[%B, %B] strides [%B, 1] : !tile.ptr<i32>
  // expected-error @+1 {{variable-length sequences (cu_seqlens) do not take block_table yet}}
  tile.attention %q, %kc, %kc, %q seqused_k(%cu : !tile.view<?xi32, strides = [1]>) block_table(%bt : !tile.view<?x?xi32, strides = [?, 1]>)
      cu_seqlens(%cu, %cu : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>) max_seqlen_q(%M)
      : !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x64x128xbf16, strides = [0, 128, ?, 1]>,
        !tile.view<1x?x64x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>
  tile.return
}

// -----

tile.kernel @varlen_pack_gqa(%Q: !tile.ptr<bf16>, %C: !tile.ptr<i32>, %B: i32, %H: i32, %T: i32, %M: i32) {
  %q = tile.make_view %Q[1, %H, 1, 128] strides [0, 128, %H, 1] : !tile.ptr<bf16>
  %cu = tile.make_view %C[%B] strides [1] : !tile.ptr<i32>
  // expected-error @+1 {{variable-length sequences (cu_seqlens) do not take pack_gqa yet}}
  tile.attention %q, %q, %q, %q cu_seqlens(%cu, %cu : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>) max_seqlen_q(%M)
      config <pack_gqa = true>
      : !tile.view<1x?x1x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x1x128xbf16, strides = [0, 128, ?, 1]>,
        !tile.view<1x?x1x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x1x128xbf16, strides = [0, 128, ?, 1]>
  tile.return
}

// -----

tile.kernel @varlen_score_mod(%Q: !tile.ptr<bf16>, %C: !tile.ptr<i32>, %B: i32, %H: i32, %T: i32, %M: i32) {
  %q = tile.make_view %Q[1, %H, %T, 128] strides [0, 128, %H, 1] : !tile.ptr<bf16>
  %cu = tile.make_view %C[%B] strides [1] : !tile.ptr<i32>
  // expected-error @+1 {{variable-length sequences (cu_seqlens) do not take score_mod or mask_mod yet}}
  tile.attention %q, %q, %q, %q cu_seqlens(%cu, %cu : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>) max_seqlen_q(%M)
      score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    tile.yield %s : f32
  }
      : !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>,
        !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>, !tile.view<1x?x?x128xbf16, strides = [0, 128, ?, 1]>
  tile.return
}

// -----

// Block lists (FlexAttention's block mask): i32 views [batch, heads,
// query_blocks] and [batch, heads, query_blocks, max_blocks], and not with
// split-KV.

tile.kernel @block_list_type(%Q: !tile.ptr<bf16>, %N: !tile.ptr<i32>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %num = tile.make_view %N[%B, %H] strides [%H, 1] : !tile.ptr<i32>
  // expected-error @+1 {{expected a block list of i32 views [batch, heads, query_blocks] (the counts) and [batch, heads, query_blocks, max_blocks], got '!tile.view<?x?xi32, strides = [?, 1]>'}}
  tile.attention %q, %q, %q, %q block_list(%num, %num : !tile.view<?x?xi32, strides = [?, 1]>, !tile.view<?x?xi32, strides = [?, 1]>)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @block_list_split(%Q: !tile.ptr<bf16>, %N: !tile.ptr<i32>, %W: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %R: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %num = tile.make_view %N[%B, %H, %S] strides [%H, %S, 1] : !tile.ptr<i32>
  %idx = tile.make_view %N[%B, %H, %S, %S] strides [%H, %S, %S, 1] : !tile.ptr<i32>
  %wo = tile.make_view %W[2, %R, 128] strides [%R, 128, 1] : !tile.ptr<f32>
  %wl = tile.make_view %W[2, %R] strides [%R, 1] : !tile.ptr<f32>
  // expected-error @+1 {{a block list does not take split-KV yet}}
  tile.attention %q, %q, %q, %q block_list(%num, %idx : !tile.view<?x?x?xi32, strides = [?, ?, 1]>, !tile.view<?x?x?x?xi32, strides = [?, ?, ?, 1]>)
      workspace(%wo, %wl : !tile.view<2x?x128xf32, strides = [?, 128, 1]>, !tile.view<2x?xf32, strides = [?, 1]>)
      config <splits = 2>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @full_blocks_without_list(%Q: !tile.ptr<bf16>, %N: !tile.ptr<i32>, %B: i32, %H: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  %num = tile.make_view %N[%B, %H, %S] strides [%H, %S, 1] : !tile.ptr<i32>
  // expected-error @+1 {{full_blocks counts blocks of a block_list}}
  tile.attention %q, %q, %q, %q full_blocks(%num : !tile.view<?x?x?xi32, strides = [?, ?, 1]>)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
