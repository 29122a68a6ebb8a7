"""References of the GPU checks and how outputs are compared with them.

Every reference computes in ``dtype`` (float32 by default; float64 where a
check wants the product exact, ``dtype=torch.float64``) from the kernel's
own (low-precision) inputs, and every comparison is the largest absolute
error relative to the reference's largest magnitude (:func:`rel_err`).
Attention follows FlashAttention's conventions: grouped-query heads
(``H`` a multiple of ``HK``), the bottom-right causal mask (query ``i`` sees
keys ``j <= i + SK - SQ``), rows that see no key give 0 and an lse of -inf.
"""

import math


def _torch():
    import torch
    return torch


def _unmatched(out, ref):
    """Whether ``out`` is missing or holds a NaN or infinity where ``ref``
    holds another value (a masked -inf that both hold matches)."""
    torch = _torch()
    if out is None:
        return True
    return bool((~torch.isfinite(out) & ~(out == ref) & ~torch.isnan(ref)).any())


def rel_err(out, ref):
    """max |out - ref| / max |ref| over the finite elements (ref's magnitude
    1 when it is all zero); inf when ``out`` is None or non-finite where the
    reference is not."""
    if out is not None and out.numel() == 0:
        return 0.0
    if out is not None:
        out, ref = out.double(), ref.double()
    if _unmatched(out, ref):
        return float("inf")
    finite = ref.isfinite()
    scale = ref[finite].abs().max().item() if finite.any() else 1.0
    return (out - ref)[finite].abs().max().item() / (scale or 1.0) if finite.any() else 0.0


def rms_err(out, ref):
    """||out - ref|| / ||ref|| (Frobenius; inf as :func:`rel_err`)."""
    torch = _torch()
    if out is not None:
        out, ref = out.double(), ref.double()
    if _unmatched(out, ref):
        return float("inf")
    return (torch.linalg.vector_norm(out - ref)
            / torch.linalg.vector_norm(ref).clamp_min(1e-30)).item()


ACTIVATIONS = ("relu", "gelu", "silu")


def activation(x, name):
    """The epilogue's activation (None: identity)."""
    torch = _torch()
    if name is None:
        return x
    return {"relu": torch.relu, "gelu": torch.nn.functional.gelu,
            "silu": torch.nn.functional.silu}[name](x)


def gemm(a, b, *, alpha=None, beta=None, c=None, bias=None, act=None, scale_a=None,
         scale_b=None, dtype=None):
    """act(alpha * (scale_a * A @ B * scale_b) + beta * C + bias) in ``dtype``
    (float32 by default); batched when A and B are (bmm). Scales broadcast
    (per row of A, per column of B)."""
    torch = _torch()
    dtype = dtype or torch.float32
    acc = a.to(dtype) @ b.to(dtype)
    if scale_a is not None:
        acc = acc * scale_a.to(dtype)
    if scale_b is not None:
        acc = acc * scale_b.to(dtype)
    return epilogue(acc, alpha=alpha, beta=beta, c=c, bias=bias, act=act)


def epilogue(acc, *, alpha=None, beta=None, c=None, bias=None, act=None):
    """act(alpha * acc + beta * C + bias) in acc's dtype."""
    if alpha is not None:
        acc = alpha * acc
    if beta is not None:
        acc = acc + beta * c.to(acc.dtype)
    if bias is not None:
        acc = acc + bias.to(acc.dtype)
    return activation(acc, act)


def block_scaled_gemm(a, b, scale_a, scale_b, block=128, dtype=None):
    """DeepSeek-style blockwise scaling: A (M x K) scaled per row and
    ``block`` columns of K (scale_a [M, ceil(K/block)]), B (K x N) per
    ``block`` x ``block`` block (scale_b [ceil(K/block), ceil(N/block)])."""
    torch = _torch()
    dtype = dtype or torch.float32
    k, n = b.shape
    kb = torch.arange(k, device=a.device) // block
    nb = torch.arange(n, device=a.device) // block
    return (a.to(dtype) * scale_a[:, kb].to(dtype)) @ (b.to(dtype) * scale_b[kb][:, nb].to(dtype))


def grouped_gemm(a, b, sizes, bias=None, act=None, dtype=None):
    """The grouped (MoE) GEMM: rows ``sizes[g]`` of A times B[g], group
    after group; rows past the last group are NaN. Returns (out, end) with
    ``end`` the first row past the groups."""
    torch = _torch()
    dtype = dtype or torch.float32
    out = torch.full((a.shape[0], b.shape[-1]), float("nan"), device=a.device, dtype=dtype)
    start = 0
    for g, rows in enumerate(sizes):
        part = a[start:start + rows].to(dtype) @ b[g].to(dtype)
        if bias is not None:
            part = part + bias.to(dtype)
        out[start:start + rows] = activation(part, act)
        start += rows
    return out, start


