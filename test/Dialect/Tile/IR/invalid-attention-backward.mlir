// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of tile.attention_backward.

tile.kernel @f32_inputs(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pf32[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<f32>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected bf16 or f16 Q, K, V, O, dO and gradients, got 'f32'}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @rank3_dk(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %S, 128] strides [%s0, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected a 4-D [batch, heads, seq, head_dim] view for dK}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x128xbf16, strides = [?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @head_dim_96(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 96] strides [%s0, %s1, 96, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected a static head_dim of 64, 128 or 256}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<?x?x?x96xbf16, strides = [?, ?, 96, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @atomic_head_dim_256(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 256] strides [%s0, %s1, 256, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 256] strides [%s0, %s1, 256, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 256] strides [%s0, %s1, 256, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 256] strides [%s0, %s1, 256, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 256] strides [%s0, %s1, 256, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 256] strides [%s0, %s1, 256, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 256] strides [%s0, %s1, 256, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 256] strides [%s0, %s1, 256, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dqa = tile.make_view %Pf32[%B, %H, %S, 256] strides [%s0, %s1, 256, 1] : !tile.ptr<f32>
  // expected-error @+1 {{the atomic mode takes head dims 64 and 128; at head dim 256 dQ has its own kernel (leave out `atomic`)}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl, %dqa : !tile.view<?x?x?x256xf32, strides = [?, ?, 256, 1]>) atomic
      : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @mixed_types(%Pbf16: !tile.ptr<bf16>, %Pf16: !tile.ptr<f16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<f16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected V of Q's element type 'bf16'}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @mixed_head_dims(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected dO with Q's head_dim 128}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @strided_head_dim(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 2] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected O contiguous along head_dim (last stride 1)}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 2]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @batch_mismatch(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[2, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[3, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{batch size of K differs from Q's}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<2x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<3x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @heads_not_dividing(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, 8, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, 3, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, 3, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{K/V heads (3) must divide Q heads (8)}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<?x8x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x3x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x3x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @lse_f16(%Pbf16: !tile.ptr<bf16>, %Pf16: !tile.ptr<f16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf16[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f16>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected an f32 [batch, heads, seq] view for lse}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf16, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @delta_strided(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 2] : !tile.ptr<f32>
  // expected-error @+1 {{expected delta contiguous along seq}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 2]>
  tile.return
}

// -----

tile.kernel @atomic_without_accumulator(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{the atomic mode needs a third scratch view, the f32 dQ accumulator [batch, heads, seq, head_dim]}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl) atomic
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @accumulator_without_atomic(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %acc = tile.make_view %Pf32[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<f32>
  // expected-error @+1 {{a dQ accumulator (the third scratch view) is for the atomic mode only}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl, %acc : !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @accumulator_bf16(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %acc = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{expected an f32 [batch, heads, seq, 128] dQ accumulator contiguous along head_dim}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl, %acc : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>) atomic
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @atomic_stage_without_atomic(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{stage 'dkdv_dq' is the atomic mode's; add `atomic`}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl) stage(dkdv_dq)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @stage_of_other_mode(%Pbf16: !tile.ptr<bf16>, %Pf32: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dq = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %Pbf16[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %dl = tile.make_view %Pf32[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  %acc = tile.make_view %Pf32[%B, %H, %S, 128] strides [%s0, %s1, 128, 1] : !tile.ptr<f32>
  // expected-error @+1 {{stage 'dq' is not one of the atomic mode's}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) scratch(%l2, %dl, %acc : !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>) atomic stage(dq)
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

func.func @outside_kernel(%v: !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, %r: !tile.view<?x?x?xf32, strides = [?, ?, 1]>) {
  // expected-error @+1 {{expected to be directly inside a tile.kernel}}
  tile.attention_backward %v, %v, %v, %v, %v, %r grads(%v, %v, %v) scratch(%r, %r)
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  return
}

// -----

tile.kernel @expanded_dk_per_query_head(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %P[%B, 8, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %P[%B, 2, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %g = tile.make_view %P[%B, 8, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, 8, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected dK to have K's heads and seq (the gradient of K or V; expanded(...) holds the per-query-head ones)}}
  tile.attention_backward %q, %k, %k, %q, %q, %r grads(%q, %g, %g) scratch(%r, %r) expanded(%q, %q : !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>)
      : !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x2x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x2x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?xf32, strides = [?, ?, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?xf32, strides = [?, ?, 1]>, !tile.view<?x8x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @dk_of_kv_heads_without_expanded(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %P[%B, 8, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %P[%B, 2, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %g = tile.make_view %P[%B, 2, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, 8, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{expected dK to have Q's heads (one gradient per query head) and K's seq (with expanded(...), dK and dV get K's heads)}}
  tile.attention_backward %q, %k, %k, %q, %q, %r grads(%q, %g, %g) scratch(%r, %r)
      : !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x2x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x2x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?xf32, strides = [?, ?, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x2x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x2x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?xf32, strides = [?, ?, 1]>, !tile.view<?x8x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @sum_stage_without_expanded(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %S: i32, %s0: i32, %s1: i32) {
  %q = tile.make_view %P[%B, 8, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %P[%B, 2, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %g = tile.make_view %P[%B, 8, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, 8, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+1 {{stage 'dkdv_sum' needs expanded(...) views}}
  tile.attention_backward %q, %k, %k, %q, %q, %r grads(%q, %g, %g) scratch(%r, %r) stage(dkdv_sum)
      : !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x2x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x2x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?xf32, strides = [?, ?, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x8x?xf32, strides = [?, ?, 1]>, !tile.view<?x8x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @config_not_power_of_two(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %t = tile.make_view %P[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+2 {{dq_n = 96 must be a power of two}}
  tile.attention_backward %t, %t, %t, %t, %t, %r grads(%t, %t, %t) scratch(%r, %r)
      config <dq_n = 96>
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @config_small_warps(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %t = tile.make_view %P[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+2 {{dkv_warps = 2 must be at least 4}}
  tile.attention_backward %t, %t, %t, %t, %t, %r grads(%t, %t, %t) scratch(%r, %r)
      config <dkv_warps = 2>
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @config_registers(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %H: i32, %S: i32, %s0: i32, %s1: i32) {
  %t = tile.make_view %P[%B, %H, %S, 64] strides [%s0, %s1, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, %H, %S] strides [%s0, %S, 1] : !tile.ptr<f32>
  // expected-error @+2 {{consumer_regs must be a multiple of 8 in [24, 256], got 250}}
  tile.attention_backward %t, %t, %t, %t, %t, %r grads(%t, %t, %t) scratch(%r, %r)
      config <consumer_regs = 250>
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
