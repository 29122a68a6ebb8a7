// linalg.batch_reduce_matmul on tensors with a dynamic batch, accumulating
// into a caller's tensor: tile-from-linalg outlines one batch-reduce
// tile.gemm kernel (its K loop runs through every matrix) that reads the
// init with beta = 1, and the host program launches it once.
// batch_reduce_main.cpp calls it (scripts/gpu/host_e2e_check.py).
func.func @brmm(%a: tensor<?x129x72xbf16>, %b: tensor<?x72x80xbf16>,
                %c: tensor<129x80xf32>) -> tensor<129x80xf32> {
  %r = linalg.batch_reduce_matmul ins(%a, %b : tensor<?x129x72xbf16>, tensor<?x72x80xbf16>)
                                  outs(%c : tensor<129x80xf32>) -> tensor<129x80xf32>
  return %r : tensor<129x80xf32>
}
