"""Tile-program sources for the named kernels (tile.gemm, tile.attention).

These generate the .mlir text that ``tilec`` compiles; the Python API, the
benchmarks and the tests share them so that the kernels measured are the ones
users get.
"""

import re

from . import _rules

_DTYPES = ("bf16", "f16", "f32")
#: The float8 dtypes (tilec names) and how f32 inputs may multiply.
FP8_DTYPES = ("f8e4m3", "f8e5m2")
PRECISIONS = ("tf32", "tf32x3", "ieee")
#: MLIR spelling of a tilec dtype name where they differ.
_MLIR_TYPES = {"f8e4m3": "f8E4M3FN", "f8e5m2": "f8E5M2"}
_ACTIVATIONS = (None, "relu", "gelu", "silu")


def default_out_dtype(dtype):
    """bf16 for fp8 inputs (as torch._scaled_mm), i32 for i8 (as
    torch._int_mm), else the input dtype."""
    return "bf16" if dtype in FP8_DTYPES else "i32" if dtype == "i8" else dtype


def gemm_name(dtype="bf16", out_dtype=None, b_layout="row", bias=False,
              activation=None, alpha=False, beta=False, precision=None, b_dtype=None,
              scale_a=False, scale_b=False, block_scales=False, batched=False, grouped=False):
    out_dtype = out_dtype or default_out_dtype(dtype)
    parts = ["gemm"] + (["batched"] if batched else []) + (["grouped"] if grouped else [])
    parts += [dtype]
    parts += [b_dtype] if b_dtype and b_dtype != dtype else []
    parts += [out_dtype, "b" + b_layout]
    if precision:
        parts.append(precision)
    if block_scales:
        parts.append("block_scales")
    else:
        parts += [name for name, on in (("scale_a", scale_a), ("scale_b", scale_b)) if on]
    if alpha:
        parts.append("alpha")
    if beta:
        parts.append("beta")
    if bias:
        parts.append("bias")
    if activation:
        parts.append(activation)
    return "_".join(parts)


def config_clause(config):
    """`` config <key = value, ...>`` of a named op (``""`` for none): the
    op's typed configuration (``#tile.gemm_config`` /
    ``#tile.attention_config``), whose verifier names a field it does not
    know. Values are written as integers (flags 0 or 1, which the compiler
    reads as false / true), so that ``{"tma_store": False}`` and the shape
    rule's ``{"tma_store": 0}`` give one source text, hence one artifact."""
    if not config:
        return ""
    return " config <" + ", ".join(f"{k} = {int(v)}" for k, v in sorted(config.items())) + ">"


