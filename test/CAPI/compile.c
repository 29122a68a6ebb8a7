/*===- compile.c - Test of the tilec C API ------------------------*- C -*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: tilec-capi-test %cuda_root 2>&1 | FileCheck %s
 *
 * Drives libtilec-c.so from C only: the self-contained tilecCompile entry
 * (cubin, PTX, metadata, stages, diagnostics) and the MLIR-C route
 * (tilecRegisterAllDialects into an MlirDialectRegistry, the tilec-to-nvvm
 * pipeline through mlirParsePassPipeline, tilecCompileModule). The program
 * checks facts itself and exits non-zero on a failed check; FileCheck pins
 * what it prints.
 */

#include "tilec-c/Tilec.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tile program with one kernel: y = 2 * x over n floats. */
static const char *kScaleSource =
    "tile.kernel @scale(%x: !tile.ptr<f32>, %n: i32) grid(ceildiv(%n, 512)) {\n"
    "  %c512 = arith.constant 512 : i32\n"
    "  %pid = tile.program_id x\n"
    "  %off = arith.muli %pid, %c512 : i32\n"
    "  %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>\n"
    "  %t = tile.load %v[%off] : !tile.view<?xf32, strides = [1]> -> "
    "tensor<512xf32>\n"
    "  %two = arith.constant dense<2.0> : tensor<512xf32>\n"
    "  %r = arith.mulf %t, %two : tensor<512xf32>\n"
    "  tile.store %r, %v[%off] : tensor<512xf32>, !tile.view<?xf32, strides "
    "= [1]>\n"
    "  tile.return\n"
    "}\n";

static int failures = 0;

/* Records a failed check (and prints it for FileCheck to reject). */
static void check(int cond, const char *what) {
  if (!cond) {
    printf("FAILED: %s\n", what);
    ++failures;
  }
}

/* Whether `ref` contains the C string `needle`. */
static int contains(TilecStringRef ref, const char *needle) {
  return strstr(ref.data, needle) != NULL;
}

/* Prints the first line of `ref` (diagnostics) after `label`. */
static void printFirstLine(const char *label, TilecStringRef ref) {
  const char *end = strchr(ref.data, '\n');
  int len = end ? (int)(end - ref.data) : (int)ref.length;
  printf("%s: %.*s\n", label, len, ref.data);
}

/* Compiles `source` with `chip` and `emit`; the result is the caller's. */
static TilecStatus compile(const char *source, const char *chip, TilecEmit emit,
                           const char *cudaPath, bool stages,
                           TilecResult **result) {
  TilecCompileOptions options;
  tilecCompileOptionsInit(&options);
  options.chip = chip;
  options.emit = emit;
  options.cudaPath = cudaPath;
  options.sourceName = "scale.mlir";
  options.dumpStages = stages;
  return tilecCompile(source, source ? strlen(source) : 0, &options, result);
}

/* tilecCompile to a cubin: name, PTX, ELF cubin, metadata, stages. */
static void testCompileCubin(const char *cudaPath) {
  printf("== compile cubin\n");
  TilecResult *result = NULL;
  TilecStatus status =
      compile(kScaleSource, "sm_80", TilecEmitCubin, cudaPath, true, &result);
  check(status == TilecSuccess && tilecResultSucceeded(result), "succeeded");
  if (status != TilecSuccess)
    printFirstLine("diagnostics", tilecResultGetDiagnostics(result));
  check(tilecResultGetNumKernels(result) == 1, "one kernel");
  printf("kernel: %s\n", tilecResultGetKernelName(result, 0).data);

  TilecStringRef ptx =
      tilecResultGetKernelArtifact(result, 0, TilecArtifactPTX);
  check(contains(ptx, ".target sm_80"), "PTX targets sm_80");
  check(contains(ptx, ".entry scale"), "PTX has the entry");

  TilecStringRef cubin =
      tilecResultGetKernelArtifact(result, 0, TilecArtifactCubin);
  check(cubin.length > 4 && memcmp(cubin.data, "\177ELF", 4) == 0,
        "cubin is an ELF file");
  check(cubin.data[cubin.length] == '\0', "artifacts are NUL-terminated");

  TilecStringRef meta =
      tilecResultGetKernelArtifact(result, 0, TilecArtifactMetadata);
  check(contains(meta, "\"kernel\": \"scale\""), "metadata names the kernel");
  check(contains(meta, "\"grid\""), "metadata has the grid rule");

  TilecStringRef mlir =
      tilecResultGetKernelArtifact(result, 0, TilecArtifactMLIR);
  check(contains(mlir, "gpu.module @scale"), "NVVM-level module recorded");
  check(tilecResultGetKernelArtifact(result, 0, TilecArtifactLLVM).length > 0,
        "LLVM IR recorded");

  size_t numStages = tilecResultGetNumStages(result);
  check(numStages > 5, "stages recorded");
  printf("stage 0: %s\n", tilecResultGetStageName(result, 0).data);
  check(contains(tilecResultGetStageIR(result, 0), "tile.kernel @scale"),
        "the input stage is the tile program");
  for (size_t i = 0; i < numStages; ++i) {
    TilecStringRef name = tilecResultGetStageName(result, i);
    if (strncmp(name.data, "tile-attach-target", 18) == 0 ||
        strncmp(name.data, "convert-tile-to-nvvm", 20) == 0)
      printf("stage: %s\n", name.data);
  }
  check(tilecResultGetStageName(result, numStages).length == 0,
        "out-of-range stage is empty");
  check(tilecResultGetKernelName(result, 7).length == 0,
        "out-of-range kernel is empty");
  tilecResultDestroy(result);
}

