"""Tile-program sources of ``tile.attention``'s serving forms: decode
against a KV cache (:func:`tilec.attention_with_kvcache`) and packed
variable-length sequences (:func:`tilec.attention_varlen`). Like
:mod:`tilec.kernels`, shared by the Python API, the GPU checks and the
tests."""

from . import _rules
from .kernels import config_clause, gemm_config_suffix


def attention_decode_splits(chip, batch, kv_heads, query_rows, seq_k, head_dim, num_sms=0):
    """The key ranges of decode attention (1: one kernel), from the
    compiler's rule (``tilecAttentionDecodeSplits``): ``batch`` x
    ``kv_heads`` query blocks of ``query_rows`` rows against ``seq_k``
    keys, split until the programs fill whole waves of the device's SMs.
    A power of two, so that prebuilt artifacts hold a few kernels."""
    return _rules.attention_decode_splits(chip, batch, kv_heads, query_rows, seq_k, head_dim,
                                          num_sms)


def attention_decode_name(dtype="bf16", head_dim=128, one_query=True, causal=False, splits=1,
                          scale=None, config=None, page_size=0):
    """The name of :func:`attention_decode_source`'s kernel (with one query
    per head, causal changes nothing: the query sees the whole cache)."""
    return (f"attention_decode_{dtype}_d{head_dim}" + ("_q1" if one_query else "")
            + (f"_paged{page_size}" if page_size else "")
            + ("_causal" if causal and not one_query else "")
            + (f"_split{splits}" if splits > 1 else "") + (f"_scale{scale}" if scale else "")
            + gemm_config_suffix(config))


def attention_decode_stage_names(name, splits):
    """The kernels of :func:`attention_decode_source` in launch order."""
    return [name] if splits <= 1 else [f"{name}_split", f"{name}_combine"]


def _decode_params(dtype, one_query, splits, page_size):
    """The parameter list of :func:`attention_decode_source`'s kernel."""
    params = (f"%Q: !tile.ptr<{dtype}>, %K: !tile.ptr<{dtype}>, %V: !tile.ptr<{dtype}>, "
              f"%O: !tile.ptr<{dtype}>, %LSE: !tile.ptr<f32>, %LENS: !tile.ptr<i32>")
    if page_size:
        params += ", %TABLE: !tile.ptr<i32>"
    if splits > 1:
        params += ", %WO: !tile.ptr<f32>, %WL: !tile.ptr<f32>"
    params += ", %B: i32, %H: i32, %HK: i32" + ("" if one_query else ", %SQ: i32")
    params += ", %PAGES: i32, %MAXP: i32" if page_size else ", %SK: i32"
    params += ", %q_batch: i32, %q_head: i32" + ("" if one_query else ", %q_seq: i32")
    params += ", %o_batch: i32, %o_head: i32" + ("" if one_query else ", %o_seq: i32")
    params += ", %kv_batch: i32, %kv_head: i32, %kv_seq: i32, %lse_batch: i32"
    return params + (", %ROWS: i32, %wo_split: i32" if splits > 1 else "")


