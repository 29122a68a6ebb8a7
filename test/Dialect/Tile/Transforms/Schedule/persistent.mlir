// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-persistent)))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-persistent)))' --remarks-filter-missed=tile-persistent --remark-format=emitRemark -verify-diagnostics -o /dev/null

// A 128x128x64 GEMM block program with a 2-D grid as the pipeline leaves it
// before tile-persistent on sm_90a. By default on sm_90a a kernel whose dot
// loops run the same number of iterations in every program becomes
// persistent: the body is a loop over the grid's tiles, for t = program_id x
// to G step num_programs x, with the grid's sizes computed from the grid
// rule; tile.program_id x and y become t mod g0 and t / g0 (x fastest); the
// loop-invariant code (the views) is hoisted; the kernel is marked
// `persistent` and its grid rule becomes the number of tiles.

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME:  grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) persistent {
// CHECK:      %[[GX:.+]] = arith.ceildivsi %M, %{{.+}} : i32
// CHECK:      %[[GY:.+]] = arith.ceildivsi %N, %{{.+}} : i32
// CHECK-NEXT: %[[TILES:.+]] = arith.muli %[[GX]], %[[GY]] : i32
// CHECK-NEXT: %[[PID:.+]] = tile.program_id x
// CHECK-NEXT: %[[NP:.+]] = tile.num_programs x
// CHECK:      tile.make_view %A
// CHECK-NEXT: tile.make_view %B
// CHECK-NEXT: %[[VC:.+]] = tile.make_view %C
// CHECK-NEXT: scf.for %[[T:[^ ]+]] = %[[PID]] to %[[TILES]] step %[[NP]] : i32 {
// CHECK-NEXT:   %[[X:.+]] = arith.remsi %[[T]], %[[GX]] : i32
// CHECK-NEXT:   %[[Y:.+]] = arith.divsi %[[T]], %[[GX]] : i32
// CHECK-NEXT:   %[[M0:.+]] = arith.muli %[[X]], %{{.+}} : i32
// CHECK-NEXT:   %[[N0:.+]] = arith.muli %[[Y]], %{{.+}} : i32
// CHECK-NEXT:   %[[ACC:.+]] = scf.for
// CHECK-NEXT:     tile.load %{{.+}}[%[[M0]], %{{.+}}]
// CHECK-NEXT:     tile.load %{{.+}}[%{{.+}}, %[[N0]]]
// CHECK:        tile.store %{{.+}}, %[[VC]][%[[M0]], %[[N0]]]
// CHECK-NEXT: } {tile.persistent_loop}
// CHECK-NEXT: tile.return
// CHECK-NOT:  tile.program_id y

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
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

// schedule<persistent = false>: one program per tile, without a remark.

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME:  grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = false> {
// CHECK:      tile.program_id x
// CHECK-NEXT: tile.program_id y
// CHECK-NOT:  tile.persistent_loop

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

// The K loop's bound depends on the program's tile (a lower-triangular A):
// tiles differ in work, so by default the kernel keeps one program per
// tile (no remark: nothing asked for persistence).

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME:  grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) {
// CHECK:      tile.program_id x
// CHECK-NEXT: tile.program_id y
// CHECK-NOT:  tile.persistent_loop

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
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
      %5 = arith.addi %0, %c128_i32 : i32
      %6 = scf.for %arg0 = %c0_i32 to %5 step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %9 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %10 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %11 = tile.convert_layout %9 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %12 = tile.convert_layout %10 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %13 = tile.dot %11, %12, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %13 : tensor<128x128xf32, #mma>
      }
      %7 = arith.truncf %6 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %8 = tile.convert_layout %7 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked1>
      tile.store %8, %4[%0, %1] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// The same program with schedule<persistent = true>: asked for, the tile
// loop is built although the tiles differ in work; the K loop's bound is
// computed from the tile's coordinates inside it.

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME:  grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) persistent schedule<persistent = true> {
// CHECK:      scf.for %[[T:[^ ]+]] = %pid to
// CHECK-NEXT:   %[[X:.+]] = arith.remsi %[[T]], %{{.+}} : i32
// CHECK-NEXT:   arith.divsi %[[T]]
// CHECK-NEXT:   %[[M0:.+]] = arith.muli %[[X]], %{{.+}} : i32
// CHECK-NEXT:   arith.muli
// CHECK-NEXT:   %[[KEND:.+]] = arith.addi %[[M0]], %{{.+}} : i32
// CHECK-NEXT:   scf.for %{{.+}} = %c0_i32 to %[[KEND]] step
// CHECK:      } {tile.persistent_loop}

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = true> {
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
      %5 = arith.addi %0, %c128_i32 : i32
      %6 = scf.for %arg0 = %c0_i32 to %5 step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %9 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %10 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %11 = tile.convert_layout %9 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %12 = tile.convert_layout %10 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %13 = tile.dot %11, %12, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %13 : tensor<128x128xf32, #mma>
      }
      %7 = arith.truncf %6 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %8 = tile.convert_layout %7 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked1>
      tile.store %8, %4[%0, %1] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}


