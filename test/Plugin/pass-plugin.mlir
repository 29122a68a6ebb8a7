// RUN: %mlir_opt %s --load-dialect-plugin=%tilec_plugin --load-pass-plugin=%tilec_plugin \
// RUN:   --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_80}))' \
// RUN:   | FileCheck %s --check-prefix=EXPAND
// RUN: %mlir_opt %s --load-dialect-plugin=%tilec_plugin --load-pass-plugin=%tilec_plugin \
// RUN:   --pass-pipeline='builtin.module(tilec-to-nvvm{chip=sm_90a})' | FileCheck %s --check-prefix=NVVM
// RUN: %mlir_opt %s --load-dialect-plugin=%tilec_plugin --load-pass-plugin=%tilec_plugin \
// RUN:   --pass-pipeline='builtin.module(tilec-to-ptx{chip=sm_89})' | FileCheck %s --check-prefix=PTX
// A second --load-pass-plugin of the same library must not register the
// pipelines again (MLIR aborts on a duplicate pipeline name).
// RUN: %mlir_opt %s --load-dialect-plugin=%tilec_plugin --load-pass-plugin=%tilec_plugin \
// RUN:   --load-pass-plugin=%tilec_plugin --pass-pipeline='builtin.module(tilec-to-nvvm{chip=sm_80})' \
// RUN:   | FileCheck %s --check-prefix=NVVM80
// The attention backward's module pass, then its stages' expansion.
// RUN: %mlir_opt %examples/attention_backward_op_bf16.mlir --load-dialect-plugin=%tilec_plugin \
// RUN:   --load-pass-plugin=%tilec_plugin --pass-pipeline='builtin.module(tile-split-stages, tile.kernel(tile-expand-named-ops{chip=sm_90a}))' \
// RUN:   | FileCheck %s --check-prefix=BWD
// BWD-LABEL: tile.kernel @attention_bwd_op_bf16_d128_pre(
// BWD-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dq(
// BWD:         tile.dot
// BWD-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dkdv(
// BWD-LABEL: tile.kernel @attention_bwd_op_bf16_d128_dkdv_sum(
// BWD-NOT:     tile.attention_backward
// Without the pass plugin, the pipeline is unknown (and nothing crashes).
// RUN: not %mlir_opt %s --load-dialect-plugin=%tilec_plugin \
// RUN:   --pass-pipeline='builtin.module(tilec-to-nvvm)' 2>&1 | FileCheck %s --check-prefix=NOPASS

// Debian's stock mlir-opt-22 runs tilec passes and the named pipelines from
// the plugin. They are reachable through --pass-pipeline only: mlir-opt
// builds its --<pass-name> flags before it loads plugins. What each pass does
// is tested with tilec-opt elsewhere; here only the visible effect of each
// entry point is checked.

// EXPAND-LABEL: tile.kernel @gemm
// EXPAND-SAME: grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8)
// EXPAND: tile.dot
// EXPAND-NOT: tile.gemm

// NVVM: gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">]
// NVVM: llvm.func @gemm(
// NVVM-SAME: nvvm.kernel
// NVVM-NOT: tile.gemm

// NVVM80: gpu.module @gemm [#nvvm.target<O = 3, chip = "sm_80"
// NVVM80: nvvm.mma.sync

// PTX: gpu.binary @gemm [#gpu.object<#nvvm.target<O = 3, chip = "sm_89", features = "+ptx84">
// PTX-SAME: .target sm_89
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// NOPASS: 'tilec-to-nvvm' does not refer to a registered pass or pass pipeline
tile.kernel @gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                  %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
