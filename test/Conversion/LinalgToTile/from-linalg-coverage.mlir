// RUN: tilec-opt %s -split-input-file -tile-from-linalg 2>/dev/null | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-from-linalg -verify-diagnostics -o /dev/null
// RUN: sed -e 's/expected-remark/no-remark/' %s | tilec-opt -split-input-file -tile-from-linalg=quiet=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark

// The matmul forms frontends emit besides linalg.matmul: a linalg.generic
// or linalg.contract that is a matmul converts as one (upstream's
// linalg::specializeGenericOp names it); every other contraction, a matmul
// on buffers, and an elementwise consumer the epilogue cannot take are left
// alone with a remark saying why (by default; `quiet` silences them).

// CHECK-LABEL: func.func @generic_matmul
// CHECK-NOT: linalg.generic
// CHECK: tile.launch @generic_matmul_gemm0
// CHECK: tile.kernel @generic_matmul_gemm0
// CHECK: tile.gemm
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @generic_matmul(%a: tensor<256x128xbf16>, %b: tensor<128x512xbf16>) -> tensor<256x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<256x128xbf16>, tensor<128x512xbf16>) outs(%c : tensor<256x512xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}

// -----

// CHECK-LABEL: func.func @contract_matmul
// CHECK-NOT: linalg.contract
// CHECK: tile.launch @contract_matmul_gemm0
// CHECK: tile.kernel @contract_matmul_gemm0
// CHECK: tile.gemm
func.func @contract_matmul(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.contract
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

// A generic contraction with A read transposed specializes to a matmul that
// tile.gemm cannot take: the generic stays, with the reason.
// CHECK-LABEL: func.func @generic_transposed_a
// CHECK: linalg.generic
func.func @generic_transposed_a(%a: tensor<128x256xbf16>, %b: tensor<128x512xbf16>) -> tensor<256x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  // expected-remark @+1 {{tile-from-linalg: 'linalg.generic' left unconverted: A is transposed; tile.gemm needs A contiguous along K}}
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<128x256xbf16>, tensor<128x512xbf16>) outs(%c : tensor<256x512xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}

// -----

// linalg.matvec and linalg.vecmat are skinny GEMMs: x is B [N = 1, K]
// read K-major (matvec) or A [M = 1, K] (vecmat), y one column or one row.
// CHECK-LABEL: func.func @matvec
// CHECK: tile.launch @matvec_gemm0
// CHECK: tile.kernel @matvec_gemm0(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>)
// CHECK-NEXT: tile.make_view %A[256, 128] strides [128, 1]
// CHECK-NEXT: tile.make_view %B[128, 1] strides [1, 128]
// CHECK-NEXT: tile.make_view %C[256, 1] strides [1, 1]
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} beta(
func.func @matvec(%a: tensor<256x128xbf16>, %x: tensor<128xbf16>, %y: tensor<256xf32>) -> tensor<256xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<256x128xbf16>, tensor<128xbf16>) outs(%y : tensor<256xf32>) -> tensor<256xf32>
  return %r : tensor<256xf32>
}

// -----

