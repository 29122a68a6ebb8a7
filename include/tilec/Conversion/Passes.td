//===- Passes.td - tilec conversion passes -----------------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the conversion passes of tilec.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_PASSES_TD
#define TILEC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToNVVM : Pass<"convert-tile-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lowers tile.kernels with layouts to per-thread NVVM/LLVM code";
  let description = [{
    Converts every `tile.kernel` of a `gpu.module` (whose tiles carry layout
    encodings, see `tile-assign-layouts`) into an `llvm.func` kernel:
    each tile becomes the vector of elements one thread holds, tile ops
    become per-thread code (vectorized predicated global accesses, warp
    shuffles, shared-memory exchanges, mma.sync), and elementwise `arith`
    / `math` ops apply to those vectors. The launch metadata is recorded in
    a `tile.launch` attribute on each kernel function.

    The result still contains `arith`, `math`, `scf`, `vector` and `nvvm`
    ops; `tilec-to-nvvm` runs the upstream conversions to LLVM after it.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the gpu.module's #nvvm.target">
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def TileLegalizeMath : Pass<"tile-legalize-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Approximates the math ops whose fastmath flags allow it";
  let description = [{
    A `math` op whose `fastmath` flags contain `afn` becomes the hardware
    approximation kernels use: `ex2.approx.ftz` for exp and exp2,
    `lg2.approx` for log and log2, `tanh.approx`, `rsqrt.approx`,
    `sin.approx`/`cos.approx` (f32; f16/bf16 through f32; vectors one element
    at a time), and upstream's polynomial for erf. Every other math op keeps
    MLIR's IEEE semantics and is left to `tile-convert-math-to-libdevice`
    and `convert-math-to-llvm`. `math.ipowi`, which neither LLVM nor
    libdevice provides, becomes a square-and-multiply loop.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TileConvertMathToLibdevice : Pass<"tile-convert-math-to-libdevice", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lowers math functions to calls into the CUDA toolkit's libdevice";
  let description = [{
    The NVPTX backend has no math library: `llvm.pow`, `llvm.tan` and
    friends fail to select, and some abort LLVM. This pass lowers the math
    functions (`exp`, `log`, `tanh`, `powf`, `atan2`, `erfc`, `cbrt`,
    `sincos`, ...; f32 and f64, f16/bf16 through f32) to calls of libdevice's
    `__nv_*` functions with upstream's patterns
    (`populateLibDeviceConversionPatterns`); with `afn` in an op's
    `fastmath` flags, to the `__nv_fast_*` variant where libdevice has one.
    The serialization links the toolkit's `nvvm/libdevice/libdevice.10.bc`
    into the module, as Triton does. Ops NVPTX selects itself (`absf`,
    `ceil`, `floor`, `sqrt`, `fma`, `copysign`, the rounding and integer bit
    ops, the classification ops) are left to `convert-math-to-llvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileScalarizeElementwise : Pass<"tile-scalarize-elementwise", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Per-element scalar code for per-thread vector arithmetic";
  let description = [{
    After convert-tile-to-nvvm a thread's share of a tile is one vector
    (e.g. 128 floats of a GEMM accumulator), and elementwise ops act on
    whole vectors. Emitted in that order, an epilogue or a softmax keeps
    several whole vectors alive at once and spills. This pass rewrites
    elementwise `arith`/`math` ops on 1-D vectors into one scalar op per
    element and then moves each pure scalar op right after its last
    operand, so that each element's chain of operations is emitted
    together (element-major) and only a few values per element are live.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

#endif // TILEC_CONVERSION_PASSES_TD
