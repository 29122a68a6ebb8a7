// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-async-wgmma)))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-async-wgmma)))' --remarks-filter-missed=tile-async-wgmma --remark-format=emitRemark -verify-diagnostics -o /dev/null

// A 128x128x64 GEMM block program as the pipeline leaves it before
// tile-async-wgmma on sm_90a (schedule<persistent = false, tma_store =
// false>): a 5-stage TMA ring, the dot followed by `tile.warpgroup_wait 0`
// and the release of its stage. The wait lets one group stay in flight
// (`tile.warpgroup_wait 1`); the stage is released one iteration later, in
// a branch on the iteration not being the first (the previous stage,
// s == 0 ? 4 : s - 1); the loop sits in a branch on it running at all,
// followed by the drain (`tile.warpgroup_wait 0` of the accumulator) and
// the release of the last stage.

// CHECK-LABEL: tile.kernel @gemm
// CHECK:      %[[EMPTY:.+]] = tile.mbarrier_alloc count 8 : !tile.mbarrier<5>
// CHECK:      %[[RAN:.+]] = arith.cmpi slt, %c0_i32, %K : i32
// CHECK-NEXT: %[[IF:.+]]:3 = scf.if %[[RAN]] -> (tensor<128x128xf32, #mma>, i32, i32) {
// CHECK-NEXT:   %[[LOOP:.+]]:3 = scf.for %[[K:[^ ]+]] = %c0_i32 to %K step %c64_i32 iter_args(%{{[^ ]+}} = %cst, %[[S:[^ ]+]] = %c0_i32, %{{[^ ]+}} = %c0_i32) -> (tensor<128x128xf32, #mma>, i32, i32)
// CHECK:          %[[D:.+]] = tile.dot
// CHECK-NEXT:     %[[W:.+]] = tile.warpgroup_wait 1, %[[D]] : tensor<128x128xf32, #mma>
// CHECK-NEXT:     %[[NOTFIRST:.+]] = arith.cmpi sgt, %[[K]], %c0_i32 : i32
// CHECK-NEXT:     scf.if %[[NOTFIRST]] {
// CHECK-NEXT:       %[[C0:.+]] = arith.constant 0 : i32
// CHECK-NEXT:       %[[WRAP:.+]] = arith.cmpi eq, %[[S]], %[[C0]] : i32
// CHECK-NEXT:       %[[C1:.+]] = arith.constant 1 : i32
// CHECK-NEXT:       %[[DEC:.+]] = arith.subi %[[S]], %[[C1]] : i32
// CHECK-NEXT:       %[[C4:.+]] = arith.constant 4 : i32
// CHECK-NEXT:       %[[PREV:.+]] = arith.select %[[WRAP]], %[[C4]], %[[DEC]] : i32
// CHECK-NEXT:       tile.mbarrier_arrive %[[EMPTY]][%[[PREV]]] : !tile.mbarrier<5>
// CHECK-NEXT:     }
// CHECK-NOT:      tile.mbarrier_arrive
// CHECK:          } {tile.producer}
// CHECK-NEXT:     scf.yield %[[W]], %{{.+}}, %{{.+}} : tensor<128x128xf32, #mma>, i32, i32
// CHECK-NEXT:   }
// CHECK-NEXT:   %[[DRAIN:.+]] = tile.warpgroup_wait 0, %[[LOOP]]#0 : tensor<128x128xf32, #mma>
// CHECK-NEXT:   %[[LC0:.+]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[LWRAP:.+]] = arith.cmpi eq, %[[LOOP]]#1, %[[LC0]] : i32
// CHECK-NEXT:   %[[LC1:.+]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[LDEC:.+]] = arith.subi %[[LOOP]]#1, %[[LC1]] : i32
// CHECK-NEXT:   %[[LC4:.+]] = arith.constant 4 : i32
// CHECK-NEXT:   %[[LAST:.+]] = arith.select %[[LWRAP]], %[[LC4]], %[[LDEC]] : i32
// CHECK-NEXT:   tile.mbarrier_arrive %[[EMPTY]][%[[LAST]]] : !tile.mbarrier<5>
// CHECK-NEXT:   scf.yield %[[DRAIN]], %[[LOOP]]#1, %[[LOOP]]#2 : tensor<128x128xf32, #mma>, i32, i32
// CHECK-NEXT: } else {
// CHECK-NEXT:   scf.yield %cst, %c0_i32, %c0_i32 : tensor<128x128xf32, #mma>, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: arith.truncf %[[IF]]#0

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
      %15:3 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %c0_i32, %arg3 = %c0_i32) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
        tile.mbarrier_wait %9[%arg2], %arg3 : !tile.mbarrier<5>
        %18 = tile.local_load %6[%arg2] : !tile.smem<5x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
        %19 = tile.local_load %8[%arg2] : !tile.smem<5x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
        %20 = tile.dot %18, %19, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        %21 = tile.warpgroup_wait 0, %20 : tensor<128x128xf32, #mma>
        tile.mbarrier_arrive %10[%arg2] : !tile.mbarrier<5>
        %22 = arith.addi %arg2, %c1_i32 : i32
        %23 = arith.cmpi eq, %22, %c5_i32 : i32
        %24 = arith.select %23, %c0_i32, %22 : i32
        %25 = arith.extui %23 : i1 to i32
        %26 = arith.xori %arg3, %25 : i32
        %27 = arith.addi %arg0, %c256_i32 : i32
        %28 = arith.addi %arg2, %c4_i32 : i32
        %29 = arith.cmpi sge, %28, %c5_i32 : i32
        %30 = arith.addi %arg2, %c-1_i32 : i32
        %31 = arith.select %29, %30, %28 : i32
        %32 = arith.extui %29 : i1 to i32
        %33 = arith.xori %arg3, %32 : i32
        %34 = arith.cmpi slt, %27, %K : i32
        scf.if %34 {
          %35 = arith.xori %33, %c1_i32 : i32
          tile.mbarrier_wait %10[%31], %35 : !tile.mbarrier<5>
          tile.mbarrier_expect_tx %9[%31], 32768 : !tile.mbarrier<5>
          tile.tma_load %5[%0, %27], %6[%31], %9[%31] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
          tile.tma_load %7[%27, %1], %8[%31], %9[%31] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
        } {tile.producer}
        scf.yield %21, %24, %26 : tensor<128x128xf32, #mma>, i32, i32
      }
      %16 = arith.truncf %15#0 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %17 = tile.convert_layout %16 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked>
      tile.store %17, %4[%0, %1] : tensor<128x128xbf16, #blocked>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// schedule<async_wgmma = false> keeps every wait at 0 pending, without a
