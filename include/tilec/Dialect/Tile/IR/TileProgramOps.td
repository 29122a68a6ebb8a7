//===- TileProgramOps.td - program-level tile ops ----------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The program levels (L0 and L1 of docs/design-overview.md): kernels and
// their grid, views of global memory, tile loads and stores, tile
// construction, layout conversions, tile-level compute (dot, reduce), and the
// named ops tile.gemm and tile.attention that tile-expand-named-ops turns into
// block programs. Frontends and users write these ops; no hardware detail
// (shared memory, barriers, asynchronous copies) appears at this level
// beyond the layout encodings on tensor types.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEPROGRAMOPS_TD
#define TILEC_DIALECT_TILE_IR_TILEPROGRAMOPS_TD

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
    `fast_math` lets every floating-point op of the kernel use approximate
    forms (the `afn`, `arcp` and `contract` flags on each op, set by
    `tile-fast-math`): `div.full.f32` for a divide, `ex2.approx` for exp,
    `tanh.approx` for tanh, libdevice's `__nv_fast_*` functions; without it
    every op keeps MLIR's IEEE semantics unless its own `fastmath` flags say
    otherwise. `tilec --fast-math` and `tilec.compile(fast_math=True)` set it
    on every kernel of a module.

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
    UnitAttr:$fast_math,
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

