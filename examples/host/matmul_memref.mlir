// A matmul on buffers, as upstream's GPU tests and buffer-level frontends
// write it: C is zeroed, then C += A B (f16, M dynamic, odd sizes).
// tile-from-linalg drops the fill and launches a tile.gemm kernel that
// writes C in place; a second matmul accumulates into the same C (the
// kernel reads it: beta = 1). matmul_memref_main.cpp calls it
// (scripts/gpu/host_e2e_check.py).
func.func @matmul_memref(%a: memref<?x72xf16>, %b: memref<72x40xf16>, %a2: memref<?x72xf16>, %c: memref<?x40xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%c : memref<?x40xf16>)
  linalg.matmul ins(%a, %b : memref<?x72xf16>, memref<72x40xf16>) outs(%c : memref<?x40xf16>)
  linalg.matmul ins(%a2, %b : memref<?x72xf16>, memref<72x40xf16>) outs(%c : memref<?x40xf16>)
  return
}
