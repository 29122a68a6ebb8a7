// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-pipeline)))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-pipeline)))' --remarks-filter=tile-pipeline --remark-format=emitRemark -verify-diagnostics -o /dev/null

// Loop-invariant dot operands on mma.sync (sm_80): an attention-like loop,
// Q·Kᵀ then P·V, as tile-assign-layouts and LICM leave it (Q loaded and
// converted to its A-operand layout before the loop).

// Head dim 128 on 4 warps: the accumulator (128 registers a thread) and the
// scores (64) leave no room for Q's 64, so Q is copied once into its own
// buffer (its commit group before the ring's prologue) and read by ldmatrix
// in the loop.

// CHECK-LABEL: tile.kernel @q_staged
// CHECK-NOT: tile.load
// CHECK: %[[Q:.+]] = tile.local_alloc : !tile.smem<1x128x128xbf16, #[[$SQ:.+]]>
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: tile.async_copy %{{.+}}[%c0_i32, %c0_i32], %[[Q]][%[[ZERO]]] : !tile.view<128x128xbf16, strides = [128, 1]>, !tile.smem<1x128x128xbf16, #[[$SQ]]>
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: tile.local_alloc : !tile.smem<3x128x64xbf16
// CHECK: scf.for
// CHECK: tile.async_wait 1
// CHECK: tile.local_load %[[Q]][%[[ZERO]]] : !tile.smem<1x128x128xbf16, #[[$SQ]]> -> tensor<128x128xbf16, #dot_op{{[0-9]*}}>
// CHECK-NEXT: tile.dot
// CHECK-NOT: tile.convert_layout {{.*}} -> tensor<128x128xbf16
// CHECK: tile.return

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#blocked2 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @q_staged [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">] {
    tile.kernel @q_staged(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<f32> {tile.align = 16 : i64}, %S: i32) grid(1) warps(4) {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.make_view %Q[128, 128] strides [128, 1] : !tile.ptr<bf16>
      %1 = tile.make_view %K[128, %S] strides [1, 128] : !tile.ptr<bf16>
      %2 = tile.make_view %V[%S, 128] strides [128, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %O[128, 128] strides [128, 1] : !tile.ptr<f32>
      // expected-remark @below {{this loop-invariant dot operand waits in shared memory and is read anew at each use: the loop keeps 192 registers a thread live, the operands 64 more, over the budget of 255 (less 32 in reserve)}}
      %4 = tile.load %0[%c0_i32, %c0_i32] : !tile.view<128x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16, #blocked>
      %5 = tile.convert_layout %4 : tensor<128x128xbf16, #blocked> -> tensor<128x128xbf16, #dot_op>
      // expected-remark @below {{2 loads on cp.async in a 3-stage ring}}
      %6 = scf.for %arg0 = %c0_i32 to %S step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %7 = tile.load %1[%c0_i32, %arg0] : !tile.view<128x?xbf16, strides = [1, 128]> -> tensor<128x64xbf16, #blocked1>
        %8 = tile.load %2[%arg0, %c0_i32] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<64x128xbf16, #blocked>
        %9 = tile.convert_layout %7 : tensor<128x64xbf16, #blocked1> -> tensor<128x64xbf16, #dot_op1>
        %10 = tile.dot %5, %9, %cst_0 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #dot_op1> -> tensor<128x64xf32, #mma>
        %11 = tile.convert_layout %10 : tensor<128x64xf32, #mma> -> tensor<128x64xf32, #dot_op>
        %12 = arith.truncf %11 : tensor<128x64xf32, #dot_op> to tensor<128x64xbf16, #dot_op>
        %13 = tile.convert_layout %8 : tensor<64x128xbf16, #blocked> -> tensor<64x128xbf16, #dot_op1>
        %14 = tile.dot %12, %13, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x128xbf16, #dot_op1> -> tensor<128x128xf32, #mma>
        scf.yield %14 : tensor<128x128xf32, #mma>
      }
      tile.store %6, %3[%c0_i32, %c0_i32] : tensor<128x128xf32, #mma>, !tile.view<128x128xf32, strides = [128, 1]>
      tile.return
    }
  }
}

// -----

