"""Attention backward as block programs (FlashAttention-2's algorithm).

A helper of the scripts and tests, not part of the tilec package: the
package launches the op, whose kernels the compiler builds; these text
programs are the reference that expansion is checked against. Importers
name it ``scripts.common.backward_kernels`` (scripts/README.md).

``tilec.attention_backward`` launches the named op ``tile.attention_backward``
(:mod:`tilec.backward_op`), which the compiler expands into these same
programs. The text here is their reference: the expansion is checked
against it (``test/Dialect/Tile/Transforms/Expand/attention-backward-matches-python.test``),
and ``scripts/build/build_backward_artifacts.py`` builds its tile variants for A/B
runs on a GPU. Head dims 64 and 128 (the op also takes 256).

Three kernels per (dtype, head dim, causal), written as a user writes block
programs: the scheduling passes make them fast on each chip (TMA rings,
wgmma and warp specialization on sm_90a; cp.async rings, ldmatrix and
mma.sync on sm_80 / sm_89), as they do for the forward block program of
``examples/attention_block_bf16.mlir``.

* ``..._pre``: ``Delta = rowsum(dO * O)`` and ``lse2 = lse * log2(e)`` (the
  forward's natural-log row log-sum-exp in the exp2 domain; a row that saw
  no key, lse = -inf, gets +inf so that its probabilities are 0, not NaN).
* ``..._dq``: one program per 128 queries of a (batch, query head) walks the
  key blocks: ``S = Q Kᵀ``, ``P = exp2(S * qk_scale - lse2)``,
  ``dP = dO Vᵀ``, ``dS = P * (dP - Delta)``, ``dQ += dS K``; ``dQ *
  sm_scale`` is stored.
* ``..._dkdv``: one program per 128 keys of a (batch, query head) walks the
  query blocks with the transposed products (``Sᵀ = K Qᵀ``, ``dV += Pᵀ dO``,
  ``dPᵀ = V dOᵀ``, ``dK += dSᵀ Q``), so that no tile is transposed in
  registers.

dQ is computed by its own kernel instead of being accumulated with atomics:
the result is deterministic (the same bits on every run) at the cost of
computing ``S`` and ``dP`` twice.

The atomic mode (``atomic_sources``, FlashAttention-2's own) computes dQ in
the dK/dV kernel instead, five products per block pair instead of seven:

* ``..._pre_zero_dq``: the preprocessing, which also zeroes an f32 dQ
  accumulator ``[B, H, SQ, D]``;
* ``..._dkdv_dq``: the dK/dV kernel, whose steps also add ``dS K``
  (``dS = (dSᵀ)ᵀ``) into the accumulator with ``tile.atomic_add``;
* ``..._dq_scale``: ``dQ = accumulator * sm_scale`` in the input dtype.

The atomic adds of the programs of one query block come in any order, so
dQ may differ in its last bits from run to run. With grouped-query attention (K/V heads
``HK`` dividing the query heads ``H``), the dK/dV kernel writes one
gradient per query head, ``[B, H, SK, D]``, and the caller sums each group
(FlashAttention-2 does the same).

Causal attention uses FlashAttention's bottom-right aligned mask (query
``i`` sees key ``j <= i + SK - SQ``). Tiles outside the sequences read zero:
rows past SQ contribute nothing to dK / dV (their dO rows are zero), keys
past SK are masked in the dQ kernel and never stored by the dK/dV kernel.

Parameters (strides in elements, each tensor contiguous in its last two
dimensions, batch and head strides multiples of 8):

* pre: ``O, dO, LSE, L2, DELTA, B, H, SQ, o_batch, o_head, do_batch,
  do_head, lse_batch`` (LSE is ``[B, H, SQ]`` with row stride SQ; L2 and
  DELTA are contiguous ``[B, H, SQ]`` f32 scratch);
* dq: ``Q, K, V, dO, L2, DELTA, dQ, B, H, HK, SQ, SK, q_batch, q_head,
  kv_batch, kv_head, do_batch, do_head, dq_batch, dq_head, qk_scale,
  sm_scale``;
* dkdv: ``Q, K, V, dO, L2, DELTA, dK, dV, B, H, HK, SQ, SK, q_batch,
  q_head, kv_batch, kv_head, do_batch, do_head, dkv_batch, dkv_head,
  qk_scale, sm_scale`` (dK and dV ``[B, H, SK, D]``, one per query head).

The atomic mode's kernels take ``DQA`` (the f32 accumulator, rows of D
elements) after ``DELTA`` (pre_zero_dq) and after ``dV`` (dkdv_dq), and its
strides ``dqa_batch, dqa_head`` last; dq_scale takes ``DQA, dQ, B, H, SQ,
dq_batch, dq_head, sm_scale, dqa_batch, dqa_head``.

``qk_scale`` is the softmax scale times log2(e), ``sm_scale`` the softmax
scale.
"""

import math
from typing import NamedTuple

DTYPES = ("bf16", "f16")
HEAD_DIMS = (64, 128)


