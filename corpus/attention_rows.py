"""FlashAttention-2 forward over 2-D row views [S * BH, 64] whose row count
the kernel computes (attention_rows.mlir), non-causal, head dim 64. The
twin addresses rows bh * S + m the same way (128 queries, 64-key blocks,
8 warps); the anchor is ``F.scaled_dot_product_attention``."""

import torch.nn.functional as F
import triton
import triton.language as tl

from .common import (attention_flops, attention_inputs, attention_reference,
                    online_softmax_step, store2d, tile2d)

KERNELS = ("attention_rows",)
D = 64
CASES = [(1, 1, 1), (2, 3, 113), (1, 2, 1000)]  # (batch, heads, seq)
BENCH = [(4, 16, 4096)]
TOL = 2e-2


def make_inputs(shape, seed):
    return attention_inputs(shape, D, seed)


def run_tilec(kernels, io):
    B, H, S = io["shape"]
    kernels["attention_rows"](io["q"], io["k"], io["v"], io["o"], S, B * H, io["scale"])
    return (io["o"],)


@triton.jit
def _rows(Q, K, V, O, S, sm_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    head0 = tl.program_id(1).to(tl.int64) * S
    rows = m0 + tl.arange(0, BM)
    d = tl.arange(0, D)
    qk_scale = sm_scale * 1.44269504
    q = tile2d(Q + head0 * D, rows, d, D, 1, S, D)
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for n in range(0, S, BN):
        cols = n + tl.arange(0, BN)
        s = tl.dot(q, tile2d(K + head0 * D, d, cols, 1, D, D, S)) * qk_scale
        s = tl.where(cols[None, :] < S, s, float("-inf"))
        v = tile2d(V + head0 * D, cols, d, D, 1, S, D)
        acc, m_i, l_i = online_softmax_step(acc, m_i, l_i, s, v, True)
    store2d(O + head0 * D, acc / l_i[:, None], rows, d, D, S, D)


def run_triton(io):
    B, H, S = io["shape"]
    _rows[(triton.cdiv(S, 128), B * H)](io["q"], io["k"], io["v"], io["o"], S, io["scale"], D=D,
                                        BM=128, BN=64, num_warps=8)
    return (io["o"],)


def run_torch(io):
    return (F.scaled_dot_product_attention(io["q"], io["k"], io["v"], scale=io["scale"]),)


def reference(io):
    return (attention_reference(io["q"], io["k"], io["v"], io["scale"]),)


def flops(shape):
    return attention_flops(*shape, D)
