// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile-attach-target{chip=sm_90a},gpu.module(tile.kernel(canonicalize,tile-assign-layouts,loop-invariant-code-motion,tile-tma-pipeline)))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile-attach-target{chip=sm_90a},gpu.module(tile.kernel(canonicalize,tile-assign-layouts,loop-invariant-code-motion,tile-tma-pipeline)))' --remarks-filter=tile-tma-pipeline --remark-format=emitRemark -verify-diagnostics -o /dev/null

// schedule<share_tiles = true>: loads of one tile that two wgmma dots read
// in place share one TMA copy. In the loop, Q is read K-major by the first
// dot (Qᵀ, a transposed view after canonicalization) and N-major by the
// second: one ring, one copy per stage, two in-place reads of the stage
// (the second as the transpose), and the stage released after the second
// dot has retired. Before the loop, K is A of the first dot and B of the
// third: one copy, both read it after the same barrier.

// CHECK-LABEL: tile.kernel @share_tiles
// CHECK: %[[KBUF:.+]] = tile.local_alloc : !tile.smem<1x64x64xbf16, #[[$K:.+]]>
// CHECK: tile.tma_load %{{.+}}, %[[KBUF]][%{{.+}}], %[[KBAR:.+]][%{{.+}}]
// CHECK-NOT: tile.tma_load
// CHECK: tile.mbarrier_wait %[[KBAR]]
// CHECK-NEXT: %[[K1:.+]] = tile.local_load %[[KBUF]]
// CHECK: tile.mbarrier_wait %[[KBAR]]
// CHECK-NEXT: %[[K2:.+]] = tile.local_load %[[KBUF]]
// CHECK: %[[RING:.+]] = tile.local_alloc : !tile.smem<8x64x64xbf16, #[[$QT:.+]]>
// CHECK: %[[FULL:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<8>
// CHECK: %[[EMPTY:.+]] = tile.mbarrier_alloc count 4 : !tile.mbarrier<8>
// CHECK: scf.for
// CHECK: tile.mbarrier_wait %[[FULL]][%[[S:.+]]], %{{.+}}
// CHECK-NEXT: %[[QT:.+]] = tile.local_load %[[RING]][%[[S]]] : !tile.smem<8x64x64xbf16, #[[$QT]]> -> tensor<64x64xbf16, #[[$QT]]>
// CHECK-NEXT: %[[D1:.+]] = tile.dot %[[K1]], %[[QT]]
// CHECK-NEXT: tile.warpgroup_wait 0, %[[D1]]
// CHECK-NOT: tile.mbarrier_arrive
// CHECK: %[[Q:.+]] = tile.local_load %[[RING]][%[[S]]] : !tile.smem<8x64x64xbf16, #[[$QT]]> -> tensor<64x64xbf16, #[[$K]]>
// CHECK-NEXT: %[[D2:.+]] = tile.dot %{{.+}}, %[[Q]]
// CHECK-NEXT: %[[W2:.+]] = tile.warpgroup_wait 0, %[[D2]]
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%[[S]]]
// CHECK-NEXT: tile.dot %{{.+}}, %[[K2]], %[[W2]]
// CHECK: tile.tma_load %{{.+}}, %[[RING]]
// CHECK-NOT: tile.tma_load
// CHECK: scf.yield

tile.kernel @share_tiles(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<f32> {tile.align = 16 : i64}, %n: i32 {tile.divisibility = 64 : i64}) grid(1) warps(4) schedule<share_tiles = true, warp_specialize = false, async_wgmma = false> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %q = tile.make_view %Q[%n, 64] strides [64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[64, 64] strides [64, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[64, 64] strides [64, 1] : !tile.ptr<f32>
  // expected-remark @below {{one TMA copy into a buffer the dot reads in place}}
  %tk = tile.load %k[%c0, %c0] : !tile.view<64x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
  // expected-remark @below {{the dot reads an earlier TMA copy of the same tile in place (share_tiles)}}
  %tk2 = tile.load %k[%c0, %c0] : !tile.view<64x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{1 loads on TMA in a 8-stage ring, 1 more read(s) of the same tiles sharing their copies}}
  %r = scf.for %m = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %tq = tile.load %q[%m, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %qt = tile.trans %tq : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %s = tile.dot %tk, %qt, %zero : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %sb = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
    %tq2 = tile.load %q[%m, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %a1 = tile.dot %sb, %tq2, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %a2 = tile.dot %sb, %tk2, %a1 : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %a2 : tensor<64x64xf32>
  }
  tile.store %r, %o[%c0, %c0] : tensor<64x64xf32>, !tile.view<64x64xf32, strides = [64, 1]>
  tile.return
}

// -----

// Without it, each load takes a copy of its own: two rings, two copies of K.

// CHECK-LABEL: tile.kernel @separate_copies
// CHECK-COUNT-2: tile.tma_load %{{.+}} : !tile.tensor_map<64x64xbf16
// CHECK: scf.for
// CHECK-COUNT-2: tile.tma_load
// CHECK: scf.yield

tile.kernel @separate_copies(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<f32> {tile.align = 16 : i64}, %n: i32 {tile.divisibility = 64 : i64}) grid(1) warps(4) schedule<warp_specialize = false, async_wgmma = false> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %q = tile.make_view %Q[%n, 64] strides [64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[64, 64] strides [64, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[64, 64] strides [64, 1] : !tile.ptr<f32>
  // expected-remark @below {{one TMA copy into a buffer the dot reads in place}}
  %tk = tile.load %k[%c0, %c0] : !tile.view<64x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
  // expected-remark @below {{one TMA copy into a buffer the dot reads in place}}
  %tk2 = tile.load %k[%c0, %c0] : !tile.view<64x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{2 loads on TMA in a 8-stage ring}}
  %r = scf.for %m = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %tq = tile.load %q[%m, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %qt = tile.trans %tq : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %s = tile.dot %tk, %qt, %zero : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %sb = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
    %tq2 = tile.load %q[%m, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %a1 = tile.dot %sb, %tq2, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %a2 = tile.dot %sb, %tk2, %a1 : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %a2 : tensor<64x64xf32>
  }
  tile.store %r, %o[%c0, %c0] : tensor<64x64xf32>, !tile.view<64x64xf32, strides = [64, 1]>
  tile.return
}