def Tile_YieldOp : Tile_Op<"yield", [Pure, HasParent<"AttentionOp">,
    ReturnLike, Terminator]> {
  let summary = "Ends a region of a named op with its values";
  let description = [{
    The new score of `tile.attention`'s `score_mod` region, or whether a
    key is visible (`mask_mod`).

    ```mlir
    tile.yield %r : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
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
    /// A view of the same memory with the last two dimensions swapped (the
    /// transposed matrices), created at the builder's insertion point.
    MakeViewOp createTransposed(OpBuilder &b, Location loc);
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

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [
    AttrSizedOperandSegments, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Adds a tile into a view, element by element, atomically";
  let description = [{
    Adds `value` to the elements at `offsets` of `view` (same indexing as
    `tile.store`; elements outside the view's sizes, or where `mask` is
    false, are left alone). Each element's add is one relaxed, device-scope
    atomic read-modify-write (`red.global.add.f32`): programs may add into
    the same elements concurrently, in an unspecified order, so the sums
    may differ in their last bits from run to run. The reduction of several
    programs' partial results, e.g. the dQ of an attention backward
    accumulated over key blocks. f32 elements only.

    ```mlir
    tile.atomic_add %dq, %v[%b, %h, %m, %c0]
        : tensor<64x128xf32>, !tile.view<?x?x?x128xf32, strides = [?, ?, 128, 1]>
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

def Tile_LoadScalarOp : Tile_Op<"load_scalar", [Pure]> {
  let summary = "Reads one element of a view that the kernel does not write";
  let description = [{
    Reads the element at `indices` (one per view dimension) as a scalar,
    the same in every thread: data-dependent sizes and offsets, such as the
    group boundaries of a grouped GEMM or the sequence starts of a packed
    batch. An index outside the view's sizes reads zero.

    The op is `Pure`: the memory must not be written while the kernel runs
    (as for `ld.global.nc`), so that reads may be merged, hoisted out of
    loops and repeated in both roles of a warp-specialized program.

    ```mlir
    %end = tile.load_scalar %offsets[%g] : !tile.view<?xi32, strides = [1]> -> i32
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<I32>:$indices);
  let results = (outs Tile_Scalar:$result);
  let assemblyFormat = [{
    $view `[` $indices `]` attr-dict `:` qualified(type($view)) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ViewsOverlapOp : Tile_Op<"views_overlap", [Pure]> {
  let summary = "Whether the memory two views span may overlap";
  let description = [{
    True when the byte ranges the two views span intersect: from the lowest
    to the highest address of an element inside each view's sizes (a view
    with a zero size spans nothing). The test is conservative: views whose
    elements interleave without sharing one (two columns of one matrix)
    count as overlapping.

    tile-prefetch-loads guards a loop it reorders with it: a load issued an
    iteration ahead of the loop's stores is only taken where the memory it
    reads and the memory the loop writes are apart.

    ```mlir
    %overlap = tile.views_overlap %x, %y : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [?, 1]>
    ```
  }];
  let arguments = (ins Tile_ViewType:$lhs, Tile_ViewType:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs))
  }];
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
    f16), f32 x f32 in f32, the fp8 types (`f8E4M3FN`, `f8E5M2`, mixed too)
    accumulating in f32, and i8 x i8 (signed, as torch's int8) accumulating
    in i32 (wrapping). 8-bit operands run on the tensor cores K-major: A
    contiguous along K, B stored N x K.

    `precision` says how f32 operands multiply (it is `ieee` for every
    other type):
    * `ieee` (the default): exact f32 products, as torch.matmul by default.
      No tensor core has them: the dot runs on FMA instructions
      (`fma.rn.f32`, K in order), each thread holding its accumulator rows
      of A and columns of B over all of K (so keep K small: 8 or 16).
    * `tf32`: one TF32 tensor-core product (`mma.sync m16n8k8.tf32`,
      `wgmma m64nNk8.tf32`), the inputs rounded to a 10-bit mantissa, as
      torch with `allow_tf32`. K-major like the 8-bit types.
    * `tf32x3`: each input split into a TF32 head and the TF32 of the rest,
      summed as three TF32 products (small x big, big x small, big x big):
      about f32's accuracy at a third of TF32's rate (mma.sync only).

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<128x32xbf16>, tensor<32x64xbf16>
                               -> tensor<128x64xf32>
    %e = tile.dot %x, %y, %c precision(tf32)
        : tensor<128x32xf32>, tensor<32x64xf32> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$acc,
                       DefaultValuedAttr<Tile_DotPrecision,
                           "::mlir::tilec::tile::DotPrecision::IEEE">:$precision);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`precision` `(` $precision^ `)`)? attr-dict `:`
        type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Named ops
//===----------------------------------------------------------------------===//

def Tile_GemmOp : Tile_Op<"gemm", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<Tile_StagedOpInterface>]> {
  let summary = "C = act(alpha * A * B + beta * C + bias) over whole views";
  let description = [{
    A named GEMM over global views: A is M x K (contiguous along K), B is
    K x N, either contiguous along N (row-major) or along K (column-major),
    C is M x N (contiguous along N). Inputs are bf16, f16, fp8 (e4m3/e5m2,
    B column-major) or f32 (B column-major), and accumulate in f32; C is
    bf16, f16 or f32. f32 inputs say how they multiply with `precision`
    (`tf32` or `tf32x3`, as tile.dot's, or exact f32 products on FMA
    instructions: `ieee`, the default). `alpha` and `beta` are optional f32 scalars
    (1 and 0 when absent; C is not read without `beta`), `scale_a` and
    `scale_b` optional contiguous f32 vectors of length M and N that scale
    the product's rows and columns (torch._scaled_mm's row-wise scales:
    `alpha * scale_a[m] * scale_b[n] * (A * B)[m, n]`) -- or, for fp8
    inputs, 2-D f32 views of block scales (DeepGEMM's recipe): `scale_a`
    `[ceildiv(K, 128), M]` (one scale per row and 128-wide K block, M
    contiguous), `scale_b` `[ceildiv(N, 128), ceildiv(K, 128)]` (one per
    128x128 block of B), `alpha * sum_kb scale_a[kb, m] * scale_b[n / 128,
    kb] * (A * B over block kb)[m, n]`, each K block's product promoted to
    the f32 sum once scaled --, `bias` an optional
    length-N vector added to every row, and `activation` one of `relu`,
    `gelu` (erf form) and `silu`, applied last.

    Batched: 3-D views `[batch, M, K]`, `[batch, K, N]` and `[batch, M,
    N]` (any batch strides; the matrix dimensions are the last two, with
    the rules above) compute every matrix of the batch in one launch,
    `bias` shared by all (as `torch.baddbmm` with a broadcast bias). Row,
    column and block scales take 2-D views only.

    Batch-reduce (`linalg.batch_reduce_matmul`): 3-D A `[batch, M, K]` and
    B `[batch, K, N]` with a 2-D C `[M, N]` compute the sum of the batch's
    products, C = act(alpha * sum_b A[b] B[b] + beta * C + bias), in one
    launch (each program's K loop runs through every matrix of the batch).
    No scales.

    Grouped (MoE experts, `torch._grouped_mm`): with `group_offsets`, a 1-D
    i32 view of E cumulative row ends, A is `[M, K]` and C `[M, N]` with
    the rows of every group stacked, and B is 3-D `[E, K, N]`: group g's
    rows `[offsets[g - 1], offsets[g])` (from 0 for g = 0) are multiplied by
    matrix g of B, in one launch. Groups may be empty; C's rows past the
    last offset are not written. The offsets are read on the device (no
    host synchronization) and must not change while the kernel runs.
    Scales take no grouped form.

    Split-K (`config <split_k = S>` with S > 1, for shapes whose tiles are
    too few to fill the chip, as decode GEMMs with a deep K): each of S
    programs per tile sums one of S ranges of K steps, and the op runs as
    two kernels launched in order with the same arguments, `stage` naming
    the one a kernel computes: `partial` stores each range's f32 sums in
    the `workspace`, an f32 view `[S, M, N]` (contiguous along N; the op
    writes and reads it), and `reduce` adds the S partial sums of each
    element in range order and applies the epilogue (alpha, scales, beta,
    bias, activation) once, so the result is the same bits on every run.
    `tile-split-stages` replaces a kernel `@k` holding the op without a
    stage by `@k_partial` and `@k_reduce`. Split-K takes 2-D views, no
    block scales and no i8 inputs.

    The op must be the only computation of its `tile.kernel`;
    `tile-expand-named-ops{chip=...}` replaces the kernel body with a block
    program, sets the launch grid and the number of warps. A `config`
    (`#tile.gemm_config`) overrides fields of the per-chip choice: block
    tile, ring depth, warps, rasterization group, and on sm_90a the
    warp-specialized kernel, its register budgets, the TMA-store epilogue
    and thread-block clusters.

    ```mlir
    tile.gemm %a, %b, %c bias(%bias) activation(gelu)
        : !tile.view<?x?xbf16, strides = [?, 1]>,
          !tile.view<?x?xbf16, strides = [1, ?]>,
          !tile.view<?x?xbf16, strides = [?, 1]>,
          !tile.view<?xbf16, strides = [1]>
    tile.gemm %x, %w, %y group_offsets(%offs : !tile.view<?xi32, strides = [1]>)
        : !tile.view<?x?xbf16, strides = [?, 1]>,
          !tile.view<?x?x?xbf16, strides = [?, 1, ?]>,
          !tile.view<?x?xbf16, strides = [?, 1]>
    tile.gemm %x, %w, %y workspace(%ws : !tile.view<4x?x?xf32, strides = [?, ?, 1]>)
        config <split_k = 4>
        : !tile.view<?x?xbf16, strides = [?, 1]>,
          !tile.view<?x?xbf16, strides = [1, ?]>,
          !tile.view<?x?xbf16, strides = [?, 1]>
    ```
  }];
  let arguments = (ins Tile_ViewType:$a, Tile_ViewType:$b, Tile_ViewType:$c,
                       Optional<Tile_ViewType>:$group_offsets,
                       Optional<Tile_ViewType>:$workspace,
                       Optional<F32>:$alpha, Optional<F32>:$beta,
                       Optional<Tile_ViewType>:$scale_a,
                       Optional<Tile_ViewType>:$scale_b,
                       Optional<Tile_ViewType>:$bias,
                       DefaultValuedAttr<Tile_Activation,
                           "::mlir::tilec::tile::Activation::None">:$activation,
                       DefaultValuedAttr<Tile_DotPrecision,
                           "::mlir::tilec::tile::DotPrecision::IEEE">:$precision,
                       OptionalAttr<Tile_GemmStage>:$stage,
                       OptionalAttr<Tile_GemmConfigAttr>:$config);
  let assemblyFormat = [{
    $a `,` $b `,` $c
    (`group_offsets` `(` $group_offsets^ `:` qualified(type($group_offsets))
     `)`)?
    (`workspace` `(` $workspace^ `:` qualified(type($workspace)) `)`)?
    (`alpha` `(` $alpha^ `)`)? (`beta` `(` $beta^ `)`)?
    (`scale_a` `(` $scale_a^ `:` qualified(type($scale_a)) `)`)?
    (`scale_b` `(` $scale_b^ `:` qualified(type($scale_b)) `)`)?
    (`bias` `(` $bias^ `)`)? (`activation` `(` $activation^ `)`)?
    (`precision` `(` $precision^ `)`)? (`stage` `(` $stage^ `)`)?
    (`config` $config^)? attr-dict
    `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($c))
    (`,` qualified(type($bias))^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when B is stored column-major (contiguous along K).
    bool isRhsColumnMajor();
    /// 1 for a batched GEMM (3-D views `[batch, rows, cols]`), else 0: the
    /// matrix dimensions of A, B and C start at this index.
    unsigned getBatchRank() { return getA().getType().getRank() - 2; }
    /// True for a grouped GEMM (`group_offsets`): 2-D A and C, 3-D B.
    bool isGrouped() { return static_cast<bool>(getGroupOffsets()); }
    /// True for a batch-reduce GEMM: 3-D A and B, 2-D C (the sum of the
    /// batch's products).
    bool isBatchReduce() {
      return !isGrouped() && getA().getType().getRank() == 3 &&
             getC().getType().getRank() == 2;
    }
    /// True with 2-D (block) scales: 1x128 for A, 128x128 for B.
    bool isBlockScaled();
    /// The K ranges of a split-K GEMM (`config <split_k = S>`), else 1.
    int64_t getSplitK();
    /// The side of a scale block (K blocks of A's rows, B's square blocks).
    static constexpr int64_t kScaleBlock = 128;
  }];
}

def Tile_AttentionOp : Tile_Op<"attention", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<Tile_StagedOpInterface>]> {
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
    256. Expanded by `tile-expand-named-ops{chip=...}`; a `config`
    (`#tile.attention_config`) overrides fields of the per-chip choice:
    queries and keys per step, warps, K/V ring depth, and on sm_90a the
    warp-specialized schedule (ping-pong, TMA-store epilogue, persistence,
    and whether the scheduling passes or the hand-built schedule build it).

    FP8 (FlashAttention-3's recipe, sm_89 and sm_90a): Q, K and V in
    `f8E4M3FN` (or `f8E5M2`), O in bf16, f16 or f32, and three `descale`
    factors (each input is its FP8 tensor times its descale): either three
    f32 values (per tensor) or three 2-D f32 views `[batch, kv_heads]` (per
    batch and K/V head, FlashAttention-3's descale tensors; the query heads
    of a group share their K/V head's Q descale). Each program reads its
    own factors from the views, so they can be computed on the device
    (stride 0 broadcasts one factor). S = Q Kᵀ and O = P V run on FP8 tensor
    cores, P is quantized to e4m3 after the online softmax, and V must be
    contiguous along seq (V transposed in memory, strides `[?, ?, 1, ?]`):
    FP8 wgmma reads its B operand K-major only.

    `score_mod` (FlexAttention's): a region that rewrites each score after
    the scale and before the mask, with block arguments the score (f32), the
    batch, the query head, the query index and the key index (i32), ending
    in `tile.yield` of the new score (f32). It may hold elementwise `arith`
    and `math` ops (and scalar constants), use scalar values defined above
    it (kernel parameters), and read tables with `tile.load_scalar` of a
    view made above it: at indices the same for the whole block (the
    batch, the head: ALiBi's slope per head) or, in the view's last index,
    at the query or key index plus such an offset (document ids per
    token). A score of -inf drops the key. The expansion applies it to each
    block of scores as tile ops (a table read along the query or key index
    becomes one load of the block's row of the table), which the
    scheduling passes schedule like any other (not with FP8 inputs yet).
    `mask_mod` (also FlexAttention's) says which keys a query sees: block
    arguments the batch, head, query and key indices (i32), ending in
    `tile.yield` of an i1 (true: visible). It takes the same ops, and
    applies after `score_mod`, together with `causal` and the keys' end.
    It is evaluated in every block the key loop visits, and bounds the
    loop where it can: its comparisons of the key with sums and differences
    of the query, constants and i32 values from above (taken not to
    overflow) bound the keys a query block may see, from below (`query -
    key < window`: a sliding window) or above (`key <= query`, `key <
    prefix`), through `arith.andi` (the tighter end) and `arith.ori` (the
    looser, where both sides bound it). The loop then runs over those
    keys' blocks only (within `causal`'s and the keys' end): the blocks
    outside are masked for every row. Masks on loaded data (document ids)
    visit every block, unless the op has a block list.

    Block skipping by data (FlexAttention's block mask): with
    `block_list(%num, %indices)`, i32 views `[batch, heads, query_blocks]`
    and `[batch, heads, query_blocks, max_blocks]` (a stride 0 broadcasts
    one batch or head), the queries of block `qb` (128 queries: `q / 128`)
    visit only the `num[b, h, qb]` key blocks of 128 keys listed in
    `indices[b, h, qb, :]`, in any order (a block past the keys' end is
    masked). Within them the mask applies as without the list (`causal`,
    the keys' end, `mask_mod`), so a list that names more blocks than the
    mask keeps changes nothing but the time. With `full_blocks(%full)`
    (i32 `[batch, heads, query_blocks]`), the first `full[b, h, qb]` listed
    blocks are wholly visible under `mask_mod`, which they skip (the keys'
    end and `causal` still apply); the rest evaluate it. The kernel's query and key
    blocks must each lie within one of the list's (block_m and block_n
    dividing 128). Not with split-KV, `pack_gqa`, varlen or a paged cache.

    Serving (decode against a KV cache). `seqused_k`, a 1-D i32 view
    `[batch]`, gives each batch's number of keys (at most Sk; keys past it
    are not read, and `causal` aligns to it). Split-KV (`config <splits =
    S>`, S > 1): each query block's keys are cut into S ranges of whole key
    blocks, and the op runs as two kernels launched in order with the same
    arguments, `stage` naming the one a kernel computes: `split` writes each
    range's normalized O and natural-log log-sum-exp to the `workspace`, an
    f32 view `[S, rows, head_dim]` and an f32 view `[S, rows]` (rows =
    batch x heads x seq, in that order; contiguous along their last
    dimension; the op writes and reads them), and `combine` merges the S
    partial results of each query by their log-sum-exp into O (and `lse`).
    `tile-split-stages` replaces a kernel `@k` holding the op without a
    stage by `@k_split` and `@k_combine`. With `pack_gqa` (the default
    where Q's type has seq dimension 1 and there is no score_mod or
    mask_mod), the query heads sharing a K/V head are the rows of one query
    block: one program streams each K/V head once for all of them. Paged
    KV caches (vLLM's): with `block_table`, a 2-D i32 view `[batch,
    max_pages]`, K and V are views `[pages, kv_heads, page_size, head_dim]`
    of the page pool (page_size static, a power of two from 16 to 256), key
    `j` of batch `b` is row `j mod page_size` of page `block_table[b, j /
    page_size]`, and `seqused_k` is required (the keys end there; pages past
    it are not read). A key block never spans pages: blocks are at most a
    page. A page index outside the pool reads zeros (TMA and the threads'
    loads stay within the pool's view).

    Variable-length batches (FlashAttention's varlen): with
    `cu_seqlens(%cu_q, %cu_k)`, two 1-D i32 views `[batch + 1]` of
    cumulative sequence lengths, and `max_seqlen_q(%m)` (an i32 kernel
    parameter, at least every sequence's query count: it sizes the grid),
    Q and O are views `[1, heads, total_q, head_dim]` of the packed tokens
    of all sequences (`lse` `[1, heads, total_q]`) and K and V `[1,
    kv_heads, total_k, head_dim]`: sequence `b` is Q's tokens
    `[cu_q[b], cu_q[b + 1])` against K's `[cu_k[b], cu_k[b + 1])`
    (`seqused_k`, if given, ends its keys sooner), and `causal` aligns to
    each sequence's bottom right. An empty sequence writes nothing; a
    sequence with queries and no keys writes O = 0 and lse = -inf. Rows
    are written only within their sequence (O's store is masked, so it
    does not leave through TMA), and Q/K/V's loads stay within the views:
    lengths past `max_seqlen_q` or cumulative lengths past the views are
    never written outside O. Not with `block_table`, split-KV, `pack_gqa`,
    score_mod or mask_mod.

    ```mlir
    tile.attention %q, %k, %v, %o lse(%lse) causal
        : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, ...
    // Gemma 2's logit softcap: cap * tanh(s / cap).
    tile.attention %q, %k, %v, %o score_mod {
    ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
      %t = arith.divf %s, %cap fastmath<afn> : f32
      %th = math.tanh %t fastmath<afn> : f32
      %r = arith.mulf %th, %cap : f32
      tile.yield %r : f32
    } : ...
    tile.attention %q8, %k8, %vt8, %o descale(%dq, %dk, %dv)
        : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, ...,
          !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>,
          !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
    tile.attention %q8, %k8, %vt8, %o descale(%dq, %dk, %dv
        : !tile.view<?x?xf32, strides = [?, ?]>, ...) : ...
    // Decode: one query per head, each batch's cache length, 8 key ranges.
    tile.attention %q, %kc, %vc, %o seqused_k(%lens : !tile.view<?xi32, strides = [1]>)
        workspace(%wo, %wl : !tile.view<8x?x128xf32, strides = [?, ?, 1]>,
                             !tile.view<8x?xf32, strides = [?, 1]>)
        config <splits = 8>
        : !tile.view<?x?x1x128xbf16, strides = [?, ?, ?, 1]>, ...
    // Packed variable-length sequences ([total, heads, head_dim] tensors).
    tile.attention %q, %k, %v, %o cu_seqlens(%cq, %ck
        : !tile.view<?xi32, strides = [1]>, !tile.view<?xi32, strides = [1]>)
        max_seqlen_q(%mq) causal
        : !tile.view<1x?x?x128xbf16, strides = [?, 128, ?, 1]>, ...
    ```
  }];
  let arguments = (ins Tile_ViewType:$q, Tile_ViewType:$k, Tile_ViewType:$v,
                       Tile_ViewType:$o, Optional<Tile_ViewType>:$lse,
                       Variadic<AnyTypeOf<[F32, Tile_ViewType]>>:$descales,
                       Optional<Tile_ViewType>:$seqused_k,
                       Optional<Tile_ViewType>:$block_table,
                       Optional<Tile_ViewType>:$cu_seqlens_q,
                       Optional<Tile_ViewType>:$cu_seqlens_k,
                       Optional<I32>:$max_seqlen_q,
                       Optional<Tile_ViewType>:$kv_num_blocks,
                       Optional<Tile_ViewType>:$kv_indices,
                       Optional<Tile_ViewType>:$kv_full_blocks,
                       Optional<Tile_ViewType>:$workspace_o,
                       Optional<Tile_ViewType>:$workspace_lse,
                       OptionalAttr<F32Attr>:$scale, UnitAttr:$causal,
                       OptionalAttr<Tile_AttentionStage>:$stage,
                       OptionalAttr<Tile_AttentionConfigAttr>:$config);
  let regions = (region AnyRegion:$score_mod, AnyRegion:$mask_mod);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $o (`lse` `(` $lse^ `)`)?
    (`descale` `(` custom<Descales>($descales, type($descales))^)?
    (`seqused_k` `(` $seqused_k^ `:` qualified(type($seqused_k)) `)`)?
    (`block_table` `(` $block_table^ `:` qualified(type($block_table)) `)`)?
    (`cu_seqlens` `(` $cu_seqlens_q^ `,` $cu_seqlens_k `:`
     qualified(type($cu_seqlens_q)) `,` qualified(type($cu_seqlens_k)) `)`)?
    (`max_seqlen_q` `(` $max_seqlen_q^ `)`)?
    (`block_list` `(` $kv_num_blocks^ `,` $kv_indices `:`
     qualified(type($kv_num_blocks)) `,` qualified(type($kv_indices)) `)`)?
    (`full_blocks` `(` $kv_full_blocks^ `:` qualified(type($kv_full_blocks))
     `)`)?
    (`workspace` `(` $workspace_o^ `,` $workspace_lse `:`
     qualified(type($workspace_o)) `,` qualified(type($workspace_lse)) `)`)?
    (`scale` `(` $scale^ `)`)?
    (`causal` $causal^)? (`stage` `(` $stage^ `)`)? (`config` $config^)?
    (`score_mod` $score_mod^)?
    (`mask_mod` $mask_mod^)?
    attr-dict
    `:` qualified(type($q)) `,` qualified(type($k)) `,` qualified(type($v))
    `,` qualified(type($o)) (`,` qualified(type($lse))^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The score_mod region's block, or null without one.
    ::mlir::Block *getScoreModBlock() {
      return getScoreMod().empty() ? nullptr : &getScoreMod().front();
    }
    /// The mask_mod region's block, or null without one.
    ::mlir::Block *getMaskModBlock() {
      return getMaskMod().empty() ? nullptr : &getMaskMod().front();
    }
    /// Whether the descales are 2-D views [batch, kv_heads] (per batch and
    /// K/V head) rather than f32 values (per tensor).
    bool hasDescaleViews() {
      return !getDescales().empty() &&
             ::llvm::isa<ViewType>(getDescales().front().getType());
    }
    /// The key ranges of a split-KV attention (`config <splits = S>`),
    /// else 1.
    int64_t getSplits();
    /// True for packed variable-length sequences (`cu_seqlens`).
    bool isVarlen() { return static_cast<bool>(getCuSeqlensQ()); }
    /// The queries and keys of a block of a `block_list`.
    static constexpr int64_t kListBlock = 128;
  }];
}

def Tile_AttentionBackwardOp : Tile_Op<"attention_backward", [
    AttrSizedOperandSegments, MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<Tile_StagedOpInterface>]> {
  let summary = "dQ, dK, dV of tile.attention from Q, K, V, O, dO and the lse";
  let description = [{
    The gradients of `tile.attention` (FlashAttention-2's backward) over 4-D
    global views `[batch, heads, seq, head_dim]` (contiguous head
    dimension), bf16 or f16, head dims 64, 128 and 256 (the `atomic` mode:
    64 and 128): Q, O, dO and dQ have
    `Hq` heads, K and V `Hkv` heads dividing `Hq`. dK and dV are K's and
    V's gradients, `[batch, Hkv, Sk, head_dim]`, when the op has
    `expanded(%dk_h, %dv_h)`: two `[batch, Hq, Sk, head_dim]` scratch views
    of one gradient per query head, which a last stage sums over each group
    of query heads. Without it dK and dV are those per-query-head gradients
    themselves, `[batch, Hq, Sk, head_dim]` (the gradients of K and V when
    `Hq = Hkv`; with grouped-query attention the caller sums each group, as
    FlashAttention-2 does). `lse` is the forward's natural-log row log-sum-exp `[batch, Hq,
    Sq]` (f32, `tile.attention`'s `lse`). With `causal`, query `i` sees key
    `j <= i + (Sk - Sq)` (the forward's bottom-right aligned mask). `scale`
    is an optional f32 value, the forward's softmax scale (default
    `1/sqrt(head_dim)`).

    `scratch(%lse2, %delta)` are two f32 `[batch, Hq, Sq]` views (contiguous
    along seq) the op writes and reads: the lse in the exp2 domain and
    `Delta = rowsum(dO * O)`. The `atomic` mode (FlashAttention-2's own)
    computes dQ in the dK/dV kernel and adds it into a third scratch view,
    an f32 `[batch, Hq, Sq, head_dim]` accumulator, with `tile.atomic_add`:
    five products per pair of blocks instead of seven, but dQ may differ in
    its last bits from run to run. Without it dQ has its own kernel and is
    the same bits on every run.

    The backward is several kernels, launched in order with the same
    arguments; `stage` names the one a kernel computes:

    | mode | stages, in launch order |
    | --- | --- |
    | deterministic | `pre` (lse2, Delta), `dq`, `dkdv` |
    | `atomic` | `pre_zero_dq` (also zeroes the accumulator), `dkdv_dq`, `dq_scale` (dQ = accumulator * scale) |

    With `expanded`, both modes end with `dkdv_sum` (dK and dV as sums of
    the per-query-head gradients, in f32, rounded once).

    `tile-split-stages` replaces a kernel `@k` holding the op
    without a `stage` by one kernel per stage, `@k_pre`, `@k_dq`, ... (the
    same parameters, each the op with its stage), and
    `tile-expand-named-ops{chip=...}` writes each stage's block program: on
    sm_90a TMA rings, wgmma and warp specialization, on sm_80 / sm_89
    cp.async rings and mma.sync, from the tiles of the chip's rule. The op
    must be the only computation of its kernel. A `config`
    (`#tile.attention_backward_config`) overrides the rule's tiles.

    ```mlir
    tile.attention_backward %q, %k, %v, %o, %do, %lse
        grads(%dq, %dk, %dv) scratch(%lse2, %delta) causal
        : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, ... (11 types)
    tile.attention_backward %q, %k, %v, %o, %do, %lse
        grads(%dq, %dk, %dv) scratch(%lse2, %delta, %acc : !tile.view<...>)
        expanded(%dkh, %dvh : !tile.view<...>, !tile.view<...>) atomic
        : ...
    ```
  }];
  let arguments = (ins Tile_ViewType:$q, Tile_ViewType:$k, Tile_ViewType:$v,
                       Tile_ViewType:$o, Tile_ViewType:$dout,
                       Tile_ViewType:$lse, Tile_ViewType:$dq,
                       Tile_ViewType:$dk, Tile_ViewType:$dv,
                       Tile_ViewType:$lse2, Tile_ViewType:$delta,
                       Optional<Tile_ViewType>:$dq_accum,
                       Optional<Tile_ViewType>:$dk_expanded,
                       Optional<Tile_ViewType>:$dv_expanded,
                       Optional<F32>:$scale, UnitAttr:$causal,
                       UnitAttr:$atomic,
                       OptionalAttr<Tile_AttentionBackwardStage>:$stage,
                       OptionalAttr<Tile_AttentionBackwardConfigAttr>:$config);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $o `,` $dout `,` $lse
    `grads` `(` $dq `,` $dk `,` $dv `)`
    `scratch` `(` $lse2 `,` $delta
      (`,` $dq_accum^ `:` qualified(type($dq_accum)))? `)`
    (`expanded` `(` $dk_expanded^ `,` $dv_expanded `:`
      qualified(type($dk_expanded)) `,` qualified(type($dv_expanded)) `)`)?
    (`scale` `(` $scale^ `)`)? (`causal` $causal^)? (`atomic` $atomic^)?
    (`stage` `(` $stage^ `)`)? (`config` $config^)? attr-dict
    `:` qualified(type($q)) `,` qualified(type($k)) `,` qualified(type($v))
    `,` qualified(type($o)) `,` qualified(type($dout))
    `,` qualified(type($lse)) `,` qualified(type($dq))
    `,` qualified(type($dk)) `,` qualified(type($dv))
    `,` qualified(type($lse2)) `,` qualified(type($delta))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The stages of this op's mode, in launch order.
    ::llvm::SmallVector<AttentionBackwardStage, 4> getModeStages();
    /// Where the dK/dV stage stores dK and dV: the per-query-head scratch
    /// views with `expanded`, else dK and dV.
    ::mlir::Value getDkPerQueryHead() {
      return getDkExpanded() ? getDkExpanded() : getDk();
    }
    ::mlir::Value getDvPerQueryHead() {
      return getDvExpanded() ? getDvExpanded() : getDv();
    }
  }];
}

#endif // TILEC_DIALECT_TILE_IR_TILEPROGRAMOPS_TD
