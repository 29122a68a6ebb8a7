// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// f32 in ieee precision on FMA instructions: a 16x16 accumulator over one
// warp (2 x 4 elements a thread), K = 4 held whole by each thread in A (its
// 2 rows) and B (its 4 columns). One fma.rn.f32 (llvm.intr.fma) per
// accumulator register and K step: 8 x 4, K outermost, so that the first
// eight all read A's K = 0 column and the sum of each element runs in K
// order. A register 0 holds (0, 0), B register 1 (0, 1), accumulator
// register 1 (0, 1).

#c = #tile.blocked<sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#a = #tile.blocked<sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#b = #tile.blocked<sizePerThread = [4, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @fma_dot
  // CHECK: %[[A:.+]] = arith.constant dense<1.000000e+00> : vector<8xf32>
  // CHECK: %[[B:.+]] = arith.constant dense<2.000000e+00> : vector<16xf32>
  // CHECK: %[[A0:.+]] = vector.extract %[[A]][0] : f32 from vector<8xf32>
  // CHECK: %[[B0:.+]] = vector.extract %[[B]][0] : f32 from vector<16xf32>
  // CHECK: %[[B1:.+]] = vector.extract %[[B]][1] : f32 from vector<16xf32>
  // CHECK: %[[C0:.+]] = vector.extract %{{.+}}[0] : f32 from vector<8xf32>
  // CHECK: %[[C1:.+]] = vector.extract %{{.+}}[1] : f32 from vector<8xf32>
  // CHECK: llvm.intr.fma(%[[A0]], %[[B0]], %[[C0]]) : (f32, f32, f32) -> f32
  // CHECK-NEXT: llvm.intr.fma(%[[A0]], %[[B1]], %[[C1]]) : (f32, f32, f32) -> f32
  // CHECK-COUNT-30: llvm.intr.fma
  // CHECK-NOT: llvm.intr.fma
  // CHECK: llvm.return
  tile.kernel @fma_dot() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x4xf32, #a>
    %b = arith.constant dense<2.0> : tensor<4x16xf32, #b>
    %z = arith.constant dense<0.0> : tensor<16x16xf32, #c>
    %d = tile.dot %a, %b, %z : tensor<16x4xf32, #a>, tensor<4x16xf32, #b> -> tensor<16x16xf32, #c>
    tile.return
  }
}