// CHECK-LABEL: func.func @vecmat
// CHECK: tile.launch @vecmat_gemm0
// CHECK: tile.kernel @vecmat_gemm0(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %K: i32)
// CHECK-NEXT: tile.make_view %A[1, %K] strides [%K, 1]
// CHECK-NEXT: tile.make_view %B[%K, 64] strides [64, 1]
// CHECK-NEXT: tile.make_view %C[1, 64] strides [64, 1]
func.func @vecmat(%x: tensor<?xf16>, %b: tensor<?x64xf16>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.vecmat ins(%x, %b : tensor<?xf16>, tensor<?x64xf16>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// batch_reduce_matmul: one batch-reduce tile.gemm (3-D A and B, a 2-D C
// that sums the batch's products) in one launch. It accumulates into its
// init, which the kernel reads (beta = 1).
// CHECK-LABEL: func.func @batch_reduce_matmul
// CHECK-NOT: linalg.batch_reduce_matmul
// CHECK: tile.launch @batch_reduce_matmul_gemm0({{.*}} : tensor<4x64x32xbf16>, tensor<4x32x16xbf16>) outs({{.*}} : tensor<64x16xf32>)
// CHECK: tile.kernel @batch_reduce_matmul_gemm0(%[[PA:.+]]: !tile.ptr<bf16>, %[[PB:.+]]: !tile.ptr<bf16>, %[[PC:.+]]: !tile.ptr<f32>)
// CHECK-NEXT: tile.make_view %[[PA]][4, 64, 32] strides [2048, 32, 1]
// CHECK-NEXT: tile.make_view %[[PB]][4, 32, 16] strides [512, 16, 1]
// CHECK-NEXT: tile.make_view %[[PC]][64, 16] strides [16, 1]
// CHECK: tile.gemm {{.*}} beta(%{{.+}}) : !tile.view<4x64x32xbf16, strides = [2048, 32, 1]>, !tile.view<4x32x16xbf16, strides = [512, 16, 1]>, !tile.view<64x16xf32, strides = [16, 1]>
func.func @batch_reduce_matmul(%a: tensor<4x64x32xbf16>, %b: tensor<4x32x16xbf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %r = linalg.batch_reduce_matmul ins(%a, %b : tensor<4x64x32xbf16>, tensor<4x32x16xbf16>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// -----

// A zero-filled init is not read, and a dynamic batch is a parameter of the
// launch (the kernel's K loop runs through every matrix).
// CHECK-LABEL: func.func @batch_reduce_matmul_dynamic
// CHECK: tile.kernel @batch_reduce_matmul_dynamic_gemm0(%[[PA:.+]]: !tile.ptr<f16>, %[[PB:.+]]: !tile.ptr<f16>, %[[PC:.+]]: !tile.ptr<f16>, %[[BATCH:.+]]: i32)
// CHECK-NEXT: tile.make_view %[[PA]][%[[BATCH]], 128, 64] strides [8192, 64, 1]
// CHECK-NEXT: tile.make_view %[[PB]][%[[BATCH]], 64, 256] strides [16384, 256, 1]
// CHECK-NEXT: tile.make_view %[[PC]][128, 256] strides [256, 1]
// CHECK-NOT: beta
// CHECK: tile.return
func.func @batch_reduce_matmul_dynamic(%a: tensor<?x128x64xf16>, %b: tensor<?x64x256xf16>) -> tensor<128x256xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x256xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e : tensor<128x256xf16>) -> tensor<128x256xf16>
  %r = linalg.batch_reduce_matmul ins(%a, %b : tensor<?x128x64xf16>, tensor<?x64x256xf16>) outs(%z : tensor<128x256xf16>) -> tensor<128x256xf16>
  return %r : tensor<128x256xf16>
}

// -----

// Matmuls on buffers (as upstream's GPU matmul tests write them) become a
// tile.launch on the memrefs, which writes C in place. linalg.matmul on
// memrefs accumulates into C, so the kernel reads it (beta = 1) ...
// CHECK-LABEL: func.func @matmul_memref
// CHECK-SAME: (%[[A:.+]]: memref<64x32xbf16>, %[[B:.+]]: memref<32x16xbf16>, %[[C:.+]]: memref<64x16xf32>)
// CHECK-NEXT: tile.launch @matmul_memref_gemm0(%[[A]], %[[B]] : memref<64x32xbf16>, memref<32x16xbf16>) outs(%[[C]] : memref<64x16xf32>) args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 2 : i64}]{{$}}
// CHECK-NEXT: return
// CHECK: tile.kernel @matmul_memref_gemm0
// CHECK: tile.gemm {{.*}} beta(
func.func @matmul_memref(%a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// ... unless a zero fill of C comes right before: the fill goes and the
// kernel only writes C. A dynamic M is read from A.
// CHECK-LABEL: func.func @matmul_memref_zeroed
// CHECK-NOT: linalg.fill
// CHECK: tile.launch @matmul_memref_zeroed_gemm0({{.*}}) outs(%{{.+}} : memref<?x16xf16>) args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 2 : i64}, {arg = 0 : i64, dim = 0 : i64}]
// CHECK: tile.kernel @matmul_memref_zeroed_gemm0
// CHECK-NOT: beta
// CHECK: tile.return
func.func @matmul_memref_zeroed(%a: memref<?x32xf16>, %b: memref<32x16xf16>, %c: memref<?x16xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%c : memref<?x16xf16>)
  linalg.matmul ins(%a, %b : memref<?x32xf16>, memref<32x16xf16>) outs(%c : memref<?x16xf16>)
  return
}

// -----

// Strided memrefs whose rows are contiguous: one-shot bufferization's fully
// dynamic layouts and subviews of larger buffers. The kernel takes each
// such operand's leading stride (lda, ldb, ldc: the launch passes the
// memref's strides, `{arg, stride}`, static ones included) and its base
// moved by the offset; its innermost stride is 1 (the launch checks a
// dynamic one). A dense operand (B's subview) keeps its static stride.
// Both launches have `aligned = false` fallbacks (the offsets and strides
// are run-time values).
// CHECK-LABEL: func.func @matmul_strided_memrefs
// CHECK: tile.launch @matmul_strided_memrefs_gemm0(%{{.+}}, %{{.+}} : memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>) outs(%{{.+}} : memref<?x?xf32, strided<[?, ?], offset: ?>>) args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 2 : i64}, {arg = 0 : i64, dim = 0 : i64}, {arg = 1 : i64, dim = 1 : i64}, {arg = 0 : i64, dim = 1 : i64}, {arg = 0 : i64, stride = 0 : i64}, {arg = 1 : i64, stride = 0 : i64}, {arg = 2 : i64, stride = 0 : i64}] fallback @matmul_strided_memrefs_gemm0_aligned0{{$}}
// CHECK-LABEL: func.func @matmul_subviews
// CHECK: %[[AS:.+]] = memref.subview
// CHECK: %[[BS:.+]] = memref.subview
// CHECK: tile.launch @matmul_subviews_gemm0(%[[AS]], %[[BS]] : memref<100x72xbf16, strided<[128, 1], offset: 392>>, memref<72x64xbf16, strided<[64, 1]>>) outs(%{{.+}} : memref<100x64xf32>) args [{arg = 0 : i64}, {arg = 1 : i64}, {arg = 2 : i64}, {arg = 0 : i64, stride = 0 : i64}] fallback @matmul_subviews_gemm0_aligned0{{$}}
// CHECK: tile.kernel @matmul_strided_memrefs_gemm0(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32)
// CHECK: tile.make_view %A[%M, %K] strides [%lda, 1]
// CHECK: tile.make_view %B[%K, %N] strides [%ldb, 1]
// CHECK: tile.make_view %C[%M, %N] strides [%ldc, 1]
// CHECK: tile.kernel @matmul_subviews_gemm0(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>, %lda: i32)
// CHECK: tile.make_view %A[100, 72] strides [%lda, 1]
// CHECK: tile.make_view %B[72, 64] strides [64, 1]
func.func @matmul_strided_memrefs(%a: memref<?x?xbf16, strided<[?, ?], offset: ?>>, %b: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %c: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32, strided<[?, ?], offset: ?>>)
  linalg.matmul ins(%a, %b : memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, 1], offset: ?>>)
                outs(%c : memref<?x?xf32, strided<[?, ?], offset: ?>>)
  return
}
func.func @matmul_subviews(%a: memref<256x128xbf16>, %b: memref<128x64xbf16>, %c: memref<100x64xf32>) {
  %as = memref.subview %a[3, 8] [100, 72] [1, 1] : memref<256x128xbf16> to memref<100x72xbf16, strided<[128, 1], offset: 392>>
  %bs = memref.subview %b[0, 0] [72, 64] [1, 1] : memref<128x64xbf16> to memref<72x64xbf16, strided<[64, 1]>>
  linalg.matmul ins(%as, %bs : memref<100x72xbf16, strided<[128, 1], offset: 392>>, memref<72x64xbf16, strided<[64, 1]>>)
                outs(%c : memref<100x64xf32>)
  return
}