// remark.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.warpgroup_wait 1
// CHECK:      scf.for
// CHECK:        tile.dot
// CHECK-NEXT:   tile.warpgroup_wait 0
// CHECK-NEXT:   tile.mbarrier_arrive
// CHECK-NOT:  tile.warpgroup_wait

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<async_wgmma = false, persistent = false, tma_store = false> {
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
      %15:3 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %c0_i32, %arg3 = %c0_i32) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
        tile.mbarrier_wait %9[%arg2], %arg3 : !tile.mbarrier<5>
        %18 = tile.local_load %6[%arg2] : !tile.smem<5x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
        %19 = tile.local_load %8[%arg2] : !tile.smem<5x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
        %20 = tile.dot %18, %19, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        %21 = tile.warpgroup_wait 0, %20 : tensor<128x128xf32, #mma>
        tile.mbarrier_arrive %10[%arg2] : !tile.mbarrier<5>
        %22 = arith.addi %arg2, %c1_i32 : i32
        %23 = arith.cmpi eq, %22, %c5_i32 : i32
        %24 = arith.select %23, %c0_i32, %22 : i32
        %25 = arith.extui %23 : i1 to i32
        %26 = arith.xori %arg3, %25 : i32
        %27 = arith.addi %arg0, %c256_i32 : i32
        %28 = arith.addi %arg2, %c4_i32 : i32
        %29 = arith.cmpi sge, %28, %c5_i32 : i32
        %30 = arith.addi %arg2, %c-1_i32 : i32
        %31 = arith.select %29, %30, %28 : i32
        %32 = arith.extui %29 : i1 to i32
        %33 = arith.xori %arg3, %32 : i32
        %34 = arith.cmpi slt, %27, %K : i32
        scf.if %34 {
          %35 = arith.xori %33, %c1_i32 : i32
          tile.mbarrier_wait %10[%31], %35 : !tile.mbarrier<5>
          tile.mbarrier_expect_tx %9[%31], 32768 : !tile.mbarrier<5>
          tile.tma_load %5[%0, %27], %6[%31], %9[%31] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
          tile.tma_load %7[%27, %1], %8[%31], %9[%31] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
        } {tile.producer}
        scf.yield %21, %24, %26 : tensor<128x128xf32, #mma>, i32, i32
      }
      %16 = arith.truncf %15#0 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %17 = tile.convert_layout %16 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked>
      tile.store %17, %4[%0, %1] : tensor<128x128xbf16, #blocked>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// The accumulator decays every step (acc = 0.5 * (acc + a b)): it is