def attention_decode_source(dtype="bf16", head_dim=128, one_query=True, causal=False, splits=1,
                            name=None, scale=None, config=None, page_size=0):
    """A kernel computing ``tile.attention`` against a KV cache, as
    :func:`tilec.attention_with_kvcache` calls it: Q [B, SQ, H, D] read as
    [B, H, SQ, D] (``one_query``: SQ = 1, the query heads of a K/V head
    packed into one block), K and V caches [B, SK, HK, D] read as [B, HK,
    SK, D] with the same strides, each batch's key count in LENS (i32 [B]),
    O like Q and the f32 log-sum-exp [B, H, SQ]. With ``splits`` > 1 the
    split and combine kernels, passing the partial results through WO (f32
    [splits, ROWS, D]) and WL (f32 [splits, ROWS]), ROWS = B * H * SQ.

    Parameters: Q, K, V, O, LSE, LENS, [WO, WL,] B, H, HK, [SQ,] SK,
    q_batch, q_head, [q_seq,] o_batch, o_head, [o_seq,] kv_batch, kv_head,
    kv_seq, lse_batch[, ROWS, wo_split] (strides in elements). ``config``:
    other fields of ``#tile.attention_config`` (tiles, ring depth).

    Paged (``page_size`` > 0, vLLM's cache): K and V are the page pools
    [PAGES, page_size, HK, D] read as [PAGES, HK, page_size, D] (kv_batch
    the page stride), and TABLE (i32 [B, MAXP], row stride MAXP) holds each
    batch's pages; parameters TABLE after LENS, PAGES and MAXP after HK."""
    if dtype not in ("bf16", "f16") or head_dim not in (64, 128, 256):
        raise ValueError(f"unsupported decode attention {dtype} head_dim {head_dim}")
    d = head_dim
    name = name or attention_decode_name(dtype, d, one_query, causal, splits, scale, config,
                                         page_size)
    sq = "1" if one_query else "%SQ"
    sq_dim = "1" if one_query else "?"
    q_seq, o_seq = (str(d), str(d)) if one_query else ("%q_seq", "%o_seq")
    q_seq_type = str(d) if one_query else "?"
    q_view = f"!tile.view<?x?x{sq_dim}x{d}x{dtype}, strides = [?, ?, {q_seq_type}, 1]>"
    seq = str(page_size) if page_size else "?"
    kv_view = f"!tile.view<?x?x{seq}x{d}x{dtype}, strides = [?, ?, ?, 1]>"
    lse_view = f"!tile.view<?x?x{sq_dim}xf32, strides = [?, {'1' if one_query else '?'}, 1]>"
    lens_view = "!tile.view<?xi32, strides = [1]>"
    kv_rows = ("%PAGES", str(page_size)) if page_size else ("%B", "%SK")
    lines = [
        f"tile.kernel @{name}({_decode_params(dtype, one_query, splits, page_size)}) {{",
        f"  %q = tile.make_view %Q[%B, %H, {sq}, {d}] strides [%q_batch, %q_head, {q_seq}, 1] "
        f": !tile.ptr<{dtype}>",
        f"  %k = tile.make_view %K[{kv_rows[0]}, %HK, {kv_rows[1]}, {d}] strides [%kv_batch, "
        f"%kv_head, %kv_seq, 1] : !tile.ptr<{dtype}>",
        f"  %v = tile.make_view %V[{kv_rows[0]}, %HK, {kv_rows[1]}, {d}] strides [%kv_batch, "
        f"%kv_head, %kv_seq, 1] : !tile.ptr<{dtype}>",
        f"  %o = tile.make_view %O[%B, %H, {sq}, {d}] strides [%o_batch, %o_head, {o_seq}, 1] "
        f": !tile.ptr<{dtype}>",
        f"  %l = tile.make_view %LSE[%B, %H, {sq}] strides [%lse_batch, {sq}, 1] : !tile.ptr<f32>",
        "  %lens = tile.make_view %LENS[%B] strides [1] : !tile.ptr<i32>",
    ]
    paged = ""
    if page_size:
        lines.append("  %table = tile.make_view %TABLE[%B, %MAXP] strides [%MAXP, 1] "
                     ": !tile.ptr<i32>")
        paged = " block_table(%table : !tile.view<?x?xi32, strides = [?, 1]>)"
    workspace = ""
    if splits > 1:
        lines += [
            f"  %wo = tile.make_view %WO[{splits}, %ROWS, {d}] strides [%wo_split, {d}, 1] "
            ": !tile.ptr<f32>",
            f"  %wl = tile.make_view %WL[{splits}, %ROWS] strides [%ROWS, 1] : !tile.ptr<f32>",
        ]
        workspace = (f" workspace(%wo, %wl : !tile.view<{splits}x?x{d}xf32, strides = [?, {d}, 1]>,"
                     f" !tile.view<{splits}x?xf32, strides = [?, 1]>)")
    extras = f" scale(0x{scale.upper()})" if scale else ""
    extras += " causal" if causal and not one_query else ""
    extras += config_clause({**(config or {}), **({"splits": splits} if splits > 1 else {})})
    lines += [
        f"  tile.attention %q, %k, %v, %o lse(%l) seqused_k(%lens : {lens_view}){paged}{workspace}"
        f"{extras} : {q_view}, {kv_view}, {kv_view}, {q_view}, {lse_view}",
        "  tile.return",
        "}",
        "",
    ]
    return name, "\n".join(lines)