// -----

// What memrefs cannot do: an fp8 B stored [K, N] (its transpose kernel needs
// a new buffer), and an operand whose rows are not contiguous.
// CHECK-LABEL: func.func @negative_memrefs
// CHECK-COUNT-2: linalg.matmul
// CHECK-NOT: tile.kernel
func.func @negative_memrefs(%a: memref<64x64xf8E4M3FN>, %b: memref<64x64xf8E4M3FN>, %c: memref<64x64xf32>,
                            %s: memref<16x32xbf16, strided<[64, 2]>>, %t: memref<32x16xbf16>, %u: memref<16x16xf32>) {
  // expected-remark @+1 {{'linalg.matmul' left unconverted: a f8E4M3FN matmul on memrefs with B stored [K, N]: tensor cores read it K-major, and the transpose kernel needs a new buffer; convert it on tensors (before bufferization) or store B [N, K]}}
  linalg.matmul ins(%a, %b : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN>) outs(%c : memref<64x64xf32>)
  // expected-remark @+1 {{'linalg.matmul' left unconverted: A is a strided memref whose rows are not contiguous (memref<16x32xbf16, strided<[64, 2]>>, inner stride 2); tile views read rows of unit stride: copy it into a dense buffer first (memref.copy)}}
  linalg.matmul ins(%s, %t : memref<16x32xbf16, strided<[64, 2]>>, memref<32x16xbf16>) outs(%u : memref<16x16xf32>)
  return
}