def gemm_source(dtype="bf16", out_dtype=None, b_layout="row", bias=False,
                activation=None, alpha=False, beta=False, config=None, name=None,
                precision=None, b_dtype=None, scale_a=False, scale_b=False,
                block_scales=False, batched=False, grouped=False):
    """A kernel computing
    C = act(alpha * scale_a[m] * scale_b[n] * A @ B + beta * C + bias).

    A is M x K row-major, B K x N row-major (``b_layout="row"``) or
    column-major (``"col"``, i.e. an N x K row-major buffer), C M x N
    row-major. Inputs bf16, f16, f32, fp8 (``f8e4m3``/``f8e5m2``, B's
    ``b_dtype`` may be the other one) or i8 (i32 output, no epilogue, B
    column-major); f32 inputs need ``precision``
    (``"tf32"`` or ``"tf32x3"``, tile.gemm's), f32 and fp8 a column-major B,
    fp8 a bf16, f16 or f32 output (default bf16). ``scale_a``/``scale_b``:
    f32 vectors of M and N row and column scales. ``block_scales`` (fp8,
    with both scales): DeepGEMM's block scales instead, SA [KB, M] (one per
    row and 128-wide K block) and SB [NB, KB] (one per 128x128 block of B),
    rows ``ldsa`` / ``ldsb`` apart, KB = ceil(K / 128), NB = ceil(N / 128).
    Parameters: A, B, C, [bias], [alpha], [beta], [SA], [SB], M, N, K,
    [KB, NB, ldsa, ldsb], lda, ldb, ldc.

    ``batched``: ``batch`` such GEMMs in one launch (torch.bmm's problem):
    A, B and C are 3-D views [batch, rows, cols] whose matrices lie ``sa``,
    ``sb`` and ``sc`` elements apart (any batch strides), the bias is shared
    by all of them; no scales. Parameters: A, B, C, [bias], [alpha],
    [beta], batch, M, N, K, lda, ldb, ldc, sa, sb, sc.

    ``grouped``: a grouped GEMM (MoE experts, torch._grouped_mm's problem)
    in one launch: A [M, K] and C [M, N] hold the rows of ``groups`` groups
    stacked, B is 3-D [groups, K, N] (matrices ``sb`` elements apart), and
    ``offsets`` (i32, ``groups`` elements, read on the device) are the
    groups' cumulative row ends: group g's rows [offsets[g - 1],
    offsets[g]) (from 0 for g = 0) multiply matrix g of B; C's rows past
    the last offset are not written. The bias is shared by all groups; no
    scales. Parameters: A, B, C, [bias], [alpha], [beta], offsets, groups,
    M, N, K, lda, ldb, ldc, sb.

    ``config`` with ``split_k`` S > 1 (2-D, no block scales, no i8): the
    kernel is two, ``<name>_partial`` and ``<name>_reduce`` (see
    :func:`gemm_stage_names`), launched in that order with the same
    arguments, and takes an f32 workspace W [S, M, N] (rows ``ldw``, matrices
    ``sw`` elements apart; 16-byte aligned, ``ldw`` and ``sw`` multiples of
    4) for the partial products. Parameters: as above, then W (after the
    scales), and ``ldw``, ``sw`` last.
    """
    b_dtype = b_dtype or dtype
    out_dtype = out_dtype or default_out_dtype(dtype)
    split_k = int((config or {}).get("split_k", 1))
    _check_gemm_variant(dtype, out_dtype, b_layout, bias, activation, alpha, beta, precision,
                        b_dtype, scale_a, scale_b, block_scales, batched, grouped, split_k)
    name = name or gemm_name(dtype, out_dtype, b_layout, bias, activation, alpha, beta,
                             precision, b_dtype, scale_a, scale_b, block_scales, batched,
                             grouped)
    a_type, b_type = _MLIR_TYPES.get(dtype, dtype), _MLIR_TYPES.get(b_dtype, b_dtype)
    params = _gemm_params(a_type, b_type, out_dtype, bias, alpha, beta, scale_a, scale_b,
                          block_scales, batched, grouped, split_k)
    lines, types = _gemm_views(a_type, b_type, out_dtype, b_layout, batched, grouped)
    lines.insert(0, f"tile.kernel @{name}({', '.join(params)}) {{")
    extras = _gemm_operands(lines, types, out_dtype, bias, alpha, beta, scale_a, scale_b,
                            block_scales, grouped, split_k)
    if activation:
        extras += f" activation({activation})"
    if precision:
        extras += f" precision({precision})"
    extras += config_clause(config)
    lines.append(f"  tile.gemm %a, %b, %c{extras} : {', '.join(types)}")
    lines += ["  tile.return", "}", ""]
    return name, "\n".join(lines)


