// The linalg frontend end to end: tile-from-linalg outlines the matmuls of
// this file into tile.gemm kernels, tile-expand-named-ops expands them per
// chip, and tilec compiles every kernel to PTX that ptxas accepts: mma.sync
// on sm_80, wgmma on sm_90a. The host function and launch stubs stay in the
// module and are ignored by the compile.

// The outlined kernels expand for sm_90a into block programs whose schedule
// asks the scheduling passes for the warp-specialized, persistent kernel.
// RUN: tilec-opt %s -tile-from-linalg | tilec-opt --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s --check-prefix=EXPAND
// EXPAND: tile.kernel @linalg_gemm_bias_relu_gemm0(
// EXPAND-SAME: schedule<stages = 3, tma = true, async_wgmma = true, warp_specialize = true, producer_regs = 40, consumer_regs = 232, persistent = true, tma_store = true>
// EXPAND-NOT: tile.gemm
// EXPAND-NOT: tile.warp_specialize
// EXPAND: tile.dot
// EXPAND: arith.maximumf
// EXPAND: tile.kernel @linalg_gemm_transpose_b_gemm0(
// EXPAND-SAME: warp_specialize = true
// EXPAND-SAME: persistent = true
// EXPAND-SAME: tma_store = false
// EXPAND-NOT: tile.gemm
// EXPAND-NOT: tile.warp_specialize
// EXPAND: tile.dot

// Straight through a pipe, sm_80.
// RUN: tilec-opt %s -tile-from-linalg | tilec - --chip=sm_80 --emit=ptx -o - | FileCheck %s --check-prefix=SM80
// SM80: .target sm_80
// SM80: .visible .entry linalg_gemm_bias_relu_gemm0(
// SM80: cp.async.cg.shared.global
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM80: max.NaN.f32
// SM80: .visible .entry linalg_gemm_transpose_b_gemm0(
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// Through files, per kernel, for sm_80 and sm_90a; ptxas accepts each.
// RUN: tilec-opt %s -tile-from-linalg -o %t.mlir
// RUN: tilec %t.mlir --chip=sm_80 --emit=ptx -o %t.sm80
// RUN: %ptxas -arch=sm_80 %t.sm80/linalg_gemm_bias_relu_gemm0.ptx -o %t.sm80/a.cubin
// RUN: %ptxas -arch=sm_80 %t.sm80/linalg_gemm_transpose_b_gemm0.ptx -o %t.sm80/b.cubin
// RUN: tilec %t.mlir --chip=sm_90a --emit=ptx -o %t.sm90a
// RUN: FileCheck %s --check-prefix=SM90A < %t.sm90a/linalg_gemm_bias_relu_gemm0.ptx
// RUN: FileCheck %s --check-prefix=SM90A-T < %t.sm90a/linalg_gemm_transpose_b_gemm0.ptx
// RUN: %ptxas -arch=sm_90a %t.sm90a/linalg_gemm_bias_relu_gemm0.ptx -o %t.sm90a/a.cubin
// RUN: %ptxas -arch=sm_90a %t.sm90a/linalg_gemm_transpose_b_gemm0.ptx -o %t.sm90a/b.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t.sm90a/linalg_gemm_bias_relu_gemm0.json

// SM90A: .target sm_90a
// SM90A: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// SM90A: max.NaN.f32
// The static 512x1024x256 GEMM has 16 tiles of 128x256, fewer than half the
// SMs: its shape class (include/tilec/Rules/ShapeRules.h, what tilec.gemm
// dispatches to at run time) takes 64-wide N tiles.
// SM90A-T: .target sm_90a
// SM90A-T: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// SM90A-T-NOT: m64n256k16

// The launch metadata names the parameters after the outlined kernel's:
// pointers A, B, bias, C, then the sizes the grid rule uses.
// JSON: "grid": [
// JSON-NEXT: "ceildiv(M, 128) * ceildiv(N, 256)"
// JSON: "name": "A"
// JSON: "name": "B"
// JSON: "name": "bias"
// JSON: "name": "C"
// JSON: "name": "M"
// JSON: "name": "N"
// JSON: "name": "K"

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// relu(A * B + bias) in bf16, any M, N, K.
func.func @linalg_gemm_bias_relu(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>, %bias: tensor<?xf32>,
                                 %m: index, %n: index) -> tensor<?x?xbf16> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x?xbf16>, tensor<?x?xbf16>)
                      outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  %o = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%o : tensor<?x?xbf16>) {
  ^bb0(%x: f32, %y: f32, %out: bf16):
    %s = arith.addf %x, %y : f32
    %zero = arith.constant 0.0 : f32
    %t = arith.maximumf %s, %zero : f32
    %u = arith.truncf %t : f32 to bf16
    linalg.yield %u : bf16
  } -> tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_bt = affine_map<(m, n, k) -> (n, k)>
#map_c = affine_map<(m, n, k) -> (m, n)>

// A * B^T in f16 with f32 output, B stored N x K (column-major K x N).
func.func @linalg_gemm_transpose_b(%a: tensor<512x256xf16>, %b: tensor<1024x256xf16>) -> tensor<512x1024xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x1024xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %r = linalg.matmul indexing_maps = [#map_a, #map_bt, #map_c]
      ins(%a, %b : tensor<512x256xf16>, tensor<1024x256xf16>)
      outs(%z : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}
