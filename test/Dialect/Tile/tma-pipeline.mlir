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
// CHECK:        tile.store
// CHECK-NEXT:   scf.yield %[[LOOP]]#1, %[[LOOP]]#2 : i32, i32
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

