// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-tma-pipeline)))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-tma-pipeline)))' --remarks-filter-missed=tile-tma-pipeline --remark-format=emitRemark -verify-diagnostics -o /dev/null

// A 128x128x64 GEMM block program as the pipeline leaves it before
// tile-tma-pipeline on sm_90a (schedule<persistent = false, tma_store =
// false>): both loads of the K loop feed the wgmma in place through the
// 128-byte swizzled #shared layout. They become TMA copies into a ring as
// deep as shared memory allows (5 stages of 32 KiB), sharing one full
// (count 1) and one empty (count 8: one arrival per consumer warp) barrier
// per stage: a prologue of 4 producer copies, then per iteration a wait on
// full[s], in-place reads of the stage, the dot and its wait, the release
// of empty[s] and the copies 4 iterations ahead into the stage released
// last. expect_tx arms full[w] with the bytes of both tiles (128x64 +
// 64x128 bf16 = 32768).

// CHECK-LABEL: tile.kernel @gemm
// CHECK:      %[[VA:.+]] = tile.make_view %A
// CHECK:      %[[VB:.+]] = tile.make_view %B
// CHECK:      %[[MA:.+]] = tile.make_tensor_map %[[VA]] : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
// CHECK-NEXT: %[[RA:.+]] = tile.local_alloc : !tile.smem<5x128x64xbf16, #shared>
// CHECK-NEXT: %[[MB:.+]] = tile.make_tensor_map %[[VB]] : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #shared>
// CHECK-NEXT: %[[RB:.+]] = tile.local_alloc : !tile.smem<5x64x128xbf16, #shared>
// CHECK-NEXT: %[[FULL:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<5>
// CHECK-NEXT: %[[EMPTY:.+]] = tile.mbarrier_alloc count 8 : !tile.mbarrier<5>
// CHECK-NEXT: %[[S0:.+]] = arith.constant 0 : i32
// Prologue: the copies of iteration 0 into stage 0 (waiting for the stage
// to be free: parity 0 ^ 1), then those of iterations 1 to 3.
// CHECK:      scf.if %{{.+}} {
// CHECK:        %[[FREE:.+]] = arith.xori %[[S0]], %{{.+}} : i32
// CHECK-NEXT:   tile.mbarrier_wait %[[EMPTY]][%[[S0]]], %[[FREE]] : !tile.mbarrier<5>
// CHECK-NEXT:   tile.mbarrier_expect_tx %[[FULL]][%[[S0]]], 32768 : !tile.mbarrier<5>
// CHECK-NEXT:   tile.tma_load %[[MA]][%{{.+}}, %{{.+}}], %[[RA]][%[[S0]]], %[[FULL]][%[[S0]]] :
// CHECK-NEXT:   tile.tma_load %[[MB]][%{{.+}}, %{{.+}}], %[[RB]][%[[S0]]], %[[FULL]][%[[S0]]] :
// CHECK-NEXT: } {tile.producer}
// CHECK-COUNT-3: } {tile.producer}
// CHECK-NOT:  tile.producer
// The loop carries the ring position (stage, parity) after the accumulator.
// CHECK:      %[[LOOP:.+]]:3 = scf.for %[[K:[^ ]+]] = %c0_i32 to %K step %c64_i32 iter_args(%[[ACC:[^ ]+]] = %cst, %[[S:[^ ]+]] = %[[S0]], %[[PH:[^ ]+]] = %[[S0]]) -> (tensor<128x128xf32, #mma>, i32, i32)
// CHECK-NOT:    tile.load
// CHECK:        tile.mbarrier_wait %[[FULL]][%[[S]]], %[[PH]] : !tile.mbarrier<5>
// CHECK-NEXT:   %[[A:.+]] = tile.local_load %[[RA]][%[[S]]] : !tile.smem<5x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
// CHECK-NEXT:   %[[B:.+]] = tile.local_load %[[RB]][%[[S]]] : !tile.smem<5x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
// CHECK-NEXT:   %[[D:.+]] = tile.dot %[[A]], %[[B]], %[[ACC]]
// CHECK-NEXT:   %[[DW:.+]] = tile.warpgroup_wait 0, %[[D]] : tensor<128x128xf32, #mma>
// CHECK-NEXT:   tile.mbarrier_arrive %[[EMPTY]][%[[S]]] : !tile.mbarrier<5>
// The next stage (with a parity flip at the wrap) and the refill 4 (S - 1)
// iterations ahead.
// CHECK:        %[[WRAP:.+]] = arith.cmpi eq, %{{.+}}, %c5_i32{{.*}} : i32
// CHECK:        %[[C4:.+]] = arith.constant 4 : i32
// CHECK-NEXT:   %[[DIST:.+]] = arith.muli %c64_i32, %[[C4]] : i32
// CHECK-NEXT:   %[[AHEAD:.+]] = arith.addi %[[K]], %[[DIST]] : i32
// CHECK:        %[[LIVE:.+]] = arith.cmpi slt, %[[AHEAD]], %K : i32
// CHECK-NEXT:   scf.if %[[LIVE]] {
// CHECK:          tile.mbarrier_wait %[[EMPTY]][%[[W:.+]]], %{{.+}} : !tile.mbarrier<5>
// CHECK-NEXT:     tile.mbarrier_expect_tx %[[FULL]][%[[W]]], 32768 : !tile.mbarrier<5>
// CHECK-NEXT:     tile.tma_load %[[MA]][%{{.+}}, %[[AHEAD]]], %[[RA]][%[[W]]], %[[FULL]][%[[W]]] :
// CHECK-NEXT:     tile.tma_load %[[MB]][%[[AHEAD]], %{{.+}}], %[[RB]][%[[W]]], %[[FULL]][%[[W]]] :
// CHECK-NEXT:   } {tile.producer}
// CHECK-NEXT:   scf.yield %[[DW]], %{{.+}}, %{{.+}} : tensor<128x128xf32, #mma>, i32, i32
// CHECK:      arith.truncf %[[LOOP]]#0
// CHECK-NOT:  tile.load
// CHECK:      tile.return

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false, tma_store = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %pid_0 = tile.program_id y
      %0 = arith.muli %pid, %c128_i32 : i32
      %1 = arith.muli %pid_0, %c128_i32 : i32
      %2 = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
      %4 = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
      %5 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %8 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %9 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %10 = tile.convert_layout %8 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %11 = tile.convert_layout %9 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %12 = tile.dot %10, %11, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %12 : tensor<128x128xf32, #mma>
      }
      %6 = arith.truncf %5 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %7 = tile.convert_layout %6 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked1>
      tile.store %7, %4[%0, %1] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// The persistent form (tile-persistent ran), with schedule<stages = 2>:
