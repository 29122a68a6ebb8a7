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

// #tile.mma's warp order: with warps along N too, numbering them along M
// first (mFirst, wgmma's warpgroups splitting N) gives warps other tiles,
// so converting between the two orders goes through shared memory; with
// warps along M only both orders are the same layout.
#nfirst = #tile.mma<warpsPerCTA = [4, 2]>
#mfirst = #tile.mma<warpsPerCTA = [4, 2], mFirst = true>
#rows = #tile.mma<warpsPerCTA = [8, 1]>
#rowsm = #tile.mma<warpsPerCTA = [8, 1], mFirst = true>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @mma_warp_orders
  // CHECK: nvvm.barrier
  // CHECK: llvm.store %{{.*}}, %{{.*}} : {{.*}}, !llvm.ptr<3>
  // CHECK: llvm.return
  tile.kernel @mma_warp_orders() warps(8) {
    %x = arith.constant dense<1.0> : tensor<64x128xf32, #nfirst>
    %y = tile.convert_layout %x : tensor<64x128xf32, #nfirst> -> tensor<64x128xf32, #mfirst>
    tile.return
  }
  // CHECK-LABEL: llvm.func @mma_rows_only_orders
  // CHECK-NOT: nvvm.barrier
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  tile.kernel @mma_rows_only_orders() warps(8) {
    %x = arith.constant dense<1.0> : tensor<128x128xf32, #rows>
    %y = tile.convert_layout %x : tensor<128x128xf32, #rows> -> tensor<128x128xf32, #rowsm>
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
// elements change lanes but stay in their warp. One element bit moves from
// lanes to registers (column bit 1) and one the other way (column bit 3),
// so each thread packs its bytes into 32-bit words (4 per row pair, 8 in
// all) and sends them in two rounds per pair of words: in each round a lane
// picks by its lane bit 0 which of the pair it sends, and the receiver picks
// by its lane bit 1 which word a received one becomes. No shared memory, no
// barrier.
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#a8 = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
  // CHECK-LABEL: llvm.func @warp_local_shuffles
  // CHECK-SAME: tile.smem_bytes = 0 : i64
  // CHECK-NOT: nvvm.barrier
  // CHECK-NOT: nvvm.bar.warp.sync
  // CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[LANE:.+]] = arith.andi %[[TID]], %{{.*}} : i32
  // CHECK: %[[S0:.+]] = arith.shrui %[[LANE]], %{{.*}} : i32
  // CHECK: %[[SEND:.+]] = arith.trunci %[[S0]] : i32 to i1
  // CHECK: %[[S1:.+]] = arith.shrui %[[LANE]], %{{.*}} : i32
  // CHECK: %[[KEEP:.+]] = arith.trunci %[[S1]] : i32 to i1
  // CHECK: %[[W0:.+]] = llvm.bitcast %{{.*}} : vector<4xi8> to i32
  // CHECK: %[[W1:.+]] = llvm.bitcast %{{.*}} : vector<4xi8> to i32
  // CHECK: %[[X0:.+]] = arith.select %[[SEND]], %[[W1]], %[[W0]] : i32
  // CHECK: %[[R0:.+]] = nvvm.shfl.sync idx %{{.*}}, %[[X0]], %{{.*}}, %{{.*}} : i32 -> i32
  // CHECK: %[[X1:.+]] = arith.select %[[SEND]], %[[W0]], %[[W1]] : i32
  // CHECK: %[[R1:.+]] = nvvm.shfl.sync idx %{{.*}}, %[[X1]], %{{.*}}, %{{.*}} : i32 -> i32
  // CHECK-COUNT-6: nvvm.shfl.sync idx
  // CHECK: arith.select %[[KEEP]], %[[R1]], %[[R0]] : i32
  // CHECK: arith.select %[[KEEP]], %[[R0]], %[[R1]] : i32
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  tile.kernel @warp_local_shuffles() {
    %p = arith.constant dense<1.0> : tensor<64x64xf8E4M3FN, #mma>
    %q = tile.convert_layout %p : tensor<64x64xf8E4M3FN, #mma> -> tensor<64x64xf8E4M3FN, #a8>
    tile.return
  }
}

// -----

