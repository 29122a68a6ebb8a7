// RUN: tilec-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tile-scalarize-elementwise))' | FileCheck %s

// Elementwise vector ops become one scalar op per element, in element-major
// order (each element's chain together).
gpu.module @g0 {
  // CHECK-LABEL: func.func @scalar_ops
  // CHECK: vector.extract %{{.*}}[0]
  // CHECK: arith.mulf {{.*}} : f32
  // CHECK-NEXT: math.exp2 {{.*}} : f32
  // CHECK-NEXT: vector.extract %{{.*}}[1]
  // CHECK: arith.mulf {{.*}} : f32
  // CHECK-NEXT: math.exp2 {{.*}} : f32
  // CHECK: vector.from_elements {{.*}} : vector<2xf32>
  func.func @scalar_ops(%x: vector<2xf32>) -> vector<2xf32> {
    %m = arith.mulf %x, %x : vector<2xf32>
    %e = math.exp2 %m : vector<2xf32>
    return %e : vector<2xf32>
  }
}

// -----

// f32 -> bf16 truncations go in pairs (NVPTX selects cvt.rn.bf16x2.f32 for
// a two-element fptrunc, and one cvt per element for scalar ones).
gpu.module @g1 {
  // CHECK-LABEL: func.func @pair_truncation
  // CHECK-COUNT-2: arith.truncf {{.*}} : vector<2xf32> to vector<2xbf16>
  // CHECK-NOT: arith.truncf
  func.func @pair_truncation(%x: vector<4xf32>) -> vector<4xbf16> {
    %t = arith.truncf %x : vector<4xf32> to vector<4xbf16>
    return %t : vector<4xbf16>
  }
}

// -----

// An odd element count stays scalar.
gpu.module @g2 {
  // CHECK-LABEL: func.func @odd_truncation
  // CHECK-COUNT-3: arith.truncf {{.*}} : f32 to f16
  func.func @odd_truncation(%x: vector<3xf32>) -> vector<3xf16> {
    %t = arith.truncf %x : vector<3xf32> to vector<3xf16>
    return %t : vector<3xf16>
  }
}

// -----

// A block of more than 16384 operations keeps vector-major order: the
// element-major schedule costs O(ops^2) there (a fuzzed 64x1024 tile took
// 100 s). 8192 elements give about 24600 scalar operations.
gpu.module @g_large {
  // CHECK-LABEL: func.func @large_block
  // CHECK: arith.mulf {{.*}} : f32
  // CHECK-NEXT: vector.extract %{{.*}}[1]
  func.func @large_block(%x: vector<8192xf32>) -> vector<8192xf32> {
    %m = arith.mulf %x, %x : vector<8192xf32>
    %e = math.exp2 %m : vector<8192xf32>
    return %e : vector<8192xf32>
  }
}
