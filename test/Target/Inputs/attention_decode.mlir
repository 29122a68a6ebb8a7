// Decode against a KV cache laid out [batch, seq, kv_heads, head_dim] (as
// vLLM and flash-attn lay it out, read as [batch, kv_heads, seq, head_dim]),
// one query per head, each batch's cache length in seqused_k.

// The query heads of a K/V head packed into one block, one kernel.
tile.kernel @decode_packed(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %L: !tile.ptr<f32>, %LENS: !tile.ptr<i32>,
    %B: i32, %H: i32, %HK: i32, %SK: i32, %qb: i32, %qh: i32, %kb: i32, %ks: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, 1, 128] strides [%qb, %qh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, %ks, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, %ks, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, 1, 128] strides [%qb, %qh, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %L[%B, %H, 1] strides [%H, 1, 1] : !tile.ptr<f32>
  %lens = tile.make_view %LENS[%B] strides [1] : !tile.ptr<i32>
  tile.attention %q, %k, %v, %o lse(%lse) seqused_k(%lens : !tile.view<?xi32, strides = [1]>)
      : !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x1xf32, strides = [?, 1, 1]>
  tile.return
}

// Split-KV: 4 key ranges per query block (the split and combine kernels).
tile.kernel @decode_split(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %L: !tile.ptr<f32>, %LENS: !tile.ptr<i32>,
    %WO: !tile.ptr<f32>, %WL: !tile.ptr<f32>,
    %B: i32, %H: i32, %HK: i32, %SK: i32, %qb: i32, %qh: i32, %kb: i32, %ks: i32, %kh: i32,
    %ROWS: i32, %wso: i32) {
  %q = tile.make_view %Q[%B, %H, 1, 128] strides [%qb, %qh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, %ks, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, %ks, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, 1, 128] strides [%qb, %qh, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %L[%B, %H, 1] strides [%H, 1, 1] : !tile.ptr<f32>
  %lens = tile.make_view %LENS[%B] strides [1] : !tile.ptr<i32>
  %wo = tile.make_view %WO[4, %ROWS, 128] strides [%wso, 128, 1] : !tile.ptr<f32>
  %wl = tile.make_view %WL[4, %ROWS] strides [%ROWS, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%lse) seqused_k(%lens : !tile.view<?xi32, strides = [1]>)
      workspace(%wo, %wl : !tile.view<4x?x128xf32, strides = [?, 128, 1]>, !tile.view<4x?xf32, strides = [?, 1]>)
      config <splits = 4>
      : !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x1xf32, strides = [?, 1, 1]>
  tile.return
}

// Speculative decoding: a few causal queries per head, unpacked, 2 ranges.
tile.kernel @decode_split_queries(%Q: !tile.ptr<f16>, %K: !tile.ptr<f16>, %V: !tile.ptr<f16>,
    %O: !tile.ptr<f16>, %WO: !tile.ptr<f32>, %WL: !tile.ptr<f32>,
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %qb: i32, %qh: i32, %kb: i32, %kh: i32,
    %ROWS: i32, %wso: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 64] strides [%qb, %qh, 64, 1] : !tile.ptr<f16>
  %k = tile.make_view %K[%B, %HK, %SK, 64] strides [%kb, %kh, 64, 1] : !tile.ptr<f16>
  %v = tile.make_view %V[%B, %HK, %SK, 64] strides [%kb, %kh, 64, 1] : !tile.ptr<f16>
  %o = tile.make_view %O[%B, %H, %SQ, 64] strides [%qb, %qh, 64, 1] : !tile.ptr<f16>
  %wo = tile.make_view %WO[2, %ROWS, 64] strides [%wso, 64, 1] : !tile.ptr<f32>
  %wl = tile.make_view %WL[2, %ROWS] strides [%ROWS, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o
      workspace(%wo, %wl : !tile.view<2x?x64xf32, strides = [?, 64, 1]>, !tile.view<2x?xf32, strides = [?, 1]>)
      causal config <splits = 2>
      : !tile.view<?x?x?x64xf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x?x?x64xf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xf16, strides = [?, ?, 64, 1]>
  tile.return
}

// A paged cache (vLLM's layout: pages of 64 positions, [pages, page_size,
// kv_heads, head_dim] read as [pages, kv_heads, page_size, head_dim]),
// split-KV: key blocks of one page, the page from the block table.
tile.kernel @decode_paged(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %LENS: !tile.ptr<i32>, %T: !tile.ptr<i32>,
    %WO: !tile.ptr<f32>, %WL: !tile.ptr<f32>,
    %B: i32, %H: i32, %HK: i32, %PAGES: i32, %MAXP: i32, %qb: i32, %qh: i32, %pb: i32, %ps: i32, %kh: i32,
    %ROWS: i32, %wso: i32) {
  %q = tile.make_view %Q[%B, %H, 1, 128] strides [%qb, %qh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%PAGES, %HK, 64, 128] strides [%pb, %kh, %ps, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%PAGES, %HK, 64, 128] strides [%pb, %kh, %ps, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, 1, 128] strides [%qb, %qh, 128, 1] : !tile.ptr<bf16>
  %lens = tile.make_view %LENS[%B] strides [1] : !tile.ptr<i32>
  %table = tile.make_view %T[%B, %MAXP] strides [%MAXP, 1] : !tile.ptr<i32>
  %wo = tile.make_view %WO[2, %ROWS, 128] strides [%wso, 128, 1] : !tile.ptr<f32>
  %wl = tile.make_view %WL[2, %ROWS] strides [%ROWS, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o seqused_k(%lens : !tile.view<?xi32, strides = [1]>)
      block_table(%table : !tile.view<?x?xi32, strides = [?, 1]>)
      workspace(%wo, %wl : !tile.view<2x?x128xf32, strides = [?, 128, 1]>, !tile.view<2x?xf32, strides = [?, 1]>)
      config <splits = 2>
      : !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x64x128xbf16, strides = [?, ?, ?, 1]>,
        !tile.view<?x?x64x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// Pages of 16 positions: 16-key blocks (the cp.async schedule; TMA's
// warp-specialized one takes 64 keys or more).
tile.kernel @decode_paged16(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %LENS: !tile.ptr<i32>, %T: !tile.ptr<i32>,
    %B: i32, %H: i32, %HK: i32, %PAGES: i32, %MAXP: i32, %qb: i32, %qh: i32, %pb: i32, %ps: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, 1, 128] strides [%qb, %qh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%PAGES, %HK, 16, 128] strides [%pb, %kh, %ps, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%PAGES, %HK, 16, 128] strides [%pb, %kh, %ps, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, 1, 128] strides [%qb, %qh, 128, 1] : !tile.ptr<bf16>
  %lens = tile.make_view %LENS[%B] strides [1] : !tile.ptr<i32>
  %table = tile.make_view %T[%B, %MAXP] strides [%MAXP, 1] : !tile.ptr<i32>
  tile.attention %q, %k, %v, %o seqused_k(%lens : !tile.view<?xi32, strides = [1]>)
      block_table(%table : !tile.view<?x?xi32, strides = [?, 1]>)
      : !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x16x128xbf16, strides = [?, ?, ?, 1]>,
        !tile.view<?x?x16x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x1x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