class Tiles(NamedTuple):
    """The dQ kernel's queries per program, keys per step and warps; the
    dK/dV kernel's keys per program, queries per step and warps."""
    dq_m: int = 128
    dq_n: int = 64
    dq_warps: int = 8
    dkv_n: int = 128
    dkv_m: int = 64
    dkv_warps: int = 8
    #: The dK/dV loop loads the next query block's lse2 and Delta one step
    #: ahead (carried through the loop), off the critical path of the step
    #: (their loads are the threads' own, outside any ring): +7-12% on the
    #: sm_80 path, +0-7% on sm_90a.
    prefetch_rows: bool = True
    #: sm_90a: the consumer warps' setmaxnreg budget of the dK/dV kernel
    #: (schedule<producer_regs = 24, consumer_regs = N>), 0 for the pass's
    #: default (40 producer registers, 232 for the consumers).
    dkv_consumer_regs: int = 0
    #: The atomic mode's dK/dV kernel: columns of dQ per product dS K and
    #: atomic add (0: all). On sm_90a each add is staged through shared
    #: memory for a bulk reduction; 64 columns keep that buffer at 16 KB at
    #: head dim 128 (the adds share it), so that the ring keeps two stages.
    dq_add_cols: int = 0
    #: sm_90a: the kernels' schedule<share_tiles = true>: the loads of one
    #: tile that two products read (K in the dQ loop; Q and dO in the dK/dV
    #: loop) become one TMA copy read in place by both (half the ring's
    #: shared memory), where the separate loads take a copy each.
    share_tiles: bool = False

    def tag(self):
        return (f"dq{self.dq_m}x{self.dq_n}w{self.dq_warps}"
                f"_dkv{self.dkv_n}x{self.dkv_m}w{self.dkv_warps}"
                + ("" if self.prefetch_rows else "_noprefetch")
                + (f"_regs{self.dkv_consumer_regs}" if self.dkv_consumer_regs else "")
                + (f"_add{self.dq_add_cols}" if self.dq_add_cols else "")
                + ("_share" if self.share_tiles else ""))


def _schedule(tiles, regs=False):
    """The kernel's `` schedule<...>`` text (empty without knobs): the dK/dV
    kernels' register budgets (``regs``) and the shared tiles."""
    knobs = []
    if regs and tiles.dkv_consumer_regs:
        knobs += ["producer_regs = 24", f"consumer_regs = {tiles.dkv_consumer_regs}"]
    if tiles.share_tiles:
        knobs.append("share_tiles = true")
    return f" schedule<{', '.join(knobs)}>" if knobs else ""


#: Tiles fields by the #tile.attention_backward_config field the compiler's
#: rule sets (producer_regs: the 24 the schedule below writes with a
#: consumer budget).
_RULE_FIELDS = {"dq_m": "dq_m", "dq_n": "dq_n", "dq_warps": "dq_warps", "dkv_n": "dkv_n",
                "dkv_m": "dkv_m", "dkv_warps": "dkv_warps", "prefetch_rows": "prefetch_rows",
                "consumer_regs": "dkv_consumer_regs", "dq_add_cols": "dq_add_cols",
                "share_tiles": "share_tiles"}


def _rule_tiles(chip, head_dim, atomic):
    """The compiler's tiles (rules::getAttentionBackwardConfig, read from
    libtilec-rules.so: the fastest of the variants measured on the H200,
    scripts/build/build_backward_artifacts.py), which tile-expand-named-ops also
    gives tile.attention_backward."""
    from tilec import _rules
    fields = {}
    for field, value in (_rules.attention_backward_config(chip, head_dim, atomic)
                         or {}).items():
        if field == "producer_regs":
            if value != 24:
                raise ValueError(f"the rule's producer_regs {value} is not the 24 the "
                                 f"kernels' schedule writes")
            continue
        fields[_RULE_FIELDS[field]] = (bool(value) if field in ("prefetch_rows", "share_tiles")
                                       else value)
    return Tiles(**fields)


def tiles_for(chip, head_dim=128):
    """The tiles tilec.attention_backward uses on ``chip`` at ``head_dim``
    (the compiler's rule, which tile-expand-named-ops applies to
    tile.attention_backward too)."""
    return _rule_tiles(chip, head_dim, atomic=False)


def atomic_tiles_for(chip, head_dim=128):
    """The tiles of the atomic mode's ``_dkdv_dq`` kernel (only the dK/dV
    fields are used) on ``chip`` at ``head_dim`` (the compiler's rule)."""
    return _rule_tiles(chip, head_dim, atomic=True)


#: The row statistics' preprocessing: rows per program and its warps.
PRE_M, PRE_WARPS = 128, 4

_ALIGN = "{tile.align = 16 : i64}"
_DIV = "{tile.divisibility = 8 : i64}"


def names(dtype="bf16", head_dim=128, causal=False):
    """``(pre, dq, dkdv)`` kernel names."""
    base = f"attention_bwd_{dtype}_d{head_dim}"
    tag = "_causal" if causal else ""
    return base + "_pre", base + tag + "_dq", base + tag + "_dkdv"


def atomic_names(dtype="bf16", head_dim=128, causal=False):
    """``(pre, dkdv, scale)`` kernel names of the atomic mode."""
    base = f"attention_bwd_{dtype}_d{head_dim}"
    tag = "_causal" if causal else ""
    return base + "_pre_zero_dq", base + tag + "_dkdv_dq", base + "_dq_scale"


def _check(dtype, head_dim):
    if dtype not in DTYPES or head_dim not in HEAD_DIMS:
        raise ValueError(f"attention backward supports {'/'.join(DTYPES)} at head dims "
                         f"{'/'.join(map(str, HEAD_DIMS))}, not {dtype} at {head_dim}")


def _ptrs(names_types):
    return ",\n    ".join(f"%{n}: !tile.ptr<{t}> {_ALIGN}" for n, t in names_types)


def _strides(names_):
    return ",\n    ".join(f"%{n}: i32 {_DIV}" for n in names_)


def _view4(name, ptr, t, d, heads, seq, batch_stride, head_stride):
    return (f"  %{name} = tile.make_view %{ptr}[%B, %{heads}, %{seq}, {d}] strides "
            f"[%{batch_stride}, %{head_stride}, {d}, 1] : !tile.ptr<{t}>")


def _vt(t, d):
    return f"!tile.view<?x?x?x{d}x{t}, strides = [?, ?, {d}, 1]>"


