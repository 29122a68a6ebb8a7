"""Gradients: attention backward on torch tensors, through the named op
``tile.attention_backward`` (:mod:`tilec.backward_op`): the compiler splits
it into its stage kernels and expands each into the chip's block programs
(FlashAttention-2's algorithm on mma.sync, FlashAttention-3's on sm_90a:
TMA, wgmma, warp specialization).

:func:`attention_backward` is what ``tilec.attention``'s autograd formula
(:mod:`tilec.torch_ops`) calls; it can also be called directly with the
forward's output and row log-sum-exp (``tilec.attention(...,
return_lse=True)``).
"""

import math

from . import artifacts as _artifacts
from . import backward_op
from .errors import ArgumentError, DTypeError
from .plans import _resolve
from .targets import _chip_and_arch

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
    if d not in backward_op.HEAD_DIMS:
        raise ArgumentError(f"{op}: head_dim must be one of {backward_op.HEAD_DIMS} for "
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


def _expanded(heads, kv_heads, atomic):
    """Whether the op sums each group's dK / dV itself (its expanded form,
    deterministic grouped-query attention), or writes one per query head
    that :func:`attention_backward` sums (the atomic mode, measured on the
    H200 in that form only)."""
    return kv_heads != heads and not atomic


def _stage_kernels(op, dtype, head_dim, causal, atomic, expanded, chip, cubin_arch, directory,
                   device_index):
    """[(launcher, metadata)] of tile.attention_backward's stage kernels in
    launch order (:mod:`tilec.backward_op`): precompiled in ``directory``,
    else compiled (one module, its stages split by the compiler)."""
    name, source = backward_op.source(dtype, head_dim, causal, atomic, expanded)
    return [_resolve(op, name, lambda: source, chip, cubin_arch, directory, device_index,
                     kernel=kernel)
            for kernel in backward_op.stage_names(dtype, head_dim, causal, atomic, expanded)]


def attention_backward(q, k, v, out, lse, grad_out, *, causal=False, scale=None, grad_lse=None,
                       deterministic=True, chip=None, artifacts=None):
    """Gradients ``(dq, dk, dv)`` of ``out = softmax(scale * q @ k^T [+
    causal mask]) @ v`` given ``grad_out``, from the forward's ``out`` and
    natural-log row log-sum-exp ``lse`` (f32 [batch, heads, seq_q], as
    ``tilec.attention(..., return_lse=True)`` returns it).

    torch tensors, bf16 or f16, ``[batch, heads, seq, head_dim]`` with head
    dims 64, 128 or 256; k and v may have fewer heads (grouped-query attention:
    each K/V head's gradient sums over its group) and another sequence
    length; ``causal`` is FlashAttention's bottom-right aligned mask, as in
    the forward. ``scale`` defaults to ``1/sqrt(head_dim)``. ``grad_lse``:
    the gradient of a returned lse, if the loss used it.

    ``deterministic=True``: dQ comes from its own kernel, not from atomics,
    so the same inputs give the same bits; with grouped-query K/V the op
    sums each group's dK / dV in a last stage. ``deterministic=False``: the
    dK/dV kernel also accumulates dQ with f32 atomic adds (five products
    per block pair instead of seven; dQ may differ in its last bits from
    run to run); each group's dK / dV are summed here; at head dim 256 the
    deterministic kernels run (the atomic kernel does not fit). Runs on the
    current torch stream.
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
    # One dK / dV per query head; each group's is summed by the op's last
    # stage (expanded) or below.
    dk = torch.empty((b, h, sk, d), dtype=q.dtype, device=q.device)
    dv = torch.empty_like(dk)
    if min(b, h, sq, sk) == 0:
        return dq.zero_(), torch.zeros_like(k), torch.zeros_like(v)
    device_index = q.device.index if q.device.index is not None else torch.cuda.current_device()
    chip, cubin_arch = _chip_and_arch(chip, device_index)
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    l2 = torch.empty((b, h, sq), dtype=torch.float32, device=q.device)
    delta = torch.empty_like(l2)
    # (At head dim 256 the atomic kernel does not fit: dQ gets its own.)
    atomic = not deterministic and d in backward_op.ATOMIC_HEAD_DIMS
    expanded = _expanded(h, hk, atomic)
    scratch = {}
    if atomic:
        # The f32 dQ accumulator, zeroed by the first stage.
        scratch["dqa"] = torch.empty((b, h, sq, d), dtype=torch.float32, device=q.device)
    if expanded:
        # The op writes one dK / dV per query head here and sums each
        # group's into dk / dv (K's heads) in its last stage.
        scratch["dkh"], scratch["dvh"] = dk, dv
        dk = torch.empty_like(k)
        dv = torch.empty_like(v)
    kernels = _stage_kernels(op, dtype, d, causal, atomic, expanded, chip, cubin_arch,
                             directory, device_index)
    values = backward_op.launch_values(q, k, v, out, grad_out, lse, l2, delta, dq, dk, dv,
                                       scale, **scratch)
    with torch.cuda.device(q.device):
        for i, (launch, meta) in enumerate(kernels):
            launch(*backward_op.launch_args(meta["params"], values))
            if i == 0 and grad_lse is not None:
                # The first stage wrote Delta = rowsum(dO o O); d lse / d S
                # = P, so a gradient on lse enters dS = P (dP - Delta) as a
                # shift of Delta.
                delta -= grad_lse.float()
    if hk != h and not expanded:
        g = h // hk
        dk = dk.view(b, hk, g, sk, d).sum(2, dtype=torch.float32).to(q.dtype)
        dv = dv.view(b, hk, g, sk, d).sum(2, dtype=torch.float32).to(q.dtype)
    return dq, dk, dv