// Head dim 64: 64 + 64 + 32 registers fit; Q stays in registers.

// CHECK-LABEL: tile.kernel @q_in_registers
// CHECK: %[[QR:.+]] = tile.load %{{.*}} -> tensor<128x64xbf16, #blocked{{[0-9]*}}>
// CHECK-NEXT: %[[QA:.+]] = tile.convert_layout %[[QR]]
// CHECK-NOT: tile.smem<1x128x64
// CHECK: tile.dot %[[QA]]

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#blocked2 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @q_in_registers [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">] {
    tile.kernel @q_in_registers(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<f32> {tile.align = 16 : i64}, %S: i32) grid(1) warps(4) {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.make_view %Q[128, 64] strides [64, 1] : !tile.ptr<bf16>
      %1 = tile.make_view %K[64, %S] strides [1, 64] : !tile.ptr<bf16>
      %2 = tile.make_view %V[%S, 64] strides [64, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %O[128, 64] strides [64, 1] : !tile.ptr<f32>
      %4 = tile.load %0[%c0_i32, %c0_i32] : !tile.view<128x64xbf16, strides = [64, 1]> -> tensor<128x64xbf16, #blocked2>
      %5 = tile.convert_layout %4 : tensor<128x64xbf16, #blocked2> -> tensor<128x64xbf16, #dot_op>
      // expected-remark @below {{2 loads on cp.async in a 3-stage ring}}
      %6 = scf.for %arg0 = %c0_i32 to %S step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x64xf32, #mma>)  : i32 {
        %7 = tile.load %1[%c0_i32, %arg0] : !tile.view<64x?xbf16, strides = [1, 64]> -> tensor<64x64xbf16, #blocked3>
        %8 = tile.load %2[%arg0, %c0_i32] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16, #blocked2>
        %9 = tile.convert_layout %7 : tensor<64x64xbf16, #blocked3> -> tensor<64x64xbf16, #dot_op1>
        %10 = tile.dot %5, %9, %cst : tensor<128x64xbf16, #dot_op>, tensor<64x64xbf16, #dot_op1> -> tensor<128x64xf32, #mma>
        %11 = tile.convert_layout %10 : tensor<128x64xf32, #mma> -> tensor<128x64xf32, #dot_op>
        %12 = arith.truncf %11 : tensor<128x64xf32, #dot_op> to tensor<128x64xbf16, #dot_op>
        %13 = tile.convert_layout %8 : tensor<64x64xbf16, #blocked2> -> tensor<64x64xbf16, #dot_op1>
        %14 = tile.dot %12, %13, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x64xbf16, #dot_op1> -> tensor<128x64xf32, #mma>
        scf.yield %14 : tensor<128x64xf32, #mma>
      }
      tile.store %6, %3[%c0_i32, %c0_i32] : tensor<128x64xf32, #mma>, !tile.view<128x64xf32, strides = [64, 1]>
      tile.return
    }
  }

}

// -----

// Q's pointer is not known to be 16-byte aligned: no cp.async copy can
// serve it, so it stays in registers (and ptxas spills).

