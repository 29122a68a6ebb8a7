// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-tma-pipeline)))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-tma-pipeline)))' --remarks-filter-missed=tile-tma-pipeline --remark-format=emitRemark -verify-diagnostics -o /dev/null
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-tma-pipeline, tile-async-wgmma, tile-warp-specialize, tile-verify-async)))' | FileCheck %s --check-prefix=WS

// tile-tma-pipeline in kernels launched in clusters: block programs as the
// pipeline leaves them before it on sm_90a. The rank analysis proves which
// programs of a cluster load the same tile; those share it (each loads 1/g
// of its boxes and multicasts them to the g programs), their consumers
// release a stage to every program that writes into it, and cluster
// barriers bracket the program. Nothing here tests where a program came
// from: tile.gemm's cluster configs expand to programs like the last one.

// Programs along x share nothing of A (m0 = pid.x * 128 differs) and all
// of B (n0 = pid.y * 128 is the same): the B tile (two 64x64 boxes) splits
// into one box per program, multicast to both (mask 0b11). The empty
// barriers count the 8 consumer warps of both programs; consumers arrive
// on both programs' barriers.

// CHECK-LABEL: tile.kernel @shared_b
// CHECK: %[[TMA:.+]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<128x64xbf16, #shared>
// CHECK: %[[TMB:.+]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<64x64xbf16, #shared>
// CHECK: %[[FULL:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
// CHECK: %[[EMPTY:.+]] = tile.mbarrier_alloc count 16 : !tile.mbarrier<2>
// CHECK-NEXT: tile.cluster_barrier
// CHECK-NEXT: %[[RANK:.+]] = tile.cluster_rank
// CHECK-DAG: %[[MASK:.+]] = arith.constant 3 : i32
// CHECK-DAG: %[[IS1:.+]] = arith.cmpi eq, %[[RANK]], %[[ONE:.+]] : i32
// CHECK: %[[PART:.+]] = arith.select %[[IS1]], %{{.+}}, %{{.+}} : i32
// CHECK: %[[P0:.+]] = arith.constant 0 : i32
// CHECK: %[[P1:.+]] = arith.constant 1 : i32
// CHECK: scf.if
// CHECK: tile.mbarrier_expect_tx %[[FULL]][%{{.+}}], 32768
// CHECK-NEXT: tile.tma_load %[[TMA]][%{{.+}}], %{{.+}}, %[[FULL]][%{{.+}}] : !tile.tensor_map<128x64xbf16, #shared>
// CHECK-NEXT: tile.tma_load %[[TMB]][%{{.+}}], %{{.+}}, %[[FULL]][%{{.+}}] multicast(%[[MASK]]) part(%[[PART]] of 2) : !tile.tensor_map<64x64xbf16, #shared>
// CHECK: scf.for
// CHECK: tile.warpgroup_wait 0
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%{{.+}}] cta(%[[P0]])
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%{{.+}}] cta(%[[P1]])
// CHECK: tile.store
// CHECK-NEXT: tile.cluster_barrier
// CHECK-NEXT: tile.return

// The consumers' releases move with the wgmma group in flight, the copies
// go to the producer warpgroup, and the cluster barriers stay outside
// tile.warp_specialize, where every thread of the cluster takes part. The
// protocol checks (tile-verify-async).

// WS-LABEL: tile.kernel @shared_b
// WS: tile.mbarrier_alloc count 16
// WS-NEXT: tile.cluster_barrier
// WS: tile.warp_specialize
// WS: tile.warpgroup_wait 1
// WS: scf.if
// WS: tile.mbarrier_arrive {{.*}} cta(
// WS: tile.mbarrier_arrive {{.*}} cta(
// WS: partition warps(4)
// WS: multicast(
// WS: tile.cluster_barrier
// WS-NEXT: tile.return

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @shared_b [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @shared_b(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) cluster(2, 1, 1) schedule<stages = 2, persistent = false, tma_store = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %pid_0 = tile.program_id y
      %0 = arith.muli %pid, %c128_i32 : i32
      %1 = arith.muli %pid_0, %c128_i32 : i32
      %2 = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
      %4 = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
      %5 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %6 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %7 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %8 = tile.convert_layout %6 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %9 = tile.convert_layout %7 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %10 = tile.dot %8, %9, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %10 : tensor<128x128xf32, #mma>
      }
      tile.store %5, %4[%0, %1] : tensor<128x128xf32, #mma>, !tile.view<?x?xf32, strides = [?, 1]>
      tile.return
    }
  }
}

// -----

// A's offset pid.x % 3 * 128: how it differs between the programs is not
// known, so each loads its own A tile; B is still shared.

