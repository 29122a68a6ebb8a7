// A matmul tile-from-linalg leaves alone (unsigned i8 is refused with a
// remark): --emit=host still compiles the host code, as loops.
func.func @unsigned_matmul(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>) -> tensor<16x16xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<16x16xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<16x16xi32>) -> tensor<16x16xi32>
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<16x16xi8>, tensor<16x16xi8>) outs(%z : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}
