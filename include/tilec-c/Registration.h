/*===- tilec-c/Registration.h - C API: tilec through MLIR-C -------*- C -*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * This header declares the entry points for callers that already use the
 * MLIR C API (mlir-c/IR.h): registering tilec's dialects into their
 * MlirDialectRegistry, its passes and pipelines into the global registry
 * (for mlirParsePassPipeline), and compiling a module they built or parsed.
 * The MLIR C API functions come from the caller's side: on Debian, link
 * libMLIRCAPIIR.a by file (not its CMake target, whose link interface pulls
 * in static MLIR) together with libMLIR.so, the library libtilec-c.so uses.
 */

#ifndef TILEC_C_REGISTRATION_H
#define TILEC_C_REGISTRATION_H

#include "mlir-c/IR.h"
#include "tilec-c/Compiler.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Inserts the tile dialect and every dialect tilec's pipelines parse or
/// create, with the interfaces PTX emission needs (LLVM IR translation,
/// #nvvm.target serialization). Safe to call on a registry that already holds
/// some of them.
TILEC_CAPI_EXPORTED void tilecRegisterAllDialects(MlirDialectRegistry registry);

/// Registers every tilec pass and the pipelines tilec-to-nvvm and
/// tilec-to-ptx with the global pass registry. Idempotent.
TILEC_CAPI_EXPORTED void tilecRegisterAllPasses(void);

/// Compiles `module` (whose context has tilecRegisterAllDialects' dialects)
/// in place, like tilecCompile; `options->sourceName` is unused. Diagnostics
/// emitted during the call go to the result, not to the context's other
/// handlers. With `dumpStages`, the context's action handler is replaced for
/// the duration of the call and multithreading is disabled (then restored).
TILEC_CAPI_EXPORTED TilecStatus
tilecCompileModule(MlirModule module, const TilecCompileOptions *options,
                   TilecResult **result);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_C_REGISTRATION_H */
