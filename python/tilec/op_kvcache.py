"""``tilec.attention_with_kvcache``: decode attention against a KV cache
(flash-attn's ``flash_attn_with_kvcache``), on ``tile.attention``'s serving
forms: each batch's cache length (``seqused_k``), the query heads of a K/V
head packed into one block when there is one query per head, and split-KV
(the key ranges of the ``split`` kernel merged by the ``combine`` kernel)
where the batch leaves SMs idle.

The split count comes from the compiler's rule
(:func:`tilec.serving_kernels.attention_decode_splits`) on the shapes alone, so a
call never synchronizes with the device and can be captured in a CUDA graph
(one graph per batch size, as serving engines capture them).
"""

from . import artifacts as _artifacts
from .checks import _check_device, _check_metadata
from .errors import ArgumentError, DTypeError
from .serving_kernels import (attention_decode_name, attention_decode_source,
                      attention_decode_splits, attention_decode_stage_names)
from .launch import _allocate, _allocator, _launch_checked, _launch_stages
from .op_attention import _attention_scale, _launch_attention_plan
from .plans import _default_directory, _resolve, _tls
from .targets import _chip_and_arch, _device_num_sms
from .tensors import TensorInfo, describe

#: What may change between calls that share a plan.
_DECODE_DYNAMIC = ("Q", "K", "V", "O", "LSE", "LENS", "TABLE")

#: Device tensors of an int ``cache_seqlens`` ((kind, device, batch,
#: length) -> i32 [batch] filled with it), made once: a call with an int
#: length allocates and fills nothing (the kernels only read them, and
#: appending new tokens makes new lengths).
_filled_lens = {}
_FILLED_LIMIT = 256


def attention_with_kvcache(q, k_cache, v_cache, k=None, v=None, *, cache_seqlens=None,
                           block_table=None, softmax_scale=None, causal=False, num_splits=0,
                           return_softmax_lse=False, out=None, chip=None, artifacts=None,
                           config=None):
    """Attention of ``q`` against a KV cache, flash-attn's
    ``flash_attn_with_kvcache`` (no rotary embedding or window yet).

    ``q``: [batch, seqlen_q, heads, head_dim]; ``k_cache``, ``v_cache``:
    [batch, seqlen_cache, kv_heads, head_dim] with the same strides
    (kv_heads dividing heads: grouped-query attention), contiguous along
    head_dim, rows 16-byte aligned. bf16 or f16, head dims 64, 128 and 256.
    ``cache_seqlens``: the keys of each batch (an int, or an i32 tensor
    [batch] read on the device; default the whole cache). ``k``, ``v``
    (torch, [batch, seqlen_new, kv_heads, head_dim]): new keys and values,
    written into the caches at ``cache_seqlens`` before attending (the
    caches must have room: what a tensor ``cache_seqlens`` says is not read
    back, so lengths beyond the cache are not caught -- tokens that do not
    fit overwrite the cache's last position, never memory outside it; an
    int one is checked). Paged (vLLM's cache): with ``block_table``, an i32 tensor
    [batch, max_pages] of page indices, the caches are page pools
    [num_pages, page_size, kv_heads, head_dim] (page_size a power of two
    from 16 to 256; key j of batch b is row j % page_size of page
    block_table[b, j // page_size]), and ``cache_seqlens`` is required; a
    page index outside the pool reads zeros (the table is not read back),
    and new tokens (k=, v=) are not taken. ``causal`` aligns the mask bottom-right to each batch's length
    (query i of seqlen_q sees keys j <= i + len - seqlen_q); with one query
    it changes nothing. ``num_splits``: key ranges per query block (0: the
    compiler's rule, from the batch, kv heads, cache length and SMs; 1: one
    kernel). ``config``: tile overrides (``#tile.attention_config`` fields
    such as ``{"block_n": 64, "stages": 4}``; the key ranges come from
    ``num_splits``). Returns the output [batch, seqlen_q, heads, head_dim] (and the
    f32 log-sum-exp [batch, heads, seqlen_q] with ``return_softmax_lse``).
    Keys past a batch's length are never read; a length above seqlen_cache
    counts as seqlen_cache, below 0 as 0 (a batch with no key gets zeros and
    an lse of -inf).
    """
    op = "tilec.attention_with_kvcache"
    if (k is None) != (v is None):
        raise ArgumentError(f"{op}: pass both k and v (the new tokens), or neither")
    if block_table is not None and (cache_seqlens is None or k is not None):
        raise ArgumentError(f"{op}: a paged cache (block_table) needs cache_seqlens and takes "
                            f"no new tokens (k=, v=)")
    lens = _seqlens(op, q, k_cache, cache_seqlens, block_table)
    if k is not None:
        lens = _append(op, k_cache, v_cache, k, v, lens, cache_seqlens)
    scale = None
    if softmax_scale is not None:
        scale = _attention_scale(op, softmax_scale)
    try:  # torch tensors: the plan of this call's metadata
        key = ("kvcache", q.shape, q.stride(), q.dtype, q.device, k_cache.shape,
               k_cache.stride(), k_cache.dtype, v_cache.stride(), lens.shape, lens.dtype,
               None if block_table is None else (block_table.shape, block_table.stride(),
                                                 block_table.dtype),
               None if out is None else (out.shape, out.stride(), out.dtype), scale,
               bool(causal), int(num_splits), chip,
               None if config is None else tuple(sorted(config.items())),
               _default_directory() if artifacts is None else artifacts)
        plan = _tls.plans.get(key)
    except Exception:  # noqa: BLE001 - not torch-style tensors: the checked path
        key = plan = None
    if plan is not None:
        extra_dyn = (lens.data_ptr(), None if block_table is None else block_table.data_ptr())
        result = _launch_attention_plan(plan, q, k_cache, v_cache, out, return_softmax_lse,
                                        extra_dyn)
        if result is not None:
            return result
    return _kvcache_checked(op, q, k_cache, v_cache, lens, scale, causal, num_splits,
                            return_softmax_lse, out, chip, artifacts, key, config, block_table)


