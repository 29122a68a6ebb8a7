//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the enums and attributes of the `tile` dialect, notably
// the layout encodings attached to tensor types by `tile-assign-layouts`.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEATTRS_TD
#define TILEC_DIALECT_TILE_IR_TILEATTRS_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "combiner of a tile.reduce", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">
  ]> {
  let cppNamespace = "::mlir::tilec::tile";
}

def Tile_Padding : I32EnumAttr<"Padding",
    "value read for elements outside a view (or masked off)", [
    I32EnumAttrCase<"Zero", 0, "zero">,
    I32EnumAttrCase<"NegInf", 1, "neg_inf">,
    I32EnumAttrCase<"PosInf", 2, "pos_inf">,
    I32EnumAttrCase<"NaN", 3, "nan">
  ]> {
  let cppNamespace = "::mlir::tilec::tile";
}

def Tile_DotPrecision : I32EnumAttr<"DotPrecision",
    "how a tile.dot on f32 operands multiplies", [
    I32EnumAttrCase<"IEEE", 0, "ieee">,
    I32EnumAttrCase<"TF32", 1, "tf32">,
    I32EnumAttrCase<"TF32x3", 2, "tf32x3">
  ]> {
  let cppNamespace = "::mlir::tilec::tile";
}

def Tile_Dim : I32EnumAttr<"Dim", "grid dimension", [
    I32EnumAttrCase<"X", 0, "x">,
    I32EnumAttrCase<"Y", 1, "y">,
    I32EnumAttrCase<"Z", 2, "z">
  ]> {
  let cppNamespace = "::mlir::tilec::tile";
}

def Tile_Activation : I32EnumAttr<"Activation",
    "elementwise activation fused into a GEMM epilogue", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"ReLU", 1, "relu">,
    I32EnumAttrCase<"GELU", 2, "gelu">,
    I32EnumAttrCase<"SiLU", 3, "silu">
  ]> {
  let cppNamespace = "::mlir::tilec::tile";
}

def Tile_AttentionBackwardStage : I32EnumAttr<"AttentionBackwardStage",
    "one kernel of a tile.attention_backward", [
    I32EnumAttrCase<"Pre", 0, "pre">,
    I32EnumAttrCase<"Dq", 1, "dq">,
    I32EnumAttrCase<"Dkdv", 2, "dkdv">,
    I32EnumAttrCase<"PreZeroDq", 3, "pre_zero_dq">,
    I32EnumAttrCase<"DkdvDq", 4, "dkdv_dq">,
    I32EnumAttrCase<"DqScale", 5, "dq_scale">,
    I32EnumAttrCase<"DkdvSum", 6, "dkdv_sum">
  ]> {
  let cppNamespace = "::mlir::tilec::tile";
}

def Tile_AttentionStage : I32EnumAttr<"AttentionStage",
    "one kernel of a split-KV tile.attention", [
    I32EnumAttrCase<"Split", 0, "split">,
    I32EnumAttrCase<"Combine", 1, "combine">
  ]> {
  let cppNamespace = "::mlir::tilec::tile";
}

def Tile_GemmStage : I32EnumAttr<"GemmStage",
    "one kernel of a split-K tile.gemm", [
    I32EnumAttrCase<"Partial", 0, "partial">,
    I32EnumAttrCase<"Reduce", 1, "reduce">
  ]> {
  let cppNamespace = "::mlir::tilec::tile";
}

//===----------------------------------------------------------------------===//
// Layout encodings
//===----------------------------------------------------------------------===//

