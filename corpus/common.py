"""Shared helpers of the corpus entries (GPU machine only: imports torch).

Every entry ``corpus/<name>.py`` builds its inputs with these helpers, so
that all entries agree on what a correctness check means:

* inputs are random and never zero (``randn``, ``int8``), so that an
  element a kernel forgets reads as a wrong value, not as a lucky zero;
* matrices have row strides padded to 16 elements (``matrix``), as the
  programs' ``tile.divisibility = 16`` hints promise, with NaN in the
  padding, so that a kernel reading past a row's end poisons its result;
* outputs start as NaN (``poisoned``), so that an element a kernel does not
  write fails the check;
* ``reference`` functions compute in float64 (``f64``) and errors are the
  largest absolute error relative to the reference's largest magnitude
  (``rel_err``).

Triton twins share ``tile2d`` / ``store2d`` (masked 2-D loads and stores
at any strides) and ``online_softmax_step`` (one key block of the
FlashAttention-2 loop). Attention entries share ``qkv``, ``attention_reference`` (the float64
softmax(QKᵀ) V with a score function and a mask) and ``flex`` (the
FlexAttention anchor, compiled once per score/mask function).
"""

import math

import torch
import triton
import triton.language as tl

from scripts.harness import references, tensors

LOG2E = 1.4426950408889634


def gen(seed):
    """A CUDA generator seeded with ``seed`` (the harness's)."""
    return tensors.generator(seed)


def ld(cols):
    """The row stride of a padded matrix: ``cols`` rounded up to 16."""
    return (cols + 15) // 16 * 16


def randn(shape, dtype, g, scale=1.0):
    """Normal random values times ``scale`` in ``dtype``, none zero (the
    harness's, from the generator ``g``)."""
    return tensors.randn(shape, dtype, generator=g, scale=scale)


def int8(shape, g):
    """Random int8 values in [-127, 127] without zero."""
    mag = torch.randint(1, 128, shape, device="cuda", generator=g)
    sign = torch.randint(0, 2, shape, device="cuda", generator=g) * 2 - 1
    return (mag * sign).to(torch.int8)


def matrix(rows, cols, dtype, g, scale=1.0):
    """A rows x cols view of random values whose row stride is ``ld(cols)``;
    the padding past each row holds NaN (zeros for integer types)."""
    buf = torch.full((rows, ld(cols)), float("nan") if dtype.is_floating_point else 0,
                     device="cuda", dtype=torch.float32).to(dtype)
    if dtype == torch.int8:
        buf[:, :cols] = int8((rows, cols), g)
    else:
        buf[:, :cols] = randn((rows, cols), dtype, g, scale)
    return buf[:, :cols]


def poisoned(rows, cols, dtype):
    """A rows x cols output view (row stride ``ld(cols)``) filled with NaN."""
    buf = torch.full((rows, ld(cols)), float("nan"), device="cuda", dtype=torch.float32)
    return buf.to(dtype)[:, :cols]


def nan_like(t):
    """A NaN-filled tensor of ``t``'s shape and dtype (contiguous)."""
    return torch.full(t.shape, float("nan"), device=t.device, dtype=torch.float32).to(t.dtype)


def f64(*tensors):
    """The tensors as float64 (for references)."""
    out = tuple(t.double() for t in tensors)
    return out if len(out) > 1 else out[0]


def rel_err(out, ref):
    """max |out - ref| / max |ref| in float64 (the harness's, which every GPU
    check compares by); inf when ``out`` holds a NaN (an element the kernel
    did not write) or the shapes differ."""
    if tuple(out.shape) != tuple(ref.shape):
        return float("inf")
    return references.rel_err(out, ref)


def sm_count():
    """The number of SMs of the current GPU."""
    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


# ---------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------

def attention_inputs(shape, D, seed, heads_kv=None):
    """``make_inputs`` of the attention entries: shape (B, H, S), bf16
    Q, K, V (contiguous [B, H, S, D]; heads_kv heads for K and V), NaN
    output O, the scale 1 / sqrt(D), and the generator for more inputs."""
    B, H, S = shape[:3]
    g = gen(seed)
    q, k, v, o = qkv(B, H, S, D, g, heads_kv)
    return dict(shape=shape, q=q, k=k, v=v, o=o, scale=default_scale(D), g=g)