// CHECK-LABEL: tile.kernel @q_unaligned
// CHECK: tile.load %{{.*}} -> tensor<128x128xbf16
// CHECK-NOT: tile.smem<1x128x128

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#blocked2 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @q_unaligned [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">] {
    tile.kernel @q_unaligned(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<f32> {tile.align = 16 : i64}, %S: i32) grid(1) warps(4) {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.make_view %Q[128, 128] strides [128, 1] : !tile.ptr<bf16>
      %1 = tile.make_view %K[128, %S] strides [1, 128] : !tile.ptr<bf16>
      %2 = tile.make_view %V[%S, 128] strides [128, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %O[128, 128] strides [128, 1] : !tile.ptr<f32>
      %4 = tile.load %0[%c0_i32, %c0_i32] : !tile.view<128x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16, #blocked>
      %5 = tile.convert_layout %4 : tensor<128x128xbf16, #blocked> -> tensor<128x128xbf16, #dot_op>
      // expected-remark @below {{2 loads on cp.async in a 3-stage ring}}
      %6 = scf.for %arg0 = %c0_i32 to %S step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %7 = tile.load %1[%c0_i32, %arg0] : !tile.view<128x?xbf16, strides = [1, 128]> -> tensor<128x64xbf16, #blocked1>
        %8 = tile.load %2[%arg0, %c0_i32] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<64x128xbf16, #blocked>
        %9 = tile.convert_layout %7 : tensor<128x64xbf16, #blocked1> -> tensor<128x64xbf16, #dot_op1>
        %10 = tile.dot %5, %9, %cst_0 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #dot_op1> -> tensor<128x64xf32, #mma>
        %11 = tile.convert_layout %10 : tensor<128x64xf32, #mma> -> tensor<128x64xf32, #dot_op>
        %12 = arith.truncf %11 : tensor<128x64xf32, #dot_op> to tensor<128x64xbf16, #dot_op>
        %13 = tile.convert_layout %8 : tensor<64x128xbf16, #blocked> -> tensor<64x128xbf16, #dot_op1>
        %14 = tile.dot %12, %13, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x128xbf16, #dot_op1> -> tensor<128x128xf32, #mma>
        scf.yield %14 : tensor<128x128xf32, #mma>
      }
      tile.store %6, %3[%c0_i32, %c0_i32] : tensor<128x128xf32, #mma>, !tile.view<128x128xf32, strides = [128, 1]>
      tile.return
    }
  }
}

// -----

// schedule<operands_in_smem = true> (tile.attention's config q_in_smem):
// Q waits in shared memory although its registers would fit (head dim 64).

// CHECK-LABEL: tile.kernel @q_staged_by_schedule
// CHECK-NOT: tile.load %{{.*}} -> tensor<128x64xbf16
// CHECK: %[[Q:.+]] = tile.local_alloc : !tile.smem<1x128x64xbf16, #{{.+}}>
// CHECK: tile.async_copy %{{.+}}, %[[Q]][%{{.+}}]
// CHECK-NEXT: tile.async_commit
// CHECK: scf.for
// CHECK: tile.local_load %[[Q]]
// CHECK-NEXT: tile.dot

#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#blocked2 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @q_staged_by_schedule [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">] {
    tile.kernel @q_staged_by_schedule(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<f32> {tile.align = 16 : i64}, %S: i32) grid(1) warps(4) schedule<operands_in_smem = true> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.make_view %Q[128, 64] strides [64, 1] : !tile.ptr<bf16>
      %1 = tile.make_view %K[64, %S] strides [1, 64] : !tile.ptr<bf16>
      %2 = tile.make_view %V[%S, 64] strides [64, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %O[128, 64] strides [64, 1] : !tile.ptr<f32>
      // expected-remark @below {{this loop-invariant dot operand waits in shared memory and is read anew at each use, as the schedule's operands_in_smem asks}}
      %4 = tile.load %0[%c0_i32, %c0_i32] : !tile.view<128x64xbf16, strides = [64, 1]> -> tensor<128x64xbf16, #blocked2>
      %5 = tile.convert_layout %4 : tensor<128x64xbf16, #blocked2> -> tensor<128x64xbf16, #dot_op>
      // expected-remark @below {{2 loads on cp.async in a 3-stage ring}}
      %6 = scf.for %arg0 = %c0_i32 to %S step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x64xf32, #mma>)  : i32 {
        %7 = tile.load %1[%c0_i32, %arg0] : !tile.view<64x?xbf16, strides = [1, 64]> -> tensor<64x64xbf16, #blocked3>
        %8 = tile.load %2[%arg0, %c0_i32] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16, #blocked2>
        %9 = tile.convert_layout %7 : tensor<64x64xbf16, #blocked3> -> tensor<64x64xbf16, #dot_op1>
        %10 = tile.dot %5, %9, %cst : tensor<128x64xbf16, #dot_op>, tensor<64x64xbf16, #dot_op1> -> tensor<128x64xf32, #mma>
        %11 = tile.convert_layout %10 : tensor<128x64xf32, #mma> -> tensor<128x64xf32, #dot_op>
        %12 = arith.truncf %11 : tensor<128x64xf32, #dot_op> to tensor<128x64xbf16, #dot_op>
        %13 = tile.convert_layout %8 : tensor<64x64xbf16, #blocked2> -> tensor<64x64xbf16, #dot_op1>
        %14 = tile.dot %12, %13, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x64xbf16, #dot_op1> -> tensor<128x64xf32, #mma>
        scf.yield %14 : tensor<128x64xf32, #mma>
      }
      tile.store %6, %3[%c0_i32, %c0_i32] : tensor<128x64xf32, #mma>, !tile.view<128x64xf32, strides = [64, 1]>
      tile.return
    }
  }
}

