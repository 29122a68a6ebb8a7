// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{chip=sm_80}))' | FileCheck %s

// Coalesced loads: 16 bytes per thread along the contiguous dimension, lanes
// along it, warps over rows. The reduction result is the load layout sliced
// along the axis and expand_dims/broadcast return to it: no conversions.

// CHECK: #[[$B:.+]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK: #[[$S:.+]] = #tile.slice<dim = 1, parent = #[[$B]]>
// CHECK-LABEL: tile.kernel @row_max
// CHECK: tile.load {{.*}} -> tensor<4x1024xf32, #[[$B]]>
// CHECK: tile.reduce max {{.*}} -> tensor<4xf32, #[[$S]]>
// CHECK: tile.expand_dims {{.*}} -> tensor<4x1xf32, #[[$B]]>
// CHECK: tile.broadcast {{.*}} -> tensor<4x1024xf32, #[[$B]]>
// CHECK: arith.subf {{.*}} : tensor<4x1024xf32, #[[$B]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store
tile.kernel @row_max(%x: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %x[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<4x1024xf32>
  %m = tile.reduce max %t axis = 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %m1 = tile.expand_dims %m axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %d = arith.subf %t, %mb : tensor<4x1024xf32>
  tile.store %d, %v[%c0, %c0] : tensor<4x1024xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// 16-bit elements: 8 per thread. A column-major view (stride 1 along dim 0)
// orders dimension 0 first. Storing a tile into a view of the other
// contiguity needs a layout conversion.

// CHECK-DAG: #[[$ROW:.+]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[$COL:.+]] = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: tile.kernel @transpose_copy
// CHECK: %[[T:.+]] = tile.load {{.*}} -> tensor<64x64xbf16, #[[$ROW]]>
// CHECK: %[[C:.+]] = tile.convert_layout %[[T]] : tensor<64x64xbf16, #[[$ROW]]> -> tensor<64x64xbf16, #[[$COL]]>
// CHECK: tile.store %[[C]]
tile.kernel @transpose_copy(%x: !tile.ptr<bf16>, %y: !tile.ptr<bf16>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %vx = tile.make_view %x[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vy = tile.make_view %y[%n, %n] strides [1, %n] : !tile.ptr<bf16>
  %t = tile.load %vx[%c0, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
  tile.store %t, %vy[%c0, %c0] : tensor<64x64xbf16>, !tile.view<?x?xbf16, strides = [1, ?]>
  tile.return
}

// -----

// Index tiles take the slice layouts their users need.

// CHECK: #[[$B:.+]] = #tile.blocked<sizePerThread = [1, 4]
// CHECK-DAG: #[[$S0:.+]] = #tile.slice<dim = 0, parent = #[[$B]]>
// CHECK-DAG: #[[$S1:.+]] = #tile.slice<dim = 1, parent = #[[$B]]>
// CHECK-LABEL: tile.kernel @causal_mask
// CHECK-DAG: tile.range 0 to 32 : tensor<32xi32, #[[$S1]]>
// CHECK-DAG: tile.range 0 to 128 : tensor<128xi32, #[[$S0]]>
// CHECK: arith.cmpi sle, {{.*}} : tensor<32x128xi32, #[[$B]]>
// CHECK: arith.select {{.*}} : tensor<32x128xi1, #[[$B]]>, tensor<32x128xf32, #[[$B]]>
// CHECK-NOT: tile.convert_layout
tile.kernel @causal_mask(%x: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %x[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<32x128xf32>
  %rows = tile.range 0 to 32 : tensor<32xi32>
  %r1 = tile.expand_dims %rows axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %rb = tile.broadcast %r1 : tensor<32x1xi32> -> tensor<32x128xi32>
  %cols = tile.range 0 to 128 : tensor<128xi32>
  %c1 = tile.expand_dims %cols axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<32x128xi32>
  %keep = arith.cmpi sle, %cb, %rb : tensor<32x128xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<32x128xf32>
  %s = arith.select %keep, %t, %ninf : tensor<32x128xi1>, tensor<32x128xf32>
  tile.store %s, %v[%c0, %c0] : tensor<32x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// Tiles carried by loops keep one layout across iterations.

// CHECK: #[[$B:.+]] = #tile.blocked
// CHECK-LABEL: tile.kernel @loop_carried
// CHECK: %[[Z:.+]] = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #[[$B]]>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.+]] = %[[Z]]) -> (tensor<16x64xf32, #[[$B]]>)
// CHECK: arith.addf %[[ACC]], {{.*}} : tensor<16x64xf32, #[[$B]]>
// CHECK-NOT: tile.convert_layout
tile.kernel @loop_carried(%x: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %v = tile.make_view %x[%n, 64] strides [64, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum = scf.for %i = %c0 to %n step %c16 iter_args(%acc = %zero) -> (tensor<16x64xf32>) : i32 {
    %t = tile.load %v[%i, %c0] : !tile.view<?x64xf32, strides = [64, 1]> -> tensor<16x64xf32>
    %a = arith.addf %acc, %t : tensor<16x64xf32>
    scf.yield %a : tensor<16x64xf32>
  }
  tile.store %sum, %v[%c0, %c0] : tensor<16x64xf32>, !tile.view<?x64xf32, strides = [64, 1]>
  tile.return
}

// -----

// tile.dot anchors an mma.sync accumulator layout; its operands are
// converted to the matching operand layouts. A 128x128 tile over 8 warps uses
// a warp grid with the smallest warp-tile perimeter (32 + 64).

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 2]>
// CHECK-DAG: #[[$A:.+]] = #tile.dot_operand<opIdx = 0, parent = #[[$MMA]], kWidth = 2>
// CHECK-DAG: #[[$BOP:.+]] = #tile.dot_operand<opIdx = 1, parent = #[[$MMA]], kWidth = 2>
// CHECK-LABEL: tile.kernel @dot_layouts
// CHECK: tile.convert_layout {{.*}} -> tensor<128x32xbf16, #[[$A]]>
// CHECK: tile.convert_layout {{.*}} -> tensor<32x128xbf16, #[[$BOP]]>
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[$MMA]]>
tile.kernel @dot_layouts(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %c: !tile.ptr<f32>, %n: i32) warps(8) {
  %c0 = arith.constant 0 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %ta = tile.load %va[%c0, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x32xbf16>
  %tb = tile.load %vb[%c0, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<32x128xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %ta, %tb, %z : tensor<128x32xbf16>, tensor<32x128xbf16> -> tensor<128x128xf32>
  tile.store %d, %vc[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// f32 operands as TF32: one element a register (kWidth 1), and the dot keeps
// its precision.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 2]>
// CHECK-DAG: #[[$A:.+]] = #tile.dot_operand<opIdx = 0, parent = #[[$MMA]], kWidth = 1>
// CHECK-DAG: #[[$BOP:.+]] = #tile.dot_operand<opIdx = 1, parent = #[[$MMA]], kWidth = 1>
// CHECK-LABEL: tile.kernel @dot_layouts_tf32
// CHECK: tile.convert_layout {{.*}} -> tensor<128x32xf32, #[[$A]]>
// CHECK: tile.convert_layout {{.*}} -> tensor<32x128xf32, #[[$BOP]]>
// CHECK: tile.dot {{.*}} precision(tf32) : {{.*}} -> tensor<128x128xf32, #[[$MMA]]>
tile.kernel @dot_layouts_tf32(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: !tile.ptr<f32>, %n: i32) warps(8) {
  %c0 = arith.constant 0 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %vb = tile.make_view %b[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %ta = tile.load %va[%c0, %c0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<128x32xf32>
  %tb = tile.load %vb[%c0, %c0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<32x128xf32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %ta, %tb, %z precision(tf32) : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
  tile.store %d, %vc[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// Chained dots (attention): warps split rows only, so the first product can
// feed the second dot's A operand from registers.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-LABEL: tile.kernel @chained_dots
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$MMA]]>
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$MMA]]>
tile.kernel @chained_dots(%q: !tile.ptr<bf16>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %q[%n, 64] strides [64, 1] : !tile.ptr<bf16>
  %tq = tile.load %v[%c0, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.dot %tq, %tq, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
  %o = tile.dot %p, %tq, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  %ob = arith.truncf %o : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %ob, %v[%c0, %c0] : tensor<64x64xbf16>, !tile.view<?x64xbf16, strides = [64, 1]>
  tile.return
}

// -----

// The chain is seen through a branch (attention's mask of edge blocks):
// both dots still split rows only, with no conversion between them.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-LABEL: tile.kernel @chained_dots_through_branch
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$MMA]]>
// CHECK: scf.if
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$MMA]]>
tile.kernel @chained_dots_through_branch(%q: !tile.ptr<bf16>, %n: i32, %k: i32) {
  %c0 = arith.constant 0 : i32
  %edge = arith.cmpi sge, %k, %n : i32
  %v = tile.make_view %q[%n, 64] strides [64, 1] : !tile.ptr<bf16>
  %tq = tile.load %v[%c0, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %s = tile.dot %tq, %tq, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  %sm = scf.if %edge -> (tensor<64x64xf32>) {
    %m = arith.maximumf %s, %ninf : tensor<64x64xf32>
    scf.yield %m : tensor<64x64xf32>
  } else {
    scf.yield %s : tensor<64x64xf32>
  }
  %p = arith.truncf %sm : tensor<64x64xf32> to tensor<64x64xbf16>
  %o = tile.dot %p, %tq, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  %ob = arith.truncf %o : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %ob, %v[%c0, %c0] : tensor<64x64xbf16>, !tile.view<?x64xbf16, strides = [64, 1]>
  tile.return
}

// -----

// Chained dots whose 64 rows are fewer than 16 for each of 8 warps (the
// attention backward's dK/dV at head dim 256): the warps split N too, and
// the first result reaches the second dot's A operand through a
// conversion (shared memory), instead of the kernel failing.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [4, 2]>
// CHECK-LABEL: tile.kernel @chained_dots_too_few_rows
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$MMA]]>
// CHECK: tile.convert_layout
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[$MMA]]>
tile.kernel @chained_dots_too_few_rows(%q: !tile.ptr<bf16>, %n: i32) warps(8) {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %q[%n, 64] strides [64, 1] : !tile.ptr<bf16>
  %tq = tile.load %v[%c0, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.dot %tq, %tq, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
  %o = tile.dot %p, %tq, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  %ob = arith.truncf %o : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %ob, %v[%c0, %c0] : tensor<64x64xbf16>, !tile.view<?x64xbf16, strides = [64, 1]>
  tile.return
}

// -----

// A dot fed through tile.trans (an attention backward's dQ = (dSᵀ)ᵀ K) is
// not chained: its A operand goes through shared memory anyway, so its
// warps may split columns too (a 32x128 accumulator over 8 warps); the
// first dot feeds no dot directly and takes its own split. tile.atomic_add
// adds the accumulator fragment as it is: no conversion before it.

// CHECK-DAG: #[[$MMA1:.+]] = #tile.mma<warpsPerCTA = [8, 1]>
// CHECK-DAG: #[[$MMA2:.+]] = #tile.mma<warpsPerCTA = [2, 4]>
// CHECK-LABEL: tile.kernel @transposed_chain_atomic_add
// CHECK: tile.dot {{.*}} -> tensor<128x32xf32, #[[$MMA1]]>
// CHECK: tile.trans
// CHECK: tile.dot {{.*}} -> tensor<32x128xf32, #[[$MMA2]]>
// CHECK-NEXT: tile.atomic_add %{{.*}} : tensor<32x128xf32, #[[$MMA2]]>
tile.kernel @transposed_chain_atomic_add(%k: !tile.ptr<bf16>, %q: !tile.ptr<bf16>,
                                         %dq: !tile.ptr<f32>, %n: i32) warps(8) {
  %c0 = arith.constant 0 : i32
  %vk = tile.make_view %k[%n, 128] strides [128, 1] : !tile.ptr<bf16>
  %vq = tile.make_view %q[%n, 128] strides [128, 1] : !tile.ptr<bf16>
  %vdq = tile.make_view %dq[%n, 128] strides [128, 1] : !tile.ptr<f32>
  %tk = tile.load %vk[%c0, %c0] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16>
  %tq = tile.load %vq[%c0, %c0] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<32x128xbf16>
  %qt = tile.trans %tq : tensor<32x128xbf16> -> tensor<128x32xbf16>
  %z = arith.constant dense<0.0> : tensor<128x32xf32>
  %st = tile.dot %tk, %qt, %z : tensor<128x128xbf16>, tensor<128x32xbf16> -> tensor<128x32xf32>
  %stb = arith.truncf %st : tensor<128x32xf32> to tensor<128x32xbf16>
  %s = tile.trans %stb : tensor<128x32xbf16> -> tensor<32x128xbf16>
  %tk2 = tile.load %vk[%c0, %c0] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16>
  %z2 = arith.constant dense<0.0> : tensor<32x128xf32>
  %p = tile.dot %s, %tk2, %z2 : tensor<32x128xbf16>, tensor<128x128xbf16> -> tensor<32x128xf32>
  tile.atomic_add %p, %vdq[%c0, %c0] : tensor<32x128xf32>, !tile.view<?x128xf32, strides = [128, 1]>
  tile.return
}

// -----

// Per-step scales of a K loop (a block-scaled GEMM): 1-D loads that only
// multiply the accumulator, carried a step ahead through iter_args, take a
// slice of the accumulator's layout (before the loop, in the loop and as
// iter_args): each thread loads its own rows' scales, no conversion. A 1-D
// load that is stored keeps its coalesced layout.

// CHECK-DAG: #[[$MMA:.+]] = #tile.mma<warpsPerCTA = [2, 2]>
// CHECK-DAG: #[[$ROW:.+]] = #tile.slice<dim = 1, parent = #[[$MMA]]>
// CHECK-LABEL: tile.kernel @loop_scales
// CHECK: %[[S0:.+]] = tile.load {{.*}} -> tensor<64xf32, #[[$ROW]]>
// CHECK: scf.for {{.*}} iter_args({{.*}}, %{{.+}} = %[[S0]]) -> (tensor<64x64xf32, #[[$MMA]]>, tensor<64xf32, #[[$ROW]]>)
// CHECK: tile.load {{.*}} -> tensor<64xf32, #[[$ROW]]>
// CHECK-NOT: tile.convert_layout {{.*}}tensor<64xf32
// CHECK: math.fma {{.*}} : tensor<64x64xf32, #[[$MMA]]>
// CHECK: %[[KEEP:.+]] = tile.load {{.*}} -> tensor<64xf32, #blocked{{[0-9]*}}>
// CHECK: tile.store %[[KEEP]]
tile.kernel @loop_scales(%a: !tile.ptr<bf16>, %s: !tile.ptr<f32>, %c: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  %vs = tile.make_view %s[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %vc = tile.make_view %c[%n, %n] strides [%n, 1] : !tile.ptr<f32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %s0 = tile.load %vs[%c0, %c0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<64xf32>
  %r:2 = scf.for %k = %c0 to %n step %c32 iter_args(%acc = %z, %sk = %s0) -> (tensor<64x64xf32>, tensor<64xf32>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x32xbf16>
    %tb = tile.load %va[%k, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<32x64xbf16>
    %k1 = arith.addi %k, %c1 : i32
    %snext = tile.load %vs[%k1, %c0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<64xf32>
    %d = tile.dot %ta, %tb, %z : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    %s1 = tile.expand_dims %sk axis = 1 : tensor<64xf32> -> tensor<64x1xf32>
    %s2 = tile.broadcast %s1 : tensor<64x1xf32> -> tensor<64x64xf32>
    %sum = math.fma %d, %s2, %acc : tensor<64x64xf32>
    scf.yield %sum, %snext : tensor<64x64xf32>, tensor<64xf32>
  }
  tile.store %r#0, %vc[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  %keep = tile.load %vs[%c1, %c0] : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<64xf32>
  tile.store %keep, %vs[%c0, %c0] : tensor<64xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// f32 operands in ieee precision (exact products) run on FMA instructions:
// the accumulator is blocked, each thread owning a 4 x 8 sub-tile (lanes
// along N, warps along M); A takes the accumulator's rows and B its columns,
// with all of K in each thread's registers (the other threads hold copies).

// CHECK-DAG: #[[$ACC:.+]] = #tile.blocked<sizePerThread = [4, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[$FA:.+]] = #tile.blocked<sizePerThread = [4, 16], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[$FB:.+]] = #tile.blocked<sizePerThread = [16, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: tile.kernel @fma_dot
// CHECK: tile.dot {{.*}} : tensor<64x16xf32, #[[$FA]]>, tensor<16x64xf32, #[[$FB]]> -> tensor<64x64xf32, #[[$ACC]]>
tile.kernel @fma_dot(%A: !tile.ptr<f32> {tile.align = 16 : i64}, %B: !tile.ptr<f32> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}) warps(4) {
  %c0 = arith.constant 0 : i32
  %a = tile.make_view %A[64, 16] strides [16, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[16, 64] strides [64, 1] : !tile.ptr<f32>
  %c = tile.make_view %C[64, 64] strides [64, 1] : !tile.ptr<f32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<64x16xf32, strides = [16, 1]> -> tensor<64x16xf32>
  %tb = tile.load %b[%c0, %c0] : !tile.view<16x64xf32, strides = [64, 1]> -> tensor<16x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %ta, %tb, %z : tensor<64x16xf32>, tensor<16x64xf32> -> tensor<64x64xf32>
  tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<64x64xf32, strides = [64, 1]>
  tile.return
}

// -----

// A kernel without products (residual add + RMSNorm): the weight row, loaded
// 1-D and only broadcast against the 4 x 2048 tile (through its extension),
// is loaded in the tile's column slice, each thread the columns it needs:
// no conversion through shared memory.

// CHECK-DAG: #[[$B:.+]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
// CHECK-DAG: #[[$COLS:.+]] = #tile.slice<dim = 0, parent = #[[$B]]>
// CHECK-LABEL: tile.kernel @norm_weight
// CHECK:     tile.load %{{.+}} -> tensor<2048xbf16, #[[$COLS]]>
// CHECK-NOT: tile.convert_layout
tile.kernel @norm_weight(%X: !tile.ptr<bf16>, %W: !tile.ptr<bf16>, %Y: !tile.ptr<bf16>, %M: i32, %N: i32) warps(8) {
  %c0 = arith.constant 0 : i32
  %pid = tile.program_id x
  %x = tile.make_view %X[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[%N] strides [1] : !tile.ptr<bf16>
  %tx = tile.load %x[%pid, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<4x2048xbf16>
  %xf = arith.extf %tx : tensor<4x2048xbf16> to tensor<4x2048xf32>
  %tw = tile.load %w[%c0] : !tile.view<?xbf16, strides = [1]> -> tensor<2048xbf16>
  %wf = arith.extf %tw : tensor<2048xbf16> to tensor<2048xf32>
  %w1 = tile.expand_dims %wf axis = 0 : tensor<2048xf32> -> tensor<1x2048xf32>
  %wb = tile.broadcast %w1 : tensor<1x2048xf32> -> tensor<4x2048xf32>
  %yf = arith.mulf %xf, %wb : tensor<4x2048xf32>
  %yb = arith.truncf %yf : tensor<4x2048xf32> to tensor<4x2048xbf16>
  tile.store %yb, %y[%pid, %c0] : tensor<4x2048xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// Loads of one shape and contiguous dimension that meet in elementwise ops
// share the layout of the narrowest: the f32 tables take the bf16 rows'
// 8 elements a thread (two 16-byte vectors each), and nothing is converted
// where they meet (rope).

// CHECK: #[[$ROWS:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: tile.kernel @mixed_widths
// CHECK:       tile.load {{.*}} -> tensor<64x64xbf16, #[[$ROWS]]>
// CHECK:       tile.load {{.*}} -> tensor<64x64xf32, #[[$ROWS]]>
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.return
tile.kernel @mixed_widths(%X: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %Y: !tile.ptr<bf16> {tile.align = 16 : i64}, %S: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %x = tile.make_view %X[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%S, 64] strides [64, 1] : !tile.ptr<f32>
  %y = tile.make_view %Y[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %tx = tile.load %x[%c0, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
  %tc = tile.load %c[%c0, %c0] : !tile.view<?x64xf32, strides = [64, 1]> -> tensor<64x64xf32>
  %fx = arith.extf %tx : tensor<64x64xbf16> to tensor<64x64xf32>
  %p = arith.mulf %fx, %tc : tensor<64x64xf32>
  %h = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %h, %y[%c0, %c0] : tensor<64x64xbf16>, !tile.view<?x64xbf16, strides = [64, 1]>
  tile.return
}

// -----

// Loads that are contiguous along different dimensions keep their own
// coalesced layouts: one of them is converted.

// CHECK-LABEL: tile.kernel @mixed_contiguity
// CHECK:       tile.load {{.*}} -> tensor<64x64xbf16, #[[A:.+]]>
// CHECK:       tile.load {{.*}} -> tensor<64x64xf32, #[[B:.+]]>
// CHECK:       tile.convert_layout
tile.kernel @mixed_contiguity(%X: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %Y: !tile.ptr<bf16> {tile.align = 16 : i64}, %S: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %x = tile.make_view %X[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%S, 64] strides [1, %S] : !tile.ptr<f32>
  %y = tile.make_view %Y[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %tx = tile.load %x[%c0, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
  %tc = tile.load %c[%c0, %c0] : !tile.view<?x64xf32, strides = [1, ?]> -> tensor<64x64xf32>
  %fx = arith.extf %tx : tensor<64x64xbf16> to tensor<64x64xf32>
  %p = arith.mulf %fx, %tc : tensor<64x64xf32>
  %h = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %h, %y[%c0, %c0] : tensor<64x64xbf16>, !tile.view<?x64xbf16, strides = [64, 1]>
  tile.return
}
