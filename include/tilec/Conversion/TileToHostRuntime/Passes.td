//===- Passes.td - tile.launch to host runtime calls -------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares tile-lower-launches, the lowering of host code's
// tile.launch ops to calls of tilec's host runtime
// (lib/Conversion/TileToHostRuntime/).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_TILETOHOSTRUNTIME_PASSES_TD
#define TILEC_CONVERSION_TILETOHOSTRUNTIME_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileLowerLaunches : Pass<"tile-lower-launches", "::mlir::ModuleOp"> {
  let summary = "Lowers bufferized tile.launch ops to calls of tilec's host runtime";
  let description = [{
    The host side of the linalg frontend. After one-shot bufferization, each
    `tile.launch @k` on memrefs becomes a call of the host runtime's
    `tilecHostLaunch` (`include/tilec/Runtime/HostRuntime.h`, in
    `libtilec-host-runtime`), which loads the kernel's cubin once per
    context, checks the arguments against the kernel's launch metadata,
    encodes its tensor maps and launches it with its grid, dynamic shared
    memory and cluster shape:

    - the kernel comes from `gpu.binary @k`, whose object (the one for
      `chip`, or the only one) holds the cubin (`bin = ...`) and, in its
      `properties`, the launch metadata as `tilec.launch = "<json>"`;
      both become internal constants of the module, and the binary is
      erased;
    - each parameter is filled as the launch's `args` say (addresses from
      `memref.extract_aligned_pointer_as_index` plus the offset, sizes and
      strides from the memref), and an operand that is not a dense
      row-major buffer is reported by the runtime instead of launched;
    - a `batch` launch becomes a loop over the batch index that advances
      the listed operands.

    Launches are asynchronous on the runtime's stream; a call of
    `tilecHostSynchronize` is inserted before the first operation after a
    launch that may touch memory and is not itself a launch (host code that
    reads a result, a deallocation, the return), so launch chains run back
    to back and the host never sees a buffer a kernel is still writing.
    Errors (no device, a bad argument, a failed launch) are printed by the
    runtime and kept for `tilecHostGetError`; later launches are skipped.

    Every memref the host code allocates must be visible to the GPU: lower
    with `finalize-memref-to-llvm{use-generic-functions=true}`, whose
    `_mlir_memref_to_llvm_alloc` the host runtime implements with CUDA
    managed memory (the `tilec-host-to-llvm` pipeline does this). Callers
    pass device or managed memory. Public functions get
    `llvm.emit_c_interface` (`c-interface`), so C and C++ call them as
    `_mlir_ciface_<name>` with memref descriptors.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The object of each gpu.binary to launch (its #nvvm.target "
           "chip); empty: the binary must hold exactly one object">,
    Option<"cInterface", "c-interface", "bool", /*default=*/"true",
           "Give public functions llvm.emit_c_interface">
  ];
  let statistics = [
    Statistic<"numLaunches", "num-launches", "Number of tile.launch ops lowered">,
    Statistic<"numSyncs", "num-syncs",
              "Number of tilecHostSynchronize calls inserted">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TILEC_CONVERSION_TILETOHOSTRUNTIME_PASSES_TD
