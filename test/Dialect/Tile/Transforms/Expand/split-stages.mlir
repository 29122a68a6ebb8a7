// RUN: tilec-opt %s -split-input-file -verify-diagnostics --tile-split-stages | FileCheck %s

// A kernel holding tile.attention_backward becomes one kernel per stage, in
// launch order, each with the kernel's parameters and the op's stage set.
// examples/attention_backward_op_bf16.mlir runs both modes through tilec.

// CHECK-LABEL: tile.kernel @attention_bwd_op_bf16_d128_pre(
// CHECK:         tile.attention_backward {{.*}} causal stage(pre)
// CHECK-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dq(
// CHECK:         tile.attention_backward {{.*}} causal stage(dq)
// CHECK-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dkdv(
// CHECK:         tile.attention_backward {{.*}} causal stage(dkdv)
// With expanded(...) views, dK and dV are summed over each group last.
// CHECK-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dkdv_sum(
// CHECK:         tile.attention_backward {{.*}} expanded({{.*}}) scale(%scale) causal stage(dkdv_sum)
// CHECK-LABEL: tile.kernel @attention_bwd_op_bf16_d128_atomic_pre_zero_dq(
// CHECK:         tile.attention_backward {{.*}} causal atomic stage(pre_zero_dq)
// CHECK-LABEL: tile.kernel @attention_bwd_op_bf16_d128_atomic_dkdv_dq(
// CHECK:         tile.attention_backward {{.*}} causal atomic stage(dkdv_dq)
// CHECK-LABEL: tile.kernel @attention_bwd_op_bf16_d128_atomic_dq_scale(
// CHECK:         tile.attention_backward {{.*}} causal atomic stage(dq_scale)
// CHECK-NOT:   tile.kernel @attention_bwd_op_bf16_d128(

tile.kernel @attention_bwd_op_bf16_d128(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %dO: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
    %dQ: !tile.ptr<bf16>, %dK: !tile.ptr<bf16>, %dV: !tile.ptr<bf16>,
    %L2: !tile.ptr<f32>, %DELTA: !tile.ptr<f32>,
    %dKH: !tile.ptr<bf16>, %dVH: !tile.ptr<bf16>,
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
    %lse_batch: i32, %lse_head: i32, %dkv_batch: i32, %dkv_head: i32,
    %rows_batch: i32, %scale: f32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %lse_head, 1] : !tile.ptr<f32>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %dkh = tile.make_view %dKH[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dvh = tile.make_view %dVH[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv)
      scratch(%l2, %dl) expanded(%dkh, %dvh : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>)
      scale(%scale) causal
    : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

tile.kernel @attention_bwd_op_bf16_d128_atomic(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %dO: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
    %dQ: !tile.ptr<bf16>, %dK: !tile.ptr<bf16>, %dV: !tile.ptr<bf16>,
    %L2: !tile.ptr<f32>, %DELTA: !tile.ptr<f32>,
    %DQA: !tile.ptr<f32> {tile.align = 16 : i64},
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
    %lse_batch: i32, %lse_head: i32, %dkv_batch: i32, %dkv_head: i32,
    %rows_batch: i32, %scale: f32,
    %dqa_batch: i32, %dqa_head: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %lse_head, 1] : !tile.ptr<f32>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dqa = tile.make_view %DQA[%B, %H, %SQ, 128] strides [%dqa_batch, %dqa_head, 128, 1] : !tile.ptr<f32>
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv)
      scratch(%l2, %dl, %dqa : !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>) scale(%scale) causal atomic
    : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

// A kernel whose op names its stage is left alone.
// CHECK-LABEL: tile.kernel @bwd_stage(
// CHECK:         stage(dq)
tile.kernel @bwd_stage(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %dO: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
    %dQ: !tile.ptr<bf16>, %dK: !tile.ptr<bf16>, %dV: !tile.ptr<bf16>,
    %L2: !tile.ptr<f32>, %DELTA: !tile.ptr<f32>,
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
    %lse_batch: i32, %lse_head: i32, %dkv_batch: i32, %dkv_head: i32,
    %rows_batch: i32, %scale: f32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %lse_head, 1] : !tile.ptr<f32>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv)
      scratch(%l2, %dl) scale(%scale) causal stage(dq)
    : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

