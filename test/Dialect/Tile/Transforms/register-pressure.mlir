// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{chip=sm_80}))' -verify-diagnostics -o /dev/null

// Register need before ptxas: tile-assign-layouts estimates what each loop
// keeps live a thread (carried tiles, unyielded dot results, 32 in reserve)
// and warns past the thread's budget (255 here), refusing past twice it.

// A 128x256 accumulator on 4 warps: 256 registers a thread, 288 with the
// reserve: ptxas spills.
tile.kernel @spills(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %a = tile.make_view %A[128, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, 256] strides [256, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[128, 256] strides [256, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  // expected-warning @below {{this loop keeps an estimated 288 registers a thread live, more than the 255 a thread of this 128-thread kernel gets: ptxas will spill (the largest tile it carries, 'tensor<128x256xf32, #tile.mma<warpsPerCTA = [2, 2]>>', takes 256)}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<128x?xbf16, strides = [?, 1]> -> tensor<128x32xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x256xbf16, strides = [256, 1]> -> tensor<32x256xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x32xbf16>, tensor<32x256xbf16> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<128x256xf32>, !tile.view<128x256xf32, strides = [256, 1]>
  tile.return
}

// -----

// A 256x256 accumulator on 4 warps (issue 16: 84 KB of spills and no
// warning): 512 registers a thread, more than twice the budget: refused.
tile.kernel @refused(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %a = tile.make_view %A[256, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, 256] strides [256, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[256, 256] strides [256, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<256x256xf32>
  // expected-error @below {{this loop keeps an estimated 544 registers a thread live, more than the 255 a thread of this 128-thread kernel gets: refused (more than twice the budget; use more warps or smaller tiles)}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<256x256xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<256x?xbf16, strides = [?, 1]> -> tensor<256x32xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x256xbf16, strides = [256, 1]> -> tensor<32x256xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<256x32xbf16>, tensor<32x256xbf16> -> tensor<256x256xf32>
    scf.yield %d : tensor<256x256xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<256x256xf32>, !tile.view<256x256xf32, strides = [256, 1]>
  tile.return
}

// -----

// A 128x128 accumulator on 4 warps fits (128 registers a thread, 160 with
// the reserve).
tile.kernel @fits(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %a = tile.make_view %A[128, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, 128] strides [128, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[128, 128] strides [128, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<128x?xbf16, strides = [?, 1]> -> tensor<128x32xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<32x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x32xbf16>, tensor<32x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<128x128xf32>, !tile.view<128x128xf32, strides = [128, 1]>
  tile.return
}

// -----

// One tile alone past twice the budget, in no loop (`make fuzz`: math ops
// on 65536-element f32 tiles, 4 warps, took minutes to compile): refused.
tile.kernel @huge_tile(%X: !tile.ptr<f32> {tile.align = 16 : i64}, %Y: !tile.ptr<f32> {tile.align = 16 : i64}, %n: i32) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %vx = tile.make_view %X[%n] strides [1] : !tile.ptr<f32>
  %vy = tile.make_view %Y[%n] strides [1] : !tile.ptr<f32>
  // expected-error @below {{takes 512 registers a thread of this 128-thread kernel, more than twice the 255 a thread gets: refused (use more warps or smaller tiles)}}
  %tx = tile.load %vx[%c0] : !tile.view<?xf32, strides = [1]> -> tensor<65536xf32>
  %e = math.exp %tx : tensor<65536xf32>
  tile.store %e, %vy[%c0] : tensor<65536xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
