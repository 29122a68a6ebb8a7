// FP8 tile.attention as python/tilec/kernels.py's attention_source("f8e4m3")
// writes it (non-causal and causal, head dim 128, and non-causal at head dim
// 64, with the row lse): input of test/Target/attention-fp8-ptx.mlir.
tile.kernel @attention_f8e4m3_d128(%Q: !tile.ptr<f8E4M3FN>, %K: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32, %lse_batch: i32, %v_batch: i32, %v_head: i32, %v_ld: i32, %q_descale: f32, %k_descale: f32, %v_descale: f32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<f8E4M3FN>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%v_batch, %v_head, 1, %v_ld] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) descale(%q_descale, %k_descale, %v_descale) : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

tile.kernel @attention_f8e4m3_d128_causal(%Q: !tile.ptr<f8E4M3FN>, %K: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32, %lse_batch: i32, %v_batch: i32, %v_head: i32, %v_ld: i32, %q_descale: f32, %k_descale: f32, %v_descale: f32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<f8E4M3FN>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%v_batch, %v_head, 1, %v_ld] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) descale(%q_descale, %k_descale, %v_descale) causal : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

tile.kernel @attention_f8e4m3_d64(%Q: !tile.ptr<f8E4M3FN>, %K: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32, %lse_batch: i32, %v_batch: i32, %v_head: i32, %v_ld: i32, %q_descale: f32, %k_descale: f32, %v_descale: f32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<f8E4M3FN>
  %k = tile.make_view %K[%B, %HK, %SK, 64] strides [%kv_batch, %kv_head, 64, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %HK, %SK, 64] strides [%v_batch, %v_head, 1, %v_ld] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) descale(%q_descale, %k_descale, %v_descale) : !tile.view<?x?x?x64xf8E4M3FN, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xf8E4M3FN, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
