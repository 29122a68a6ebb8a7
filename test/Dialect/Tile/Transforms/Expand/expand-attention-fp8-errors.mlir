// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_80}))'

// FP8 attention needs FP8 tensor cores (sm_89's mma.sync m16n8k32 or
// sm_90a's FP8 wgmma); sm_80 has neither.
tile.kernel @attention_fp8_sm80(%Q: !tile.ptr<f8E4M3FN>, %V: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>,
                                %B: i32, %H: i32, %S: i32, %ld: i32, %d: f32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%ld, %ld, 128, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %V[%B, %H, %S, 128] strides [%ld, %ld, 1, %ld] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%ld, %ld, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{FP8 attention needs FP8 tensor cores: mma.sync m16n8k32 (sm_89) or FP8 wgmma (sm_90a); sm_80 has neither (bf16 or f16 inputs run there)}}
  tile.attention %q, %q, %v, %o descale(%d, %d, %d)
      : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