// the rings and barriers are allocated once, before the tile loop, and the
// tile loop carries the ring position from one tile's K loop to the next
// (the next tile's prologue continues the barriers' phases). Two stages:
// one prologue copy per tile, the refill one iteration ahead.

// CHECK-LABEL: tile.kernel @gemm
// CHECK:      %[[RA:.+]] = tile.local_alloc : !tile.smem<2x128x64xbf16, #shared>
// CHECK:      %[[RB:.+]] = tile.local_alloc : !tile.smem<2x64x128xbf16, #shared>
// CHECK-NEXT: %[[FULL:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
// CHECK-NEXT: %[[EMPTY:.+]] = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[TILES:.+]]:2 = scf.for %{{.+}} = %pid to %{{.+}} step %{{.+}} iter_args(%[[TS:[^ ]+]] = %[[ZERO]], %[[TPH:[^ ]+]] = %[[ZERO]]) -> (i32, i32)
// CHECK:        scf.if
// CHECK:          tile.mbarrier_wait %[[EMPTY]][%[[TS]]]
// CHECK-NEXT:     tile.mbarrier_expect_tx %[[FULL]][%[[TS]]], 32768 : !tile.mbarrier<2>
// CHECK-COUNT-2:  tile.tma_load
// CHECK-NEXT:   } {tile.producer}
// CHECK-NOT:    tile.producer
// CHECK:        %[[LOOP:.+]]:3 = scf.for %{{.+}} = %c0_i32 to %K step %c64_i32 iter_args(%{{[^ ]+}} = %cst, %[[S:[^ ]+]] = %[[TS]], %[[PH:[^ ]+]] = %[[TPH]])
// CHECK:          tile.mbarrier_wait %[[FULL]][%[[S]]], %[[PH]] : !tile.mbarrier<2>
// CHECK:          tile.mbarrier_arrive %[[EMPTY]][%[[S]]] : !tile.mbarrier<2>
// CHECK:          %[[DIST:.+]] = arith.muli %c64_i32, %c1_i32_{{[0-9]+}} : i32
// CHECK-NEXT:     %[[AHEAD:.+]] = arith.addi %{{.+}}, %[[DIST]] : i32
// CHECK:          arith.cmpi slt, %[[AHEAD]], %K : i32
// CHECK:          } {tile.producer}
// The next tile's position follows from the K loop's trip count (not from
// the loop's results): stage (s + n) mod 2, the parity flipped per wrap,
// computed where the tile loop passes it on.
// CHECK:        tile.store
// CHECK-NEXT:   %[[SPAN:.+]] = arith.subi %K, %c0_i32 : i32
// CHECK-NEXT:   %[[CEIL:.+]] = arith.ceildivsi %[[SPAN]], %c64_i32 : i32
// CHECK:        %[[TRIPS:.+]] = arith.maxsi %[[CEIL]], %{{.+}} : i32
// CHECK-NEXT:   %[[T:.+]] = arith.addi %[[TS]], %[[TRIPS]] : i32
// CHECK:        %[[NS:.+]] = arith.remui %[[T]], %c2_i32 : i32
// CHECK-NEXT:   %[[WRAPS:.+]] = arith.divui %[[T]], %c2_i32 : i32
// CHECK:        %[[ODD:.+]] = arith.andi %[[WRAPS]], %{{.+}} : i32
// CHECK-NEXT:   %[[NPH:.+]] = arith.xori %[[TPH]], %[[ODD]] : i32
// CHECK-NEXT:   scf.yield %[[NS]], %[[NPH]] : i32, i32
// CHECK-NEXT: } {tile.persistent_loop}

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) persistent schedule<stages = 2, tma_store = false> {
      %c64_i32 = arith.constant 64 : i32
      %c0_i32 = arith.constant 0 : i32
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %c128_i32 = arith.constant 128 : i32
      %0 = arith.ceildivsi %M, %c128_i32 : i32
      %1 = arith.ceildivsi %N, %c128_i32 : i32
      %2 = arith.muli %0, %1 : i32
      %pid = tile.program_id x
      %3 = tile.num_programs x
      %4 = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
      %5 = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
      %6 = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
      scf.for %arg0 = %pid to %2 step %3  : i32 {
        %7 = arith.remsi %arg0, %0 : i32
        %8 = arith.divsi %arg0, %0 : i32
        %9 = arith.muli %7, %c128_i32 : i32
        %10 = arith.muli %8, %c128_i32 : i32
        %11 = scf.for %arg1 = %c0_i32 to %K step %c64_i32 iter_args(%arg2 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
          %14 = tile.load %4[%9, %arg1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
          %15 = tile.load %5[%arg1, %10] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
          %16 = tile.convert_layout %14 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
          %17 = tile.convert_layout %15 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
          %18 = tile.dot %16, %17, %arg2 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
          scf.yield %18 : tensor<128x128xf32, #mma>
        }
        %12 = arith.truncf %11 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
        %13 = tile.convert_layout %12 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked1>
        tile.store %13, %6[%9, %10] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      } {tile.persistent_loop}
      tile.return
    }
  }
}


