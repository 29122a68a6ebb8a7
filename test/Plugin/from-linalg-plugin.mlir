// The README's command for stock MLIR tools, as a Debian user types it: the
// tool is `mlir-opt-22`, and a plugin's passes are reached through
// --pass-pipeline (they are registered after the command line is read).
// RUN: mlir-opt-22 --load-dialect-plugin=%tilec_plugin --load-pass-plugin=%tilec_plugin \
// RUN:   --pass-pipeline='builtin.module(tile-from-linalg)' %s | FileCheck %s
// RUN: not mlir-opt-22 --load-dialect-plugin=%tilec_plugin --load-pass-plugin=%tilec_plugin \
// RUN:   --tile-from-linalg %s 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: Unknown command line argument '--tile-from-linalg'

// CHECK-LABEL: func.func @matmul
// CHECK: tile.launch @matmul_gemm0
// CHECK: tile.kernel @matmul_gemm0
// CHECK: tile.gemm
func.func @matmul(%a: tensor<256x128xbf16>, %b: tensor<128x512xbf16>) -> tensor<256x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x128xbf16>, tensor<128x512xbf16>)
                     outs(%c : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}
