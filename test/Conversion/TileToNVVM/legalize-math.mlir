// RUN: tilec-opt %s --tile-legalize-math | FileCheck %s

// Math ops whose fastmath flags allow approximate functions (`afn`) become
// SFU approximations; vectors are unrolled, 16-bit floats computed in f32.
// Without `afn` they keep IEEE semantics: this pass leaves them to
// tile-convert-math-to-libdevice (math-to-libdevice.mlir).

gpu.module @g {
  // CHECK-LABEL: func.func @scalar_afn
  func.func @scalar_afn(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32) {
    // e^x = 2^(x log2 e), one MUFU.EX2 (denormal results flush to zero).
    // CHECK: %[[L2E:.+]] = arith.constant 1.44269502 : f32
    // CHECK: %[[S:.+]] = arith.mulf %{{.*}}, %[[L2E]] : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[S]]) : (f32) -> f32
    %0 = math.exp %x fastmath<afn> : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
    %1 = math.exp2 %x fastmath<afn> : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%{{.*}}) : (f32) -> f32
    // CHECK: arith.mulf
    %2 = math.log %x fastmath<afn> : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
    %3 = math.log2 %x fastmath<afn> : f32
    // NVPTX selects tanh.approx.f32 for llvm.tanh with afn.
    // CHECK: llvm.intr.tanh(%{{.*}}) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
    %4 = math.tanh %x fastmath<afn> : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
    %5 = math.rsqrt %x fastmath<afn> : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
    %6 = math.sin %x fastmath<fast> : f32
    // CHECK: llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
    %7 = math.cos %x fastmath<afn> : f32
    // erf is upstream's polynomial.
    // CHECK-NOT: math.erf
    %8 = math.erf %x fastmath<afn> : f32
    return %0, %1, %2, %3, %4, %5, %6, %7, %8 : f32, f32, f32, f32, f32, f32, f32, f32, f32
  }

  // Without afn (or with flags that do not allow approximation) nothing
  // changes here.
  // CHECK-LABEL: func.func @scalar_ieee
  func.func @scalar_ieee(%x: f32) -> (f32, f32, f32, f32) {
    // CHECK: math.exp %{{.*}} : f32
    %0 = math.exp %x : f32
    // CHECK: math.tanh %{{.*}} fastmath<contract> : f32
    %1 = math.tanh %x fastmath<contract> : f32
    // CHECK: math.erf %{{.*}} : f32
    %2 = math.erf %x : f32
    // CHECK: math.log2 %{{.*}} fastmath<arcp> : f32
    %3 = math.log2 %x fastmath<arcp> : f32
    return %0, %1, %2, %3 : f32, f32, f32, f32
  }

  // Divides with afn: div.full.f32 (Triton's `/`), 16-bit ones through f32;
  // IEEE ones stay for NVPTX's div.rn.f32.
  // CHECK-LABEL: func.func @divide
  // CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
  // CHECK: %[[A:.+]] = arith.extf %{{.*}} : f16 to f32
  // CHECK: %[[B:.+]] = arith.extf %{{.*}} : f16 to f32
  // CHECK: %[[Q:.+]] = llvm.call_intrinsic "llvm.nvvm.div.full"(%[[A]], %[[B]])
  // CHECK: arith.truncf %[[Q]] : f32 to f16
  // CHECK: arith.divf %{{.*}}, %{{.*}} : f32
  func.func @divide(%x: f32, %h: f16) -> (f32, f16, f32) {
    %0 = arith.divf %x, %x fastmath<afn> : f32
    %1 = arith.divf %h, %h fastmath<fast> : f16
    %2 = arith.divf %x, %x : f32
    return %0, %1, %2 : f32, f16, f32
  }

  // CHECK-LABEL: func.func @vector_bf16
  // CHECK-COUNT-2: arith.extf %{{.*}} : bf16 to f32
  // CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xbf16>
  func.func @vector_bf16(%x: vector<2xbf16>) -> vector<2xbf16> {
    %0 = math.exp2 %x fastmath<afn> : vector<2xbf16>
    return %0 : vector<2xbf16>
  }

  // CHECK-LABEL: func.func @vector_bf16_ieee
  // CHECK: math.exp2 %{{.*}} : vector<2xbf16>
  func.func @vector_bf16_ieee(%x: vector<2xbf16>) -> vector<2xbf16> {
    %0 = math.exp2 %x : vector<2xbf16>
    return %0 : vector<2xbf16>
  }

  // Integer powers: square-and-multiply over the exponent's 32 bits, then
  // MLIR's semantics for a negative exponent.
  // CHECK-LABEL: func.func @ipowi
  // CHECK: %[[LOOP:.+]]:3 = scf.for {{.*}} iter_args(%[[ACC:.+]] = %{{.*}}, %[[SQ:.+]] = %[[B:[^,]+]], %[[E:.+]] = %{{.*}}) -> (i32, i32, i32) {
  // CHECK:   arith.muli %[[ACC]], %[[SQ]] : i32
  // CHECK:   arith.muli %[[SQ]], %[[SQ]] : i32
  // CHECK:   arith.shrui %[[E]]
  // CHECK: arith.cmpi slt
  // CHECK: arith.select %{{.*}}, %{{.*}}, %[[LOOP]]#0 : i32
  // CHECK-NOT: math.ipowi
  func.func @ipowi(%b: i32, %e: i32) -> i32 {
    %0 = math.ipowi %b, %e : i32
    return %0 : i32
  }

  // CHECK-LABEL: func.func @ipowi_vector
  // CHECK-COUNT-2: scf.for
  // CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xi64>
  func.func @ipowi_vector(%b: vector<2xi64>, %e: vector<2xi64>) -> vector<2xi64> {
    %0 = math.ipowi %b, %e : vector<2xi64>
    return %0 : vector<2xi64>
  }
}
