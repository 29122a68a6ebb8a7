"""tilec's kernels as torch operators, for autograd and torch.compile.

Importing this module (``tilec.gemm`` / ``tilec.attention`` do it on the
first call that needs it) registers, through ``torch.library.custom_op``:

* ``torch.ops.tilec.gemm(a, b, bias, alpha, activation, out_dtype,
  precision, chip, artifacts) -> Tensor``;
* ``torch.ops.tilec.attention(q, k, v, causal, scale, deterministic, chip,
  artifacts) -> (out, lse)``;
* ``torch.ops.tilec.attention_backward(grad_out, grad_lse, q, k, v, out,
  lse, causal, scale, deterministic, chip, artifacts) -> (dq, dk, dv)``.

Each has a fake (meta) implementation, so ``torch.compile(fullgraph=True)``
traces through ``tilec.gemm`` and ``tilec.attention`` without a graph break,
and an autograd formula: attention's is :func:`tilec.training.
attention_backward` (FlashAttention-2's backward as block programs); the
GEMM's is two GEMMs, ``dA = alpha * dC' B^T`` and ``dB = alpha * A^T dC'``
(``dC'``: the gradient through the activation; gelu and silu recompute the
pre-activation with one more GEMM), plus ``dbias = sum(dC')``. The ops are
CUDA-graph capturable like the direct calls: they allocate through torch
and launch on the current stream.

``tilec.gemm`` and ``tilec.attention`` take this route for torch tensors
while torch.compile traces or when a gradient is needed; other calls keep
the direct path (no dispatcher overhead). Calls with ``out=``, ``beta``,
scales, FP8 descales or a ``config`` stay on the direct path: they are not
differentiable and break a compiled graph.
"""

from typing import Optional

import torch

from .errors import ArgumentError, DTypeError
from .kernels import default_out_dtype
from .op_attention import _attention_direct
from .op_gemm import _gemm_direct
from .tensors import TORCH_DTYPES, dtype_name
from .training import attention_backward as _attention_backward

Tensor = torch.Tensor

# -- tilec.gemm ---------------------------------------------------------------


@torch.library.custom_op("tilec::gemm", mutates_args=())
def gemm(a: Tensor, b: Tensor, bias: Optional[Tensor] = None, alpha: Optional[float] = None,
         activation: Optional[str] = None, out_dtype: Optional[str] = None,
         precision: Optional[str] = None, chip: Optional[str] = None,
         artifacts: Optional[str] = None) -> Tensor:
    return _gemm_direct(a, b, bias=bias, alpha=alpha, activation=activation,
                        out_dtype=out_dtype, precision=precision, chip=chip,
                        artifacts=artifacts)


def _gemm_out_dtype(a, out_dtype):
    """The torch dtype of tilec.gemm's output (tilec's default for ``a``'s
    dtype when ``out_dtype`` is None)."""
    name = out_dtype or default_out_dtype(dtype_name(a.dtype))
    return getattr(torch, TORCH_DTYPES[name])


@gemm.register_fake
def _(a, b, bias=None, alpha=None, activation=None, out_dtype=None, precision=None, chip=None,
      artifacts=None):
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ArgumentError(f"tilec.gemm: a is {list(a.shape)} and b {list(b.shape)}; "
                            f"they must be M x K and K x N")
    return a.new_empty((a.shape[0], b.shape[1]), dtype=_gemm_out_dtype(a, out_dtype))


def _gemm_setup(ctx, inputs, output):
    a, b, bias, alpha, activation, out_dtype, precision, chip, artifacts = inputs
    ctx.save_for_backward(a, b, bias, output if activation == "relu" else None)
    ctx.opts = dict(alpha=alpha, activation=activation, precision=precision, chip=chip,
                    artifacts=artifacts)


_ACTIVATION_GRADS = {
    "gelu": lambda g, z: torch.ops.aten.gelu_backward(g, z),
    "silu": lambda g, z: torch.ops.aten.silu_backward(g, z),
}