_ROWS_VIEW = "!tile.view<?x?x?xf32, strides = [?, ?, 1]>"


def _rows_views(*pairs):
    lines = ["  %HSQ = arith.muli %H, %SQ : i32"]
    lines += [f"  %{n} = tile.make_view %{p}[%B, %H, %SQ] strides [%HSQ, %SQ, 1] : !tile.ptr<f32>"
              for n, p in pairs]
    return lines


def _dqa_view(d):
    """%dqa: the f32 dQ accumulator [B, H, SQ, d], rows of d elements, its
    batch and head strides kernel parameters (a view TMA can serve: on
    sm_90a its atomic adds become bulk reductions)."""
    return [f"  %dqa = tile.make_view %DQA[%B, %H, %SQ, {d}] strides [%dqa_batch, %dqa_head, "
            f"{d}, 1] : !tile.ptr<f32>"]


_DQA_STRIDES = f"{_strides(['dqa_batch', 'dqa_head'])}"


def _dqa_type(d):
    return f"!tile.view<?x?x?x{d}xf32, strides = [?, ?, {d}, 1]>"


def _row_program(m):
    """The prologue of a program over ``m`` rows of a (batch %b, head %h):
    its first row %m0 (and %c0, %cm)."""
    return ["  %c0 = arith.constant 0 : i32", f"  %cm = arith.constant {m} : i32",
            "  %mb = tile.program_id x", "  %h = tile.program_id y", "  %b = tile.program_id z",
            "  %m0 = arith.muli %mb, %cm : i32"]


def pre_source(dtype="bf16", head_dim=128, zero_dq=False):
    """The preprocessing kernel ``(name, source)``; with ``zero_dq`` (the
    atomic mode's) it also zeroes the f32 dQ accumulator."""
    _check(dtype, head_dim)
    t, d, m = dtype, head_dim, PRE_M
    name = atomic_names(dtype, head_dim)[0] if zero_dq else names(dtype, head_dim)[0]
    vt = _vt(t, d)
    dqa = [('DQA', 'f32')] if zero_dq else []
    zero = ([*_dqa_view(d),
             f"  %zq = arith.constant dense<0.0> : tensor<{m}x{d}xf32>",
             f"  tile.store %zq, %dqa[%b, %h, %m0, %c0] : tensor<{m}x{d}xf32>, {_dqa_type(d)}"]
            if zero_dq else [])
    return name, "\n".join([
        f"tile.kernel @{name}({_ptrs([('O', t), ('dO', t), ('LSE', 'f32'), ('L2', 'f32'), ('DELTA', 'f32')] + dqa)},",
        "    %B: i32, %H: i32, %SQ: i32,",
        f"    {_strides(['o_batch', 'o_head', 'do_batch', 'do_head'])},",
        "    %lse_batch: i32" + (f", {_DQA_STRIDES})" if zero_dq else ")"),
        f"    grid(ceildiv(%SQ, {m}), %H, %B) warps({PRE_WARPS}) {{",
        *_row_program(m),
        _view4("o", "O", t, d, "H", "SQ", "o_batch", "o_head"),
        _view4("do", "dO", t, d, "H", "SQ", "do_batch", "do_head"),
        "  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>",
        *_rows_views(("l2", "L2"), ("dl", "DELTA")),
        f"  %to = tile.load %o[%b, %h, %m0, %c0] : {vt} -> tensor<{m}x{d}x{t}>",
        f"  %tdo = tile.load %do[%b, %h, %m0, %c0] : {vt} -> tensor<{m}x{d}x{t}>",
        f"  %of = arith.extf %to : tensor<{m}x{d}x{t}> to tensor<{m}x{d}xf32>",
        f"  %dof = arith.extf %tdo : tensor<{m}x{d}x{t}> to tensor<{m}x{d}xf32>",
        f"  %prod = arith.mulf %of, %dof : tensor<{m}x{d}xf32>",
        f"  %delta = tile.reduce sum %prod axis = 1 : tensor<{m}x{d}xf32> -> tensor<{m}xf32>",
        f"  tile.store %delta, %dl[%b, %h, %m0] : tensor<{m}xf32>, {_ROWS_VIEW}",
        f"  %tl = tile.load %l[%b, %h, %m0] : {_ROWS_VIEW} -> tensor<{m}xf32>",
        f"  %log2e = arith.constant dense<1.44269504> : tensor<{m}xf32>",
        f"  %ninf = arith.constant dense<0xFF800000> : tensor<{m}xf32>",
        f"  %pinf = arith.constant dense<0x7F800000> : tensor<{m}xf32>",
        f"  %tl2 = arith.mulf %tl, %log2e : tensor<{m}xf32>",
        f"  %empty = arith.cmpf oeq, %tl, %ninf : tensor<{m}xf32>",
        f"  %tl3 = arith.select %empty, %pinf, %tl2 : tensor<{m}xi1>, tensor<{m}xf32>",
        f"  tile.store %tl3, %l2[%b, %h, %m0] : tensor<{m}xf32>, {_ROWS_VIEW}",
        *zero,
        "  tile.return",
        "}",
        "",
    ])


_COMMON_SCALARS = ("    %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,")


def _kv_head():
    # The K/V head of query head %h: heads come in groups of H / HK.
    return ["  %group = arith.divui %H, %HK : i32", "  %hk = arith.divui %h, %group : i32"]


def _program(index, start, block):
    """The program's block index along x, its first row (`%start` =
    `%index` * `%block`), its query head %h and batch %b."""
    return [f"  %{index} = tile.program_id x", "  %h = tile.program_id y",
            "  %b = tile.program_id z", f"  %{start} = arith.muli %{index}, %{block} : i32"]


