// Static shapes whose rows are not whole 16-byte chunks (100 x 37 x 13 bf16:
// rows of 74 and 26 bytes) convert and compile on every chip: on sm_90a
// TMA cannot read such rows, so tile.gemm takes its variant with plain
// loads instead of failing in an internal op (tile.make_tensor_map, as it
// once did); the threads stage the tiles in swizzled buffers that wgmma
// reads (fenced for the async proxy).
// RUN: tilec-opt %s -tile-from-linalg -o %t.mlir
// RUN: tilec %t.mlir --chip=sm_90a --emit=ptx -o %t.sm90a
// RUN: FileCheck %s --check-prefix=SM90A < %t.sm90a/mm_unaligned_gemm0.ptx
// RUN: %ptxas -arch=sm_90a %t.sm90a/mm_unaligned_gemm0.ptx -o %t.sm90a/a.cubin
// RUN: tilec %t.mlir --chip=sm_80 --emit=ptx -o %t.sm80
// RUN: %ptxas -arch=sm_80 %t.sm80/mm_unaligned_gemm0.ptx -o %t.sm80/a.cubin
// SM90A-NOT: cp.async.bulk.tensor
// SM90A: fence.proxy.async.shared::cta
// SM90A: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// SM90A-NOT: cp.async.bulk.tensor
func.func @mm_unaligned(%a: tensor<100x37xbf16>, %b: tensor<37x13xbf16>) -> tensor<100x13xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x13xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<100x13xf32>) -> tensor<100x13xf32>
  %r = linalg.matmul ins(%a, %b : tensor<100x37xbf16>, tensor<37x13xbf16>)
                     outs(%c : tensor<100x13xf32>) -> tensor<100x13xf32>
  return %r : tensor<100x13xf32>
}