def _seqlens(op, q, k_cache, cache_seqlens, block_table=None):
    """Each batch's key count as an i32 tensor [batch] on q's device."""
    if cache_seqlens is not None and not isinstance(cache_seqlens, int):
        return cache_seqlens
    Q, K = describe(q, "q"), describe(k_cache, "k_cache")
    if Q.ndim != 4 or K.ndim != 4:
        raise ArgumentError(f"{op}: q and k_cache must be 4-D, got shapes {list(Q.shape)} and "
                            f"{list(K.shape)}")
    positions = K.shape[1]
    if block_table is not None:  # the table's pages
        positions *= describe(block_table, "block_table").shape[-1]
    n = positions if cache_seqlens is None else cache_seqlens
    if not 0 <= n <= positions:
        raise ArgumentError(f"{op}: cache_seqlens = {n} is outside the cache's "
                            f"[0, {positions}] positions")
    key = (Q.kind, Q.device, Q.shape[0], n)
    lens = _filled_lens.get(key)
    if lens is None:
        lens = _allocate(Q, (Q.shape[0],), "i32")
        lens.fill(n) if Q.kind == "cai" else lens.fill_(n)
        if len(_filled_lens) >= _FILLED_LIMIT:
            _filled_lens.clear()
        _filled_lens[key] = lens
    return lens


def _append(op, k_cache, v_cache, k, v, lens, cache_seqlens):
    """Writes the new keys and values into the caches at each batch's
    length (on the device: no synchronization); returns the new lengths."""
    import torch
    if not all(isinstance(t, torch.Tensor) for t in (k_cache, v_cache, k, v, lens)):
        raise ArgumentError(f"{op}: k and v (new tokens) take torch tensors")
    if k.shape != v.shape or k.dim() != 4 or k.shape[0] != k_cache.shape[0] or \
            k.shape[2:] != k_cache.shape[2:]:
        raise ArgumentError(f"{op}: k and v must be [batch, seqlen_new, kv_heads, head_dim] = "
                            f"[{k_cache.shape[0]}, n, {k_cache.shape[2]}, {k_cache.shape[3]}], "
                            f"got {list(k.shape)} and {list(v.shape)}")
    new = k.shape[1]
    if isinstance(cache_seqlens, int) and cache_seqlens + new > k_cache.shape[1]:
        raise ArgumentError(f"{op}: {cache_seqlens} cached + {new} new tokens do not fit the "
                            f"cache's {k_cache.shape[1]} positions")
    rows = torch.arange(k.shape[0], device=k.device)[:, None]
    cols = lens.to(torch.int64)[:, None] + torch.arange(new, device=k.device)[None, :]
    # Positions past the cache (a length the host cannot see) land on its
    # last position: never outside the cache's memory.
    cols = cols.clamp(max=k_cache.shape[1] - 1) if new else cols
    k_cache[rows, cols] = k.to(k_cache.dtype)
    v_cache[rows, cols] = v.to(v_cache.dtype)
    return (lens + new).to(torch.int32)


