// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-tma-store)))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-tma-store)))' --remarks-filter-missed=tile-tma-store --remark-format=emitRemark -verify-diagnostics -o /dev/null

// A 128x128x64 GEMM block program as the pipeline leaves it before
// tile-tma-store on sm_90a (schedule<persistent = false>). The epilogue's
// store of the bf16 tile (converted from the accumulator fragment to a
// coalesced layout) becomes: a tensor map of the output view (128x64
// boxes) and a 128-byte swizzled staging buffer, made before the store;
// at the store, a wait for the previous TMA store to have read the buffer,
// a barrier, the write of the fragment as it is (#mma: the conversion is
// gone), the async-proxy fence, a barrier and the TMA store. The kernel
// waits for its stores before it returns.

// The staging layout: 128-byte swizzle, rows contiguous.
// CHECK:      #shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
// CHECK-LABEL: tile.kernel @gemm
// CHECK:      %[[M0:.+]] = arith.muli %pid, %c128_i32 : i32
// CHECK-NEXT: %[[N0:.+]] = arith.muli %pid_0, %c128_i32 : i32
// CHECK:      %[[VC:.+]] = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
// CHECK:      scf.for
// CHECK:      %[[OUT:.+]] = arith.truncf %{{.+}} : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
// CHECK-NEXT: %[[MAP:.+]] = tile.make_tensor_map %[[VC]] : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
// CHECK-NEXT: %[[BUF:.+]] = tile.local_alloc : !tile.smem<1x128x128xbf16, #shared>
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: tile.tma_store_wait 0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store %[[OUT]], %[[BUF]][%[[ZERO]]] : tensor<128x128xbf16, #mma>, !tile.smem<1x128x128xbf16, #shared>
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.tma_store %[[MAP]][%[[M0]], %[[N0]]], %[[BUF]][%[[ZERO]]] : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<1x128x128xbf16, #shared>
// CHECK-NEXT: tile.tma_store_wait 0
// CHECK-NEXT: tile.return
// CHECK-NOT:  tile.convert_layout
// CHECK-NOT:  tile.store

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false> {
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

// The persistent form (tile-persistent ran): the store in the tile loop is
// staged; the tensor map and the staging buffer are made once, before the
// tile loop, and the final wait comes after it. Each tile's store first
// waits until the previous tile's store has read the buffer.

// CHECK-LABEL: tile.kernel @gemm
// CHECK:      %[[VC:.+]] = tile.make_view %C
// CHECK-NEXT: %[[MAP:.+]] = tile.make_tensor_map %[[VC]] : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
// CHECK-NEXT: %[[BUF:.+]] = tile.local_alloc : !tile.smem<1x128x128xbf16, #shared>
// CHECK-NEXT: scf.for %{{.+}} = %pid to
// CHECK:        %[[OUT:.+]] = arith.truncf
// CHECK:        tile.tma_store_wait 0
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.local_store %[[OUT]], %[[BUF]]
// CHECK-NEXT:   tile.fence_async_shared
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.tma_store %[[MAP]]
// CHECK-NEXT: } {tile.persistent_loop}
// CHECK-NEXT: tile.tma_store_wait 0
// CHECK-NEXT: tile.return

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) persistent {
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

// A persistent program that walks its tiles itself (no tile-persistent
// marker on the loop): a loop at the top of a persistent kernel is its tile
// loop, and the store in it is staged as in the form above.

// CHECK-LABEL: tile.kernel @gemm
// CHECK:      %[[VC:.+]] = tile.make_view %C
// CHECK-NEXT: %[[MAP:.+]] = tile.make_tensor_map %[[VC]] : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
// CHECK-NEXT: %[[BUF:.+]] = tile.local_alloc : !tile.smem<1x128x128xbf16, #shared>
// CHECK-NEXT: scf.for %{{.+}} = %pid to
// CHECK:        %[[OUT:.+]] = arith.truncf
// CHECK:        tile.tma_store_wait 0
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.local_store %[[OUT]], %[[BUF]]
// CHECK-NEXT:   tile.fence_async_shared
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.tma_store %[[MAP]]
// CHECK-NEXT: }{{$}}
// CHECK-NEXT: tile.tma_store_wait 0
// CHECK-NEXT: tile.return

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) persistent {
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
      }
      tile.return
    }
  }
}


// -----

// schedule<tma_store = false> keeps the store, without a remark.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.tma_store
// CHECK:      tile.convert_layout %{{.+}} : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked{{[0-9]*}}>
// CHECK-NEXT: tile.store
// CHECK-NOT:  tile.tma_store

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