// -----

// A tanh after the matmul (part of a GELU) is not an epilogue tile.gemm
// fuses: the matmul converts, the tanh stays on the host, with a remark.
// CHECK-LABEL: func.func @unfused_tanh
// CHECK: tile.launch @unfused_tanh_gemm0
// CHECK: linalg.generic
// CHECK: math.tanh
#id = affine_map<(i, j) -> (i, j)>
func.func @unfused_tanh(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>) -> tensor<64x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  %o = tensor.empty() : tensor<64x16xf32>
  // expected-remark @+1 {{tile-from-linalg: this linalg.generic reads the result of kernel @unfused_tanh_gemm0 and stays outside it: tile.gemm's epilogue fuses a row-broadcast bias add, a residual add}}
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<64x16xf32>) outs(%o : tensor<64x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %h = math.tanh %x : f32
    linalg.yield %h : f32
  } -> tensor<64x16xf32>
  return %t : tensor<64x16xf32>
}

// -----

// GELU (erf form) after a bias add, as torch-mlir decomposes aten.gelu:
// x * (0.5 * (1 + erf((x - 0) / (1 * sqrt(2))))), the constants unfolded,
// computed in f32 and truncated: the epilogue takes it (tile.gemm's gelu).
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
// CHECK-LABEL: func.func @bias_gelu_erf
// CHECK-NOT: linalg.generic
// CHECK: tile.kernel @bias_gelu_erf_gemm0
// CHECK: tile.gemm {{.*}} bias(%{{.+}}) activation(gelu) :
func.func @bias_gelu_erf(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>, %bias: tensor<16xf32>) -> tensor<64x16xbf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  %o = tensor.empty() : tensor<64x16xbf16>
  %t = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<64x16xf32>, tensor<16xf32>) outs(%o : tensor<64x16xbf16>) {
  ^bb0(%x: f32, %bv: f32, %y: bf16):
    %s = arith.addf %x, %bv : f32
    %mean = arith.constant 0.0 : f32
    %sigma = arith.constant 1.0 : f32
    %sqrt2 = arith.constant 1.41421354 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %xm = arith.subf %s, %mean : f32
    %den = arith.mulf %sigma, %sqrt2 : f32
    %arg = arith.divf %xm, %den : f32
    %erf = math.erf %arg : f32
    %p1 = arith.addf %one, %erf : f32
    %cdf = arith.mulf %half, %p1 : f32
    %g = arith.mulf %s, %cdf : f32
    %gt = arith.truncf %g : f32 to bf16
    linalg.yield %gt : bf16
  } -> tensor<64x16xbf16>
  return %t : tensor<64x16xbf16>
}