def _check_operands(op, Q, K, V, L, O, T=None):
    """(batch, seqlen_q, heads, head_dim, kv heads, cache positions; the
    page size or 0) of operands that attention_with_kvcache takes, else the
    error."""
    for t in (Q, K, V):
        if t.ndim != 4:
            raise ArgumentError(f"{op}: {t.name} must be 4-D [batch, seq, heads, head_dim], got "
                                f"shape {list(t.shape)}")
        if t.dtype not in ("bf16", "f16"):
            raise DTypeError(f"{op}: {t.name} must be bf16 or f16, got {t.dtype}")
    if not Q.dtype == K.dtype == V.dtype:
        raise DTypeError(f"{op}: q, k_cache and v_cache must share a dtype, got {Q.dtype}, "
                         f"{K.dtype}, {V.dtype}")
    b, sq, h, d = Q.shape
    sk, hk = K.shape[1], K.shape[2]
    page = 0
    if T is not None:
        page = sk
        if T.dtype != "i32" or T.ndim != 2 or T.shape[0] != b or T.strides[1] != 1:
            raise ArgumentError(f"{op}: block_table must be an int32 tensor [{b}, max_pages] "
                                f"with contiguous rows, got {T.dtype} {list(T.shape)}")
        if page not in (16, 32, 64, 128, 256):
            raise ArgumentError(f"{op}: a paged cache's page_size (k_cache.shape[1]) must be a "
                                f"power of two from 16 to 256, got {page}")
        sk = page * T.shape[1]
    if K.shape != V.shape or (T is None and K.shape[0] != b) or K.shape[3] != d or hk == 0 \
            or h % hk:
        raise ArgumentError(f"{op}: incompatible shapes q {list(Q.shape)}, k_cache "
                            f"{list(K.shape)}, v_cache {list(V.shape)} (caches alike, same "
                            f"batch and head_dim, kv heads dividing q's heads)")
    if d not in (64, 128, 256):
        raise ArgumentError(f"{op}: head_dim must be 64, 128 or 256, got {d}")
    if K.strides != V.strides:
        raise ArgumentError(f"{op}: k_cache and v_cache must have the same strides, got "
                            f"{list(K.strides)} and {list(V.strides)}")
    for t in (Q, K):
        if t.strides[3] != 1:
            raise ArgumentError(f"{op}: {t.name} must be contiguous along head_dim, got "
                                f"strides {list(t.strides)}")
    if L.dtype != "i32" or L.shape != (b,):
        raise ArgumentError(f"{op}: cache_seqlens must be an int or an int32 tensor [{b}], got "
                            f"{L.dtype} {list(L.shape)}")
    if O is not None and (O.shape != Q.shape or O.dtype != Q.dtype or O.strides[3] != 1):
        raise ArgumentError(f"{op}: out must have q's shape and dtype ({list(Q.shape)}, "
                            f"{Q.dtype}) and be contiguous along head_dim")
    return b, sq, h, d, hk, sk, page


