// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-fast-math))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-fast-math{all=true}))' | FileCheck %s --check-prefix=ALL
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-fast-math))' --remarks-filter=tile-fast-math --remark-format=emitRemark 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// Without fast math, IEEE ops keep their flags; each costly one inside a
// loop is named in a remark with the fix. The divide after the loop runs
// once and costs nothing worth a remark.

// CHECK-LABEL: tile.kernel @ieee_in_loop
// CHECK: arith.divf %{{.*}}, %{{.*}} : tensor<64xf32>
// CHECK: math.sqrt %{{.*}} : tensor<64xf32>
// CHECK: math.exp %{{.*}} fastmath<afn> : tensor<64xf32>
// ALL-LABEL: tile.kernel @ieee_in_loop
// ALL: arith.divf %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : tensor<64xf32>
// ALL: math.sqrt %{{.*}} fastmath<arcp,contract,afn> : tensor<64xf32>
// ALL: math.exp %{{.*}} fastmath<arcp,contract,afn> : tensor<64xf32>
// ALL: arith.addf %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : tensor<64xf32>
tile.kernel @ieee_in_loop(%x: !tile.ptr<f32>, %n: i32) grid(1) warps(1) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
  %init = arith.constant dense<1.0> : tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %init) -> (tensor<64xf32>) : i32 {
    %t = tile.load %v[%i] : !tile.view<?xf32, strides = [1]> -> tensor<64xf32>
    // REMARK: fast-math.mlir:[[@LINE+1]]:10: remark: [Missed] IEEEMath | Category:tile-fast-math | Reason="'arith.divf' in a loop is an IEEE divide (div.rn.f32: about 10 instructions and a slow path per element); fastmath<afn> on the op, `fast_math` on the kernel or `--fast-math` make it div.full.f32"
    %q = arith.divf %t, %acc : tensor<64xf32>
    // REMARK: fast-math.mlir:[[@LINE+1]]:10: remark: [Missed] IEEEMath | Category:tile-fast-math | Reason="'math.sqrt' in a loop is an IEEE square root (sqrt.rn.f32)
    %s = math.sqrt %q : tensor<64xf32>
    // Already approximate: no remark.
    // REMARK-NOT: fast-math.mlir:[[@LINE+1]]
    %e = math.exp %s fastmath<afn> : tensor<64xf32>
    %a = arith.addf %acc, %e : tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  }
  // REMARK-NOT: fast-math.mlir:[[@LINE+1]]
  %d = arith.divf %r, %init : tensor<64xf32>
  tile.store %d, %v[%c0] : tensor<64xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// A fast_math kernel: every float op gets afn, arcp and contract, flags it
// had kept.

// CHECK-LABEL: tile.kernel @marked
// CHECK-SAME: fast_math
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : tensor<64xf32>
// CHECK: math.tanh %{{.*}} fastmath<nnan,arcp,contract,afn> : tensor<64xf32>
// REMARK: remark: [Passed] FastMath | Category:tile-fast-math | Remark="afn, arcp and contract on 2 floating-point ops"
tile.kernel @marked(%x: !tile.ptr<f32>, %n: i32) grid(1) warps(1) fast_math {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
  %t = tile.load %v[%c0] : !tile.view<?xf32, strides = [1]> -> tensor<64xf32>
  %q = arith.divf %t, %t : tensor<64xf32>
  %h = math.tanh %q fastmath<nnan> : tensor<64xf32>
  tile.store %h, %v[%c0] : tensor<64xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