// rewritten between the dots, so a group in flight would race with the
// multiply. The loop keeps its order, with a missed remark.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.warpgroup_wait 1
// CHECK:      scf.for
// CHECK:        %[[W:.+]] = tile.warpgroup_wait 0
// CHECK-NEXT:   tile.mbarrier_arrive
// CHECK-NEXT:   arith.mulf %[[W]]
// CHECK-NOT:  tile.warpgroup_wait 1

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
      %cst_0 = arith.constant dense<5.000000e-01> : tensor<128x128xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c128_i32 = arith.constant 128 : i32
      %pid = tile.program_id x
      %pid_1 = tile.program_id y
      %0 = arith.muli %pid, %c128_i32 : i32
      %1 = arith.muli %pid_1, %c128_i32 : i32
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
      // expected-remark @+1 {{wgmma waits stay at 0 pending: the accumulator is read or rewritten between the dots}}
      %15:3 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %c0_i32, %arg3 = %c0_i32) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
        tile.mbarrier_wait %9[%arg2], %arg3 : !tile.mbarrier<5>
        %18 = tile.local_load %6[%arg2] : !tile.smem<5x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
        %19 = tile.local_load %8[%arg2] : !tile.smem<5x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
        %20 = tile.dot %18, %19, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        %21 = tile.warpgroup_wait 0, %20 : tensor<128x128xf32, #mma>
        tile.mbarrier_arrive %10[%arg2] : !tile.mbarrier<5>
        %22 = arith.mulf %21, %cst_0 : tensor<128x128xf32, #mma>
        %23 = arith.addi %arg2, %c1_i32 : i32
        %24 = arith.cmpi eq, %23, %c5_i32 : i32
        %25 = arith.select %24, %c0_i32, %23 : i32
        %26 = arith.extui %24 : i1 to i32
        %27 = arith.xori %arg3, %26 : i32
        %28 = arith.addi %arg0, %c256_i32 : i32
        %29 = arith.addi %arg2, %c4_i32 : i32
        %30 = arith.cmpi sge, %29, %c5_i32 : i32
        %31 = arith.addi %arg2, %c-1_i32 : i32
        %32 = arith.select %30, %31, %29 : i32
        %33 = arith.extui %30 : i1 to i32
        %34 = arith.xori %arg3, %33 : i32
        %35 = arith.cmpi slt, %28, %K : i32
        scf.if %35 {
          %36 = arith.xori %34, %c1_i32 : i32
          tile.mbarrier_wait %10[%32], %36 : !tile.mbarrier<5>
          tile.mbarrier_expect_tx %9[%32], 32768 : !tile.mbarrier<5>
          tile.tma_load %5[%0, %28], %6[%32], %9[%32] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<5x128x64xbf16, #shared>, !tile.mbarrier<5>
          tile.tma_load %7[%28, %1], %8[%32], %9[%32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<5x64x128xbf16, #shared>, !tile.mbarrier<5>
        } {tile.producer}
        scf.yield %22, %25, %27 : tensor<128x128xf32, #mma>, i32, i32
      }
      %16 = arith.truncf %15#0 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %17 = tile.convert_layout %16 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked>
      tile.store %17, %4[%0, %1] : tensor<128x128xbf16, #blocked>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// Without tile.align on %A, the A tile is loaded into registers in the loop