// -----

// schedule<operands_in_smem = false>: Q stays in registers although the
// estimate says they do not fit (head dim 128, as @q_staged).

// CHECK-LABEL: tile.kernel @q_kept_by_schedule
// CHECK: %[[QR:.+]] = tile.load %{{.*}} -> tensor<128x128xbf16
// CHECK-NEXT: %[[QA:.+]] = tile.convert_layout %[[QR]]
// CHECK-NOT: tile.smem<1x128x128
// CHECK: tile.dot %[[QA]]

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @q_kept_by_schedule [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">] {
    tile.kernel @q_kept_by_schedule(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<f32> {tile.align = 16 : i64}, %S: i32) grid(1) warps(4) schedule<operands_in_smem = false> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.make_view %Q[128, 128] strides [128, 1] : !tile.ptr<bf16>
      %1 = tile.make_view %K[128, %S] strides [1, 128] : !tile.ptr<bf16>
      %2 = tile.make_view %V[%S, 128] strides [128, 1] : !tile.ptr<bf16>
      %3 = tile.make_view %O[128, 128] strides [128, 1] : !tile.ptr<f32>
      %4 = tile.load %0[%c0_i32, %c0_i32] : !tile.view<128x128xbf16, strides = [128, 1]> -> tensor<128x128xbf16, #blocked>
      %5 = tile.convert_layout %4 : tensor<128x128xbf16, #blocked> -> tensor<128x128xbf16, #dot_op>
      // expected-remark @below {{2 loads on cp.async in a 3-stage ring}}
      %6 = scf.for %arg0 = %c0_i32 to %S step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x128xf32, #mma>)  : i32 {
        %7 = tile.load %1[%c0_i32, %arg0] : !tile.view<128x?xbf16, strides = [1, 128]> -> tensor<128x64xbf16, #blocked1>
        %8 = tile.load %2[%arg0, %c0_i32] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<64x128xbf16, #blocked>
        %9 = tile.convert_layout %7 : tensor<128x64xbf16, #blocked1> -> tensor<128x64xbf16, #dot_op1>
        %10 = tile.dot %5, %9, %cst_0 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #dot_op1> -> tensor<128x64xf32, #mma>
        %11 = tile.convert_layout %10 : tensor<128x64xf32, #mma> -> tensor<128x64xf32, #dot_op>
        %12 = arith.truncf %11 : tensor<128x64xf32, #dot_op> to tensor<128x64xbf16, #dot_op>
        %13 = tile.convert_layout %8 : tensor<64x128xbf16, #blocked> -> tensor<64x128xbf16, #dot_op1>
        %14 = tile.dot %12, %13, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x128xbf16, #dot_op1> -> tensor<128x128xf32, #mma>
        scf.yield %14 : tensor<128x128xf32, #mma>
      }
      tile.store %6, %3[%c0_i32, %c0_i32] : tensor<128x128xf32, #mma>, !tile.view<128x128xf32, strides = [128, 1]>
      tile.return
    }
  }
}

// -----

// One Q read by the dots of two loops (attention's key loop split at its
// masked blocks), converted before each: one buffer and one copy serve
// both loops.

// CHECK-LABEL: tile.kernel @q_two_loops
// CHECK: %[[Q:.+]] = tile.local_alloc : !tile.smem<1x128x64xbf16, #{{.+}}>
// CHECK: tile.async_copy %{{.+}}, %[[Q]][%{{.+}}]
// CHECK-NEXT: tile.async_commit
// CHECK-NOT: = tile.local_alloc : !tile.smem<1x128x64xbf16
// CHECK-NOT: tile.async_copy {{.*}} !tile.smem<1x128x64xbf16
// CHECK: scf.for
// CHECK: tile.local_load %[[Q]]
// CHECK: scf.for
// CHECK: tile.local_load %[[Q]]
// CHECK-NOT: tile.convert_layout {{.*}} -> tensor<128x64xbf16, #dot_op>