/* tilecCompile without stages to PTX: nothing beyond what was asked. */
static void testCompilePTX(void) {
  printf("== compile ptx\n");
  TilecResult *result = NULL;
  TilecStatus status =
      compile(kScaleSource, "sm_90a", TilecEmitPTX, NULL, false, &result);
  check(status == TilecSuccess, "succeeded");
  TilecStringRef ptx =
      tilecResultGetKernelArtifact(result, 0, TilecArtifactPTX);
  check(contains(ptx, ".target sm_90a"), "PTX targets sm_90a");
  check(tilecResultGetKernelArtifact(result, 0, TilecArtifactCubin).length == 0,
        "no cubin for TilecEmitPTX");
  check(tilecResultGetNumStages(result) == 0, "no stages unless asked");
  printf("ptx ok\n");
  tilecResultDestroy(result);
}

/* TilecEmitHeader: the AOT C header of `tilec --emit=header` beside the
 * cubin it embeds. */
static void testCompileHeader(const char *cudaPath) {
  printf("== compile header\n");
  TilecResult *result = NULL;
  TilecStatus status =
      compile(kScaleSource, "sm_80", TilecEmitHeader, cudaPath, false, &result);
  check(status == TilecSuccess, "succeeded");
  TilecStringRef header =
      tilecResultGetKernelArtifact(result, 0, TilecArtifactHeader);
  check(contains(header, "tilec_scale_launch(CUstream"),
        "header defines the launch function");
  check(contains(header, "#include \"tilec-c/Runtime.h\""),
        "header launches through the runtime's C ABI");
  check(tilecResultGetKernelArtifact(result, 0, TilecArtifactCubin).length > 4,
        "the cubin it embeds comes too");
  tilecResultDestroy(result);
  status = compile(kScaleSource, "sm_80", TilecEmitPTX, NULL, false, &result);
  check(tilecResultGetKernelArtifact(result, 0, TilecArtifactHeader).length ==
            0,
        "no header for TilecEmitPTX");
  tilecResultDestroy(result);
  printf("header ok\n");
}

/* Failures come back as diagnostics text, never as a crash. */
static void testErrors(void) {
  printf("== errors\n");
  TilecResult *result = NULL;
  TilecStatus status = compile("tile.kernel @broken(", "sm_80", TilecEmitPTX,
                               NULL, false, &result);
  check(status == TilecFailure && !tilecResultSucceeded(result), "fails");
  check(tilecResultGetNumKernels(result) == 0, "no kernels on failure");
  printFirstLine("parse", tilecResultGetDiagnostics(result));
  tilecResultDestroy(result);

  status = compile(kScaleSource, "sm_75", TilecEmitPTX, NULL, false, &result);
  check(status == TilecFailure, "unknown chip fails");
  printFirstLine("chip", tilecResultGetDiagnostics(result));
  tilecResultDestroy(result);

  status = compile(kScaleSource, NULL, TilecEmitPTX, NULL, false, &result);
  check(status == TilecFailure, "missing chip fails");
  printFirstLine("no chip", tilecResultGetDiagnostics(result));
  tilecResultDestroy(result);

  status = compile("", "sm_80", TilecEmitPTX, NULL, false, &result);
  check(status == TilecFailure, "empty source fails");
  printFirstLine("empty", tilecResultGetDiagnostics(result));
  tilecResultDestroy(result);

  check(compile(kScaleSource, "sm_80", TilecEmitPTX, NULL, false, NULL) ==
            TilecInvalidArgument,
        "NULL result pointer");
  TilecCompileOptions options;
  tilecCompileOptionsInit(&options);
  check(tilecCompile(NULL, 3, &options, &result) == TilecInvalidArgument &&
            result == NULL,
        "NULL source with a length");
  tilecResultDestroy(NULL);
  printf("errors ok\n");
}

/* MlirStringCallback printing to stdout (pass-pipeline parse errors). */
static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/* A fixed-size, always NUL-terminated text buffer. */
struct Buffer {
  char *data;
  size_t length, capacity;
};