def attention_varlen_name(dtype="bf16", head_dim=128, causal=False, scale=None, config=None,
                          seqused_k=False):
    """The name of :func:`attention_varlen_source`'s kernel."""
    return (f"attention_varlen_{dtype}_d{head_dim}" + ("_causal" if causal else "")
            + ("_used" if seqused_k else "") + (f"_scale{scale}" if scale else "")
            + gemm_config_suffix(config))


def _varlen_params(dtype, seqused_k):
    """The parameter list of :func:`attention_varlen_source`'s kernel."""
    params = (f"%Q: !tile.ptr<{dtype}>, %K: !tile.ptr<{dtype}>, %V: !tile.ptr<{dtype}>, "
              f"%O: !tile.ptr<{dtype}>, %LSE: !tile.ptr<f32>, %CQ: !tile.ptr<i32>, "
              f"%CK: !tile.ptr<i32>")
    params += ", %LENS: !tile.ptr<i32>, %B: i32" if seqused_k else ""
    params += ", %NCU: i32, %MAXQ: i32, %H: i32, %HK: i32, %TQ: i32, %TK: i32"
    return params + "".join(f", %{t}_tok: i32, %{t}_head: i32" for t in "qkvo")


def attention_varlen_source(dtype="bf16", head_dim=128, causal=False, name=None, scale=None,
                            config=None, seqused_k=False):
    """A kernel computing ``tile.attention`` over packed variable-length
    sequences, as :func:`tilec.attention_varlen` calls it: Q [TQ, H, D],
    K and V [TK, HK, D] and O like Q (token and head strides ``*_tok``,
    ``*_head`` in elements, contiguous along D) read as [1, heads, tokens,
    D]; CQ and CK the i32 cumulative lengths [NCU] (NCU = sequences + 1);
    MAXQ the longest sequence's queries (the grid); the f32 log-sum-exp
    [H, TQ]. With ``seqused_k``, LENS (i32 [B]) ends each sequence's keys
    sooner. ``config``: other fields of ``#tile.attention_config``."""
    if dtype not in ("bf16", "f16") or head_dim not in (64, 128, 256):
        raise ValueError(f"unsupported varlen attention {dtype} head_dim {head_dim}")
    d = head_dim
    name = name or attention_varlen_name(dtype, d, causal, scale, config, seqused_k)
    view = f"!tile.view<1x?x?x{d}x{dtype}, strides = [0, ?, ?, 1]>"
    cu_view = "!tile.view<?xi32, strides = [1]>"
    lines = [f"tile.kernel @{name}({_varlen_params(dtype, seqused_k)}) {{"]
    for t, heads, tokens in (("q", "H", "TQ"), ("k", "HK", "TK"), ("v", "HK", "TK"),
                             ("o", "H", "TQ")):
        lines.append(f"  %{t} = tile.make_view %{t.upper()}[1, %{heads}, %{tokens}, {d}] "
                     f"strides [0, %{t}_head, %{t}_tok, 1] : !tile.ptr<{dtype}>")
    lines += [
        "  %l = tile.make_view %LSE[1, %H, %TQ] strides [0, %TQ, 1] : !tile.ptr<f32>",
        "  %cq = tile.make_view %CQ[%NCU] strides [1] : !tile.ptr<i32>",
        "  %ck = tile.make_view %CK[%NCU] strides [1] : !tile.ptr<i32>",
    ]
    used = ""
    if seqused_k:
        lines.append("  %lens = tile.make_view %LENS[%B] strides [1] : !tile.ptr<i32>")
        used = f" seqused_k(%lens : {cu_view})"
    extras = f" scale(0x{scale.upper()})" if scale else ""
    extras += " causal" if causal else ""
    extras += config_clause(config or {})
    lines += [
        f"  tile.attention %q, %k, %v, %o lse(%l){used} cu_seqlens(%cq, %ck : {cu_view}, "
        f"{cu_view}) max_seqlen_q(%MAXQ){extras} : {view}, {view}, {view}, {view}, "
        "!tile.view<1x?x?xf32, strides = [0, ?, 1]>",
        "  tile.return",
        "}",
        "",
    ]
    return name, "\n".join(lines)