// -----

// SiLU as written by hand, x / (1 + exp(-x)), and as x * sigmoid(x) with
// -x = 0 - x: both fuse (tile.gemm's silu).
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @silu_forms
// CHECK-NOT: linalg.generic
// CHECK: tile.kernel @silu_forms_gemm0
// CHECK: tile.gemm {{.*}} activation(silu) :
// CHECK: tile.kernel @silu_forms_gemm1
// CHECK: tile.gemm {{.*}} activation(silu) :
func.func @silu_forms(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>) -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r2 = linalg.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  %o = tensor.empty() : tensor<64x16xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<64x16xf32>) outs(%o : tensor<64x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %q = arith.divf %x, %d : f32
    linalg.yield %q : f32
  } -> tensor<64x16xf32>
  %o2 = tensor.empty() : tensor<64x16xf32>
  %t2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r2 : tensor<64x16xf32>) outs(%o2 : tensor<64x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %n = arith.subf %zero, %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %one, %ex : f32
    %sig = arith.divf %one, %d : f32
    %q = arith.mulf %sig, %x : f32
    linalg.yield %q : f32
  } -> tensor<64x16xf32>
  return %t, %t2 : tensor<64x16xf32>, tensor<64x16xf32>
}

// -----

// Look-alikes stay on the host, with a remark: GELU's tanh approximation
// (tile.gemm computes the erf form), and an erf GELU with the wrong scale
// inside the erf (x * 0.5 instead of x / sqrt(2)).
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @not_gelu
// CHECK-COUNT-2: linalg.generic
func.func @not_gelu(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>) -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r2 = linalg.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  %o = tensor.empty() : tensor<64x16xf32>
  // expected-remark @+1 {{this linalg.generic reads the result of kernel @not_gelu_gemm0 and stays outside it}}
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<64x16xf32>) outs(%o : tensor<64x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.797884583 : f32
    %k3 = arith.constant 0.044715 : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %a3 = arith.mulf %x3, %k3 : f32
    %in = arith.addf %x, %a3 : f32
    %in2 = arith.mulf %in, %k : f32
    %th = math.tanh %in2 : f32
    %p1 = arith.addf %th, %one : f32
    %hx = arith.mulf %x, %half : f32
    %g = arith.mulf %hx, %p1 : f32
    linalg.yield %g : f32
  } -> tensor<64x16xf32>
  %o2 = tensor.empty() : tensor<64x16xf32>
  // expected-remark @+1 {{this linalg.generic reads the result of kernel @not_gelu_gemm1 and stays outside it}}
  %t2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r2 : tensor<64x16xf32>) outs(%o2 : tensor<64x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %arg = arith.mulf %x, %half : f32
    %erf = math.erf %arg : f32
    %p1 = arith.addf %erf, %one : f32
    %hx = arith.mulf %x, %half : f32
    %g = arith.mulf %hx, %p1 : f32
    linalg.yield %g : f32
  } -> tensor<64x16xf32>
  return %t, %t2 : tensor<64x16xf32>, tensor<64x16xf32>
}

// -----

