"""tilec: tile-level GEMM and attention kernels for NVIDIA GPUs.

This package loads kernels compiled by ``tilec`` (a cubin plus its
``<kernel>.json`` launch metadata) and launches them through the CUDA driver
API on torch tensors.
"""

__version__ = "0.1.0"

from .grid import evaluate_grid  # noqa: F401