def _check_gemm_variant(dtype, out_dtype, b_layout, bias, activation, alpha, beta, precision,
                        b_dtype, scale_a, scale_b, block_scales, batched, grouped, split_k):
    """Raises ValueError for a combination :func:`gemm_source` cannot write
    (``out_dtype`` and ``b_dtype`` given or defaulted)."""
    fp8, int8 = dtype in FP8_DTYPES, dtype == "i8"
    if ((dtype not in _DTYPES + FP8_DTYPES and not int8)
            or (out_dtype != "i32" if int8 else out_dtype not in _DTYPES)
            or (b_dtype != dtype and not (fp8 and b_dtype in FP8_DTYPES))):
        raise ValueError(f"unsupported gemm types {dtype} x {b_dtype} -> {out_dtype}")
    if (fp8 or int8 or dtype == "f32") and b_layout != "col":
        what = "TF32" if dtype == "f32" else "8-bit"
        raise ValueError(f"{dtype} inputs need a column-major B ({what} operands are read "
                         f"K-major)")
    if batched and grouped:
        raise ValueError("a GEMM is batched or grouped, not both (grouped: 2-D A and C, "
                         "3-D B)")
    if (batched or grouped) and (scale_a or scale_b or block_scales):
        raise ValueError(f"a {'batched' if batched else 'grouped'} GEMM takes no "
                         f"scale_a / scale_b")
    if block_scales and not (fp8 and scale_a and scale_b):
        raise ValueError("block scales need fp8 inputs and both scale_a and scale_b")
    if int8 and (bias or activation or alpha or beta or scale_a or scale_b):
        raise ValueError("i8 inputs take no epilogue (torch._int_mm's exact i32 sums)")
    if (dtype == "f32") != (precision is not None) or (precision and precision not in PRECISIONS):
        raise ValueError(f"f32 inputs need precision 'tf32', 'tf32x3' or 'ieee', other inputs "
                         f"none; got "
                         f"{dtype} with precision {precision!r}")
    if b_layout not in ("row", "col"):
        raise ValueError(f"b_layout must be 'row' or 'col', not {b_layout!r}")
    if activation not in _ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}")
    if split_k > 1 and (batched or grouped or block_scales or int8):
        raise ValueError("split_k needs a 2-D GEMM without block scales or i8 inputs")


def _gemm_params(a_type, b_type, out_dtype, bias, alpha, beta, scale_a, scale_b,
                 block_scales, batched, grouped, split_k):
    """The kernel parameters of :func:`gemm_source`, in order."""
    params = [f"%A: !tile.ptr<{a_type}>", f"%B: !tile.ptr<{b_type}>",
              f"%C: !tile.ptr<{out_dtype}>"]
    if bias:
        params.append(f"%bias: !tile.ptr<{out_dtype}>")
    if alpha:
        params.append("%alpha: f32")
    if beta:
        params.append("%beta: f32")
    if scale_a:
        params.append("%SA: !tile.ptr<f32>")
    if scale_b:
        params.append("%SB: !tile.ptr<f32>")
    params += ["%W: !tile.ptr<f32>"] if split_k > 1 else []
    params += ["%batch: i32"] if batched else []
    params += ["%offsets: !tile.ptr<i32>", "%groups: i32"] if grouped else []
    params += ["%M: i32", "%N: i32", "%K: i32"]
    if block_scales:
        params += ["%KB: i32", "%NB: i32", "%ldsa: i32", "%ldsb: i32"]
    params += ["%lda: i32", "%ldb: i32", "%ldc: i32"]
    params += ["%sa: i32", "%sb: i32", "%sc: i32"] if batched else []
    params += ["%sb: i32"] if grouped else []
    params += ["%ldw: i32", "%sw: i32"] if split_k > 1 else []
    return params


def _gemm_views(a_type, b_type, out_dtype, b_layout, batched, grouped):
    """(lines, types): the make_view lines of A, B and C and their view
    types."""
    b_strides, b_type_strides = (("%ldb, 1", "?, 1") if b_layout == "row"
                                 else ("1, %ldb", "1, ?"))
    # A batched GEMM's views lead with the batch, the matrices sa / sb / sc
    # elements apart; a grouped GEMM's B with the group, sb apart.
    lead, lead_type, lead_stride = ("%batch, ", "?x", "?, ") if batched else ("", "", "")
    sa, sb, sc = ("%sa, ", "%sb, ", "%sc, ") if batched else ("", "", "")
    b_lead, b_lead_type, b_lead_stride, sb = (("%groups, ", "?x", "?, ", "%sb, ") if grouped
                                              else (lead, lead_type, lead_stride, sb))
    lines = [f"  %a = tile.make_view %A[{lead}%M, %K] strides [{sa}%lda, 1] : "
             f"!tile.ptr<{a_type}>",
             f"  %b = tile.make_view %B[{b_lead}%K, %N] strides [{sb}{b_strides}] : "
             f"!tile.ptr<{b_type}>",
             f"  %c = tile.make_view %C[{lead}%M, %N] strides [{sc}%ldc, 1] : "
             f"!tile.ptr<{out_dtype}>"]
    types = [f"!tile.view<{lead_type}?x?x{a_type}, strides = [{lead_stride}?, 1]>",
             f"!tile.view<{b_lead_type}?x?x{b_type}, strides = [{b_lead_stride}{b_type_strides}]>",
             f"!tile.view<{lead_type}?x?x{out_dtype}, strides = [{lead_stride}?, 1]>"]
    return lines, types


