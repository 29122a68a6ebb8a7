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

