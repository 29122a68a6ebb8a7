"""Tile-program sources for the named kernels (tile.gemm, tile.attention).

These generate the .mlir text that ``tilec`` compiles; the Python API, the
benchmarks and the tests share them so that the kernels measured are the ones
users get.
"""

_DTYPES = ("bf16", "f16", "f32")
_ACTIVATIONS = (None, "relu", "gelu", "silu")


def gemm_name(dtype="bf16", out_dtype=None, b_layout="row", bias=False,
              activation=None, alpha=False, beta=False):
    out_dtype = out_dtype or dtype
    parts = ["gemm", dtype, out_dtype, "b" + b_layout]
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
    ``#tile.attention_config``), whose verifier names a key it does not
    know. Flags are Python bools (0 and 1 read the same)."""
    if not config:
        return ""

    def value(v):
        return ("true" if v else "false") if isinstance(v, bool) else str(int(v))
    return " config <" + ", ".join(f"{k} = {value(v)}" for k, v in sorted(config.items())) + ">"


def gemm_source(dtype="bf16", out_dtype=None, b_layout="row", bias=False,
                activation=None, alpha=False, beta=False, config=None, name=None):
    """A kernel computing C = act(alpha * A @ B + beta * C + bias).

    A is M x K row-major, B K x N row-major (``b_layout="row"``) or
    column-major (``"col"``, i.e. an N x K row-major buffer), C M x N
    row-major. Parameters: A, B, C, [bias], [alpha], [beta], M, N, K, lda,
    ldb, ldc.
    """
    out_dtype = out_dtype or dtype
    if dtype not in ("bf16", "f16") or out_dtype not in _DTYPES:
        raise ValueError(f"unsupported gemm types {dtype} -> {out_dtype}")
    if b_layout not in ("row", "col"):
        raise ValueError(f"b_layout must be 'row' or 'col', not {b_layout!r}")
    if activation not in _ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}")
    name = name or gemm_name(dtype, out_dtype, b_layout, bias, activation, alpha, beta)
    params = [f"%A: !tile.ptr<{dtype}>", f"%B: !tile.ptr<{dtype}>",
              f"%C: !tile.ptr<{out_dtype}>"]
    if bias:
        params.append(f"%bias: !tile.ptr<{out_dtype}>")
    if alpha:
        params.append("%alpha: f32")
    if beta:
        params.append("%beta: f32")
    params += ["%M: i32", "%N: i32", "%K: i32", "%lda: i32", "%ldb: i32", "%ldc: i32"]
    b_strides, b_type_strides = (("[%ldb, 1]", "[?, 1]") if b_layout == "row"
                                 else ("[1, %ldb]", "[1, ?]"))
    lines = [f"tile.kernel @{name}({', '.join(params)}) {{",
             f"  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<{dtype}>",
             f"  %b = tile.make_view %B[%K, %N] strides {b_strides} : !tile.ptr<{dtype}>",
             f"  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<{out_dtype}>"]
    types = [f"!tile.view<?x?x{dtype}, strides = [?, 1]>",
             f"!tile.view<?x?x{dtype}, strides = {b_type_strides}>",
             f"!tile.view<?x?x{out_dtype}, strides = [?, 1]>"]
    extras = ""
    if alpha:
        extras += " alpha(%alpha)"
    if beta:
        extras += " beta(%beta)"
    if bias:
        lines.append(f"  %bv = tile.make_view %bias[%N] strides [1] : !tile.ptr<{out_dtype}>")
        extras += " bias(%bv)"
        types.append(f"!tile.view<?x{out_dtype}, strides = [1]>")
    if activation:
        extras += f" activation({activation})"
    extras += config_clause(config)
    lines.append(f"  tile.gemm %a, %b, %c{extras} : {', '.join(types)}")
    lines += ["  tile.return", "}", ""]
    return name, "\n".join(lines)


# Streaming multiprocessors of the GPUs the shape rule is tuned for (H100 /
# H200 SXM); the rule only needs the order of magnitude.
_HOPPER_SMS = 132


def gemm_shape_config(M, N, K, chip="sm_90a"):
    """Configuration overrides for a GEMM of this shape (``None``: the chip's
    default rule), the dispatch a library does per shape class.

    On sm_90a the default 128x256 tile leaves most SMs idle when there are
    fewer tiles than half the SMs (e.g. M = 128 decode-style GEMMs): narrower
    N tiles give every SM a share of B to stream (the kernel is bound by
    reading B then, and 64-wide tiles keep up to 8 stages in flight). N
    that is not a multiple of 8 takes the epilogue without TMA stores.
    """
    if chip != "sm_90a":
        return None
    config = {}
    # The TMA-store epilogue writes whole 16-byte row chunks: N must be a
    # multiple of 8 (the kernel refuses other N at launch).
    if N % 8:
        config["tma_store"] = False
    tiles = -(-M // 128) * -(-N // 256)
    if tiles < _HOPPER_SMS // 2:
        config["block_n"] = 64
        for block_n in (128, 64):
            if -(-M // 128) * -(-N // block_n) >= 0.75 * _HOPPER_SMS:
                config["block_n"] = block_n
                break
    return config or None


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


def attention_name(dtype="bf16", head_dim=128, causal=False):
    return f"attention_{dtype}_d{head_dim}" + ("_causal" if causal else "")


#: Longest causal query sequence for which ``tilec.attention`` takes the
#: persistent sm_90a kernel (see :func:`attention_shape_config`).
ATTENTION_PERSISTENT_CAUSAL_MAX_SEQ = 2048


def attention_shape_config(seq_q, head_dim, causal, chip="sm_90a"):
    """Configuration overrides for attention of this shape (``None``: the
    chip's default rule).

    On sm_90a causal attention runs on the hardware's block scheduler by
    default (one program per query block, longest first). At short
    sequences the persistent kernel leads: its programs take pairs of
    query blocks of equal work and load the next tile's Q and K/V while they
    finish this one (H200, B*S = 16k, S = 1k: head dim 128 380 against 365
    TFLOP/s, head dim 64 276 against 246; at 16k it trails, 567 against 620:
    bench/results/2026-11-30_attention_sm90a_causal_pairs_h200.json).
    """
    if chip != "sm_90a" or not causal or head_dim > 128:
        return None
    if seq_q <= ATTENTION_PERSISTENT_CAUSAL_MAX_SEQ:
        return {"persistent": True}
    return None


def attention_source(dtype="bf16", head_dim=128, causal=False, config=None, name=None):
    """A kernel computing ``tile.attention`` over [batch, heads, seq, head_dim]
    tensors with a contiguous head dimension and the row log-sum-exp.

    Parameters: Q, K, V, O, LSE, B, H, HK, SQ, SK, q_batch, q_head,
    kv_batch, kv_head, lse_batch (strides in elements; O has Q's strides, the
    LSE tensor is [B, H, SQ] with row stride SQ).
    """
    if dtype not in ("bf16", "f16") or head_dim not in (64, 128, 256):
        raise ValueError(f"unsupported attention {dtype} head_dim {head_dim}")
    name = name or attention_name(dtype, head_dim, causal)
    d = head_dim
    view = f"!tile.view<?x?x?x{d}x{dtype}, strides = [?, ?, {d}, 1]>"
    extras = " causal" if causal else ""
    extras += config_clause(config)
    lines = [
        f"tile.kernel @{name}(%Q: !tile.ptr<{dtype}>, %K: !tile.ptr<{dtype}>, "
        f"%V: !tile.ptr<{dtype}>, %O: !tile.ptr<{dtype}>, %LSE: !tile.ptr<f32>, "
        "%B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32, %q_head: i32, "
        "%kv_batch: i32, %kv_head: i32, %lse_batch: i32) {",
        f"  %q = tile.make_view %Q[%B, %H, %SQ, {d}] strides [%q_batch, %q_head, {d}, 1] : !tile.ptr<{dtype}>",
        f"  %k = tile.make_view %K[%B, %HK, %SK, {d}] strides [%kv_batch, %kv_head, {d}, 1] : !tile.ptr<{dtype}>",
        f"  %v = tile.make_view %V[%B, %HK, %SK, {d}] strides [%kv_batch, %kv_head, {d}, 1] : !tile.ptr<{dtype}>",
        f"  %o = tile.make_view %O[%B, %H, %SQ, {d}] strides [%q_batch, %q_head, {d}, 1] : !tile.ptr<{dtype}>",
        "  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>",
        f"  tile.attention %q, %k, %v, %o lse(%l){extras} : {view}, {view}, {view}, {view}, "
        "!tile.view<?x?x?xf32, strides = [?, ?, 1]>",
        "  tile.return",
        "}",
        "",
    ]
    return name, "\n".join(lines)