// -----

// Without tile.align on %A, tile-assign-layouts keeps A's tile in registers
// (the wgmma A operand from registers): only B's load, read in place, is a
// TMA copy. With 16 KiB a stage the ring is as deep as the pass goes (8).
// A's load stays in the loop (tile-pipeline's cp.async ring may take it).

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.make_tensor_map %{{.+}} : {{.*}} -> !tile.tensor_map<128x64xbf16
// CHECK:      %[[MB:.+]] = tile.make_tensor_map %{{.+}} : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #shared>
// CHECK-NEXT: %[[RB:.+]] = tile.local_alloc : !tile.smem<8x64x128xbf16, #shared>
// CHECK-NEXT: %[[FULL:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<8>
// CHECK-NEXT: tile.mbarrier_alloc count 8 : !tile.mbarrier<8>
// CHECK:      tile.mbarrier_expect_tx %[[FULL]][%{{.+}}], 16384 : !tile.mbarrier<8>
// CHECK-NEXT: tile.tma_load %[[MB]]
// CHECK-NEXT: } {tile.producer}
// CHECK-COUNT-6: } {tile.producer}
// CHECK-NOT:  tile.producer
// CHECK:      scf.for
// CHECK-NEXT:   %[[TA:.+]] = tile.load %{{.+}} : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
// CHECK-NEXT:   %[[A:.+]] = tile.convert_layout %[[TA]] : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #dot_op>
// CHECK-NEXT:   tile.mbarrier_wait %[[FULL]]
// CHECK-NEXT:   %[[B:.+]] = tile.local_load %[[RB]]
// CHECK-NEXT:   tile.dot %[[A]], %[[B]], %{{.+}} : tensor<128x64xbf16, #dot_op>, tensor<64x128xbf16, #shared>
// CHECK-NEXT:   tile.warpgroup_wait 0

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false, tma_store = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %pid_0 = tile.program_id y
      %0 = arith.muli %pid, %c128_i32 : i32
      %1 = arith.muli %pid_0, %c128_i32 : i32
      %2 = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
      %4 = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
      %5 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %8 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %9 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %10 = tile.convert_layout %8 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #dot_op>
        %11 = tile.convert_layout %9 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %12 = tile.dot %10, %11, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %12 : tensor<128x128xf32, #mma>
      }
      %6 = arith.truncf %5 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %7 = tile.convert_layout %6 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked1>
      tile.store %7, %4[%0, %1] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// The layouts assumed TMA for both operands, but %A lost its tile.align:
