// RUN: tilec-opt %s --tile-legalize-math | FileCheck %s

// Transcendentals become SFU approximations (NVPTX has no libm calls);
// vectors are unrolled, 16-bit floats computed in f32.

gpu.module @g {
  // CHECK-LABEL: func.func @scalar
  func.func @scalar(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32) {
    // CHECK: %[[L2E:.+]] = arith.constant 1.44269502 : f32
    // CHECK: %[[S:.+]] = arith.mulf %{{.*}}, %[[L2E]] : f32
    // CHECK: llvm.intr.exp2(%[[S]]) : (f32) -> f32
    %0 = math.exp %x : f32
    // CHECK: llvm.intr.exp2(%{{.*}}) : (f32) -> f32
    %1 = math.exp2 %x : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%{{.*}}) : (f32) -> f32
    // CHECK: arith.mulf
    %2 = math.log %x : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
    %3 = math.log2 %x : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.tanh.approx.f32"
    %4 = math.tanh %x : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
    %5 = math.rsqrt %x : f32
    // erf is a polynomial.
    // CHECK-NOT: math.erf
    %6 = math.erf %x : f32
    return %0, %1, %2, %3, %4, %5, %6 : f32, f32, f32, f32, f32, f32, f32
  }

  // With `afn` (approximate functions: attention's softmax) 2^x flushes
  // denormal results to zero: ex2.approx.ftz, one MUFU.EX2 without the
  // range fix-up of ex2.approx.
  // CHECK-LABEL: func.func @exp2_afn
  func.func @exp2_afn(%x: f32) -> (f32, f32) {
    // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
    %0 = math.exp2 %x fastmath<afn> : f32
    // CHECK: arith.mulf
    // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
    %1 = math.exp %x fastmath<fast> : f32
    return %0, %1 : f32, f32
  }

  // CHECK-LABEL: func.func @vector_bf16
  // CHECK-COUNT-2: arith.extf %{{.*}} : bf16 to f32
  // CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xbf16>
  func.func @vector_bf16(%x: vector<2xbf16>) -> vector<2xbf16> {
    %0 = math.exp2 %x : vector<2xbf16>
    return %0 : vector<2xbf16>
  }
}