def causal_mask(sq, sk, device="cuda"):
    """The bottom-right causal mask: True where query i sees key j."""
    torch = _torch()
    i = torch.arange(sq, device=device)[:, None]
    j = torch.arange(sk, device=device)[None, :]
    return j <= i + (sk - sq)


def visible_pairs(s, window=None):
    """Query-key pairs of a causal attention over ``s`` tokens (self
    attention), each query seeing at most ``window`` keys (itself
    included) when given: the work a variant's TFLOP/s are counted over."""
    if window is None:
        return s * (s + 1) // 2
    return sum(min(i + 1, window) for i in range(s))


def repeat_kv(x, heads):
    """K or V [B, HK, S, D] repeated to ``heads`` query heads (GQA)."""
    return x.repeat_interleave(heads // x.shape[1], dim=1)


def attention_scores(q, k, causal, scale=None, mask=None, score_mod=None):
    """Scores QKᵀ * scale [B, H, SQ, SK] in q's dtype, through
    ``score_mod(s, qi, kj)`` (query and key indices [SQ, 1] and [1, SK]) when
    given, -inf where masked."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ repeat_kv(k, q.shape[1]).transpose(-1, -2) * scale
    if score_mod is not None:
        torch = _torch()
        qi = torch.arange(q.shape[2], device=q.device)[:, None]
        kj = torch.arange(k.shape[2], device=q.device)[None, :]
        s = score_mod(s, qi, kj)
    if causal:
        s = s.masked_fill(~causal_mask(q.shape[2], k.shape[2], q.device), float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return s


def attention_tracked(q, k, v, causal, scale=None, score_mod=None):
    """Attention through autograd-tracked torch ops in q's dtype: the output
    (0 for rows that see no key) and the natural-log lse (-inf there)."""
    torch = _torch()
    s = attention_scores(q, k, causal, scale, score_mod=score_mod)
    lse = torch.logsumexp(s, -1)
    p = torch.where(torch.isfinite(lse)[..., None], torch.exp(s - lse[..., None]),
                    torch.zeros_like(s))
    return p @ repeat_kv(v, q.shape[1]), lse


def attention(q, k, v, causal=False, scale=None, dtype=None, score_mod=None):
    """(O, lse) in ``dtype`` (float32 by default) for q [B, H, SQ, D], k and
    v [B, HK, SK, D]; ``score_mod`` as in attention_scores."""
    torch = _torch()
    dtype = dtype or torch.float32
    with torch.no_grad():
        return attention_tracked(q.to(dtype), k.to(dtype), v.to(dtype), causal, scale,
                                 score_mod)


def attention_backward(q, k, v, do, causal=False, scale=None, dtype=None):
    """(O, lse, (dQ, dK, dV)) in ``dtype`` (float32 by default) through
    autograd; dK and dV summed over the query heads that share them."""
    torch = _torch()
    dtype = dtype or torch.float32
    qf, kf, vf = (x.detach().to(dtype).requires_grad_() for x in (q, k, v))
    o, lse = attention_tracked(qf, kf, vf, causal, scale)
    grads = torch.autograd.grad(o, (qf, kf, vf), do.to(dtype))
    return o.detach(), lse.detach(), grads


def lse_error(lse, ref_lse):
    """(largest absolute error over the finite rows, whether -inf rows
    match) of a kernel's lse against the reference's (natural log)."""
    torch = _torch()
    finite = torch.isfinite(ref_lse)
    err = (lse.float() - ref_lse.float())[finite].abs().max().item() if finite.any() else 0.0
    return err, bool(torch.equal(torch.isfinite(lse), finite))


def sdpa(q, k, v, causal=False, scale=None):
    """torch's scaled_dot_product_attention in q's dtype with the same
    conventions (GQA repeated, bottom-right causal mask): the anchor whose
    own error bounds a kernel's."""
    torch = _torch()
    mask = causal_mask(q.shape[2], k.shape[2], q.device) if causal else None
    h = q.shape[1]
    out = torch.nn.functional.scaled_dot_product_attention(
        q, repeat_kv(k, h), repeat_kv(v, h), attn_mask=mask, scale=scale)
    return out.nan_to_num(0.0)
