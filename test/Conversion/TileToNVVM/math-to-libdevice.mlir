// RUN: tilec-opt %s --tile-convert-math-to-libdevice | FileCheck %s

// Math functions NVPTX cannot select become libdevice calls (IEEE by
// default; `afn` picks the __nv_fast_* variant where libdevice has one);
// 16-bit floats go through f32. Ops NVPTX selects itself stay for
// convert-math-to-llvm.

gpu.module @g {
  // CHECK-DAG: llvm.func @__nv_tanhf(f32) -> f32
  // CHECK-DAG: llvm.func @__nv_powf(f32, f32) -> f32
  // CHECK-DAG: llvm.func @__nv_fast_powf(f32, f32) -> f32
  // CHECK-DAG: llvm.func @__nv_erfcf(f32) -> f32
  // CHECK-DAG: llvm.func @__nv_tan(f64) -> f64

  // CHECK-LABEL: func.func @functions
  func.func @functions(%x: f32, %y: f32, %d: f64, %i: i32) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f64) {
    // CHECK: llvm.call @__nv_tanhf(%{{.*}}) : (f32) -> f32
    %0 = math.tanh %x : f32
    // CHECK: llvm.call @__nv_powf(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
    %1 = math.powf %x, %y : f32
    // CHECK: llvm.call @__nv_fast_powf(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
    %2 = math.powf %x, %y fastmath<afn> : f32
    // CHECK: llvm.call @__nv_atan2f
    %3 = math.atan2 %x, %y : f32
    // CHECK: llvm.call @__nv_erfcf
    %4 = math.erfc %x : f32
    // CHECK: llvm.call @__nv_cbrtf
    %5 = math.cbrt %x : f32
    // CHECK: llvm.call @__nv_log1pf
    %6 = math.log1p %x : f32
    // CHECK: llvm.call @__nv_expm1f
    %7 = math.expm1 %x : f32
    // CHECK: llvm.call @__nv_powif(%{{.*}}, %{{.*}}) : (f32, i32) -> f32
    %8 = math.fpowi %x, %i : f32, i32
    // CHECK: llvm.call @__nv_tan(%{{.*}}) : (f64) -> f64
    %9 = math.tan %d : f64
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f64
  }

  // CHECK-LABEL: func.func @half_through_f32
  // CHECK: %[[E:.+]] = llvm.fpext %{{.*}} : bf16 to f32
  // CHECK: %[[R:.+]] = llvm.call @__nv_sinhf(%[[E]]) : (f32) -> f32
  // CHECK: llvm.fptrunc %[[R]] : f32 to bf16
  func.func @half_through_f32(%x: bf16) -> bf16 {
    %0 = math.sinh %x : bf16
    return %0 : bf16
  }

  // CHECK-LABEL: func.func @native
  // CHECK: math.sqrt
  // CHECK: math.absf
  // CHECK: math.floor
  // CHECK: math.fma
  // CHECK: math.roundeven
  // CHECK-NOT: llvm.call
  func.func @native(%x: f32) -> (f32, f32, f32, f32, f32) {
    %0 = math.sqrt %x : f32
    %1 = math.absf %x : f32
    %2 = math.floor %x : f32
    %3 = math.fma %x, %x, %x : f32
    %4 = math.roundeven %x : f32
    return %0, %1, %2, %3, %4 : f32, f32, f32, f32, f32
  }
}
