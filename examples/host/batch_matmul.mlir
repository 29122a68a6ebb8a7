// linalg.batch_matmul on tensors with a dynamic batch: tile-from-linalg
// outlines a tile.gemm kernel for one 129 x 80 matrix, and the host program
// launches it once per batch index (tile.launch `batch`).
// batch_matmul_main.cpp calls it (scripts/gpu/host_e2e_check.py).
func.func @bmm(%a: tensor<?x129x64xbf16>, %b: tensor<?x64x80xbf16>) -> tensor<?x129x80xf32> {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x129x64xbf16>
  %e = tensor.empty(%n) : tensor<?x129x80xf32>
  %z = linalg.fill ins(%f0 : f32) outs(%e : tensor<?x129x80xf32>) -> tensor<?x129x80xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x129x64xbf16>, tensor<?x64x80xbf16>)
                           outs(%z : tensor<?x129x80xf32>) -> tensor<?x129x80xf32>
  return %r : tensor<?x129x80xf32>
}
