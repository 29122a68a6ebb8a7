"""tilec: tile-level GEMM and attention kernels for NVIDIA GPUs.

``tilec.compile`` turns tile programs into PTX, cubins and launch metadata
through the compiler library ``libtilec-c.so`` (with an on-disk cache);
``tilec.gemm`` runs GEMM kernels on torch / CuPy / DLPack tensors
(``tilec.bmm`` a batch of them in one launch, ``tilec.grouped_gemm`` the
groups of an MoE layer), compiled on demand or loaded from precompiled
artifacts (``TILEC_ARTIFACTS``) on machines without the compiler;
``tilec.runtime`` loads a cubin plus its ``<kernel>.json`` and launches it
through the CUDA driver API. torch and the
CUDA bindings are imported only when something is launched.

Training: ``tilec.attention`` and ``tilec.gemm`` are differentiable on torch
tensors, and torch.compile(fullgraph=True) holds them as single graph nodes
(``torch.ops.tilec.*``, :mod:`tilec.torch_ops`); ``tilec.attention_backward``
computes attention's gradients from the forward's output and lse.

``tilec.flex_attention`` / ``tilec.create_block_mask``: FlexAttention's
interface, with score_mod and mask_mod callables traced into
``tile.attention``'s regions (forward only; :mod:`tilec.flex`).

Serving: ``tilec.attention_with_kvcache`` (decode against a KV cache,
paged or not, split-KV) and ``tilec.attention_varlen`` (packed
variable-length sequences), flash-attn's interfaces.
"""

__version__ = "0.1.0"

from ._capi import CompilerNotFoundError
from .artifacts import ArtifactError
from .compiler import CompiledKernel, CompileError, CompileResult, compile
from .runtime import evaluate_grid
from .specialize import specialization
from .training import attention_backward
from .flex import BlockMask, create_block_mask, flex_attention
from .op_kvcache import attention_with_kvcache
from .op_varlen import attention_varlen
from .ops import (ArgumentError, DTypeError, KernelNotAvailableError, LoweringNotAvailableError,
                  attention, bmm, default_precision, gemm, grouped_gemm)

__all__ = [
    "compile", "gemm", "bmm", "grouped_gemm", "attention", "attention_backward",
    "flex_attention", "create_block_mask", "BlockMask", "attention_with_kvcache",
    "attention_varlen",
    "default_precision", "evaluate_grid",
    "specialization",
    "CompileResult", "CompiledKernel",
    "CompileError", "CompilerNotFoundError", "ArtifactError", "ArgumentError", "DTypeError",
    "KernelNotAvailableError", "LoweringNotAvailableError",
]
