// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt %s --mlir-print-op-generic | tilec-opt | FileCheck %s

// Round trip of every tile op. The two block programs at the end are the
// shapes the dialect is designed for: a tiled GEMM main loop and a
// FlashAttention-2 forward with online softmax and a causal mask.

// #tile.mma prints mFirst only when set (@layouts).
// CHECK-DAG: #mma = #tile.mma<warpsPerCTA = [2, 2]>
// CHECK-DAG: #mma1 = #tile.mma<warpsPerCTA = [4, 1], mFirst = true>
// CHECK-DAG: #tile.mma<warpsPerCTA = [4, 1], warpRows = 16>

// CHECK-LABEL: tile.kernel @kernel_signature
// CHECK-SAME: (%a: !tile.ptr<bf16>, %n: i32, %ld: i64, %alpha: f32)
// CHECK-SAME: grid(ceildiv(%n, 128), %n - 1, 2) warps(8)
tile.kernel @kernel_signature(%a: !tile.ptr<bf16>, %n: i32, %ld: i64, %alpha: f32)
    grid(ceildiv(%n, 128), %n - 1, 2) warps(8) {
  tile.return
}

// CHECK-LABEL: tile.kernel @grid_expressions
// CHECK-SAME: grid(floordiv(%m, 64) * 2, mod(%n, 3) + 1)
// CHECK-SAME: warps(4)
tile.kernel @grid_expressions(%m: i32, %n: i32)
    grid(floordiv(%m, 64) * 2, mod(%n, 3) + 1) {
  tile.return
}

// CHECK-LABEL: tile.kernel @program_ids
tile.kernel @program_ids() {
  // CHECK: tile.program_id x
  // CHECK: tile.program_id y
  // CHECK: tile.num_programs z
  %0 = tile.program_id x
  %1 = tile.program_id y
  %2 = tile.num_programs z
  tile.return
}

// CHECK-LABEL: tile.kernel @views_and_access
tile.kernel @views_and_access(%p: !tile.ptr<f16>, %m: i32, %n: i32, %ld: i32, %pf: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  // CHECK: tile.make_view %p[%m, 64] strides [%ld, 1] : !tile.ptr<f16>
  %v = tile.make_view %p[%m, 64] strides [%ld, 1] : !tile.ptr<f16>
  // CHECK: tile.make_view %p[4, %m, %n] strides [%ld, 1, %m] : !tile.ptr<f16>
  %v3 = tile.make_view %p[4, %m, %n] strides [%ld, 1, %m] : !tile.ptr<f16>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.view<?x64xf16, strides = [?, 1]> -> tensor<16x64xf16>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x64xf16, strides = [?, 1]> -> tensor<16x64xf16>
  %mask = arith.constant dense<true> : tensor<16x64xi1>
  // CHECK: tile.load {{.*}} mask(%{{.*}} : tensor<16x64xi1>) padding(neg_inf)
  %t2 = tile.load %v[%c0, %c0] mask(%mask : tensor<16x64xi1>) padding(neg_inf) : !tile.view<?x64xf16, strides = [?, 1]> -> tensor<16x64xf16>
  // A rank-2 tile of a rank-3 view covers its last two dimensions.
  // CHECK: tile.load {{.*}} : !tile.view<4x?x?xf16, strides = [?, 1, ?]> -> tensor<32x16xf16>
  %t3 = tile.load %v3[%c0, %c0, %c0] : !tile.view<4x?x?xf16, strides = [?, 1, ?]> -> tensor<32x16xf16>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask(%{{.*}} : tensor<16x64xi1>) : tensor<16x64xf16>, !tile.view<?x64xf16, strides = [?, 1]>
  tile.store %t2, %v[%c0, %c0] mask(%mask : tensor<16x64xi1>) : tensor<16x64xf16>, !tile.view<?x64xf16, strides = [?, 1]>
  %vf = tile.make_view %pf[%m, 64] strides [%ld, 1] : !tile.ptr<f32>
  %tf = arith.constant dense<1.0> : tensor<16x64xf32>
  // CHECK: tile.atomic_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask(%{{.*}} : tensor<16x64xi1>) : tensor<16x64xf32>, !tile.view<?x64xf32, strides = [?, 1]>
  tile.atomic_add %tf, %vf[%c0, %c0] mask(%mask : tensor<16x64xi1>) : tensor<16x64xf32>, !tile.view<?x64xf32, strides = [?, 1]>
  // CHECK: %{{.*}} = tile.load_scalar %{{.*}}[%{{.*}}, %{{.*}}] : !tile.view<?x64xf16, strides = [?, 1]> -> f16
  %e = tile.load_scalar %v[%c0, %m] : !tile.view<?x64xf16, strides = [?, 1]> -> f16
  tile.return
}

