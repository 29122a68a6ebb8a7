//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the operations of the `tile` dialect: kernels, views of
// global memory, tile loads/stores, tile-level compute (dot, reduce,
// broadcast, ...), layout conversions and the named ops tile.gemm and
// tile.attention.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEOPS_TD
#define TILEC_DIALECT_TILE_IR_TILEOPS_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "tilec/Dialect/Tile/IR/TileAttrs.td"
include "tilec/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Tensor : RankedTensorOf<[AnyType]>;
def Tile_IntTensor : RankedTensorOf<[AnySignlessInteger]>;
def Tile_BoolTensor : RankedTensorOf<[I1]>;
def Tile_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Tile_Scalar : AnyTypeOf<[AnySignlessInteger, AnyFloat]>;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    AffineScope, AutomaticAllocationScope, FunctionOpInterface,
    IsolatedFromAbove, OpAsmOpInterface
  ]> {
  let summary = "A GPU kernel executed by a grid of programs";
  let description = [{
    A kernel is a function without results whose body is executed by every
    program (thread block) of a launch grid. Parameters are global pointers
    (`!tile.ptr<T>`) and integer or floating-point scalars; their SSA names
    become the parameter names of the launch metadata (`<kernel>.json`).

    `grid(...)` gives the launch grid as 1 to 3 expressions over the integer
    parameters (`+`, `-`, `*`, `ceildiv`, `floordiv`, `mod`, integer
    literals); it is written to the metadata so that runtimes can compute the
    grid from the problem sizes. `warps(n)` is the number of warps of a
    program (default 4). `persistent` kernels loop over the work of the 1-D
    grid rule themselves: runtimes launch at most one program per SM
    (`min(grid, SMs)`), and `tile.num_programs` is the launched count.
    `schedule<...>` sets knobs of the scheduling passes (`#tile.schedule`:
    ring depth, warp specialization, persistence, ...).
    `cluster(x, y, z)` launches the programs in thread-block clusters of that
    shape (sm_90+, at most 8 programs; `.reqnctapercluster` in the PTX, and
    `cluster` in the launch metadata); a persistent kernel's cluster is 1-D
    (`cluster(x)`) and runtimes keep its capped grid a multiple of `x`.

    ```mlir
    tile.kernel @scale(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32)
        grid(ceildiv(%n, 1024)) warps(4) {
      %pid = tile.program_id x
      ...
      tile.return
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs,
    StrArrayAttr:$arg_names,
    DefaultValuedAttr<I32Attr, "4">:$num_warps,
    OptionalAttr<AffineMapAttr>:$grid,
    OptionalAttr<DenseI64ArrayAttr>:$grid_args,
    UnitAttr:$persistent,
    OptionalAttr<DenseI32ArrayAttr>:$cluster,
    OptionalAttr<Tile_ScheduleAttr>:$schedule
  );
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "StringRef":$name, "FunctionType":$type,
      "ArrayRef<std::string>":$argNames, CArg<"unsigned", "4">:$numWarps)>];
  let extraClassDeclaration = [{
    /// FunctionOpInterface.
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ArrayRef<Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ArrayRef<Type> getResultTypes() { return getFunctionType().getResults(); }
    bool isDeclaration() { return false; }

    /// OpAsmOpInterface: print parameters with their recorded names.
    void getAsmBlockArgumentNames(::mlir::Region &region,
                                  ::mlir::OpAsmSetValueNameFn setNameFn);

    /// Returns the name of parameter `i`.
    StringRef getArgName(unsigned i) {
      return ::llvm::cast<StringAttr>(getArgNames()[i]).getValue();
    }
    /// Programs per thread-block cluster (1 without clusters).
    int64_t getClusterSize();
    /// Sets the launch grid to `map`, whose symbols are parameters `args`.
    void setGridRule(AffineMap map, ArrayRef<int64_t> args);
    /// The grid rule as expressions over parameter names, one per grid
    /// dimension (empty without a grid rule).
    SmallVector<std::string> getGridRuleStrings();
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"KernelOp">,
    ReturnLike, Terminator]> {
  let summary = "Terminates a tile.kernel";
  let description = [{
    ```mlir
    tile.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Index of the current program along a grid dimension";
  let description = [{
    ```mlir
    %pid = tile.program_id x
    ```
  }];
  let arguments = (ins Tile_Dim:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "Number of programs along a grid dimension";
  let description = [{
    ```mlir
    %n = tile.num_programs y
    ```
  }];
  let arguments = (ins Tile_Dim:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_ClusterRankOp : Tile_Op<"cluster_rank", [Pure]> {
  let summary = "Rank of the current program in its thread-block cluster";
  let description = [{
    `%cluster_ctarank`: 0 to (cluster size - 1), x fastest. The kernel must
    have a `cluster(...)` shape.

    ```mlir
    %r = tile.cluster_rank
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_ClusterBarrierOp : Tile_Op<"cluster_barrier"> {
  let summary = "Synchronizes all threads of a thread-block cluster";
  let description = [{
    `barrier.cluster.arrive` (release) and `barrier.cluster.wait` (acquire)
    by every thread of every program of the cluster: after it, barriers
    initialized and shared memory written before it by any program of the
    cluster are visible to all. Must be at the top level of a kernel with a
    `cluster(...)` shape, e.g. after `tile.mbarrier_alloc` (before other
    programs signal this one's barriers) and at the end (so that no program
    exits while others may still write to its shared memory).

    ```mlir
    tile.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Views and memory access
//===----------------------------------------------------------------------===//

def Tile_MakeViewOp : Tile_Op<"make_view", [Pure, AttrSizedOperandSegments]> {
  let summary = "Creates a strided view of a tensor in global memory";
  let description = [{
    Sizes and strides are in elements; each is an `i32` SSA value or an
    integer literal, and the literals become part of the result type.

    ```mlir
    %v = tile.make_view %x[%m, %n] strides [%ld, 1]
        : !tile.ptr<f32> -> !tile.view<?x?xf32, strides = [?, 1]>
    ```
  }];
  let arguments = (ins Tile_PtrType:$base, Variadic<I32>:$sizes,
                       Variadic<I32>:$strides);
  let results = (outs Tile_ViewType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ViewType getViewType() { return getResult().getType(); }
    /// Size / stride of dimension `i`: an IntegerAttr when static, else the
    /// SSA operand.
    OpFoldResult getMixedSize(unsigned i);
    OpFoldResult getMixedStride(unsigned i);
  }];
}

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments, MemoryEffects<[MemRead]>]> {
  let summary = "Loads a tile from a view, padding out-of-bounds elements";
  let description = [{
    Reads the tile whose first element is at `offsets` of `view`. A rank-r
    result covers the last r dimensions of the view; the leading dimensions
    are indexed by their offsets alone. Elements outside the view's sizes, or
    where the optional `mask` is false, read `padding` (zero by default).

    ```mlir
    %t = tile.load %v[%row, %c0] padding(neg_inf)
        : !tile.view<?x?xf32, strides = [?, 1]> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<I32>:$offsets,
                       Optional<Tile_BoolTensor>:$mask,
                       DefaultValuedAttr<Tile_Padding,
                           "::mlir::tilec::tile::Padding::Zero">:$padding);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $view `[` $offsets `]` (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`padding` `(` $padding^ `)`)? attr-dict `:` qualified(type($view))
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    AttrSizedOperandSegments, MemoryEffects<[MemWrite]>]> {
  let summary = "Stores a tile into a view, skipping out-of-bounds elements";
  let description = [{
    Writes `value` at `offsets` of `view` (same indexing as `tile.load`).
    Elements outside the view's sizes, or where `mask` is false, are not
    written.

    ```mlir
    tile.store %t, %v[%row, %c0]
        : tensor<64x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_ViewType:$view,
                       Variadic<I32>:$offsets,
                       Optional<Tile_BoolTensor>:$mask);
  let assemblyFormat = [{
    $value `,` $view `[` $offsets `]` (`mask` `(` $mask^ `:` type($mask) `)`)?
    attr-dict `:` type($value) `,` qualified(type($view))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile construction and shape manipulation
//===----------------------------------------------------------------------===//

def Tile_RangeOp : Tile_Op<"range", [Pure]> {
  let summary = "A 1-D tile of consecutive integers";
  let description = [{
    `[start, end)` as a 1-D `i32` tile, the usual way to build index tiles
    for masks (e.g. causal masks from comparing a row and a column range).

    ```mlir
    %cols = tile.range 0 to 128 : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `to` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"result element type matches the scalar", "result",
                   "value", "::llvm::cast<ShapedType>($_self).getElementType()">]> {
  let summary = "A tile filled with one scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$value);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "Inserts a unit dimension";
  let description = [{
    ```mlir
    %col = tile.expand_dims %x axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `axis` `=` $axis attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "Broadcasts unit dimensions of a tile";
  let description = [{
    Every dimension of the source is either equal to the result's or 1.

    ```mlir
    %b = tile.broadcast %col : tensor<128x1xf32> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "Transposes a 2-D tile";
  let description = [{
    ```mlir
    %kt = tile.trans %k : tensor<64x128xbf16> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  // trans(load %v[i, j]) -> load %vᵀ[j, i] (a view with the last two
  // dimensions swapped), so that a transposed operand reaches shared memory
  // in its memory order (ldmatrix.trans, K-major wgmma descriptors).
  let hasCanonicalizer = 1;
}

def Tile_ExtractSliceOp : Tile_Op<"extract_slice", [Pure]> {
  let summary = "A static sub-tile of a tile, in the same layout";
  let description = [{
    Element (i, j) of the result is element (i + offsets[0], j + offsets[1])
    of `source`. Each offset is a multiple of the result's size in its
    dimension, and both tiles have the same encoding: every thread then
    already holds the sub-tile's elements in registers of the source, and
    the slice moves no data. `tile-split-dots` slices register operands of
    `tile.dot` into 16-wide K steps with it.

    ```mlir
    %p0 = tile.extract_slice %p offsets [0, 16]
        : tensor<128x64xbf16, #dot_a> -> tensor<128x16xbf16, #dot_a>
    ```
  }];
  let arguments = (ins Tile_Tensor:$source, DenseI64ArrayAttr:$offsets);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $source `offsets` $offsets attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure,
    SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "Changes the layout encoding of a tile";
  let description = [{
    Inserted by `tile-assign-layouts` where a value's layout differs from the
    one its user needs; lowered to register moves, warp shuffles or a trip
    through shared memory depending on the two layouts.

    ```mlir
    %y = tile.convert_layout %x : tensor<128x64xf32, #blocked0>
                                -> tensor<128x64xf32, #blocked1>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "Reduces a tile along one axis";
  let description = [{
    Combines the elements along `axis` with `kind` (`sum`, `max`, `min`),
    removing that dimension.

    ```mlir
    %m = tile.reduce max %s axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_Tensor:$src,
                       I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $kind $src `axis` `=` $axis attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DotOp : Tile_Op<"dot", [Pure,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "Tile matrix product with accumulation: D = A * B + C";
  let description = [{
    A is M x K, B is K x N, C and D are M x N. Supported element types:
    bf16 x bf16 and f16 x f16 accumulating in f32 (f16 may also accumulate in
    f16), f32 x f32 in f32, and the fp8 types (`f8E4M3FN`, `f8E5M2`)
    accumulating in f32.

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<128x32xbf16>, tensor<32x64xbf16>
                               -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatTensor:$a, Tile_FloatTensor:$b,
                       Tile_FloatTensor:$acc);
  let results = (outs Tile_FloatTensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory and asynchronous copies (created by tile-pipeline)
//===----------------------------------------------------------------------===//

def Tile_LocalAllocOp : Tile_Op<"local_alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "Allocates a ring of tile buffers in shared memory";
  let description = [{
    The allocation lives for the whole kernel; convert-tile-to-nvvm places
    it in the kernel's dynamic shared memory.

    ```mlir
    %buf = tile.local_alloc : !tile.smem<4x128x32xbf16, #shared>
    ```
  }];
  let results = (outs Tile_SmemType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Asynchronously copies a tile of a view into a buffer";
  let description = [{
    Copies the tile of `view` at `offsets` (the buffer's tile shape, covering
    the last dimensions of the view) into stage `stage` of `buffer`, with
    16-byte `cp.async.cg` copies. Elements outside the view are written as
    zeros (`cp.async` zero-fill). Completion is tracked with
    `tile.async_commit` / `tile.async_wait`.

    Requires 16-byte aligned chunks along the view's contiguous dimension
    (`tile-pipeline` only creates the op when it can prove that). With
    `unchecked`, the tile is known to lie inside the view and no bounds are
    tested (`tile-pipeline` versions loops on that condition).

    ```mlir
    tile.async_copy %view[%m, %k], %buf[%stage]
        : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<4x128x32xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<I32>:$offsets,
                       Tile_SmemType:$buffer, I32:$stage, UnitAttr:$unchecked);
  let assemblyFormat = [{
    $view `[` $offsets `]` `,` $buffer `[` $stage `]` (`unchecked` $unchecked^)?
    attr-dict `:` qualified(type($view)) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCommitOp : Tile_Op<"async_commit"> {
  let summary = "Closes the current group of asynchronous copies";
  let description = [{
    `cp.async.commit_group`.

    ```mlir
    tile.async_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait"> {
  let summary = "Waits until at most `pending` copy groups are in flight";
  let description = [{
    `cp.async.wait_group pending`: this thread's older groups have landed in
    shared memory. A `tile.barrier` makes them visible to the other threads.

    ```mlir
    tile.async_wait 2
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "Synchronizes the threads of the block (bar.sync 0)";
  let description = [{
    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WarpgroupIdOp : Tile_Op<"warpgroup_id", [Pure]> {
  let summary = "Index of the executing warpgroup among the kernel's warps";
  let description = [{
    The warp index divided by 4: the warpgroup (four consecutive warps, one
    per SM sub-partition) of the executing thread, for schedules that give
    warpgroups different turns (e.g. `tile.named_barrier` ping-pong).

    ```mlir
    %wg = tile.warpgroup_id
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def Tile_NamedBarrierOp : Tile_Op<"named_barrier"> {
  let summary = "Waits on, or arrives at, a hardware named barrier";
  let description = [{
    `bar.sync %id, threads` (or `bar.arrive` with `arrive`: count the
    executing warps in without waiting). The barrier completes once
    `threads` threads (a multiple of 32) have arrived or waited. Ids 0 to 2
    belong to the lowering (block barriers, and those of `tile.warp_specialize`
    regions); programs use 3 to 15.

    Two warpgroups take turns issuing wgmma with a pair of them (ping-pong):
    each waits on its own barrier before issuing and arrives at the other's
    after, so one's softmax runs while the other's products run.

    ```mlir
    tile.named_barrier %mine, 256
    ... wgmma ...
    tile.named_barrier arrive %other, 256
    ```
  }];
  let arguments = (ins I32:$id, ConfinedAttr<I32Attr, [IntPositive]>:$threads,
                       UnitAttr:$arrive);
  let assemblyFormat = "(`arrive` $arrive^)? $id `,` $threads attr-dict";
  let hasVerifier = 1;
}

def Tile_FenceAsyncSharedOp : Tile_Op<"fence_async_shared"> {
  let summary = "Orders shared-memory writes before async-proxy reads";
  let description = [{
    `fence.proxy.async.shared::cta`: shared memory written through the
    generic proxy (`cp.async`, `st.shared`) becomes visible to the async
    proxy (`wgmma`, TMA stores) of this thread. Followed by a barrier, the
    whole block's writes are.

    ```mlir
    tile.fence_async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WarpgroupWaitOp : Tile_Op<"warpgroup_wait", [
    AllTypesMatch<["values", "results"]>]> {
  let summary = "Waits until at most `pending` wgmma groups are in flight";
  let description = [{
    `wgmma.wait_group.sync.aligned pending`. The accumulators of older
    groups are final and the shared memory they read may be overwritten.

    `values` are accumulators written by in-flight `tile.dot`s; they are
    returned unchanged. Reading them through the results (not the operands)
    keeps every use after the wait: until then the registers belong to the
    tensor cores.

    ```mlir
    %acc = tile.warpgroup_wait 1, %d : tensor<128x256xf32, #mma>
    tile.warpgroup_wait 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending,
                       Variadic<Tile_Tensor>:$values);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let assemblyFormat = [{
    $pending (`,` $values^ `:` type($values))? attr-dict
  }];
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "Writes a distributed tile into a shared-memory buffer";
  let description = [{
    Each thread writes its elements of `value` into stage `stage` of
    `buffer`, at their swizzled positions (vectorized along the contiguous
    dimension up to the swizzle chunk). The tile is the whole stage.

    ```mlir
    tile.local_store %out, %cbuf[%c0]
        : tensor<128x256xbf16, #mma>, !tile.smem<1x128x256xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_SmemType:$buffer, I32:$stage);
  let assemblyFormat = [{
    $value `,` $buffer `[` $stage `]` attr-dict `:` type($value) `,`
    qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [MemoryEffects<[MemRead]>]> {
  let summary = "Reads a tile from a shared-memory buffer";
  let description = [{
    Reads stage `stage` of `buffer` into a tile with a distributed layout.
    The result may be a sub-tile starting at the static `offsets` (e.g. one
    16-wide K slice of an operand tile). Into `#tile.dot_operand` layouts of
    16-bit elements this is `ldmatrix` (`.trans` when the buffer is
    contiguous along the non-K dimension). With the buffer's own
    `#tile.shared` encoding the result is the stage itself, read in place by
    `wgmma` (no data moves).

    ```mlir
    %a = tile.local_load %buf[%stage] offsets [0, 16]
        : !tile.smem<4x128x32xbf16, #shared> -> tensor<128x16xbf16, #dot_op>
    ```
  }];
  let arguments = (ins Tile_SmemType:$buffer, I32:$stage,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$offsets);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $buffer `[` $stage `]` (`offsets` $offsets^)? attr-dict `:`
    qualified(type($buffer)) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor maps, transaction barriers and warp specialization (sm_90a)
//===----------------------------------------------------------------------===//

def Tile_MakeTensorMapOp : Tile_Op<"make_tensor_map", [Pure]> {
  let summary = "Describes a view for the tensor-memory accelerator";
  let description = [{
    A TMA tensor map over `view`. The view must be made by `tile.make_view`
    from kernel parameters and constants only, so that the map can be built
    on the host: the kernel gets a hidden `__grid_constant__` parameter and
    its `<kernel>.json` a `tensor_map` entry (base pointer, sizes and strides
    as parameter names, box, swizzle) from which runtimes encode the map
    with `cuTensorMapEncodeTiled` at launch. Out-of-bounds box elements read
    as zero.

    Legality is checked here, not at run time: a contiguous dimension, box
    dimensions of 1 to 256 elements, an inner box of at most the swizzle
    span, and row strides known (`tile.divisibility`) to be multiples of 16
    bytes.

    ```mlir
    %tm = tile.make_tensor_map %a : !tile.view<?x?xbf16, strides = [?, 1]>
        -> !tile.tensor_map<128x64xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view);
  let results = (outs Tile_TensorMapType:$result);
  let assemblyFormat = [{
    $view attr-dict `:` qualified(type($view)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The kernel parameter index a view operand (base, size or stride) is,
    /// or std::nullopt for a constant; `value` must be one of those.
    static std::optional<unsigned> getParamIndex(Value value);
    /// Why `view` cannot back a tensor map whose box is contiguous along
    /// view dimension `contig` (the message the verifier gives), or an empty
    /// string when it can. For passes deciding whether a load can use TMA.
    static std::string getViewProblem(Value view, unsigned contig);
  }];
}

def Tile_TmaLoadOp : Tile_Op<"tma_load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Copies a tile from global memory with the copy engine";
  let description = [{
    Loads the tile of the tensor map's view at `offsets` (view coordinates of
    the first element) into stage `stage` of `buffer`, as one
    `cp.async.bulk.tensor` per box (a tile wider than the swizzle span is
    several boxes, one per segment). Completion is signalled as transaction
    bytes on barrier `index` of `barriers`; pair it with
    `tile.mbarrier_expect_tx` of the tile's size. Issued by one thread of the
    executing warps.

    In a kernel with a `cluster(...)` shape, `multicast(%mask)` writes the
    boxes to the same stage of every program of the cluster whose rank bit
    is set in `%mask` (`.multicast::cluster`), signalling the same barrier
    in each. `part(%p of n)` issues only part `%p` of `n` equal runs of the
    tile's boxes, so that the `n` programs sharing a tile each load one part
    of it (the map's box must split the tile into a multiple of `n` boxes).

    ```mlir
    tile.tma_load %tm[%m, %k], %buf[%s], %full[%s]
        : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<4x128x64xbf16, #shared>, !tile.mbarrier<4>
    tile.tma_load %tm[%k, %n], %buf[%s], %full[%s] multicast(%mask) part(%r of 2)
        : !tile.tensor_map<64x64xbf16, #shared>, !tile.smem<4x64x256xbf16, #shared>, !tile.mbarrier<4>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$offsets,
                       Tile_SmemType:$buffer, I32:$stage,
                       Tile_MBarrierType:$barriers, I32:$index,
                       Optional<I32>:$ctaMask, Optional<I32>:$part,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntPositive]>, "1">:$parts);
  let assemblyFormat = [{
    $map `[` $offsets `]` `,` $buffer `[` $stage `]` `,` $barriers `[` $index `]`
    (`multicast` `(` $ctaMask^ `)`)? (`part` `(` $part^ `of` $parts `)`)?
    attr-dict `:` qualified(type($map)) `,` qualified(type($buffer)) `,`
    qualified(type($barriers))
  }];
  let builders = [
    // A whole tile into this program's shared memory.
    OpBuilder<(ins "Value":$map, "ValueRange":$offsets, "Value":$buffer,
                   "Value":$stage, "Value":$barriers, "Value":$index), [{
      build($_builder, $_state, map, offsets, buffer, stage, barriers, index,
            /*ctaMask=*/Value(), /*part=*/Value(), /*parts=*/1u);
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_TmaStoreOp : Tile_Op<"tma_store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Copies a tile to global memory with the copy engine";
  let description = [{
    Stores stage `stage` of `buffer` to the tensor map's view at `offsets`,
    as one `cp.async.bulk.tensor` per box, committed as one bulk async-group
    of the leader thread. Elements outside the view are not written. The
    buffer must have been written and made visible to the async proxy
    (`tile.fence_async_shared`, then a barrier); it may be rewritten after
    `tile.tma_store_wait`.

    ```mlir
    tile.tma_store %tm[%m, %n], %cbuf[%c0]
        : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<1x128x256xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$offsets,
                       Tile_SmemType:$buffer, I32:$stage);
  let assemblyFormat = [{
    $map `[` $offsets `]` `,` $buffer `[` $stage `]`
    attr-dict `:` qualified(type($map)) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreWaitOp : Tile_Op<"tma_store_wait"> {
  let summary = "Waits until tensor-map stores have read their sources";
  let description = [{
    `cp.async.bulk.wait_group.read pending` on the leader thread: at most
    `pending` of its `tile.tma_store` groups may still be reading shared
    memory. Follow it with a barrier before other threads rewrite the
    buffers.

    ```mlir
    tile.tma_store_wait 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Tile_MBarrierAllocOp : Tile_Op<"mbarrier_alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>, MemWrite]>]> {
  let summary = "Allocates and initializes transaction barriers";
  let description = [{
    Places the barriers in the kernel's shared memory and initializes each
    to expect `count` arrivals per phase; all threads of the block are
    synchronized afterwards. Must be at the top level of the kernel body,
    where every thread of the block executes it.

    ```mlir
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<4>
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$count);
  let results = (outs Tile_MBarrierType:$result);
  let assemblyFormat = "`count` $count attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_MBarrierExpectTxOp : Tile_Op<"mbarrier_expect_tx"> {
  let summary = "Arrives on a barrier and expects transaction bytes";
  let description = [{
    `mbarrier.arrive.expect_tx` by one thread of the executing warps: one
    arrival, and the current phase additionally waits for `bytes` bytes of
    asynchronous copies (`tile.tma_load`) to land.

    ```mlir
    tile.mbarrier_expect_tx %full[%s], 49152 : !tile.mbarrier<4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, I32:$index,
                       ConfinedAttr<I32Attr, [IntPositive]>:$bytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_MBarrierArriveOp : Tile_Op<"mbarrier_arrive"> {
  let summary = "Arrives on a barrier once per warp";
  let description = [{
    `mbarrier.arrive` by lane 0 of each executing warp (after the warp's
    preceding work), e.g. consumer warps releasing a ring stage. Initialize
    the barrier with the number of arriving warps.

    With `cta(%r)` (kernels with a `cluster(...)` shape) the arrival goes to
    the barrier at the same place in program `%r` of the cluster (`mapa`,
    then `mbarrier.arrive.shared::cluster`): consumers
    release a stage that other programs multicast into.

    ```mlir
    tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<4>
    tile.mbarrier_arrive %empty[%s] cta(%peer) : !tile.mbarrier<4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, I32:$index,
                       Optional<I32>:$cta);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`cta` `(` $cta^ `)`)? attr-dict `:` qualified(type($barriers))
  }];
  let builders = [
    // This program's barrier.
    OpBuilder<(ins "Value":$barriers, "Value":$index), [{
      build($_builder, $_state, barriers, index, /*cta=*/Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_MBarrierWaitOp : Tile_Op<"mbarrier_wait"> {
  let summary = "Waits for a barrier phase to complete";
  let description = [{
    Blocks until the phase of barrier `index` with parity `parity` (0 or 1)
    has completed (`mbarrier.try_wait.parity` in a loop). The writes it
    tracked are visible afterwards. A fresh barrier counts as having
    completed the phase of parity 1.

    ```mlir
    tile.mbarrier_wait %full[%s], %phase : !tile.mbarrier<4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, I32:$index, I32:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $parity attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    RecursiveMemoryEffects, NoTerminator, SingleBlock]> {
  let summary = "Runs a default region and a producer partition on separate warps";
  let description = [{
    The kernel's `warps(n)` warps execute `default`; `partitionWarps` more
    warps (a multiple of 4: whole warpgroups) are added to the block and
    execute `partition`. Both regions see the values defined before the op.
    On entry each side resizes its register file with `setmaxnreg` to
    `defaultRegs` / `partitionRegs` registers per thread (24 to 256, multiples
    of 8, within the 64K registers of the SM).

    The partition runs scalar code on its first warp: loops, tensor-map
    copies and barrier operations, no distributed tiles. Block barriers in
    `default` synchronize only its warps (a named barrier).

    ```mlir
    tile.warp_specialize regs(232) {
      ... consumers: wait full stages, wgmma, release stages, epilogue
    } partition warps(4) regs(40) {
      ... producer: wait empty stages, tile.tma_load
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$partitionWarps,
                       I32Attr:$defaultRegs, I32Attr:$partitionRegs);
  let regions = (region SizedRegion<1>:$defaultRegion,
                        SizedRegion<1>:$partitionRegion);
  let assemblyFormat = [{
    `regs` `(` $defaultRegs `)` $defaultRegion
    `partition` `warps` `(` $partitionWarps `)` `regs` `(` $partitionRegs `)`
    $partitionRegion attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Named ops
//===----------------------------------------------------------------------===//

def Tile_GemmOp : Tile_Op<"gemm", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "C = act(alpha * A * B + beta * C + bias) over whole views";
  let description = [{
    A named GEMM over global views: A is M x K (contiguous along K), B is
    K x N, either contiguous along N (row-major) or along K (column-major),
    C is M x N (contiguous along N). Inputs are bf16 or f16 and accumulate in
    f32; C is bf16, f16 or f32. `alpha` and `beta` are optional f32 scalars
    (1 and 0 when absent; C is not read without `beta`), `bias` an optional
    length-N vector added to every row, and `activation` one of `relu`,
    `gelu` (erf form) and `silu`, applied last.

    The op must be the only computation of its `tile.kernel`;
    `tile-expand-named-ops{chip=...}` replaces the kernel body with a block
    program, sets the launch grid and the number of warps. A `config`
    overrides the per-chip choice (integer keys): `block_m`, `block_n`,
    `block_k`, `stages`, `warps`, `group_m` (block rows per rasterization
    group), and on sm_90a `warp_specialize` (0/1: TMA producer warpgroup
    and wgmma consumers in a persistent kernel), `consumer_regs` /
    `producer_regs` (setmaxnreg budgets), `tma_store` (0/1: epilogue through
    shared memory and a TMA store), `cluster_m` / `cluster_n` (1 or 2,
    warp-specialized kernel: thread-block clusters of `cluster_m` x
    `cluster_n` programs computing neighbouring tiles; the programs sharing
    an A row block or B column block each load part of it and multicast it
    to the others).

    ```mlir
    tile.gemm %a, %b, %c bias(%bias) activation(gelu)
        : !tile.view<?x?xbf16, strides = [?, 1]>,
          !tile.view<?x?xbf16, strides = [1, ?]>,
          !tile.view<?x?xbf16, strides = [?, 1]>,
          !tile.view<?xbf16, strides = [1]>
    ```
  }];
  let arguments = (ins Tile_ViewType:$a, Tile_ViewType:$b, Tile_ViewType:$c,
                       Optional<F32>:$alpha, Optional<F32>:$beta,
                       Optional<Tile_ViewType>:$bias,
                       DefaultValuedAttr<Tile_Activation,
                           "::mlir::tilec::tile::Activation::None">:$activation,
                       OptionalAttr<DictionaryAttr>:$config);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`alpha` `(` $alpha^ `)`)? (`beta` `(` $beta^ `)`)?
    (`bias` `(` $bias^ `)`)? (`activation` `(` $activation^ `)`)?
    (`config` $config^)? attr-dict
    `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($c))
    (`,` qualified(type($bias))^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when B is stored column-major (contiguous along K).
    bool isRhsColumnMajor();
  }];
}

def Tile_AttentionOp : Tile_Op<"attention", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "O = softmax(scale * Q * K^T [+ causal mask]) * V over views";
  let description = [{
    A named attention forward over 4-D global views `[batch, heads, seq,
    head_dim]` (any strides with a contiguous head dimension): Q and O have
    `Hq` heads, K and V `Hkv` heads dividing `Hq` (grouped-query and
    multi-query attention); sequence lengths of Q and K/V may differ. With
    `causal`, query `i` attends to keys `j <= i + (Sk - Sq)` (the bottom-right
    aligned mask of FlashAttention). The optional `lse` view `[batch, heads,
    seq]` (f32) receives the natural-log log-sum-exp of each row. `scale`
    defaults to `1/sqrt(head_dim)`. Head dimensions are static: 64, 128 or
    256. Expanded by `tile-expand-named-ops{chip=...}`; a `config` overrides
    the per-chip choice (integer keys): `block_m` (queries per program),
    `block_n` (keys per step), `warps`, `stages` (depth of the K/V ring, at
    least 2), and on sm_90a `warp_specialize` (0 or 1: a producer warp
    streams K and V with TMA while the kernel's warpgroups compute; the
    default there), `consumer_regs` and `producer_regs` (the two sides'
    `setmaxnreg`, default 232 and 40),
    `pingpong` (0 or 1: the two consumer warpgroups take turns issuing
    wgmma; the default with 8 warps), `tma_store` (0 or 1: O leaves
    through shared memory and a TMA store; the default there) and
    `persistent` (0 or 1: one program per SM walks the query-block tiles,
    Q double-buffered; the default without the causal mask; with it, each
    program takes pairs of one head's longest and shortest query blocks).
    Without the
    producer warp, `q_in_smem` (0 or 1) keeps Q in shared memory and reads
    its fragments for every key block instead of holding them in registers
    (the mma.sync default: 32 query rows per warp), and `split_loops` (0 or
    1) runs the key blocks every query sees whole in a loop without the
    mask and the rest in a second one, instead of one loop that masks the
    edge blocks in a branch (the default up to head dim 128).

    ```mlir
    tile.attention %q, %k, %v, %o lse(%lse) causal
        : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, ...
    ```
  }];
  let arguments = (ins Tile_ViewType:$q, Tile_ViewType:$k, Tile_ViewType:$v,
                       Tile_ViewType:$o, Optional<Tile_ViewType>:$lse,
                       OptionalAttr<F32Attr>:$scale, UnitAttr:$causal,
                       OptionalAttr<DictionaryAttr>:$config);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $o (`lse` `(` $lse^ `)`)? (`scale` `(` $scale^ `)`)?
    (`causal` $causal^)? (`config` $config^)? attr-dict
    `:` qualified(type($q)) `,` qualified(type($k)) `,` qualified(type($v))
    `,` qualified(type($o)) (`,` qualified(type($lse))^)?
  }];
  let hasVerifier = 1;
}

#endif // TILEC_DIALECT_TILE_IR_TILEOPS_TD