// nn.Linear as a generic (B stored [N, K]): upstream's specializer drops
// the transposed map (an invalid linalg.matmul, docs/known-issues.md); the
// named op keeps the generic's maps and converts with B read K-major.
// CHECK-LABEL: func.func @generic_linear
// CHECK: tile.launch @generic_linear_gemm0
// CHECK: tile.kernel @generic_linear_gemm0
// CHECK: %[[B:.+]] = tile.make_view %{{.*}}[512, 128] strides [1, 512]
// CHECK: tile.gemm
func.func @generic_linear(%a: tensor<256x512xbf16>, %w: tensor<128x512xbf16>) -> tensor<256x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x128xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<256x512xbf16>, tensor<128x512xbf16>) outs(%c : tensor<256x128xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<256x128xf32>
  return %r : tensor<256x128xf32>
}

// -----

// Epilogues frontends write besides bias + maximumf: ReLU as a compare and
// a select (here x < 0 ? 0 : x), and a residual add (a whole tensor of the
// output's type, cast in the payload) that becomes C, read with beta = 1.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @residual_select_relu
// CHECK-SAME: (%[[A:.+]]: tensor<?x64xbf16>, %[[B:.+]]: tensor<64x32xbf16>, %[[R:.+]]: tensor<?x32xbf16>)
// CHECK-NOT: linalg.
// CHECK: tile.launch @residual_select_relu_gemm0(%[[A]], %[[B]] : tensor<?x64xbf16>, tensor<64x32xbf16>) outs(%[[R]] : tensor<?x32xbf16>)
// CHECK: tile.kernel @residual_select_relu_gemm0
// CHECK: tile.gemm {{.*}} beta(%{{.+}}) activation(relu) :
func.func @residual_select_relu(%a: tensor<?x64xbf16>, %b: tensor<64x32xbf16>, %r: tensor<?x32xbf16>) -> tensor<?x32xbf16> {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x64xbf16>
  %e = tensor.empty(%m) : tensor<?x32xf32>
  %z = linalg.fill ins(%f0 : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x64xbf16>, tensor<64x32xbf16>) outs(%z : tensor<?x32xf32>) -> tensor<?x32xf32>
  %o = tensor.empty(%m) : tensor<?x32xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %r : tensor<?x32xf32>, tensor<?x32xbf16>) outs(%o : tensor<?x32xbf16>) {
  ^bb0(%x: f32, %res: bf16, %out: bf16):
    %rf = arith.extf %res : bf16 to f32
    %s = arith.addf %x, %rf : f32
    %neg = arith.cmpf olt, %s, %f0 : f32
    %q = arith.select %neg, %f0, %s : f32
    %t = arith.truncf %q : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}

// -----

// A residual of another type than the output cannot be C: the add stays
// on the host, with a remark; so does a ReLU-looking select that keeps the
// wrong side.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @negative_epilogues
// CHECK-COUNT-2: linalg.generic
func.func @negative_epilogues(%a: tensor<16x64xbf16>, %b: tensor<64x32xbf16>, %r: tensor<16x32xf32>) -> (tensor<16x32xbf16>, tensor<16x32xf32>) {
  %f0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%f0 : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x64xbf16>, tensor<64x32xbf16>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %o = tensor.empty() : tensor<16x32xbf16>
  // expected-remark @+1 {{this linalg.generic reads the result of kernel @negative_epilogues_gemm0 and stays outside it}}
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %r : tensor<16x32xf32>, tensor<16x32xf32>) outs(%o : tensor<16x32xbf16>) {
  ^bb0(%x: f32, %res: f32, %out: bf16):
    %s = arith.addf %x, %res : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<16x32xbf16>
  %mm2 = linalg.matmul ins(%a, %b : tensor<16x64xbf16>, tensor<64x32xbf16>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-remark @+1 {{this linalg.generic reads the result of kernel @negative_epilogues_gemm1 and stays outside it}}
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm2 : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %out: f32):
    %p = arith.cmpf ogt, %x, %f0 : f32
    %q = arith.select %p, %f0, %x : f32
    linalg.yield %q : f32
  } -> tensor<16x32xf32>
  return %y, %w : tensor<16x32xbf16>, tensor<16x32xf32>
}