// CHECK-LABEL: tile.kernel @tile_construction
tile.kernel @tile_construction(%s: f32) {
  // CHECK: tile.range 0 to 128 : tensor<128xi32>
  %r = tile.range 0 to 128 : tensor<128xi32>
  // CHECK: tile.splat %s : tensor<64x128xf32>
  %b = tile.splat %s : tensor<64x128xf32>
  // CHECK: tile.expand_dims %{{.*}} axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  %e = tile.expand_dims %r axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  // CHECK: tile.broadcast %{{.*}} : tensor<1x128xi32> -> tensor<64x128xi32>
  %bb = tile.broadcast %e : tensor<1x128xi32> -> tensor<64x128xi32>
  // CHECK: tile.trans %{{.*}} : tensor<64x128xf32> -> tensor<128x64xf32>
  %t = tile.trans %b : tensor<64x128xf32> -> tensor<128x64xf32>
  // CHECK: tile.extract_slice %{{.*}} offsets [32, 64] : tensor<64x128xf32> -> tensor<32x64xf32>
  %sl = tile.extract_slice %b offsets [32, 64] : tensor<64x128xf32> -> tensor<32x64xf32>
  // CHECK: tile.reduce max %{{.*}} axis = 1 : tensor<64x128xf32> -> tensor<64xf32>
  %m = tile.reduce max %b axis = 1 : tensor<64x128xf32> -> tensor<64xf32>
  // CHECK: tile.reduce sum
  %s0 = tile.reduce sum %b axis = 0 : tensor<64x128xf32> -> tensor<128xf32>
  // CHECK: tile.reduce min
  %s1 = tile.reduce min %bb axis = 0 : tensor<64x128xi32> -> tensor<128xi32>
  tile.return
}

// CHECK-LABEL: tile.kernel @dots
tile.kernel @dots() {
  %a = arith.constant dense<1.0> : tensor<128x32xbf16>
  %b = arith.constant dense<1.0> : tensor<32x64xbf16>
  %c = arith.constant dense<0.0> : tensor<128x64xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x32xbf16>, tensor<32x64xbf16> -> tensor<128x64xf32>
  %d = tile.dot %a, %b, %c : tensor<128x32xbf16>, tensor<32x64xbf16> -> tensor<128x64xf32>
  %a8 = arith.constant dense<1.0> : tensor<64x64xf8E4M3FN>
  %b8 = arith.constant dense<1.0> : tensor<64x64xf8E5M2>
  %c8 = arith.constant dense<0.0> : tensor<64x64xf32>
  // CHECK: tile.dot {{.*}} : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E5M2> -> tensor<64x64xf32>
  %d8 = tile.dot %a8, %b8, %c8 : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E5M2> -> tensor<64x64xf32>
  // The default precision (ieee) is not printed; the others are.
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision(tf32) : tensor<64x64xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision(tf32x3) : tensor<64x64xf32>
  %e0 = tile.dot %c8, %c8, %c8 precision(ieee) : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %e1 = tile.dot %c8, %c8, %c8 precision(tf32) : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %e2 = tile.dot %c8, %c8, %c8 precision(tf32x3) : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  tile.return
}