#blocked2 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked3 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @q_two_loops [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">] {
    tile.kernel @q_two_loops(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<f32> {tile.align = 16 : i64}, %S: i32, %T: i32) grid(1) warps(4) schedule<operands_in_smem = true> {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.make_view %Q[128, 64] strides [64, 1] : !tile.ptr<bf16>
      %1 = tile.make_view %K[64, %T] strides [1, 64] : !tile.ptr<bf16>
      %3 = tile.make_view %O[128, 64] strides [64, 1] : !tile.ptr<f32>
      // expected-remark @below {{this loop-invariant dot operand waits in shared memory and is read anew at each use, as the schedule's operands_in_smem asks}}
      %4 = tile.load %0[%c0_i32, %c0_i32] : !tile.view<128x64xbf16, strides = [64, 1]> -> tensor<128x64xbf16, #blocked2>
      %5 = tile.convert_layout %4 : tensor<128x64xbf16, #blocked2> -> tensor<128x64xbf16, #dot_op>
      // expected-remark @below {{1 load on cp.async in a 3-stage ring}}
      %6 = scf.for %arg0 = %c0_i32 to %S step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<128x64xf32, #mma>)  : i32 {
        %7 = tile.load %1[%c0_i32, %arg0] : !tile.view<64x?xbf16, strides = [1, 64]> -> tensor<64x64xbf16, #blocked3>
        %9 = tile.convert_layout %7 : tensor<64x64xbf16, #blocked3> -> tensor<64x64xbf16, #dot_op1>
        %10 = tile.dot %5, %9, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x64xbf16, #dot_op1> -> tensor<128x64xf32, #mma>
        scf.yield %10 : tensor<128x64xf32, #mma>
      }
      %15 = tile.convert_layout %4 : tensor<128x64xbf16, #blocked2> -> tensor<128x64xbf16, #dot_op>
      // expected-remark @below {{1 load on cp.async in a 3-stage ring}}
      %16 = scf.for %arg0 = %S to %T step %c64_i32 iter_args(%arg1 = %6) -> (tensor<128x64xf32, #mma>)  : i32 {
        %7 = tile.load %1[%c0_i32, %arg0] : !tile.view<64x?xbf16, strides = [1, 64]> -> tensor<64x64xbf16, #blocked3>
        %9 = tile.convert_layout %7 : tensor<64x64xbf16, #blocked3> -> tensor<64x64xbf16, #dot_op1>
        %10 = tile.dot %15, %9, %arg1 : tensor<128x64xbf16, #dot_op>, tensor<64x64xbf16, #dot_op1> -> tensor<128x64xf32, #mma>
        scf.yield %10 : tensor<128x64xf32, #mma>
      }
      tile.store %16, %3[%c0_i32, %c0_i32] : tensor<128x64xf32, #mma>, !tile.view<128x64xf32, strides = [64, 1]>
      tile.return
    }
  }
}
// -----

// Head dim 256 on 8 warps whose 64 rows split the columns too (the
// attention backward's dK/dV programs): each warp holds the whole rows of
// an A operand for its warp row, so K and V take 64 registers a thread
// each, not 32 (a copy per warp column), and with the loop's 96 they go to
// shared memory.