def _gemm_operands(lines, types, out_dtype, bias, alpha, beta, scale_a, scale_b, block_scales,
                   grouped, split_k):
    """The tile.gemm clauses of the optional operands (offsets, workspace,
    alpha, beta, scales, bias); appends their make_view lines to ``lines``
    and the bias's view type to ``types``."""
    extras = ""
    if grouped:
        lines.append("  %o = tile.make_view %offsets[%groups] strides [1] : !tile.ptr<i32>")
        extras += " group_offsets(%o : !tile.view<?xi32, strides = [1]>)"
    if split_k > 1:
        lines.append(f"  %w = tile.make_view %W[{split_k}, %M, %N] strides [%sw, %ldw, 1] : "
                     f"!tile.ptr<f32>")
        extras += f" workspace(%w : !tile.view<{split_k}x?x?xf32, strides = [?, ?, 1]>)"
    if alpha:
        extras += " alpha(%alpha)"
    if beta:
        extras += " beta(%beta)"
    vector = "!tile.view<?xf32, strides = [1]>"
    if block_scales:
        blocks = "!tile.view<?x?xf32, strides = [?, 1]>"
        lines.append("  %sa = tile.make_view %SA[%KB, %M] strides [%ldsa, 1] : !tile.ptr<f32>")
        lines.append("  %sb = tile.make_view %SB[%NB, %KB] strides [%ldsb, 1] : !tile.ptr<f32>")
        extras += f" scale_a(%sa : {blocks}) scale_b(%sb : {blocks})"
        scale_a = scale_b = False
    if scale_a:
        lines.append("  %sa = tile.make_view %SA[%M] strides [1] : !tile.ptr<f32>")
        extras += f" scale_a(%sa : {vector})"
    if scale_b:
        lines.append("  %sb = tile.make_view %SB[%N] strides [1] : !tile.ptr<f32>")
        extras += f" scale_b(%sb : {vector})"
    if bias:
        lines.append(f"  %bv = tile.make_view %bias[%N] strides [1] : !tile.ptr<{out_dtype}>")
        extras += " bias(%bv)"
        types.append(f"!tile.view<?x{out_dtype}, strides = [1]>")
    return extras


def gemm_stage_names(name, config):
    """The kernels of GEMM kernel ``name`` with ``config``, in launch order:
    ``[name]``, or ``[name_partial, name_reduce]`` with split-K."""
    if int((config or {}).get("split_k", 1)) > 1:
        return [name + "_partial", name + "_reduce"]
    return [name]


def gemm_shape_config(M, N, K, chip="sm_90a", num_sms=0, can_swap_ab=False,
                      can_split_k=False):
    """Configuration overrides for a GEMM of this shape (``None``: the
    chip's default rule), the dispatch a library does per shape class: the
    compiler's rule (``include/tilec/Rules/ShapeRules.h``, through
    ``libtilec-rules.so``), which tile-expand-named-ops also applies to
    static sizes. ``num_sms``: the device's multiprocessors (0: the count
    the rule is tuned for, 132 on sm_90a). ``can_swap_ab``: the operands
    allow the transposed product (bf16/f16, a column-major B, 2-D, aligned,
    no block scales).

    On sm_90a fewer 128x256 tiles than half the SMs take narrower N tiles
    (``block_n`` 128 or 64), and N that is not a multiple of 8 the epilogue
    without TMA stores (``tma_store = 0``). With ``can_swap_ab``, decode
    shapes (M up to 64, and small-N ones with few tiles) run transposed:
    ``swap_ab = 1`` with C's token x weight tile in ``block_m`` x
    ``block_n``. With ``can_split_k`` (a 2-D GEMM without block scales or
    i8 inputs, whose caller passes a workspace), shapes whose tiles fill at
    most half the SMs also split K: ``split_k``, up to one wave of programs
    (``num_sms`` matters here: pass the device's count).
    """
    return _rules.gemm_shape_config(M, N, K, chip, num_sms, can_swap_ab, can_split_k)


