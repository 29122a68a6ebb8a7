// linalg.matvec and linalg.vecmat become skinny tile.gemm kernels (N = 1 or
// M = 1) that compile on both paths and that ptxas accepts.
// RUN: tilec-opt %s -tile-from-linalg -o %t.mlir
// RUN: tilec %t.mlir --chip=sm_90a --emit=ptx -o %t.sm90a
// RUN: %ptxas -arch=sm_90a %t.sm90a/matvec_gemm0.ptx -o %t.sm90a/a.cubin
// RUN: %ptxas -arch=sm_90a %t.sm90a/vecmat_gemm0.ptx -o %t.sm90a/b.cubin
// RUN: tilec %t.mlir --chip=sm_80 --emit=ptx -o %t.sm80
// RUN: %ptxas -arch=sm_80 %t.sm80/matvec_gemm0.ptx -o %t.sm80/a.cubin
// RUN: %ptxas -arch=sm_80 %t.sm80/vecmat_gemm0.ptx -o %t.sm80/b.cubin
// RUN: FileCheck %s < %t.sm80/matvec_gemm0.ptx
// CHECK: .entry matvec_gemm0
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @matvec(%a: tensor<4096x4096xbf16>, %x: tensor<4096xbf16>) -> tensor<4096xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %y = linalg.fill ins(%z : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.matvec ins(%a, %x : tensor<4096x4096xbf16>, tensor<4096xbf16>) outs(%y : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

func.func @vecmat(%x: tensor<?xf16>, %b: tensor<?x1000xf16>) -> tensor<1000xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000xf32>
  %y = linalg.fill ins(%z : f32) outs(%e : tensor<1000xf32>) -> tensor<1000xf32>
  %r = linalg.vecmat ins(%x, %b : tensor<?xf16>, tensor<?x1000xf16>) outs(%y : tensor<1000xf32>) -> tensor<1000xf32>
  return %r : tensor<1000xf32>
}
