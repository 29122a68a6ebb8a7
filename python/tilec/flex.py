"""``tilec.flex_attention`` and ``tilec.create_block_mask``: FlexAttention's
interface (``torch.nn.attention.flex_attention``) on ``tile.attention``.

``score_mod(score, b, h, q_idx, kv_idx)`` and ``mask_mod(b, h, q_idx,
kv_idx)`` are plain Python callables, traced once into the op's regions
(:mod:`tilec.mods`; no torch.compile). Kernels are cached by the traced
text, so the same callables reuse one kernel.

What differs from FlexAttention today:

- Blocks are skipped by bounds where the mask compares indices: the
  expansion reads the keys a query block may see off the mask's
  comparisons (``q_idx >= kv_idx``, ``q_idx - kv_idx < w``, ``kv_idx <
  prefix`` under ``&`` and ``|``) and visits only their blocks; a mask that
  is exactly ``q_idx >= kv_idx`` with Q_LEN == KV_LEN runs the plain causal
  kernel. A mask on data (it reads a captured tensor, such as document
  ids) gets FlexAttention's block mask: create_block_mask evaluates it on
  the device with torch's ``create_block_mask`` and the kernel runs over
  each query block's listed key blocks (``tile.attention``'s
  ``block_list``), skipping the mask_mod in the wholly visible ones.
- Forward only: there is no backward yet (a call that needs a gradient
  raises), and torch.compile sees the call as opaque Python.
- Captured tensors are tables: an int32 or float32 tensor indexed by the
  traced values (ALiBi's slopes[h], document ids doc[b, q_idx]) is read in
  the kernel (:mod:`tilec.mods`); other dtypes raise. Without torch,
  create_block_mask makes no block list and such a mask is evaluated in
  every block its index comparisons allow.
"""

import functools
import re

from . import mods as _mods
from .errors import ArgumentError
from .op_attention import _attention_mods, _attention_scale


class BlockMask:
    """What :func:`create_block_mask` made: the traced mask_mod and the
    sizes it is for (``B``/``H`` of None: any); for a mask on data, the
    blocks each query block visits (``block_list``, a :class:`BlockList`,
    or None)."""

    def __init__(self, mask_mod, region, B, H, Q_LEN, KV_LEN, BLOCK_SIZE, block_list=None):
        self.mask_mod, self.region = mask_mod, region
        self.shape = (B, H, Q_LEN, KV_LEN)
        self.BLOCK_SIZE = BLOCK_SIZE
        self.block_list = block_list

    def __repr__(self):
        return f"BlockMask(shape={self.shape}, mask_mod={self.mask_mod!r})"


class BlockList(str):
    """The key blocks (128 keys) each query block (128 queries) of a mask
    on data visits: ``num`` (i32 [B, H, QB]) and ``indices`` (i32 [B, H,
    QB, N]), the first ``full`` (i32 [B, H, QB]) of them wholly visible
    (the kernel skips the mask_mod there); B or H 1 where the mask is the
    same for all. A ``str`` ("block_list_full"): the third element of a
    kernel's mods, naming it."""

    def __new__(cls, num, indices, full):
        self = super().__new__(cls, "block_list_full")
        self.num, self.indices, self.full = num, indices, full
        return self


def _block_list(mask_mod, B, H, Q_LEN, KV_LEN, device):
    """FlexAttention's block mask of ``mask_mod`` (torch's
    ``create_block_mask``, evaluated on the device) as one list per query
    block: its fully visible key blocks, then its partially visible ones;
    or None without torch or where torch cannot evaluate the callable
    (every block is then visited)."""
    try:
        import torch
        from torch.nn.attention.flex_attention import create_block_mask as torch_block_mask
        m = torch_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=device, BLOCK_SIZE=128)
    except Exception:  # noqa: BLE001 - no torch, or a callable torch cannot vmap
        return None
    num, indices, full = m.kv_num_blocks, m.kv_indices, torch.zeros_like(m.kv_num_blocks)
    if m.full_kv_num_blocks is not None:
        full = m.full_kv_num_blocks
        slots = torch.arange(indices.shape[-1], device=indices.device)
        listed = torch.cat([slots < full[..., None], slots < num[..., None]], -1)
        both = torch.cat([m.full_kv_indices, indices], -1)
        order = torch.argsort((~listed).to(torch.int8), dim=-1, stable=True)
        indices = torch.gather(both, -1, order)
        num = num + full
    as_i32 = (lambda t: t.to(torch.int32).contiguous())
    return BlockList(as_i32(num), as_i32(indices), as_i32(full))


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device="cuda", BLOCK_SIZE=128):
    """FlexAttention's ``create_block_mask``: ``mask_mod(b, h, q_idx,
    kv_idx)`` -> whether the query sees the key. The callable is traced
    here (an unsupported one raises :class:`tilec.mods.ModTraceError` now);
    nothing runs on the device."""
    if not callable(mask_mod):
        raise ArgumentError("create_block_mask: mask_mod must be callable")
    for name, x in (("Q_LEN", Q_LEN), ("KV_LEN", KV_LEN)):
        if not isinstance(x, int) or x < 0:
            raise ArgumentError(f"create_block_mask: {name} must be a non-negative int, got {x!r}")
    region = _mods.trace_mask_mod(mask_mod)
    # A mask on data (it reads a captured tensor): the blocks it visits, as
    # FlexAttention computes them; index-only masks are bounded by the
    # expansion.
    listed = _block_list(mask_mod, B, H, Q_LEN, KV_LEN, device) if region.tables else None
    return BlockMask(mask_mod, region, B, H, Q_LEN, KV_LEN, BLOCK_SIZE, listed)