// (only B is on a TMA ring): the next iteration would rewrite the registers
// a group in flight still reads, so the wait stays at 0 pending.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.warpgroup_wait 1
// CHECK:      scf.for
// CHECK:        tile.dot %{{.+}} : tensor<128x64xbf16, #dot_op>, tensor<64x128xbf16, #shared>
// CHECK-NEXT:   tile.warpgroup_wait 0
// CHECK-NEXT:   tile.mbarrier_arrive
// CHECK-NOT:  tile.warpgroup_wait 1

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false, tma_store = false> {
      %c-1_i32 = arith.constant -1 : i32
      %c448_i32 = arith.constant 448 : i32
      %c6_i32 = arith.constant 6 : i32
      %c384_i32 = arith.constant 384 : i32
      %c5_i32 = arith.constant 5 : i32
      %c320_i32 = arith.constant 320 : i32
      %c4_i32 = arith.constant 4 : i32
      %c256_i32 = arith.constant 256 : i32
      %c3_i32 = arith.constant 3 : i32
      %c192_i32 = arith.constant 192 : i32
      %c2_i32 = arith.constant 2 : i32
      %c7_i32 = arith.constant 7 : i32
      %c8_i32 = arith.constant 8 : i32
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
      %5 = tile.make_tensor_map %3 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #shared>
      %6 = tile.local_alloc : !tile.smem<8x64x128xbf16, #shared>
      %7 = tile.mbarrier_alloc count 1 : !tile.mbarrier<8>
      %8 = tile.mbarrier_alloc count 8 : !tile.mbarrier<8>
      %9 = arith.cmpi sgt, %K, %c0_i32 : i32
      scf.if %9 {
        tile.mbarrier_wait %8[%c0_i32], %c1_i32 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %7[%c0_i32], 16384 : !tile.mbarrier<8>
        tile.tma_load %5[%c0_i32, %1], %6[%c0_i32], %7[%c0_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<8x64x128xbf16, #shared>, !tile.mbarrier<8>
      } {tile.producer}
      %10 = arith.cmpi sgt, %K, %c64_i32 : i32
      scf.if %10 {
        tile.mbarrier_wait %8[%c1_i32], %c1_i32 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %7[%c1_i32], 16384 : !tile.mbarrier<8>
        tile.tma_load %5[%c64_i32, %1], %6[%c1_i32], %7[%c1_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<8x64x128xbf16, #shared>, !tile.mbarrier<8>
      } {tile.producer}
      %11 = arith.cmpi sgt, %K, %c128_i32 : i32
      scf.if %11 {
        tile.mbarrier_wait %8[%c2_i32], %c1_i32 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %7[%c2_i32], 16384 : !tile.mbarrier<8>
        tile.tma_load %5[%c128_i32, %1], %6[%c2_i32], %7[%c2_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<8x64x128xbf16, #shared>, !tile.mbarrier<8>
      } {tile.producer}
      %12 = arith.cmpi sgt, %K, %c192_i32 : i32
      scf.if %12 {
        tile.mbarrier_wait %8[%c3_i32], %c1_i32 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %7[%c3_i32], 16384 : !tile.mbarrier<8>
        tile.tma_load %5[%c192_i32, %1], %6[%c3_i32], %7[%c3_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<8x64x128xbf16, #shared>, !tile.mbarrier<8>
      } {tile.producer}
      %13 = arith.cmpi sgt, %K, %c256_i32 : i32
      scf.if %13 {
        tile.mbarrier_wait %8[%c4_i32], %c1_i32 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %7[%c4_i32], 16384 : !tile.mbarrier<8>
        tile.tma_load %5[%c256_i32, %1], %6[%c4_i32], %7[%c4_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<8x64x128xbf16, #shared>, !tile.mbarrier<8>
      } {tile.producer}
      %14 = arith.cmpi sgt, %K, %c320_i32 : i32
      scf.if %14 {
        tile.mbarrier_wait %8[%c5_i32], %c1_i32 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %7[%c5_i32], 16384 : !tile.mbarrier<8>
        tile.tma_load %5[%c320_i32, %1], %6[%c5_i32], %7[%c5_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<8x64x128xbf16, #shared>, !tile.mbarrier<8>
      } {tile.producer}
      %15 = arith.cmpi sgt, %K, %c384_i32 : i32
      scf.if %15 {
        tile.mbarrier_wait %8[%c6_i32], %c1_i32 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %7[%c6_i32], 16384 : !tile.mbarrier<8>
        tile.tma_load %5[%c384_i32, %1], %6[%c6_i32], %7[%c6_i32] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<8x64x128xbf16, #shared>, !tile.mbarrier<8>
      } {tile.producer}
      // expected-remark @+1 {{wgmma waits stay at 0 pending: the dot's A operand is in registers the next iteration rewrites}}
      %16:3 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %c0_i32, %arg3 = %c0_i32) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
        %19 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %20 = tile.convert_layout %19 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #dot_op>
        tile.mbarrier_wait %7[%arg2], %arg3 : !tile.mbarrier<8>
        %21 = tile.local_load %6[%arg2] : !tile.smem<8x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
        %22 = tile.dot %20, %21, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        %23 = tile.warpgroup_wait 0, %22 : tensor<128x128xf32, #mma>
        tile.mbarrier_arrive %8[%arg2] : !tile.mbarrier<8>
        %24 = arith.addi %arg2, %c1_i32 : i32
        %25 = arith.cmpi eq, %24, %c8_i32 : i32
        %26 = arith.select %25, %c0_i32, %24 : i32
        %27 = arith.extui %25 : i1 to i32
        %28 = arith.xori %arg3, %27 : i32
        %29 = arith.addi %arg0, %c448_i32 : i32
        %30 = arith.addi %arg2, %c7_i32 : i32
        %31 = arith.cmpi sge, %30, %c8_i32 : i32
        %32 = arith.addi %arg2, %c-1_i32 : i32
        %33 = arith.select %31, %32, %30 : i32
        %34 = arith.extui %31 : i1 to i32
        %35 = arith.xori %arg3, %34 : i32
        %36 = arith.cmpi slt, %29, %K : i32
        scf.if %36 {
          %37 = arith.xori %35, %c1_i32 : i32
          tile.mbarrier_wait %8[%33], %37 : !tile.mbarrier<8>
          tile.mbarrier_expect_tx %7[%33], 16384 : !tile.mbarrier<8>
          tile.tma_load %5[%29, %1], %6[%33], %7[%33] : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<8x64x128xbf16, #shared>, !tile.mbarrier<8>
        } {tile.producer}
        scf.yield %23, %26, %28 : tensor<128x128xf32, #mma>, i32, i32
      }
      %17 = arith.truncf %16#0 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %18 = tile.convert_layout %17 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked1>
      tile.store %18, %4[%0, %1] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// schedule<tma = false>: tile-pipeline's cp.async ring (versioned: interior
// programs copy unchecked) feeds the wgmma. A cp.async ring refills a stage
// as soon as the wait returns, not through an empty barrier, so neither
// loop keeps a group in flight.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.warpgroup_wait 1
// CHECK-COUNT-2: tile.warpgroup_wait 0, %{{.+}} : tensor<128x128xf32, #mma>
// CHECK-NOT:  tile.warpgroup_wait 1

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<tma = false, persistent = false, tma_store = false> {
      %c3_i32 = arith.constant 3 : i32
      %c2_i32 = arith.constant 2 : i32
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
      %5 = tile.local_alloc : !tile.smem<3x128x64xbf16, #shared>
      %6 = tile.local_alloc : !tile.smem<3x64x128xbf16, #shared>
      %7 = arith.subi %K, %c1_i32 : i32
      %8 = arith.divsi %7, %c64_i32 : i32
      %9 = arith.muli %8, %c64_i32 : i32
      %10 = arith.cmpi sge, %0, %c0_i32 : i32
      %11 = arith.addi %0, %c128_i32 : i32
      %12 = arith.cmpi sle, %11, %M : i32
      %13 = arith.andi %10, %12 : i1
      %14 = arith.addi %9, %c64_i32 : i32
      %15 = arith.cmpi sle, %14, %K : i32
      %16 = arith.andi %13, %15 : i1
      %17 = arith.andi %16, %15 : i1
      %18 = arith.cmpi sge, %1, %c0_i32 : i32
      %19 = arith.addi %1, %c128_i32 : i32
      %20 = arith.cmpi sle, %19, %N : i32
      %21 = arith.andi %18, %20 : i1
      %22 = arith.andi %17, %21 : i1
      %23 = scf.if %22 -> (tensor<128x128xf32, #mma>) {
        %26 = arith.cmpi sgt, %K, %c0_i32 : i32
        scf.if %26 {
          tile.async_copy %2[%0, %c0_i32], %5[%c0_i32] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x128x64xbf16, #shared>
          tile.async_copy %3[%c0_i32, %1], %6[%c0_i32] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x64x128xbf16, #shared>
        }
        tile.async_commit
        %27 = arith.cmpi sgt, %K, %c64_i32 : i32
        scf.if %27 {
          tile.async_copy %2[%0, %c64_i32], %5[%c1_i32] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x128x64xbf16, #shared>
          tile.async_copy %3[%c64_i32, %1], %6[%c1_i32] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x64x128xbf16, #shared>
        }
        tile.async_commit
        // expected-remark @+1 {{wgmma waits stay at 0 pending: the dot's shared-memory operands are not released through mbarriers}}
        %28:3 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %c0_i32, %arg3 = %c2_i32) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
          tile.async_wait 1
          tile.fence_async_shared
          tile.barrier
          %29 = arith.addi %arg0, %c128_i32 : i32
          %30 = arith.cmpi slt, %29, %K : i32
          scf.if %30 {
            tile.async_copy %2[%0, %29], %5[%arg3] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x128x64xbf16, #shared>
            tile.async_copy %3[%29, %1], %6[%arg3] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x64x128xbf16, #shared>
          }
          tile.async_commit
          %31 = tile.local_load %5[%arg2] : !tile.smem<3x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
          %32 = tile.local_load %6[%arg2] : !tile.smem<3x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
          %33 = tile.dot %31, %32, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
          %34 = tile.warpgroup_wait 0, %33 : tensor<128x128xf32, #mma>
          %35 = arith.addi %arg2, %c1_i32 : i32
          %36 = arith.cmpi eq, %35, %c3_i32 : i32
          %37 = arith.select %36, %c0_i32, %35 : i32
          %38 = arith.addi %arg3, %c1_i32 : i32
          %39 = arith.cmpi eq, %38, %c3_i32 : i32
          %40 = arith.select %39, %c0_i32, %38 : i32
          scf.yield %34, %37, %40 : tensor<128x128xf32, #mma>, i32, i32
        }
        tile.warpgroup_wait 0
        tile.async_wait 0
        tile.barrier
        scf.yield %28#0 : tensor<128x128xf32, #mma>
      } else {
        %26 = arith.cmpi sgt, %K, %c0_i32 : i32
        scf.if %26 {
          tile.async_copy %2[%0, %c0_i32], %5[%c0_i32] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x128x64xbf16, #shared>
          tile.async_copy %3[%c0_i32, %1], %6[%c0_i32] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x64x128xbf16, #shared>
        }
        tile.async_commit
        %27 = arith.cmpi sgt, %K, %c64_i32 : i32
        scf.if %27 {
          tile.async_copy %2[%0, %c64_i32], %5[%c1_i32] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x128x64xbf16, #shared>
          tile.async_copy %3[%c64_i32, %1], %6[%c1_i32] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x64x128xbf16, #shared>
        }
        tile.async_commit
        // expected-remark @+1 {{wgmma waits stay at 0 pending: the dot's shared-memory operands are not released through mbarriers}}
        %28:3 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %c0_i32, %arg3 = %c2_i32) -> (tensor<128x128xf32, #mma>, i32, i32)  : i32 {
          tile.async_wait 1
          tile.fence_async_shared
          tile.barrier
          %29 = arith.addi %arg0, %c128_i32 : i32
          %30 = arith.cmpi slt, %29, %K : i32
          scf.if %30 {
            tile.async_copy %2[%0, %29], %5[%arg3] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x128x64xbf16, #shared>
            tile.async_copy %3[%29, %1], %6[%arg3] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<3x64x128xbf16, #shared>
          }
          tile.async_commit
          %31 = tile.local_load %5[%arg2] : !tile.smem<3x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
          %32 = tile.local_load %6[%arg2] : !tile.smem<3x64x128xbf16, #shared> -> tensor<64x128xbf16, #shared>
          %33 = tile.dot %31, %32, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
          %34 = tile.warpgroup_wait 0, %33 : tensor<128x128xf32, #mma>
          %35 = arith.addi %arg2, %c1_i32 : i32
          %36 = arith.cmpi eq, %35, %c3_i32 : i32
          %37 = arith.select %36, %c0_i32, %35 : i32
          %38 = arith.addi %arg3, %c1_i32 : i32
          %39 = arith.cmpi eq, %38, %c3_i32 : i32
          %40 = arith.select %39, %c0_i32, %38 : i32
          scf.yield %34, %37, %40 : tensor<128x128xf32, #mma>, i32, i32
        }
        tile.warpgroup_wait 0
        tile.async_wait 0
        tile.barrier
        scf.yield %28#0 : tensor<128x128xf32, #mma>
      }
      %24 = arith.truncf %23 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %25 = tile.convert_layout %24 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked>
      tile.store %25, %4[%0, %1] : tensor<128x128xbf16, #blocked>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// A dual GEMM: two dots on independent accumulators read one ring stage.
// Their waits become one wait letting both groups of the iteration stay in
// flight (`tile.warpgroup_wait 2` of both results, after the second dot);
// the stage is released one iteration later, and the drain after the loop
// retires both accumulators.

// CHECK-LABEL: tile.kernel @dual
// CHECK:      %[[LOOP:.+]]:4 = scf.for
// CHECK:        %[[D1:.+]] = tile.dot
// CHECK-NOT:    tile.warpgroup_wait
// CHECK:        %[[D2:.+]] = tile.dot
// CHECK-NEXT:   %[[W:.+]]:2 = tile.warpgroup_wait 2, %[[D1]], %[[D2]] : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
// CHECK-NEXT:   arith.cmpi sgt
// CHECK-NEXT:   scf.if
// CHECK:          tile.mbarrier_arrive
// CHECK:        scf.yield %[[W]]#0, %[[W]]#1
// CHECK:      tile.warpgroup_wait 0, %[[LOOP]]#0, %[[LOOP]]#1 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
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
      %4 = tile.make_tensor_map %0 : !tile.view<64x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>
      %5 = tile.local_alloc : !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>
      %6 = tile.make_tensor_map %1 : !tile.view<?x64xbf16, strides = [1, ?]> -> !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>
      %7 = tile.local_alloc : !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>
      %8 = tile.make_tensor_map %2 : !tile.view<?x64xbf16, strides = [1, ?]> -> !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>
      %9 = tile.local_alloc : !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>
      %10 = tile.mbarrier_alloc count 1 : !tile.mbarrier<8>
      %11 = tile.mbarrier_alloc count 4 : !tile.mbarrier<8>
      %c0_i32_0 = arith.constant 0 : i32
      %c0_i32_1 = arith.constant 0 : i32
      %12 = arith.muli %c64_i32, %c0_i32_1 : i32
      %13 = arith.addi %c0_i32, %12 : i32
      %14 = arith.cmpi slt, %13, %K : i32
      scf.if %14 {
        %c1_i32_14 = arith.constant 1 : i32
        %70 = arith.xori %c0_i32_0, %c1_i32_14 : i32
        tile.mbarrier_wait %11[%c0_i32_0], %70 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %10[%c0_i32_0], 24576 : !tile.mbarrier<8>
        tile.tma_load %4[%c0_i32, %13], %5[%c0_i32_0], %10[%c0_i32_0] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %6[%13, %c0_i32], %7[%c0_i32_0], %10[%c0_i32_0] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %8[%13, %c0_i32], %9[%c0_i32_0], %10[%c0_i32_0] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
      } {tile.producer}
      %c1_i32 = arith.constant 1 : i32
      %15 = arith.muli %c64_i32, %c1_i32 : i32
      %16 = arith.addi %c0_i32, %15 : i32
      %c1_i32_2 = arith.constant 1 : i32
      %17 = arith.addi %c0_i32_0, %c1_i32_2 : i32
      %c8_i32 = arith.constant 8 : i32
      %18 = arith.cmpi eq, %17, %c8_i32 : i32
      %c0_i32_3 = arith.constant 0 : i32
      %19 = arith.select %18, %c0_i32_3, %17 : i32
      %20 = arith.extui %18 : i1 to i32
      %21 = arith.xori %c0_i32_0, %20 : i32
      %22 = arith.cmpi slt, %16, %K : i32
      scf.if %22 {
        %c1_i32_14 = arith.constant 1 : i32
        %70 = arith.xori %21, %c1_i32_14 : i32
        tile.mbarrier_wait %11[%19], %70 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %10[%19], 24576 : !tile.mbarrier<8>
        tile.tma_load %4[%c0_i32, %16], %5[%19], %10[%19] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %6[%16, %c0_i32], %7[%19], %10[%19] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %8[%16, %c0_i32], %9[%19], %10[%19] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
      } {tile.producer}
      %c2_i32 = arith.constant 2 : i32
      %23 = arith.muli %c64_i32, %c2_i32 : i32
      %24 = arith.addi %c0_i32, %23 : i32
      %c2_i32_4 = arith.constant 2 : i32
      %25 = arith.addi %c0_i32_0, %c2_i32_4 : i32
      %c8_i32_5 = arith.constant 8 : i32
      %26 = arith.cmpi sge, %25, %c8_i32_5 : i32
      %27 = arith.subi %25, %c8_i32_5 : i32
      %28 = arith.select %26, %27, %25 : i32
      %29 = arith.extui %26 : i1 to i32
      %30 = arith.xori %c0_i32_0, %29 : i32
      %31 = arith.cmpi slt, %24, %K : i32
      scf.if %31 {
        %c1_i32_14 = arith.constant 1 : i32
        %70 = arith.xori %30, %c1_i32_14 : i32
        tile.mbarrier_wait %11[%28], %70 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %10[%28], 24576 : !tile.mbarrier<8>
        tile.tma_load %4[%c0_i32, %24], %5[%28], %10[%28] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %6[%24, %c0_i32], %7[%28], %10[%28] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %8[%24, %c0_i32], %9[%28], %10[%28] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
      } {tile.producer}
      %c3_i32 = arith.constant 3 : i32
      %32 = arith.muli %c64_i32, %c3_i32 : i32
      %33 = arith.addi %c0_i32, %32 : i32
      %c3_i32_6 = arith.constant 3 : i32
      %34 = arith.addi %c0_i32_0, %c3_i32_6 : i32
      %c8_i32_7 = arith.constant 8 : i32
      %35 = arith.cmpi sge, %34, %c8_i32_7 : i32
      %36 = arith.subi %34, %c8_i32_7 : i32
      %37 = arith.select %35, %36, %34 : i32
      %38 = arith.extui %35 : i1 to i32
      %39 = arith.xori %c0_i32_0, %38 : i32
      %40 = arith.cmpi slt, %33, %K : i32
      scf.if %40 {
        %c1_i32_14 = arith.constant 1 : i32
        %70 = arith.xori %39, %c1_i32_14 : i32
        tile.mbarrier_wait %11[%37], %70 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %10[%37], 24576 : !tile.mbarrier<8>
        tile.tma_load %4[%c0_i32, %33], %5[%37], %10[%37] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %6[%33, %c0_i32], %7[%37], %10[%37] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %8[%33, %c0_i32], %9[%37], %10[%37] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
      } {tile.producer}
      %c4_i32 = arith.constant 4 : i32
      %41 = arith.muli %c64_i32, %c4_i32 : i32
      %42 = arith.addi %c0_i32, %41 : i32
      %c4_i32_8 = arith.constant 4 : i32
      %43 = arith.addi %c0_i32_0, %c4_i32_8 : i32
      %c8_i32_9 = arith.constant 8 : i32
      %44 = arith.cmpi sge, %43, %c8_i32_9 : i32
      %45 = arith.subi %43, %c8_i32_9 : i32
      %46 = arith.select %44, %45, %43 : i32
      %47 = arith.extui %44 : i1 to i32
      %48 = arith.xori %c0_i32_0, %47 : i32
      %49 = arith.cmpi slt, %42, %K : i32
      scf.if %49 {
        %c1_i32_14 = arith.constant 1 : i32
        %70 = arith.xori %48, %c1_i32_14 : i32
        tile.mbarrier_wait %11[%46], %70 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %10[%46], 24576 : !tile.mbarrier<8>
        tile.tma_load %4[%c0_i32, %42], %5[%46], %10[%46] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %6[%42, %c0_i32], %7[%46], %10[%46] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %8[%42, %c0_i32], %9[%46], %10[%46] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
      } {tile.producer}
      %c5_i32 = arith.constant 5 : i32
      %50 = arith.muli %c64_i32, %c5_i32 : i32
      %51 = arith.addi %c0_i32, %50 : i32
      %c5_i32_10 = arith.constant 5 : i32
      %52 = arith.addi %c0_i32_0, %c5_i32_10 : i32
      %c8_i32_11 = arith.constant 8 : i32
      %53 = arith.cmpi sge, %52, %c8_i32_11 : i32
      %54 = arith.subi %52, %c8_i32_11 : i32
      %55 = arith.select %53, %54, %52 : i32
      %56 = arith.extui %53 : i1 to i32
      %57 = arith.xori %c0_i32_0, %56 : i32
      %58 = arith.cmpi slt, %51, %K : i32
      scf.if %58 {
        %c1_i32_14 = arith.constant 1 : i32
        %70 = arith.xori %57, %c1_i32_14 : i32
        tile.mbarrier_wait %11[%55], %70 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %10[%55], 24576 : !tile.mbarrier<8>
        tile.tma_load %4[%c0_i32, %51], %5[%55], %10[%55] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %6[%51, %c0_i32], %7[%55], %10[%55] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %8[%51, %c0_i32], %9[%55], %10[%55] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
      } {tile.producer}
      %c6_i32 = arith.constant 6 : i32
      %59 = arith.muli %c64_i32, %c6_i32 : i32
      %60 = arith.addi %c0_i32, %59 : i32
      %c6_i32_12 = arith.constant 6 : i32
      %61 = arith.addi %c0_i32_0, %c6_i32_12 : i32
      %c8_i32_13 = arith.constant 8 : i32
      %62 = arith.cmpi sge, %61, %c8_i32_13 : i32
      %63 = arith.subi %61, %c8_i32_13 : i32
      %64 = arith.select %62, %63, %61 : i32
      %65 = arith.extui %62 : i1 to i32
      %66 = arith.xori %c0_i32_0, %65 : i32
      %67 = arith.cmpi slt, %60, %K : i32
      scf.if %67 {
        %c1_i32_14 = arith.constant 1 : i32
        %70 = arith.xori %66, %c1_i32_14 : i32
        tile.mbarrier_wait %11[%64], %70 : !tile.mbarrier<8>
        tile.mbarrier_expect_tx %10[%64], 24576 : !tile.mbarrier<8>
        tile.tma_load %4[%c0_i32, %60], %5[%64], %10[%64] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %6[%60, %c0_i32], %7[%64], %10[%64] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
        tile.tma_load %8[%60, %c0_i32], %9[%64], %10[%64] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
      } {tile.producer}
      %68:4 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst, %arg2 = %cst, %arg3 = %c0_i32_0, %arg4 = %c0_i32_0) -> (tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>, tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>, i32, i32)  : i32 {
        tile.mbarrier_wait %10[%arg3], %arg4 : !tile.mbarrier<8>
        %70 = tile.local_load %5[%arg3] : !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>> -> tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>
        %71 = tile.local_load %7[%arg3] : !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>> -> tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>
        %72 = tile.dot %70, %71, %arg1 : tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>> -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
        %73 = tile.warpgroup_wait 0, %72 : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
        %74 = tile.local_load %9[%arg3] : !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>> -> tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>
        %75 = tile.dot %70, %74, %arg2 : tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>> -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
        %76 = tile.warpgroup_wait 0, %75 : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
        tile.mbarrier_arrive %11[%arg3] : !tile.mbarrier<8>
        %c1_i32_14 = arith.constant 1 : i32
        %77 = arith.addi %arg3, %c1_i32_14 : i32
        %c8_i32_15 = arith.constant 8 : i32
        %78 = arith.cmpi eq, %77, %c8_i32_15 : i32
        %c0_i32_16 = arith.constant 0 : i32
        %79 = arith.select %78, %c0_i32_16, %77 : i32
        %80 = arith.extui %78 : i1 to i32
        %81 = arith.xori %arg4, %80 : i32
        %c7_i32 = arith.constant 7 : i32
        %82 = arith.muli %c64_i32, %c7_i32 : i32
        %83 = arith.addi %arg0, %82 : i32
        %c7_i32_17 = arith.constant 7 : i32
        %84 = arith.addi %arg3, %c7_i32_17 : i32
        %c8_i32_18 = arith.constant 8 : i32
        %85 = arith.cmpi sge, %84, %c8_i32_18 : i32
        %86 = arith.subi %84, %c8_i32_18 : i32
        %87 = arith.select %85, %86, %84 : i32
        %88 = arith.extui %85 : i1 to i32
        %89 = arith.xori %arg4, %88 : i32
        %90 = arith.cmpi slt, %83, %K : i32
        scf.if %90 {
          %c1_i32_19 = arith.constant 1 : i32
          %91 = arith.xori %89, %c1_i32_19 : i32
          tile.mbarrier_wait %11[%87], %91 : !tile.mbarrier<8>
          tile.mbarrier_expect_tx %10[%87], 24576 : !tile.mbarrier<8>
          tile.tma_load %4[%c0_i32, %83], %5[%87], %10[%87] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>, !tile.mbarrier<8>
          tile.tma_load %6[%83, %c0_i32], %7[%87], %10[%87] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
          tile.tma_load %8[%83, %c0_i32], %9[%87], %10[%87] : !tile.tensor_map<64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.smem<8x64x64xbf16, <vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>>, !tile.mbarrier<8>
        } {tile.producer}
        scf.yield %73, %76, %79, %81 : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>, tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>, i32, i32
      }
      %69 = arith.mulf %68#0, %68#1 : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>
      tile.store %69, %3[%c0_i32, %c0_i32] : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>, !tile.view<64x64xf32, strides = [64, 1]>
      tile.return
    }
  }
}
