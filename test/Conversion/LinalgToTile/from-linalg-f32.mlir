// RUN: tilec-opt %s -split-input-file -tile-from-linalg | FileCheck %s --check-prefixes=CHECK,TF32X3
// RUN: tilec-opt %s -split-input-file -tile-from-linalg=f32-precision=tf32x3 | FileCheck %s --check-prefixes=CHECK,TF32X3
// RUN: tilec-opt %s -split-input-file -tile-from-linalg=f32-precision=tf32 | FileCheck %s --check-prefixes=CHECK,TF32
// RUN: tilec-opt %s -split-input-file -tile-from-linalg=f32-precision=ieee | FileCheck %s --check-prefixes=CHECK,IEEE
// RUN: tilec-opt %s -split-input-file -tile-from-linalg="f32-precision=ieee strict=true" | FileCheck %s --check-prefixes=CHECK,IEEE
// RUN: not tilec-opt %s -tile-from-linalg=f32-precision=fp64 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADOPT

// f32 matmuls (torch's default dtype, and upstream MLIR's linalg tests) run
// on TF32 tensor cores, multiplied as `f32-precision` says: tf32x3 (the
// default: three TF32 products per step, about f32's accuracy), tf32 (one
// product, as torch with allow_tf32), or ieee (exact products, on FMA
// instructions: tile.gemm's default precision, not printed).
// TF32 B is read K-major: a [K, N] B goes through the transpose kernel.

// BADOPT: for the --f32-precision option: Cannot find option named 'fp64'!

// CHECK-LABEL: func.func @matmul_f32
// CHECK-SAME: (%[[A:.+]]: tensor<?x?xf32>, %[[B:.+]]: tensor<?x?xf32>
// CHECK-DAG: %[[N:.+]] = tensor.dim %[[B]], %c1
// CHECK-DAG: %[[K:.+]] = tensor.dim %[[B]], %c0
// CHECK: %[[BE:.+]] = tensor.empty(%[[N]], %[[K]]) : tensor<?x?xf32>
// CHECK: %[[BT:.+]] = tile.launch @matmul_f32_transpose0(%[[B]] : {{.*}}) outs(%[[BE]] :
// CHECK-NEXT: tile.launch @matmul_f32_gemm0(%[[A]], %[[BT]] : {{.*}}) outs(%{{.+}} :
// CHECK: tile.kernel @matmul_f32_transpose0(%{{.+}}: !tile.ptr<f32>, %{{.+}}: !tile.ptr<f32>, %[[R:.+]]: i32, %[[C:.+]]: i32) grid(ceildiv(%[[R]], 64) * ceildiv(%[[C]], 64))
// CHECK: tile.kernel @matmul_f32_gemm0(
// CHECK: tile.make_view %{{.+}}[%[[GK:.+]], %{{.+}}] strides [1, %[[GK]]]
// TF32X3: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} precision(tf32x3) :
// TF32: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} precision(tf32) :
// IEEE: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} : !tile.view
func.func @matmul_f32(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %m: index, %n: index) -> tensor<?x?xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// nn.Linear in f32 (B = W^T through linalg.transpose, then a bias): W is
// already [N, K], so no transpose kernel; the bias is fused; the matmul
// accumulating into the bias-free init of a zero fill stores C once.

// CHECK-LABEL: func.func @linear_f32
// CHECK-NOT: transpose
// CHECK: tile.launch @linear_f32_gemm0(
// CHECK-NOT: transpose
// CHECK: tile.kernel @linear_f32_gemm0(
// TF32X3: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} bias(%{{.+}}) precision(tf32x3) :
// TF32: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} bias(%{{.+}}) precision(tf32) :
// IEEE: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} bias(%{{.+}}) :
// CHECK-SAME: !tile.view<512x1024xf32, strides = [1, 512]>
func.func @linear_f32(%x: tensor<64x512xf32>, %w: tensor<1024x512xf32>, %bias: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %cst = arith.constant 0.0 : f32
  %wt0 = tensor.empty() : tensor<512x1024xf32>
  %wt = linalg.transpose ins(%w : tensor<1024x512xf32>) outs(%wt0 : tensor<512x1024xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<64x1024xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<64x512xf32>, tensor<512x1024xf32>)
                     outs(%z : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<64x1024xf32>, tensor<1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%acc: f32, %b: f32, %out: f32):
    %s = arith.addf %acc, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
}
