// A transformer block's projection as a frontend writes it: y = relu(x W +
// r) with a residual r and the ReLU as compare + select, bf16 out. The
// residual add and the ReLU fuse into the tile.gemm kernel (r becomes C,
// read with beta = 1); the host program is one launch. residual_main.cpp
// calls it (scripts/gpu/host_e2e_check.py).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @residual(%x: tensor<?x128xbf16>, %w: tensor<128x96xbf16>, %r: tensor<?x96xbf16>) -> tensor<?x96xbf16> {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x128xbf16>
  %e = tensor.empty(%m) : tensor<?x96xf32>
  %z = linalg.fill ins(%f0 : f32) outs(%e : tensor<?x96xf32>) -> tensor<?x96xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x128xbf16>, tensor<128x96xbf16>) outs(%z : tensor<?x96xf32>) -> tensor<?x96xf32>
  %o = tensor.empty(%m) : tensor<?x96xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %r : tensor<?x96xf32>, tensor<?x96xbf16>) outs(%o : tensor<?x96xbf16>) {
  ^bb0(%a: f32, %res: bf16, %out: bf16):
    %rf = arith.extf %res : bf16 to f32
    %s = arith.addf %a, %rf : f32
    %pos = arith.cmpf ogt, %s, %f0 : f32
    %v = arith.select %pos, %s, %f0 : f32
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x96xbf16>
  return %y : tensor<?x96xbf16>
}