// CHECK-LABEL: tile.kernel @layouts
tile.kernel @layouts() {
  // CHECK: tile.convert_layout %{{.*}} : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  %x = arith.constant dense<0.0> : tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
  %y = tile.convert_layout %x : tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [2, 2]>>
  %z = tile.convert_layout %y : tensor<64x64xf32, #tile.mma<warpsPerCTA = [2, 2]>> -> tensor<64x64xf32, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>, kWidth = 2>>
  %w = tile.reduce max %x axis = 1 : tensor<64x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> tensor<64xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>>
  // CHECK: tile.convert_layout %{{.*}} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma1>
  %m = tile.convert_layout %y : tensor<64x64xf32, #tile.mma<warpsPerCTA = [2, 2]>> -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], mFirst = true>>
  %mr = tile.convert_layout %m : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], mFirst = true>> -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], warpRows = 16>>
  tile.return
}

// CHECK-LABEL: tile.kernel @named_gemm
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} alpha(%alpha) beta(%beta) bias(%{{.*}}) activation(gelu) config <block_m = 128, stages = 4>
tile.kernel @named_gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                        %bias: !tile.ptr<bf16>, %alpha: f32, %beta: f32,
                        %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [1, %ldb] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %bv = tile.make_view %bias[%N] strides [1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c alpha(%alpha) beta(%beta) bias(%bv) activation(gelu)
      config <block_m = 128, stages = 4>
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?xbf16, strides = [1]>
  tile.return
}

// CHECK-LABEL: tile.kernel @named_gemm_grouped
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} group_offsets(%{{.*}} : !tile.view<?xi32, strides = [1]>) activation(silu) :
tile.kernel @named_gemm_grouped(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                                %offs: !tile.ptr<i32>, %E: i32, %M: i32, %N: i32, %K: i32, %sb: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%E, %K, %N] strides [%sb, 1, %K] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offs[%E] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>) activation(silu)
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?x?xbf16, strides = [?, 1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// CHECK-LABEL: tile.kernel @named_gemm_split_k
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} workspace(%{{.*}} : !tile.view<4x?x?xf32, strides = [?, ?, 1]>) alpha(%alpha) stage(reduce) config <split_k = 4> :
tile.kernel @named_gemm_split_k(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                                %W: !tile.ptr<f32>, %alpha: f32, %M: i32, %N: i32, %K: i32,
                                %ldw: i32, %sw: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [1, %K] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[4, %M, %N] strides [%sw, %ldw, 1] : !tile.ptr<f32>
  tile.gemm %a, %b, %c workspace(%w : !tile.view<4x?x?xf32, strides = [?, ?, 1]>) alpha(%alpha)
      stage(reduce) config <split_k = 4>
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [1, ?]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// CHECK-LABEL: tile.kernel @named_attention
// CHECK: tile.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lse(%{{.*}}) scale(0.0883883461) causal
tile.kernel @named_attention(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                             %O: !tile.ptr<bf16>, %L: !tile.ptr<f32>,
                             %B: i32, %H: i32, %HK: i32, %S: i32, %SK: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%H, %S, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%HK, %SK, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%HK, %SK, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%H, %S, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %L[%B, %H, %S] strides [%H, %S, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) scale(0.0883883461) causal
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// score_mod and mask_mod regions (a logit softcap and a sliding window
// using kernel parameters) round-trip.
// CHECK-LABEL: tile.kernel @named_attention_score_mod
// CHECK: tile.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} causal score_mod {
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[T:.*]] = arith.divf %[[S]], %cap fastmath<afn> : f32
// CHECK-NEXT: %[[TH:.*]] = math.tanh %[[T]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[TH]], %cap : f32
// CHECK-NEXT: tile.yield %[[R]] : f32
// CHECK-NEXT: } mask_mod {
// CHECK-NEXT: ^bb0(%{{.*}}: i32, %{{.*}}: i32, %[[QI:.*]]: i32, %[[KJ:.*]]: i32):
// CHECK-NEXT: %[[D:.*]] = arith.subi %[[QI]], %[[KJ]] : i32
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[D]], %w : i32
// CHECK-NEXT: tile.yield %[[IN]] : i1
// CHECK-NEXT: } :
tile.kernel @named_attention_score_mod(%Q: !tile.ptr<bf16>, %B: i32, %H: i32, %S: i32, %cap: f32, %w: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 64] strides [%H, %S, 64, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %q, %q causal score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    %t = arith.divf %s, %cap fastmath<afn> : f32
    %th = math.tanh %t : f32
    %r = arith.mulf %th, %cap : f32
    tile.yield %r : f32
  } mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    %d = arith.subi %qi, %kj : i32
    %in = arith.cmpi slt, %d, %w : i32
    tile.yield %in : i1
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>,
      !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// FP8 with per-tensor descales (f32 values, printed without types) and
