"""``tilec.attention_varlen``: attention over packed variable-length
sequences (flash-attn's ``flash_attn_varlen_func``), on ``tile.attention``'s
varlen form: the tokens of every sequence in one [total, heads, head_dim]
tensor, ``cu_seqlens`` saying where each starts, one program per (query
block of the longest sequence, head, sequence).

Nothing is read back from the device: ``max_seqlen_q`` sizes the grid, so a
call can be captured in a CUDA graph.
"""

from . import artifacts as _artifacts
from .checks import _check_device, _check_metadata
from .errors import ArgumentError, DTypeError
from .launch import _allocate, _allocator, _launch_checked
from .op_attention import _attention_scale, _launch_attention_plan
from .plans import _default_directory, _resolve, _tls
from .serving_kernels import attention_varlen_name, attention_varlen_source
from .targets import _chip_and_arch
from .tensors import describe

#: What may change between calls that share a plan.
_VARLEN_DYNAMIC = ("Q", "K", "V", "O", "LSE", "CQ", "CK", "LENS")


def attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k=None, *,
                     softmax_scale=None, causal=False, seqused_k=None, return_softmax_lse=False,
                     out=None, chip=None, artifacts=None, config=None):
    """Attention of packed variable-length sequences, flash-attn's
    ``flash_attn_varlen_func`` (no dropout or window yet).

    ``q``: [total_q, heads, head_dim]; ``k``, ``v``: [total_k, kv_heads,
    head_dim] (kv_heads dividing heads: grouped-query attention); bf16 or
    f16, contiguous along head_dim, head dims 64, 128 and 256, token and
    head strides whole 16-byte chunks. ``cu_seqlens_q``, ``cu_seqlens_k``:
    int32 tensors [batch + 1] of cumulative lengths (sequence b is q's
    tokens [cu_seqlens_q[b], cu_seqlens_q[b + 1]) against k's [cu_seqlens_k[b],
    cu_seqlens_k[b + 1])). ``max_seqlen_q``: at least every sequence's
    query count (it sizes the grid; queries past it are not computed).
    ``max_seqlen_k`` is accepted for flash-attn's signature and not needed.
    ``causal`` aligns the mask bottom-right per sequence (query i of a
    sequence of n queries and m keys sees keys j <= i + m - n).
    ``seqused_k``: an int32 tensor [batch] that ends each sequence's keys
    sooner. ``config``: ``#tile.attention_config`` overrides such as
    ``{"block_n": 64}``. Returns the output [total_q, heads, head_dim] (and
    the f32 log-sum-exp [heads, total_q] with ``return_softmax_lse``).

    The lengths are read on the device and not checked (that would
    synchronize): the kernel never writes outside ``out``'s rows of each
    sequence, and never reads outside the tensors; rows of ``q`` that belong
    to no sequence are left as they are in ``out``. A sequence with queries
    and no keys gets zeros (lse -inf).
    """
    op = "tilec.attention_varlen"
    scale = None if softmax_scale is None else _attention_scale(op, softmax_scale)
    try:  # torch tensors: the plan of this call's metadata
        key = ("varlen", q.shape, q.stride(), q.dtype, q.device, k.shape, k.stride(), k.dtype,
               v.shape, v.stride(), v.dtype, cu_seqlens_q.shape, cu_seqlens_q.dtype,
               cu_seqlens_k.shape, cu_seqlens_k.dtype, int(max_seqlen_q),
               None if seqused_k is None else (seqused_k.shape, seqused_k.dtype),
               None if out is None else (out.shape, out.stride(), out.dtype), scale,
               bool(causal), chip, None if config is None else tuple(sorted(config.items())),
               _default_directory() if artifacts is None else artifacts)
        plan = _tls.plans.get(key)
    except Exception:  # noqa: BLE001 - not torch-style tensors: the checked path
        key = plan = None
    if plan is not None:
        result = _launch_attention_plan(
            plan, q, k, v, out, return_softmax_lse,
            (cu_seqlens_q.data_ptr(), cu_seqlens_k.data_ptr(),
             None if seqused_k is None else seqused_k.data_ptr()))
        if result is not None:
            return result
    tensors = (q, k, v, cu_seqlens_q, cu_seqlens_k, seqused_k, out)
    return _varlen_checked(op, tensors, max_seqlen_q, max_seqlen_k, scale, causal,
                           return_softmax_lse, chip, artifacts, key, config)