#: tile.gemm's block scales cover 1x128 of A and 128x128 of B: a tile's
#: columns share one block of B's scales.
GEMM_SCALE_BLOCK = 128


def gemm_dispatch_config(M, N, K, chip="sm_90a", num_sms=0, *, dtype="bf16", b_layout="row",
                         scales=False, block_scales=False, aligned=True):
    """The shape class :func:`tilec.gemm` takes for an ``M`` x ``N`` x ``K``
    product without ``config=`` (``None``: the default kernel): the
    compiler's rule (:func:`gemm_shape_config`) with what the operands
    allow. ``dtype``: the inputs' element type; ``b_layout``: ``"row"`` or
    ``"col"``; ``scales``: per-row/column scales given; ``block_scales``:
    block scales given; ``aligned``: operands the fast path reads (16-byte
    aligned bases, rows whole 16-byte chunks). Transposed (decode) tiles
    need bf16/f16 inputs, a column-major B, aligned operands (the transposed
    product reads them by TMA) and no block scales; split-K needs bf16/f16
    inputs and no scales; with block scales a tile is at most one scale
    block wide."""
    sixteen_bit = dtype in ("bf16", "f16")
    config = gemm_shape_config(M, N, K, chip, num_sms,
                               can_swap_ab=(sixteen_bit and b_layout == "col" and aligned
                                            and not block_scales),
                               can_split_k=sixteen_bit and not scales and not block_scales)
    if block_scales and config and config.get("block_n", 0) > GEMM_SCALE_BLOCK:
        config = {f: v for f, v in config.items() if f != "block_n"} or None
    return config


def gemm_unaligned_config(M, N, K, chip="sm_90a", num_sms=0, **operands):
    """The shape class :func:`tilec.gemm` takes for operands the fast path
    cannot read (a base off 16-byte alignment, rows not whole 16-byte
    chunks): the variant for any strides (``aligned = 0``: plain loads,
    staged for wgmma by the threads) with the tiles and split-K of
    :func:`gemm_dispatch_config` for such operands (untransposed;
    ``operands`` as it takes them), and no TMA store."""
    config = dict(gemm_dispatch_config(M, N, K, chip, num_sms, aligned=False, **operands) or {})
    config.pop("tma_store", None)
    config["aligned"] = 0
    return config


def gemm_dispatch_configs(M, N, K, chip="sm_90a", num_sms=0, **operands):
    """Every config :func:`tilec.gemm`'s dispatch may launch for this
    product (``operands``: as :func:`gemm_dispatch_config` takes them), in
    the order it falls back: the shape class, the class without split-K
    (artifacts built without the split kernels), the default kernel
    (``None``), and the variant for operands of any alignment
    (:func:`gemm_unaligned_config`'s class, then ``{"aligned": 0}``). For
    building artifacts ahead of time (no compiler on the GPU machine);
    duplicates are left out."""
    rule = gemm_dispatch_config(M, N, K, chip, num_sms, **operands)
    unsplit = {f: v for f, v in (rule or {}).items() if f != "split_k"} or None
    unaligned = gemm_unaligned_config(M, N, K, chip, num_sms, **operands)
    out = []
    for config in (rule, unsplit, None, unaligned, {"aligned": 0}):
        if config not in out:
            out.append(config)
    return out