// -----

// Asked for on sm_80 (no TMA producer warp to run into the next tile):
// declined with a missed remark.

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME:  grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = true> {
// CHECK-NOT:  tile.persistent_loop

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 2]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">] {
    // expected-remark @+1 {{one program per tile: sm_80 has no TMA producer warps to overlap tiles with}}
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = true> {
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

// Asked for on a kernel launched in clusters over a 2-D grid: declined (the
// ranks of a cluster keep their place in every tile only over a 1-D grid).

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME:  grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) cluster(2, 1, 1) schedule<persistent = true> {
// CHECK-NOT:  tile.persistent_loop

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    // expected-remark @+1 {{one program per tile: the kernel runs in clusters and its grid or cluster has more than one dimension}}
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) cluster(2, 1, 1) schedule<persistent = true> {
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

// Asked for on a kernel without a grid rule: there is no grid to walk.

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME:  warps(8) schedule<persistent = true> {
// CHECK-NOT:  tile.persistent_loop
// CHECK:      tile.program_id x

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    // expected-remark @+1 {{one program per tile: the kernel has no grid rule to walk}}
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) warps(8) schedule<persistent = true> {
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

// Asked for on a kernel that is persistent already (the first case's
// result): declined, the kernel keeps its one tile loop.

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-COUNT-1: tile.persistent_loop
// CHECK-NOT:  tile.persistent_loop

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    // expected-remark @+1 {{one program per tile: the kernel is persistent already}}
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) persistent schedule<persistent = true> {
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

// A tensor map made before tile-persistent (over a view the tile loop would
// enclose): the kernel stays one program per tile, and the remark says why
// (not that the map depends on the tile: it does not).
// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME:  grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = true> {
// CHECK-NOT:   tile.num_programs

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
module attributes {gpu.container_module} {
  gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    // expected-remark @+1 {{one program per tile: 'tile.make_tensor_map' reads values the tile loop would define}}
    tile.kernel @gemm(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %N: i32 {tile.divisibility = 8 : i64}, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}, %ldb: i32 {tile.divisibility = 8 : i64}, %ldc: i32 {tile.divisibility = 8 : i64}) grid(ceildiv(%M, 128), ceildiv(%N, 128)) warps(8) schedule<persistent = true> {
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
      %map = tile.make_tensor_map %4 : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<128x64xbf16, #shared>
      %5 = arith.addi %0, %c128_i32 : i32
      %6 = scf.for %arg0 = %c0_i32 to %5 step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %9 = tile.load %2[%0, %arg0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16, #blocked>
        %10 = tile.load %3[%arg0, %1] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16, #blocked1>
        %11 = tile.convert_layout %9 : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #shared>
        %12 = tile.convert_layout %10 : tensor<64x128xbf16, #blocked1> -> tensor<64x128xbf16, #shared>
        %13 = tile.dot %11, %12, %arg1 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %13 : tensor<128x128xf32, #mma>
      }
      %7 = arith.truncf %6 : tensor<128x128xf32, #mma> to tensor<128x128xbf16, #mma>
      %8 = tile.convert_layout %7 : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked1>
      tile.store %8, %4[%0, %1] : tensor<128x128xbf16, #blocked1>, !tile.view<?x?xbf16, strides = [?, 1]>
      tile.return
    }
  }
}

