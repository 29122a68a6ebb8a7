// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-convert-before-broadcast))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-convert-before-broadcast))' --remarks-filter=tile-convert-before-broadcast --remark-format=emitRemark -verify-diagnostics -o /dev/null

// ALiBi's distance j - i of a key block: the 128 x 64 difference of two
// broadcast index tiles, converted per element as written. The pass
// converts kj (64) and qi (128) before their broadcasts, behind a run-time
// test that both lie in [-2^24, 2^24] (exact in f32); the other branch
// converts as written, the integer difference moved into it.

// CHECK-LABEL: tile.kernel @alibi(
// CHECK:      scf.for %[[N:.+]] =
// CHECK:        %[[KJ:.+]] = arith.addi %{{.+}}, %{{.+}} : tensor<64xi32>
// CHECK:        arith.constant -16777216 : i64
// CHECK:        arith.constant 16777216 : i64
// CHECK:        %[[REL:.+]] = scf.if %{{.+}} -> (tensor<128x64xf32>) {
// CHECK-NEXT:     %[[KF:.+]] = arith.sitofp %[[KJ]] : tensor<64xi32> to tensor<64xf32>
// CHECK-NEXT:     %[[KF2:.+]] = tile.expand_dims %[[KF]] axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
// CHECK-NEXT:     %[[KFB:.+]] = tile.broadcast %[[KF2]] : tensor<1x64xf32> -> tensor<128x64xf32>
// CHECK-NEXT:     %[[QF:.+]] = arith.sitofp %{{.+}} : tensor<128xi32> to tensor<128xf32>
// CHECK-NEXT:     %[[QF2:.+]] = tile.expand_dims %[[QF]] axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
// CHECK-NEXT:     %[[QFB:.+]] = tile.broadcast %[[QF2]] : tensor<128x1xf32> -> tensor<128x64xf32>
// CHECK-NEXT:     %[[D:.+]] = arith.subf %[[KFB]], %[[QFB]] : tensor<128x64xf32>
// CHECK-NEXT:     scf.yield %[[D]]
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %[[I:.+]] = arith.subi %{{.+}}, %{{.+}} : tensor<128x64xi32>
// CHECK-NEXT:     %[[F:.+]] = arith.sitofp %[[I]] : tensor<128x64xi32> to tensor<128x64xf32>
// CHECK-NEXT:     scf.yield %[[F]]
// CHECK:        arith.mulf %[[REL]], %{{.+}} : tensor<128x64xf32>
tile.kernel @alibi(%S: i32, %slope: f32, %O: !tile.ptr<f32>) grid(ceildiv(%S, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %m0 = arith.muli %mb, %c128 : i32
  %o = tile.make_view %O[%S] strides [1] : !tile.ptr<f32>
  %rows = tile.range 0 to 128 : tensor<128xi32>
  %m0v = tile.splat %m0 : tensor<128xi32>
  %qi = arith.addi %rows, %m0v : tensor<128xi32>
  %qi2 = tile.expand_dims %qi axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %qib = tile.broadcast %qi2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %slope_b = tile.splat %slope : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %m = scf.for %n = %c0 to %S step %c64 iter_args(%m_i = %m_init) -> (tensor<128xf32>) : i32 {
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %rel = arith.subi %kjb, %qib : tensor<128x64xi32>
    // expected-remark @below {{the conversion of this 128x64 tile runs on the two tiles whose broadcasts it adds, where their values are exact in the float type (tested at run time), instead of on its 8192 elements}}
    %relf = arith.sitofp %rel : tensor<128x64xi32> to tensor<128x64xf32>
    %bias = arith.mulf %relf, %slope_b : tensor<128x64xf32>
    %rowmax = tile.reduce max %bias axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    scf.yield %mn : tensor<128xf32>
  }
  tile.store %m, %o[%m0] : tensor<128xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// Operands whose ranges are constants (two tile.ranges): exact or not is
// known at compile time, so no branch. A broadcast tile converted alone
// is always exact: the conversion moves before the broadcast.

// CHECK-LABEL: tile.kernel @known(
// CHECK-NOT:  scf.if
// CHECK:      arith.sitofp %{{.+}} : tensor<32xi32> to tensor<32xf16>
// CHECK:      arith.sitofp %{{.+}} : tensor<16xi32> to tensor<16xf16>
// CHECK:      arith.addf %{{.+}}, %{{.+}} : tensor<16x32xf16>
// CHECK:      %[[C:.+]] = arith.sitofp %{{.+}} : tensor<16xi32> to tensor<16xf32>
// CHECK-NEXT: %[[C2:.+]] = tile.expand_dims %[[C]] axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
// CHECK-NEXT: tile.broadcast %[[C2]] : tensor<16x1xf32> -> tensor<16x32xf32>
// CHECK-NOT:  tensor<16x32xi32> to
tile.kernel @known(%O: !tile.ptr<f16>, %P: !tile.ptr<f32>) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %o = tile.make_view %O[16, 32] strides [32, 1] : !tile.ptr<f16>
  %p = tile.make_view %P[16, 32] strides [32, 1] : !tile.ptr<f32>
  %r = tile.range 0 to 16 : tensor<16xi32>
  %c = tile.range 0 to 32 : tensor<32xi32>
  %r2 = tile.expand_dims %r axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rb = tile.broadcast %r2 : tensor<16x1xi32> -> tensor<16x32xi32>
  %c2 = tile.expand_dims %c axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cb = tile.broadcast %c2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %sum = arith.addi %cb, %rb : tensor<16x32xi32>
  // expected-remark @below {{the conversion of this 16x32 tile runs on the two tiles whose broadcasts it adds}}
  %f = arith.sitofp %sum : tensor<16x32xi32> to tensor<16x32xf16>
  tile.store %f, %o[%c0, %c0] : tensor<16x32xf16>, !tile.view<16x32xf16, strides = [32, 1]>
  // expected-remark @below {{the conversion of this 16x32 tile runs before its broadcast}}
  %g = arith.sitofp %rb : tensor<16x32xi32> to tensor<16x32xf32>
  tile.store %g, %p[%c0, %c0] : tensor<16x32xf32>, !tile.view<16x32xf32, strides = [32, 1]>
  tile.return
}

// -----

// In a loop, a conversion the pass cannot move gets a missed remark: an
// operand loaded from memory (unknown range), and indices up to 4095 that
// f16 (exact to 2^11) cannot hold.

// CHECK-LABEL: tile.kernel @kept(
// CHECK-NOT:  scf.if
// CHECK:      arith.sitofp %{{.+}} : tensor<64x64xi32> to tensor<64x64xf32>
// CHECK:      arith.sitofp %{{.+}} : tensor<64x64xi32> to tensor<64x64xf16>
tile.kernel @kept(%Pos: !tile.ptr<i32> {tile.align = 16 : i64}, %S: i32, %O: !tile.ptr<f32>, %P: !tile.ptr<f16>) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pos = tile.make_view %Pos[%S] strides [1] : !tile.ptr<i32>
  %o = tile.make_view %O[64, 64] strides [64, 1] : !tile.ptr<f32>
  %p = tile.make_view %P[64, 64] strides [64, 1] : !tile.ptr<f16>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %r2 = tile.expand_dims %r axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rb = tile.broadcast %r2 : tensor<64x1xi32> -> tensor<64x64xi32>
  %big = arith.constant dense<4032> : tensor<64xi32>
  %far = arith.addi %r, %big : tensor<64xi32>
  %far2 = tile.expand_dims %far axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %farb = tile.broadcast %far2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %zh = arith.constant dense<0.0> : tensor<64x64xf16>
  %res:2 = scf.for %n = %c0 to %S step %c64 iter_args(%a = %zero, %h = %zh) -> (tensor<64x64xf32>, tensor<64x64xf16>) : i32 {
    %t = tile.load %pos[%n] : !tile.view<?xi32, strides = [1]> -> tensor<64xi32>
    %t2 = tile.expand_dims %t axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %tb = tile.broadcast %t2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %d = arith.subi %tb, %rb : tensor<64x64xi32>
    // expected-remark @below {{this 64x64 int-to-float conversion in a loop runs per element, on the unit that also runs exp2: the range of its operands is unknown (one is computed by 'tile.load')}}
    %df = arith.sitofp %d : tensor<64x64xi32> to tensor<64x64xf32>
    %a1 = arith.addf %a, %df : tensor<64x64xf32>
    %e = arith.subi %farb, %rb : tensor<64x64xi32>
    // expected-remark @below {{this 64x64 int-to-float conversion in a loop runs per element, on the unit that also runs exp2: its operands' values can exceed what the float type holds exactly}}
    %ef = arith.sitofp %e : tensor<64x64xi32> to tensor<64x64xf16>
    %h1 = arith.addf %h, %ef : tensor<64x64xf16>
    scf.yield %a1, %h1 : tensor<64x64xf32>, tensor<64x64xf16>
  }
  tile.store %res#0, %o[%c0, %c0] : tensor<64x64xf32>, !tile.view<64x64xf32, strides = [64, 1]>
  tile.store %res#1, %p[%c0, %c0] : tensor<64x64xf16>, !tile.view<64x64xf16, strides = [64, 1]>
  tile.return
}

// -----

// i64 index tiles are left as written (their ranges need more than i64
// bounds); the pass once built an i64 -> i64 arith.extsi for such a scalar.

// CHECK-LABEL: tile.kernel @wide(
// CHECK-NOT:  arith.extsi
// CHECK:      arith.sitofp %{{.+}} : tensor<16x32xi64> to tensor<16x32xf32>
tile.kernel @wide(%S: i64, %T: i64, %O: !tile.ptr<f32>) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %o = tile.make_view %O[16, 32] strides [32, 1] : !tile.ptr<f32>
  %s = tile.splat %S : tensor<16x32xi64>
  %t = tile.splat %T : tensor<16x32xi64>
  %d = arith.subi %s, %t : tensor<16x32xi64>
  %f = arith.sitofp %d : tensor<16x32xi64> to tensor<16x32xf32>
  tile.store %f, %o[%c0, %c0] : tensor<16x32xf32>, !tile.view<16x32xf32, strides = [32, 1]>
  tile.return
}