def _views(t, d, outputs):
    """The views the dQ and dK/dV kernels read (Q and dO at query head %h,
    K and V at its K/V head %hk, lse2 and Delta) and write: ``outputs``,
    (name, pointer, seq, batch stride, head stride) of [B, H, seq, d] views."""
    return [*_kv_head(),
            _view4("q", "Q", t, d, "H", "SQ", "q_batch", "q_head"),
            _view4("k", "K", t, d, "HK", "SK", "kv_batch", "kv_head"),
            _view4("v", "V", t, d, "HK", "SK", "kv_batch", "kv_head"),
            _view4("do", "dO", t, d, "H", "SQ", "do_batch", "do_head"),
            *(_view4(name, ptr, t, d, "H", seq, bs, hs) for name, ptr, seq, bs, hs in outputs),
            *_rows_views(("l2", "L2"), ("dl", "DELTA"))]


def _bcast(name, src, n, to, axis):
    """%name: the vector %src [n] broadcast along ``axis`` to ``to``."""
    shape = f"{n}x1" if axis == 1 else f"1x{n}"
    return [f"  %{name}_e = tile.expand_dims %{src} axis = {axis} : tensor<{n}xf32> -> tensor<{shape}xf32>",
            f"  %{name} = tile.broadcast %{name}_e : tensor<{shape}xf32> -> tensor<{to}xf32>"]


def _dq_bounds(m, n, causal):
    """(bounds before the loop, the mask's keep line) of the dQ loop."""
    mn = f"{m}x{n}"
    if causal:
        # Query i sees key j <= i + SK - SQ: the loop ends after the block's
        # last query's last key; keys [0, full) are visible to every row.
        bounds = [
            "  %off = arith.subi %SK, %SQ : i32",
            "  %last = arith.addi %m0, %cm : i32",
            "  %end0 = arith.addi %last, %off : i32",
            "  %end1 = arith.minsi %end0, %SK : i32",
            "  %end = arith.maxsi %end1, %c0 : i32",
            "  %f0 = arith.addi %m0, %off : i32",
            "  %f1 = arith.addi %f0, %c1 : i32",
            "  %f2 = arith.maxsi %f1, %c0 : i32",
            "  %f3 = arith.divsi %f2, %cn : i32",
            "  %f4 = arith.muli %f3, %cn : i32",
            "  %full = arith.minsi %f4, %end : i32",
            f"  %rows = tile.range 0 to {m} : tensor<{m}xi32>",
            f"  %offs = tile.splat %f0 : tensor<{m}xi32>",
            f"  %qi = arith.addi %rows, %offs : tensor<{m}xi32>",
            f"  %qi2 = tile.expand_dims %qi axis = 1 : tensor<{m}xi32> -> tensor<{m}x1xi32>",
            f"  %qlim = tile.broadcast %qi2 : tensor<{m}x1xi32> -> tensor<{mn}xi32>",
        ]
        keep = f"      %keep = arith.cmpi sle, %kjb, %qlim : tensor<{mn}xi32>"
    else:
        # Keys past SK (read as zero) are masked in the last blocks.
        bounds = [
            "  %f0 = arith.divsi %SK, %cn : i32",
            "  %full = arith.muli %f0, %cn : i32",
            f"  %klim = tile.splat %SK : tensor<{mn}xi32>",
        ]
        keep = f"      %keep = arith.cmpi slt, %kjb, %klim : tensor<{mn}xi32>"
    return bounds, keep


