// RUN: tilec-opt %s -split-input-file -tile-from-linalg 2>/dev/null | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-from-linalg -verify-diagnostics -o /dev/null
// RUN: tilec-opt %s -split-input-file -tile-from-linalg --remarks-filter-passed=tile-from-linalg --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSED
// RUN: not tilec-opt %s -split-input-file -tile-from-linalg=strict=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: tilec-opt %s -split-input-file -tile-from-linalg=fallbacks=false 2>/dev/null | FileCheck %s --check-prefix=NOFALLBACK

// tile-from-linalg outlines linalg contractions and attention patterns into
// tile.kernels holding tile.gemm / tile.attention, and replaces them with a
// call to a launch stub. The expansion of the kernels is tested elsewhere
// (expand-named-ops.mlir, test/Target/linalg-gemm-ptx.mlir); this file checks
// the matching, the kernel signatures and views, and what is left alone.

// A static bf16 x bf16 -> f32 matmul into a zero fill: the fill is dead (C is
// not read), its destination becomes C's buffer, every size is static.

// CHECK-LABEL: func.func @matmul_static_bf16_f32
// CHECK-SAME: (%[[A:.+]]: tensor<256x128xbf16>, %[[B:.+]]: tensor<128x512xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<256x512xf32>
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = tile.launch @matmul_static_bf16_f32_gemm0(%[[A]], %[[B]] : tensor<256x128xbf16>, tensor<128x512xbf16>) outs(%[[E]] : tensor<256x512xf32>)
// CHECK-SAME: args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 2 : i64}] -> tensor<256x512xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: func.func private
// CHECK: tile.kernel @matmul_static_bf16_f32_gemm0(%[[PA:.+]]: !tile.ptr<bf16>, %[[PB:.+]]: !tile.ptr<bf16>, %[[PC:.+]]: !tile.ptr<f32>) warps(4) {
// CHECK-NEXT: %[[VA:.+]] = tile.make_view %[[PA]][256, 128] strides [128, 1]
// CHECK-NEXT: %[[VB:.+]] = tile.make_view %[[PB]][128, 512] strides [512, 1]
// CHECK-NEXT: %[[VC:.+]] = tile.make_view %[[PC]][256, 512] strides [512, 1]
// CHECK-NEXT: tile.gemm %[[VA]], %[[VB]], %[[VC]] :
// CHECK-NEXT: tile.return
// PASSED: remark: [Passed] Outlined | Category:tile-from-linalg | Function=matmul_static_bf16_f32 | Remark="outlined into tile.kernel @matmul_static_bf16_f32_gemm0 as tile.gemm"
func.func @matmul_static_bf16_f32(%a: tensor<256x128xbf16>, %b: tensor<128x512xbf16>) -> tensor<256x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x128xbf16>, tensor<128x512xbf16>)
                     outs(%z : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}

// -----

// Dynamic sizes become i32 parameters (M, N, K), read by the host from the
// operands' dimensions; the row strides of the row-major operands reuse them.
// The launch's fallback is the same kernel with `aligned = false`, for
// sizes the fast kernel's 16-byte rows cannot take (K = 13, say); with
// `fallbacks=false` there is none.

// CHECK-LABEL: func.func @matmul_dynamic_bf16
// CHECK: tile.launch @matmul_dynamic_bf16_gemm0({{.*}} : tensor<?x?xbf16>, tensor<?x?xbf16>) outs({{.*}} : tensor<?x?xbf16>)
// CHECK-SAME: args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 2 : i64}, {arg = 0 : i64, dim = 0 : i64}, {arg = 1 : i64, dim = 1 : i64}, {arg = 0 : i64, dim = 1 : i64}] fallback @matmul_dynamic_bf16_gemm0_aligned0 -> tensor<?x?xbf16>
// CHECK-NOT: func.func private
// CHECK: tile.kernel @matmul_dynamic_bf16_gemm0(%[[PA:.+]]: !tile.ptr<bf16>, %[[PB:.+]]: !tile.ptr<bf16>, %[[PC:.+]]: !tile.ptr<bf16>, %[[M:.+]]: i32, %[[N:.+]]: i32, %[[K:.+]]: i32)
// CHECK-NEXT: tile.make_view %[[PA]][%[[M]], %[[K]]] strides [%[[K]], 1]
// CHECK-NEXT: tile.make_view %[[PB]][%[[K]], %[[N]]] strides [%[[N]], 1]
// CHECK-NEXT: tile.make_view %[[PC]][%[[M]], %[[N]]] strides [%[[N]], 1]
// CHECK-NEXT: tile.gemm
// CHECK-NOT: config
// CHECK-SAME: !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
// CHECK: tile.kernel @matmul_dynamic_bf16_gemm0_aligned0(%{{.+}}: !tile.ptr<bf16>, %{{.+}}: !tile.ptr<bf16>, %{{.+}}: !tile.ptr<bf16>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32)
// CHECK: tile.gemm {{.*}} config <aligned = false>
// NOFALLBACK-LABEL: func.func @matmul_dynamic_bf16
// NOFALLBACK: tile.launch @matmul_dynamic_bf16_gemm0(
// NOFALLBACK-NOT: fallback
// NOFALLBACK-NOT: aligned0
// NOFALLBACK: func.func
func.func @matmul_dynamic_bf16(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>, %m: index, %n: index) -> tensor<?x?xbf16> {
  %cst = arith.constant 0.0 : bf16
  %e = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %z = linalg.fill ins(%cst : bf16) outs(%e : tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xbf16>, tensor<?x?xbf16>)
                     outs(%z : tensor<?x?xbf16>) -> tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}