// with descale views [batch, kv_heads] (printed with their types).
// CHECK-LABEL: tile.kernel @named_attention_fp8
// CHECK: tile.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} descale(%dq, %dq, %dq) :
// CHECK: tile.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} descale(%{{.*}}, %{{.*}}, %{{.*}} : !tile.view<?x?xf32, strides = [?, ?]>, !tile.view<?x?xf32, strides = [?, ?]>, !tile.view<?x?xf32, strides = [0, 0]>) causal :
tile.kernel @named_attention_fp8(%Q: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>, %D: !tile.ptr<f32>,
                                 %B: i32, %H: i32, %S: i32, %dq: f32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%H, %S, 128, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %Q[%B, %H, %S, 128] strides [%H, %S, 1, 128] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%H, %S, 128, 1] : !tile.ptr<bf16>
  %d = tile.make_view %D[%B, %H] strides [%H, %S] : !tile.ptr<f32>
  %d1 = tile.make_view %D[%B, %H] strides [0, 0] : !tile.ptr<f32>
  tile.attention %q, %q, %v, %o descale(%dq, %dq, %dq)
      : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, 128]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.attention %q, %q, %v, %o descale(%d, %d, %d1 : !tile.view<?x?xf32, strides = [?, ?]>,
                                        !tile.view<?x?xf32, strides = [?, ?]>, !tile.view<?x?xf32, strides = [0, 0]>) causal
      : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, 128]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// The attention backward: the op as written (every stage) and one stage of