// TMA cannot serve A's view, so the loop keeps its loads (both of them: a
// ring serves the loads one dot reads together), with a missed remark.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.make_tensor_map
// CHECK-NOT:  tile.mbarrier_alloc
// CHECK:      scf.for
// CHECK-NEXT:   tile.load
// CHECK-NEXT:   tile.load
// CHECK-NOT:  tile.tma_load

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false, tma_store = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %pid_0 = tile.program_id y
      %0 = arith.muli %pid, %c128_i32 : i32
      %1 = arith.muli %pid_0, %c128_i32 : i32
      %2 = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
      %4 = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
      // expected-remark @+1 {{loop left to cp.async: TMA needs a 16-byte aligned base; annotate 'A'}}
      %5 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %8 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %9 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %10 = tile.convert_layout %8 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %11 = tile.convert_layout %9 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %12 = tile.dot %10, %11, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %12 : tensor<128x128xf32, #mma>
      }
      %6 = arith.truncf %5 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %7 = tile.convert_layout %6 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked1>
      tile.store %7, %4[%0, %1] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// schedule<tma = false>: the pass leaves the kernel to tile-pipeline,
// without a remark.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.make_tensor_map
// CHECK-NOT:  tile.tma_load
// CHECK:      scf.for
// CHECK-NEXT:   tile.load
// CHECK-NEXT:   tile.load
// CHECK-NOT:  tile.tma_load

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<tma = false, persistent = false, tma_store = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %pid_0 = tile.program_id y
      %0 = arith.muli %pid, %c128_i32 : i32
      %1 = arith.muli %pid_0, %c128_i32 : i32
      %2 = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
      %4 = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
      %5 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %8 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %9 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %10 = tile.convert_layout %8 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %11 = tile.convert_layout %9 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %12 = tile.dot %10, %11, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %12 : tensor<128x128xf32, #mma>
      }
      %6 = arith.truncf %5 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %7 = tile.convert_layout %6 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked1>
      tile.store %7, %4[%0, %1] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// The attention block program (examples/attention_block_bf16.mlir, head dim
// 128, not persistent) after tile-tma-store: O leaves through a staging
// buffer that only the epilogue, after the key loop, uses. Q, loaded once
// for the loop's dots, takes that buffer (FlashAttention-3 stores O through
// Q's buffer): one 32 KB buffer instead of two.

