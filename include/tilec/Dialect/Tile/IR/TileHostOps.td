//===- TileHostOps.td - host-level tile ops ----------------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The host level: ops of the functions that call kernels (the frontend's
// host code that tile-from-linalg leaves), not of kernels. They are
// bufferized with upstream's one-shot bufferization and lowered by
// tile-lower-launches into calls of tilec's host runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEHOSTOPS_TD
#define TILEC_DIALECT_TILE_IR_TILEHOSTOPS_TD

include "mlir/Interfaces/DestinationStyleOpInterface.td"

def Tile_LaunchOp : Tile_Op<"launch", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>
  ]> {
  let summary = "Launches a tile.kernel from host code, writing into `outs`";
  let description = [{
    Runs kernel `@kernel` once (or once per batch index, see below) on the
    buffers of its operands, in destination-passing style: the kernel reads
    the `inputs` and writes (and may read) `init`. On tensors the op
    returns the new value of `init`; on memrefs it has no result. This is
    the host-side boundary that tile-from-linalg creates for every kernel it
    outlines, and that one-shot bufferization understands (the result
    aliases `init`, like a linalg op's).

    `args` describe, parameter by parameter, how the host fills the
    kernel's parameters from the operands:

    - `{arg = i}`: the address of operand i, a dense row-major buffer;
    - `{arg = i, dim = d}`: its size d (an `i32` parameter);
    - `{arg = i, stride = d}`: its stride d in elements (an `i32`
      parameter).

    `batch [i, ...]` marks a kernel that computes one matrix of a batch:
    the host runs it once per index of the leading dimension of the listed
    operands, advancing each listed operand's address by its leading
    stride.

    `@kernel` names a `tile.kernel` of the module before the kernels are
    compiled, and the `gpu.binary` holding the kernel's cubin afterwards
    (`tilec --emit=host` makes one per kernel); tile-lower-launches checks
    it.

    `fallback @k2` names a second kernel with the same parameters that takes
    any operands (tile-from-linalg's `aligned = false` variant of a GEMM
    whose sizes, strides or bases are only known at run time). The host
    runtime launches it instead when the operands break `@kernel`'s launch
    requirements: 16-byte aligned bases, sizes and strides that are
    multiples of its hints, the tensor-map rules.

    ```mlir
    %r = tile.launch @f_gemm0(%a, %b : tensor<?x64xbf16>, tensor<64x32xbf16>)
        outs(%e : tensor<?x32xbf16>)
        args [{arg = 0}, {arg = 1}, {arg = 2}, {arg = 0, dim = 0} ]
        -> tensor<?x32xbf16>
    ```
  }];
  let arguments = (ins
    FlatSymbolRefAttr:$kernel,
    Variadic<AnyShaped>:$inputs,
    AnyShaped:$init,
    DictArrayAttr:$args,
    OptionalAttr<DenseI64ArrayAttr>:$batch,
    OptionalAttr<FlatSymbolRefAttr>:$fallback
  );
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $kernel `(` ($inputs^ `:` type($inputs))? `)`
    `outs` `(` $init `:` type($init) `)`
    `args` $args (`batch` $batch^)? (`fallback` $fallback^)? attr-dict
    (`->` type($result)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// DestinationStyleOpInterface: `init` is the only init.
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
    /// Whether the operands are memrefs (the op is bufferized).
    bool hasBufferSemantics() {
      return ::mlir::isa<::mlir::MemRefType>(getInit().getType());
    }
  }];
}

#endif // TILEC_DIALECT_TILE_IR_TILEHOSTOPS_TD
