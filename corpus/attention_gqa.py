"""Grouped-query attention forward, non-causal, head dim 128: H query heads
share Hkv K/V heads (attention_gqa.mlir). The twin: the same loop (128
queries, 128-key blocks, 8 warps, every block masked); the anchor is
``F.scaled_dot_product_attention(enable_gqa=True)``."""

import torch.nn.functional as F
import triton
import triton.language as tl

from .common import (attention_flops, attention_inputs, attention_reference,
                    online_softmax_step, store2d, tile2d)

KERNELS = ("attention_gqa",)
D = 128
CASES = [(1, 1, 1, 1), (2, 4, 1, 113), (1, 8, 2, 1000)]  # (batch, heads, kv heads, seq)
BENCH = [(4, 32, 8, 4096)]
TOL = 2e-2


def make_inputs(shape, seed):
    B, H, Hkv, S = shape
    io = attention_inputs((B, H, S), D, seed, heads_kv=Hkv)
    io["shape"] = shape
    return io


def run_tilec(kernels, io):
    B, H, Hkv, S = io["shape"]
    q, k = io["q"], io["k"]
    kernels["attention_gqa"](q, k, io["v"], io["o"], q.stride(0), q.stride(1), k.stride(0),
                             k.stride(1), B, H, Hkv, S, io["scale"])
    return (io["o"],)


@triton.jit
def _gqa(Q, K, V, O, sqz, sqh, skz, skh, H, Hkv, S, sm_scale, D: tl.constexpr, BM: tl.constexpr,
         BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    h = tl.program_id(1)
    b = tl.program_id(2).to(tl.int64)
    hk = h // (H // Hkv)
    q_base = b * sqz + h.to(tl.int64) * sqh
    kv_base = b * skz + hk.to(tl.int64) * skh
    rows = m0 + tl.arange(0, BM)
    d = tl.arange(0, D)
    qk_scale = sm_scale * 1.44269504
    q = tile2d(Q + q_base, rows, d, D, 1, S, D)
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for n in range(0, S, BN):
        cols = n + tl.arange(0, BN)
        s = tl.dot(q, tile2d(K + kv_base, d, cols, 1, D, D, S)) * qk_scale
        s = tl.where(cols[None, :] < S, s, float("-inf"))
        v = tile2d(V + kv_base, cols, d, D, 1, S, D)
        acc, m_i, l_i = online_softmax_step(acc, m_i, l_i, s, v, True)
    store2d(O + q_base, acc / l_i[:, None], rows, d, D, S, D)


def run_triton(io):
    B, H, Hkv, S = io["shape"]
    q, k = io["q"], io["k"]
    _gqa[(triton.cdiv(S, 128), H, B)](q, k, io["v"], io["o"], q.stride(0), q.stride(1),
                                      k.stride(0), k.stride(1), H, Hkv, S, io["scale"], D=D,
                                      BM=128, BN=128, num_warps=8)
    return (io["o"],)


def run_torch(io):
    return (F.scaled_dot_product_attention(io["q"], io["k"], io["v"], scale=io["scale"],
                                           enable_gqa=True),)


def reference(io):
    return (attention_reference(io["q"], io["k"], io["v"], io["scale"]),)


def flops(shape):
    B, H, Hkv, S = shape
    return attention_flops(B, H, S, D)
