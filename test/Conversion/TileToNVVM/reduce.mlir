// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// A row reduction whose rows live inside one warp: registers first, then one
// butterfly shuffle per lane bit along the row (32 lanes: 5 shuffles).
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @intra_warp
  // CHECK-COUNT-3: arith.maximumf
  // CHECK-COUNT-5: nvvm.shfl.sync bfly {{.*}} : f32 -> f32
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.kernel @intra_warp() {
    %x = arith.constant dense<1.0> : tensor<4x128xf32, #b>
    %m = tile.reduce max %x axis = 1 : tensor<4x128xf32, #b> -> tensor<4xf32, #tile.slice<dim = 1, parent = #b>>
    tile.return
  }
}

// -----

// Warps along the reduced axis: partial results meet in shared memory
// (scratch sized 4 results x 4 warps x 4 bytes).
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK: llvm.mlir.global external @tile_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
  // CHECK-LABEL: llvm.func @across_warps
  // CHECK-SAME: tile.smem_bytes = 64 : i64
  // CHECK-COUNT-3: nvvm.shfl.sync bfly
  // CHECK: llvm.mlir.addressof @tile_smem : !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: scf.if
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
  tile.kernel @across_warps() {
    %x = arith.constant dense<1> : tensor<4x128xi32, #b>
    %s = tile.reduce sum %x axis = 1 : tensor<4x128xi32, #b> -> tensor<4xi32, #tile.slice<dim = 1, parent = #b>>
    tile.return
  }
}

// -----

// 16-bit values travel through shuffles in the low half of an i32.
#b = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @narrow_shuffle
  // CHECK: arith.bitcast %{{.*}} : bf16 to i16
  // CHECK: arith.extui %{{.*}} : i16 to i32
  // CHECK: nvvm.shfl.sync bfly {{.*}} : i32 -> i32
  // CHECK: arith.trunci %{{.*}} : i32 to i16
  tile.kernel @narrow_shuffle() warps(1) {
    %x = arith.constant dense<1.0> : tensor<1x32xbf16, #b>
    %m = tile.reduce min %x axis = 1 : tensor<1x32xbf16, #b> -> tensor<1xbf16, #tile.slice<dim = 1, parent = #b>>
    tile.return
  }
}

// -----

// A thread's 8 registers of a row combine as a balanced tree (depth 3, not
// a chain of 7): pairs, then pairs of pairs.
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @register_tree
  // CHECK: %[[V:.+]] = vector.from_elements {{.*}} : vector<8xf32>
  // CHECK: %[[X0:.+]] = vector.extract %[[V]][0]
  // CHECK: %[[X1:.+]] = vector.extract %[[V]][1]
  // CHECK: %[[X2:.+]] = vector.extract %[[V]][2]
  // CHECK: %[[X3:.+]] = vector.extract %[[V]][3]
  // CHECK: %[[X4:.+]] = vector.extract %[[V]][4]
  // CHECK: %[[X5:.+]] = vector.extract %[[V]][5]
  // CHECK: %[[X6:.+]] = vector.extract %[[V]][6]
  // CHECK: %[[X7:.+]] = vector.extract %[[V]][7]
  // CHECK: %[[A:.+]] = arith.addf %[[X0]], %[[X1]] : f32
  // CHECK: %[[B:.+]] = arith.addf %[[X2]], %[[X3]] : f32
  // CHECK: %[[C:.+]] = arith.addf %[[X4]], %[[X5]] : f32
  // CHECK: %[[D:.+]] = arith.addf %[[X6]], %[[X7]] : f32
  // CHECK: %[[AB:.+]] = arith.addf %[[A]], %[[B]] : f32
  // CHECK: %[[CD:.+]] = arith.addf %[[C]], %[[D]] : f32
  // CHECK: arith.addf %[[AB]], %[[CD]] : f32
  // CHECK-NOT: nvvm.shfl.sync
  tile.kernel @register_tree(%p: !tile.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %p[128, 8] strides [8, 1] : !tile.ptr<f32>
    %x = tile.load %v[%c0, %c0] : !tile.view<128x8xf32, strides = [8, 1]> -> tensor<128x8xf32, #b>
    %s = tile.reduce sum %x axis = 1 : tensor<128x8xf32, #b> -> tensor<128xf32, #tile.slice<dim = 1, parent = #b>>
    %o = tile.make_view %p[128] strides [1] : !tile.ptr<f32>
    tile.store %s, %o[%c0] : tensor<128xf32, #tile.slice<dim = 1, parent = #b>>, !tile.view<128xf32, strides = [1]>
    tile.return
  }
}