def qkv(B, H, S, D, g, heads_kv=None):
    """Contiguous bf16 Q [B, H, S, D], K and V [B, heads_kv or H, S, D] and
    a NaN-filled O like Q."""
    hk = heads_kv or H
    q = randn((B, H, S, D), torch.bfloat16, g)
    k = randn((B, hk, S, D), torch.bfloat16, g)
    v = randn((B, hk, S, D), torch.bfloat16, g)
    return q, k, v, nan_like(q)


def attention_reference(q, k, v, scale, score=None, keep=None):
    """softmax(score(scale QKᵀ) masked by keep) V in float64, head by head
    group (K/V heads repeated for grouped-query attention).
    ``score(s, i, j)`` and ``keep(i, j)`` take [S, S] index tensors (query
    i, key j, broadcast over batch and heads, or [B, H, S, S] results)."""
    q, k, v = f64(q, k, v)
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    S = q.shape[2]
    i = torch.arange(S, device=q.device)[:, None]
    j = torch.arange(S, device=q.device)[None, :]
    s = (q @ k.transpose(-1, -2)) * scale
    if score is not None:
        s = score(s, i, j)
    if keep is not None:
        s = s.masked_fill(~keep(i, j), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def attention_flops(B, H, S, D, causal=False):
    """Matmul FLOPs of an attention forward (half with the causal mask)."""
    return 4.0 * B * H * S * S * D / (2 if causal else 1)


_COMPILED = {}


def flex(io, key, score_mod=None, mask_mod=None, enable_gqa=False):
    """FlexAttention under torch.compile, the anchor of attention variants,
    on ``io``'s q, k, v and scale: the compiled function is cached per
    ``key`` (the entry's name), the block mask of ``mask_mod`` in ``io``
    (built on the first call, which the timing's warm-up calls make)."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    fn = _COMPILED.get(key)
    if fn is None:
        fn = _COMPILED[key] = torch.compile(flex_attention, dynamic=False)
    q = io["q"]
    if mask_mod is not None and "block_mask" not in io:
        B, H, S = q.shape[0], q.shape[1], q.shape[2]
        io["block_mask"] = create_block_mask(mask_mod, B, H, S, S, device="cuda")
    return fn(q, io["k"], io["v"], score_mod=score_mod, block_mask=io.get("block_mask"),
              scale=io["scale"], enable_gqa=enable_gqa)


def default_scale(D):
    """The usual softmax scale 1 / sqrt(D)."""
    return 1.0 / math.sqrt(D)


# ---------------------------------------------------------------------------
# Triton building blocks of the twins
# ---------------------------------------------------------------------------

@triton.jit
def tile2d(ptr, r, c, sr, sc, R, C):
    """The tile ptr[r, c] (element (r, c) at ptr + r * sr + c * sc), zero
    where r >= R or c >= C."""
    return tl.load(ptr + r[:, None] * sr + c[None, :] * sc,
                   mask=(r[:, None] < R) & (c[None, :] < C), other=0.0)


@triton.jit
def store2d(ptr, value, r, c, sr, R, C):
    """Stores ``value`` at ptr[r, c] (row stride ``sr``, unit column
    stride) where r < R and c < C, cast to the pointer's element type."""
    tl.store(ptr + r[:, None] * sr + c[None, :], value.to(ptr.dtype.element_ty),
             mask=(r[:, None] < R) & (c[None, :] < C))


@triton.jit
def online_softmax_step(acc, m_i, l_i, s, v, EXP2: tl.constexpr):
    """Folds one key block into the running (acc, m_i, l_i): ``s`` holds the
    block's scores, -inf where masked, in log2 units when EXP2 (exp2) and
    natural units otherwise (exp); ``v`` the block's values."""
    m_new = tl.maximum(m_i, tl.max(s, 1))
    if EXP2:
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
    else:
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    acc = tl.dot(p.to(v.dtype), v, acc)
    return acc, m_new, l_i
