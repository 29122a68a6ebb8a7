//===- TileHardwareOps.td - hardware-level tile ops --------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The hardware level (L2 of docs/design-overview.md): shared-memory rings,
// cp.async groups, barriers, wgmma groups, TMA tensor maps, transaction
// mbarriers, warp specialization and cluster barriers. Only the scheduling
// passes create these ops (from block programs); convert-tile-to-nvvm lowers
// each to NVVM. Every op here has the HardwareLevel trait, which is how
// passes and checks tell the levels apart.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEHARDWAREOPS_TD
#define TILEC_DIALECT_TILE_IR_TILEHARDWAREOPS_TD

def Tile_ClusterBarrierOp : Tile_HardwareOp<"cluster_barrier"> {
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
// Shared memory and asynchronous copies (created by tile-pipeline)
//===----------------------------------------------------------------------===//

def Tile_LocalAllocOp : Tile_HardwareOp<"local_alloc", [
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

def Tile_AsyncCopyOp : Tile_HardwareOp<"async_copy", [
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

def Tile_AsyncCommitOp : Tile_HardwareOp<"async_commit"> {
  let summary = "Closes the current group of asynchronous copies";
  let description = [{
    `cp.async.commit_group`.

    ```mlir
    tile.async_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_HardwareOp<"async_wait"> {
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

def Tile_BarrierOp : Tile_HardwareOp<"barrier"> {
  let summary = "Synchronizes the threads of the block (bar.sync 0)";
  let description = [{
    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WarpgroupIdOp : Tile_HardwareOp<"warpgroup_id", [Pure]> {
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

def Tile_NamedBarrierOp : Tile_HardwareOp<"named_barrier"> {
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

def Tile_FenceAsyncSharedOp : Tile_HardwareOp<"fence_async_shared"> {
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

def Tile_WarpgroupWaitOp : Tile_HardwareOp<"warpgroup_wait", [
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

def Tile_LocalStoreOp : Tile_HardwareOp<"local_store", [MemoryEffects<[MemWrite]>]> {
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

def Tile_LocalLoadOp : Tile_HardwareOp<"local_load", [MemoryEffects<[MemRead]>]> {
  let summary = "Reads a tile from a shared-memory buffer";
  let description = [{
    Reads stage `stage` of `buffer` into a tile with a distributed layout.
    The result may be a sub-tile starting at the static `offsets` (e.g. one
    16-wide K slice of an operand tile). Into `#tile.dot_operand` layouts of
    16-bit elements this is `ldmatrix` (`.trans` when the buffer is
    contiguous along the non-K dimension). With the buffer's own
    `#tile.shared` encoding the result is the stage itself, read in place by
    `wgmma` (no data moves). So is the stage's transpose: the transposed
    shape in the buffer's layout with its order swapped holds the same
    bytes (one tile copied once, read K-major by one dot and N-major by
    another).

    ```mlir
    %a = tile.local_load %buf[%stage] offsets [0, 16]
        : !tile.smem<4x128x32xbf16, #shared> -> tensor<128x16xbf16, #dot_op>
    %q = tile.local_load %ring[%s]
        : !tile.smem<2x64x128xbf16, #rows> -> tensor<64x128xbf16, #rows>
    %qt = tile.local_load %ring[%s]
        : !tile.smem<2x64x128xbf16, #rows> -> tensor<128x64xbf16, #cols>
    ```
  }];
  let extraClassDeclaration = [{
    /// Whether a #tile.shared `tile` is stage `buffer` read in place: the
    /// stage's shape and layout, or its transpose (shape and order swapped).
    static bool isInPlaceRead(RankedTensorType tile, SmemType buffer);
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

def Tile_MakeTensorMapOp : Tile_HardwareOp<"make_tensor_map", [Pure]> {
  let summary = "Describes a view for the tensor-memory accelerator";
  let description = [{
    A TMA tensor map over `view`. The view must be made by `tile.make_view`
    from a pointer parameter, with sizes and strides that are integer
    arithmetic on kernel parameters and constants (`arith.addi`, `subi`,
    `muli`, divisions, remainders, shifts by constants, casts; see
    HostExpr.h), so that the map can be built on the host: the kernel gets a
    hidden `__grid_constant__` parameter and its `<kernel>.json` a
    `tensor_map` entry (base pointer, sizes and strides as constants,
    parameter names or expressions in the grid rule's syntax, box, swizzle)
    from which runtimes encode the map with `cuTensorMapEncodeTiled` at
    launch. Out-of-bounds box elements read as zero.

    Legality is checked here, not at run time: a contiguous dimension, box
    dimensions of 1 to 256 elements, an inner box of at most the swizzle
    span, and row strides known to be multiples of 16 bytes (from constants
    and the `tile.divisibility` of the parameters they are computed from).

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
    /// The index of the kernel parameter `value` is, or std::nullopt when it
    /// is not a parameter.
    static std::optional<unsigned> getParamIndex(Value value);
    /// Why `view` cannot back a tensor map whose box is contiguous along
    /// view dimension `contig` (the message the verifier gives), or an empty
    /// string when it can. For passes deciding whether a load can use TMA.
    static std::string getViewProblem(Value view, unsigned contig);
  }];
}

def Tile_TmaLoadOp : Tile_HardwareOp<"tma_load", [AttrSizedOperandSegments,
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

def Tile_TmaStoreOp : Tile_HardwareOp<"tma_store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Copies a tile to global memory with the copy engine";
  let description = [{
    Stores stage `stage` of `buffer` to the tensor map's view at `offsets`,
    as one `cp.async.bulk.tensor` per box, committed as one bulk async-group
    of the leader thread. Elements outside the view are not written. The
    buffer must have been written and made visible to the async proxy
    (`tile.fence_async_shared`, then a barrier); it may be rewritten after
    `tile.tma_store_wait`.

    With `add`, the tile is added to the elements in global memory instead
    (`cp.reduce.async.bulk.tensor ... .add`: each addition atomic at the
    L2, in an unspecified order between programs): the lowering of a
    `tile.atomic_add` staged by tile-tma-store.

    ```mlir
    tile.tma_store %tm[%m, %n], %cbuf[%c0]
        : !tile.tensor_map<128x64xbf16, #shared>, !tile.smem<1x128x256xbf16, #shared>
    tile.tma_store add %tdq[%m, %c0], %qbuf[%c0]
        : !tile.tensor_map<64x32xf32, #shared32>, !tile.smem<1x64x128xf32, #shared32>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$offsets,
                       Tile_SmemType:$buffer, I32:$stage, UnitAttr:$add);
  let assemblyFormat = [{
    (`add` $add^)? $map `[` $offsets `]` `,` $buffer `[` $stage `]`
    attr-dict `:` qualified(type($map)) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreWaitOp : Tile_HardwareOp<"tma_store_wait"> {
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

def Tile_MBarrierAllocOp : Tile_HardwareOp<"mbarrier_alloc", [
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

def Tile_MBarrierExpectTxOp : Tile_HardwareOp<"mbarrier_expect_tx"> {
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

def Tile_MBarrierArriveOp : Tile_HardwareOp<"mbarrier_arrive"> {
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

def Tile_MBarrierWaitOp : Tile_HardwareOp<"mbarrier_wait"> {
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

def Tile_WarpSpecializeOp : Tile_HardwareOp<"warp_specialize", [
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
  // Printed as
  //   `regs` `(` $defaultRegs `)` $defaultRegion
  //   `partition` `warps` `(` $partitionWarps `)` `regs` `(` $partitionRegs `)`
  //   $partitionRegion attr-dict
  // but parsed by hand: the parser ODS generates from that format keeps the
  // regions outside the OperationState until it succeeds, so on a parse error
  // inside them it frees ops that a forward reference outside may still use
  // (heap corruption; found by scripts/dev/fuzz.py). TileOps.cpp says more.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

#endif // TILEC_DIALECT_TILE_IR_TILEHARDWAREOPS_TD
