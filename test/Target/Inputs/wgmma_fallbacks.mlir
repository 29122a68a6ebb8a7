// Dots of sm_90a block programs whose operands no ring brings to shared
// memory (loads not known to be aligned, a computed B): the threads stage
// them for wgmma; and cases at the edge (tiles two dots read, loads outside
// a loop); see test/Dialect/Tile/Transforms/assign-layouts-sm90a.mlir.

tile.kernel @staged_unaligned(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
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

tile.kernel @staged_register_b(%a: !tile.ptr<bf16> {tile.align = 16 : i64}, %b: !tile.ptr<bf16> {tile.align = 16 : i64}, %c: !tile.ptr<f32>, %n: i32 {tile.divisibility = 64 : i64}) warps(4) {
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