def grouped_gemm_shape_config(rows, groups, N, K, chip="sm_90a", num_sms=0, can_swap_ab=False):
    """Configuration overrides for a grouped GEMM (``groups`` problems
    sharing N and K, ``rows`` rows of A in all; ``None``: the default), the
    compiler's rule (``getGroupedGemmShapeConfig`` in
    ``include/tilec/Rules/ShapeRules.h``): with ``can_swap_ab`` (bf16/f16,
    column-major B, aligned operands), groups of a few rows on average
    (decode steps) run transposed on 16-token tiles (``swap_ab = 1``);
    otherwise the tiles :func:`gemm_shape_config` gives ``rows`` x N x K,
    without TMA stores or split-K."""
    return _rules.grouped_gemm_shape_config(rows, groups, N, K, chip, num_sms, can_swap_ab)


def gemm_shape_tag(config):
    """The name suffix of a shape-class variant (``""`` for the default)."""
    if not config:
        return ""
    return "_" + "_".join(f"{k.replace('block_', '')}{int(v)}" for k, v in sorted(config.items()))


def gemm_config_suffix(config):
    """The kernel-name suffix ``tilec.gemm`` gives a configuration."""
    if not config:
        return ""
    return "_" + "_".join(f"{key}{int(value)}" for key, value in sorted(config.items()))


def attention_name(dtype="bf16", head_dim=128, causal=False, descale_tensors=False, scale=None,
                   mods=None):
    """``scale``: a softmax scale other than the default, as the hex digits
    of its float32 bits; ``mods``: the (score_mod, mask_mod) region texts
    (either None), named by a hash of them."""
    return (f"attention_{dtype}_d{head_dim}" + ("_causal" if causal else "")
            + ("_descale_tensors" if descale_tensors else "")
            + (f"_scale{scale}" if scale else "") + _mods_suffix(mods))


def _mods_suffix(mods):
    if not mods or mods == (None, None):
        return ""
    import hashlib
    return "_mods" + hashlib.sha1(repr(tuple(mods)).encode()).hexdigest()[:12]


def _mods_clause(mods):
    """The op's ``score_mod { ... } mask_mod { ... }`` text."""
    score, mask = tuple(mods or (None, None))[:2]
    clause = ""
    for keyword, region in (("score_mod", score), ("mask_mod", mask)):
        if region:
            body = "\n".join("    " + line for line in region.splitlines())
            clause += f" {keyword} {{\n{body}\n  }}"
    return clause


_TABLE_READ = re.compile(r"tile\.load_scalar (%t[sm]\d+)\[[^\]]*\] : "
                         r"!tile\.view<([^>]*)x(i32|f32), strides = \[([^\]]*)\]>")


def mods_tables(mods):
    """{view name: (element type, rank, static last stride)} of the tables
    the (score_mod, mask_mod) region texts read (:mod:`tilec.mods`)."""
    tables = {}
    for region in tuple(mods or ())[:2]:
        for m in _TABLE_READ.finditer(region or ""):
            name, shape, dtype, strides = m.groups()
            tables[name] = (dtype, shape.count("?"), strides.split(", ")[-1] == "1")
    return tables


#: The op's block list views (mods[2] set: FlexAttention's block mask of a
#: mask on data, :mod:`tilec.flex`).
_BLOCK_LIST_VIEWS = ("!tile.view<?x?x?xi32, strides = [?, ?, 1]>",
                     "!tile.view<?x?x?x?xi32, strides = [?, ?, ?, 1]>")