def _gemm_backward(ctx, grad):
    a, b, bias, out = ctx.saved_tensors
    o = ctx.opts
    if not (a.dtype.is_floating_point and a.element_size() > 1):
        raise DTypeError(f"tilec.gemm: no gradient for {a.dtype} inputs (float8 and "
                         f"int8 GEMMs are not differentiable)")
    kw = dict(precision=o["precision"], chip=o["chip"], artifacts=o["artifacts"])
    act = o["activation"]
    grad = grad.contiguous()
    if act == "relu":
        grad = grad * (out > 0)
    elif act is not None:
        z = torch.ops.tilec.gemm(a, b, bias, o["alpha"], None, None, **kw)
        grad = _ACTIVATION_GRADS[act](grad, z).contiguous()
    grad = grad.to(a.dtype)
    alpha = o["alpha"]
    da = db = dbias = None
    if ctx.needs_input_grad[0]:
        da = torch.ops.tilec.gemm(grad, b.t(), None, alpha, None, None, **kw)
    if ctx.needs_input_grad[1]:
        # A is read row-major: Aᵀ is copied once.
        db = torch.ops.tilec.gemm(a.t().contiguous(), grad, None, alpha, None, None, **kw)
        if b.stride(0) == 1 and b.shape[1] > 1:  # a column-major b gets its gradient alike
            db = db.t().contiguous().t()
    if bias is not None and ctx.needs_input_grad[2]:
        dbias = grad.sum(0, dtype=torch.float32).to(bias.dtype)
    return da, db, dbias, None, None, None, None, None, None


gemm.register_autograd(_gemm_backward, setup_context=_gemm_setup)

# -- tilec.attention ------------------------------------------------------------


@torch.library.custom_op("tilec::attention", mutates_args=())
def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = False,
              scale: Optional[float] = None, deterministic: bool = True,
              chip: Optional[str] = None,
              artifacts: Optional[str] = None) -> tuple[Tensor, Tensor]:
    return _attention_direct(q, k, v, causal=causal, scale=scale, return_lse=True,
                             chip=chip, artifacts=artifacts)


@attention.register_fake
def _(q, k, v, causal=False, scale=None, deterministic=True, chip=None, artifacts=None):
    if q.dim() != 4:
        raise ArgumentError(f"tilec.attention: q must be [batch, heads, seq, head_dim], "
                            f"got {list(q.shape)}")
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    return out, q.new_empty(q.shape[:3], dtype=torch.float32)


@torch.library.custom_op("tilec::attention_backward", mutates_args=())
def attention_backward(grad_out: Tensor, grad_lse: Optional[Tensor], q: Tensor, k: Tensor,
                       v: Tensor, out: Tensor, lse: Tensor, causal: bool = False,
                       scale: Optional[float] = None, deterministic: bool = True,
                       chip: Optional[str] = None,
                       artifacts: Optional[str] = None) -> tuple[Tensor, Tensor, Tensor]:
    return _attention_backward(q, k, v, out, lse, grad_out, causal=causal, scale=scale,
                               grad_lse=grad_lse, deterministic=deterministic, chip=chip,
                               artifacts=artifacts)


@attention_backward.register_fake
def _(grad_out, grad_lse, q, k, v, out, lse, causal=False, scale=None, deterministic=True,
      chip=None, artifacts=None):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _attention_setup(ctx, inputs, output):
    q, k, v, causal, scale, deterministic, chip, artifacts = inputs
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse)
    ctx.opts = (causal, scale, deterministic, chip, artifacts)


def _attention_grad(ctx, grad_out, grad_lse):
    q, k, v, out, lse = ctx.saved_tensors
    causal, scale, deterministic, chip, artifacts = ctx.opts
    if grad_out is None:
        grad_out = torch.zeros_like(out)
    dq, dk, dv = torch.ops.tilec.attention_backward(grad_out.contiguous(), grad_lse, q, k, v,
                                                    out, lse, causal, scale, deterministic,
                                                    chip, artifacts)
    return dq, dk, dv, None, None, None, None, None


attention.register_autograd(_attention_grad, setup_context=_attention_setup)
