// RUN: tilec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// Elementwise ops on tiles become the same ops on the per-thread vectors.
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @elementwise
  // CHECK-SAME: (%[[S:.+]]: f32)
  // CHECK: %[[C:.+]] = arith.constant dense<2.000000e+00> : vector<8xf32>
  // CHECK: %[[B:.+]] = vector.broadcast %[[S]] : f32 to vector<8xf32>
  // CHECK: %[[M:.+]] = arith.mulf %[[B]], %[[C]] fastmath<fast> : vector<8xf32>
  // CHECK: %[[E:.+]] = math.exp2 %[[M]] : vector<8xf32>
  // CHECK: %[[T:.+]] = arith.truncf %[[E]] : vector<8xf32> to vector<8xbf16>
  // CHECK: %[[P:.+]] = arith.cmpf ogt, %[[E]], %[[C]] : vector<8xf32>
  // CHECK: arith.select %[[P]], %[[E]], %[[C]] : vector<8xi1>, vector<8xf32>
  tile.kernel @elementwise(%s: f32) {
    %c = arith.constant dense<2.0> : tensor<16x64xf32, #b>
    %b = tile.splat %s : tensor<16x64xf32, #b>
    %m = arith.mulf %c, %b fastmath<fast> : tensor<16x64xf32, #b>
    %e = math.exp2 %m : tensor<16x64xf32, #b>
    %t = arith.truncf %e : tensor<16x64xf32, #b> to tensor<16x64xbf16, #b>
    %p = arith.cmpf ogt, %e, %c : tensor<16x64xf32, #b>
    %r = arith.select %p, %e, %c : tensor<16x64xi1, #b>, tensor<16x64xf32, #b>
    tile.return
  }
}