def _check_tokens(op, Q, K, V, O):
    """(total_q, heads, head_dim, kv_heads, total_k) of the packed q, k, v
    (and out), else the error."""
    for t in (Q, K, V):
        if t.ndim != 3:
            raise ArgumentError(f"{op}: {t.name} must be 3-D [total_tokens, heads, head_dim], "
                                f"got shape {list(t.shape)}")
        if t.dtype not in ("bf16", "f16"):
            raise DTypeError(f"{op}: {t.name} must be bf16 or f16, got {t.dtype}")
        if t.strides[2] != 1:
            raise ArgumentError(f"{op}: {t.name} must be contiguous along head_dim, got "
                                f"strides {list(t.strides)}")
    if not Q.dtype == K.dtype == V.dtype:
        raise DTypeError(f"{op}: q, k and v must share a dtype, got {Q.dtype}, {K.dtype}, "
                         f"{V.dtype}")
    tq, h, d = Q.shape
    tk, hk = K.shape[0], K.shape[1]
    if K.shape != V.shape or K.shape[2] != d or hk == 0 or h % hk:
        raise ArgumentError(f"{op}: incompatible shapes q {list(Q.shape)}, k {list(K.shape)}, "
                            f"v {list(V.shape)} (k and v alike, the same head_dim, kv heads "
                            f"dividing q's heads)")
    if d not in (64, 128, 256):
        raise ArgumentError(f"{op}: head_dim must be 64, 128 or 256, got {d}")
    if O is not None and (O.shape != Q.shape or O.dtype != Q.dtype or O.strides[2] != 1):
        raise ArgumentError(f"{op}: out must have q's shape and dtype ({list(Q.shape)}, "
                            f"{Q.dtype}) and be contiguous along head_dim")
    return tq, h, d, hk, tk


def _check_lengths(op, CQ, CK, LENS, max_seqlen_q, max_seqlen_k):
    """The number of sequences, after checking the length tensors' metadata
    and the maxima."""
    for t in (CQ, CK):
        if t.dtype != "i32" or t.ndim != 1 or t.shape[0] < 1 or t.strides[0] != 1:
            raise ArgumentError(f"{op}: {t.name} must be a contiguous int32 tensor [batch + 1], "
                                f"got {t.dtype} {list(t.shape)}")
    if CQ.shape != CK.shape:
        raise ArgumentError(f"{op}: cu_seqlens_q and cu_seqlens_k must have the same length "
                            f"(batch + 1), got {CQ.shape[0]} and {CK.shape[0]}")
    b = CQ.shape[0] - 1
    if LENS is not None and (LENS.dtype != "i32" or LENS.shape != (b,)):
        raise ArgumentError(f"{op}: seqused_k must be an int32 tensor [{b}], got {LENS.dtype} "
                            f"{list(LENS.shape)}")
    for name, value in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
        if value is not None and (int(value) != value or not 0 <= value < 2**31):
            raise ArgumentError(f"{op}: {name} must be an int in [0, 2^31), got {value!r}")
    return b


def _varlen_checked(op, tensors, max_seqlen_q, max_seqlen_k, scale, causal, return_lse, chip,
                    artifacts, key, config):
    """attention_varlen with every check spelled out; stores a plan under
    ``key`` when one is given."""
    q, k, v, cu_q, cu_k, used, out = tensors
    Q, K, V = describe(q, "q"), describe(k, "k"), describe(v, "v")
    CQ, CK = describe(cu_q, "cu_seqlens_q"), describe(cu_k, "cu_seqlens_k")
    LENS = describe(used, "seqused_k") if used is not None else None
    O = describe(out, "out") if out is not None else None
    device_index = _check_device(op, [x for x in (Q, K, V, CQ, CK, LENS, O) if x is not None])
    tq, h, d, hk, tk = _check_tokens(op, Q, K, V, O)
    b = _check_lengths(op, CQ, CK, LENS, max_seqlen_q, max_seqlen_k)
    allocated = out is None
    if out is None:
        out = _allocate(Q, Q.shape, Q.dtype)
        O = describe(out, "out")
    allocate_lse = _allocator(Q, (h, tq), "f32")
    lse = allocate_lse()
    if min(b, tq, h, int(max_seqlen_q)) == 0:
        return (out, lse) if return_lse else out
    chip, cubin_arch = _chip_and_arch(chip, device_index)
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    name = attention_varlen_name(Q.dtype, d, causal, scale, config, LENS is not None)
    launcher, meta = _resolve(
        op, name, lambda: attention_varlen_source(Q.dtype, d, causal, name=name, scale=scale,
                                                  config=config, seqused_k=LENS is not None)[1],
        chip, cubin_arch, directory, device_index)
    values = {"Q": Q, "K": K, "V": V, "O": O, "LSE": describe(lse, "lse"), "CQ": CQ, "CK": CK,
              "NCU": b + 1, "MAXQ": int(max_seqlen_q), "H": h, "HK": hk, "TQ": tq, "TK": tk}
    for t, info in (("q", Q), ("k", K), ("v", V), ("o", O)):
        values.update({f"{t}_tok": info.strides[0], f"{t}_head": info.strides[1]})
    if LENS is not None:
        values.update(LENS=LENS, B=b)
    described = {"Q": "q", "K": "k", "V": "v", "O": "out", "CQ": "cu_seqlens_q",
                 "CK": "cu_seqlens_k", "LENS": "seqused_k", "q_tok": "q.stride(0)",
                 "k_tok": "k.stride(0)", "v_tok": "v.stride(0)", "o_tok": "out.stride(0)"}
    _check_metadata(op, meta, values, described)
    allocate = _allocator(Q, Q.shape, Q.dtype) if allocated and key is not None else None
    _launch_checked(key, launcher, meta, values, Q.kind, device_index, _VARLEN_DYNAMIC,
                    allocate=allocate, allocate_lse=allocate_lse)
    return (out, lse) if return_lse else out
