//===- tilec-plugin.cpp - tilec as a plugin of the stock mlir-opt ---------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements libtilec-plugin.so, loadable into Debian's
// mlir-opt-22 (and any MlirOptMain tool linked against the same libMLIR.so):
//
//   mlir-opt --load-dialect-plugin=libtilec-plugin.so \
//            --load-pass-plugin=libtilec-plugin.so \
//            --tilec-to-nvvm=chip=sm_90a kernel.mlir
//
// The dialect entry point inserts the tile dialect and the upstream dialects
// and interfaces tilec's pipelines use. mlir-opt registers the upstream ones
// too; a DialectRegistry accepts the same dialect (same TypeID, which lives in
// the shared libMLIR.so) and the same extension twice. The pass entry point
// registers tilec's passes and pipelines (tilec-to-nvvm, tilec-to-ptx,
// tilec-host-to-llvm)
// once per process: MLIR treats a second registration of a pipeline name as
// a fatal error, and the plugin may be named twice on a command line.
//
//===----------------------------------------------------------------------===//

#include "tilec/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Support/Compiler.h"

#include <mutex>

#ifndef TILEC_VERSION_STRING
#define TILEC_VERSION_STRING "0.1.0"
#endif

using namespace mlir;

/// Dialect-plugin callback: everything tilec programs parse and lower to.
static void registerTilecDialects(DialectRegistry *registry) {
  tilec::registerAllDialects(*registry);
}

/// Pass-plugin callback: passes and pipelines, registered at most once.
static void registerTilecPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    tilec::registerAllPasses();
    tilec::registerAllPipelines();
  });
}

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "tilec", TILEC_VERSION_STRING,
          registerTilecDialects};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "tilec", TILEC_VERSION_STRING,
          registerTilecPasses};
}