tile.kernel @bwd(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %dO: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
    %dQ: !tile.ptr<bf16>, %dK: !tile.ptr<bf16>, %dV: !tile.ptr<bf16>,
    %L2: !tile.ptr<f32>, %DELTA: !tile.ptr<f32>,
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
    %lse_batch: i32, %lse_head: i32, %dkv_batch: i32, %dkv_head: i32,
    %rows_batch: i32, %scale: f32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %lse_head, 1] : !tile.ptr<f32>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  // expected-error @+1 {{cannot split its kernel into @bwd_pre, @bwd_dq, @bwd_dkdv: @bwd_dq is taken}}
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv)
      scratch(%l2, %dl) scale(%scale) causal
    : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

tile.kernel @bwd_dq() {
  tile.return
}

// -----

tile.kernel @bwd(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
    %O: !tile.ptr<bf16>, %dO: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
    %dQ: !tile.ptr<bf16>, %dK: !tile.ptr<bf16>, %dV: !tile.ptr<bf16>,
    %L2: !tile.ptr<f32>, %DELTA: !tile.ptr<f32>,
    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
    %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
    %lse_batch: i32, %lse_head: i32, %dkv_batch: i32, %dkv_head: i32,
    %rows_batch: i32, %scale: f32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %do = tile.make_view %dO[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %lse_head, 1] : !tile.ptr<f32>
  %dq = tile.make_view %dQ[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %dk = tile.make_view %dK[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %dv = tile.make_view %dV[%B, %H, %SK, 128] strides [%dkv_batch, %dkv_head, 128, 1] : !tile.ptr<bf16>
  %l2 = tile.make_view %L2[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  %dl = tile.make_view %DELTA[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv)
      scratch(%l2, %dl) scale(%scale) causal
    : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

func.func @host(%a: memref<?xf32>) {
  // expected-error @+1 {{launches @bwd, whose tile.attention_backward is several kernels; launch its stages @bwd_pre, @bwd_dq, @bwd_dkdv in that order instead}}
  tile.launch @bwd() outs(%a : memref<?xf32>) args []
  return
}

// -----

// A split-K tile.gemm is two kernels: the partial products, then their sum.
// CHECK-LABEL: tile.kernel @gemm_split_partial(
// CHECK:         tile.gemm {{.*}} workspace({{.*}}) stage(partial) config <split_k = 3>
// CHECK-LABEL: tile.kernel @gemm_split_reduce(
// CHECK:         tile.gemm {{.*}} workspace({{.*}}) stage(reduce) config <split_k = 3>
// CHECK-NOT:   tile.kernel @gemm_split(
tile.kernel @gemm_split(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
    %W: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32, %ldw: i32, %sw: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[3, %M, %N] strides [%sw, %ldw, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c workspace(%w : !tile.view<3x?x?xf32, strides = [?, ?, 1]>)
      config <split_k = 3>
    : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
      !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// A GEMM without split-K is one kernel, left alone.
// CHECK-LABEL: tile.kernel @gemm_one(
// CHECK-NOT:     stage(
tile.kernel @gemm_one(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
    %M: i32, %N: i32, %K: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c config <split_k = 1>
    : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
      !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @gemm_split(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
    %W: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32, %ldw: i32, %sw: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[2, %M, %N] strides [%sw, %ldw, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c workspace(%w : !tile.view<2x?x?xf32, strides = [?, ?, 1]>)
      config <split_k = 2>
    : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
      !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

func.func @host(%a: memref<?xf32>) {
  // expected-error @+1 {{launches @gemm_split, whose tile.gemm is several kernels; launch its stages @gemm_split_partial, @gemm_split_reduce in that order instead}}
  tile.launch @gemm_split() outs(%a : memref<?xf32>) args []
  return
}
