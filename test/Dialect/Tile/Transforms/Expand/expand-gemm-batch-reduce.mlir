// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_80}))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s --check-prefix=SM90A

// A batch-reduce tile.gemm (3-D A and B, 2-D C: C = sum_b A[b] B[b], as
// linalg.batch_reduce_matmul) is one block program over C's tiles: its K
// loop runs through the K steps of every matrix in turn (step t: matrix
// t / steps, K offset (t % steps) * BK), one loop for the pipeliners.

// CHECK-LABEL: tile.kernel @gemm_batch_reduce
// CHECK-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8)
// CHECK: %[[STEPS:.+]] = arith.ceildivsi %K, %{{.+}} : i32
// CHECK: %[[TOTAL:.+]] = arith.muli %[[STEPS]], %B : i32
// CHECK: scf.for %[[T:.+]] = %{{.+}} to %[[TOTAL]] step %{{.+}} iter_args(
// CHECK:   %[[MAT:.+]] = arith.divsi %[[T]], %[[STEPS]] : i32
// CHECK:   %[[KI:.+]] = arith.remsi %[[T]], %[[STEPS]] : i32
// CHECK:   %[[K0:.+]] = arith.muli %[[KI]], %{{.+}} : i32
// CHECK:   tile.load %{{.+}}[%[[MAT]], %{{.+}}, %[[K0]]] {{.*}} -> tensor<128x32xbf16>
// CHECK:   tile.load %{{.+}}[%[[MAT]], %[[K0]], %{{.+}}] {{.*}} -> tensor<32x256xbf16>
// CHECK:   tile.dot
// CHECK: } {tile.num_stages = 4 : i64}
// CHECK: scf.if
// CHECK: tile.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : tensor<128x256xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
// SM90A-LABEL: tile.kernel @gemm_batch_reduce
// SM90A-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256))
// SM90A-SAME: warp_specialize = true
// SM90A-SAME: tma_store = false
// SM90A: tile.load %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] {{.*}} -> tensor<128x64xbf16>
tile.kernel @gemm_batch_reduce(%A: !tile.ptr<bf16>, %Bm: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %beta: f32,
                               %B: i32, %M: i32, %N: i32, %K: i32, %sa: i32, %sb: i32) {
  %a = tile.make_view %A[%B, %M, %K] strides [%sa, %K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %Bm[%B, %K, %N] strides [%sb, %N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c beta(%beta) : !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
