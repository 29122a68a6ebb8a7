// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// expand_dims, broadcast and trans only move values between registers.
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#s = #tile.slice<dim = 1, parent = #b>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @register_moves
  // CHECK: %[[R:.+]] = arith.constant dense<[0, 16]> : vector<2xi32>
  // CHECK: %[[E:.+]] = arith.addi %[[R]], %{{.*}} : vector<2xi32>
  // CHECK: vector.shuffle %[[E]], %[[E]] [0, 0, 0, 0, 1, 1, 1, 1] : vector<2xi32>, vector<2xi32>
  // CHECK-NOT: nvvm.barrier0
  tile.kernel @register_moves() {
    %r = tile.range 0 to 32 : tensor<32xi32, #s>
    %e = tile.expand_dims %r axis = 1 : tensor<32xi32, #s> -> tensor<32x1xi32, #b>
    %b = tile.broadcast %e : tensor<32x1xi32, #b> -> tensor<32x32xi32, #b>
    tile.return
  }
}

// -----

// A conversion that moves elements between threads goes through shared
// memory: a barrier before writing (earlier readers), one after.
#row = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @through_smem
  // CHECK-SAME: tile.smem_bytes = 4224 : i64
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  tile.kernel @through_smem() {
    %x = arith.constant dense<1.0> : tensor<32x32xf32, #row>
    %y = tile.convert_layout %x : tensor<32x32xf32, #row> -> tensor<32x32xf32, #col>
    tile.return
  }
}

// -----

// mma accumulator -> mma A operand (16-bit): same registers, no data motion.
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @mma_to_operand
  // CHECK-NOT: vector.shuffle
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.kernel @mma_to_operand() {
    %x = arith.constant dense<1.0> : tensor<64x64xbf16, #mma>
    %y = tile.convert_layout %x : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #a>
    tile.return
  }
}

// -----

// mma accumulator -> 8-bit A operand (kWidth 4, FP8 attention's P): the
// elements change lanes but stay in their warp, so the round trip through
// shared memory synchronizes the warp (bar.warp.sync), not the block. In a
// loop beside a block-wide conversion, it stages in an area of its own
// (4352 bytes past the other's 4224): no other warp's exchange touches it.
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#a8 = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#row = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx81">] {
  // CHECK-LABEL: llvm.func @warp_local_through_smem
  // CHECK-SAME: tile.smem_bytes = 8576 : i64
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NOT: nvvm.barrier0
  // CHECK: nvvm.bar.warp.sync
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr<3>
  // CHECK: nvvm.bar.warp.sync
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i8
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.kernel @warp_local_through_smem(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x = arith.constant dense<1.0> : tensor<32x32xf32, #row>
    %p = arith.constant dense<1.0> : tensor<64x64xf8E4M3FN, #mma>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %y = tile.convert_layout %x : tensor<32x32xf32, #row> -> tensor<32x32xf32, #col>
      %q = tile.convert_layout %p : tensor<64x64xf8E4M3FN, #mma> -> tensor<64x64xf8E4M3FN, #a8>
    }
    tile.return
  }
}

// -----

// A 16-wide K slice of an mma.sync A operand (what tile-split-dots takes of
// P) is a subset of each thread's registers: elements 8..15 of the 16 that
// hold columns 16..31.
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @slice_k
  // CHECK: vector.shuffle %{{.*}}, %{{.*}} [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xbf16>, vector<16xbf16>
  // CHECK-NOT: nvvm.barrier0
  tile.kernel @slice_k() warps(4) {
    %x = arith.constant dense<1.0> : tensor<64x32xbf16, #a>
    %y = tile.extract_slice %x offsets [0, 16] : tensor<64x32xbf16, #a> -> tensor<64x16xbf16, #a>
    %z = arith.addf %y, %y : tensor<64x16xbf16, #a>
    tile.return
  }
}