// Two element bits move each way (row bits 0-1 into registers, column bits
// 1-2 into lanes): four rounds, each picking the word to send among four
// (three selects) and the word received among four.
#row8 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#sq42 = #tile.blocked<sizePerThread = [4, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @two_bits_four_rounds
  // CHECK-SAME: tile.smem_bytes = 0 : i64
  // CHECK-COUNT-3: arith.select
  // CHECK: nvvm.shfl.sync idx
  // CHECK-COUNT-3: arith.select
  // CHECK: nvvm.shfl.sync idx
  // CHECK-COUNT-3: arith.select
  // CHECK: nvvm.shfl.sync idx
  // CHECK-COUNT-3: arith.select
  // CHECK: nvvm.shfl.sync idx
  // CHECK-COUNT-12: arith.select
  // CHECK-NOT: arith.select
  // CHECK: llvm.return
  tile.kernel @two_bits_four_rounds() {
    %x = arith.constant dense<1.0> : tensor<32x32xbf16, #row8>
    %y = tile.convert_layout %x : tensor<32x32xbf16, #row8> -> tensor<32x32xbf16, #sq42>
    tile.return
  }
}

// -----

// Only lanes permuted (row8 with its lanes ordered rows first): one round
// per word, nothing to pick; the source lane is this lane's bits moved.
#row8 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#row8t = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @lanes_permuted
  // CHECK-NOT: arith.select
  // CHECK-COUNT-2: nvvm.shfl.sync idx
  // CHECK-NOT: arith.select
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: llvm.return
  tile.kernel @lanes_permuted() {
    %x = arith.constant dense<1.0> : tensor<32x32xf8E4M3FN, #row8>
    %y = tile.convert_layout %x : tensor<32x32xf8E4M3FN, #row8> -> tensor<32x32xf8E4M3FN, #row8t>
    tile.return
  }
}

// -----

// Three element bits move from registers to lanes (row8 -> col8): more
// rounds than the exchange is worth, so the conversion goes through shared
// memory, synchronizing the warp (bar.warp.sync), not the block. In a loop
// beside a block-wide conversion it stages in an area of its own (2176
// bytes past the other's 4224): no other warp's exchange touches it.
#row = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#row8 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#col8 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @warp_local_through_smem
  // CHECK-SAME: tile.smem_bytes = 6400 : i64
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NOT: nvvm.barrier0
  // CHECK: nvvm.bar.warp.sync
  // CHECK: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr<3>
  // CHECK: nvvm.bar.warp.sync
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> bf16
  // CHECK-NOT: nvvm.barrier0
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: llvm.return
  tile.kernel @warp_local_through_smem(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x = arith.constant dense<1.0> : tensor<32x32xf32, #row>
    %p = arith.constant dense<1.0> : tensor<32x32xbf16, #row8>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %y = tile.convert_layout %x : tensor<32x32xf32, #row> -> tensor<32x32xf32, #col>
      %q = tile.convert_layout %p : tensor<32x32xbf16, #row8> -> tensor<32x32xbf16, #col8>
    }
    tile.return
  }
}

// -----

// A conversion whose layouts replicate the tile across warps (a 1 x 128
// bias row on 8 warps stacked along rows, on both sides) keeps every element
// in its warp, but all warps hold the same elements: one warp writes the
// staging area for all, so every warp waits at the block's barrier, not its
// own (bar.warp.sync let warps read before warp 0 had written: wrong bias
// values in a user's GEMM epilogue on the H200).
#vec = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
#rows = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @warp_replicated_through_smem
  // CHECK-NOT: nvvm.bar.warp.sync
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> bf16
  // CHECK-NOT: nvvm.bar.warp.sync
  // CHECK: llvm.return
  tile.kernel @warp_replicated_through_smem(%v: bf16) warps(8) {
    %x = tile.splat %v : tensor<128xbf16, #vec>
    %y = tile.convert_layout %x : tensor<128xbf16, #vec> -> tensor<128xbf16, #tile.slice<dim = 0, parent = #rows>>
    tile.return
  }
}

// -----

// Four bytes of an FP8 word never share a thread on both sides (row8 ->
// sq42 keeps one element bit in registers), so shuffles cannot carry whole
// words: shared memory.
#row8 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#sq42 = #tile.blocked<sizePerThread = [4, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @bytes_apart_through_smem
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: nvvm.bar.warp.sync
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr<3>
  // CHECK: nvvm.bar.warp.sync
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i8
  tile.kernel @bytes_apart_through_smem() {
    %x = arith.constant dense<1.0> : tensor<32x32xf8E4M3FN, #row8>
    %y = tile.convert_layout %x : tensor<32x32xf8E4M3FN, #row8> -> tensor<32x32xf8E4M3FN, #sq42>
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
