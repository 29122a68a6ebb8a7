// RUN: tilec-opt %s -split-input-file --canonicalize | FileCheck %s

// nn.Linear's B = Wᵀ: the transpose of a tile loaded from an N x K weight
// becomes a load of the transposed view (K x N, contiguous along K), so the
// pipeliners see a K-major operand load.
// CHECK-LABEL: tile.kernel @trans_of_load
// CHECK: %[[WT:.+]] = tile.make_view %W[%K, %N] strides [1, %ldw] : !tile.ptr<bf16>
// CHECK: tile.load %[[WT]][%k, %n0] : !tile.view<?x?xbf16, strides = [1, ?]> -> tensor<64x256xbf16>
// CHECK-NOT: tile.trans
tile.kernel @trans_of_load(%W: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %N: i32,
                           %K: i32, %ldw: i32, %k: i32, %n0: i32) {
  %w = tile.make_view %W[%N, %K] strides [%ldw, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[64, 256] strides [256, 1] : !tile.ptr<bf16>
  %tw = tile.load %w[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<256x64xbf16>
  %tb = tile.trans %tw : tensor<256x64xbf16> -> tensor<64x256xbf16>
  %c0 = arith.constant 0 : i32
  tile.store %tb, %c[%c0, %c0] : tensor<64x256xbf16>, !tile.view<64x256xbf16, strides = [256, 1]>
  tile.return
}

// -----

// Attention's Kᵀ of a 4-D [batch, heads, seq, dim] view: the last two
// dimensions swap, static and dynamic entries alike, and a mask is
// transposed with the tile.
// CHECK-LABEL: tile.kernel @trans_of_masked_load_4d
// CHECK: %[[KT:.+]] = tile.make_view %K[%B, %H, 64, %S] strides [%sb, %sh, 1, 64] : !tile.ptr<bf16>
// CHECK: %[[M:.+]] = arith.cmpi
// CHECK: %[[MT:.+]] = tile.trans %[[M]] : tensor<32x64xi1> -> tensor<64x32xi1>
// CHECK: tile.load %[[KT]][%b, %h, %{{.+}}, %n] mask(%[[MT]] : tensor<64x32xi1>) padding(neg_inf)
// CHECK-NOT: tile.trans
tile.kernel @trans_of_masked_load_4d(%K: !tile.ptr<bf16>, %O: !tile.ptr<bf16>,
                                     %B: i32, %H: i32, %S: i32, %sb: i32,
                                     %sh: i32, %b: i32, %h: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %k = tile.make_view %K[%B, %H, %S, 64] strides [%sb, %sh, 64, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[64, 32] strides [32, 1] : !tile.ptr<bf16>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %c2 = tile.expand_dims %cols axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %lim = tile.splat %n : tensor<32x64xi32>
  %m = arith.cmpi slt, %cb, %lim : tensor<32x64xi32>
  %tk = tile.load %k[%b, %h, %n, %c0] mask(%m : tensor<32x64xi1>) padding(neg_inf) : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> tensor<32x64xbf16>
  %kt = tile.trans %tk : tensor<32x64xbf16> -> tensor<64x32xbf16>
  tile.store %kt, %o[%c0, %c0] : tensor<64x32xbf16>, !tile.view<64x32xbf16, strides = [32, 1]>
  tile.return
}

// -----

// A load with another user keeps its transpose.
// CHECK-LABEL: tile.kernel @trans_of_shared_load
// CHECK: %[[T:.+]] = tile.load
// CHECK: tile.trans %[[T]]
tile.kernel @trans_of_shared_load(%X: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %x = tile.make_view %X[64, 64] strides [64, 1] : !tile.ptr<f32>
  %t = tile.load %x[%c0, %c0] : !tile.view<64x64xf32, strides = [64, 1]> -> tensor<64x64xf32>
  %tt = tile.trans %t : tensor<64x64xf32> -> tensor<64x64xf32>
  %s = arith.addf %t, %tt : tensor<64x64xf32>
  tile.store %s, %x[%c0, %c0] : tensor<64x64xf32>, !tile.view<64x64xf32, strides = [64, 1]>
  tile.return
}
