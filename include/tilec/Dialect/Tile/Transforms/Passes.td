//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the transformation passes of the `tile` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAttachTarget : Pass<"tile-attach-target", "::mlir::ModuleOp"> {
  let summary = "Moves each tile.kernel into its own gpu.module with an NVVM target";
  let description = [{
    Wraps every top-level `tile.kernel` into a `gpu.module` named after the
    kernel and carrying `#nvvm.target<chip = ..., features = "+ptxNN">`, with
    the PTX ISA version taken from the chip's `TargetInfo`. Later passes read
    the chip from that attribute. Kernels already inside a `gpu.module` are
    left alone.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target chip (sm_80, sm_86, sm_89, sm_90, sm_90a)">,
    Option<"optLevel", "O", "unsigned", /*default=*/"3",
           "LLVM optimization level recorded in the target">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TileFastMath : Pass<"tile-fast-math", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Sets fast-math flags where asked; names the IEEE math a loop pays for";
  let description = [{
    Owns the kernel's floating-point semantics. In a `fast_math` kernel
    (or every kernel, with `all`: `tilec --fast-math`), every op with
    `fastmath` flags gets `afn`, `arcp` and `contract`, so that divides
    become `div.full.f32`, square roots `sqrt.approx.f32`, and exp, log,
    tanh, sin and cos their SFU approximations (`tile-legalize-math`) or
    libdevice's `__nv_fast_*` functions.

    Otherwise every op keeps MLIR's IEEE semantics, and each IEEE divide,
    square root or transcendental function left inside a loop gets a
    missed remark (`IEEEMath`) that names the op, what it costs and the fix
    (`fastmath<afn>` on the op, `fast_math` on the kernel, or
    `--fast-math`): such an op runs once per element and iteration, and an
    IEEE `div.rn.f32` is about ten instructions with a slow path.
  }];
  let options = [
    Option<"all", "all", "bool", /*default=*/"false",
           "Fast math in every kernel, as if each were marked fast_math">
  ];
  let statistics = [
    Statistic<"numFastOps", "num-fast-ops", "Ops given afn, arcp and contract">,
    Statistic<"numIeeeInLoops", "num-ieee-in-loops",
              "IEEE divides, square roots and math functions in loops">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Attaches a distributed layout encoding to every tile";
  let description = [{
    Gives every ranked tensor in a `tile.kernel` a layout encoding. Global
    loads and stores anchor coalesced `#tile.blocked` layouts (16-byte
    vectors along the view's contiguous dimension, a warp covering whole
    128-byte lines; loads of one shape and contiguous dimension that meet in
    elementwise ops share the layout of the narrowest element type, so that
    none is converted where they meet), `tile.dot` anchors `#tile.mma` /
    `#tile.dot_operand`
    where the chip has tensor cores for the types, reductions produce
    `#tile.slice` layouts. Layouts then propagate through elementwise ops,
    broadcasts and loops; where a use needs another layout than its value
    has, a `tile.convert_layout` is inserted.

    Tile shapes must be powers of two; other shapes are diagnosed.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the enclosing gpu.module">
  ];
  let statistics = [
    Statistic<"numConversions", "num-conversions",
              "Number of tile.convert_layout ops inserted">
  ];
}

def TileSplitStages : Pass<"tile-split-stages", "::mlir::ModuleOp"> {
  let summary = "Splits a kernel whose named op runs as several kernels into its stage kernels";
  let description = [{
    Some named ops run as several kernels launched in order with the same
    arguments (the StagedOpInterface): tile.attention_backward (`pre`,
    `dq`, `dkdv`, ...; see its modes) and a split-K tile.gemm (`partial`,
    `reduce`). A kernel `@k` whose such op has no stage is replaced, in
    place, by one copy per stage, `@k_<stage>` in launch order, each with
    the same parameters and the op with its stage set, for
    tile-expand-named-ops to expand. An op that is one kernel (a tile.gemm
    without split-K) is left alone. Runs before the kernels are wrapped
    into gpu.modules (`tilec`'s pipeline does so).

    A stage name already taken by another symbol, and a `tile.launch` of
    `@k` from host code (one launch cannot run several kernels), are errors.
  }];
}

def TileExpandNamedOps : Pass<"tile-expand-named-ops", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Expands tile.gemm, tile.attention and tile.attention_backward into block programs";
  let description = [{
    Replaces a kernel whose body is a named op (plus the tile.make_view ops
    feeding it) with a block program: tiles, loops, dots and an epilogue.
    A tile.attention_backward, and a split-K tile.gemm, must name its
    `stage` (the kernel's part of the op; tile-split-stages sets it).
    The configuration (tile sizes, pipeline stages, warps, rasterization)
    comes from a per-chip rule and can be overridden with the op's `config`
    dictionary. The launch grid and the number of warps are set on the
    kernel, and the alignment the fast path assumes is recorded on the
    parameters (`tile.align`, `tile.divisibility`) for runtimes to check.

    A configuration the chip cannot run (shared memory over the per-block
    budget, warps that do not divide the tile, ...) is a diagnostic naming
    the limit.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the enclosing gpu.module">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

def TilePipeline : Pass<"tile-pipeline", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Multistage cp.async pipelining of loads that feed tile.dot";
  let description = [{
    In `scf.for` loops, global `tile.load`s whose tiles only feed `tile.dot`
    operands (through `tile.convert_layout` to `#tile.dot_operand`) become a
    ring of `num-stages` shared-memory buffers filled by `tile.async_copy`
    (`cp.async.cg`, 16 bytes, zero-fill at the edges) `num-stages - 1`
    iterations ahead, and read with `tile.local_load` (`ldmatrix`):

        prologue:  copy stages 0 .. S-2, one commit group each
        iteration: wait until the current stage has landed; barrier;
                   copy iteration i+S-1 into the stage freed last iteration;
                   commit; ldmatrix the current stage; mma.sync

    The buffers are swizzled so that neither the copies nor `ldmatrix`
    conflict on banks. A loop's `tile.num_stages` attribute overrides the
    option. Loads whose 16-byte alignment cannot be proven (pointer
    `tile.align`, stride `tile.divisibility`, offsets) are left alone.

    On mma.sync chips, a loop-invariant dot operand (a `tile.load` before
    the loop, converted to a `#tile.dot_operand` layout only for dots inside
    it) stays in registers where they hold it: when the loop's carried
    tiles, the results of its dots that start from a constant and are not
    yielded, and the invariant operands would need more 32-bit registers a
    thread than its budget (255, or the register file over the kernel's
    threads) less 32 in reserve, each such
    operand is copied once into its own shared-memory buffer and read with
    `ldmatrix` at each use (FlashAttention-2's Q at head dim 128). A remark
    reports the estimate.

    On wgmma chips, a dot operand converted to a `#tile.shared` layout that
    no ring brings (a load not known to be 16-byte aligned, a tile the
    program computes) is staged: the threads store it to a swizzled buffer
    (`tile.local_store`), fence it for the async proxy and the dot reads the
    buffer in place; the operands of one dot share one wait and one barrier
    pair (remark `Staged`). In a loop that computes them each buffer has a
    stage per iteration parity (`tile.staging_buffer`) and the wait before
    the stores leaves the previous iteration's wgmma groups in flight, so
    tile-async-wgmma can overlap them with the stores; where those second
    stages would not fit in shared memory, every staging buffer keeps one
    stage (remark `StagedOnce`).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the enclosing gpu.module">,
    Option<"numStages", "num-stages", "unsigned", /*default=*/"3",
           "Pipeline depth (buffers per operand); without a loop's "
           "tile.num_stages or the kernel's schedule<stages>, fewer when "
           "the ring would not fit in shared memory">
  ];
  let statistics = [
    Statistic<"numPipelinedLoads", "num-pipelined-loads",
              "Number of loads turned into asynchronous copies">,
    Statistic<"numStagedOperands", "num-staged-operands",
              "Number of loop-invariant dot operands kept in shared memory">
  ];
}

def TileMaskBounds : Pass<"tile-mask-bounds", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Applies a loop's index masks only in the iterations where they mask";
  let description = [{
    A user's attention loop masks every key block, as a first version does
    (`keep = kj < S & kj <= qi`, `s = select(keep, s, -inf)`), although
    only the last blocks (or, for a sliding window, also the first) are
    masked. For each `arith.select` directly in an `scf.for` body whose
    mask is built from comparisons of index tiles (`tile.range`, splats of
    the induction variable and of values defined before the loop, `addi`,
    `subi`, `expand_dims`, `broadcast`; `<`, `<=`, `>`, `>=`, `and`,
    `or`), the pass computes before the loop the iterations in which the
    mask holds for every element, as bounds on the induction variable, and
    branches:

        s = scf.if (n < B) { s } else { select(keep, s, -inf) }

    (nested with `n >= A` when the mask also cuts the first iterations).
    tile-split-loops then runs each range of iterations in its own loop,
    the unmasked ones without the select and the comparisons, as the named
    attention's expansion does for its own masks.

    The bounds are computed in i64, so they are exact. The program computes
    its index tiles in i32; the pass requires, before the loop, that none
    of the mask's tiles wraps for an induction variable in [lb, ub), and
    makes no iteration fast where one might. A kernel whose schedule sets
    `split_loops = false` is left alone, and so are the key loops of the
    named attention (`tile.masks_bounded`), whose expansion masks only the
    blocks that need it. Passed remarks name each bounded
    select; a missed remark names the op that a mask depending on the
    induction variable is computed by where the analysis cannot follow it
    (a loaded tile, say: a document mask).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TileGroupTiles : Pass<"tile-group-tiles", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Visits a GEMM-like program's output tiles in groups of rows, for L2 reuse";
  let description = [{
    A block program that takes its output tile from the program id in row
    order, as a first version does:

      pm = pid / npn, pn = pid % npn        (one grid dimension)
      pn = program_id x, pm = program_id y  (two)

    runs each wave of programs (one per SM) along a whole tile row: every
    wave reads all of the B operand, and when B is larger than the L2 (the
    weights of a wide layer) every wave streams it from memory again. The
    pass renumbers the tiles in grouped order, as Triton's matmul tutorial
    (GROUP_SIZE_M) and tile.gemm do: the programs walk `group_rows` tile rows
    (default 8) column by column, so that a wave reads a few rows of A and a
    few columns of B, and both stay in L2.

    It applies where the order is GEMM-like: a `tile.dot` in a loop whose A
    tile is loaded at an offset computed from one coordinate only and whose
    B tile from the other (or the reverse). The renumbering is a
    permutation of the tiles (tiles of incomplete groups and of an
    incomplete last row keep their place), so the kernel computes the same
    tiles. Kernels in clusters (whose ranks share tiles by multicast) and
    programs that already group their tiles are left alone.
    `schedule<group_rows = 1>` keeps the program's order; a kernel that
    sets `group_rows` but is not GEMM-like gets a missed remark
    (`--remarks-filter=tile-group-tiles`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numGrouped", "num-grouped", "Number of kernels whose tiles were grouped">
  ];
}

def TilePersistent : Pass<"tile-persistent", "::mlir::tilec::tile::KernelOp"> {
  let summary = "One program per SM walks the tiles of the grid";
  let description = [{
    For a kernel whose schedule sets `persistent = true`, or by default one
    whose loops of `tile.dot`s run the same number of iterations in every
    program (no loop bound depends on `tile.program_id`: a GEMM, not a
    causal attention, whose tiles differ in work): the body becomes a
    loop over the grid's tiles, `for t = program_id x to G step
    num_programs x`, with `tile.program_id` (and `tile.num_programs`) of the
    body replaced by the tile's coordinates in the grid (x fastest) and the
    grid's sizes, computed from the grid rule. The kernel is marked
    `persistent` (runtimes launch at most one program per SM) and its grid
    rule becomes the number of tiles. Loop-invariant code is hoisted.
    Rings of pipelined loops inside then carry their position across tiles,
    so a producer warp loads the next tile while the consumers finish this
    one.

    Applies on chips with TMA and setmaxnreg (sm_90a), where a producer
    warp runs ahead into the next tile. Other chips, kernels without a grid
    rule, in clusters or persistent already are left alone, with a missed
    remark (`--remarks-filter=tile-persistent`).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the enclosing gpu.module">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numPersistent", "num-persistent", "Number of kernels made persistent">
  ];
}

def TileTmaStore : Pass<"tile-tma-store", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Epilogue stores and atomic adds of whole tiles through shared memory and TMA";
  let description = [{
    On chips with TMA, a `tile.store` of a 2-D 16-bit tile outside the
    program's loops (or in the persistent tile loop) becomes: wait until
    the previous TMA store has read the staging buffer, write the tile (in
    the layout it has, usually the accumulator fragment, with no layout
    conversion) into a 128-byte swizzled staging buffer, fence the async
    proxy, and `tile.tma_store` it; the kernel waits for its stores before
    it exits. The store completes while the program goes on.

    The view must be one TMA can serve (sizes and strides computed from
    kernel parameters and constants, 16-byte aligned base and strides), the
    store unmasked, the
    tile made of 64-column boxes, and the row length known to be a multiple
    of 8 elements. Other stores stay, with a missed remark
    (`--remarks-filter=tile-tma-store`). `schedule<tma_store = false>`
    turns the pass off for a kernel.

    A `tile.atomic_add` of a whole 2-D f32 tile, anywhere in the program
    (also in a loop), is staged the same way and leaves as a reducing TMA
    store (`tile.tma_store add`: one bulk `.add` reduction per 32-column
    box, made at the L2 on whole lines) instead of one atomic per element;
    the same conditions apply, with a row length known to be a multiple of
    4 elements.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the enclosing gpu.module">
  ];
  let statistics = [
    Statistic<"numTmaStores", "num-tma-stores", "Number of stores through TMA">
  ];
}

def TileTmaPipeline : Pass<"tile-tma-pipeline", "::mlir::tilec::tile::KernelOp"> {
  let summary = "TMA rings with full/empty mbarriers for loads that feed wgmma";
  let description = [{
    The sm_90a data path for block programs. In `scf.for` loops, the global
    `tile.load`s whose tiles a `tile.dot` reads in place from shared memory
    (wgmma operands, `#tile.shared` with the 128-byte swizzle) become TMA
    copies (`tile.tma_load` through a `tile.make_tensor_map` of the view)
    into a ring of stages. The loads one dot reads share a `full` and an
    `empty` mbarrier per stage:

        prologue:  produce(k_0 .. k_{S-2})
        iteration: wait full[s]; local_load ring[s]; dot; wgmma.wait 0;
                   arrive empty[s]; produce(k + (S-1) step)
        produce(k): if k < ub: wait empty[w] (parity ph ^ 1);
                    expect_tx full[w], bytes of the boxes; tma_load

    The ring position (stage and parity) is carried by the loop and by the
    `scf.for` loops around it; the position an enclosing loop passes on is
    computed from the loop's trip count (stage (s + n) mod S, the parity
    flipped per wrap), not read from the loop's results. A tile loaded per
    iteration of a persistent tile loop for dots in inner loops (a query
    tile) also stages a later TMA-store epilogue's tile (O) in its ring
    stage instead of tile-tma-store's buffer; the stage is released at the
    next iteration's start, after `tma_store_wait 0` and a barrier. The producer work (`scf.if` ops marked
    `tile.producer`) is issued by the consumer warps themselves until
    `tile-warp-specialize` moves it to a producer warp; `tile-async-wgmma`
    then keeps wgmma groups in flight.

    A load qualifies when TMA can serve its view: its sizes and strides are
    integer arithmetic on kernel parameters and constants (the launch
    metadata carries the expression, e.g. `S * BH`), its base is a 16-byte
    aligned parameter (`tile.align`) and its other strides are known to be
    multiples of 16 bytes (from constants and `tile.divisibility`), the tile is unmasked and zero-padded, its offsets
    are recomputable from the induction variable. The ring gets the loop's
    `tile.num_stages`, the `num-stages` option, or (0) as many stages as
    the shared memory left allows, up to 8. A loop that cannot use TMA
    keeps its loads (tile-pipeline's cp.async ring may take them) and the
    pass leaves a missed remark naming the rule
    (`--remarks-filter=tile-tma-pipeline`).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the enclosing gpu.module">,
    Option<"numStages", "num-stages", "unsigned", /*default=*/"0",
           "Ring depth (0: as deep as shared memory allows, up to 8)">
  ];
  let statistics = [
    Statistic<"numTmaLoads", "num-tma-loads", "Number of loads turned into TMA copies">,
    Statistic<"numRings", "num-rings", "Number of loops given a TMA ring">
  ];
}

def TilePrefetchLoads : Pass<"tile-prefetch-loads", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Issues the loads no ring takes one loop iteration ahead, into registers";
  let description = [{
    The rings of tile-tma-pipeline and tile-pipeline take the loads that
    feed dots. Every other `tile.load` or `tile.load_scalar` directly in an
    `scf.for` body (a document-id row beside attention's keys, a scale
    vector, a dot operand whose alignment no ring could prove) is issued
    where the program reads it, and each iteration waits the whole memory
    latency for it. The pass issues such a load one iteration ahead, as
    Triton's software pipeliner does:

        x0 = load(view, f(lb))
        for iv = lb to ub step s iter_args(x = x0) {
          xn = load(view, f(iv + s))   // first in the body
          ... uses x ...
          yield xn
        }

    The offsets are recomputed for the next iteration from the pure ops
    that compute them from the induction variable and values defined before
    the loop. The load past the last iteration stays within the view's
    bounds or reads padding, as every load does, so it never faults.

    Each prefetched tile must fit in a thread's register budget (255, or
    the register file over the kernel's threads) beside what the loop keeps
    live (estimateLoopRegisters) and 32 in reserve.

    An early read must not miss an earlier iteration's write. A loop that
    writes global memory (`tile.store`, `tile.atomic_add`, a TMA store)
    through views other than the ones it reads is versioned on a run-time
    alias check, as vectorizers version loops: `tile.views_overlap` of every
    view read ahead against every view written picks the prefetched loop
    where their memory is apart (an out-of-place softmax) and the loop as
    written where it overlaps. A loop that writes through the pointer it
    reads (in place), through a view made inside it, by another kind of
    write, or that holds a dot or a shared-memory ring, is left as written. tile-persistent's tile loop is left alone (its loads are
    each tile's epilogue operands, read beside the tile's stores). Passed
    and missed remarks (`--remarks-filter=tile-prefetch-loads`) name each
    load and the reason.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the enclosing gpu.module">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numPrefetched", "num-prefetched",
              "Number of loads issued one iteration ahead">
  ];
}

def TileWgmmaOverlap : Pass<"tile-wgmma-overlap", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Runs a loop's register work beside its next wgmma (FA3's intra-warpgroup overlap)";
  let description = [{
    A loop whose body chains two wgmma `tile.dot`s through register work
    (attention: `s = q kᵀ`, the online softmax of `s`, `acc = p v + acc *
    alpha`), where the second accumulates into a loop-carried value and
    reads its B operand from a TMA ring stage, is software-pipelined by two
    stages: stage 1 (the second dot, its wait and releases, the rescale of
    its accumulator, the wait for and read of its B stage) runs one
    iteration behind stage 0 (everything else). In the rotated body the
    next block's first dot and this block's second dot are issued back to
    back, the first dot's wait leaves the second in flight
    (`tile.warpgroup_wait 1`), and the register work runs while the tensor
    cores compute the second dot:

        for j:  s = dot(q, kt(j)); s = wait 0 (s); p, alpha = f(s)
                acc = dot(p, v(j), acc * alpha); acc = wait 0 (acc)
      ->
        S0(0)
        for j >= 1:  s = dot(q, kt(j)); acc = dot(p, v(j-1), acc * alpha)
                     s = wait 1 (s); f(s); acc = wait 0 (acc); release v(j-1)
                     p = convert(..); producer work
        S1(last)

    The conversion into the second dot's A registers and the producer work
    after the first dot run after the second dot's wait (the group in
    flight reads the previous A registers; a refill waits for the stage the
    second dot reads). The rotated loop sits in a branch on the loop running
    at all. In an 8-warp kernel whose dots give each warpgroup its own 64
    rows, `schedule<pingpong = true>` (the default where the first dot's K
    is at most 64) makes the two warpgroups take turns issuing the products
    (named barriers 3 and 4 around the stage waits and dots), so that one's
    register work runs while the other's wgmma does. Loops of another shape
    keep their order, with a missed remark
    (`--remarks-filter=tile-wgmma-overlap`). `schedule<async_wgmma = false>`
    turns the pass off.
  }];
  let statistics = [
    Statistic<"numOverlappedLoops", "num-overlapped-loops",
              "Number of loops whose register work runs beside a wgmma">
  ];
}

def TileAsyncWgmma : Pass<"tile-async-wgmma", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Keeps wgmma groups in flight across loop iterations";
  let description = [{
    In a loop whose one wgmma `tile.dot` accumulates into a loop-carried
    value (`acc = dot(a, b, acc)`, the accumulator used by nothing else in
    the loop), the `tile.warpgroup_wait 0` after the dot becomes
    `tile.warpgroup_wait 1`: the next iteration's dot is issued while this
    one runs. The shared memory the dot reads is released one iteration
    later: the `tile.mbarrier_arrive`s after the wait move to after the next
    iteration's wait (for the previous iteration's stage), and after the
    loop a `tile.warpgroup_wait 0` retires the last group before its
    releases and the accumulator's uses.

        for k:   d = dot(ring[s], acc); acc = wgmma.wait 0 (d); arrive empty[s]
      ->
        for k:   d = dot(ring[s], acc); acc = wgmma.wait 1 (d)
                 if k > lb: arrive empty[s_prev]
        acc = wgmma.wait 0 (acc); if any iteration: arrive empty[s_last]

    A loop with several such dots on independent accumulators (a dual GEMM:
    the gate and up projections of one X tile) keeps all of them in flight:
    their waits become one `tile.warpgroup_wait N` over the N dots' results
    after the last dot, and the drain retires them all.

    Loops whose accumulator is read or rewritten between the dots (an
    online-softmax rescale), and dots whose A operand is computed in
    registers inside the loop (the next iteration would rewrite the
    registers the group in flight reads), are left as they are, with a
    missed remark
    (`--remarks-filter=tile-async-wgmma`).

    A dot whose shared operands are all tile-pipeline's two-stage staging
    buffers (`tile.staging_buffer`) needs no release: the stores of the
    next iteration's tiles wait for the group two iterations back
    themselves.
  }];
  let statistics = [
    Statistic<"numAsyncLoops", "num-async-loops",
              "Number of loops keeping a wgmma group in flight">
  ];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Moves the producer work of pipelined loops to a producer warpgroup";
  let description = [{
    The kernel body becomes a `tile.warp_specialize`: the kernel's warps
    (the consumers) run the program without its `tile.producer` work; an
    added warpgroup runs only that work, in a copy of the loops around it
    that keeps just what the producer needs (loop bounds, offsets, ring
    positions: scalar code, no tiles). Each side resizes its registers with
    `setmaxnreg`: the producer keeps `producer-regs`, the consumers get the
    rest of the register file (multiples of 8, at most 256 per thread)
    unless `consumer-regs` is set. The budgets follow the consumers'
    register need, estimated from the tensors the loops keep live (carried
    values and unyielded dot results, plus 32 for addresses and fragments):
    where it exceeds what 40 producer registers leave (232 with two consumer
    warpgroups) and neither the option nor `schedule<producer_regs>` fixes
    the producer's, the producer, which holds only scalars, drops to 24 and
    the consumers get 240. The passed remark gives the budgets and the
    estimate. Allocations (rings, barriers, tensor
    maps) and scalar code stay before the op, where both sides see them.

    Applies on chips with `setmaxnreg` (sm_90a) to kernels whose warps are
    whole warpgroups. A kernel whose producer work needs a tile value keeps
    the single-role form, with a missed remark
    (`--remarks-filter=tile-warp-specialize`).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip; empty: read it from the enclosing gpu.module">,
    Option<"producerRegs", "producer-regs", "unsigned", /*default=*/"40",
           "Registers per producer thread (default: 40, or 24 when the "
           "consumers' estimated need exceeds what 40 leaves)">,
    Option<"consumerRegs", "consumer-regs", "unsigned", /*default=*/"0",
           "Registers per consumer thread (0: what the producer leaves)">
  ];
  let statistics = [
    Statistic<"numSpecialized", "num-specialized",
              "Number of kernels split into producer and consumer warps">
  ];
}

def TileSplitLoops : Pass<"tile-split-loops", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Splits a loop where a branch on its induction variable changes sides";
  let description = [{
    A loop (around no other loop) whose body holds an `scf.if` on a signed
    comparison of the induction variable with a value defined before the
    loop (`iv >= x`, `iv < x`, `x <= iv`, `x > iv`) becomes two loops: the
    iterations before the first one at or past `x`, then the rest, the
    second starting from the first one's results. In each, the comparison
    is a constant and the branches it decides are inlined:

        for i in [lb, ub):                for i in [lb, p): B
          if (i >= x) { A } else { B }  ->  for i in [p, ub): A

    with p = min(ub, lb + ceildiv(max(x, lb) - lb, step) * step).
    FlashAttention's key loop masks its last blocks only (keys past the
    sequence, the causal diagonal): the blocks before run without the mask
    and without the online softmax's guard for rows that saw no key. Runs on
    the scheduled kernel: rings, the rotation of `tile-wgmma-overlap` and
    the producer's copies are those of one loop, and the two halves carry
    its ring positions from one to the other.

    `tile-mask-bounds`'s branches stay in every iteration, as the program
    wrote them, where the split measured slower (a missed remark says
    which): loops on a TMA ring of at most two stages, and loops that start
    where loaded data says (a skip to the first visible block: few
    iterations precede the bound). `schedule<split_loops = true>` splits
    them anyway; `false` splits nothing.
  }];
  let statistics = [
    Statistic<"numSplitLoops", "num-split-loops", "Number of loops split in two">
  ];
}

def TileSplitDots : Pass<"tile-split-dots", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Splits mma.sync tile.dots with a shared-memory operand into 16-wide K steps";
  let description = [{
    A `tile.dot` on mma.sync whose operand is a `tile.local_load`
    (`ldmatrix`) used only by it reads the whole operand tile into registers
    before its first `mma.sync`: for attention's Kᵀ and V tiles at head dim
    128 that is 128 registers per thread each, which with 32 query rows per
    warp overflows the register file (ptxas spills inside the key loop).
    The dot becomes a chain of dots over 16-wide K steps; a shared-memory
    operand becomes one `tile.local_load` per step (offsets shifted), a
    register operand one `tile.extract_slice` per step:

        acc = dot(local_load A, local_load B, acc)
      ->
        for s in 0, 16, ..: acc = dot(local_load A[:, s:s+16],
                                      local_load B[s:s+16, :], acc)

    so that each step's fragments live only until its own `mma.sync`. The
    reads move down to the dot only over operations that write no memory.
    wgmma dots (operands read in place) and dots of one K step are left
    alone.
  }];
  let statistics = [
    Statistic<"numSplitDots", "num-split-dots", "Number of dots split into K steps">
  ];
}

def TileVerifyAsync : Pass<"tile-verify-async", "::mlir::tilec::tile::KernelOp"> {
  let summary = "Proves a scheduled kernel's asynchronous protocol on bounded paths";
  let description = [{
    Runs the scheduled kernel (after tile-split-dots; the pipelines run it
    before convert-tile-to-nvvm) on an abstract machine, once per path: a
    set of values of the integer parameters that decide control flow, and
    the first and last program (or cluster) of the launch. Every warp is an
    agent with a vector clock; mbarriers, named, block and cluster barriers,
    cp.async groups, wgmma groups and TMA copies order them as the PTX
    memory model does (see lib/Dialect/Tile/Transforms/Schedule/AsyncModel.cpp).
    It reports, as an error on the operation with a note naming the path,
    the warp and the loop iterations:

    * a read of a ring stage that no wait orders after the write that fills
      it (a missing mbarrier wait, a wrong parity, cp.async data read before
      `tile.async_wait` + `tile.barrier`);
    * a write (TMA, cp.async, st.shared) into a stage that a reader may still
      read (a missing release wait, a release before `tile.warpgroup_wait`);
    * an async-proxy read (wgmma, TMA store) of generic-proxy writes with
      no `tile.fence_async_shared` in between;
    * a parity that can name two phases, or an arrival that can land in the
      previous phase;
    * expect_tx bytes that differ from the bytes of the TMA boxes completing
      on the barrier (multicast and `part` included);
    * arrivals that do not match a barrier's count, any deadlock, and
      phases or bulk stores still pending when the kernel ends;
    * a wgmma accumulator used before a `tile.warpgroup_wait` returns it.

    Paths: every integer parameter that reaches a loop bound or a branch is
    set to 1, 65, 193, 257, 321, 385, 449 and 513 in turn (the others 129:
    partial tiles), then to 64, 128, 192, 320, 384, 448 and 512 (the others
    256: whole tiles, where tile-pipeline's unchecked loop versions run), so
    that rings wrap several times at every stage count and parities take
    both values at every stage. Tiles hold no data in the model; integers
    the control flow reads with `tile.load_scalar` come from a fixed memory
    (increasing group ends, as a grouped GEMM's offsets: counts of 0, 1,
    130, 257, ...). A path that runs past an eighth of `max-steps` as
    written runs again, as every later path does, with the loops whose
    bounds come from such data shortened to 16-31 iterations (a block
    list's key loops, a document's blocks); a violation found after such a
    loop ended is not reported there (the sides of a hand-off that bound
    their loops differently may then disagree), and the path counts as not
    checked. A kernel whose control flow depends on other data is reported
    as not checked (a remark; an error with `strict`).
  }];
  let options = [
    Option<"maxPaths", "max-paths", "unsigned", "128",
           "Most paths checked per kernel">,
    Option<"maxSteps", "max-steps", "uint64_t", "2000000",
           "Most operations executed per path, all warps together">,
    Option<"strict", "strict", "bool", "false",
           "A kernel that cannot be checked is an error, not a remark">
  ];
  let statistics = [
    Statistic<"numPaths", "num-paths", "Number of paths checked">
  ];
}

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