def _block_list_clause(mods):
    """(the kernel parameters, the view lines, the op's clause) of a block
    list: KVN and KVF (the counts, and of them the wholly visible blocks
    listed first: i32 [B, H, QB], strides kvn_b, kvn_h) and KVI (i32 [B, H,
    QB, NB], strides kvi_b, kvi_h, kvi_q); nothing without one."""
    if not mods or len(mods) < 3 or not mods[2]:
        return "", [], ""
    params = (", %KVN: !tile.ptr<i32>, %KVI: !tile.ptr<i32>, %KVF: !tile.ptr<i32>, %QB: i32, "
              "%NB: i32, %kvn_b: i32, %kvn_h: i32, %kvi_b: i32, %kvi_h: i32, %kvi_q: i32")
    lines = ["  %kvn = tile.make_view %KVN[%B, %H, %QB] strides [%kvn_b, %kvn_h, 1] "
             ": !tile.ptr<i32>",
             "  %kvi = tile.make_view %KVI[%B, %H, %QB, %NB] strides [%kvi_b, %kvi_h, %kvi_q, 1] "
             ": !tile.ptr<i32>",
             "  %kvf = tile.make_view %KVF[%B, %H, %QB] strides [%kvn_b, %kvn_h, 1] "
             ": !tile.ptr<i32>"]
    return params, lines, (f" block_list(%kvn, %kvi : {', '.join(_BLOCK_LIST_VIEWS)})"
                           f" full_blocks(%kvf : {_BLOCK_LIST_VIEWS[0]})")


def _tables_clause(mods):
    """(the kernel parameters, the view lines) of the tables the regions
    read: per table %TS0 (its pointer), %ts0_n<i> (sizes) and %ts0_s<i>
    (strides but a contiguous last one)."""
    params, lines = "", []
    for name, (dtype, rank, contiguous) in mods_tables(mods).items():
        base = name[1:]
        params += f", %{base.upper()}: !tile.ptr<{dtype}>"
        sizes = [f"%{base}_n{i}" for i in range(rank)]
        strides = [f"%{base}_s{i}" for i in range(rank)]
        if contiguous:
            strides[-1] = "1"
        params += "".join(f", {x}: i32" for x in sizes + strides if x != "1")
        lines.append(f"  {name} = tile.make_view %{base.upper()}[{', '.join(sizes)}] strides "
                     f"[{', '.join(strides)}] : !tile.ptr<{dtype}>")
    return params, lines


def attention_shape_config(seq_q, head_dim, causal, chip="sm_90a"):
    """Configuration overrides for attention of this shape (``None``: the
    chip's default rule), from the compiler's rule (see
    :func:`gemm_shape_config`): on sm_90a causal attention up to 2048
    queries at head dims 64 and 128 takes the persistent kernel
    (``persistent = 1``), whose programs take pairs of query blocks of equal
    work; longer sequences keep the hardware's block scheduler.
    """
    return _rules.attention_shape_config(seq_q, head_dim, causal, chip)


#: FP8 attention inputs: the tile dtype of each tilec dtype name.
_FP8_TILE_TYPES = {"f8e4m3": "f8E4M3FN", "f8e5m2": "f8E5M2"}


