// ALiBi (a per-head slope table read at the head: a scalar) and a document
// mask (document ids read at the query and at the key: a row of the table
// per block, broadcast) in tile.attention's score_mod and mask_mod.
tile.kernel @attention_doc_alibi(%Q: !tile.ptr<bf16>, %D: !tile.ptr<i32>, %SL: !tile.ptr<f32>,
    %B: i32, %H: i32, %S: i32, %sb: i32 {tile.divisibility = 16 : i64}, %sh: i32 {tile.divisibility = 16 : i64}) {
  %q = tile.make_view %Q[%B, %H, %S, 64] strides [%sb, %sh, 64, 1] : !tile.ptr<bf16>
  %docs = tile.make_view %D[%B, %S] strides [%S, 1] : !tile.ptr<i32>
  %slopes = tile.make_view %SL[%H] strides [1] : !tile.ptr<f32>
  tile.attention %q, %q, %q, %q causal score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    %slope = tile.load_scalar %slopes[%h] : !tile.view<?xf32, strides = [1]> -> f32
    %d = arith.subi %kj, %qi : i32
    %df = arith.sitofp %d : i32 to f32
    %bias = arith.mulf %slope, %df : f32
    %r = arith.addf %s, %bias : f32
    tile.yield %r : f32
  } mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    %dq = tile.load_scalar %docs[%b, %qi] : !tile.view<?x?xi32, strides = [?, 1]> -> i32
    %dk = tile.load_scalar %docs[%b, %kj] : !tile.view<?x?xi32, strides = [?, 1]> -> i32
    %same = arith.cmpi eq, %dq, %dk : i32
    tile.yield %same : i1
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>,
      !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// The same document mask with a block list (FlexAttention's block mask):
// each query block visits only the key blocks listed for it, the first
// %F of them wholly visible (no mask_mod there).
tile.kernel @attention_doc_list(%Q: !tile.ptr<bf16>, %D: !tile.ptr<i32>, %N: !tile.ptr<i32>,
    %I: !tile.ptr<i32>, %F: !tile.ptr<i32>, %B: i32, %H: i32, %S: i32, %QB: i32, %NB: i32,
    %sb: i32 {tile.divisibility = 16 : i64}, %sh: i32 {tile.divisibility = 16 : i64}) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %docs = tile.make_view %D[%B, %S] strides [%S, 1] : !tile.ptr<i32>
  %num = tile.make_view %N[%B, %H, %QB] strides [%QB, 0, 1] : !tile.ptr<i32>
  %idx = tile.make_view %I[%B, %H, %QB, %NB] strides [%S, 0, %NB, 1] : !tile.ptr<i32>
  %full = tile.make_view %F[%B, %H, %QB] strides [%QB, 0, 1] : !tile.ptr<i32>
  tile.attention %q, %q, %q, %q
      block_list(%num, %idx : !tile.view<?x?x?xi32, strides = [?, 0, 1]>, !tile.view<?x?x?x?xi32, strides = [?, 0, ?, 1]>)
      full_blocks(%full : !tile.view<?x?x?xi32, strides = [?, 0, 1]>)
      causal mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    %dq = tile.load_scalar %docs[%b, %qi] : !tile.view<?x?xi32, strides = [?, 1]> -> i32
    %dk = tile.load_scalar %docs[%b, %kj] : !tile.view<?x?xi32, strides = [?, 1]> -> i32
    %same = arith.cmpi eq, %dq, %dk : i32
    tile.yield %same : i1
  } : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