def dq_source(dtype="bf16", head_dim=128, causal=False, shared_loads=False, tiles=Tiles()):
    """The dQ kernel ``(name, source)``; with ``shared_loads`` one load of K
    feeds both products (see :func:`source`)."""
    _check(dtype, head_dim)
    t, d, m, n = dtype, head_dim, tiles.dq_m, tiles.dq_n
    name = names(dtype, head_dim, causal)[1]
    vt = _vt(t, d)
    mn = f"{m}x{n}"
    bounds, keep = _dq_bounds(m, n, causal)
    return name, "\n".join([
        f"tile.kernel @{name}({_ptrs([('Q', t), ('K', t), ('V', t), ('dO', t), ('L2', 'f32'), ('DELTA', 'f32'), ('dQ', t)])},",
        _COMMON_SCALARS,
        f"    {_strides(['q_batch', 'q_head', 'kv_batch', 'kv_head', 'do_batch', 'do_head', 'dq_batch', 'dq_head'])},",
        "    %qk_scale: f32, %sm_scale: f32)",
        f"    grid(ceildiv(%SQ, {m}), %H, %B) warps({tiles.dq_warps}){_schedule(tiles)} {{",
        "  %c0 = arith.constant 0 : i32",
        "  %c1 = arith.constant 1 : i32",
        f"  %cm = arith.constant {m} : i32",
        f"  %cn = arith.constant {n} : i32",
        *_program("mb", "m0", "cm"),
        *_views(t, d, [("dq", "dQ", "SQ", "dq_batch", "dq_head")]),
        f"  %tq = tile.load %q[%b, %h, %m0, %c0] : {vt} -> tensor<{m}x{d}x{t}>",
        f"  %tdo = tile.load %do[%b, %h, %m0, %c0] : {vt} -> tensor<{m}x{d}x{t}>",
        f"  %tl = tile.load %l2[%b, %h, %m0] : {_ROWS_VIEW} -> tensor<{m}xf32>",
        f"  %td = tile.load %dl[%b, %h, %m0] : {_ROWS_VIEW} -> tensor<{m}xf32>",
        *_bcast("lb", "tl", m, mn, 1),
        f"  %negl = arith.negf %lb : tensor<{mn}xf32>",
        *_bcast("db", "td", m, mn, 1),
        *bounds,
        f"  %cols = tile.range 0 to {n} : tensor<{n}xi32>",
        f"  %scale = tile.splat %qk_scale : tensor<{mn}xf32>",
        f"  %ninf = arith.constant dense<0xFF800000> : tensor<{mn}xf32>",
        f"  %s0 = arith.constant dense<0.0> : tensor<{mn}xf32>",
        f"  %acc0 = arith.constant dense<0.0> : tensor<{m}x{d}xf32>",
        f"  %res = scf.for %n = %c0 to {'%end' if causal else '%SK'} step %cn iter_args(%acc = %acc0) -> (tensor<{m}x{d}xf32>) : i32 {{",
        f"    %tk = tile.load %k[%b, %hk, %n, %c0] : {vt} -> tensor<{n}x{d}x{t}>",
        f"    %kt = tile.trans %tk : tensor<{n}x{d}x{t}> -> tensor<{d}x{n}x{t}>",
        f"    %s = tile.dot %tq, %kt, %s0 : tensor<{m}x{d}x{t}>, tensor<{d}x{n}x{t}> -> tensor<{mn}xf32>",
        "    %edge = arith.cmpi sge, %n, %full : i32",
        f"    %sm = scf.if %edge -> (tensor<{mn}xf32>) {{",
        f"      %ns = tile.splat %n : tensor<{n}xi32>",
        f"      %kj = arith.addi %cols, %ns : tensor<{n}xi32>",
        f"      %kj2 = tile.expand_dims %kj axis = 0 : tensor<{n}xi32> -> tensor<1x{n}xi32>",
        f"      %kjb = tile.broadcast %kj2 : tensor<1x{n}xi32> -> tensor<{mn}xi32>",
        keep,
        f"      %masked = arith.select %keep, %s, %ninf : tensor<{mn}xi1>, tensor<{mn}xf32>",
        f"      scf.yield %masked : tensor<{mn}xf32>",
        "    } else {",
        f"      scf.yield %s : tensor<{mn}xf32>",
        "    }",
        f"    %e = math.fma %sm, %scale, %negl : tensor<{mn}xf32>",
        f"    %p = math.exp2 %e fastmath<afn> : tensor<{mn}xf32>",
        f"    %tv = tile.load %v[%b, %hk, %n, %c0] : {vt} -> tensor<{n}x{d}x{t}>",
        f"    %vt = tile.trans %tv : tensor<{n}x{d}x{t}> -> tensor<{d}x{n}x{t}>",
        f"    %dp = tile.dot %tdo, %vt, %s0 : tensor<{m}x{d}x{t}>, tensor<{d}x{n}x{t}> -> tensor<{mn}xf32>",
        f"    %dpd = arith.subf %dp, %db : tensor<{mn}xf32>",
        f"    %ds = arith.mulf %p, %dpd : tensor<{mn}xf32>",
        f"    %dsb = arith.truncf %ds : tensor<{mn}xf32> to tensor<{mn}x{t}>",
        *([] if shared_loads else
          [f"    %tk2 = tile.load %k[%b, %hk, %n, %c0] : {vt} -> tensor<{n}x{d}x{t}>"]),
        f"    %acc_new = tile.dot %dsb, {'%tk' if shared_loads else '%tk2'}, %acc : tensor<{mn}x{t}>, tensor<{n}x{d}x{t}> -> tensor<{m}x{d}xf32>",
        f"    scf.yield %acc_new : tensor<{m}x{d}xf32>",
        "  }",
        f"  %smv = tile.splat %sm_scale : tensor<{m}x{d}xf32>",
        f"  %out = arith.mulf %res, %smv : tensor<{m}x{d}xf32>",
        f"  %ob = arith.truncf %out : tensor<{m}x{d}xf32> to tensor<{m}x{d}x{t}>",
        f"  tile.store %ob, %dq[%b, %h, %m0, %c0] : tensor<{m}x{d}x{t}>, {vt}",
        "  tile.return",
        "}",
        "",
    ])


def _dkdv_causal_mask(n, m):
    """(bounds, masked Sᵀ value, mask lines) of the causal dK/dV loop."""
    nm = f"{n}x{m}"
    # Key j is seen by queries i >= j - (SK - SQ): the loop starts at the
    # query block holding the first query that sees key n0, and blocks
    # from `full` on see all the program's keys.
    bounds = [
        "  %off = arith.subi %SK, %SQ : i32",
        "  %s0i = arith.subi %n0, %off : i32",
        "  %s1 = arith.maxsi %s0i, %c0 : i32",
        "  %s2 = arith.divsi %s1, %cm : i32",
        "  %s3 = arith.muli %s2, %cm : i32",
        "  %start = arith.minsi %s3, %SQ : i32",
        "  %f0 = arith.addi %s0i, %cn : i32",
        "  %f1 = arith.maxsi %f0, %start : i32",
        "  %full = arith.minsi %f1, %SQ : i32",
        f"  %rows = tile.range 0 to {n} : tensor<{n}xi32>",
        f"  %lims = tile.splat %s0i : tensor<{n}xi32>",
        f"  %kq = arith.addi %rows, %lims : tensor<{n}xi32>",
        f"  %kq2 = tile.expand_dims %kq axis = 1 : tensor<{n}xi32> -> tensor<{n}x1xi32>",
        f"  %kqb = tile.broadcast %kq2 : tensor<{n}x1xi32> -> tensor<{nm}xi32>",
        f"  %cols = tile.range 0 to {m} : tensor<{m}xi32>",
        f"  %ninf = arith.constant dense<0xFF800000> : tensor<{nm}xf32>",
    ]
    st = "%stm"
    mask = [
        # Sᵀ[j, i] is kept where query i sees key j: i >= j - off.
        "    %edge = arith.cmpi slt, %m, %full : i32",
        f"    %stm = scf.if %edge -> (tensor<{nm}xf32>) {{",
        f"      %ms = tile.splat %m : tensor<{m}xi32>",
        f"      %qi = arith.addi %cols, %ms : tensor<{m}xi32>",
        f"      %qi2 = tile.expand_dims %qi axis = 0 : tensor<{m}xi32> -> tensor<1x{m}xi32>",
        f"      %qib = tile.broadcast %qi2 : tensor<1x{m}xi32> -> tensor<{nm}xi32>",
        f"      %keep = arith.cmpi sge, %qib, %kqb : tensor<{nm}xi32>",
        f"      %masked = arith.select %keep, %st, %ninf : tensor<{nm}xi1>, tensor<{nm}xf32>",
        f"      scf.yield %masked : tensor<{nm}xf32>",
        "    } else {",
        f"      scf.yield %st : tensor<{nm}xf32>",
        "    }",
    ]
    return bounds, st, mask