// sm_80 has no TMA: the store stays, without a remark.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.tma_store
// CHECK:      tile.store
// CHECK-NOT:  tile.tma_store

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 2]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) {
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
        %11 = tile.convert_layout %9 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #dot_op1>
        %12 = tile.dot %10, %11, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x128xbf16, #dot_op1> -> tensor<128x128xf32, #mma>
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

// %N (the row length of the output view) is not known to be a multiple of
// 8 elements: TMA writes whole 16-byte chunks of a row, so the threads
// store the tile, with a missed remark.

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.tma_store
// CHECK-NOT:  tile.local_alloc
// CHECK:      tile.store
// CHECK-NOT:  tile.tma_store_wait

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false> {
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
      // expected-remark @+1 {{the tile is stored by the threads: the row length is not known to be a multiple of 8 elements}}
      tile.store %7, %4[%0, %1] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// An f32 tile (the accumulator stored as it is) is not staged: the staging
// buffer is made of 64-column boxes of 128 bytes (16-bit elements).

// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT:  tile.tma_store
// CHECK:      tile.store %{{.+}} : tensor<128x128xf32, #mma>
// CHECK-NOT:  tile.tma_store_wait

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false> {
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
      %4 = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f32>
      %5 = scf.for %arg0 = %c0_i32 to %K step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %6 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %7 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %8 = tile.convert_layout %6 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %9 = tile.convert_layout %7 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %10 = tile.dot %8, %9, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %10 : tensor<128x128xf32, #mma>
      }
      // expected-remark @+1 {{the tile is stored by the threads: only 16-bit tiles are staged}}
      tile.store %5, %4[%0, %1] : tensor<128x128xf32, #mma>, !tile.view<?x?xf32, strides = [?, 1]>
      tile.return
    }
  }
}

// -----

// Regression: an output view computed inside the tile loop (here from a
// constant stride defined there) is not hoisted without its operands; the
// store stays with the threads, with a missed remark.
// CHECK-LABEL: tile.kernel @gemm
// CHECK-NOT: tile.tma_store
// CHECK: tile.store

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) persistent {
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
      scf.for %arg0 = %pid to %2 step %3  : i32 {
        %ldc2 = arith.constant 128 : i32
        %6 = tile.make_view %C[%M, %N] strides [%ldc2, 1] : !tile.ptr<bf16>
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
        // expected-remark @+1 {{the output view is computed inside the tile loop}}
        tile.store %13, %6[%9, %10] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      } {tile.persistent_loop}
      tile.return
    }
  }
}


// -----

// Atomic adds of whole f32 tiles, here in a loop (an attention backward's
// dQ, accumulated over the program's query blocks in 64-column slices):
// each becomes a write of the fragment into a 128-byte swizzled staging
// buffer (32-column f32 boxes) and a reducing TMA store (`add`). The two
// adds share one staging buffer: each waits until the previous reduction
// has read it. A masked add stays a per-element atomic.

// CHECK:      #[[$SW32:.+]] = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 32>
// CHECK-LABEL: tile.kernel @atomic_adds_in_loop
// CHECK:      %[[MAP0:.+]] = tile.make_tensor_map %[[VQ:.+]] : !tile.view<?x128xf32, strides = [?, 1]> -> !tile.tensor_map<64x32xf32, #[[$SW32]]>
// CHECK-NEXT: %[[BUF:.+]] = tile.local_alloc : !tile.smem<1x64x64xf32, #[[$SW32]]>
// CHECK:      %[[MAP1:.+]] = tile.make_tensor_map %[[VQ]]
// CHECK-NOT:  tile.local_alloc
// CHECK:      scf.for
// CHECK:        tile.tma_store_wait 0
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.local_store %{{.+}}, %[[BUF]][%{{.+}}] : tensor<64x64xf32, #mma>, !tile.smem<1x64x64xf32, #[[$SW32]]>
// CHECK-NEXT:   tile.fence_async_shared
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.tma_store add %[[MAP0]][%{{.+}}, %{{.+}}], %[[BUF]][%{{.+}}] : !tile.tensor_map<64x32xf32, #[[$SW32]]>, !tile.smem<1x64x64xf32, #[[$SW32]]>
// CHECK:        tile.tma_store add %[[MAP1]][%{{.+}}, %{{.+}}], %[[BUF]]
// CHECK:        tile.atomic_add
// CHECK:      tile.tma_store_wait 0
// CHECK-NEXT: tile.return

#mma = #tile.mma<warpsPerCTA = [4, 1]>
module attributes {gpu.container_module} {
  gpu.module @dq [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @atomic_adds_in_loop(%DQ: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32, %ld: i32 {tile.divisibility = 8 : i64}) warps(4) {
      %c0 = arith.constant 0 : i32
      %c64 = arith.constant 64 : i32
      %vq = tile.make_view %DQ[%M, 128] strides [%ld, 1] : !tile.ptr<f32>
      %part = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
      %mask = arith.constant dense<true> : tensor<64x64xi1, #mma>
      scf.for %m = %c0 to %M step %c64 : i32 {
        tile.atomic_add %part, %vq[%m, %c0] : tensor<64x64xf32, #mma>, !tile.view<?x128xf32, strides = [?, 1]>
        tile.atomic_add %part, %vq[%m, %c64] : tensor<64x64xf32, #mma>, !tile.view<?x128xf32, strides = [?, 1]>
        // expected-remark @+1 {{the tile is added by the threads' atomics: the add is masked}}
        tile.atomic_add %part, %vq[%m, %c0] mask(%mask : tensor<64x64xi1, #mma>) : tensor<64x64xf32, #mma>, !tile.view<?x128xf32, strides = [?, 1]>
      }
      tile.return
    }
  }
}
