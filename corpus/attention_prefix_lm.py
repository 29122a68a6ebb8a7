"""Prefix-LM attention forward, head dim 128: query i sees key j if j <= i
or j < prefix (attention_prefix_lm.mlir). The twin: the same loop (128
queries, 64-key blocks, 8 warps, up to the later of the last query and the
prefix); the anchor is FlexAttention with the prefix-LM mask_mod."""

import triton
import triton.language as tl

from .common import (attention_flops, attention_inputs, attention_reference, flex,
                    online_softmax_step, store2d, tile2d)

KERNELS = ("attention_prefix_lm",)
D = 128
CASES = [(1, 1, 1, 1), (2, 3, 113, 40), (1, 2, 1000, 333)]  # (batch, heads, seq, prefix)
BENCH = [(4, 16, 4096, 1024)]
TOL = 2e-2


def make_inputs(shape, seed):
    return attention_inputs(shape, D, seed)


def run_tilec(kernels, io):
    B, H, S, P = io["shape"]
    q = io["q"]
    kernels["attention_prefix_lm"](q, io["k"], io["v"], io["o"], *q.stride()[:3], B, H, S, P,
                                   io["scale"])
    return (io["o"],)


@triton.jit
def _prefix_lm(Q, K, V, O, sz, sh, sm, S, prefix, sm_scale, D: tl.constexpr, BM: tl.constexpr,
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
    end = tl.maximum(tl.minimum(m0 + BM, S), tl.minimum(prefix, S))
    for n in range(0, end, BN):
        cols = n + tl.arange(0, BN)
        s = tl.dot(q, tile2d(K + base, d, cols, 1, sm, D, S)) * qk_scale
        visible = (cols[None, :] <= rows[:, None]) | (cols[None, :] < prefix)
        s = tl.where((cols[None, :] < S) & visible, s, float("-inf"))
        v = tile2d(V + base, cols, d, sm, 1, S, D)
        acc, m_i, l_i = online_softmax_step(acc, m_i, l_i, s, v, True)
    store2d(O + base, acc / l_i[:, None], rows, d, sm, S, D)


def run_triton(io):
    B, H, S, P = io["shape"]
    q = io["q"]
    _prefix_lm[(triton.cdiv(S, 128), H, B)](q, io["k"], io["v"], io["o"], *q.stride()[:3], S, P,
                                            io["scale"], D=D, BM=128, BN=64, num_warps=8)
    return (io["o"],)


def run_torch(io):
    P = io["shape"][3]

    def prefix_lm(b, h, q_idx, kv_idx):
        return (kv_idx <= q_idx) | (kv_idx < P)
    return (flex(io, "attention_prefix_lm", mask_mod=prefix_lm),)


def reference(io):
    P = io["shape"][3]
    return (attention_reference(io["q"], io["k"], io["v"], io["scale"],
                                keep=lambda i, j: (j <= i) | (j < P)),)


def flops(shape):
    B, H, S, P = shape
    causal = attention_flops(B, H, S, D, causal=True)
    return causal + 4.0 * B * H * P * P * D / 2  # plus the prefix's upper triangle