// CHECK-LABEL: tile.kernel @unknown_offsets
// CHECK: tile.mbarrier_alloc count 16
// CHECK: tile.tma_load {{.*}} : !tile.tensor_map<128x64xbf16, #shared>
// CHECK-NEXT: tile.tma_load {{.*}} multicast(%{{.+}}) part(%{{.+}} of 2) : !tile.tensor_map<64x64xbf16, #shared>

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @unknown_offsets [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @unknown_offsets(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) cluster(2, 1, 1) schedule<stages = 2, persistent = false, tma_store = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c3_i32 = arith.constant 3 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %pid_0 = tile.program_id y
      %0 = arith.remsi %pid, %c3_i32 : i32
      %1 = arith.muli %0, %c128_i32 : i32
      %2 = arith.muli %pid_0, %c128_i32 : i32
      %3 = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
      %4 = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
      %5 = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
      %6 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        // expected-remark @+1 {{each program of the cluster loads its own tile: how its offsets differ between the programs is not known}}
        %7 = tile.load %3[%1, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %8 = tile.load %4[%arg0, %2] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %9 = tile.convert_layout %7 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %10 = tile.convert_layout %8 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %11 = tile.dot %9, %10, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %11 : tensor<128x128xf32, #mma>
      }
      tile.store %6, %5[%1, %2] : tensor<128x128xf32, #mma>, !tile.view<?x?xf32, strides = [?, 1]>
      tile.return
    }
  }
}

// -----

// The K loop ends at m0 + 128: the programs of a cluster run it a different
// number of times, so none shares a tile (a multicast would wait for a
// program that has stopped loading). No remote arrive, no cluster barrier.

// CHECK-LABEL: tile.kernel @uneven_loop
// CHECK: tile.mbarrier_alloc count 8
// CHECK-NOT: multicast
// CHECK-NOT: cta(
// CHECK-NOT: tile.cluster_barrier
// CHECK: tile.return

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @uneven_loop [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @uneven_loop(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) cluster(2, 1, 1) schedule<stages = 2, persistent = false, tma_store = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %pid_0 = tile.program_id y
      %0 = arith.muli %pid, %c128_i32 : i32
      %1 = arith.muli %pid_0, %c128_i32 : i32
      %2 = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
      %4 = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
      %5 = arith.addi %0, %c128_i32 : i32
      // expected-remark @+1 {{each program of the cluster loads its own tiles: the programs may run this loop or one around it a different number of times}}
      %6 = scf.for %arg0 = %c0_i32 to %5 step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %7 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %8 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %9 = tile.convert_layout %7 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %10 = tile.convert_layout %8 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %11 = tile.dot %9, %10, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %11 : tensor<128x128xf32, #mma>
      }
      tile.store %6, %4[%0, %1] : tensor<128x128xf32, #mma>, !tile.view<?x?xf32, strides = [?, 1]>
      tile.return
    }
  }
}

// -----

// A persistent program over cluster tiles, as tile.gemm's cluster configs
// write it: tile t = pid / 2 of the tile loop (pid, pid + programs, ...),
// the program of rank r at row block r % 2 of it. The tile loop starts at a
// different pid in each program, yet the programs run it equally often
// (whole clusters of tiles, programs a multiple of 2): B is shared across
// tiles, A is not.

// CHECK-LABEL: tile.kernel @persistent_tiles
// CHECK: tile.mbarrier_alloc count 16
// CHECK-NEXT: tile.cluster_barrier
// CHECK: } {tile.persistent_loop}
// CHECK: tile.cluster_barrier
// CHECK-NEXT: tile.return
// WS-LABEL: tile.kernel @persistent_tiles
// WS: tile.cluster_barrier
// WS: tile.warp_specialize
// WS: tile.cluster_barrier
// WS-NEXT: tile.return

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @persistent_tiles [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @persistent_tiles(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 256) * 2) warps(8) cluster(2, 1, 1) persistent schedule<stages = 2, persistent = true, tma_store = false> {
      %c256_i32 = arith.constant 256 : i32
      %0 = arith.ceildivsi %M, %c256_i32 : i32
      %c2_i32 = arith.constant 2 : i32
      %1 = arith.muli %0, %c2_i32 : i32
      %pid = tile.program_id x
      %2 = tile.num_programs x
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c2_i32_0 = arith.constant 2 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %c256_i32_1 = arith.constant 256 : i32
      %3 = tile.cluster_rank
      %4 = arith.remsi %3, %c2_i32_0 : i32
      %5 = arith.muli %4, %c128_i32 : i32
      %6 = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
      %7 = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
      %8 = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
      scf.for %arg0 = %pid to %1 step %2  : i32 {
        %9 = arith.divsi %arg0, %c2_i32_0 : i32
        %10 = arith.muli %9, %c256_i32_1 : i32
        %11 = arith.addi %10, %5 : i32
        %12 = scf.for %arg1 = %c0_i32 to %K step %c64_i32 iter_args(%arg2 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
          %13 = tile.load %6[%11, %arg1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
          %14 = tile.load %7[%arg1, %c0_i32] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
          %15 = tile.convert_layout %13 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
          %16 = tile.convert_layout %14 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
          %17 = tile.dot %15, %16, %arg2 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
          scf.yield %17 : tensor<128x128xf32, #mma>
        }
        tile.store %12, %8[%11, %c0_i32] : tensor<128x128xf32, #mma>, !tile.view<?x?xf32, strides = [?, 1]>
      } {tile.persistent_loop}
      tile.return
    }
  }
}
