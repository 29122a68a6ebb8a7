// RUN: %mlir_opt %s --load-dialect-plugin=%tilec_plugin \
// RUN:   | %mlir_opt --load-dialect-plugin=%tilec_plugin | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%tilec_plugin --mlir-print-op-generic \
// RUN:   | %mlir_opt --load-dialect-plugin=%tilec_plugin | FileCheck %s
// Naming the plugin twice registers the same dialects and extensions twice,
// which the registry must accept.
// RUN: %mlir_opt %s --load-dialect-plugin=%tilec_plugin \
// RUN:   --load-dialect-plugin=%tilec_plugin | FileCheck %s

// Debian's stock mlir-opt-22 parses and prints tile programs once the plugin
// has registered the tile dialect. Only the round trip is checked here; the
// op syntax itself is covered by test/Dialect/Tile/IR/ops.mlir.

// CHECK-LABEL: tile.kernel @scale
// CHECK-SAME: (%x: !tile.ptr<f32>, %n: i32)
// CHECK-SAME: grid(ceildiv(%n, 512))
// CHECK: %[[PID:.+]] = tile.program_id x
// CHECK: %[[V:.+]] = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
// CHECK: %[[T:.+]] = tile.load %[[V]][%{{.+}}] : !tile.view<?xf32, strides = [1]> -> tensor<512xf32>
// CHECK: tile.store %{{.+}}, %[[V]][%{{.+}}] : tensor<512xf32>, !tile.view<?xf32, strides = [1]>
// CHECK: tile.return
tile.kernel @scale(%x: !tile.ptr<f32>, %n: i32) grid(ceildiv(%n, 512)) {
  %c512 = arith.constant 512 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c512 : i32
  %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
  %t = tile.load %v[%off] : !tile.view<?xf32, strides = [1]> -> tensor<512xf32>
  %two = arith.constant dense<2.0> : tensor<512xf32>
  %r = arith.mulf %t, %two : tensor<512xf32>
  tile.store %r, %v[%off] : tensor<512xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// CHECK-LABEL: tile.kernel @gemm
// CHECK: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} : !tile.view<?x?xbf16, strides = [?, 1]>
tile.kernel @gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                  %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
