// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{chip=sm_90a}))' | FileCheck %s

// On sm_90a a dot with 64 rows per warpgroup runs on wgmma when its shared
// operands can get to shared memory: tiles already there, or loads that
// tile-pipeline can turn into cp.async ring stages (in a loop, 16-byte
// aligned). Both operands loaded
// go to 128-byte swizzled shared memory (SS); an A operand computed in
// registers stays there, in the mma.sync A fragment of each warp's 16 rows
// (RS), and only B goes to shared memory. Operands no ring can bring (a
// computed B, loads not known to be aligned) are staged: converted to the
// swizzled layout at the dot, which tile-pipeline turns into a store to a
// buffer. mma.sync only where wgmma's shapes do not fit.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-DAG: #[[$SW:.+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// CHECK-LABEL: tile.kernel @wgmma_ss
// CHECK: tile.dot {{.*}} : tensor<64x64xbf16, #[[$SW]]>, tensor<64x128xbf16, #[[$SW]]> -> tensor<64x128xf32, #[[$MMA]]>
tile.kernel @wgmma_ss(%a: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: !tile.ptr<bf16> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %two = arith.constant dense<2.0> : tensor<64x64xbf16>
  %twob = arith.constant dense<2.0> : tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-DAG: #[[$SW:.+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// CHECK-DAG: #[[$AOP:.+]] = #tile.dot_operand<opIdx = 0, parent = #[[$MMA]], kWidth = 2>
// CHECK-LABEL: tile.kernel @wgmma_rs
// CHECK: tile.dot {{.*}} : tensor<64x64xbf16, #[[$AOP]]>, tensor<64x128xbf16, #[[$SW]]> -> tensor<64x128xf32, #[[$MMA]]>
tile.kernel @wgmma_rs(%a: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: !tile.ptr<bf16> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %two = arith.constant dense<2.0> : tensor<64x64xbf16>
  %twob = arith.constant dense<2.0> : tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %A = arith.mulf %ta, %two : tensor<64x64xbf16>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %A, %tb, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// B computed in registers reaches wgmma through a conversion into the
// swizzled layout at the dot (wgmma reads B from shared memory); the
// multiply stays on the loaded tile's distributed layout.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-DAG: #[[$SW:.+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// CHECK-LABEL: tile.kernel @wgmma_staged_register_b
// CHECK: %[[B:.+]] = arith.mulf {{.*}} : tensor<64x128xbf16, #[[BL:blocked[0-9]*]]>
// CHECK: %[[BS:.+]] = tile.convert_layout %[[B]] : tensor<64x128xbf16, #[[BL]]> -> tensor<64x128xbf16, #[[$SW]]>
// CHECK: tile.dot {{.*}}, %[[BS]], {{.*}} : tensor<64x64xbf16, #[[$SW]]>, tensor<64x128xbf16, #[[$SW]]> -> tensor<64x128xf32, #[[$MMA]]>
tile.kernel @wgmma_staged_register_b(%a: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: !tile.ptr<bf16> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %two = arith.constant dense<2.0> : tensor<64x64xbf16>
  %twob = arith.constant dense<2.0> : tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %B = arith.mulf %tb, %twob : tensor<64x128xbf16>
    %d = tile.dot %ta, %B, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// Loads outside a loop whose views TMA can serve reach shared memory with
// one TMA copy each (tile-tma-pipeline): wgmma reads both in place.

// CHECK-DAG: #[[$MMA4:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-LABEL: tile.kernel @mma_sync_no_loop
// CHECK: tile.dot {{.*}} : tensor<64x64xbf16, #{{.+}}>, tensor<64x128xbf16, #{{.+}}> -> tensor<64x128xf32, #[[$MMA4]]>
tile.kernel @mma_sync_no_loop(%a: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: !tile.ptr<bf16> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %two = arith.constant dense<2.0> : tensor<64x64xbf16>
  %twob = arith.constant dense<2.0> : tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %ta = tile.load %va[%c0, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
  %tb = tile.load %vb[%c0, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
  %d = tile.dot %ta, %tb, %z : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
  %r = arith.addf %d, %z : tensor<64x128xf32>
  tile.store %r, %vc[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// The same loop over views not known to be 16-byte aligned: no ring, so
// both loaded tiles are staged (SS, each converted at the dot), as Triton
// stages them, rather than the dot falling back to mma.sync.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-DAG: #[[$SW:.+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// CHECK-LABEL: tile.kernel @wgmma_staged_unaligned
// CHECK-COUNT-2: tile.convert_layout {{.*}} -> tensor<{{.*}}xbf16, #[[$SW]]>
// CHECK: tile.dot {{.*}} : tensor<64x64xbf16, #[[$SW]]>, tensor<64x128xbf16, #[[$SW]]> -> tensor<64x128xf32, #[[$MMA]]>
tile.kernel @wgmma_staged_unaligned(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %two = arith.constant dense<2.0> : tensor<64x64xbf16>
  %twob = arith.constant dense<2.0> : tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
// -----

// Tiles that feed two dots as the same operand are read in place by both:
// wgmma (tile-tma-pipeline makes each tile one TMA copy both read).

// CHECK-LABEL: tile.kernel @wgmma_shared_loads
// CHECK-COUNT-2: tile.dot {{.*}} : tensor<64x64xbf16, #shared{{[0-9]*}}>, tensor<64x128xbf16, #shared{{[0-9]*}}> -> tensor<64x128xf32, #mma{{[0-9]*}}>
tile.kernel @wgmma_shared_loads(%a: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: !tile.ptr<bf16> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %two = arith.constant dense<2.0> : tensor<64x64xbf16>
  %twob = arith.constant dense<2.0> : tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d0 = tile.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    %d = tile.dot %ta, %tb, %d0 : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// fp8 (e4m3 x e5m2): both operands K-major (B is K x N with K contiguous:
// W stored N x K, as tile.trans of its tile canonicalizes to),
// 128-byte swizzled rows of 128 elements (16-byte chunks of 16).
// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-DAG: #[[$SWA:.+]] = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 128>
// CHECK-DAG: #[[$SWB:.+]] = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 128>
// CHECK-LABEL: tile.kernel @wgmma_ss_fp8
// CHECK: tile.dot {{.*}} : tensor<64x128xf8E4M3FN, #[[$SWA]]>, tensor<128x128xf8E5M2, #[[$SWB]]> -> tensor<64x128xf32, #[[$MMA]]>
tile.kernel @wgmma_ss_fp8(%a: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %b: !tile.ptr<f8E5M2> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 128 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<f8E4M3FN>
  %vb = tile.make_view %b[%n, %n] strides [1, %n] : !tile.ptr<f8E5M2>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %n step %c128 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<64x128xf8E4M3FN>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xf8E5M2, strides = [1, ?]> -> tensor<128x128xf8E5M2>
    %d = tile.dot %ta, %tb, %acc : tensor<64x128xf8E4M3FN>, tensor<128x128xf8E5M2> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// An fp8 K tile of 64 is one 64-byte row: both K-major operands take the
// 64-byte swizzle (16-byte chunks, two rows a phase, four phases), still
// on wgmma (fp8 attention's Q Kᵀ at head dim 64).

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-DAG: #[[$S64A:.+]] = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], segment = 64>
// CHECK-DAG: #[[$S64B:.+]] = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], segment = 64>
// CHECK-LABEL: tile.kernel @wgmma_ss_fp8_k64
// CHECK: tile.dot {{.*}} : tensor<64x64xf8E4M3FN, #[[$S64A]]>, tensor<64x128xf8E4M3FN, #[[$S64B]]> -> tensor<64x128xf32, #[[$MMA]]>
tile.kernel @wgmma_ss_fp8_k64(%a: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %b: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 128 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<f8E4M3FN>
  %vb = tile.make_view %b[%n, %n] strides [1, %n] : !tile.ptr<f8E4M3FN>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<64x64xf8E4M3FN>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xf8E4M3FN, strides = [1, ?]> -> tensor<64x128xf8E4M3FN>
    %d = tile.dot %ta, %tb, %acc : tensor<64x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// An 8-bit register operand computed from a dot (P of an FP8 attention:
// S = Q Kᵀ, P = exp2(S) in e4m3, O = P V): P keeps the accumulator layout
// through exp2 and the truncation, and is converted to the wgmma A operand
// layout as an e4m3 tile, right at the dot (a quarter of the bytes of the
// f32 values).

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-DAG: #[[$AOP:.+]] = #tile.dot_operand<opIdx = 0, parent = #[[$MMA]], kWidth = 4>
// CHECK-LABEL: tile.kernel @wgmma_rs_fp8_from_dot
// CHECK: math.exp2 {{.*}} : tensor<64x128xf32, #[[$MMA]]>
// CHECK: %[[P:.+]] = arith.truncf {{.*}} to tensor<64x128xf8E4M3FN, #[[$MMA]]>
// CHECK: %[[PA:.+]] = tile.convert_layout %[[P]] : tensor<64x128xf8E4M3FN, #[[$MMA]]> -> tensor<64x128xf8E4M3FN, #[[$AOP]]>
// CHECK: tile.dot %[[PA]]
// CHECK-NOT: tile.convert_layout {{.*}}f32
tile.kernel @wgmma_rs_fp8_from_dot(%q: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %vt: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %o: !tile.ptr<f32>, %n: i32 {tile.divisibility = 128 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %vq = tile.make_view %q[%n, %n] strides [%n, 1] : !tile.ptr<f8E4M3FN>
  %vv = tile.make_view %vt[%n, %n] strides [%n, 1] : !tile.ptr<f8E4M3FN>
  %vo = tile.make_view %o[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %tq = tile.load %vq[%c0, %c0] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<64x128xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %n step %c128 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %tk = tile.load %vq[%k, %c0] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %kt = tile.trans %tk : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %s = tile.dot %tq, %kt, %z : tensor<64x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<64x128xf32>
    %e = math.exp2 %s : tensor<64x128xf32>
    %p = arith.truncf %e : tensor<64x128xf32> to tensor<64x128xf8E4M3FN>
    %tvt = tile.load %vv[%c0, %k] : !tile.view<?x?xf8E4M3FN, strides = [?, 1]> -> tensor<128x128xf8E4M3FN>
    %tv = tile.trans %tvt : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %d = tile.dot %p, %tv, %acc : tensor<64x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %vo[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// A dot of 64 rows on two warpgroups: the warpgroups split N (64 columns
// each of the N-major B, whole 64-element swizzle segments), warps numbered
// along M first as wgmma's are.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 2], mFirst = true>
// CHECK-DAG: #[[$SW:.+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// CHECK-LABEL: tile.kernel @wgmma_warpgroups_split_n
// CHECK: tile.dot {{.*}} : tensor<64x64xbf16, #[[$SW]]>, tensor<64x128xbf16, #[[$SW]]> -> tensor<64x128xf32, #[[$MMA]]>
tile.kernel @wgmma_warpgroups_split_n(%a: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: !tile.ptr<bf16> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// An A tile contiguous along M (Bᵀ of a transposed product with a
// row-major B) reaches wgmma from shared memory too, M-major (wgmma's
// transposed A): 64-element swizzle segments along M.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-DAG: #[[$SWM:.+]] = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>
// CHECK-LABEL: tile.kernel @wgmma_m_major_a
// CHECK: tile.dot {{.*}} : tensor<64x64xbf16, #[[$SWM]]>, tensor<64x16xbf16, #[[$SWM]]> -> tensor<64x16xf32, #[[$MMA]]>
tile.kernel @wgmma_m_major_a(%a: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: !tile.ptr<bf16> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [1, %n] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, 16] strides [1, %n] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, 16] strides [16, 1] : !tile.ptr<f32>
  %z = arith.constant dense<0.0> : tensor<64x16xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<64x16xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [1, ?]> -> tensor<64x64xbf16>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x16xbf16, strides = [1, ?]> -> tensor<64x16xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x16xbf16> -> tensor<64x16xf32>
    scf.yield %d : tensor<64x16xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<64x16xf32>, !tile.view<?x16xf32, strides = [16, 1]>
  tile.return
}

// -----

// 128 rows on 4 warps (Triton's tutorial tiles): more rows than the
// warpgroup's 64, so the warps' 16-row slices repeat down M (warpRows = 16:
// one m64 wgmma per repetition) instead of falling back to mma.sync.

// CHECK-DAG: #[[$MMAR:.+]] = #tile.mma<warpsPerCTA = [4, 1], warpRows = 16>
// CHECK-LABEL: tile.kernel @wgmma_rows_repeated
// CHECK: tile.dot {{.*}} : tensor<128x64xbf16, #shared{{[0-9]*}}>, tensor<64x128xbf16, #shared{{[0-9]*}}> -> tensor<128x128xf32, #[[$MMAR]]>
tile.kernel @wgmma_rows_repeated(%a: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: !tile.ptr<bf16> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %vb[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %r, %vc[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