// the atomic mode, with its f32 dQ accumulator, per-query-head gradient
// views and a runtime scale.
// CHECK-LABEL: tile.kernel @named_attention_backward
// CHECK: tile.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} grads(%{{.*}}, %{{.*}}, %{{.*}}) scratch(%{{.*}}, %{{.*}}) causal :
// CHECK: tile.attention_backward {{.*}} scratch(%{{.*}}, %{{.*}}, %{{.*}} : !tile.view<?x?x?x64xf32, strides = [?, ?, 64, 1]>) expanded(%{{.*}}, %{{.*}} : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>) scale(%s) atomic stage(dkdv_dq) config <dkv_n = 64, dkv_warps = 4, consumer_regs = 240, dq_add_cols = 32, share_tiles = true> :
tile.kernel @named_attention_backward(%P: !tile.ptr<bf16>, %F: !tile.ptr<f32>, %B: i32, %H: i32,
                                      %S: i32, %s: f32) {
  %t = tile.make_view %P[%B, %H, %S, 64] strides [%H, %S, 64, 1] : !tile.ptr<bf16>
  %r = tile.make_view %F[%B, %H, %S] strides [%H, %S, 1] : !tile.ptr<f32>
  %a = tile.make_view %F[%B, %H, %S, 64] strides [%H, %S, 64, 1] : !tile.ptr<f32>
  tile.attention_backward %t, %t, %t, %t, %t, %r grads(%t, %t, %t) scratch(%r, %r) causal
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>,
        !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.attention_backward %t, %t, %t, %t, %t, %r grads(%t, %t, %t) scratch(%r, %r, %a : !tile.view<?x?x?x64xf32, strides = [?, ?, 64, 1]>)
      expanded(%t, %t : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>)
      scale(%s) atomic stage(dkdv_dq) config <dkv_n = 64, dkv_warps = 4, consumer_regs = 240, dq_add_cols = 32, share_tiles = true>
      : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>,
        !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x?x?xf32, strides = [?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// A tiled GEMM block program: C[BM x BN] = A[BM x K] * B[K x BN].
// CHECK-LABEL: tile.kernel @gemm_block_program
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<128x128xf32>)
// CHECK: tile.dot
tile.kernel @gemm_block_program(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>,
                                %M: i32, %N: i32, %K: i32)
    grid(ceildiv(%N, 128), ceildiv(%M, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pn = tile.program_id x
  %pm = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x32xbf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<32x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x32xbf16>, tensor<32x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// FlashAttention-2 forward for one (batch, head) and a block of 128 queries:
// online softmax with running max/sum, exp2 with log2(e) folded into the
// scale, accumulator rescaling, two dots per iteration, a causal mask from
// index comparisons.
// CHECK-LABEL: tile.kernel @flash_attention_block_program
// CHECK: scf.for {{.*}} -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>)
// CHECK: tile.dot
// CHECK: math.exp2
// CHECK: tile.dot
tile.kernel @flash_attention_block_program(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>,
                                           %V: !tile.ptr<bf16>, %O: !tile.ptr<bf16>,
                                           %S: i32, %qk_scale: f32)
    grid(ceildiv(%S, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c128 : i32
  %q = tile.make_view %Q[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %tq = tile.load %q[%m0, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<128x64xbf16>
  %rows = tile.range 0 to 128 : tensor<128xi32>
  %m0s = tile.splat %m0 : tensor<128xi32>
  %qi = arith.addi %rows, %m0s : tensor<128xi32>
  %qi2 = tile.expand_dims %qi axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %qib = tile.broadcast %qi2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %scale = tile.splat %qk_scale : tensor<128x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l_init = arith.constant dense<0.0> : tensor<128xf32>
  %end = arith.addi %m0, %c128 : i32
  %res:3 = scf.for %n = %c0 to %end step %c64
      iter_args(%acc = %acc0, %m_i = %m_init, %l_i = %l_init)
      -> (tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>) : i32 {
    %tk = tile.load %k[%n, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %tv = tile.load %v[%n, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %kt = tile.trans %tk : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %s = tile.dot %tq, %kt, %acc0 : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %ss = arith.mulf %s, %scale : tensor<128x64xf32>
    // causal: key n + j <= query m0 + i
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %keep = arith.cmpi sle, %kjb, %qib : tensor<128x64xi32>
    %sm = arith.select %keep, %ss, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %sm axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    %alpha = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha2 = math.exp2 %alpha : tensor<128xf32>
    %mn2 = tile.expand_dims %m_new axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %mnb = tile.broadcast %mn2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %sd = arith.subf %sm, %mnb : tensor<128x64xf32>
    %p = math.exp2 %sd : tensor<128x64xf32>
    %psum = tile.reduce sum %p axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_scaled = arith.mulf %l_i, %alpha2 : tensor<128xf32>
    %l_new = arith.addf %l_scaled, %psum : tensor<128xf32>
    %a2 = tile.expand_dims %alpha2 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %ab = tile.broadcast %a2 : tensor<128x1xf32> -> tensor<128x64xf32>
    %acc_scaled = arith.mulf %acc, %ab : tensor<128x64xf32>
    %pb = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %acc_new = tile.dot %pb, %tv, %acc_scaled : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    scf.yield %acc_new, %m_new, %l_new : tensor<128x64xf32>, tensor<128xf32>, tensor<128xf32>
  }
  %l2 = tile.expand_dims %res#2 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %l2 : tensor<128x1xf32> -> tensor<128x64xf32>
  %out = arith.divf %res#0, %lb : tensor<128x64xf32>
  %ob = arith.truncf %out : tensor<128x64xf32> to tensor<128x64xbf16>
  tile.store %ob, %o[%m0, %c0] : tensor<128x64xbf16>, !tile.view<?x64xbf16, strides = [64, 1]>
  tile.return
}