def _dkdv_rows(m, start, prefetch):
    """How the dK/dV loop gets each query block's lse2 and Delta: the lines
    before the loop, its extra iter_args and their types, the lines at the
    top of the body, the in-body loads of each, and the extra yields and
    their types (see Tiles.prefetch_rows)."""
    rows = f"tensor<{m}xf32>"
    if prefetch:
        # lse2 and Delta of the first block before the loop; each step loads
        # the next block's (past SQ: zeros, never used).
        first = [f"  %tl0 = tile.load %l2[%b, %h, {start}] : {_ROWS_VIEW} -> {rows}",
                 f"  %td0 = tile.load %dl[%b, %h, {start}] : {_ROWS_VIEW} -> {rows}"]
        carried, carried_types = ", %tl = %tl0, %td = %td0", f", {rows}, {rows}"
        next_rows = ["    %mn = arith.addi %m, %cm : i32",
                     f"    %tln = tile.load %l2[%b, %h, %mn] : {_ROWS_VIEW} -> {rows}",
                     f"    %tdn = tile.load %dl[%b, %h, %mn] : {_ROWS_VIEW} -> {rows}"]
        load_l = load_d = []
        yields, yield_types = ", %tln, %tdn", f", {rows}, {rows}"
    else:
        first, carried, carried_types, next_rows = [], "", "", []
        load_l = [f"    %tl = tile.load %l2[%b, %h, %m] : {_ROWS_VIEW} -> {rows}"]
        load_d = [f"    %td = tile.load %dl[%b, %h, %m] : {_ROWS_VIEW} -> {rows}"]
        yields = yield_types = ""
    return dict(first=first, carried=carried, carried_types=carried_types,
                next_rows=next_rows, load_l=load_l, load_d=load_d, yields=yields,
                yield_types=yield_types)


def _dq_slices(d, cols):
    """Column offsets of the atomic mode's dQ slices (``cols`` wide; 0:
    one slice of ``d``)."""
    w = min(d, cols or d)
    return w, list(range(0, d, w))


def _atomic_dq_keys(t, d, n, cols):
    """Before the dK/dV loop in the atomic mode: the program's keys once
    more, one %tkq<j> per dQ slice (columns j to j + cols) for dS K."""
    w, offsets = _dq_slices(d, cols)
    vt = _vt(t, d)
    lines = []
    for j in offsets:
        if j:
            lines.append(f"  %cq{j} = arith.constant {j} : i32")
        lines.append(f"  %tkq{j} = tile.load %k[%b, %hk, %n0, {f'%cq{j}' if j else '%c0'}] : "
                     f"{vt} -> tensor<{n}x{w}x{t}>")
    return lines


def _atomic_dq(t, d, n, m, cols):
    """The dK/dV step's dQ part in the atomic mode: ``dS K`` (dS the
    transposed dSᵀ of the step, K the program's keys) added into the
    accumulator's rows %m, one product and add per slice of ``cols``
    columns (0: whole): on sm_90a each add is staged through shared memory
    for a bulk reduction, and narrower slices keep that buffer small."""
    w, offsets = _dq_slices(d, cols)
    lines = [f"    %dsb = tile.trans %dstb : tensor<{n}x{m}x{t}> -> tensor<{m}x{n}x{t}>",
             f"    %zq = arith.constant dense<0.0> : tensor<{m}x{w}xf32>"]
    for j in offsets:
        lines += [f"    %dqp{j} = tile.dot %dsb, %tkq{j}, %zq : tensor<{m}x{n}x{t}>, "
                  f"tensor<{n}x{w}x{t}> -> tensor<{m}x{w}xf32>",
                  f"    tile.atomic_add %dqp{j}, %dqa[%b, %h, %m, {f'%cq{j}' if j else '%c0'}] : "
                  f"tensor<{m}x{w}xf32>, {_dqa_type(d)}"]
    return lines