def Tile_DistributedLayoutAttrInterface
    : AttrInterface<"DistributedLayoutAttrInterface"> {
  let cppNamespace = "::mlir::tilec::tile";
  let description = [{
    A tensor encoding that distributes the elements of a tile over the
    registers, lanes and warps of a thread block. Every such layout can be
    expressed as a `LinearLayout` for a given (power-of-two) shape; all
    lowering decisions (how many registers a thread holds, which coordinates
    they have, whether a conversion needs shared memory) are made on that
    linear form.
  }];
  let methods = [
    InterfaceMethod<"Returns the linear form of this layout for `shape`.",
      "::mlir::tilec::tile::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"Returns the number of warps the layout spans.",
      "unsigned", "getNumWarps", (ins)>,
    InterfaceMethod<"Returns the tensor rank the layout applies to.",
      "unsigned", "getRank", (ins)>
  ];
}

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_BlockedEncodingAttr : Tile_Attr<"BlockedEncoding", "blocked",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayoutAttrInterface>]> {
  let summary = "Blocked distribution of a tile over a thread block";
  let description = [{
    Each thread owns `sizePerThread` contiguous elements; a warp is a grid of
    `threadsPerWarp` threads and the block a grid of `warpsPerCTA` warps.
    `order` lists the dimensions from fastest- to slowest-varying. The block
    tile (`sizePerThread * threadsPerWarp * warpsPerCTA`) is repeated over
    larger tensors (more registers per thread) and broadcast over smaller
    ones (threads holding the same element).

    This is the layout of coalesced global loads and stores: with `order`
    starting at the contiguous dimension and 16 bytes in `sizePerThread`
    along it, one warp touches whole 128-byte lines with vector accesses.

    ```mlir
    #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16],
                  warpsPerCTA = [4, 1], order = [1, 0]>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order
  );
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_SliceEncodingAttr : Tile_Attr<"SliceEncoding", "slice",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayoutAttrInterface>]> {
  let summary = "A parent layout with one dimension removed";
  let description = [{
    The layout of the result of a reduction along `dim` of a tensor with
    layout `parent` (and of the operand of `tile.expand_dims`). The threads
    that held different positions along `dim` now hold the same element.

    ```mlir
    #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4],
        threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "Attribute":$parent);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_MmaEncodingAttr : Tile_Attr<"MmaEncoding", "mma",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayoutAttrInterface>]> {
  let summary = "Accumulator layout of warp-level mma.sync (m16n8)";
  let description = [{
    The accumulator (C/D) fragment layout of `mma.sync.aligned.m16n8k*`
    ([PTX ISA: mma m16n8k16](https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-fragment-mma-16816-float)):
    in each 16x8 tile, lane `l` holds rows `l/4` and `l/4 + 8`, columns
    `2*(l%4)` and `2*(l%4) + 1`. The `warpsPerCTA` warps split the tensor into
    contiguous warp tiles; each warp repeats the 16x8 tile over its warp tile
    (N fastest, then M).

    Warps are numbered along N first. With `mFirst = true` they are numbered
    along M first: the layout of wgmma's accumulator when warpgroups split
    N (four consecutive warps own 64 consecutive rows; warpgroup `g` of a
    64-row tile owns columns `g * N / warpsPerCTA[1]` on). Its warps along
    M are a multiple of 4.

    `warpRows = 16`: each warp holds 16-row slices, the warps along M tile
    `16 * warpsPerCTA[0]` rows, and the pattern repeats down M (in
    registers, after the N repetitions). That is wgmma's accumulator when
    a tile has more rows than its warpgroups' 64 each: warpgroup `g` issues
    one m64 instruction per block of rows it holds (128 rows on 4 warps: two
    m64 instructions, warp `w` holding rows `16w` and `64 + 16w` on).
    Without it (0), each warp holds a contiguous tile of
    `M / warpsPerCTA[0]` rows (mma.sync).

    ```mlir
    #tile.mma<warpsPerCTA = [4, 2]>
    #tile.mma<warpsPerCTA = [4, 2], mFirst = true>
    #tile.mma<warpsPerCTA = [4, 1], warpRows = 16>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        DefaultValuedParameter<"bool", "false">:$mFirst,
                        DefaultValuedParameter<"unsigned", "0">:$warpRows);
  // `<warpsPerCTA = [..]` then optional `, mFirst = true`, `, warpRows = 16`
  // (hand-written: optional groups after a shared comma are ambiguous in
  // the declarative format).
  let hasCustomAssemblyFormat = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    AttrBuilder<(ins "ArrayRef<unsigned>":$warpsPerCTA,
                     CArg<"bool", "false">:$mFirst,
                     CArg<"unsigned", "0">:$warpRows), [{
      return $_get($_ctxt, warpsPerCTA, mFirst, warpRows);
    }]>
  ];
  let genVerifyDecl = 1;
}

def Tile_DotOperandEncodingAttr : Tile_Attr<"DotOperandEncoding", "dot_operand",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayoutAttrInterface>]> {
  let summary = "Register layout of an mma.sync A or B operand";
  let description = [{
    The A (`opIdx = 0`, M x K) or B (`opIdx = 1`, K x N) operand fragments of
    `mma.sync.aligned.m16n8k16` for the accumulator layout `parent`. Each
    register holds `kWidth` consecutive K elements (2 for 16-bit types).
    Warps that split the other operand's dimension hold copies.

    ```mlir
    #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>,
                      kWidth = 2>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_SharedEncodingAttr : Tile_Attr<"SharedEncoding", "shared"> {
  let summary = "XOR-swizzled layout of a tile in shared memory";
  let description = [{
    How a 2-D tile is laid out in shared memory. `order[0]` is the
    contiguous dimension; a row along it is split into chunks of `vec`
    elements (16 bytes), and chunk `c` of row `r` is stored at chunk
    `c ^ ((r / perPhase) % maxPhase)`. With the parameters
    `tile-pipeline` chooses, the 8 rows an `ldmatrix` phase reads (and the
    16-byte `cp.async` writes) fall into distinct banks.

    With `segment = s`, rows are cut into segments of `s` elements stored
    one after the other (all rows' first segment, then all rows' second,
    ...), each swizzled on its own. Segments of 128 bytes with
    `perPhase = 1, maxPhase = 8` are the 128-byte swizzle of TMA and of
    `wgmma` shared-memory descriptors; segments of 64 bytes with
    `perPhase = 2, maxPhase = 4` are their 64-byte swizzle (operands whose
    contiguous K is 64 bytes, e.g. fp8 at K = 64).

    ```mlir
    #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
    #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order,
                        DefaultValuedParameter<"unsigned", "0">:$segment);
  let assemblyFormat = [{
    `<` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,` `maxPhase` `=`
        $maxPhase `,` `order` `=` `[` $order `]`
        (`,` `segment` `=` $segment^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Element offset of `coord` (a 2-D tile coordinate) in a tile of
    /// `shape`, after swizzling.
    int64_t getOffset(ArrayRef<int64_t> coord, ArrayRef<int64_t> shape) const;
    /// Elements per segment of a row of `rowLen` elements.
    int64_t getSegmentLength(int64_t rowLen) const {
      return getSegment() ? std::min<int64_t>(getSegment(), rowLen) : rowLen;
    }
    /// The TMA/wgmma swizzle span in bytes this layout is for rows of
    /// `elemBytes`-byte elements (0: no swizzle; 32, 64 or 128), or
    /// std::nullopt when the hardware has no such swizzle mode.
    std::optional<int64_t> getHardwareSwizzleBytes(unsigned elemBytes) const;
    /// The 128- or 64-byte hardware swizzle span of this layout when its
    /// rows are cut into segments of exactly that span, as TMA boxes and
    /// wgmma descriptors take them; std::nullopt otherwise.
    std::optional<int64_t> getSegmentSwizzleBytes(unsigned elemBytes) const;
    /// The layout of the hardware's `swizzleBytes` swizzle (128, 64 or 32)
    /// for `elemBytes`-byte elements contiguous along `contig`, as TMA
    /// writes it and wgmma descriptors read it: 16-byte chunks, rows cut
    /// into `swizzleBytes` segments (the inverse of
    /// getHardwareSwizzleBytes).
    static SharedEncodingAttr getHardwareSwizzled(MLIRContext *ctx,
                                                  unsigned elemBytes,
                                                  unsigned swizzleBytes,
                                                  unsigned contig);
  }];
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

def Tile_ScheduleAttr : Tile_Attr<"Schedule", "schedule"> {
  let summary = "How the scheduling passes treat a kernel";
  let description = [{
    The knobs of the scheduling passes for one kernel (`schedule<...>` on
    `tile.kernel`). Every knob is optional; a knob left out takes the
    per-chip default of the pass that reads it, so the attribute only states
    what a program wants differently:

    | knob | pass | meaning |
    | --- | --- | --- |
    | `stages` | tile-tma-pipeline, tile-pipeline | ring depth (default: TMA rings as deep as shared memory allows, up to 8; cp.async 3) |
    | `tma` | tile-tma-pipeline | TMA loads where legal (default true on sm_90a) |
    | `async_wgmma` | tile-async-wgmma, tile-wgmma-overlap | keep wgmma groups in flight across iterations (default true) |
    | `warp_specialize` | tile-warp-specialize | a producer warpgroup issues the copies (default true on sm_90a) |
    | `producer_regs`, `consumer_regs` | tile-warp-specialize | setmaxnreg budgets (default 40 and what is left; 24 and what is left when the consumers' estimated register need exceeds that) |
    | `persistent` | tile-persistent | one program per SM walks the grid's tiles (default on sm_90a: when every tile is the same work) |
    | `tma_store` | tile-tma-store | an epilogue's whole-tile store leaves through shared memory and a TMA store (default true on sm_90a, where legal) |
    | `pingpong` | tile-wgmma-overlap | two consumer warpgroups take turns issuing a rotated loop's products (named barriers), so one's register work runs while the other's wgmma does (default: where the first dot's K is at most 64, e.g. attention at head dim 64) |
    | `split_loops` | tile-split-loops | a loop whose branch on its induction variable changes sides at a bound (attention's masked last key blocks) runs as two loops without the branch (default true) |
    | `share_tiles` | tile-tma-pipeline | loads of the same tile that several wgmma dots read in place (the same view and offsets, or its transpose: a K-major operand of one dot and an N-major one of another) become one TMA copy into one buffer, released once the last of its dots has retired (default false) |
    | `group_rows` | tile-group-tiles | a GEMM-like program's output tiles are visited in groups of this many tile rows, so that the programs running together share both operands' tiles in L2 (default 8; 1 keeps the order the program computes) |
    | `operands_in_smem` | tile-pipeline | a tile loaded once before the loops whose mma.sync dots read it (attention's Q) waits in shared memory, one cp.async copy, and each dot reads its fragments there (ldmatrix) instead of keeping them in registers (default: where the registers would not fit beside what the loop keeps live, by the pass's estimate) |

    A loop's `tile.num_stages` attribute overrides `stages` for that loop.

    ```mlir
    tile.kernel @gemm(...) grid(...) warps(8)
        schedule<stages = 4, persistent = true> { ... }
    ```
  }];
  let parameters = (ins
    OptionalParameter<"std::optional<int64_t>">:$stages,
    OptionalParameter<"::mlir::BoolAttr">:$tma,
    OptionalParameter<"::mlir::BoolAttr">:$async_wgmma,
    OptionalParameter<"::mlir::BoolAttr">:$warp_specialize,
    OptionalParameter<"std::optional<int64_t>">:$producer_regs,
    OptionalParameter<"std::optional<int64_t>">:$consumer_regs,
    OptionalParameter<"::mlir::BoolAttr">:$persistent,
    OptionalParameter<"::mlir::BoolAttr">:$tma_store,
    OptionalParameter<"::mlir::BoolAttr">:$pingpong,
    OptionalParameter<"::mlir::BoolAttr">:$split_loops,
    OptionalParameter<"::mlir::BoolAttr">:$operands_in_smem,
    OptionalParameter<"::mlir::BoolAttr">:$share_tiles,
    OptionalParameter<"std::optional<int64_t>">:$group_rows
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The schedule of `op`'s kernel (null when it sets none).
    static ScheduleAttr of(Operation *op);
    /// `flag`'s value, or `dflt` when unset.
    static bool flag(BoolAttr flag, bool dflt) {
      return flag ? flag.getValue() : dflt;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Named-op configurations
//===----------------------------------------------------------------------===//

// A count of a configuration (an integer; the attribute's verifier bounds
// it). A value that is not one fails with the generated diagnostic, which
// names the field.
class Tile_ConfigCount<string desc> :
    OptionalParameter<"std::optional<int64_t>", desc> {
  let parser = [{ ::mlir::tilec::tile::parseConfigCount($_parser) }];
  let printer = [{ $_printer << *$_self }];
}

// A flag of a configuration: `true` or `false` (0 and 1 are read as well).
class Tile_ConfigFlag<string desc> : OptionalParameter<"::mlir::BoolAttr", desc> {
  let parser = [{ ::mlir::tilec::tile::parseConfigFlag($_parser) }];
}

def Tile_GemmConfigAttr : Tile_Attr<"GemmConfig", "gemm_config"> {
  let summary = "Overrides of tile.gemm's per-chip configuration";
  let description = [{
    What a `tile.gemm` sets differently from the per-chip rule of
    `tile-expand-named-ops` (`config <...>` on the op). Every field is
    optional; a field left out takes the chip's default. The verifier
    rejects what no chip can run (counts out of range, block sizes that are
    not powers of two, and the warp-specialized kernel's fields with
    `warp_specialize = false`); what a given chip cannot run is diagnosed
    when the op is expanded for it.

    | field | meaning |
    | --- | --- |
    | `block_m`, `block_n`, `block_k` | block tile (powers of two) |
    | `stages` | operand ring depth (at least 2) |
    | `warps` | warps per block (a power of two up to 32) |
    | `group_m` | block rows per rasterization group |
    | `warp_specialize` | sm_90a: persistent kernel with a TMA producer warpgroup and wgmma consumers (the default there for bf16/f16) |
    | `consumer_regs`, `producer_regs` | the two sides' `setmaxnreg` (multiples of 8 in [24, 256]) |
    | `tma_store` | the epilogue leaves through shared memory and a TMA store |
    | `cluster_m`, `cluster_n` | thread-block clusters of neighbouring tiles, operands multicast |
    | `aligned` | `false`: A, B and C may have any base address and row strides (plain loads, no cp.async or TMA; the variant runtimes pick for operands the fast path cannot take). The default, `true`, requires 16-byte aligned bases and row strides that are whole 16-byte chunks |
    | `swap_ab` | compute Cᵀ = Bᵀ Aᵀ: B's columns ride the MMA's M and A's rows its N (down to 16 wide on wgmma), for decode and other skinny GEMMs (M up to 64): the shape rule's choice with a column-major (nn.Linear) B; with a row-major B where asked (Bᵀ is then wgmma's transposed, M-major A); `block_m`, `block_n` stay C's tile. bf16/f16, 2-D or grouped (decode-time experts: each group's few tokens ride N), no block scales, no TMA store |
    | `split_k` | split K into this many ranges (at most 64), one program per tile and range, for shapes with too few tiles to fill the chip: the op then needs a `workspace` and runs as two kernels, the f32 partial products and their sum in a fixed order (the same bits on every run; see tile.gemm). 2-D, no block scales, no i8, no TMA store or clusters |

    ```mlir
    tile.gemm %a, %b, %c config <block_n = 128, tma_store = false> : ...
    ```
  }];
  let parameters = (ins
    Tile_ConfigCount<"rows of the block tile">:$block_m,
    Tile_ConfigCount<"columns of the block tile">:$block_n,
    Tile_ConfigCount<"K step of the block tile">:$block_k,
    Tile_ConfigCount<"operand ring depth">:$stages,
    Tile_ConfigCount<"warps per block">:$warps,
    Tile_ConfigCount<"block rows per rasterization group">:$group_m,
    Tile_ConfigFlag<"the warp-specialized sm_90a kernel">:$warp_specialize,
    Tile_ConfigCount<"setmaxnreg of the consumers">:$consumer_regs,
    Tile_ConfigCount<"setmaxnreg of the producer">:$producer_regs,
    Tile_ConfigFlag<"the TMA-store epilogue">:$tma_store,
    Tile_ConfigCount<"cluster programs along M">:$cluster_m,
    Tile_ConfigCount<"cluster programs along N">:$cluster_n,
    Tile_ConfigFlag<"16-byte aligned operands (false: any strides, plain loads)">:$aligned,
    Tile_ConfigFlag<"the transposed product (C^T = B^T A^T) for skinny GEMMs">:$swap_ab,
    Tile_ConfigCount<"K ranges computed by separate programs (split-K)">:$split_k
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    // The configuration that sets nothing (every field the chip's default).
    AttrBuilder<(ins), [{
      return $_get($_ctxt, std::nullopt, std::nullopt, std::nullopt,
                   std::nullopt, std::nullopt, std::nullopt, BoolAttr(),
                   std::nullopt, std::nullopt, BoolAttr(), std::nullopt,
                   std::nullopt, BoolAttr(), BoolAttr(), std::nullopt);
    }]>
  ];
}

def Tile_AttentionBackwardConfigAttr
    : Tile_Attr<"AttentionBackwardConfig", "attention_backward_config"> {
  let summary = "Overrides of tile.attention_backward's per-chip tiles";
  let description = [{
    What a `tile.attention_backward` sets differently from the per-chip rule
    of `tile-expand-named-ops` (`config <...>` on the op; every field
    optional). The verifier rejects what no chip can run (sizes that are not
    powers of two or out of range, register budgets setmaxnreg cannot
    take); what a given chip cannot run (shared memory, registers) is
    diagnosed when the stage kernels are compiled for it.

    | field | meaning |
    | --- | --- |
    | `dq_m`, `dq_n`, `dq_warps` | the dQ kernel: queries per program, keys per step, warps |
    | `dkv_n`, `dkv_m`, `dkv_warps` | the dK/dV kernel (and the atomic mode's dK/dV/dQ kernel): keys per program, queries per step, warps |
    | `prefetch_rows` | the dK/dV loop loads the next query block's lse2 and Delta one step ahead |
    | `consumer_regs`, `producer_regs` | sm_90a: the dK/dV kernel's setmaxnreg budgets if it is warp-specialized (the producer's default 24 when only `consumer_regs` is set) |
    | `dq_add_cols` | the atomic mode: columns of dQ per product dS K and atomic add (at most the head dim) |
    | `share_tiles` | sm_90a: the dQ and dK/dV kernels' schedule<share_tiles>: a tile two products read (K in the dQ loop; Q and dO in the dK/dV loop; K twice in the atomic kernel) is one TMA copy read by both |

    ```mlir
    tile.attention_backward ... config <dq_n = 128, consumer_regs = 240> : ...
    ```
  }];
  let parameters = (ins
    Tile_ConfigCount<"queries per dQ program">:$dq_m,
    Tile_ConfigCount<"keys per dQ step">:$dq_n,
    Tile_ConfigCount<"warps of the dQ kernel">:$dq_warps,
    Tile_ConfigCount<"keys per dK/dV program">:$dkv_n,
    Tile_ConfigCount<"queries per dK/dV step">:$dkv_m,
    Tile_ConfigCount<"warps of the dK/dV kernel">:$dkv_warps,
    Tile_ConfigFlag<"lse2 and Delta loaded a step ahead">:$prefetch_rows,
    Tile_ConfigCount<"setmaxnreg of the dK/dV consumers">:$consumer_regs,
    Tile_ConfigCount<"setmaxnreg of the dK/dV producer">:$producer_regs,
    Tile_ConfigCount<"dQ columns per atomic add">:$dq_add_cols,
    Tile_ConfigFlag<"one TMA copy of a tile two products read">:$share_tiles
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_AttentionConfigAttr : Tile_Attr<"AttentionConfig", "attention_config"> {
  let summary = "Overrides of tile.attention's per-chip configuration";
  let description = [{
    What a `tile.attention` sets differently from the per-chip rule of
    `tile-expand-named-ops` (`config <...>` on the op). Every field is
    optional; a field left out takes the chip's default. The verifier
    rejects what no chip can run (counts out of range, block sizes that are
    not powers of two, a ring of one stage, and the warp-specialized
    schedule's fields with `warp_specialize = false`); what a given chip or
    head dim cannot run is diagnosed when the op is expanded for it.

    | field | meaning |
    | --- | --- |
    | `block_m` | queries per program (a power of two) |
    | `block_n` | keys per step (a power of two, at least 16) |
    | `stages` | depth of the K/V ring (at least 2; 3 for FP8 on the warp-specialized schedule) |
    | `warps` | warps computing (a power of two up to 32) |
    | `warp_specialize` | sm_90a: a producer warp streams K and V with TMA while the kernel's warpgroups compute (the default there) |
    | `consumer_regs`, `producer_regs` | the two sides' `setmaxnreg` (default 232 and 40) |
    | `pingpong` | the two consumer warpgroups take turns issuing wgmma (the default with 8 warps, not for FP8) |
    | `tma_store` | O leaves through shared memory and a TMA store (the default there) |
    | `persistent` | one program per SM walks the query-block tiles, Q double-buffered (the default without the causal mask, not for FP8; with it, each program takes pairs of one head's longest and shortest query blocks) |
    | `by_passes` | the scheduling passes build the warp-specialized kernel from the block program instead of the hand-built FlashAttention-3 schedule (the default up to head dim 128; always for FP8) |
    | `q_in_smem` | without the producer warp: Q stays in shared memory and its fragments are read per key block (the mma.sync default) |
    | `split_loops` | the key blocks every query sees whole run in a loop without the mask, the rest in a second one (the default up to head dim 128 on the cp.async schedule; on the warp-specialized one, tile-split-loops splits the one loop: the default for persistent kernels and FP8) |
    | `splits` | split-KV: each query block's keys are cut into this many ranges, each a program of the `split` kernel that writes its partial O and log-sum-exp to the workspace; the `combine` kernel merges them (1: one kernel, the default) |
    | `pack_gqa` | decode: the query heads of one K/V head are the rows of one query block, so that they share one K/V stream (the default where Q's type has one query, its seq dimension 1, and no score_mod or mask_mod) |

    ```mlir
    tile.attention %q, %k, %v, %o causal config <persistent = true> : ...
    ```
  }];
  let parameters = (ins
    Tile_ConfigCount<"queries per program">:$block_m,
    Tile_ConfigCount<"keys per step">:$block_n,
    Tile_ConfigCount<"depth of the K/V ring">:$stages,
    Tile_ConfigCount<"warps computing">:$warps,
    Tile_ConfigFlag<"the warp-specialized sm_90a schedule">:$warp_specialize,
    Tile_ConfigCount<"setmaxnreg of the consumers">:$consumer_regs,
    Tile_ConfigCount<"setmaxnreg of the producer">:$producer_regs,
    Tile_ConfigFlag<"consumer warpgroups take turns">:$pingpong,
    Tile_ConfigFlag<"the TMA-store epilogue">:$tma_store,
    Tile_ConfigFlag<"one program per SM walks the tiles">:$persistent,
    Tile_ConfigFlag<"the scheduling passes build the kernel">:$by_passes,
    Tile_ConfigFlag<"Q read from shared memory per key block">:$q_in_smem,
    Tile_ConfigFlag<"unmasked and masked key loops">:$split_loops,
    Tile_ConfigCount<"key ranges per query block (split-KV)">:$splits,
    Tile_ConfigFlag<"a K/V head's query heads share a query block">:$pack_gqa
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    // The configuration that sets nothing (every field the chip's default).
    AttrBuilder<(ins), [{
      return $_get($_ctxt, std::nullopt, std::nullopt, std::nullopt,
                   std::nullopt, BoolAttr(), std::nullopt, std::nullopt,
                   BoolAttr(), BoolAttr(), BoolAttr(), BoolAttr(), BoolAttr(),
                   BoolAttr(), std::nullopt, BoolAttr());
    }]>
  ];
}

#endif // TILEC_DIALECT_TILE_IR_TILEATTRS_TD
