//===- TileInterfaces.td - tile dialect op interfaces ------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The op interfaces of the `tile` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEINTERFACES_TD
#define TILEC_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_StagedOpInterface : OpInterface<"StagedOpInterface"> {
  let cppNamespace = "::mlir::tilec::tile";
  let description = [{
    A named op that may run as several kernels launched in order with the
    same arguments (the attention backward's stages, a split-K GEMM's
    partial products and their sum). `tile-split-stages` replaces a kernel
    `@k` holding such an op without a stage by one kernel per stage,
    `@k_<stage>`, each the op with its stage set, which
    `tile-expand-named-ops` then expands one by one.
  }];
  let methods = [
    InterfaceMethod<[{
        The names of the kernels the op runs as, in launch order; fewer than
        two: the op is one kernel.
      }], "::llvm::SmallVector<::llvm::StringRef, 4>", "getKernelStages">,
    InterfaceMethod<[{
        The stage this op computes, if one is set.
      }], "std::optional<::llvm::StringRef>", "getKernelStage">,
    InterfaceMethod<[{
        Sets the stage this op computes (one of getKernelStages()).
      }], "void", "setKernelStage", (ins "::llvm::StringRef":$stage)>
  ];
}

#endif // TILEC_DIALECT_TILE_IR_TILEINTERFACES_TD
