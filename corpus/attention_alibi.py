"""Causal attention forward with ALiBi, head dim 64: score = scale q.k +
slope[h] (j - i), the slopes a per-head f32 table (attention_alibi.mlir).
The twin: the same loop (128 queries, 64-key blocks, 4 warps, natural-unit
softmax); the anchor is FlexAttention with the bias as its score_mod and
the causal mask as its mask_mod."""

import torch
import triton
import triton.language as tl

from .common import (attention_flops, attention_inputs, attention_reference, flex,
                    online_softmax_step, store2d, tile2d)

KERNELS = ("attention_alibi",)
D = 64
CASES = [(1, 1, 1), (2, 3, 113), (1, 4, 1000)]  # (batch, heads, seq)
BENCH = [(4, 16, 4096)]
TOL = 2e-2


def make_inputs(shape, seed):
    io = attention_inputs(shape, D, seed)
    H = shape[1]
    # The geometric slopes of the ALiBi paper: 2^(-8 h / H), h = 1..H.
    io["slopes"] = torch.pow(2.0, -8.0 * torch.arange(1, H + 1, device="cuda") / H)
    return io


def run_tilec(kernels, io):
    B, H, S = io["shape"]
    q = io["q"]
    kernels["attention_alibi"](q, io["k"], io["v"], io["o"], io["slopes"], *q.stride()[:3], B, H,
                               S, io["scale"])
    return (io["o"],)


@triton.jit
def _alibi(Q, K, V, O, Slopes, sz, sh, sm, S, sm_scale, D: tl.constexpr, BM: tl.constexpr,
           BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    h = tl.program_id(1)
    base = tl.program_id(2).to(tl.int64) * sz + h.to(tl.int64) * sh
    slope = tl.load(Slopes + h)
    rows = m0 + tl.arange(0, BM)
    d = tl.arange(0, D)
    q = tile2d(Q + base, rows, d, sm, 1, S, D)
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for n in range(0, tl.minimum(m0 + BM, S), BN):
        cols = n + tl.arange(0, BN)
        s = tl.dot(q, tile2d(K + base, d, cols, 1, sm, D, S)) * sm_scale
        s += slope * (cols[None, :] - rows[:, None]).to(tl.float32)
        keep = (cols[None, :] < S) & (cols[None, :] <= rows[:, None])
        s = tl.where(keep, s, float("-inf"))
        v = tile2d(V + base, cols, d, sm, 1, S, D)
        acc, m_i, l_i = online_softmax_step(acc, m_i, l_i, s, v, False)
    store2d(O + base, acc / l_i[:, None], rows, d, sm, S, D)


def run_triton(io):
    B, H, S = io["shape"]
    q = io["q"]
    _alibi[(triton.cdiv(S, 128), H, B)](q, io["k"], io["v"], io["o"], io["slopes"],
                                        *q.stride()[:3], S, io["scale"], D=D, BM=128, BN=64,
                                        num_warps=4)
    return (io["o"],)


def run_torch(io):
    slopes = io["slopes"]

    def alibi(score, b, h, q_idx, kv_idx):
        return score + slopes[h] * (kv_idx - q_idx)

    def causal(b, h, q_idx, kv_idx):
        return kv_idx <= q_idx
    return (flex(io, "attention_alibi", score_mod=alibi, mask_mod=causal),)


def reference(io):
    slopes = io["slopes"].double().view(1, -1, 1, 1)
    return (attention_reference(io["q"], io["k"], io["v"], io["scale"],
                                score=lambda s, i, j: s + slopes * (j - i),
                                keep=lambda i, j: j <= i),)


def flops(shape):
    return attention_flops(*shape, D, causal=True)
