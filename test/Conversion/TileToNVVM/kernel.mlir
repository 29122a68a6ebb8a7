// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// tile.kernel becomes an llvm.func kernel with an exact block size and the
// launch metadata; pointers become global pointers, views structs.

gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @signature
  // CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: f32)
  // CHECK-SAME: nvvm.kernel
  // CHECK-SAME: nvvm.reqntid = array<i32: 256, 1, 1>
  // CHECK-SAME: tile.launch = {block = [256, 1, 1], chip = "sm_80", cluster = [1, 1, 1], grid = ["ceildiv(n, 64)", "2"], name = "signature", num_warps = 8 : i64, params = [{dtype = "bf16", kind = "pointer", name = "x"}, {dtype = "i32", kind = "scalar", name = "n"}, {dtype = "f32", kind = "scalar", name = "alpha"}], persistent = false, ptx_version = 70 : i64, register_tiles = [], smem_bytes = 0 : i64, tensor_maps = []}
  // CHECK: nvvm.read.ptx.sreg.ctaid.y
  // CHECK: nvvm.read.ptx.sreg.nctaid.z
  // CHECK: llvm.insertvalue {{.*}}[0] : !llvm.struct<(ptr<1>, i32, i32)>
  // CHECK: llvm.return
  tile.kernel @signature(%x: !tile.ptr<bf16>, %n: i32, %alpha: f32) grid(ceildiv(%n, 64), 2) warps(8) {
    %0 = tile.program_id y
    %1 = tile.num_programs z
    %v = tile.make_view %x[%n] strides [1] : !tile.ptr<bf16>
    tile.return
  }
}

// -----

// Shared memory over the chip's budget is a compile-time error.
gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
  // expected-error @+1 {{needs 132096 bytes of shared memory, more than the 101376 bytes a block may use on sm_89}}
  tile.kernel @too_much_smem() warps(8) {
    %x = arith.constant dense<0.0> : tensor<256x128xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>>
    %y = tile.convert_layout %x : tensor<256x128xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>> -> tensor<256x128xf32, #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]>>
    tile.return
  }
}

// -----

// A cluster shape becomes `.reqnctapercluster` (nvvm.cluster_dim) and the
// metadata's `cluster`; the rank and cluster barrier are sreg reads and
// barrier.cluster.

gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  // CHECK-LABEL: llvm.func @clustered
  // CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
  // CHECK-SAME: cluster = [2, 1, 1]
  // CHECK: nvvm.cluster.arrive {aligned}
  // CHECK-NEXT: nvvm.cluster.wait {aligned}
  // CHECK: nvvm.read.ptx.sreg.cluster.ctarank
  tile.kernel @clustered(%n: i32) grid(%n) warps(4) cluster(2) {
    tile.cluster_barrier
    %r = tile.cluster_rank
    tile.return
  }
}

// -----

// Clusters need sm_90.
gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
  // expected-error @+1 {{thread-block clusters need sm_90 or newer; sm_89 has none}}
  tile.kernel @cluster_on_sm89(%n: i32) grid(%n) warps(4) cluster(2) {
    tile.return
  }
}

// -----

// A register A operand of wgmma must be the accumulator layout's A fragment.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#mma22 = #tile.mma<warpsPerCTA = [2, 2]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  tile.kernel @wgmma_rs_wrong_fragment(%n: i32) warps(4) {
    %a = arith.constant dense<1.0> : tensor<64x64xbf16, #tile.dot_operand<opIdx = 0, parent = #mma22, kWidth = 2>>
    %buf = tile.local_alloc : !tile.smem<1x64x128xbf16, #sw>
    %c0 = arith.constant 0 : i32
    %b = tile.local_load %buf[%c0] : !tile.smem<1x64x128xbf16, #sw> -> tensor<64x128xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
    // expected-error @+2 {{a register A operand must be the dot_operand (opIdx 0) of the accumulator's layout}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z : tensor<64x64xbf16, #tile.dot_operand<opIdx = 0, parent = #mma22, kWidth = 2>>, tensor<64x128xbf16, #sw> -> tensor<64x128xf32, #mma>
    tile.return
  }
}

// -----

// Shared buffers whose live ranges (in top-level ops) do not overlap share
// memory: the second buffer reuses the first one's 8 KB at offset 1024 (as
// consecutive loops' cp.async rings do) after the mbarrier (live throughout,
// at 0): 9216 bytes, not 17408.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  // CHECK-LABEL: llvm.func @reuse
  // CHECK-SAME: smem_bytes = 9216 : i64
  tile.kernel @reuse(%n: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %b0 = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %t0 = tile.local_load %b0[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %b1 = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %t1 = tile.local_load %b1[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    tile.mbarrier_arrive %bar[%c0] : !tile.mbarrier<1>
    tile.return
  }
}

// -----

// tile.warpgroup_id is the warp index / 4, here (no warp specialization)
// tid.x >> 5 without the shfl.sync broadcast of warp-specialize.mlir: on
// the sm_80 GEMM with a column-major B the broadcast ran 0.93x
// (bench/results/2026-12-04_uniform_warp_id_h200.json).
// tile.named_barrier becomes bar.sync or bar.arrive with its id and thread
// count.
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  // CHECK-LABEL: llvm.func @turns
  // CHECK-NOT: tile.uniform_warp_id
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[WARP:.+]] = arith.shrui %[[TID]], %c5_i32 : i32
  // CHECK: %[[WG:.+]] = arith.shrui %[[WARP]], %c2_i32 : i32
  // CHECK: %[[N:.+]] = arith.constant 256 : i32
  // CHECK: nvvm.barrier id = %[[WG]] number_of_threads = %[[N]]
  // CHECK: nvvm.barrier.arrive id = %[[WG]] number_of_threads = %{{.+}}
  tile.kernel @turns() warps(8) {
    %wg = tile.warpgroup_id
    tile.named_barrier %wg, 256
    tile.named_barrier arrive %wg, 256
    tile.return
  }
}