// -----

// Transposed B through indexing maps (linalg.matmul_transpose_b before MLIR
// 22): B is stored N x K, i.e. a column-major K x N view. A static size wins
// over a dynamic one of the same dimension.

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_bt = affine_map<(m, n, k) -> (n, k)>
#map_c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @matmul_transpose_b_f16
// CHECK: tile.kernel @matmul_transpose_b_f16_gemm0(%[[PA:.+]]: !tile.ptr<f16>, %[[PB:.+]]: !tile.ptr<f16>, %[[PC:.+]]: !tile.ptr<f16>, %[[M:.+]]: i32)
// CHECK-NEXT: tile.make_view %[[PA]][%[[M]], 64] strides [64, 1]
// CHECK-NEXT: tile.make_view %[[PB]][64, 256] strides [1, 64]
// CHECK-NEXT: tile.make_view %[[PC]][%[[M]], 256] strides [256, 1]
// CHECK-NEXT: tile.gemm
// CHECK-SAME: !tile.view<64x256xf16, strides = [1, 64]>
func.func @matmul_transpose_b_f16(%a: tensor<?x64xf16>, %b: tensor<256x?xf16>, %m: index) -> tensor<?x256xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x256xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e : tensor<?x256xf16>) -> tensor<?x256xf16>
  %r = linalg.matmul indexing_maps = [#map_a, #map_bt, #map_c]
      ins(%a, %b : tensor<?x64xf16>, tensor<256x?xf16>)
      outs(%z : tensor<?x256xf16>) -> tensor<?x256xf16>
  return %r : tensor<?x256xf16>
}

// -----

// B produced by linalg.transpose: the transpose is looked through (and
// erased once dead), the kernel reads the untransposed tensor column-major.

// CHECK-LABEL: func.func @matmul_linalg_transpose
// CHECK-SAME: (%[[A:.+]]: tensor<128x64xbf16>, %[[BT:.+]]: tensor<256x64xbf16>)
// CHECK-NOT: linalg.transpose
// CHECK: tile.launch @matmul_linalg_transpose_gemm0(%[[A]], %[[BT]] :
// CHECK: tile.kernel @matmul_linalg_transpose_gemm0
// CHECK: tile.make_view %{{.+}}[64, 256] strides [1, 64]
func.func @matmul_linalg_transpose(%a: tensor<128x64xbf16>, %bt: tensor<256x64xbf16>) -> tensor<128x256xf32> {
  %te = tensor.empty() : tensor<64x256xbf16>
  %b = linalg.transpose ins(%bt : tensor<256x64xbf16>) outs(%te : tensor<64x256xbf16>) permutation = [1, 0]
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xbf16>, tensor<64x256xbf16>)
                     outs(%z : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// Accumulating into an initialized tensor: C += A * B is tile.gemm with
// beta = 1 (C is read), and the initial value is C's buffer.

// CHECK-LABEL: func.func @matmul_accumulate
// CHECK-SAME: %[[C:[^:]+]]: tensor<128x256xf32>)
// CHECK: tile.launch @matmul_accumulate_gemm0(%{{.+}}, %{{.+}} : {{.*}}) outs(%[[C]] :
// CHECK: tile.kernel @matmul_accumulate_gemm0
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} beta(%[[ONE]]) :
func.func @matmul_accumulate(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<128x64xbf16>, tensor<64x256xbf16>)
                     outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// batch_matmul: one batched tile.gemm over 3-D views, one launch; the batch
// size is a parameter, the batch strides the (static) matrix sizes.

// CHECK-LABEL: func.func @batch_matmul
// CHECK: tile.launch @batch_matmul_gemm0({{.*}} : tensor<?x128x64xbf16>, tensor<?x64x256xbf16>) outs({{.*}} : tensor<?x128x256xf32>)
// CHECK-SAME: args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 2 : i64}, {arg = 0 : i64, dim = 0 : i64}] fallback @batch_matmul_gemm0_aligned0 -> tensor<?x128x256xf32>
// CHECK: tile.kernel @batch_matmul_gemm0(%[[PA:.+]]: !tile.ptr<bf16>, %[[PB:.+]]: !tile.ptr<bf16>, %[[PC:.+]]: !tile.ptr<f32>, %[[BATCH:.+]]: i32)
// CHECK-NEXT: tile.make_view %[[PA]][%[[BATCH]], 128, 64] strides [8192, 64, 1]
// CHECK-NEXT: tile.make_view %[[PB]][%[[BATCH]], 64, 256] strides [16384, 256, 1]
// CHECK-NEXT: tile.make_view %[[PC]][%[[BATCH]], 128, 256] strides [32768, 256, 1]
// CHECK-NEXT: tile.gemm
func.func @batch_matmul(%a: tensor<?x128x64xbf16>, %b: tensor<?x64x256xbf16>, %nb: index) -> tensor<?x128x256xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%nb) : tensor<?x128x256xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x128x256xf32>) -> tensor<?x128x256xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x128x64xbf16>, tensor<?x64x256xbf16>)
                           outs(%z : tensor<?x128x256xf32>) -> tensor<?x128x256xf32>
  return %r : tensor<?x128x256xf32>
}

// -----

// batch_matmul with transposed-B maps: column-major B matrices; a dynamic K
// makes the batch strides of A and B parameters.

