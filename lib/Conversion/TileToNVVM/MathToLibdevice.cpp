//===- MathToLibdevice.cpp - Math functions as libdevice calls -----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tile-convert-math-to-libdevice: the math functions
// that the NVPTX backend cannot select become calls of the CUDA toolkit's
// libdevice (`__nv_expf`, `__nv_powf`, ...), through upstream MLIR's
// GPU-to-NVVM patterns. The #nvvm.target serialization links
// `nvvm/libdevice/libdevice.10.bc` into the module before code generation
// (only the functions called are kept), as Triton links it.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tilec {
#define GEN_PASS_DEF_TILECONVERTMATHTOLIBDEVICE
#include "tilec/Conversion/Passes.h.inc"
} // namespace mlir::tilec

using namespace mlir;
using namespace mlir::tilec;

/// The math ops that go to libdevice: the functions NVPTX has no
/// instruction for. The rest (abs, ceil, floor, sqrt, fma, rounding, bit
/// counts, classification) lower to LLVM intrinsics that NVPTX selects.
static bool isLibdeviceFunction(Operation *op) {
  return isa<math::AcosOp, math::AcoshOp, math::AsinOp, math::AsinhOp,
             math::AtanOp, math::Atan2Op, math::AtanhOp, math::CbrtOp,
             math::CosOp, math::CoshOp, math::ErfOp, math::ErfcOp, math::ExpOp,
             math::Exp2Op, math::ExpM1Op, math::FPowIOp, math::LogOp,
             math::Log10Op, math::Log1pOp, math::Log2Op, math::PowFOp,
             math::RsqrtOp, math::SinOp, math::SincosOp, math::SinhOp,
             math::TanOp, math::TanhOp>(op);
}

namespace {
struct TileConvertMathToLibdevicePass
    : public tilec::impl::TileConvertMathToLibdeviceBase<
          TileConvertMathToLibdevicePass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void TileConvertMathToLibdevicePass::runOnOperation() {
  MLIRContext *ctx = &getContext();
  LLVMTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  populateLibDeviceConversionPatterns(converter, patterns, /*benefit=*/1);
  ConversionTarget target(*ctx);
  target.addLegalDialect<LLVM::LLVMDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalDialect<math::MathDialect>(
      [](Operation *op) { return !isLibdeviceFunction(op); });
  if (failed(
          applyPartialConversion(getOperation(), target, std::move(patterns))))
    signalPassFailure();
}
