// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-warp-specialize)))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-warp-specialize)))' --remarks-filter-missed=tile-warp-specialize --remark-format=emitRemark -verify-diagnostics -o /dev/null

// A 128x128x64 GEMM block program as the pipeline leaves it before
// tile-warp-specialize on sm_90a (schedule<persistent = false, tma_store =
// false>): a 5-stage TMA ring whose copies (the prologue's and the loop's
// refill, `scf.if`s marked tile.producer) the 8 consumer warps issue
// themselves. The body becomes a tile.warp_specialize: the allocations,
// tensor maps, views and scalar code stay before it; the consumers (232
// registers: what the 40 of the producer warpgroup leave) run the program
// without the copies; a partition of 4 warps runs only the copies, in a
// copy of the K loop that carries just the ring position.

// CHECK-LABEL: tile.kernel @gemm
// CHECK:      %[[MA:.+]] = tile.make_tensor_map
// CHECK-NEXT: %[[RA:.+]] = tile.local_alloc
// CHECK-NEXT: %[[MB:.+]] = tile.make_tensor_map
// CHECK-NEXT: %[[RB:.+]] = tile.local_alloc
// CHECK-NEXT: %[[FULL:.+]] = tile.mbarrier_alloc count 1 : !tile.mbarrier<5>
// CHECK-NEXT: %[[EMPTY:.+]] = tile.mbarrier_alloc count 8 : !tile.mbarrier<5>
// CHECK-NEXT: %[[P0:.+]] = arith.cmpi sgt, %K, %c0_i32 : i32
// CHECK-NEXT: arith.cmpi sgt, %K, %c64_i32 : i32
// CHECK-NEXT: arith.cmpi sgt, %K, %c128_i32 : i32
// CHECK-NEXT: arith.cmpi sgt, %K, %c192_i32 : i32
// CHECK-NEXT: tile.warp_specialize regs(232) {
// Consumers: the ring's reads, the dots and the releases; no copies.
// CHECK-NOT:    tile.tma_load
// CHECK-NOT:    tile.mbarrier_expect_tx
// CHECK:        scf.for
// CHECK-NEXT:     tile.mbarrier_wait %[[FULL]]
// CHECK-NEXT:     tile.local_load %[[RA]]
// CHECK-NEXT:     tile.local_load %[[RB]]
// CHECK-NEXT:     tile.dot
// CHECK-NEXT:     tile.warpgroup_wait 1
// CHECK-NOT:      tile.tma_load
// CHECK:          tile.mbarrier_arrive %[[EMPTY]]
// CHECK-NOT:      tile.tma_load
// CHECK-NOT:      tile.mbarrier_expect_tx
// CHECK:          scf.yield
// CHECK:        tile.warpgroup_wait 0
// CHECK:        tile.mbarrier_arrive %[[EMPTY]]
// CHECK:        tile.store
// CHECK-NEXT: } partition warps(4) regs(40) {
// Producer: the prologue's copies, then the refills in a loop copy that
// carries the ring position only (scalar code, no tiles).
// CHECK-NOT:    tensor<
// CHECK:        scf.if %[[P0]] {
// CHECK-NEXT:     tile.mbarrier_wait %[[EMPTY]][%c0_i32], %c1_i32 : !tile.mbarrier<5>
// CHECK-NEXT:     tile.mbarrier_expect_tx %[[FULL]][%c0_i32], 32768 : !tile.mbarrier<5>
// CHECK-NEXT:     tile.tma_load %[[MA]][%{{.+}}], %[[RA]][%c0_i32], %[[FULL]][%c0_i32]
// CHECK-NEXT:     tile.tma_load %[[MB]][%{{.+}}], %[[RB]][%c0_i32], %[[FULL]][%c0_i32]
// CHECK-NEXT:   }
// CHECK-NOT:    tile.producer
// CHECK-COUNT-3: tile.mbarrier_expect_tx %[[FULL]]
// CHECK-NOT:    tensor<
// CHECK:        scf.if %[[P0]] {
// CHECK-NEXT:     scf.for %{{.+}} = %c0_i32 to %K step %c64_i32 iter_args(%{{[^ ]+}} = %c0_i32, %{{[^ ]+}} = %c0_i32) -> (i32, i32)
// CHECK-NOT:        tensor<
// CHECK:            tile.mbarrier_wait %[[EMPTY]]
// CHECK-NEXT:       tile.mbarrier_expect_tx %[[FULL]]
// CHECK-NEXT:       tile.tma_load %[[MA]]
// CHECK-NEXT:       tile.tma_load %[[MB]]
// CHECK-NEXT:     }
// CHECK-NOT:    tensor<
// CHECK-NOT:    tile.producer
// CHECK:      tile.return

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false, tma_store = false> {
      %c-1_i32 = arith.constant -1 : i32
      %c256_i32 = arith.constant 256 : i32
      %c3_i32 = arith.constant 3 : i32
      %c192_i32 = arith.constant 192 : i32
      %c2_i32 = arith.constant 2 : i32
      %c4_i32 = arith.constant 4 : i32
      %c5_i32 = arith.constant 5 : i32
      %c1_i32 = arith.constant 1 : i32
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
      %5 = tile.make_tensor_map %2 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
      %6 = tile.local_alloc : !tile.smem<5x128x64xbf16, #shared>
      %7 = tile.make_tensor_map %3 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #shared>
      %8 = tile.local_alloc : !tile.smem<5x64x128xbf16, #shared>
      %9 = tile.mbarrier_alloc count 1 : !tile.mbarrier<5>
      %10 = tile.mbarrier_alloc count 8 : !tile.mbarrier<5>
      %11 = arith.cmpi sgt, %K, %c0_i32 : i32
      scf.if %11 {
        tile.mbarrier_wait %10[%c0_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c0_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c0_i32], %6[%c0_i32], %9[%c0_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c0_i32, %1], %8[%c0_i32], %9[%c0_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %12 = arith.cmpi sgt, %K, %c64_i32 : i32
      scf.if %12 {
        tile.mbarrier_wait %10[%c1_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c1_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c64_i32], %6[%c1_i32], %9[%c1_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c64_i32, %1], %8[%c1_i32], %9[%c1_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %13 = arith.cmpi sgt, %K, %c128_i32 : i32
      scf.if %13 {
        tile.mbarrier_wait %10[%c2_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c2_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c128_i32], %6[%c2_i32], %9[%c2_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c128_i32, %1], %8[%c2_i32], %9[%c2_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %14 = arith.cmpi sgt, %K, %c192_i32 : i32
      scf.if %14 {
        tile.mbarrier_wait %10[%c3_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c3_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c192_i32], %6[%c3_i32], %9[%c3_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c192_i32, %1], %8[%c3_i32], %9[%c3_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %15 = scf.if %11 -> (tensor<128x128xf32, #mma>) {
        %18:3 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %c0_i32, %arg3 = %c0_i32) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
          tile.mbarrier_wait %9[%arg2], %arg3 : !tile.mbarrier<5>
          %23 = tile.local_load %6[%arg2] : !tile.smem<5x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
          %24 = tile.local_load %8[%arg2] : !tile.smem<5x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
          %25 = tile.dot %23, %24, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
          %26 = tile.warpgroup_wait 1, %25 : tensor<128x128xf32, #mma>
          %27 = arith.cmpi sgt, %arg0, %c0_i32 : i32
          scf.if %27 {
            %41 = arith.cmpi eq, %arg2, %c0_i32 : i32
            %42 = arith.subi %arg2, %c1_i32 : i32
            %43 = arith.select %41, %c4_i32, %42 : i32
            tile.mbarrier_arrive %10[%43] : !tile.mbarrier<5>
          }
          %28 = arith.addi %arg2, %c1_i32 : i32
          %29 = arith.cmpi eq, %28, %c5_i32 : i32
          %30 = arith.select %29, %c0_i32, %28 : i32
          %31 = arith.extui %29 : i1 to i32
          %32 = arith.xori %arg3, %31 : i32
          %33 = arith.addi %arg0, %c256_i32 : i32
          %34 = arith.addi %arg2, %c4_i32 : i32
          %35 = arith.cmpi sge, %34, %c5_i32 : i32
          %36 = arith.addi %arg2, %c-1_i32 : i32
          %37 = arith.select %35, %36, %34 : i32
          %38 = arith.extui %35 : i1 to i32
          %39 = arith.xori %arg3, %38 : i32
          %40 = arith.cmpi slt, %33, %K : i32
          scf.if %40 {
            %41 = arith.xori %39, %c1_i32 : i32
            tile.mbarrier_wait %10[%37], %41 : !tile.mbarrier<5>
            tile.mbarrier_expect_tx %9[%37], 32768 : !tile.mbarrier<5>
            tile.tma_load %5[%0, %33], %6[%37], %9[%37] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
            tile.tma_load %7[%33, %1], %8[%37], %9[%37] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
          } {tile.producer}
          scf.yield %26, %30, %32 : tensor<128x128xf32, #mma>, i32, i32
        }
        %19 = tile.warpgroup_wait 0, %18#0 : tensor<128x128xf32, #mma>
        %20 = arith.cmpi eq, %18#1, %c0_i32 : i32
        %21 = arith.subi %18#1, %c1_i32 : i32
        %22 = arith.select %20, %c4_i32, %21 : i32
        tile.mbarrier_arrive %10[%22] : !tile.mbarrier<5>
        scf.yield %19 : tensor<128x128xf32, #mma>
      } else {
        scf.yield %cst : tensor<128x128xf32, #mma>
      }
      %16 = arith.truncf %15 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %17 = tile.convert_layout %16 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked>
      tile.store %17, %4[%0, %1] : tensor<128x128xbf16, #blocked>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// The persistent form with the TMA-store epilogue and
// schedule<producer_regs = 56>: the consumers get 224 registers
// ((65536 - 56 * 128) / 256, rounded down to a multiple of 8). Both sides
// walk the tiles; the producer's tile loop carries only the ring position,
// the epilogue's store stays with the consumers.

// CHECK-LABEL: tile.kernel @gemm
// CHECK:      tile.warp_specialize regs(224) {
// CHECK-NEXT:   arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
// CHECK-NEXT:   scf.for %{{.+}} = %pid to
// CHECK:          scf.for
// CHECK:            tile.dot
// CHECK:          tile.tma_store
// CHECK:        } {tile.persistent_loop}
// CHECK-NEXT:   tile.tma_store_wait 0
// CHECK-NEXT: } partition warps(4) regs(56) {
// CHECK-NEXT:   scf.for %{{.+}} = %pid to %{{.+}} step %{{.+}} iter_args(%{{[^ ]+}} = %c0_i32, %{{[^ ]+}} = %c0_i32) -> (i32, i32)
// CHECK-NOT:    tensor<
// CHECK-NOT:    tile.tma_store
// CHECK:          tile.tma_load
// CHECK-NOT:    tensor<
// CHECK-NOT:    tile.tma_store
// CHECK:      tile.return

#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) persistent schedule<producer_regs = 56> {
      %c-1_i32 = arith.constant -1 : i32
      %c256_i32 = arith.constant 256 : i32
      %c-2_i32 = arith.constant -2 : i32
      %c192_i32 = arith.constant 192 : i32
      %c-3_i32 = arith.constant -3 : i32
      %c4_i32 = arith.constant 4 : i32
      %c3_i32 = arith.constant 3 : i32
      %c2_i32 = arith.constant 2 : i32
      %c5_i32 = arith.constant 5 : i32
      %c1_i32 = arith.constant 1 : i32
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
      %7 = tile.make_tensor_map %6 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
      %8 = tile.local_alloc : !tile.smem<1x128x128xbf16, #shared>
      %9 = tile.make_tensor_map %4 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
      %10 = tile.local_alloc : !tile.smem<5x128x64xbf16, #shared>
      %11 = tile.make_tensor_map %5 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #shared>
      %12 = tile.local_alloc : !tile.smem<5x64x128xbf16, #shared>
      %13 = tile.mbarrier_alloc count 1 : !tile.mbarrier<5>
      %14 = tile.mbarrier_alloc count 8 : !tile.mbarrier<5>
      %15:2 = scf.for %arg0 = %pid to %2 step %3 iter_args(%arg1 = %c0_i32, %arg2 = %c0_i32) -> (i32, i32)  : i32 {
        %16 = arith.remsi %arg0, %0 : i32
        %17 = arith.divsi %arg0, %0 : i32
        %18 = arith.muli %16, %c128_i32 : i32
        %19 = arith.muli %17, %c128_i32 : i32
        %20 = arith.cmpi sgt, %K, %c0_i32 : i32
        scf.if %20 {
          %43 = arith.xori %arg2, %c1_i32 : i32
          tile.mbarrier_wait %14[%arg1], %43 : !tile.mbarrier<5>
          tile.mbarrier_expect_tx %13[%arg1], 32768 : !tile.mbarrier<5>
          tile.tma_load %9[%18, %c0_i32], %10[%arg1], %13[%arg1] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
          tile.tma_load %11[%c0_i32, %19], %12[%arg1], %13[%arg1] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
        } {tile.producer}
        %21 = arith.addi %arg1, %c1_i32 : i32
        %22 = arith.cmpi eq, %21, %c5_i32 : i32
        %23 = arith.select %22, %c0_i32, %21 : i32
        %24 = arith.extui %22 : i1 to i32
        %25 = arith.xori %arg2, %24 : i32
        %26 = arith.cmpi sgt, %K, %c64_i32 : i32
        scf.if %26 {
          %43 = arith.xori %25, %c1_i32 : i32
          tile.mbarrier_wait %14[%23], %43 : !tile.mbarrier<5>
          tile.mbarrier_expect_tx %13[%23], 32768 : !tile.mbarrier<5>
          tile.tma_load %9[%18, %c64_i32], %10[%23], %13[%23] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
          tile.tma_load %11[%c64_i32, %19], %12[%23], %13[%23] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
        } {tile.producer}
        %27 = arith.addi %arg1, %c2_i32 : i32
        %28 = arith.cmpi sge, %27, %c5_i32 : i32
        %29 = arith.addi %arg1, %c-3_i32 : i32
        %30 = arith.select %28, %29, %27 : i32
        %31 = arith.extui %28 : i1 to i32
        %32 = arith.xori %arg2, %31 : i32
        %33 = arith.cmpi sgt, %K, %c128_i32 : i32
        scf.if %33 {
          %43 = arith.xori %32, %c1_i32 : i32
          tile.mbarrier_wait %14[%30], %43 : !tile.mbarrier<5>
          tile.mbarrier_expect_tx %13[%30], 32768 : !tile.mbarrier<5>
          tile.tma_load %9[%18, %c128_i32], %10[%30], %13[%30] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
          tile.tma_load %11[%c128_i32, %19], %12[%30], %13[%30] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
        } {tile.producer}
        %34 = arith.addi %arg1, %c3_i32 : i32
        %35 = arith.cmpi sge, %34, %c5_i32 : i32
        %36 = arith.addi %arg1, %c-2_i32 : i32
        %37 = arith.select %35, %36, %34 : i32
        %38 = arith.extui %35 : i1 to i32
        %39 = arith.xori %arg2, %38 : i32
        %40 = arith.cmpi sgt, %K, %c192_i32 : i32
        scf.if %40 {
          %43 = arith.xori %39, %c1_i32 : i32
          tile.mbarrier_wait %14[%37], %43 : !tile.mbarrier<5>
          tile.mbarrier_expect_tx %13[%37], 32768 : !tile.mbarrier<5>
          tile.tma_load %9[%18, %c192_i32], %10[%37], %13[%37] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
          tile.tma_load %11[%c192_i32, %19], %12[%37], %13[%37] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
        } {tile.producer}
        %41:3 = scf.if %20 -> (tensor<128x128xf32, #mma>, i32, i32) {
          %43:3 = scf.for %arg3 = %c0_i32 to %K step %c64_i32 iter_args(%arg4 = %cst, %arg5 = %arg1, %arg6 = %arg2) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
            tile.mbarrier_wait %13[%arg5], %arg6 : !tile.mbarrier<5>
            %48 = tile.local_load %10[%arg5] : !tile.smem<5x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
            %49 = tile.local_load %12[%arg5] : !tile.smem<5x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
            %50 = tile.dot %48, %49, %arg4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
            %51 = tile.warpgroup_wait 1, %50 : tensor<128x128xf32, #mma>
            %52 = arith.cmpi sgt, %arg3, %c0_i32 : i32
            scf.if %52 {
              %66 = arith.cmpi eq, %arg5, %c0_i32 : i32
              %67 = arith.subi %arg5, %c1_i32 : i32
              %68 = arith.select %66, %c4_i32, %67 : i32
              tile.mbarrier_arrive %14[%68] : !tile.mbarrier<5>
            }
            %53 = arith.addi %arg5, %c1_i32 : i32
            %54 = arith.cmpi eq, %53, %c5_i32 : i32
            %55 = arith.select %54, %c0_i32, %53 : i32
            %56 = arith.extui %54 : i1 to i32
            %57 = arith.xori %arg6, %56 : i32
            %58 = arith.addi %arg3, %c256_i32 : i32
            %59 = arith.addi %arg5, %c4_i32 : i32
            %60 = arith.cmpi sge, %59, %c5_i32 : i32
            %61 = arith.addi %arg5, %c-1_i32 : i32
            %62 = arith.select %60, %61, %59 : i32
            %63 = arith.extui %60 : i1 to i32
            %64 = arith.xori %arg6, %63 : i32
            %65 = arith.cmpi slt, %58, %K : i32
            scf.if %65 {
              %66 = arith.xori %64, %c1_i32 : i32
              tile.mbarrier_wait %14[%62], %66 : !tile.mbarrier<5>
              tile.mbarrier_expect_tx %13[%62], 32768 : !tile.mbarrier<5>
              tile.tma_load %9[%18, %58], %10[%62], %13[%62] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
              tile.tma_load %11[%58, %19], %12[%62], %13[%62] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
            } {tile.producer}
            scf.yield %51, %55, %57 : tensor<128x128xf32, #mma>, i32, i32
          }
          %44 = tile.warpgroup_wait 0, %43#0 : tensor<128x128xf32, #mma>
          %45 = arith.cmpi eq, %43#1, %c0_i32 : i32
          %46 = arith.subi %43#1, %c1_i32 : i32
          %47 = arith.select %45, %c4_i32, %46 : i32
          tile.mbarrier_arrive %14[%47] : !tile.mbarrier<5>
          scf.yield %44, %43#1, %43#2 : tensor<128x128xf32, #mma>, i32, i32
        } else {
          scf.yield %cst, %arg1, %arg2 : tensor<128x128xf32, #mma>, i32, i32
        }
        %42 = arith.truncf %41#0 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
        tile.tma_store_wait 0
        tile.barrier
        tile.local_store %42, %8[%c0_i32] : tensor<128x128xbf16, #mma>, !tile.smem<1x128x128xbf16, #shared>
        tile.fence_async_shared
        tile.barrier
        tile.tma_store %7[%18, %19], %8[%c0_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<1x128x128xbf16, #shared>
        scf.yield %41#1, %41#2 : i32, i32
      } {tile.persistent_loop}
      tile.tma_store_wait 0
      tile.return
    }
  }
}


// -----

// schedule<warp_specialize = false>: the consumer warps keep issuing the
// copies, without a remark.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.warp_specialize
// CHECK:      } {tile.producer}
// CHECK-NOT:  tile.warp_specialize

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<warp_specialize = false, persistent = false, tma_store = false> {
      %c-1_i32 = arith.constant -1 : i32
      %c256_i32 = arith.constant 256 : i32
      %c3_i32 = arith.constant 3 : i32
      %c192_i32 = arith.constant 192 : i32
      %c2_i32 = arith.constant 2 : i32
      %c4_i32 = arith.constant 4 : i32
      %c5_i32 = arith.constant 5 : i32
      %c1_i32 = arith.constant 1 : i32
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
      %5 = tile.make_tensor_map %2 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
      %6 = tile.local_alloc : !tile.smem<5x128x64xbf16, #shared>
      %7 = tile.make_tensor_map %3 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #shared>
      %8 = tile.local_alloc : !tile.smem<5x64x128xbf16, #shared>
      %9 = tile.mbarrier_alloc count 1 : !tile.mbarrier<5>
      %10 = tile.mbarrier_alloc count 8 : !tile.mbarrier<5>
      %11 = arith.cmpi sgt, %K, %c0_i32 : i32
      scf.if %11 {
        tile.mbarrier_wait %10[%c0_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c0_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c0_i32], %6[%c0_i32], %9[%c0_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c0_i32, %1], %8[%c0_i32], %9[%c0_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %12 = arith.cmpi sgt, %K, %c64_i32 : i32
      scf.if %12 {
        tile.mbarrier_wait %10[%c1_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c1_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c64_i32], %6[%c1_i32], %9[%c1_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c64_i32, %1], %8[%c1_i32], %9[%c1_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %13 = arith.cmpi sgt, %K, %c128_i32 : i32
      scf.if %13 {
        tile.mbarrier_wait %10[%c2_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c2_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c128_i32], %6[%c2_i32], %9[%c2_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c128_i32, %1], %8[%c2_i32], %9[%c2_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %14 = arith.cmpi sgt, %K, %c192_i32 : i32
      scf.if %14 {
        tile.mbarrier_wait %10[%c3_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c3_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c192_i32], %6[%c3_i32], %9[%c3_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c192_i32, %1], %8[%c3_i32], %9[%c3_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %15 = scf.if %11 -> (tensor<128x128xf32, #mma>) {
        %18:3 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %c0_i32, %arg3 = %c0_i32) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
          tile.mbarrier_wait %9[%arg2], %arg3 : !tile.mbarrier<5>
          %23 = tile.local_load %6[%arg2] : !tile.smem<5x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
          %24 = tile.local_load %8[%arg2] : !tile.smem<5x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
          %25 = tile.dot %23, %24, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
          %26 = tile.warpgroup_wait 1, %25 : tensor<128x128xf32, #mma>
          %27 = arith.cmpi sgt, %arg0, %c0_i32 : i32
          scf.if %27 {
            %41 = arith.cmpi eq, %arg2, %c0_i32 : i32
            %42 = arith.subi %arg2, %c1_i32 : i32
            %43 = arith.select %41, %c4_i32, %42 : i32
            tile.mbarrier_arrive %10[%43] : !tile.mbarrier<5>
          }
          %28 = arith.addi %arg2, %c1_i32 : i32
          %29 = arith.cmpi eq, %28, %c5_i32 : i32
          %30 = arith.select %29, %c0_i32, %28 : i32
          %31 = arith.extui %29 : i1 to i32
          %32 = arith.xori %arg3, %31 : i32
          %33 = arith.addi %arg0, %c256_i32 : i32
          %34 = arith.addi %arg2, %c4_i32 : i32
          %35 = arith.cmpi sge, %34, %c5_i32 : i32
          %36 = arith.addi %arg2, %c-1_i32 : i32
          %37 = arith.select %35, %36, %34 : i32
          %38 = arith.extui %35 : i1 to i32
          %39 = arith.xori %arg3, %38 : i32
          %40 = arith.cmpi slt, %33, %K : i32
          scf.if %40 {
            %41 = arith.xori %39, %c1_i32 : i32
            tile.mbarrier_wait %10[%37], %41 : !tile.mbarrier<5>
            tile.mbarrier_expect_tx %9[%37], 32768 : !tile.mbarrier<5>
            tile.tma_load %5[%0, %33], %6[%37], %9[%37] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
            tile.tma_load %7[%33, %1], %8[%37], %9[%37] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
          } {tile.producer}
          scf.yield %26, %30, %32 : tensor<128x128xf32, #mma>, i32, i32
        }
        %19 = tile.warpgroup_wait 0, %18#0 : tensor<128x128xf32, #mma>
        %20 = arith.cmpi eq, %18#1, %c0_i32 : i32
        %21 = arith.subi %18#1, %c1_i32 : i32
        %22 = arith.select %20, %c4_i32, %21 : i32
        tile.mbarrier_arrive %10[%22] : !tile.mbarrier<5>
        scf.yield %19 : tensor<128x128xf32, #mma>
      } else {
        scf.yield %cst : tensor<128x128xf32, #mma>
      }
      %16 = arith.truncf %15 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %17 = tile.convert_layout %16 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked>
      tile.store %17, %4[%0, %1] : tensor<128x128xbf16, #blocked>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// The same program on sm_90 (not sm_90a; the target edited): no setmaxnreg
// to give the producer warpgroup few registers. Declined, with a missed
// remark.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.warp_specialize
// CHECK:      } {tile.producer}
// CHECK-NOT:  tile.warp_specialize

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx86">] {
    // expected-remark @+1 {{the consumer warps issue the copies themselves: sm_90 has no setmaxnreg}}
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false, tma_store = false> {
      %c-1_i32 = arith.constant -1 : i32
      %c256_i32 = arith.constant 256 : i32
      %c3_i32 = arith.constant 3 : i32
      %c192_i32 = arith.constant 192 : i32
      %c2_i32 = arith.constant 2 : i32
      %c4_i32 = arith.constant 4 : i32
      %c5_i32 = arith.constant 5 : i32
      %c1_i32 = arith.constant 1 : i32
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
      %5 = tile.make_tensor_map %2 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
      %6 = tile.local_alloc : !tile.smem<5x128x64xbf16, #shared>
      %7 = tile.make_tensor_map %3 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #shared>
      %8 = tile.local_alloc : !tile.smem<5x64x128xbf16, #shared>
      %9 = tile.mbarrier_alloc count 1 : !tile.mbarrier<5>
      %10 = tile.mbarrier_alloc count 8 : !tile.mbarrier<5>
      %11 = arith.cmpi sgt, %K, %c0_i32 : i32
      scf.if %11 {
        tile.mbarrier_wait %10[%c0_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c0_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c0_i32], %6[%c0_i32], %9[%c0_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c0_i32, %1], %8[%c0_i32], %9[%c0_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %12 = arith.cmpi sgt, %K, %c64_i32 : i32
      scf.if %12 {
        tile.mbarrier_wait %10[%c1_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c1_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c64_i32], %6[%c1_i32], %9[%c1_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c64_i32, %1], %8[%c1_i32], %9[%c1_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %13 = arith.cmpi sgt, %K, %c128_i32 : i32
      scf.if %13 {
        tile.mbarrier_wait %10[%c2_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c2_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c128_i32], %6[%c2_i32], %9[%c2_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c128_i32, %1], %8[%c2_i32], %9[%c2_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %14 = arith.cmpi sgt, %K, %c192_i32 : i32
      scf.if %14 {
        tile.mbarrier_wait %10[%c3_i32], %c1_i32 : !tile.mbarrier<5>
        tile.mbarrier_expect_tx %9[%c3_i32], 32768 : !tile.mbarrier<5>
        tile.tma_load %5[%0, %c192_i32], %6[%c3_i32], %9[%c3_i32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
        tile.tma_load %7[%c192_i32, %1], %8[%c3_i32], %9[%c3_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
      } {tile.producer}
      %15 = scf.if %11 -> (tensor<128x128xf32, #mma>) {
        %18:3 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %c0_i32, %arg3 = %c0_i32) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
          tile.mbarrier_wait %9[%arg2], %arg3 : !tile.mbarrier<5>
          %23 = tile.local_load %6[%arg2] : !tile.smem<5x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
          %24 = tile.local_load %8[%arg2] : !tile.smem<5x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
          %25 = tile.dot %23, %24, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
          %26 = tile.warpgroup_wait 1, %25 : tensor<128x128xf32, #mma>
          %27 = arith.cmpi sgt, %arg0, %c0_i32 : i32
          scf.if %27 {
            %41 = arith.cmpi eq, %arg2, %c0_i32 : i32
            %42 = arith.subi %arg2, %c1_i32 : i32
            %43 = arith.select %41, %c4_i32, %42 : i32
            tile.mbarrier_arrive %10[%43] : !tile.mbarrier<5>
          }
          %28 = arith.addi %arg2, %c1_i32 : i32
          %29 = arith.cmpi eq, %28, %c5_i32 : i32
          %30 = arith.select %29, %c0_i32, %28 : i32
          %31 = arith.extui %29 : i1 to i32
          %32 = arith.xori %arg3, %31 : i32
          %33 = arith.addi %arg0, %c256_i32 : i32
          %34 = arith.addi %arg2, %c4_i32 : i32
          %35 = arith.cmpi sge, %34, %c5_i32 : i32
          %36 = arith.addi %arg2, %c-1_i32 : i32
          %37 = arith.select %35, %36, %34 : i32
          %38 = arith.extui %35 : i1 to i32
          %39 = arith.xori %arg3, %38 : i32
          %40 = arith.cmpi slt, %33, %K : i32
          scf.if %40 {
            %41 = arith.xori %39, %c1_i32 : i32
            tile.mbarrier_wait %10[%37], %41 : !tile.mbarrier<5>
            tile.mbarrier_expect_tx %9[%37], 32768 : !tile.mbarrier<5>
            tile.tma_load %5[%0, %33], %6[%37], %9[%37] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
            tile.tma_load %7[%33, %1], %8[%37], %9[%37] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
          } {tile.producer}
          scf.yield %26, %30, %32 : tensor<128x128xf32, #mma>, i32, i32
        }
        %19 = tile.warpgroup_wait 0, %18#0 : tensor<128x128xf32, #mma>
        %20 = arith.cmpi eq, %18#1, %c0_i32 : i32
        %21 = arith.subi %18#1, %c1_i32 : i32
        %22 = arith.select %20, %c4_i32, %21 : i32
        tile.mbarrier_arrive %10[%22] : !tile.mbarrier<5>
        scf.yield %19 : tensor<128x128xf32, #mma>
      } else {
        scf.yield %cst : tensor<128x128xf32, #mma>
      }
      %16 = arith.truncf %15 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %17 = tile.convert_layout %16 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked>
      tile.store %17, %4[%0, %1] : tensor<128x128xbf16, #blocked>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// A dual GEMM (SwiGLU's gate and up projections share A): two 128x256 f32
// accumulators, 256 registers a consumer thread by tile-warp-specialize's
// estimate (288 with the reserve), more than the 232 the default producer
// budget of 40 leaves: the producer drops to setmaxnreg's minimum of 24 and
// the consumers get 240.

// CHECK-LABEL: tile.kernel @dual_gemm
// CHECK:      tile.warp_specialize regs(240) {
// CHECK:      } partition warps(4) regs(24) {

#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#shared1 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @dual_gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @dual_gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B1: !tile.ptr<bf16> {tile.align = 16 : i64}, %B2: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32, %K: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128)) warps(8) schedule<persistent = false, tma_store = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %0 = arith.muli %pid, %c128_i32 : i32
      %1 = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
      %2 = tile.make_view %B1[%K, 256] strides [256, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %B2[%K, 256] strides [256, 1] : !tile.ptr<bf16>
      %4 = tile.make_view %C[%M, 256] strides [256, 1] : !tile.ptr<f32>
      %5 = tile.make_tensor_map %2 : !tile.view<?x256xbf16, strides = [256, 1]> -> !tile.tensor_map<64x64xbf16, #shared>
      %6 = tile.local_alloc : !tile.smem<3x64x256xbf16, #shared>
      %7 = tile.mbarrier_alloc count 1 : !tile.mbarrier<3>
      %8 = tile.mbarrier_alloc count 8 : !tile.mbarrier<3>
      %9 = tile.make_tensor_map %3 : !tile.view<?x256xbf16, strides = [256, 1]> -> !tile.tensor_map<64x64xbf16, #shared>
      %10 = tile.local_alloc : !tile.smem<3x64x256xbf16, #shared>
      %11 = tile.mbarrier_alloc count 1 : !tile.mbarrier<3>
      %12 = tile.mbarrier_alloc count 8 : !tile.mbarrier<3>
      %c0_i32_0 = arith.constant 0 : i32
      %c0_i32_1 = arith.constant 0 : i32
      %13 = arith.muli %c64_i32, %c0_i32_1 : i32
      %14 = arith.addi %c0_i32, %13 : i32
      %15 = arith.cmpi slt, %14, %K : i32
      scf.if %15 {
        %c1_i32_9 = arith.constant 1 : i32
        %41 = arith.xori %c0_i32_0, %c1_i32_9 : i32
        tile.mbarrier_wait %8[%c0_i32_0], %41 : !tile.mbarrier<3>
        tile.mbarrier_expect_tx %7[%c0_i32_0], 32768 : !tile.mbarrier<3>
        tile.tma_load %5[%14, %c0_i32], %6[%c0_i32_0], %7[%c0_i32_0] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<3x64x256xbf16, #shared>, !tile.mbarrier<3>
        tile.mbarrier_wait %12[%c0_i32_0], %41 : !tile.mbarrier<3>
        tile.mbarrier_expect_tx %11[%c0_i32_0], 32768 : !tile.mbarrier<3>
        tile.tma_load %9[%14, %c0_i32], %10[%c0_i32_0], %11[%c0_i32_0] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<3x64x256xbf16, #shared>, !tile.mbarrier<3>
      } {tile.producer}
      %c1_i32 = arith.constant 1 : i32
      %16 = arith.muli %c64_i32, %c1_i32 : i32
      %17 = arith.addi %c0_i32, %16 : i32
      %c1_i32_2 = arith.constant 1 : i32
      %18 = arith.addi %c0_i32_0, %c1_i32_2 : i32
      %c3_i32 = arith.constant 3 : i32
      %19 = arith.cmpi eq, %18, %c3_i32 : i32
      %c0_i32_3 = arith.constant 0 : i32
      %20 = arith.select %19, %c0_i32_3, %18 : i32
      %21 = arith.extui %19 : i1 to i32
      %22 = arith.xori %c0_i32_0, %21 : i32
      %23 = arith.cmpi slt, %17, %K : i32
      scf.if %23 {
        %c1_i32_9 = arith.constant 1 : i32
        %41 = arith.xori %22, %c1_i32_9 : i32
        tile.mbarrier_wait %8[%20], %41 : !tile.mbarrier<3>
        tile.mbarrier_expect_tx %7[%20], 32768 : !tile.mbarrier<3>
        tile.tma_load %5[%17, %c0_i32], %6[%20], %7[%20] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<3x64x256xbf16, #shared>, !tile.mbarrier<3>
        tile.mbarrier_wait %12[%20], %41 : !tile.mbarrier<3>
        tile.mbarrier_expect_tx %11[%20], 32768 : !tile.mbarrier<3>
        tile.tma_load %9[%17, %c0_i32], %10[%20], %11[%20] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<3x64x256xbf16, #shared>, !tile.mbarrier<3>
      } {tile.producer}
      %24 = tile.local_alloc : !tile.smem<2x128x64xbf16, #shared1>
      %c1_i32_4 = arith.constant 1 : i32
      %25 = arith.subi %K, %c0_i32 : i32
      %26 = arith.subi %25, %c1_i32_4 : i32
      %27 = arith.divsi %26, %c64_i32 : i32
      %28 = arith.muli %27, %c64_i32 : i32
      %29 = arith.addi %c0_i32, %28 : i32
      %c0_i32_5 = arith.constant 0 : i32
      %30 = arith.cmpi sge, %0, %c0_i32_5 : i32
      %c128_i32_6 = arith.constant 128 : i32
      %31 = arith.addi %0, %c128_i32_6 : i32
      %32 = arith.cmpi sle, %31, %M : i32
      %33 = arith.andi %30, %32 : i1
      %c0_i32_7 = arith.constant 0 : i32
      %34 = arith.cmpi sge, %c0_i32, %c0_i32_7 : i32
      %c64_i32_8 = arith.constant 64 : i32
      %35 = arith.addi %29, %c64_i32_8 : i32
      %36 = arith.cmpi sle, %35, %K : i32
      %37 = arith.andi %34, %36 : i1
      %38 = arith.andi %33, %37 : i1
      %39:4 = scf.if %38 -> (tensor<128x256xf32, #mma>, tensor<128x256xf32, #mma>, i32, i32) {
        %c0_i32_9 = arith.constant 0 : i32
        %41 = arith.muli %c64_i32, %c0_i32_9 : i32
        %42 = arith.addi %c0_i32, %41 : i32
        %c0_i32_10 = arith.constant 0 : i32
        %43 = arith.cmpi slt, %42, %K : i32
        scf.if %43 {
          tile.async_copy %1[%0, %42], %24[%c0_i32_10] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<2x128x64xbf16, #shared1>
        }
        tile.async_commit
        %c0_i32_11 = arith.constant 0 : i32
        %c1_i32_12 = arith.constant 1 : i32
        %44:6 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %cst, %arg3 = %c0_i32_0, %arg4 = %c0_i32_0, %arg5 = %c0_i32_11, %arg6 = %c1_i32_12) -> (tensor<128x256xf32, #mma>, tensor<128x256xf32, #mma>, i32, i32, i32, i32)  : i32 {
          tile.async_wait 0
          tile.barrier
          %c1_i32_13 = arith.constant 1 : i32
          %45 = arith.muli %c64_i32, %c1_i32_13 : i32
          %46 = arith.addi %arg0, %45 : i32
          %47 = arith.cmpi slt, %46, %K : i32
          scf.if %47 {
            tile.async_copy %1[%0, %46], %24[%arg6] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<2x128x64xbf16, #shared1>
          }
          tile.async_commit
          %48 = tile.local_load %24[%arg5] : !tile.smem<2x128x64xbf16, #shared1> -> tensor<128x64xbf16, #dot_op>
          tile.mbarrier_wait %7[%arg3], %arg4 : !tile.mbarrier<3>
          %49 = tile.local_load %6[%arg3] : !tile.smem<3x64x256xbf16, #shared> -> tensor<64x256xbf16, #shared>
          %50 = tile.dot %48, %49, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x256xbf16, #shared> -> tensor<128x256xf32, #mma>
          %51 = tile.warpgroup_wait 0, %50 : tensor<128x256xf32, #mma>
          tile.mbarrier_arrive %8[%arg3] : !tile.mbarrier<3>
          %52 = tile.local_load %24[%arg5] : !tile.smem<2x128x64xbf16, #shared1> -> tensor<128x64xbf16, #dot_op>
          tile.mbarrier_wait %11[%arg3], %arg4 : !tile.mbarrier<3>
          %53 = tile.local_load %10[%arg3] : !tile.smem<3x64x256xbf16, #shared> -> tensor<64x256xbf16, #shared>
          %54 = tile.dot %52, %53, %arg2 : tensor<128x64xbf16, #dot_op>, tensor<64x256xbf16, #shared> -> tensor<128x256xf32, #mma>
          %55 = tile.warpgroup_wait 0, %54 : tensor<128x256xf32, #mma>
          tile.mbarrier_arrive %12[%arg3] : !tile.mbarrier<3>
          %c1_i32_14 = arith.constant 1 : i32
          %56 = arith.addi %arg3, %c1_i32_14 : i32
          %c3_i32_15 = arith.constant 3 : i32
          %57 = arith.cmpi eq, %56, %c3_i32_15 : i32
          %c0_i32_16 = arith.constant 0 : i32
          %58 = arith.select %57, %c0_i32_16, %56 : i32
          %59 = arith.extui %57 : i1 to i32
          %60 = arith.xori %arg4, %59 : i32
          %c2_i32 = arith.constant 2 : i32
          %61 = arith.muli %c64_i32, %c2_i32 : i32
          %62 = arith.addi %arg0, %61 : i32
          %c2_i32_17 = arith.constant 2 : i32
          %63 = arith.addi %arg3, %c2_i32_17 : i32
          %c3_i32_18 = arith.constant 3 : i32
          %64 = arith.cmpi sge, %63, %c3_i32_18 : i32
          %65 = arith.subi %63, %c3_i32_18 : i32
          %66 = arith.select %64, %65, %63 : i32
          %67 = arith.extui %64 : i1 to i32
          %68 = arith.xori %arg4, %67 : i32
          %69 = arith.cmpi slt, %62, %K : i32
          scf.if %69 {
            %c1_i32_25 = arith.constant 1 : i32
            %76 = arith.xori %68, %c1_i32_25 : i32
            tile.mbarrier_wait %8[%66], %76 : !tile.mbarrier<3>
            tile.mbarrier_expect_tx %7[%66], 32768 : !tile.mbarrier<3>
            tile.tma_load %5[%62, %c0_i32], %6[%66], %7[%66] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<3x64x256xbf16, #shared>, !tile.mbarrier<3>
            tile.mbarrier_wait %12[%66], %76 : !tile.mbarrier<3>
            tile.mbarrier_expect_tx %11[%66], 32768 : !tile.mbarrier<3>
            tile.tma_load %9[%62, %c0_i32], %10[%66], %11[%66] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<3x64x256xbf16, #shared>, !tile.mbarrier<3>
          } {tile.producer}
          %c1_i32_19 = arith.constant 1 : i32
          %70 = arith.addi %arg5, %c1_i32_19 : i32
          %c2_i32_20 = arith.constant 2 : i32
          %71 = arith.cmpi eq, %70, %c2_i32_20 : i32
          %c0_i32_21 = arith.constant 0 : i32
          %72 = arith.select %71, %c0_i32_21, %70 : i32
          %c1_i32_22 = arith.constant 1 : i32
          %73 = arith.addi %arg6, %c1_i32_22 : i32
          %c2_i32_23 = arith.constant 2 : i32
          %74 = arith.cmpi eq, %73, %c2_i32_23 : i32
          %c0_i32_24 = arith.constant 0 : i32
          %75 = arith.select %74, %c0_i32_24, %73 : i32
          scf.yield %51, %55, %58, %60, %72, %75 : tensor<128x256xf32, #mma>, tensor<128x256xf32, #mma>, i32, i32, i32, i32
        }
        tile.async_wait 0
        tile.barrier
        scf.yield %44#0, %44#1, %44#2, %44#3 : tensor<128x256xf32, #mma>, tensor<128x256xf32, #mma>, i32, i32
      } else {
        %c0_i32_9 = arith.constant 0 : i32
        %41 = arith.muli %c64_i32, %c0_i32_9 : i32
        %42 = arith.addi %c0_i32, %41 : i32
        %c0_i32_10 = arith.constant 0 : i32
        %43 = arith.cmpi slt, %42, %K : i32
        scf.if %43 {
          tile.async_copy %1[%0, %42], %24[%c0_i32_10] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<2x128x64xbf16, #shared1>
        }
        tile.async_commit
        %c0_i32_11 = arith.constant 0 : i32
        %c1_i32_12 = arith.constant 1 : i32
        %44:6 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %cst, %arg3 = %c0_i32_0, %arg4 = %c0_i32_0, %arg5 = %c0_i32_11, %arg6 = %c1_i32_12) -> (tensor<128x256xf32, #mma>, tensor<128x256xf32, #mma>, i32, i32, i32, i32)  : i32 {
          tile.async_wait 0
          tile.barrier
          %c1_i32_13 = arith.constant 1 : i32
          %45 = arith.muli %c64_i32, %c1_i32_13 : i32
          %46 = arith.addi %arg0, %45 : i32
          %47 = arith.cmpi slt, %46, %K : i32
          scf.if %47 {
            tile.async_copy %1[%0, %46], %24[%arg6] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<2x128x64xbf16, #shared1>
          }
          tile.async_commit
          %48 = tile.local_load %24[%arg5] : !tile.smem<2x128x64xbf16, #shared1> -> tensor<128x64xbf16, #dot_op>
          tile.mbarrier_wait %7[%arg3], %arg4 : !tile.mbarrier<3>
          %49 = tile.local_load %6[%arg3] : !tile.smem<3x64x256xbf16, #shared> -> tensor<64x256xbf16, #shared>
          %50 = tile.dot %48, %49, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x256xbf16, #shared> -> tensor<128x256xf32, #mma>
          %51 = tile.warpgroup_wait 0, %50 : tensor<128x256xf32, #mma>
          tile.mbarrier_arrive %8[%arg3] : !tile.mbarrier<3>
          %52 = tile.local_load %24[%arg5] : !tile.smem<2x128x64xbf16, #shared1> -> tensor<128x64xbf16, #dot_op>
          tile.mbarrier_wait %11[%arg3], %arg4 : !tile.mbarrier<3>
          %53 = tile.local_load %10[%arg3] : !tile.smem<3x64x256xbf16, #shared> -> tensor<64x256xbf16, #shared>
          %54 = tile.dot %52, %53, %arg2 : tensor<128x64xbf16, #dot_op>, tensor<64x256xbf16, #shared> -> tensor<128x256xf32, #mma>
          %55 = tile.warpgroup_wait 0, %54 : tensor<128x256xf32, #mma>
          tile.mbarrier_arrive %12[%arg3] : !tile.mbarrier<3>
          %c1_i32_14 = arith.constant 1 : i32
          %56 = arith.addi %arg3, %c1_i32_14 : i32
          %c3_i32_15 = arith.constant 3 : i32
          %57 = arith.cmpi eq, %56, %c3_i32_15 : i32
          %c0_i32_16 = arith.constant 0 : i32
          %58 = arith.select %57, %c0_i32_16, %56 : i32
          %59 = arith.extui %57 : i1 to i32
          %60 = arith.xori %arg4, %59 : i32
          %c2_i32 = arith.constant 2 : i32
          %61 = arith.muli %c64_i32, %c2_i32 : i32
          %62 = arith.addi %arg0, %61 : i32
          %c2_i32_17 = arith.constant 2 : i32
          %63 = arith.addi %arg3, %c2_i32_17 : i32
          %c3_i32_18 = arith.constant 3 : i32
          %64 = arith.cmpi sge, %63, %c3_i32_18 : i32
          %65 = arith.subi %63, %c3_i32_18 : i32
          %66 = arith.select %64, %65, %63 : i32
          %67 = arith.extui %64 : i1 to i32
          %68 = arith.xori %arg4, %67 : i32
          %69 = arith.cmpi slt, %62, %K : i32
          scf.if %69 {
            %c1_i32_25 = arith.constant 1 : i32
            %76 = arith.xori %68, %c1_i32_25 : i32
            tile.mbarrier_wait %8[%66], %76 : !tile.mbarrier<3>
            tile.mbarrier_expect_tx %7[%66], 32768 : !tile.mbarrier<3>
            tile.tma_load %5[%62, %c0_i32], %6[%66], %7[%66] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<3x64x256xbf16, #shared>, !tile.mbarrier<3>
            tile.mbarrier_wait %12[%66], %76 : !tile.mbarrier<3>
            tile.mbarrier_expect_tx %11[%66], 32768 : !tile.mbarrier<3>
            tile.tma_load %9[%62, %c0_i32], %10[%66], %11[%66] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<3x64x256xbf16, #shared>, !tile.mbarrier<3>
          } {tile.producer}
          %c1_i32_19 = arith.constant 1 : i32
          %70 = arith.addi %arg5, %c1_i32_19 : i32
          %c2_i32_20 = arith.constant 2 : i32
          %71 = arith.cmpi eq, %70, %c2_i32_20 : i32
          %c0_i32_21 = arith.constant 0 : i32
          %72 = arith.select %71, %c0_i32_21, %70 : i32
          %c1_i32_22 = arith.constant 1 : i32
          %73 = arith.addi %arg6, %c1_i32_22 : i32
          %c2_i32_23 = arith.constant 2 : i32
          %74 = arith.cmpi eq, %73, %c2_i32_23 : i32
          %c0_i32_24 = arith.constant 0 : i32
          %75 = arith.select %74, %c0_i32_24, %73 : i32
          scf.yield %51, %55, %58, %60, %72, %75 : tensor<128x256xf32, #mma>, tensor<128x256xf32, #mma>, i32, i32, i32, i32
        }
        tile.async_wait 0
        tile.barrier
        scf.yield %44#0, %44#1, %44#2, %44#3 : tensor<128x256xf32, #mma>, tensor<128x256xf32, #mma>, i32, i32
      }
      %40 = arith.mulf %39#0, %39#1 : tensor<128x256xf32, #mma>
      tile.store %40, %4[%0, %c0_i32] : tensor<128x256xf32, #mma>, !tile.view<?x256xf32, strides = [256, 1]>
      tile.return
    }
  }
}

