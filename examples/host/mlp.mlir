// A frontend's layer on tensors: y = tanh(relu(x W + bias)), M dynamic.
// tile-from-linalg fuses the bias and the ReLU into the tile.gemm kernel;
// the tanh stays on the host (a remark says why) and runs there, on the
// kernel's result, as loops. `tilec mlp.mlir --chip=sm_90a --emit=host`
// makes the host program; mlp_main.cpp calls it (scripts/gpu/host_e2e_check.py).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<?x256xbf16>, %w: tensor<256x192xbf16>, %bias: tensor<192xf32>) -> tensor<?x192xf32> {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x256xbf16>
  %e = tensor.empty(%m) : tensor<?x192xf32>
  %z = linalg.fill ins(%f0 : f32) outs(%e : tensor<?x192xf32>) -> tensor<?x192xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x256xbf16>, tensor<256x192xbf16>)
                      outs(%z : tensor<?x192xf32>) -> tensor<?x192xf32>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x192xf32>, tensor<192xf32>) outs(%e : tensor<?x192xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %f0 : f32
    linalg.yield %r : f32
  } -> tensor<?x192xf32>
  %e2 = tensor.empty(%m) : tensor<?x192xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<?x192xf32>) outs(%e2 : tensor<?x192xf32>) {
  ^bb0(%a: f32, %out: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<?x192xf32>
  return %y : tensor<?x192xf32>
}
