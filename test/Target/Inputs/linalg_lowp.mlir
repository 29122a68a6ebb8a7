// Frontend functions with f32, i8 and fp8 matmuls, as torch-mlir or upstream
// MLIR's linalg tests write them (B stored [K, N] unless said otherwise).
// Used by test/Target/linalg-lowp-ptx.mlir (PTX per chip) and
// scripts/gpu/linalg_lowp_check.py (the kernels on the GPU).

// f32 x f32 -> f32, any M, N, K: TF32 tensor cores (f32-precision), B
// transposed by a kernel first.
func.func @matmul_f32(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %m: index, %n: index) -> tensor<?x?xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// i8 x i8 -> i32 (signed), any M, N, K: B transposed first.
func.func @matmul_i8(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %m: index, %n: index) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty(%m, %n) : tensor<?x?xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<?x?xi32>) -> tensor<?x?xi32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xi8>, tensor<?x?xi8>)
                     outs(%z : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}

// e4m3 x e5m2 -> bf16, batched: B transposed per matrix first.
func.func @batch_matmul_fp8(%a: tensor<?x?x?xf8E4M3FN>, %b: tensor<?x?x?xf8E5M2>, %nb: index, %m: index, %n: index) -> tensor<?x?x?xbf16> {
  %cst = arith.constant 0.0 : bf16
  %e = tensor.empty(%nb, %m, %n) : tensor<?x?x?xbf16>
  %z = linalg.fill ins(%cst : bf16) outs(%e : tensor<?x?x?xbf16>) -> tensor<?x?x?xbf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E5M2>)
                           outs(%z : tensor<?x?x?xbf16>) -> tensor<?x?x?xbf16>
  return %r : tensor<?x?x?xbf16>
}

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_bt = affine_map<(m, n, k) -> (n, k)>
#map_c = affine_map<(m, n, k) -> (m, n)>
#map_id = affine_map<(m, n) -> (m, n)>
#map_col = affine_map<(m, n) -> (n)>

// An e4m3 nn.Linear (weight [N, K]) with bias and ReLU into bf16: no
// transpose, the epilogue fused.
func.func @linear_fp8_bias_relu(%x: tensor<?x?xf8E4M3FN>, %w: tensor<?x?xf8E4M3FN>, %bias: tensor<?xbf16>,
                                %m: index, %n: index) -> tensor<?x?xbf16> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.matmul indexing_maps = [#map_a, #map_bt, #map_c]
      ins(%x, %w : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>)
      outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  %o = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %r = linalg.generic {indexing_maps = [#map_id, #map_col, #map_id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<?x?xf32>, tensor<?xbf16>) outs(%o : tensor<?x?xbf16>) {
  ^bb0(%acc: f32, %b: bf16, %out: bf16):
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %acc, %bf : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %s, %zero : f32
    %t = arith.truncf %relu : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}
