"""``tilec.gemm`` and ``tilec.attention``: the entry points that are
differentiable. A call on torch tensors that autograd needs a gradient of,
or one made while torch.compile traces, goes through the torch operators
of :mod:`tilec.torch_ops` (imported then, with torch); every other call
takes the op's kernels directly (:mod:`tilec.op_gemm`,
:mod:`tilec.op_attention`), without the dispatcher's overhead. This module
sits above :mod:`tilec.torch_ops`, which calls the direct paths below it.
"""

import sys

from .op_attention import _attention_direct
from .op_gemm import _gemm_direct, default_precision
from .tensors import dtype_name


def gemm(a, b, *, out=None, bias=None, alpha=None, beta=None, activation=None, out_dtype=None,
         precision=None, scale_a=None, scale_b=None, chip=None, artifacts=None, config=None):
    """``out = activation(alpha * a @ b + beta * out + bias)`` with a tilec
    kernel.

    ``a``: M x K, row-major (unit stride along K; any row stride that keeps
    rows 16-byte aligned). ``b``: K x N, row-major or column-major (e.g.
    ``w.t()`` of an N x K weight). Both bf16 or both f16. ``out``: M x N,
    row-major, dtype ``out_dtype`` (default: the input dtype; ``f32``
    possible); allocated when omitted; read when ``beta`` is given.
    f32 inputs need a column-major ``b``; ``precision`` says how they
    multiply: ``"tf32"`` (one TF32 product on tensor cores, torch's
    ``allow_tf32``), ``"tf32x3"`` (three TF32 products, about f32's
    accuracy) or ``"ieee"`` (exact products on FMA instructions, several
    times slower); by default as torch's float32 matmul precision says
    (:func:`default_precision`).
    float8 inputs (``torch.float8_e4m3fn`` / ``float8_e5m2``, mixed too)
    need a column-major ``b`` as ``torch._scaled_mm`` does, and give bf16 by
    default. ``scale_a`` / ``scale_b`` scale the product's rows and columns
    (any input dtype): a number, a one-element f32 tensor (per-tensor), or
    f32 tensors of M x 1 (or M) and 1 x N (or N) elements (row-wise), as
    ``torch._scaled_mm`` takes them; with float8 inputs, also block scales
    (DeepGEMM's recipe, torch._scaled_mm's 1x128 / 128x128 scaling):
    ``scale_a`` of shape [M, ceil(K/128)] and ``scale_b`` of
    [ceil(K/128), ceil(N/128)], f32, each K block's product scaled and
    summed in f32.
    ``bias``: N elements of the output dtype. ``activation``: ``None``,
    ``"relu"``, ``"gelu"`` or ``"silu"``. ``chip``: tilec target (default:
    the device's, ``sm_90a`` on Hopper). ``artifacts``: directory of
    precompiled kernels (default ``$TILEC_ARTIFACTS``), used before the
    compiler. ``config``: tile configuration overrides (e.g.
    ``{"block_n": 128, "stages": 3}``); with ``"split_k": S`` (S > 1) the
    GEMM runs in split-K: two kernels, the partial products of S K ranges
    per tile into an f32 workspace, then their sum in a fixed order (the
    same bits on every run; no int8 inputs or block scales). Without
    ``config`` the compiler's shape rule picks the tiles, and split-K where
    it measured a gain (decode shapes whose weight tiles leave SMs idle;
    16-bit inputs without scales; the device's SM count decides).

    Differentiable (torch tensors): when a gradient is needed, or while
    torch.compile traces, the call goes through ``torch.ops.tilec.gemm``
    (:mod:`tilec.torch_ops`; its backward is two tilec GEMMs). Calls with
    ``out``, ``beta``, scales or ``config`` take the direct path only.

    Tensors: torch, CuPy (``__cuda_array_interface__``) or any DLPack
    object; an allocated ``out`` is a CuPy array for CuPy inputs, else a
    torch tensor. Runs on the current torch stream (CuPy's for CuPy arrays)
    and returns ``out``. Invalid arguments raise :class:`ArgumentError` /
    :class:`DTypeError` before anything is launched.
    """
    if (out is None and beta is None and scale_a is None and scale_b is None and config is None
            and _torch_op_route(a, b, bias)):
        from . import torch_ops
        if out_dtype is not None:
            out_dtype = dtype_name(out_dtype)
        if precision is None and str(a.dtype) == "torch.float32":
            precision = default_precision()
        return torch_ops.gemm(a, b, bias, None if alpha is None else float(alpha), activation,
                              out_dtype, precision, chip, artifacts)
    return _gemm_direct(a, b, out=out, bias=bias, alpha=alpha, beta=beta, activation=activation,
                        out_dtype=out_dtype, precision=precision, scale_a=scale_a,
                        scale_b=scale_b, chip=chip, artifacts=artifacts, config=config)