// CHECK-LABEL: tile.kernel @attention_block_bf16
// CHECK: %[[BUF:.*]] = tile.local_alloc : !tile.smem<1x128x128xbf16, #shared>
// CHECK: tile.tma_load %{{.*}}, %[[BUF]][%{{.*}}], %{{.*}} : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<1x128x128xbf16, #shared>
// CHECK-NOT: tile.local_alloc : !tile.smem<1x128x128xbf16
// CHECK: scf.for
// CHECK: tile.local_store %{{.*}}, %[[BUF]]
// CHECK: tile.tma_store %{{.*}}, %[[BUF]]
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#shared1 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#slice = #tile.slice<dim = 1, parent = #mma>
#slice1 = #tile.slice<dim = 0, parent = #mma>
#slice2 = #tile.slice<dim = 1, parent = #dot_op>
module attributes {gpu.container_module} {
  gpu.module @attention_block_bf16 [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @attention_block_bf16(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: i32, %H: i32, %S: i32, %sb: i32 {tile.divisibility = 8 : i64}, %sh: i32 {tile.divisibility = 8 : i64}, %qk_scale: f32) grid(ceildiv(%S, 128), %H, %B) warps(8) schedule<persistent = false> {
      %cst = arith.constant dense<1.000000e+00> : tensor<128xf32, #slice>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice2>
      %cst_1 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %cst_3 = arith.constant dense<0xFF800000> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %pid_4 = tile.program_id y
      %pid_5 = tile.program_id z
      %0 = arith.muli %pid, %c128_i32 : i32
      %1 = tile.make_view %Q[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
      %2 = tile.make_view %K[%B, %H, 128, %S] strides [%sb, %sh, 1, 128] : !tile.ptr<bf16>
      %3 = tile.make_view %V[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
      %4 = tile.make_view %O[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
      %5 = tile.load %1[%pid_5, %pid_4, %0, %c0_i32] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16, #blocked>
      %6 = arith.divsi %S, %c128_i32 : i32
      %7 = arith.muli %6, %c128_i32 : i32
      %8 = tile.range 0 to 128 : tensor<128xi32, #slice1>
      %9 = tile.splat %S : tensor<128x128xi32, #mma>
      %10 = tile.splat %qk_scale : tensor<128x128xf32, #mma>
      %11 = tile.splat %qk_scale : tensor<128xf32, #slice>
      %12 = tile.convert_layout %5 : tensor<128x128xbf16, #blocked> -> tensor<128x128xbf16, #shared>
      %13:3 = scf.for %arg0 = %c0_i32 to %S step %c128_i32 iter_args(%arg1 = %cst_2, %arg2 = %cst_1, %arg3 = %cst_0) -> (tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice2>)  : i32 {
        %22 = tile.load %2[%pid_5, %pid_4, %c0_i32, %arg0] : !tile.view<?x?x128x?xbf16, strides = [?, ?, 1, 128]> -> tensor<128x128xbf16, #blocked1>
        %23 = tile.load %3[%pid_5, %pid_4, %arg0, %c0_i32] : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> tensor<128x128xbf16, #blocked>
        %24 = tile.convert_layout %22 : tensor<128x128xbf16, #blocked1> -> tensor<128x128xbf16, #shared1>
        %25 = tile.dot %12, %24, %cst_2 : tensor<128x128xbf16, #shared>, tensor<128x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
        %26 = arith.cmpi sge, %arg0, %7 : i32
        %27 = scf.if %26 -> (tensor<128x128xf32, #mma>) {
          %49 = tile.splat %arg0 : tensor<128xi32, #slice1>
          %50 = arith.addi %8, %49 : tensor<128xi32, #slice1>
          %51 = tile.expand_dims %50 axis = 0 : tensor<128xi32, #slice1> -> tensor<1x128xi32, #mma>
          %52 = tile.broadcast %51 : tensor<1x128xi32, #mma> -> tensor<128x128xi32, #mma>
          %53 = arith.cmpi slt, %52, %9 : tensor<128x128xi32, #mma>
          %54 = arith.select %53, %25, %cst_3 : tensor<128x128xi1, #mma>, tensor<128x128xf32, #mma>
          scf.yield %54 : tensor<128x128xf32, #mma>
        } else {
          scf.yield %25 : tensor<128x128xf32, #mma>
        }
        %28 = tile.reduce max %27 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
        %29 = arith.mulf %28, %11 : tensor<128xf32, #slice>
        %30 = arith.maximumf %arg2, %29 : tensor<128xf32, #slice>
        %31 = arith.subf %arg2, %30 : tensor<128xf32, #slice>
        %32 = math.exp2 %31 fastmath<afn> : tensor<128xf32, #slice>
        %33 = tile.expand_dims %30 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
        %34 = tile.broadcast %33 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
        %35 = arith.negf %34 : tensor<128x128xf32, #mma>
        %36 = math.fma %27, %10, %35 : tensor<128x128xf32, #mma>
        %37 = tile.convert_layout %36 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
        %38 = math.exp2 %37 fastmath<afn> : tensor<128x128xf32, #dot_op>
        %39 = tile.reduce sum %38 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
        %40 = tile.convert_layout %32 : tensor<128xf32, #slice> -> tensor<128xf32, #slice2>
        %41 = arith.mulf %arg3, %40 : tensor<128xf32, #slice2>
        %42 = arith.addf %41, %39 : tensor<128xf32, #slice2>
        %43 = tile.expand_dims %32 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
        %44 = tile.broadcast %43 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
        %45 = arith.mulf %arg1, %44 : tensor<128x128xf32, #mma>
        %46 = arith.truncf %38 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
        %47 = tile.convert_layout %23 : tensor<128x128xbf16, #blocked> -> tensor<128x128xbf16, #shared>
        %48 = tile.dot %46, %47, %45 : tensor<128x128xbf16, #dot_op>, tensor<128x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %48, %30, %42 : tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice2>
      }
      %14 = tile.convert_layout %13#2 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
      %15 = arith.divf %cst, %14 : tensor<128xf32, #slice>
      %16 = tile.expand_dims %15 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
      %17 = tile.broadcast %16 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
      %18 = arith.mulf %13#0, %17 : tensor<128x128xf32, #mma>
      %19 = arith.truncf %18 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %20 = tile.make_tensor_map %4 : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %21 = tile.local_alloc : !tile.smem<1x128x128xbf16, #shared>
      %c0_i32_6 = arith.constant 0 : i32
      tile.tma_store_wait 0
      tile.barrier
      tile.local_store %19, %21[%c0_i32_6] : tensor<128x128xbf16, #mma>, !tile.smem<1x128x128xbf16, #shared>
      tile.fence_async_shared
      tile.barrier
      tile.tma_store %20[%pid_5, %pid_4, %0, %c0_i32], %21[%c0_i32_6] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<1x128x128xbf16, #shared>
      tile.tma_store_wait 0
      tile.return
    }
  }
}

// -----

// The persistent attention program (tile.attention, head dim 64, after
// tile-persistent and tile-tma-store): Q is loaded per tile into a
// two-stage ring that the key loop's dots read. O's staging buffer goes:
// O is staged in Q's stage (FlashAttention-3's scheme), with no wait for an
// earlier store before the write, and the stage is released at the start
// of the next tile, once its store has read it. The K/V position carried to
// the next tile comes from the key loop's trip count.

// CHECK-LABEL: tile.kernel @attention_bf16_d64
// CHECK-NOT:  tile.local_alloc : !tile.smem<1x128x64xbf16
// CHECK:      %[[QR:.+]] = tile.local_alloc : !tile.smem<2x128x64xbf16, #shared>
// CHECK-NEXT: %[[QF:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
// CHECK-NEXT: %[[QE:.+]] = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
// CHECK-NOT:  tile.local_alloc : !tile.smem<1x128x64xbf16
// CHECK:      scf.for %[[T:[^ ]+]] = %pid to %{{.+}} step %{{.+}} iter_args(%[[QS:[^ ]+]] = %{{.+}}, %[[QP:[^ ]+]] = %{{.+}}, %[[KS:[^ ]+]] = %{{.+}}, %[[KP:[^ ]+]] = %{{.+}})
// CHECK:        %[[LATER:.+]] = arith.cmpi ne, %[[T]], %pid : i32
// CHECK-NEXT:   scf.if %[[LATER]] {
// CHECK-NEXT:     tile.tma_store_wait 0
// CHECK-NEXT:     tile.barrier
// CHECK:          %[[FIRST:.+]] = arith.cmpi eq, %[[QS]], %{{.+}} : i32
// CHECK:          %[[BACK:.+]] = arith.subi %[[QS]], %{{.+}} : i32
// CHECK:          %[[PREV:.+]] = arith.select %[[FIRST]], %{{.+}}, %[[BACK]] : i32
// CHECK-NEXT:     tile.mbarrier_arrive %[[QE]][%[[PREV]]] : !tile.mbarrier<2>
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.mbarrier_wait %[[QF]][%[[QS]]], %[[QP]] : !tile.mbarrier<2>
// CHECK:        %[[KEYS:.+]]:5 = scf.for
// CHECK:        } {tile.producer}
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
// CHECK:      tile.warpgroup_wait 0
// CHECK-NOT:  tile.mbarrier_arrive %[[QE]]
// CHECK-NOT:  tile.tma_store_wait
// CHECK:      tile.barrier
// CHECK-NEXT: tile.local_store %{{.+}}, %[[QR]][%[[QS]]] : tensor<128x64xbf16, #mma>, !tile.smem<2x128x64xbf16, #shared>
// CHECK:      tile.tma_store %{{.+}}, %[[QR]][%[[QS]]] :
// CHECK-NOT:  tile.mbarrier_arrive %[[QE]]
// CHECK:      %[[SPAN:.+]] = arith.subi %SK, %c0_i32 : i32
// CHECK:      %[[KT:.+]] = arith.addi %[[KS]], %{{.+}} : i32
// CHECK:      %[[NKS:.+]] = arith.remui %[[KT]], %{{.+}} : i32
// CHECK:      %[[NKP:.+]] = arith.xori %[[KP]], %{{.+}} : i32
// CHECK-NEXT: scf.yield %{{.+}}, %{{.+}}, %[[NKS]], %[[NKP]] : i32, i32, i32, i32
// CHECK:      } {tile.persistent_loop}
// CHECK-NEXT: tile.tma_store_wait 0
#blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked2 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#shared1 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#slice = #tile.slice<dim = 1, parent = #mma>
#slice1 = #tile.slice<dim = 0, parent = #mma>
#slice2 = #tile.slice<dim = 1, parent = #dot_op>
module attributes {gpu.container_module} {
  gpu.module @attention_bf16_d64 [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @attention_bf16_d64(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<bf16> {tile.align = 16 : i64}, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32 {tile.divisibility = 8 : i64}, %q_head: i32 {tile.divisibility = 8 : i64}, %kv_batch: i32 {tile.divisibility = 8 : i64}, %kv_head: i32 {tile.divisibility = 8 : i64}, %lse_batch: i32) grid(ceildiv(%SQ, 128) * %H * %B) warps(8) persistent schedule<stages = 2, tma = true, async_wgmma = true, warp_specialize = true, producer_regs = 40, consumer_regs = 232, persistent = true, tma_store = true, pingpong = true> {
      %c128_i32 = arith.constant 128 : i32
      %0 = arith.ceildivsi %SQ, %c128_i32 : i32
      %1 = arith.muli %0, %H : i32
      %2 = arith.muli %1, %B : i32
      %pid = tile.program_id x
      %3 = tile.num_programs x
      %cst = arith.constant dense<0.693147182> : tensor<128xf32, #slice>
      %cst_0 = arith.constant dense<1.000000e+00> : tensor<128xf32, #slice>
      %cst_1 = arith.constant dense<0.180336878> : tensor<128x128xf32, #mma>
      %cst_2 = arith.constant dense<0.180336878> : tensor<128xf32, #slice>
      %cst_3 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %cst_4 = arith.constant dense<0xFF800000> : tensor<128x128xf32, #mma>
      %cst_5 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
      %cst_6 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
      %cst_7 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c128_i32_8 = arith.constant 128 : i32
      %4 = tile.make_view %Q[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
      %5 = tile.make_view %V[%B, %HK, %SK, 64] strides [%kv_batch, %kv_head, 64, 1] : !tile.ptr<bf16>
      %6 = tile.make_view %O[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
      %7 = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
      %8 = tile.make_view %K[%B, %HK, 64, %SK] strides [%kv_batch, %kv_head, 1, 64] : !tile.ptr<bf16>
      %9 = arith.divsi %SK, %c128_i32_8 : i32
      %10 = arith.muli %9, %c128_i32_8 : i32
      %11 = tile.range 0 to 128 : tensor<128xi32, #slice1>
      %12 = tile.splat %SK : tensor<128x128xi32, #mma>
      %cst_9 = arith.constant dense<0.693147182> : tensor<128xf32, #blocked>
      %13 = tile.make_tensor_map %6 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %14 = tile.local_alloc : !tile.smem<1x128x64xbf16, #shared>
      scf.for %arg0 = %pid to %2 step %3  : i32 {
        %15 = arith.remsi %arg0, %0 : i32
        %16 = arith.divsi %arg0, %0 : i32
        %17 = arith.remsi %16, %H : i32
        %18 = arith.divsi %16, %H : i32
        %19 = arith.muli %15, %c128_i32_8 : i32
        %20 = arith.divsi %H, %HK : i32
        %21 = arith.divsi %17, %20 : i32
        %22 = tile.load %4[%18, %17, %19, %c0_i32] : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> tensor<128x64xbf16, #blocked1>
        %23 = tile.convert_layout %22 : tensor<128x64xbf16, #blocked1> -> tensor<128x64xbf16, #shared>
        %24:3 = scf.for %arg1 = %c0_i32 to %SK step %c128_i32_8 iter_args(%arg2 = %cst_7, %arg3 = %cst_6, %arg4 = %cst_5) -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>)  : i32 {
          %36 = tile.load %8[%18, %21, %c0_i32, %arg1] : !tile.view<?x?x64x?xbf16, strides = [?, ?, 1, 64]> -> tensor<64x128xbf16, #blocked2>
          %37 = tile.load %5[%18, %21, %arg1, %c0_i32] : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> tensor<128x64xbf16, #blocked1>
          %38 = tile.convert_layout %36 : tensor<64x128xbf16, #blocked2> -> tensor<64x128xbf16, #shared1>
          %39 = tile.dot %23, %38, %cst_3 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
          %40 = arith.cmpi sge, %arg1, %10 : i32
          %41 = scf.if %40 -> (tensor<128x128xf32, #mma>) {
            %64 = tile.splat %arg1 : tensor<128xi32, #slice1>
            %65 = arith.addi %11, %64 : tensor<128xi32, #slice1>
            %66 = tile.expand_dims %65 axis = 0 : tensor<128xi32, #slice1> -> tensor<1x128xi32, #mma>
            %67 = tile.broadcast %66 : tensor<1x128xi32, #mma> -> tensor<128x128xi32, #mma>
            %68 = arith.cmpi slt, %67, %12 : tensor<128x128xi32, #mma>
            %69 = arith.select %68, %39, %cst_4 : tensor<128x128xi1, #mma>, tensor<128x128xf32, #mma>
            scf.yield %69 : tensor<128x128xf32, #mma>
          } else {
            scf.yield %39 : tensor<128x128xf32, #mma>
          }
          %42 = tile.reduce max %41 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
          %43 = arith.mulf %42, %cst_2 : tensor<128xf32, #slice>
          %44 = arith.maximumf %arg3, %43 : tensor<128xf32, #slice>
          %45 = scf.if %40 -> (tensor<128xf32, #slice>) {
            %64 = arith.cmpf oeq, %44, %cst_6 : tensor<128xf32, #slice>
            %65 = arith.select %64, %cst_5, %44 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
            scf.yield %65 : tensor<128xf32, #slice>
          } else {
            scf.yield %44 : tensor<128xf32, #slice>
          }
          %46 = arith.subf %arg3, %45 : tensor<128xf32, #slice>
          %47 = math.exp2 %46 fastmath<afn> : tensor<128xf32, #slice>
          %48 = arith.negf %45 : tensor<128xf32, #slice>
          %49 = tile.expand_dims %48 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
          %50 = tile.broadcast %49 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
          %51 = math.fma %41, %cst_1, %50 : tensor<128x128xf32, #mma>
          %52 = tile.convert_layout %51 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
          %53 = math.exp2 %52 fastmath<afn> : tensor<128x128xf32, #dot_op>
          %54 = tile.reduce sum %53 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
          %55 = arith.mulf %arg4, %47 : tensor<128xf32, #slice>
          %56 = tile.convert_layout %54 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
          %57 = arith.addf %55, %56 : tensor<128xf32, #slice>
          %58 = arith.truncf %53 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
          %59 = tile.expand_dims %47 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
          %60 = tile.broadcast %59 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
          %61 = arith.mulf %arg2, %60 : tensor<128x64xf32, #mma>
          %62 = tile.convert_layout %37 : tensor<128x64xbf16, #blocked1> -> tensor<128x64xbf16, #shared>
          %63 = tile.dot %58, %62, %61 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
          scf.yield %63, %44, %57 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
        }
        %25 = arith.cmpf oeq, %24#2, %cst_5 : tensor<128xf32, #slice>
        %26 = arith.select %25, %cst_0, %24#2 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
        %27 = arith.divf %cst_0, %26 : tensor<128xf32, #slice>
        %28 = tile.expand_dims %27 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
        %29 = tile.broadcast %28 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
        %30 = arith.mulf %24#0, %29 : tensor<128x64xf32, #mma>
        %31 = arith.truncf %30 : tensor<128x64xf32, #mma> to tensor<128x64xbf16, #mma>
        %c0_i32_10 = arith.constant 0 : i32
        tile.tma_store_wait 0
        tile.barrier
        tile.local_store %31, %14[%c0_i32_10] : tensor<128x64xbf16, #mma>, !tile.smem<1x128x64xbf16, #shared>
        tile.fence_async_shared
        tile.barrier
        tile.tma_store %13[%18, %17, %19, %c0_i32], %14[%c0_i32_10] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<1x128x64xbf16, #shared>
        %32 = math.log2 %24#2 : tensor<128xf32, #slice>
        %33 = arith.addf %24#1, %32 : tensor<128xf32, #slice>
        %34 = tile.convert_layout %33 : tensor<128xf32, #slice> -> tensor<128xf32, #blocked>
        %35 = arith.mulf %34, %cst_9 : tensor<128xf32, #blocked>
        tile.store %35, %7[%18, %17, %19] : tensor<128xf32, #blocked>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
      } {tile.persistent_loop}
      tile.tma_store_wait 0
      tile.return
    }
  }
}


// -----

// A dual GEMM (two products of one X tile, each with its own weights): the
// X tile, which both dots read in place (tile-assign-layouts converted it
// once per dot), is one TMA copy in the ring stage the three loads share;
// the stage is released once both dots have retired.

// CHECK-LABEL: tile.kernel @dual
// CHECK-COUNT-3: tile.make_tensor_map
// CHECK:     %[[FULL:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<[[S:[0-9]+]]>
// CHECK:     %[[EMPTY:.+]] = tile.mbarrier_alloc count 4 : !tile.mbarrier<[[S]]>
// CHECK-NOT: tile.mbarrier_alloc
// CHECK:     scf.for
// CHECK:       tile.mbarrier_wait %[[FULL]]
// CHECK:       %[[X:.+]] = tile.local_load
// CHECK:       %[[D1:.+]] = tile.dot %[[X]], %{{.+}}, %{{.+}}
// CHECK-NEXT:  tile.warpgroup_wait 0, %[[D1]]
// CHECK:       %[[D2:.+]] = tile.dot %[[X]], %{{.+}}, %{{.+}}
// CHECK-NEXT:  tile.warpgroup_wait 0, %[[D2]]
// CHECK-NEXT:  tile.mbarrier_arrive %[[EMPTY]]
// CHECK:       tile.tma_load
// CHECK:       tile.tma_load
// CHECK:       tile.tma_load
// CHECK-NOT:   tile.tma_load
// CHECK:       scf.yield
module attributes {gpu.container_module} {
  gpu.module @dual [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @dual(%X: !tile.ptr<bf16> {tile.align = 16 : i64}, %W1: !tile.ptr<bf16> {tile.align = 16 : i64}, %W2: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %N: i32, %K: i32 {tile.divisibility = 8 : i64}) grid(1) warps(4) schedule<warp_specialize = false, persistent = false, tma_store = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.make_view %X[64, %K] strides [%K, 1] : !tile.ptr<bf16>
      %1 = tile.make_view %W1[%K, 64] strides [1, %K] : !tile.ptr<bf16>
      %2 = tile.make_view %W2[%K, 64] strides [1, %K] : !tile.ptr<bf16>
      %3 = tile.make_view %C[64, 64] strides [64, 1] : !tile.ptr<f32>
      %4:2 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %cst) -> (tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>, tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>)  : i32 {
        %6 = tile.load %0[%c0_i32, %arg0] : !tile.view<64x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
        %7 = tile.load %1[%arg0, %c0_i32] : !tile.view<?x64xbf16, strides = [1, ?]> -> tensor<64x64xbf16, #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>>
        %8 = tile.load %2[%arg0, %c0_i32] : !tile.view<?x64xbf16, strides = [1, ?]> -> tensor<64x64xbf16, #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>>
        %9 = tile.convert_layout %6 : tensor<64x64xbf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>
        %10 = tile.convert_layout %7 : tensor<64x64xbf16, #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>> -> tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>
        %11 = tile.dot %9, %10, %arg1 : tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>> -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
        %12 = tile.convert_layout %6 : tensor<64x64xbf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>> -> tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>
        %13 = tile.convert_layout %8 : tensor<64x64xbf16, #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>> -> tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>
        %14 = tile.dot %12, %13, %arg2 : tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>> -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
        scf.yield %11, %14 : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>, tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
      }
      %5 = arith.mulf %4#0, %4#1 : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
      tile.store %5, %3[%c0_i32, %c0_i32] : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>, !tile.view<64x64xf32, strides = [64, 1]>
      tile.return
    }
  }
}