def dkdv_source(dtype="bf16", head_dim=128, causal=False, shared_loads=False, tiles=Tiles(),
                atomic_dq=False):
    """The dK/dV kernel ``(name, source)``; with ``shared_loads`` one load
    of Q and one of dO feed both of their products (see :func:`source`);
    with ``atomic_dq`` (the atomic mode's ``_dkdv_dq``) its steps also add
    their dQ part into the f32 accumulator."""
    _check(dtype, head_dim)
    t, d, n, m = dtype, head_dim, tiles.dkv_n, tiles.dkv_m
    name = (atomic_names if atomic_dq else names)(dtype, head_dim, causal)[1 if atomic_dq else 2]
    dqa = [('DQA', 'f32')] if atomic_dq else []
    schedule = _schedule(tiles, regs=True)
    vt = _vt(t, d)
    nm = f"{n}x{m}"
    bounds, st, mask = _dkdv_causal_mask(n, m) if causal else ([], "%st", [])
    start = "%start" if causal else "%c0"
    rows = _dkdv_rows(m, start, tiles.prefetch_rows)
    return name, "\n".join([
        f"tile.kernel @{name}({_ptrs([('Q', t), ('K', t), ('V', t), ('dO', t), ('L2', 'f32'), ('DELTA', 'f32'), ('dK', t), ('dV', t)] + dqa)},",
        _COMMON_SCALARS,
        f"    {_strides(['q_batch', 'q_head', 'kv_batch', 'kv_head', 'do_batch', 'do_head', 'dkv_batch', 'dkv_head'])},",
        "    %qk_scale: f32, %sm_scale: f32" + (f", {_DQA_STRIDES})" if atomic_dq else ")"),
        f"    grid(ceildiv(%SK, {n}), %H, %B) warps({tiles.dkv_warps}){schedule} {{",
        "  %c0 = arith.constant 0 : i32",
        f"  %cm = arith.constant {m} : i32",
        f"  %cn = arith.constant {n} : i32",
        *_program("nb", "n0", "cn"),
        *_views(t, d, [("dk", "dK", "SK", "dkv_batch", "dkv_head"),
                       ("dv", "dV", "SK", "dkv_batch", "dkv_head")]),
        f"  %tk = tile.load %k[%b, %hk, %n0, %c0] : {vt} -> tensor<{n}x{d}x{t}>",
        f"  %tv = tile.load %v[%b, %hk, %n0, %c0] : {vt} -> tensor<{n}x{d}x{t}>",
        *([*_dqa_view(d), *_atomic_dq_keys(t, d, n, tiles.dq_add_cols)] if atomic_dq else []),
        *bounds,
        f"  %scale = tile.splat %qk_scale : tensor<{nm}xf32>",
        f"  %z = arith.constant dense<0.0> : tensor<{nm}xf32>",
        f"  %acc0 = arith.constant dense<0.0> : tensor<{n}x{d}xf32>",
        *rows["first"],
        f"  %res:{4 if tiles.prefetch_rows else 2} = scf.for %m = {start} to %SQ step %cm "
        f"iter_args(%adk = %acc0, %adv = %acc0{rows['carried']}) -> (tensor<{n}x{d}xf32>, "
        f"tensor<{n}x{d}xf32>{rows['carried_types']}) : i32 {{",
        *rows["next_rows"],
        f"    %tq = tile.load %q[%b, %h, %m, %c0] : {vt} -> tensor<{m}x{d}x{t}>",
        f"    %qt = tile.trans %tq : tensor<{m}x{d}x{t}> -> tensor<{d}x{m}x{t}>",
        f"    %st = tile.dot %tk, %qt, %z : tensor<{n}x{d}x{t}>, tensor<{d}x{m}x{t}> -> tensor<{nm}xf32>",
        *mask,
        *rows["load_l"],
        *["  " + x for x in _bcast("lb", "tl", m, nm, 0)],
        f"    %negl = arith.negf %lb : tensor<{nm}xf32>",
        f"    %e = math.fma {st}, %scale, %negl : tensor<{nm}xf32>",
        f"    %pt = math.exp2 %e fastmath<afn> : tensor<{nm}xf32>",
        f"    %ptb = arith.truncf %pt : tensor<{nm}xf32> to tensor<{nm}x{t}>",
        f"    %tdo = tile.load %do[%b, %h, %m, %c0] : {vt} -> tensor<{m}x{d}x{t}>",
        f"    %adv2 = tile.dot %ptb, %tdo, %adv : tensor<{nm}x{t}>, tensor<{m}x{d}x{t}> -> tensor<{n}x{d}xf32>",
        *([] if shared_loads else
          [f"    %tdo2 = tile.load %do[%b, %h, %m, %c0] : {vt} -> tensor<{m}x{d}x{t}>"]),
        f"    %dot = tile.trans {'%tdo' if shared_loads else '%tdo2'} : tensor<{m}x{d}x{t}> -> tensor<{d}x{m}x{t}>",
        f"    %dpt = tile.dot %tv, %dot, %z : tensor<{n}x{d}x{t}>, tensor<{d}x{m}x{t}> -> tensor<{nm}xf32>",
        *rows["load_d"],
        *["  " + x for x in _bcast("db", "td", m, nm, 0)],
        f"    %dpd = arith.subf %dpt, %db : tensor<{nm}xf32>",
        f"    %dst = arith.mulf %pt, %dpd : tensor<{nm}xf32>",
        f"    %dstb = arith.truncf %dst : tensor<{nm}xf32> to tensor<{nm}x{t}>",
        *([] if shared_loads else
          [f"    %tq2 = tile.load %q[%b, %h, %m, %c0] : {vt} -> tensor<{m}x{d}x{t}>"]),
        f"    %adk2 = tile.dot %dstb, {'%tq' if shared_loads else '%tq2'}, %adk : tensor<{nm}x{t}>, tensor<{m}x{d}x{t}> -> tensor<{n}x{d}xf32>",
        *(_atomic_dq(t, d, n, m, tiles.dq_add_cols) if atomic_dq else []),
        f"    scf.yield %adk2, %adv2{rows['yields']} : tensor<{n}x{d}xf32>, "
        f"tensor<{n}x{d}xf32>{rows['yield_types']}",
        "  }",
        f"  %smv = tile.splat %sm_scale : tensor<{n}x{d}xf32>",
        f"  %dko = arith.mulf %res#0, %smv : tensor<{n}x{d}xf32>",
        f"  %dkb = arith.truncf %dko : tensor<{n}x{d}xf32> to tensor<{n}x{d}x{t}>",
        f"  tile.store %dkb, %dk[%b, %h, %n0, %c0] : tensor<{n}x{d}x{t}>, {vt}",
        f"  %dvb = arith.truncf %res#1 : tensor<{n}x{d}xf32> to tensor<{n}x{d}x{t}>",
        f"  tile.store %dvb, %dv[%b, %h, %n0, %c0] : tensor<{n}x{d}x{t}>, {vt}",
        "  tile.return",
        "}",
        "",
    ])