// CHECK-LABEL: func.func @batch_matmul_transpose_b
// CHECK-NOT: batch [
// CHECK: tile.kernel @batch_matmul_transpose_b_gemm0(%{{.+}}: !tile.ptr<f16>, %[[PB:.+]]: !tile.ptr<f16>, %{{.+}}: !tile.ptr<f16>, %[[K:.+]]: i32, %{{.+}}: i32, %[[SB:.+]]: i32)
// CHECK: tile.make_view %[[PB]][8, %[[K]], 128] strides [%[[SB]], 1, %[[K]]]
func.func @batch_matmul_transpose_b(%a: tensor<8x64x?xf16>, %b: tensor<8x128x?xf16>) -> tensor<8x64x128xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8x64x128xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e : tensor<8x64x128xf16>) -> tensor<8x64x128xf16>
  %r = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<8x64x?xf16>, tensor<8x128x?xf16>)
      outs(%z : tensor<8x64x128xf16>) -> tensor<8x64x128xf16>
  return %r : tensor<8x64x128xf16>
}

// -----

// A fused epilogue: bias (broadcast along rows), ReLU and the cast to bf16
// in one generic after an f32 matmul. tile.gemm computes it in f32 and
// stores bf16; the f32 intermediate disappears.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @matmul_bias_relu_bf16
// CHECK-SAME: (%[[A:.+]]: tensor<?x?xbf16>, %[[B:.+]]: tensor<?x?xbf16>, %[[BIAS:.+]]: tensor<?xf32>
// CHECK-NOT: linalg.
// CHECK-NOT: tensor<?x?xf32>
// CHECK: %[[E:.+]] = tensor.empty({{.*}}) : tensor<?x?xbf16>
// CHECK: tile.launch @matmul_bias_relu_bf16_gemm0(%[[A]], %[[B]], %[[BIAS]] : {{.*}}) outs(%[[E]] :
// CHECK: tile.kernel @matmul_bias_relu_bf16_gemm0(%{{.+}}: !tile.ptr<bf16>, %{{.+}}: !tile.ptr<bf16>, %[[PBIAS:.+]]: !tile.ptr<f32>, %{{.+}}: !tile.ptr<bf16>, %{{.+}}: i32, %[[N:.+]]: i32, %{{.+}}: i32)
// CHECK: %[[VBIAS:.+]] = tile.make_view %[[PBIAS]][%[[N]]] strides [1]
// CHECK-NEXT: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} bias(%[[VBIAS]]) activation(relu) :
func.func @matmul_bias_relu_bf16(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>, %bias: tensor<?xf32>, %m: index, %n: index) -> tensor<?x?xbf16> {
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

// -----

// The epilogue as two generics: a bias materialized with linalg.broadcast
// and added in place into the matmul's result (bf16 bias, extended in the
// payload), then a ReLU with maxnumf.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @matmul_broadcast_bias_then_relu
// CHECK-SAME: %[[BIAS:[^:]+]]: tensor<256xbf16>)
// CHECK-NOT: linalg.
// CHECK: tile.launch @matmul_broadcast_bias_then_relu_gemm0(%{{.+}}, %{{.+}}, %[[BIAS]] : tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<256xbf16>) outs(%{{.+}} : tensor<128x256xf32>) {{.*}} -> tensor<128x256xf32>
// CHECK: tile.gemm {{.*}} bias(%{{.+}}) activation(relu)
// CHECK-SAME: !tile.view<256xbf16, strides = [1]>
func.func @matmul_broadcast_bias_then_relu(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>, %bias: tensor<256xbf16>) -> tensor<128x256xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<128x64xbf16>, tensor<64x256xbf16>)
                      outs(%z : tensor<128x256xf32>) -> tensor<128x256xf32>
  %be = tensor.empty() : tensor<128x256xbf16>
  %bb = linalg.broadcast ins(%bias : tensor<256xbf16>) outs(%be : tensor<128x256xbf16>) dimensions = [0]
  %biased = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bb : tensor<128x256xbf16>) outs(%mm : tensor<128x256xf32>) {
  ^bb0(%y: bf16, %acc: f32):
    %yf = arith.extf %y : bf16 to f32
    %s = arith.addf %acc, %yf : f32
    linalg.yield %s : f32
  } -> tensor<128x256xf32>
  %o = tensor.empty() : tensor<128x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<128x256xf32>) outs(%o : tensor<128x256xf32>) {
  ^bb0(%x: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %t = arith.maxnumf %x, %zero : f32
    linalg.yield %t : f32
  } -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// An epilogue that is not bias + activation (here a scale by 2) stays a
// linalg.generic after the call; the matmul is still converted.

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @matmul_unfused_epilogue
// CHECK: %[[R:.+]] = tile.launch @matmul_unfused_epilogue_gemm0(
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]] : tensor<128x256xf32>)
// CHECK: tile.gemm %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} :
func.func @matmul_unfused_epilogue(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) -> tensor<128x256xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<128x64xbf16>, tensor<64x256xbf16>)
                      outs(%z : tensor<128x256xf32>) -> tensor<128x256xf32>
  %o = tensor.empty() : tensor<128x256xf32>
  // expected-remark @+1 {{this linalg.generic reads the result of kernel @matmul_unfused_epilogue_gemm0 and stays outside it}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<128x256xf32>) outs(%o : tensor<128x256xf32>) {
  ^bb0(%x: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %t = arith.mulf %x, %two : f32
    linalg.yield %t : f32
  } -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// Operands read from memrefs: an identity layout and a strided layout whose
