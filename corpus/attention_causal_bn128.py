"""Causal attention forward, head dim 128, 128-key blocks, every block
masked (attention_causal_bn128.mlir). The twin: attention_causal's loop
with 128-key blocks (128 queries, 8 warps, stopping after the block's last
query); the anchor is ``F.scaled_dot_product_attention(is_causal=True)``."""

import triton

from .attention_causal import (BENCH, CASES, D, TOL, _causal, flops, make_inputs, reference,
                              run_torch)

KERNELS = ("attention_causal_bn128",)
__all__ = ["CASES", "BENCH", "TOL", "flops", "make_inputs", "reference", "run_torch"]


def run_tilec(kernels, io):
    B, H, S = io["shape"]
    q = io["q"]
    kernels["attention_causal_bn128"](q, io["k"], io["v"], io["o"], *q.stride()[:3], B, H, S,
                                      io["scale"])
    return (io["o"],)


def run_triton(io):
    B, H, S = io["shape"]
    q = io["q"]
    _causal[(triton.cdiv(S, 128), H, B)](q, io["k"], io["v"], io["o"], *q.stride()[:3], S,
                                         io["scale"], D=D, BM=128, BN=128, num_warps=8)
    return (io["o"],)
