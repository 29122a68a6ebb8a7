//===- Passes.td - linalg to tile conversion passes --------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares tile-from-linalg, the linalg frontend of tilec
// (lib/Conversion/LinalgToTile/).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_LINALGTOTILE_PASSES_TD
#define TILEC_CONVERSION_LINALGTOTILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileFromLinalg : Pass<"tile-from-linalg", "::mlir::ModuleOp"> {
  let summary = "Outlines linalg matmuls and attention into tile.gemm / tile.attention kernels";
  let description = [{
    The linalg frontend of tilec. In every `func.func`, contractions and
    attention patterns on tensors are outlined into new `tile.kernel`s that
    hold one named op, and replaced by a `tile.launch` of it:

    - `linalg.matmul` (also with the transposed-B `indexing_maps`, the former
      `linalg.matmul_transpose_b`, or B produced by `linalg.transpose`) and
      `linalg.batch_matmul` become `tile.gemm`: bf16/f16 or fp8
      (`f8E4M3FN`/`f8E5M2`, mixed too) inputs with an f32, bf16 or f16
      result; f32 inputs with an f32 result, multiplied as
      `f32-precision` says (TF32 tensor cores, three products per step by
      default); signed i8 inputs with an i32 result (no epilogue, no
      accumulation into the init). Tensor cores read fp8, i8 and TF32 B
      K-major: a B stored `[K, N]` (the default maps) is first transposed
      into a new `[N, K]` tensor by a `<func>_transpose<i>` kernel (a
      block program, 64 x 64 tiles through shared memory, one extra pass
      over B); the transposed-B maps or a `linalg.transpose` need none. A following elementwise `linalg.generic` that adds
      a row-broadcast bias and/or a residual, applies ReLU
      (`maximumf`/`maxnumf` with 0, or compare + select), GELU (erf form,
      `x * 0.5 * (1 + erf(x / sqrt(2)))` in any grouping, as torch-mlir
      writes it) or SiLU (`x / (1 + exp(-x))`, `x * sigmoid(x)`) and/or
      casts the result is fused as `bias(...)`/`activation(...)`; GELU's
      tanh approximation is not (tile.gemm computes the erf form). A matmul
      whose `outs` is not a zero fill accumulates into it (`beta(1.0)`).
    - `matmul(Q, K^T)` -> optional scale (`mulf`/`divf` by a constant) ->
      softmax along the last dimension (`linalg.softmax`, or its upstream
      decomposition into max / sub+exp / sum / div `linalg.generic`s) ->
      `matmul(P, V)`, 2-D or batched, becomes `tile.attention` over
      `[batch, 1, seq, head_dim]` views (static head_dim 64, 128 or 256).

    Each kernel is named `<func>_gemm<i>` / `<func>_attention<i>` and takes
    one `!tile.ptr` per tensor operand (inputs, then the destination) and an
    `i32` per dynamic size (`M`, `N`, `K`, `batch`, `seq_q`, `seq_kv`) or
    dynamic batch stride. The matched ops are replaced by
    `tile.launch @<kernel>(inputs...) outs(destination) args [...]`, whose
    `args` tell the host, parameter by parameter, how to fill it from the
    operands (see tile.launch). A `linalg.batch_matmul` becomes one
    batched `tile.gemm` (3-D views, one launch); only the transpose kernel
    of an fp8, i8 or f32 B stored `[K, N]` computes one matrix, with a
    `batch` list on its launch: the host launches it once per batch index.
    `tilec` compiles
    the kernels; the function stays as host code, which `tilec --emit=host`
    (one-shot bufferization, tile-lower-launches, LLVM) turns into a host
    program that launches them.

    A `linalg.generic` or `linalg.contract` that is a matmul or
    batch_matmul (upstream's `linalg::specializeGenericOp` names it) is
    converted as that named op. `linalg.matvec` and `linalg.vecmat` become
    skinny `tile.gemm`s (N = 1 or M = 1), without epilogue fusion.

    The contractions may also be on memrefs (as upstream's GPU tests write
    them): the `tile.launch` is then on the memrefs and writes C in place;
    since linalg accumulates into a memref C, the kernel reads it
    (`beta(1.0)`) unless a `linalg.fill` of zero into C comes right before
    (which is then dropped). There is no epilogue fusion on memrefs, and an
    fp8, i8 or f32 B stored `[K, N]` is left alone (its transpose kernel
    would need a new buffer). A GEMM's A, B and C may be strided memrefs
    whose rows are contiguous (subviews, one-shot bufferization's
    `strided<[?, ?], offset: ?>`): the kernel takes their leading strides
    (`{arg, stride}` in `args`), each base moves by its offset, and the
    launch checks that the innermost stride is 1.

    A GEMM kernel whose sizes, strides or base offsets are known only at
    run time gets a fallback (with `fallbacks`, the default): a copy
    `<kernel>_aligned0` whose tile.gemm takes any operands
    (`aligned = false`), named by the launch's `fallback`. The host runtime
    launches it when the operands break the first kernel's requirements
    (16-byte aligned bases, rows of whole 16-byte chunks), e.g. K = 13.

    Operands may be function arguments, results of other ops, or
    `bufferization.to_tensor` of contiguous memrefs. Everything else
    (other contractions such as `mmt4d`, unsigned i8, transposed A,
    memrefs whose rows are not contiguous, an attention pattern with an
    unsupported head dimension, ...)
    is left alone with a remark saying why (`quiet` silences them), as is
    an elementwise consumer of a converted kernel that its epilogue cannot
    take; with `strict`, a contraction or softmax left alone is an error
    that fails the pass.
  }];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Fail on a contraction or linalg.softmax that cannot be converted "
           "instead of leaving it alone">,
    Option<"quiet", "quiet", "bool", /*default=*/"false",
           "Do not remark on what is left alone (by default every "
           "contraction or softmax not converted, and every elementwise "
           "consumer of a converted kernel not fused into it, gets a "
           "remark saying why)">,
    Option<"fallbacks", "fallbacks", "bool", /*default=*/"true",
           "Give each GEMM kernel whose sizes, strides or base offsets are "
           "known only at run time an `aligned = false` fallback kernel, "
           "launched when the operands break the first kernel's "
           "requirements (false: such a launch fails, and each GEMM "
           "compiles once)">,
    Option<"f32Precision", "f32-precision", "::mlir::tilec::tile::DotPrecision",
           /*default=*/"::mlir::tilec::tile::DotPrecision::TF32x3",
           "How the tile.gemm of an f32 matmul multiplies",
           [{::llvm::cl::values(
             clEnumValN(::mlir::tilec::tile::DotPrecision::TF32x3, "tf32x3",
                        "three TF32 products per step, about f32's accuracy "
                        "(the default)"),
             clEnumValN(::mlir::tilec::tile::DotPrecision::TF32, "tf32",
                        "one TF32 product (10-bit mantissa), as torch with "
                        "allow_tf32"),
             clEnumValN(::mlir::tilec::tile::DotPrecision::IEEE, "ieee",
                        "exact f32 products, on FMA instructions (no tensor "
                        "core has them; slower than tf32x3)"))}]>
  ];
  let statistics = [
    Statistic<"numGemms", "num-gemms", "Number of tile.gemm kernels outlined">,
    Statistic<"numAttentions", "num-attentions",
              "Number of tile.attention kernels outlined">,
    Statistic<"numFusedEpilogues", "num-fused-epilogues",
              "Number of tile.gemm kernels with a fused bias or activation">,
    Statistic<"numMissed", "num-missed",
              "Number of candidate ops left unconverted">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::tilec::tile::TileDialect"];
}

#endif // TILEC_CONVERSION_LINALGTOTILE_PASSES_TD
