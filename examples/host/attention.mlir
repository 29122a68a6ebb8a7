// Attention as a frontend writes it on tensors: batched Q Kᵀ, a scale by
// division, upstream's decomposed softmax (max / sub+exp / sum / div
// generics), P V, a cast to bf16; dynamic batch and sequence lengths,
// head dim 128. tile-from-linalg turns the whole pattern into one
// tile.attention kernel (one launch). attention_main.cpp calls it
// (scripts/gpu/host_e2e_check.py).
#map_id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map_row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @attention(%q: tensor<?x?x128xbf16>, %k: tensor<?x?x128xbf16>, %v: tensor<?x?x128xbf16>) -> tensor<?x?x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %q, %c0 : tensor<?x?x128xbf16>
  %sq = tensor.dim %q, %c1 : tensor<?x?x128xbf16>
  %skv = tensor.dim %k, %c1 : tensor<?x?x128xbf16>
  %f0 = arith.constant 0.0 : f32
  %es = tensor.empty(%b, %sq, %skv) : tensor<?x?x?xf32>
  %zs = linalg.fill ins(%f0 : f32) outs(%es : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<?x?x128xbf16>, tensor<?x?x128xbf16>)
      outs(%zs : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %x = linalg.generic {indexing_maps = [#map_id3, #map_id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<?x?x?xf32>) outs(%es : tensor<?x?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c8 = arith.constant 8.0 : f32
    %y = arith.divf %in, %c8 : f32
    linalg.yield %y : f32
  } -> tensor<?x?x?xf32>
  %er = tensor.empty(%b, %sq) : tensor<?x?xf32>
  %nan = arith.constant 0xFFC00000 : f32
  %fm = linalg.fill ins(%nan : f32) outs(%er : tensor<?x?xf32>) -> tensor<?x?xf32>
  %max = linalg.generic {indexing_maps = [#map_id3, #map_row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x?x?xf32>) outs(%fm : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maxnumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<?x?xf32>
  %exp = linalg.generic {indexing_maps = [#map_id3, #map_row3, #map_id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %max : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%es : tensor<?x?x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x?x?xf32>
  %fz = linalg.fill ins(%f0 : f32) outs(%er : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#map_id3, #map_row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%exp : tensor<?x?x?xf32>) outs(%fz : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<?x?xf32>
  %p = linalg.generic {indexing_maps = [#map_id3, #map_row3, #map_id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%es : tensor<?x?x?xf32>) {
  ^bb0(%in: f32, %sm: f32, %out: f32):
    %d = arith.divf %in, %sm : f32
    linalg.yield %d : f32
  } -> tensor<?x?x?xf32>
  %eo = tensor.empty(%b, %sq) : tensor<?x?x128xf32>
  %zo = linalg.fill ins(%f0 : f32) outs(%eo : tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<?x?x?xf32>, tensor<?x?x128xbf16>)
                           outs(%zo : tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %eb = tensor.empty(%b, %sq) : tensor<?x?x128xbf16>
  %ob = linalg.generic {indexing_maps = [#map_id3, #map_id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%o : tensor<?x?x128xf32>) outs(%eb : tensor<?x?x128xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x?x128xbf16>
  return %ob : tensor<?x?x128xbf16>
}