def dq_scale_source(dtype="bf16", head_dim=128):
    """The atomic mode's last kernel ``(name, source)``: ``dQ = DQA *
    sm_scale`` in the input dtype."""
    _check(dtype, head_dim)
    t, d, m = dtype, head_dim, PRE_M
    name = atomic_names(dtype, head_dim)[2]
    vt = _vt(t, d)
    return name, "\n".join([
        f"tile.kernel @{name}({_ptrs([('DQA', 'f32'), ('dQ', t)])},",
        "    %B: i32, %H: i32, %SQ: i32,",
        f"    {_strides(['dq_batch', 'dq_head'])},",
        f"    %sm_scale: f32, {_DQA_STRIDES})",
        f"    grid(ceildiv(%SQ, {m}), %H, %B) warps({PRE_WARPS}) {{",
        *_row_program(m),
        *_dqa_view(d),
        _view4("dq", "dQ", t, d, "H", "SQ", "dq_batch", "dq_head"),
        f"  %acc = tile.load %dqa[%b, %h, %m0, %c0] : {_dqa_type(d)} -> tensor<{m}x{d}xf32>",
        f"  %smv = tile.splat %sm_scale : tensor<{m}x{d}xf32>",
        f"  %out = arith.mulf %acc, %smv : tensor<{m}x{d}xf32>",
        f"  %ob = arith.truncf %out : tensor<{m}x{d}xf32> to tensor<{m}x{d}x{t}>",
        f"  tile.store %ob, %dq[%b, %h, %m0, %c0] : tensor<{m}x{d}x{t}>, {vt}",
        "  tile.return",
        "}",
        "",
    ])


def atomic_sources(dtype="bf16", head_dim=128, causal=False, tiles=Tiles()):
    """The atomic mode's three kernels, ``[(name, source)]`` in launch
    order: pre_zero_dq, dkdv_dq, dq_scale."""
    return [pre_source(dtype, head_dim, zero_dq=True),
            dkdv_source(dtype, head_dim, causal, tiles=tiles, atomic_dq=True),
            dq_scale_source(dtype, head_dim)]


def source(dtype="bf16", head_dim=128, causal=False, shared_loads=False, tiles=Tiles()):
    """All three kernels in one module: ``(names, source)``.

    A tile that two products read (K in the dQ kernel; Q and dO in the dK/dV
    kernel, once transposed and once not) is loaded once per use by
    default: on sm_90a each load becomes a TMA ring slot that one wgmma
    reads in place. ``shared_loads`` loads it once for both: on sm_90a the
    products then fall back to mma.sync, and on sm_80 the dK/dV loop's
    registers and ring fit worse; measured on the H200 (bench/results/
    2026-12-04_attention_backward_h200.json) it is 0.19-0.81x the default
    on both paths, so it stays a knob for A/B runs.
    """
    parts = [pre_source(dtype, head_dim), dq_source(dtype, head_dim, causal, shared_loads, tiles),
             dkdv_source(dtype, head_dim, causal, shared_loads, tiles)]
    return tuple(n for n, _ in parts), "\n".join(s for _, s in parts)


def launch_args(q, k, v, out, grad_out, lse, l2, delta, dq, dk, dv, scale):
    """The arguments of the three kernels, in their parameter order (see the
    module doc): ``(pre, dq, dkdv)`` tuples from tensors with ``shape`` and
    ``stride()`` (torch's); ``dk`` / ``dv`` are ``[B, H, SK, D]``, one per
    query head, ``l2`` / ``delta`` contiguous ``[B, H, SQ]`` f32 scratch."""
    b, h, sq, _ = q.shape
    hk, sk = k.shape[1], k.shape[2]
    qs, ks, dos = q.stride(), k.stride(), grad_out.stride()
    common = (b, h, hk, sq, sk, qs[0], qs[1], ks[0], ks[1], dos[0], dos[1])
    scales = (scale * math.log2(math.e), scale)
    pre = (out, grad_out, lse, l2, delta, b, h, sq, out.stride(0), out.stride(1), dos[0],
           dos[1], lse.stride(0))
    dq_args = (q, k, v, grad_out, l2, delta, dq, *common, dq.stride(0), dq.stride(1), *scales)
    dkdv = (q, k, v, grad_out, l2, delta, dk, dv, *common, dk.stride(0), dk.stride(1),
            *scales)
    return pre, dq_args, dkdv


def atomic_launch_args(q, k, v, out, grad_out, lse, l2, delta, dqa, dq, dk, dv, scale):
    """The arguments of the atomic mode's kernels ``(pre_zero_dq, dkdv_dq,
    dq_scale)``, as :func:`launch_args`; ``dqa`` is the contiguous f32
    ``[B, H, SQ, D]`` accumulator."""
    pre, _, dkdv = launch_args(q, k, v, out, grad_out, lse, l2, delta, dq, dk, dv, scale)
    b, h, sq, _ = q.shape
    strides = (dqa.stride(0), dqa.stride(1))
    return ((*pre[:5], dqa, *pre[5:], *strides), (*dkdv[:8], dqa, *dkdv[8:], *strides),
            (dqa, dq, b, h, sq, dq.stride(0), dq.stride(1), scale, *strides))