// strides are the row-major ones are dense buffers.

// CHECK-LABEL: func.func @matmul_from_memrefs
// CHECK: %[[TA:.+]] = bufferization.to_tensor
// CHECK: %[[TB:.+]] = bufferization.to_tensor
// CHECK: tile.launch @matmul_from_memrefs_gemm0(%[[TA]], %[[TB]] :
// CHECK: tile.kernel @matmul_from_memrefs_gemm0
func.func @matmul_from_memrefs(%ma: memref<128x64xbf16>, %mb: memref<64x256xbf16, strided<[256, 1], offset: ?>>) -> tensor<128x256xf32> {
  %a = bufferization.to_tensor %ma : memref<128x64xbf16> to tensor<128x64xbf16>
  %b = bufferization.to_tensor %mb : memref<64x256xbf16, strided<[256, 1], offset: ?>> to tensor<64x256xbf16>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xbf16>, tensor<64x256xbf16>)
                     outs(%z : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// Two matmuls, the second consuming the first: two kernels numbered in
// program order, the first call's result feeds the second call.

// CHECK-LABEL: func.func @two_matmuls
// CHECK: %[[R0:.+]] = tile.launch @two_matmuls_gemm0(
// CHECK: %[[R1:.+]] = tile.launch @two_matmuls_gemm1(%[[R0]],
// CHECK: return %[[R1]]
// CHECK: tile.kernel @two_matmuls_gemm0(
// CHECK: tile.kernel @two_matmuls_gemm1(
func.func @two_matmuls(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>, %c: tensor<128x64xbf16>) -> tensor<128x64xf32> {
  %cst = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<128x128xbf16>
  %z = linalg.fill ins(%cst : bf16) outs(%e : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %ab = linalg.matmul ins(%a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>)
                      outs(%z : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %cf = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<128x64xf32>
  %z2 = linalg.fill ins(%cf : f32) outs(%e2 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %r = linalg.matmul ins(%ab, %c : tensor<128x128xbf16>, tensor<128x64xbf16>)
                     outs(%z2 : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %r : tensor<128x64xf32>
}

// -----

// Attention, 2-D: Q K^T (transposed-B maps), a scale by a constant, a
// linalg.softmax, P cast to bf16, P V into bf16. One tile.attention kernel
// over [1, 1, seq, head_dim] views with the matched scale.

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_bt = affine_map<(m, n, k) -> (n, k)>
#map_c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @attention_softmax_2d
// CHECK-SAME: (%[[Q:.+]]: tensor<128x64xbf16>, %[[K:.+]]: tensor<512x64xbf16>, %[[V:.+]]: tensor<512x64xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<128x64xbf16>
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = tile.launch @attention_softmax_2d_attention0(%[[Q]], %[[K]], %[[V]] : {{.*}}) outs(%[[E]] :
// CHECK-NEXT: return %[[R]]
// CHECK: tile.kernel @attention_softmax_2d_attention0(%[[PQ:.+]]: !tile.ptr<bf16>, %[[PK:.+]]: !tile.ptr<bf16>, %[[PV:.+]]: !tile.ptr<bf16>, %[[PO:.+]]: !tile.ptr<bf16>) warps(4) {
// CHECK-NEXT: %[[VQ:.+]] = tile.make_view %[[PQ]][1, 1, 128, 64] strides [64, 64, 64, 1]
// CHECK-NEXT: %[[VK:.+]] = tile.make_view %[[PK]][1, 1, 512, 64] strides [64, 64, 64, 1]
// CHECK-NEXT: %[[VV:.+]] = tile.make_view %[[PV]][1, 1, 512, 64] strides [64, 64, 64, 1]
// CHECK-NEXT: %[[VO:.+]] = tile.make_view %[[PO]][1, 1, 128, 64] strides [64, 64, 64, 1]
// CHECK-NEXT: tile.attention %[[VQ]], %[[VK]], %[[VV]], %[[VO]] scale(1.250000e-01) :
// CHECK-NEXT: tile.return
// PASSED: remark: [Passed] Outlined | Category:tile-from-linalg | Function=attention_softmax_2d | Remark="outlined into tile.kernel @attention_softmax_2d_attention0 as tile.attention"
func.func @attention_softmax_2d(%q: tensor<128x64xbf16>, %k: tensor<512x64xbf16>, %v: tensor<512x64xbf16>) -> tensor<128x64xbf16> {
  %f0 = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<128x512xf32>
  %zs = linalg.fill ins(%f0 : f32) outs(%es : tensor<128x512xf32>) -> tensor<128x512xf32>
  %s = linalg.matmul indexing_maps = [#map_a, #map_bt, #map_c]
      ins(%q, %k : tensor<128x64xbf16>, tensor<512x64xbf16>)
      outs(%zs : tensor<128x512xf32>) -> tensor<128x512xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<128x512xf32>) outs(%es : tensor<128x512xf32>) {
  ^bb0(%x: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<128x512xf32>
  %p = linalg.softmax dimension(1) ins(%scaled : tensor<128x512xf32>)
                                   outs(%es : tensor<128x512xf32>) -> tensor<128x512xf32>
  %ep = tensor.empty() : tensor<128x512xbf16>
  %pb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<128x512xf32>) outs(%ep : tensor<128x512xbf16>) {
  ^bb0(%x: f32, %out: bf16):
    %y = arith.truncf %x : f32 to bf16
    linalg.yield %y : bf16
  } -> tensor<128x512xbf16>
  %b0 = arith.constant 0.0 : bf16
  %eo = tensor.empty() : tensor<128x64xbf16>
  %zo = linalg.fill ins(%b0 : bf16) outs(%eo : tensor<128x64xbf16>) -> tensor<128x64xbf16>
  %o = linalg.matmul ins(%pb, %v : tensor<128x512xbf16>, tensor<512x64xbf16>)
                     outs(%zo : tensor<128x64xbf16>) -> tensor<128x64xbf16>
  return %o : tensor<128x64xbf16>
}

// -----

// Attention, batched, dynamic sequence lengths, the softmax in upstream's
// decomposed form (max / sub+exp / sum / div generics), the scale as a
// division, P V in f32 then cast to bf16. Sizes and the batch strides
// (seq * head_dim) become parameters; Q and O share one, K and V another.

#map_id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map_row3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @attention_decomposed_batched
// CHECK-NOT: linalg.
// CHECK: tile.launch @attention_decomposed_batched_attention0({{.*}} : tensor<?x?x128xbf16>, tensor<?x?x128xbf16>, tensor<?x?x128xbf16>) outs({{.*}} : tensor<?x?x128xbf16>)
// CHECK-SAME: args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 2 : i64}, {arg = 3 : i64}, {arg = 0 : i64, dim = 0 : i64}, {arg = 0 : i64, dim = 1 : i64}, {arg = 1 : i64, dim = 1 : i64}, {arg = 0 : i64, stride = 0 : i64}, {arg = 1 : i64, stride = 0 : i64}] -> tensor<?x?x128xbf16>
// CHECK-NOT: func.func private
// CHECK: tile.kernel @attention_decomposed_batched_attention0(%[[PQ:.+]]: !tile.ptr<bf16>, %[[PK:.+]]: !tile.ptr<bf16>, %[[PV:.+]]: !tile.ptr<bf16>, %[[PO:.+]]: !tile.ptr<bf16>, %[[BATCH:.+]]: i32, %[[SQ:.+]]: i32, %[[SKV:.+]]: i32, %[[STQ:.+]]: i32, %[[STKV:.+]]: i32)
// CHECK-NEXT: tile.make_view %[[PQ]][%[[BATCH]], 1, %[[SQ]], 128] strides [%[[STQ]], 128, 128, 1]
// CHECK-NEXT: tile.make_view %[[PK]][%[[BATCH]], 1, %[[SKV]], 128] strides [%[[STKV]], 128, 128, 1]
// CHECK-NEXT: tile.make_view %[[PV]][%[[BATCH]], 1, %[[SKV]], 128] strides [%[[STKV]], 128, 128, 1]
// CHECK-NEXT: tile.make_view %[[PO]][%[[BATCH]], 1, %[[SQ]], 128] strides [%[[STQ]], 128, 128, 1]
// CHECK-NEXT: tile.attention {{.*}} scale(1.250000e-01) :
func.func @attention_decomposed_batched(%q: tensor<?x?x128xbf16>, %k: tensor<?x?x128xbf16>, %v: tensor<?x?x128xbf16>,
                                        %b: index, %sq: index, %skv: index) -> tensor<?x?x128xbf16> {
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

// -----

// Attention with the subtraction and the exponential in separate generics
// (maximumf from -inf), K transposed with linalg.transpose, f16, no scale:
// scale(1.0) is explicit because tile.attention defaults to 1/sqrt(d).

#id = affine_map<(d0, d1) -> (d0, d1)>
#rowv = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @attention_sub_exp_split_f16
// CHECK-NOT: linalg.
// CHECK: tile.launch @attention_sub_exp_split_f16_attention0(
// CHECK: tile.attention {{.*}} scale(1.000000e+00) : !tile.view<1x1x64x256xf16, strides = [256, 256, 256, 1]>
func.func @attention_sub_exp_split_f16(%q: tensor<64x256xf16>, %k: tensor<64x256xf16>, %v: tensor<64x256xf16>) -> tensor<64x256xf16> {
  %kte = tensor.empty() : tensor<256x64xf16>
  %kt = linalg.transpose ins(%k : tensor<64x256xf16>) outs(%kte : tensor<256x64xf16>) permutation = [1, 0]
  %f0 = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<64x64xf32>
  %zs = linalg.fill ins(%f0 : f32) outs(%es : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<64x256xf16>, tensor<256x64xf16>)
                     outs(%zs : tensor<64x64xf32>) -> tensor<64x64xf32>
  %er = tensor.empty() : tensor<64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#id, #rowv], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<64x64xf32>) outs(%fm : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %sub = linalg.generic {indexing_maps = [#id, #rowv, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %max : tensor<64x64xf32>, tensor<64xf32>) outs(%es : tensor<64x64xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    linalg.yield %d : f32
  } -> tensor<64x64xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sub : tensor<64x64xf32>) outs(%es : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<64x64xf32>
  %fz = linalg.fill ins(%f0 : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #rowv], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<64x64xf32>) outs(%fz : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #rowv, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<64x64xf32>, tensor<64xf32>) outs(%es : tensor<64x64xf32>) {
  ^bb0(%in: f32, %sm: f32, %out: f32):
    %d = arith.divf %in, %sm : f32
    linalg.yield %d : f32
  } -> tensor<64x64xf32>
  %ep = tensor.empty() : tensor<64x64xf16>
  %ph = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x64xf32>) outs(%ep : tensor<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x64xf16>
  %h0 = arith.constant 0.0 : f16
  %eo = tensor.empty() : tensor<64x256xf16>
  %zo = linalg.fill ins(%h0 : f16) outs(%eo : tensor<64x256xf16>) -> tensor<64x256xf16>
  %o = linalg.matmul ins(%ph, %v : tensor<64x64xf16>, tensor<64x256xf16>)
                     outs(%zo : tensor<64x256xf16>) -> tensor<64x256xf16>
  return %o : tensor<64x256xf16>
}

// -----

//===----------------------------------------------------------------------===//
// fp8 and i8 inputs (f32: from-linalg-f32.mlir). Tensor cores read them
// K-major only: a [K, N] B is transposed by a kernel of its own first.
//===----------------------------------------------------------------------===//

// i8 x i8 -> i32 into a zero fill (an integer zero): B is [K, N], so
// @<f>_transpose0 writes it into a new [N, K] tensor, which the GEMM reads
// column-major. The transpose is a block program, one 64 x 64 tile per
// program.

// CHECK-LABEL: func.func @matmul_i8
// CHECK-SAME: (%[[A:.+]]: tensor<100x64xi8>, %[[B:.+]]: tensor<64x80xi8>)
// CHECK-NOT: linalg.
// CHECK-DAG: %[[E:.+]] = tensor.empty() : tensor<100x80xi32>
// CHECK-DAG: %[[BE:.+]] = tensor.empty() : tensor<80x64xi8>
// CHECK: %[[BT:.+]] = tile.launch @matmul_i8_transpose0(%[[B]] : tensor<64x80xi8>) outs(%[[BE]] : tensor<80x64xi8>)
// CHECK-NEXT: %[[R:.+]] = tile.launch @matmul_i8_gemm0(%[[A]], %[[BT]] : tensor<100x64xi8>, tensor<80x64xi8>) outs(%[[E]] : tensor<100x80xi32>)
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: func.func private
// CHECK: tile.kernel @matmul_i8_transpose0(%[[X:.+]]: !tile.ptr<i8>, %[[Y:.+]]: !tile.ptr<i8>) grid(2) warps(4) {
// CHECK-NEXT: %[[VX:.+]] = tile.make_view %[[X]][64, 80] strides [80, 1]
// CHECK-NEXT: %[[VY:.+]] = tile.make_view %[[Y]][80, 64] strides [64, 1]
// CHECK: %[[T:.+]] = tile.load %[[VX]][%[[R0:.+]], %[[C0:.+]]] : {{.*}} -> tensor<64x64xi8>
// CHECK-NEXT: %[[TT:.+]] = tile.trans %[[T]]
// CHECK-NEXT: tile.store %[[TT]], %[[VY]][%[[C0]], %[[R0]]]
// CHECK: tile.kernel @matmul_i8_gemm0(%[[PA:.+]]: !tile.ptr<i8>, %[[PB:.+]]: !tile.ptr<i8>, %[[PC:.+]]: !tile.ptr<i32>)
// CHECK-NEXT: tile.make_view %[[PA]][100, 64] strides [64, 1]
// CHECK-NEXT: tile.make_view %[[PB]][64, 80] strides [1, 64]
// CHECK-NEXT: tile.make_view %[[PC]][100, 80] strides [80, 1]
// CHECK-NEXT: tile.gemm
// CHECK-NOT: precision
// CHECK-SAME: !tile.view<64x80xi8, strides = [1, 64]>
// PASSED: Function=matmul_i8 | Remark="outlined into tile.kernel @matmul_i8_transpose0 as a transpose of B to [N, K] (tensor cores read fp8, i8 and TF32 operands K-major)"
// PASSED: Function=matmul_i8 | Remark="outlined into tile.kernel @matmul_i8_gemm0 as tile.gemm"
func.func @matmul_i8(%a: tensor<100x64xi8>, %b: tensor<64x80xi8>) -> tensor<100x80xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<100x80xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<100x80xi32>) -> tensor<100x80xi32>
  %r = linalg.matmul ins(%a, %b : tensor<100x64xi8>, tensor<64x80xi8>)
                     outs(%z : tensor<100x80xi32>) -> tensor<100x80xi32>
  return %r : tensor<100x80xi32>
}

// -----

// A batched e4m3 x e5m2 matmul of dynamic sizes: the transpose is launched
// per matrix too (the launch's `batch`), its sizes read from B, its grid a rule
// over them.

// CHECK-LABEL: func.func @batch_matmul_fp8
// CHECK-SAME: (%[[A:.+]]: tensor<?x?x?xf8E4M3FN>, %[[B:.+]]: tensor<?x?x?xf8E5M2>
// CHECK: %[[BE:.+]] = tensor.empty({{.+}}) : tensor<?x?x?xf8E5M2>
// CHECK: %[[BT:.+]] = tile.launch @batch_matmul_fp8_transpose0(%[[B]] : {{.*}}) outs(%[[BE]] :
// CHECK-SAME: args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 0 : i64, dim = 1 : i64}, {arg = 0 : i64, dim = 2 : i64}] batch [0, 1]
// CHECK-NEXT: tile.launch @batch_matmul_fp8_gemm0(%[[A]], %[[BT]] : {{.*}}) outs(%{{.+}} :
// CHECK-NOT: batch [
// CHECK-NOT: func.func private
// CHECK: tile.kernel @batch_matmul_fp8_transpose0(%{{.+}}: !tile.ptr<f8E5M2>, %{{.+}}: !tile.ptr<f8E5M2>, %[[R:.+]]: i32, %[[C:.+]]: i32) grid(ceildiv(%[[R]], 64) * ceildiv(%[[C]], 64))
// CHECK: tile.kernel @batch_matmul_fp8_gemm0
// CHECK: tile.gemm
// CHECK-SAME: !tile.view<?x?x?xf8E4M3FN, strides = [?, ?, 1]>, !tile.view<?x?x?xf8E5M2, strides = [?, 1, ?]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>
func.func @batch_matmul_fp8(%a: tensor<?x?x?xf8E4M3FN>, %b: tensor<?x?x?xf8E5M2>, %nb: index, %m: index, %n: index) -> tensor<?x?x?xbf16> {
  %cst = arith.constant 0.0 : bf16
  %e = tensor.empty(%nb, %m, %n) : tensor<?x?x?xbf16>
  %z = linalg.fill ins(%cst : bf16) outs(%e : tensor<?x?x?xbf16>) -> tensor<?x?x?xbf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E5M2>)
                           outs(%z : tensor<?x?x?xbf16>) -> tensor<?x?x?xbf16>
  return %r : tensor<?x?x?xbf16>
}

// -----

// An fp8 nn.Linear (B already [N, K] through the maps) with a fused bias
// and ReLU: no transpose kernel.

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_bt = affine_map<(m, n, k) -> (n, k)>
#map_c = affine_map<(m, n, k) -> (m, n)>
#map_row = affine_map<(m, n) -> (m, n)>
#map_bias = affine_map<(m, n) -> (n)>

// CHECK-LABEL: func.func @linear_fp8_bias_relu
// CHECK-NOT: transpose
// CHECK: tile.launch @linear_fp8_bias_relu_gemm0(
// CHECK-NOT: transpose
// CHECK: tile.gemm
// CHECK-SAME: bias(%{{.+}}) activation(relu)
// CHECK-SAME: !tile.view<?x4096xf8E4M3FN, strides = [4096, 1]>, !tile.view<4096x?xf8E4M3FN, strides = [1, 4096]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?xbf16, strides = [1]>
func.func @linear_fp8_bias_relu(%x: tensor<?x4096xf8E4M3FN>, %w: tensor<?x4096xf8E4M3FN>, %bias: tensor<?xbf16>, %m: index, %n: index) -> tensor<?x?xbf16> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.matmul indexing_maps = [#map_a, #map_bt, #map_c]
      ins(%x, %w : tensor<?x4096xf8E4M3FN>, tensor<?x4096xf8E4M3FN>)
      outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  %o = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %r = linalg.generic {indexing_maps = [#map_row, #map_bias, #map_row],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<?x?xf32>, tensor<?xbf16>) outs(%o : tensor<?x?xbf16>) {
  ^bb0(%acc: f32, %b: bf16, %out: bf16):
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %acc, %bf : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %s, %zero : f32
    %t = arith.truncf %relu : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Left alone: a missed remark (RUN 2), an error in strict mode (RUN 3).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @negative_i8_accumulate
// CHECK: linalg.matmul
// CHECK-NOT: call
// CHECK-NOT: tile.kernel
// STRICT: error: tile-from-linalg: cannot convert 'linalg.matmul': an i8 matmul accumulating into its init (not a zero fill): tile.gemm stores the i32 sums as they are
func.func @negative_i8_accumulate(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>, %c: tensor<16x16xi32>) -> tensor<16x16xi32> {
  // expected-remark @+1 {{tile-from-linalg: 'linalg.matmul' left unconverted: an i8 matmul accumulating into its init (not a zero fill): tile.gemm stores the i32 sums as they are}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xi8>, tensor<32x16xi8>)
                     outs(%c : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}

// -----

// CHECK-LABEL: func.func @negative_i8_unsigned
// CHECK: linalg.matmul
// CHECK-NOT: tile.kernel
// STRICT: error: tile-from-linalg: cannot convert 'linalg.matmul': an unsigned i8 matmul (cast_unsigned); tile.gemm multiplies signed i8
func.func @negative_i8_unsigned(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>) -> tensor<16x16xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<16x16xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<16x16xi32>) -> tensor<16x16xi32>
  // expected-remark @+1 {{an unsigned i8 matmul (cast_unsigned); tile.gemm multiplies signed i8}}
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>}
                     ins(%a, %b : tensor<16x32xi8>, tensor<32x16xi8>)
                     outs(%z : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}

// -----

// CHECK-LABEL: func.func @negative_i8_i16
// CHECK: linalg.matmul
// CHECK-NOT: tile.kernel
// STRICT: error: tile-from-linalg: cannot convert 'linalg.matmul': tile.gemm: i8 inputs must produce i32 (exact i32 sums, as torch._int_mm), got i16
func.func @negative_i8_i16(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>) -> tensor<16x16xi16> {
  %c0 = arith.constant 0 : i16
  %e = tensor.empty() : tensor<16x16xi16>
  %z = linalg.fill ins(%c0 : i16) outs(%e : tensor<16x16xi16>) -> tensor<16x16xi16>
  // expected-remark @+1 {{tile.gemm: i8 inputs must produce i32 (exact i32 sums, as torch._int_mm), got i16}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xi8>, tensor<32x16xi8>)
                     outs(%z : tensor<16x16xi16>) -> tensor<16x16xi16>
  return %r : tensor<16x16xi16>
}

// -----

// CHECK-LABEL: func.func @negative_i32
// CHECK: linalg.matmul
// CHECK-NOT: tile.kernel
// STRICT: error: tile-from-linalg: cannot convert 'linalg.matmul': tile.gemm: inputs must be bf16, f16, fp8 (f8E4M3FN, f8E5M2), f32 or i8, got i32
func.func @negative_i32(%a: tensor<16x32xi32>, %b: tensor<32x16xi32>, %c: tensor<16x16xi32>) -> tensor<16x16xi32> {
  // expected-remark @+1 {{tile.gemm: inputs must be bf16, f16, fp8 (f8E4M3FN, f8E5M2), f32 or i8, got i32}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xi32>, tensor<32x16xi32>)
                     outs(%c : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}

// -----

// CHECK-LABEL: func.func @negative_f32_to_bf16
// CHECK: linalg.matmul
// CHECK-NOT: tile.kernel
// STRICT: error: tile-from-linalg: cannot convert 'linalg.matmul': an f32 matmul into bf16 (linalg sums in the output type); tile.gemm writes f32 for f32 inputs
func.func @negative_f32_to_bf16(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16x16xbf16>) -> tensor<16x16xbf16> {
  // expected-remark @+1 {{an f32 matmul into bf16 (linalg sums in the output type); tile.gemm writes f32 for f32 inputs}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x16xf32>)
                     outs(%c : tensor<16x16xbf16>) -> tensor<16x16xbf16>
  return %r : tensor<16x16xbf16>
}

// -----

// CHECK-LABEL: func.func @negative_fp8_bf16
// CHECK: linalg.matmul
// CHECK-NOT: tile.kernel
// STRICT: error: tile-from-linalg: cannot convert 'linalg.matmul': tile.gemm: A and B must have the same element type (fp8 may mix e4m3 and e5m2), got f8E4M3FN and bf16
func.func @negative_fp8_bf16(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x16xbf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-remark @+1 {{tile.gemm: A and B must have the same element type (fp8 may mix e4m3 and e5m2), got f8E4M3FN and bf16}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf8E4M3FN>, tensor<32x16xbf16>)
                     outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @negative_strided_buffer
// CHECK: linalg.matmul
// CHECK-NOT: tile.kernel
// STRICT: error: tile-from-linalg: cannot convert 'linalg.matmul': B is a strided memref whose rows are not contiguous (memref<32x16xbf16, strided<[32, 2]>>, inner stride 2); tile views read rows of unit stride: copy it into a dense buffer first (memref.copy)
func.func @negative_strided_buffer(%a: memref<16x32xbf16>, %b: memref<32x16xbf16, strided<[32, 2]>>, %c: memref<16x16xf32>) {
  // expected-remark @+1 {{B is a strided memref whose rows are not contiguous}}
  linalg.matmul ins(%a, %b : memref<16x32xbf16>, memref<32x16xbf16, strided<[32, 2]>>)
                outs(%c : memref<16x16xf32>)
  return
}

// -----

// Attention with head_dim 96, which tile.attention does not take: the two
// matmuls are still GEMMs, the softmax stays between them with a remark.

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_bt = affine_map<(m, n, k) -> (n, k)>
#map_c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @negative_attention_head_dim_96
// CHECK: %[[S:.+]] = tile.launch @negative_attention_head_dim_96_gemm0(
// CHECK: %[[P:.+]] = linalg.softmax dimension(1) ins(%[[S]] :
// CHECK: tile.launch @negative_attention_head_dim_96_gemm1(%[[P]],
// CHECK-NOT: tile.attention
// STRICT: error: tile-from-linalg: cannot convert 'linalg.softmax': head_dim must be a static 64, 128 or 256, got 96
func.func @negative_attention_head_dim_96(%q: tensor<128x96xbf16>, %k: tensor<128x96xbf16>, %v: tensor<128x96xbf16>) -> tensor<128x96xbf16> {
  %f0 = arith.constant 0.0 : bf16
  %es = tensor.empty() : tensor<128x128xbf16>
  %zs = linalg.fill ins(%f0 : bf16) outs(%es : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %s = linalg.matmul indexing_maps = [#map_a, #map_bt, #map_c]
      ins(%q, %k : tensor<128x96xbf16>, tensor<128x96xbf16>)
      outs(%zs : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  // expected-remark @+1 {{'linalg.softmax' left unconverted: head_dim must be a static 64, 128 or 256, got 96}}
  %p = linalg.softmax dimension(1) ins(%s : tensor<128x128xbf16>)
                                   outs(%es : tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %eo = tensor.empty() : tensor<128x96xbf16>
  %zo = linalg.fill ins(%f0 : bf16) outs(%eo : tensor<128x96xbf16>) -> tensor<128x96xbf16>
  %o = linalg.matmul ins(%p, %v : tensor<128x128xbf16>, tensor<128x96xbf16>)
                     outs(%zo : tensor<128x96xbf16>) -> tensor<128x96xbf16>
  return %o : tensor<128x96xbf16>
}

// -----

// CHECK-LABEL: func.func @negative_softmax_not_last_dim
// CHECK: linalg.softmax dimension(0)
// STRICT: error: tile-from-linalg: cannot convert 'linalg.softmax': softmax is not along the last dimension
func.func @negative_softmax_not_last_dim(%s: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{softmax is not along the last dimension}}
  %p = linalg.softmax dimension(0) ins(%s : tensor<64x64xf32>)
                                   outs(%s : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %p : tensor<64x64xf32>
}
