"""Gradients: attention backward (FlashAttention-2's algorithm as block
programs, :mod:`tilec.backward_kernels`) on torch tensors.

:func:`attention_backward` is what ``tilec.attention``'s autograd formula
(:mod:`tilec.torch_ops`) calls; it can also be called directly with the
forward's output and row log-sum-exp (``tilec.attention(...,
return_lse=True)``).
"""

import math

from . import artifacts as _artifacts
from . import backward_kernels
from .ops import ArgumentError, DTypeError, _chip_and_arch, _resolve

_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "f16"}


def _check(op, q, k, v, out, lse, grad_out):
    import torch
    tensors = dict(q=q, k=k, v=v, out=out, grad_out=grad_out)
    for name, t in list(tensors.items()) + [("lse", lse)]:
        if not isinstance(t, torch.Tensor):
            raise ArgumentError(f"{op}: {name} must be a torch tensor, got {type(t).__name__}")
    if q.device.type != "cuda":
        raise ArgumentError(f"{op}: q is on {q.device}; tilec kernels need CUDA tensors")
    for name, t in list(tensors.items()) + [("lse", lse)]:
        if t.device != q.device:
            raise ArgumentError(f"{op}: {name} is on {t.device}; all tensors must be on q's "
                                f"device ({q.device})")
    for name, t in tensors.items():
        if t.dim() != 4:
            raise ArgumentError(f"{op}: {name} must be [batch, heads, seq, head_dim], got "
                                f"shape {list(t.shape)}")
        if t.dtype != q.dtype:
            raise DTypeError(f"{op}: {name} is {t.dtype} but q is {q.dtype}")
    dtype = _DTYPES.get(str(q.dtype))
    if dtype is None:
        raise DTypeError(f"{op}: attention backward takes bf16 or f16 tensors, got {q.dtype}")
    b, h, sq, d = q.shape
    hk = k.shape[1]
    if d not in backward_kernels.HEAD_DIMS:
        raise ArgumentError(f"{op}: head_dim must be one of {backward_kernels.HEAD_DIMS} for "
                            f"the backward, got {d}")
    if (k.shape != v.shape or k.shape[0] != b or k.shape[3] != d or hk == 0 or h % hk):
        raise ArgumentError(f"{op}: incompatible shapes q {list(q.shape)}, k {list(k.shape)}, "
                            f"v {list(v.shape)} (k and v alike, same batch and head_dim, k "
                            f"heads dividing q heads)")
    for name in ("out", "grad_out"):
        if tensors[name].shape != q.shape:
            raise ArgumentError(f"{op}: {name} must have q's shape {list(q.shape)}, got "
                                f"{list(tensors[name].shape)}")
    if lse.shape != (b, h, sq) or lse.dtype != torch.float32:
        raise ArgumentError(f"{op}: lse must be float32 [batch, heads, seq_q] = "
                            f"{[b, h, sq]}, got {lse.dtype} {list(lse.shape)}")
    return dtype


def attention_backward(q, k, v, out, lse, grad_out, *, causal=False, scale=None, grad_lse=None,
                       deterministic=True, chip=None, artifacts=None):
    """Gradients ``(dq, dk, dv)`` of ``out = softmax(scale * q @ k^T [+
    causal mask]) @ v`` given ``grad_out``, from the forward's ``out`` and
    natural-log row log-sum-exp ``lse`` (f32 [batch, heads, seq_q], as
    ``tilec.attention(..., return_lse=True)`` returns it).

    torch tensors, bf16 or f16, ``[batch, heads, seq, head_dim]`` with head
    dims 64 or 128; k and v may have fewer heads (grouped-query attention:
    each K/V head's gradient sums over its group) and another sequence
    length; ``causal`` is FlashAttention's bottom-right aligned mask, as in
    the forward. ``scale`` defaults to ``1/sqrt(head_dim)``. ``grad_lse``:
    the gradient of a returned lse, if the loss used it.

    ``deterministic=True``: dQ comes from its own kernel, not from atomics,
    so the same inputs give the same bits. ``deterministic=False``: the
    dK/dV kernel also accumulates dQ with f32 atomic adds (five products
    per block pair instead of seven; dQ may differ in its last bits from
    run to run). Runs on the current torch stream.
    """
    import torch
    op = "tilec.attention_backward"
    dtype = _check(op, q, k, v, out, lse, grad_out)
    b, h, sq, d = q.shape
    hk, sk = k.shape[1], k.shape[2]
    scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
    if not math.isfinite(scale):
        raise ArgumentError(f"{op}: scale must be finite, got {scale}")
    # Contiguous rows of head_dim elements (64 or 128) keep every stride a
    # multiple of 8 elements, which the kernels' TMA descriptors and
    # cp.async need (contiguous() returns a contiguous tensor itself).
    q, k, v, out, grad_out, lse = (t.contiguous() for t in (q, k, v, out, grad_out, lse))
    dq = torch.empty_like(q)
    # One dK / dV per query head; a group's heads are summed below.
    dk = torch.empty((b, h, sk, d), dtype=q.dtype, device=q.device)
    dv = torch.empty_like(dk)
    if min(b, h, sq, sk) == 0:
        return dq.zero_(), torch.zeros_like(k), torch.zeros_like(v)
    device_index = q.device.index if q.device.index is not None else torch.cuda.current_device()
    chip, cubin_arch = _chip_and_arch(chip, device_index)
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    l2 = torch.empty((b, h, sq), dtype=torch.float32, device=q.device)
    delta = torch.empty_like(l2)
    if deterministic:
        tiles = backward_kernels.tiles_for(chip, d)
        sources = (backward_kernels.pre_source(dtype, d),
                   backward_kernels.dq_source(dtype, d, causal, tiles=tiles),
                   backward_kernels.dkdv_source(dtype, d, causal, tiles=tiles))
        args = backward_kernels.launch_args(q, k, v, out, grad_out, lse, l2, delta, dq, dk, dv,
                                            scale)
    else:
        sources = backward_kernels.atomic_sources(
            dtype, d, causal, tiles=backward_kernels.atomic_tiles_for(chip, d))
        # The f32 dQ accumulator, zeroed by the preprocessing kernel.
        dqa = torch.empty((b, h, sq, d), dtype=torch.float32, device=q.device)
        args = backward_kernels.atomic_launch_args(q, k, v, out, grad_out, lse, l2, delta, dqa,
                                                   dq, dk, dv, scale)
    pre, first, second = (
        _resolve(op, name, lambda: source, chip, cubin_arch, directory, device_index)[0]
        for name, source in sources)
    pre_args, first_args, second_args = args
    with torch.cuda.device(q.device):
        pre(*pre_args)
        if grad_lse is not None:
            # d lse / d S = P: a gradient on lse enters dS = P (dP - Delta)
            # as a shift of Delta.
            delta -= grad_lse.float()
        # Deterministic: the dQ kernel, then the dK/dV one; atomic: the
        # dK/dV kernel accumulating dQ, then dQ's scaling.
        first(*first_args)
        second(*second_args)
    if hk != h:
        g = h // hk
        dk = dk.view(b, hk, g, sk, d).sum(2, dtype=torch.float32).to(q.dtype)
        dv = dv.view(b, hk, g, sk, d).sum(2, dtype=torch.float32).to(q.dtype)
    return dq, dk, dv