def attention_source(dtype="bf16", head_dim=128, causal=False, config=None, name=None,
                     descale_tensors=False, scale=None, mods=None):
    """A kernel computing ``tile.attention`` over [batch, heads, seq, head_dim]
    tensors with a contiguous head dimension and the row log-sum-exp.

    Parameters: Q, K, V, O, LSE, B, H, HK, SQ, SK, q_batch, q_head,
    kv_batch, kv_head, lse_batch (strides in elements; O has Q's strides, the
    LSE tensor is [B, H, SQ] with row stride SQ).

    FP8 (``dtype`` f8e4m3 or f8e5m2, FlashAttention-3's recipe): O is bf16,
    V is contiguous along seq (V transposed in memory: its strides are
    v_batch, v_head, 1, v_ld, given after lse_batch), and q_descale,
    k_descale, v_descale (f32) follow. With ``descale_tensors`` the
    descales are f32 tensors [B, HK] read on the device instead (per batch
    and K/V head, FlashAttention-3's): pointers DQ, DK, DV and their
    strides dq_batch, dq_head, dk_batch, dk_head, dv_batch, dv_head (0
    broadcasts one factor). ``scale``: the softmax scale when not
    ``1/sqrt(head_dim)``, as the hex digits of its float32 bits. ``mods``:
    the op's (score_mod, mask_mod) region texts (:mod:`tilec.mods`).
    """
    fp8 = dtype in _FP8_TILE_TYPES
    if not (fp8 or dtype in ("bf16", "f16")) or head_dim not in (64, 128, 256):
        raise ValueError(f"unsupported attention {dtype} head_dim {head_dim}")
    if descale_tensors and not fp8:
        raise ValueError("descale tensors are for FP8 attention only")
    name = name or attention_name(dtype, head_dim, causal, descale_tensors, scale, mods)
    d = head_dim
    et = _FP8_TILE_TYPES.get(dtype, dtype)
    ot = "bf16" if fp8 else dtype
    view = f"!tile.view<?x?x?x{d}x{et}, strides = [?, ?, {d}, 1]>"
    o_view = f"!tile.view<?x?x?x{d}x{ot}, strides = [?, ?, {d}, 1]>"
    v_view = f"!tile.view<?x?x?x{d}x{et}, strides = [?, ?, 1, ?]>" if fp8 else view
    # The softmax scale (default 1/sqrt(head_dim)), as float32 bits.
    extras = f" scale(0x{scale.upper()})" if scale else ""
    extras += " causal" if causal else ""
    extras += config_clause(config)
    extras += _mods_clause(mods)
    extra_params = ", %v_batch: i32, %v_head: i32, %v_ld: i32" if fp8 else ""
    extra_views = []
    if descale_tensors:
        extra_params += "".join(f", %D{x.upper()}: !tile.ptr<f32>" for x in "qkv")
        extra_params += "".join(f", %d{x}_batch: i32, %d{x}_head: i32" for x in "qkv")
        dview = "!tile.view<?x?xf32, strides = [?, ?]>"
        extra_views = [f"  %d{x} = tile.make_view %D{x.upper()}[%B, %HK] strides "
                       f"[%d{x}_batch, %d{x}_head] : !tile.ptr<f32>" for x in "qkv"]
        operands = f" descale(%dq, %dk, %dv : {dview}, {dview}, {dview})"
    elif fp8:
        extra_params += ", %q_descale: f32, %k_descale: f32, %v_descale: f32"
        operands = " descale(%q_descale, %k_descale, %v_descale)"
    else:
        operands = ""
    v_strides = "[%v_batch, %v_head, 1, %v_ld]" if fp8 else f"[%kv_batch, %kv_head, {d}, 1]"
    table_params, table_views = _tables_clause(mods)
    list_params, list_views, list_clause = _block_list_clause(mods)
    # The parameters, views and operands beyond Q/K/V/O/LSE: FP8's, then
    # the regions' tables', then the block list's.
    extra_params += table_params + list_params
    extra_views += table_views + list_views
    operands += list_clause
    lines = [
        f"tile.kernel @{name}(%Q: !tile.ptr<{et}>, %K: !tile.ptr<{et}>, "
        f"%V: !tile.ptr<{et}>, %O: !tile.ptr<{ot}>, %LSE: !tile.ptr<f32>, "
        "%B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32, %q_head: i32, "
        f"%kv_batch: i32, %kv_head: i32, %lse_batch: i32{extra_params}) {{",
        f"  %q = tile.make_view %Q[%B, %H, %SQ, {d}] strides [%q_batch, %q_head, {d}, 1] : !tile.ptr<{et}>",
        f"  %k = tile.make_view %K[%B, %HK, %SK, {d}] strides [%kv_batch, %kv_head, {d}, 1] : !tile.ptr<{et}>",
        f"  %v = tile.make_view %V[%B, %HK, %SK, {d}] strides {v_strides} : !tile.ptr<{et}>",
        f"  %o = tile.make_view %O[%B, %H, %SQ, {d}] strides [%q_batch, %q_head, {d}, 1] : !tile.ptr<{ot}>",
        "  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>",
        *extra_views,
        f"  tile.attention %q, %k, %v, %o lse(%l){operands}{extras} : {view}, {view}, {v_view}, "
        f"{o_view}, !tile.view<?x?x?xf32, strides = [?, ?, 1]>",
        "  tile.return",
        "}",
        "",
    ]
    return name, "\n".join(lines)