_CAUSAL = re.compile(r"^\s*(%v\d+) = arith\.cmpi (?:sge, %q_idx, %kv_idx|sle, %kv_idx, %q_idx)"
                     r" : i32$")


def causal_part(region):
    """How a mask_mod region's result relates to ``q_idx >= kv_idx``:
    "only" (it is exactly that), "implied" (that under ``&``), or None."""
    # Memoized on the plain text: a trace keeps its captured tensors, which
    # the cache must not hold on to.
    return _causal_part(str(region))


@functools.lru_cache(maxsize=256)
def _causal_part(region):
    lines = region.splitlines()
    causal = {m.group(1) for line in lines if (m := _CAUSAL.match(line))}
    ands = {}
    for line in lines:
        m = re.match(r"^\s*(%v\d+) = arith\.andi (%\w+), (%\w+) : i1$", line)
        if m:
            ands[m.group(1)] = (m.group(2), m.group(3))
    result = re.search(r"tile\.yield (%\w+) : i1", region).group(1)
    if result in causal:
        return "only"

    def implies(v):
        return v in causal or (v in ands and any(implies(x) for x in ands[v]))
    return "implied" if implies(result) else None


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None,
                   enable_gqa=False, return_lse=False, kernel_options=None, *, chip=None,
                   artifacts=None):
    """FlexAttention's forward on tile.attention (module doc): ``query``
    [B, Hq, Q_LEN, D], ``key``/``value`` [B, Hkv, KV_LEN, D] (bf16 or f16;
    D 64, 128 or 256; contiguous in their last two dimensions); ``scale``
    default ``1/sqrt(D)``; ``enable_gqa`` lets Hkv divide Hq. Returns the
    output, and the natural-log log-sum-exp [B, Hq, Q_LEN] (f32) with
    ``return_lse`` (-inf for rows that see no key). ``kernel_options`` is
    accepted for FlexAttention's signature and must be empty."""
    op = "tilec.flex_attention"
    if kernel_options:
        raise ArgumentError(f"{op}: kernel_options are not supported")
    _check_no_grad(op, query, key, value)
    shape_q, shape_k = tuple(query.shape), tuple(key.shape)
    if len(shape_q) != 4 or len(shape_k) != 4:
        raise ArgumentError(f"{op}: expected 4-D [batch, heads, seq, head_dim] tensors")
    if shape_q[1] != shape_k[1] and not enable_gqa:
        raise ArgumentError(f"{op}: query has {shape_q[1]} heads and key {shape_k[1]}: pass "
                            "enable_gqa=True for grouped-query attention")
    if block_mask is not None:
        if not isinstance(block_mask, BlockMask):
            raise ArgumentError(f"{op}: block_mask must come from tilec.create_block_mask")
        _check_block_mask(op, block_mask, shape_q, shape_k)
    mods, causal = flex_regions(score_mod, block_mask, shape_q[2], shape_k[2])
    if scale is not None:
        scale = _attention_scale(op, scale)
    return _attention_mods(query, key, value, causal, return_lse, chip, artifacts, scale, mods,
                           op)


def flex_regions(score_mod, block_mask, q_len, kv_len):
    """(the op's (score_mod, mask_mod) region texts or None, causal) for a
    flex_attention call: the kernel it runs (precompiling it elsewhere
    takes the same)."""
    score = _mods.trace_score_mod(score_mod) if score_mod is not None else None
    mask, causal, listed = None, False, None
    if block_mask is not None:
        mask = block_mask.region
        part = causal_part(mask) if q_len == kv_len else None
        causal = part is not None
        if part == "only":
            mask = None
        listed = block_mask.block_list
    if listed is not None:
        return (score, mask, listed), causal
    return ((score, mask) if (score or mask) else None), causal


def _check_block_mask(op, block_mask, shape_q, shape_k):
    B, H, q_len, kv_len = block_mask.shape
    if (q_len, kv_len) != (shape_q[2], shape_k[2]):
        raise ArgumentError(f"{op}: the block mask is for Q_LEN={q_len}, KV_LEN={kv_len}; the "
                            f"inputs have {shape_q[2]} and {shape_k[2]}")
    if B not in (None, 1, shape_q[0]) or H not in (None, 1, shape_q[1]):
        raise ArgumentError(f"{op}: the block mask is for B={B}, H={H}; the query has "
                            f"B={shape_q[0]}, H={shape_q[1]}")


def _check_no_grad(op, *tensors):
    import sys
    torch = sys.modules.get("torch")
    if torch is None or not torch.is_grad_enabled():
        return
    if any(getattr(t, "requires_grad", False) for t in tensors):
        raise ArgumentError(f"{op}: no backward yet: call it under torch.no_grad() or on "
                            "tensors that do not require grad")
