//===- Host.cpp - host programs that launch the kernels (--emit=host) ----===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// compileHostModule: a frontend module (linalg on tensors, or functions
// with tile.launch ops) becomes LLVM IR for the host that embeds the cubins
// of its kernels and launches them through tilec's host runtime:
//
//   tile-from-linalg            kernels outlined, tile.launch in the functions
//   compileModule (a copy)      every tile.kernel to a cubin and <kernel>.json
//   gpu.binary per kernel       #gpu.object<#nvvm.target, bin = cubin,
//                                           properties = {tilec.launch = json}>
//   tilec-host-to-llvm          bufferization, tile-lower-launches, LLVM
//   translation                 LLVM IR for the host's target triple
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Conversion/LinalgToTile/Passes.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::tilec;

/// Replaces the tile.kernels of `host` by a gpu.binary each, holding the
/// kernel's cubin and launch metadata.
static void replaceKernelsWithBinaries(ModuleOp host,
                                       ArrayRef<KernelArtifacts> kernels,
                                       StringRef chip) {
  MLIRContext *ctx = host.getContext();
  for (auto kernel : llvm::make_early_inc_range(host.getOps<tile::KernelOp>()))
    kernel.erase();
  OpBuilder b = OpBuilder::atBlockEnd(host.getBody());
  auto target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3,
                                          "nvptx64-nvidia-cuda", chip);
  for (const KernelArtifacts &k : kernels) {
    auto props = b.getDictionaryAttr(
        b.getNamedAttr("tilec.launch", b.getStringAttr(k.metadata)));
    auto object =
        gpu::ObjectAttr::get(ctx, target, gpu::CompilationTarget::Binary,
                             b.getStringAttr(k.cubin), props,
                             /*kernels=*/nullptr);
    gpu::BinaryOp::create(b, host.getLoc(), k.name, Attribute(),
                          b.getArrayAttr({object}));
  }
  host->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                UnitAttr::get(ctx));
}

FailureOr<std::string>
mlir::tilec::compileHostModule(ModuleOp module, const CompileOptions &options) {
  MLIRContext *ctx = module.getContext();
  {
    PassManager pm(ctx);
    pm.addPass(tile::createTileFromLinalg());
    if (failed(pm.run(module)))
      return failure();
  }
  bool hasHostCode =
      llvm::any_of(module.getOps<func::FuncOp>(),
                   [](func::FuncOp f) { return !f.isExternal(); });
  if (!hasHostCode)
    return emitError(module.getLoc(),
                     "--emit=host needs host code: a func.func that "
                     "tile-from-linalg converts (linalg matmuls or attention "
                     "on tensors) or that holds tile.launch ops");
  bool launches = false;
  module.walk([&](tile::LaunchOp) { launches = true; });
  // Tensor arguments are the caller's values: a kernel that writes into
  // one (a residual fused as C) writes into a copy. (Upstream's default,
  // which tilec-host-to-llvm keeps, lets bufferization write into them.)
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal())
      continue;
    for (BlockArgument arg : f.getArguments())
      if (isa<TensorType>(arg.getType()))
        f.setArgAttr(arg.getArgNumber(), "bufferization.writable",
                     BoolAttr::get(ctx, false));
  }

  // The kernels, compiled from a copy of the module that holds only them.
  SmallVector<KernelArtifacts> kernels;
  if (!module.getOps<tile::KernelOp>().empty()) {
    OwningOpRef<ModuleOp> device = ModuleOp::create(module.getLoc());
    OpBuilder b = OpBuilder::atBlockEnd(device->getBody());
    for (auto kernel : module.getOps<tile::KernelOp>())
      b.clone(*kernel);
    CompileOptions deviceOptions = options;
    deviceOptions.emit = EmitStage::Cubin;
    FailureOr<SmallVector<KernelArtifacts>> compiled =
        compileModule(*device, deviceOptions);
    if (failed(compiled))
      return failure();
    kernels = std::move(*compiled);
  } else if (!launches) {
    emitWarning(module.getLoc(),
                "no kernel: tile-from-linalg converted nothing, so the host "
                "code launches nothing (its remarks say why)");
  }
  replaceKernelsWithBinaries(module, kernels,
                             options.cubinArch.empty() ? options.chip
                                                       : options.cubinArch);

  PassManager pm(ctx);
  buildTilecHostToLLVMPipeline(pm, TilecHostPipelineOptions());
  if (failed(pm.run(module)))
    return failure();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tilec_host");
  if (!llvmModule)
    return emitError(module.getLoc(), "cannot translate the host code to "
                                      "LLVM IR");
  llvmModule->setTargetTriple(
      llvm::Triple(llvm::sys::getDefaultTargetTriple()));
  std::string text;
  llvm::raw_string_ostream os(text);
  llvmModule->print(os, nullptr);
  return text;
}
