"""Causal attention forward, head dim 128, every block masked
(attention_causal.mlir). The twin: the same loop (128 queries, 64-key
blocks, 8 warps, stopping after the block's last query); the anchor is
``F.scaled_dot_product_attention(is_causal=True)``."""

import torch.nn.functional as F
import triton
import triton.language as tl

from .common import (attention_flops, attention_inputs, attention_reference,
                    online_softmax_step, store2d, tile2d)

KERNELS = ("attention_causal",)
D = 128
CASES = [(1, 1, 1), (2, 3, 113), (1, 2, 1000)]  # (batch, heads, seq)
BENCH = [(4, 16, 4096)]
TOL = 2e-2


def make_inputs(shape, seed):
    return attention_inputs(shape, D, seed)


def run_tilec(kernels, io):
    B, H, S = io["shape"]
    q = io["q"]
    kernels["attention_causal"](q, io["k"], io["v"], io["o"], *q.stride()[:3], B, H, S,
                                io["scale"])
    return (io["o"],)


@triton.jit
def _causal(Q, K, V, O, sz, sh, sm, S, sm_scale, D: tl.constexpr, BM: tl.constexpr,
            BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    base = tl.program_id(2).to(tl.int64) * sz + tl.program_id(1).to(tl.int64) * sh
    rows = m0 + tl.arange(0, BM)
    d = tl.arange(0, D)
    qk_scale = sm_scale * 1.44269504
    q = tile2d(Q + base, rows, d, sm, 1, S, D)
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for n in range(0, tl.minimum(m0 + BM, S), BN):
        cols = n + tl.arange(0, BN)
        s = tl.dot(q, tile2d(K + base, d, cols, 1, sm, D, S)) * qk_scale
        keep = (cols[None, :] < S) & (cols[None, :] <= rows[:, None])
        s = tl.where(keep, s, float("-inf"))
        v = tile2d(V + base, cols, d, sm, 1, S, D)
        acc, m_i, l_i = online_softmax_step(acc, m_i, l_i, s, v, True)
    store2d(O + base, acc / l_i[:, None], rows, d, sm, S, D)


def run_triton(io):
    B, H, S = io["shape"]
    q = io["q"]
    _causal[(triton.cdiv(S, 128), H, B)](q, io["k"], io["v"], io["o"], *q.stride()[:3], S,
                                         io["scale"], D=D, BM=128, BN=64, num_warps=8)
    return (io["o"],)


def run_torch(io):
    return (F.scaled_dot_product_attention(io["q"], io["k"], io["v"], is_causal=True,
                                           scale=io["scale"]),)


def reference(io):
    return (attention_reference(io["q"], io["k"], io["v"], io["scale"],
                                keep=lambda i, j: j <= i),)


def flops(shape):
    return attention_flops(*shape, D, causal=True)