/* MlirStringCallback appending to a struct Buffer (truncating). */
static void appendToBuffer(MlirStringRef text, void *userData) {
  struct Buffer *b = (struct Buffer *)userData;
  size_t n = text.length;
  if (n > b->capacity - 1 - b->length)
    n = b->capacity - 1 - b->length;
  memcpy(b->data + b->length, text.data, n);
  b->length += n;
  b->data[b->length] = '\0';
}

/* The MLIR-C route: a caller-owned context with tilec's dialects, the named
 * pipeline from the global registry, then tilecCompileModule. */
static void testMlirC(void) {
  printf("== mlir-c\n");
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tilecRegisterAllDialects(registry);
  tilecRegisterAllDialects(registry); /* idempotent */
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  tilecRegisterAllPasses();
  tilecRegisterAllPasses(); /* idempotent */

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kScaleSource));
  check(!mlirModuleIsNull(module), "parsed through MLIR-C");
  if (mlirModuleIsNull(module)) {
    mlirContextDestroy(ctx);
    return;
  }

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed =
      mlirParsePassPipeline(opm,
                            mlirStringRefCreateFromCString(
                                "builtin.module(tilec-to-nvvm{chip=sm_89})"),
                            printToStdout, NULL);
  check(mlirLogicalResultIsSuccess(parsed), "tilec-to-nvvm is registered");
  if (mlirLogicalResultIsSuccess(parsed)) {
    MlirModule lowered = mlirModuleCreateParse(
        ctx, mlirStringRefCreateFromCString(kScaleSource));
    MlirLogicalResult ran =
        mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(lowered));
    check(mlirLogicalResultIsSuccess(ran), "pipeline ran");
    char buffer[1 << 16];
    struct Buffer out = {buffer, 0, sizeof(buffer)};
    mlirOperationPrint(mlirModuleGetOperation(lowered), appendToBuffer, &out);
    check(strstr(buffer, "llvm.func @scale") != NULL, "lowered to LLVM");
    printf("lowered: %s\n",
           strstr(buffer, "nvvm.kernel") ? "nvvm.kernel" : "?");
    mlirModuleDestroy(lowered);
  }
  mlirPassManagerDestroy(pm);

  TilecCompileOptions options;
  tilecCompileOptionsInit(&options);
  options.chip = "sm_89";
  TilecResult *result = NULL;
  TilecStatus status = tilecCompileModule(module, &options, &result);
  check(status == TilecSuccess, "tilecCompileModule succeeded");
  check(contains(tilecResultGetKernelArtifact(result, 0, TilecArtifactPTX),
                 ".target sm_89"),
        "PTX targets sm_89");
  printf("module kernel: %s\n", tilecResultGetKernelName(result, 0).data);
  tilecResultDestroy(result);

  /* Diagnostics of the caller's module land in the result. */
  options.chip = "sm_12";
  status = tilecCompileModule(module, &options, &result);
  check(status == TilecFailure, "unknown chip fails");
  printFirstLine("module chip", tilecResultGetDiagnostics(result));
  tilecResultDestroy(result);

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
}

int main(int argc, char **argv) {
  const char *cudaPath = argc > 1 ? argv[1] : NULL;
  printf("api %u, tilec %s\n", tilecGetAPIVersion(), tilecGetVersion());
  printf("chips: %s\n", tilecGetSupportedChips());
  testCompileCubin(cudaPath);
  testCompilePTX();
  testCompileHeader(cudaPath);
  testErrors();
  testMlirC();
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}

// clang-format off
// CHECK: api 3, tilec {{[0-9]+\.[0-9]+\.[0-9]+}}
// CHECK: chips: sm_80, {{.*}}sm_90a
// CHECK-LABEL: == compile cubin
// CHECK-NOT: FAILED
// CHECK: kernel: scale
// CHECK: stage 0: input
// CHECK: stage: tile-attach-target
// CHECK: stage: convert-tile-to-nvvm @scale
// CHECK-LABEL: == compile ptx
// CHECK-NOT: FAILED
// CHECK: ptx ok
// CHECK-LABEL: == compile header
// CHECK-NOT: FAILED
// CHECK: header ok
// CHECK-LABEL: == errors
// CHECK: parse: scale.mlir:1:20: error:
// CHECK: chip: scale.mlir:{{[0-9:]+}}: error: unknown chip 'sm_75'; expected one of
// CHECK: no chip: scale.mlir:{{[0-9:]+}}: error: no target chip given; expected one of
// CHECK: empty: scale.mlir:{{.*}}error: no tile.kernel to compile
// CHECK-NOT: FAILED
// CHECK: errors ok
// CHECK-LABEL: == mlir-c
// CHECK-NOT: FAILED
// CHECK: lowered: nvvm.kernel
// CHECK-NOT: FAILED
// CHECK: module kernel: scale
// CHECK: module chip: {{.*}}error: unknown chip 'sm_12'
// CHECK-NOT: FAILED
// CHECK: 0 failures
// clang-format on
