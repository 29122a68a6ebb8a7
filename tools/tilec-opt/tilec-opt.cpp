//===- tilec-opt.cpp - tilec optimizer driver -----------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements `tilec-opt`, the mlir-opt of tilec: every tilec dialect,
// pass and pipeline, plus the upstream passes tilec's pipelines use.
//
//===----------------------------------------------------------------------===//

#include "tilec/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tilec::registerAllPasses();
  mlir::tilec::registerAllPipelines();
  mlir::DialectRegistry registry;
  mlir::tilec::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tilec optimizer driver\n", registry));
}