// CHECK-LABEL: tile.kernel @kv_staged
// CHECK-COUNT-2: tile.local_alloc : !tile.smem<1x64x256xbf16
// CHECK: scf.for
// CHECK-COUNT-2: tile.local_load

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [2, 4]>
#mma1 = #tile.mma<warpsPerCTA = [4, 2]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma1, kWidth = 2>
#dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma1, kWidth = 2>
#dot_op2 = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#dot_op3 = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {gpu.container_module} {
  gpu.module @kv_staged [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">] {
    tile.kernel @kv_staged(%K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %D: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<f32> {tile.align = 16 : i64}, %S: i32 {tile.divisibility = 16 : i64}) grid(1) warps(8) {
      %cst = arith.constant dense<0.000000e+00> : tensor<64x256xf32, #mma>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma1>
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %0 = tile.make_view %K[64, 256] strides [256, 1] : !tile.ptr<bf16>
      %1 = tile.make_view %V[64, 256] strides [256, 1] : !tile.ptr<bf16>
      %2 = tile.make_view %Q[256, %S] strides [1, 256] : !tile.ptr<bf16>
      %3 = tile.make_view %D[256, %S] strides [1, 256] : !tile.ptr<bf16>
      %4 = tile.make_view %D[%S, 256] strides [256, 1] : !tile.ptr<bf16>
      %5 = tile.make_view %O[64, 256] strides [256, 1] : !tile.ptr<f32>
      // expected-remark @below {{this loop-invariant dot operand waits in shared memory and is read anew at each use: the loop keeps 96 registers a thread live, the operands 128 more, over the budget of 255 (less 32 in reserve)}}
      %6 = tile.load %0[%c0_i32, %c0_i32] : !tile.view<64x256xbf16, strides = [256, 1]> -> tensor<64x256xbf16, #blocked>
      // expected-remark @below {{the operands 128 more}}
      %7 = tile.load %1[%c0_i32, %c0_i32] : !tile.view<64x256xbf16, strides = [256, 1]> -> tensor<64x256xbf16, #blocked>
      %8 = tile.convert_layout %6 : tensor<64x256xbf16, #blocked> -> tensor<64x256xbf16, #dot_op>
      %9 = tile.convert_layout %7 : tensor<64x256xbf16, #blocked> -> tensor<64x256xbf16, #dot_op>
      // expected-remark @below {{loads stay synchronous}}
      %10 = scf.for %arg0 = %c0_i32 to %S step %c64_i32 iter_args(%arg1 = %cst) -> (tensor<64x256xf32, #mma>)  : i32 {
        %12 = tile.load %2[%c0_i32, %arg0] : !tile.view<256x?xbf16, strides = [1, 256]> -> tensor<256x64xbf16, #blocked1>
        %13 = tile.convert_layout %12 : tensor<256x64xbf16, #blocked1> -> tensor<256x64xbf16, #dot_op1>
        %14 = tile.dot %8, %13, %cst_0 : tensor<64x256xbf16, #dot_op>, tensor<256x64xbf16, #dot_op1> -> tensor<64x64xf32, #mma1>
        %15 = tile.load %3[%c0_i32, %arg0] : !tile.view<256x?xbf16, strides = [1, 256]> -> tensor<256x64xbf16, #blocked1>
        %16 = tile.convert_layout %15 : tensor<256x64xbf16, #blocked1> -> tensor<256x64xbf16, #dot_op1>
        %17 = tile.dot %9, %16, %cst_0 : tensor<64x256xbf16, #dot_op>, tensor<256x64xbf16, #dot_op1> -> tensor<64x64xf32, #mma1>
        %18 = arith.mulf %14, %17 : tensor<64x64xf32, #mma1>
        %19 = tile.convert_layout %18 : tensor<64x64xf32, #mma1> -> tensor<64x64xf32, #dot_op2>
        %20 = arith.truncf %19 : tensor<64x64xf32, #dot_op2> to tensor<64x64xbf16, #dot_op2>
        %21 = tile.load %4[%arg0, %c0_i32] : !tile.view<?x256xbf16, strides = [256, 1]> -> tensor<64x256xbf16, #blocked>
        %22 = tile.convert_layout %21 : tensor<64x256xbf16, #blocked> -> tensor<64x256xbf16, #dot_op3>
        %23 = tile.dot %20, %22, %arg1 : tensor<64x64xbf16, #dot_op2>, tensor<64x256xbf16, #dot_op3> -> tensor<64x256xf32, #mma>
        scf.yield %23 : tensor<64x256xf32, #mma>
      }
      %11 = arith.addf %10, %10 : tensor<64x256xf32, #mma>
      tile.store %11, %5[%c0_i32, %c0_i32] : tensor<64x256xf32, #mma>, !tile.view<64x256xf32, strides = [256, 1]>
      tile.return
    }
  }
}

