/*===- tilec-c/Tilec.h - The tilec C API --------------------------*- C -*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * This header is the whole C API of libtilec-c.so: the self-contained
 * compile entry point (tilec-c/Compiler.h, usable without MLIR-C) and the
 * registration entry points for MLIR-C users (tilec-c/Registration.h).
 */

#ifndef TILEC_C_TILEC_H
#define TILEC_C_TILEC_H

#include "tilec-c/Compiler.h"
#include "tilec-c/Registration.h"

#endif /* TILEC_C_TILEC_H */
