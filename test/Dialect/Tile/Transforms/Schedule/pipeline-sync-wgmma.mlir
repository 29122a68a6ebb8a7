// A loop whose wgmma operands no ring brings (three 32 KB tiles a step: two
// stages do not fit beside the two tiles loaded once) stages each operand
// through a buffer and runs its wgmma synchronously: tile-pipeline waits for
// each one right after it, before the accumulator is read. Without that
// wait, tile-verify-async rejected the kernel (regression: the dQ kernel of
// attention's backward at 128 x 128 tiles).
// RUN: tilec %s --chip=sm_90a --emit=ptx -o %t --remarks=tile-pipeline 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=PTX < %t/sync_wgmma.ptx
// RUN: tilec-opt %s --pass-pipeline='builtin.module(tile-attach-target{chip=sm_90a},gpu.module(tile.kernel(canonicalize,tile-assign-layouts,loop-invariant-code-motion,tile-tma-pipeline,tile-pipeline)))' | FileCheck %s

// REMARK: NotPipelined
// REMARK-SAME: loads stay synchronous
// REMARK: Staged
// PTX: .entry sync_wgmma
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: wgmma.wait_group.sync.aligned 0

// CHECK-LABEL: tile.kernel @sync_wgmma
// CHECK: scf.for
// CHECK: %[[S:.+]] = tile.dot
// CHECK-NEXT: %[[SW:.+]] = tile.warpgroup_wait 0, %[[S]]
// CHECK: %[[DP:.+]] = tile.dot
// CHECK-NEXT: %[[DPW:.+]] = tile.warpgroup_wait 0, %[[DP]]
// CHECK: arith.mulf %[[SW]], %[[DPW]]
// CHECK: %[[ACC:.+]] = tile.dot
// CHECK-NEXT: %[[ACCW:.+]] = tile.warpgroup_wait 0, %[[ACC]]
// CHECK: scf.yield %[[ACCW]]
tile.kernel @sync_wgmma(%Q: !tile.ptr<bf16> {tile.align = 16 : i64},
    %K: !tile.ptr<bf16> {tile.align = 16 : i64},
    %O: !tile.ptr<bf16> {tile.align = 16 : i64},
    %S: i32) grid(1) warps(8) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %q = tile.make_view %Q[256, 128] strides [128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%S, 128] strides [128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[128, 128] strides [128, 1] : !tile.ptr<bf16>
  %tq = tile.load %q[%c0, %c0] : !tile.view<256x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16>
  %tr = tile.load %q[%c128, %c0] : !tile.view<256x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %res = scf.for %n = %c0 to %S step %c128 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
    %tk = tile.load %k[%n, %c0] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16>
    %kt = tile.trans %tk : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %s = tile.dot %tq, %kt, %z : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
    %tv = tile.load %k[%n, %c0] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16>
    %vt = tile.trans %tv : tensor<128x128xbf16> -> tensor<128x128xbf16>
    %dp = tile.dot %tr, %vt, %z : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
    %ds = arith.mulf %s, %dp : tensor<128x128xf32>
    %dsb = arith.truncf %ds : tensor<128x128xf32> to tensor<128x128xbf16>
    %tk2 = tile.load %k[%n, %c0] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16>
    %acc2 = tile.dot %dsb, %tk2, %acc : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
    scf.yield %acc2 : tensor<128x128xf32>
  }
  %ob = arith.truncf %res : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %ob, %o[%c0, %c0] : tensor<128x128xbf16>, !tile.view<128x128xbf16, strides = [128, 1]>
  tile.return
}