def _splits(op, num_splits, chip, b, sq, h, d, hk, sk, device_index):
    """The key ranges: ``num_splits``, or the compiler's rule for 0."""
    splits = int(num_splits)
    if splits < 0:
        raise ArgumentError(f"{op}: num_splits must be 0 (the rule) or a positive count, got "
                            f"{num_splits}")
    if splits == 0:
        rows, heads = (h // hk, hk) if sq == 1 else (sq, h)
        splits = attention_decode_splits(chip, b, heads, rows, sk, d,
                                         _device_num_sms(device_index))
    return splits


def _kvcache_checked(op, q, k_cache, v_cache, lens, scale, causal, num_splits,
                     return_lse, out, chip, artifacts, key, config=None, block_table=None):
    """attention_with_kvcache with every check spelled out; stores a plan
    under ``key`` when one is given."""
    Q, K, V = describe(q, "q"), describe(k_cache, "k_cache"), describe(v_cache, "v_cache")
    L = describe(lens, "cache_seqlens")
    O = describe(out, "out") if out is not None else None
    T = describe(block_table, "block_table") if block_table is not None else None
    device_index = _check_device(op, [Q, K, V, L] + [x for x in (O, T) if x is not None])
    b, sq, h, d, hk, sk, page = _check_operands(op, Q, K, V, L, O, T)
    if config and "splits" in config:
        raise ArgumentError(f"{op}: pass the key ranges as num_splits, not in config")
    allocated = out is None
    if out is None:
        out = _allocate(Q, Q.shape, Q.dtype)
        O = describe(out, "out")
    allocate_lse = _allocator(Q, (b, h, sq), "f32")
    lse = allocate_lse()
    if min(b, sq, h) == 0:
        return (out, lse) if return_lse else out
    chip, cubin_arch = _chip_and_arch(chip, device_index)
    one_query = sq == 1
    splits = _splits(op, num_splits, chip, b, sq, h, d, hk, sk, device_index)
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    name = attention_decode_name(Q.dtype, d, one_query, causal, splits, scale, config, page)
    stages = [_resolve(op, name,
                       lambda: attention_decode_source(Q.dtype, d, one_query, causal, splits,
                                                       name=name, scale=scale, config=config,
                                                       page_size=page)[1],
                       chip, cubin_arch, directory, device_index, kernel=kernel)
              for kernel in attention_decode_stage_names(name, splits)]
    values = {"Q": Q, "K": K, "V": V, "O": O, "LSE": describe(lse, "lse"), "LENS": L,
              "B": b, "H": h, "HK": hk, "SQ": sq, "SK": sk,
              "q_batch": Q.strides[0], "q_head": Q.strides[2], "q_seq": Q.strides[1],
              "o_batch": O.strides[0], "o_head": O.strides[2], "o_seq": O.strides[1],
              "kv_batch": K.strides[0], "kv_head": K.strides[2], "kv_seq": K.strides[1],
              "lse_batch": h * sq}
    if T is not None:
        values.update(TABLE=T, PAGES=K.shape[0], MAXP=T.shape[1])
    allocate = _allocator(Q, Q.shape, Q.dtype) if allocated and key is not None else None
    _launch_decode(op, stages, values, splits, key, device_index, allocate, allocate_lse)
    return (out, lse) if return_lse else out


def _launch_decode(op, stages, values, splits, key, device_index, allocate, allocate_lse):
    """Checks the launch values against each kernel's metadata and
    launches: one kernel, or the split and combine kernels with the split-KV
    workspace (the partial outputs, then the partial lse, in one f32
    buffer)."""
    Q = values["Q"]
    described = {"Q": "q", "K": "k_cache", "V": "v_cache", "O": "out", "LENS": "cache_seqlens",
                 "kv_batch": "k_cache.stride(0)", "kv_head": "k_cache.stride(2)",
                 "kv_seq": "k_cache.stride(1)"}
    if splits == 1:
        _check_metadata(op, stages[0][1], values, described)
        _launch_checked(key, *stages[0], values, Q.kind, device_index, _DECODE_DYNAMIC,
                        allocate=allocate, allocate_lse=allocate_lse)
        return
    d = Q.shape[3]
    rows = values["B"] * values["H"] * values["SQ"]
    if splits * rows * (d + 1) >= 2 ** 31:
        raise ArgumentError(f"{op}: {splits} key ranges of {rows} queries need a workspace "
                            f"over 2^31 elements; pass a smaller num_splits")
    allocate_workspace = _allocator(Q, (splits * rows * (d + 1),), "f32")
    buffer = allocate_workspace()
    W = describe(buffer, "the split-KV workspace")
    lse_offset = splits * rows * d * 4
    WL = TensorInfo(W.obj, W.name, W.kind, (splits * rows,), (1,), "f32", W.ptr + lse_offset,
                    W.device)
    values.update(WO=W, WL=WL, ROWS=rows, wo_split=rows * d)
    for _, meta in stages:
        _check_metadata(op, meta, values, described)
    _launch_stages(key, stages, values, Q.kind, device_index, _DECODE_DYNAMIC, allocate,
                   (buffer, allocate_workspace), offsets={"WO": 0, "WL": lse_offset},
                   allocate_lse=allocate_lse)