def attention(q, k, v, *, causal=False, scale=None, out=None, return_lse=False, chip=None,
              artifacts=None, q_descale=None, k_descale=None, v_descale=None,
              deterministic=True):
    """Scaled dot-product attention ``softmax(q @ k^T / sqrt(head_dim) [+
    causal mask]) @ v`` over ``[batch, heads, seq, head_dim]`` tensors
    (``tile.attention``: FlashAttention-2 forward).

    FP8 (FlashAttention-3's recipe; sm_90a, and sm_89 PTX): q, k and v in
    ``torch.float8_e4m3fn`` (or all ``float8_e5m2``) with ``q_descale``,
    ``k_descale``, ``v_descale`` (each input is its FP8 tensor times its
    descale; 1.0 when omitted): numbers (per tensor), or f32 tensors read on
    the device, FlashAttention-3's: one element (per tensor) or
    ``[batch, kv_heads]`` (per batch and K/V head; the query heads of a
    group share their K/V head's q_descale). Tensors are not read back, so
    the call does not synchronize and can be captured in a CUDA graph (their
    values are not checked); numbers given beside tensors become one-element
    tensors. Head dims 64, 128 and 256. v must be contiguous along seq (the transpose
    of a ``[batch, heads, head_dim, seq]`` tensor, rows 16-byte aligned:
    FP8 tensor cores read it K-major). The output is bf16; P is quantized
    to e4m3 after the online softmax.

    ``scale``: the softmax scale (default ``1/sqrt(head_dim)``, as SDPA's
    ``scale=``). It is a constant of the kernel: another value is another
    kernel, compiled on first use (precompiled artifacts hold the default).

    Differentiable (torch tensors): when a gradient is needed, the call
    goes through ``torch.ops.tilec.attention`` (:mod:`tilec.torch_ops`),
    whose backward is :func:`tilec.attention_backward`; under
    ``torch.compile`` it is one graph node. bf16/f16 only; ``out=`` and FP8
    calls are not differentiable. ``deterministic`` picks the backward's dQ:
    its own kernel (True, the same bits on every run) or f32 atomic adds in
    the dK/dV kernel (False; see :func:`tilec.attention_backward`).

    ``k``/``v`` may have fewer heads than ``q`` (grouped-query attention;
    they must divide q's) and another sequence length; ``causal`` aligns the
    mask bottom-right as FlashAttention does (query i sees keys j <= i +
    Sk - Sq). bf16 or f16; head dims 64, 128 and 256; q, k and v contiguous in
    their last two dimensions, k and v with the same strides (an ``out`` of
    another layout than q's, or a q not laid out as a contiguous tensor
    when out is allocated, costs a copy). Returns the
    output (and the natural-log log-sum-exp of each row, f32 [batch, heads,
    seq_q], with ``return_lse``).

    The kernel variant follows the shape class
    (:func:`tilec.kernels.attention_shape_config`: on sm_90a, causal
    attention over at most 2048 queries runs the persistent kernel).

    Tensors: torch, CuPy (``__cuda_array_interface__``; f16, as CuPy has no
    bf16) or any DLPack object; allocated results are CuPy arrays for CuPy
    inputs, else torch tensors. Runs on the current torch stream (CuPy's for
    CuPy arrays). Invalid arguments raise :class:`ArgumentError` /
    :class:`DTypeError` before anything is launched.
    """
    descales = (q_descale, k_descale, v_descale)
    if out is None and descales == (None, None, None) and _torch_op_route(q, k, v):
        from . import torch_ops
        o, lse = torch_ops.attention(q, k, v, causal, scale, deterministic, chip, artifacts)
        return (o, lse) if return_lse else o
    return _attention_direct(q, k, v, causal=causal, scale=scale, out=out, return_lse=return_lse,
                             chip=chip, artifacts=artifacts, q_descale=q_descale,
                             k_descale=k_descale, v_descale=v_descale)


def _torch_op_route(*tensors):
    """Whether a call on ``tensors`` goes through the torch operators of
    :mod:`tilec.torch_ops`: torch tensors while torch.compile traces, or
    when autograd needs a gradient of one of them."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    compiler = getattr(torch, "compiler", None)
    if compiler is not None and compiler.is_compiling():
        return True
    grad_enabled = getattr(torch, "is_grad_enabled", None)
    if grad_enabled is None or not grad_enabled():
        return False
    tensor = getattr(torch, "Tensor", ())
    return any(isinstance(t, tensor) and getattr(t, "requires_grad", False) for t in tensors)
