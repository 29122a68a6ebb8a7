"""Triton tutorial 06, fused attention forward (non-causal, head dim 64),
storing the log2-domain log-sum-exp of each row (attention_fwd.mlir). The
twin is the tutorial's algorithm (l_i starting at 1) with the same tiles:
128 queries, 64-key blocks, 4 warps, 3 stages, and keys past S masked in
every block; the anchor is ``F.scaled_dot_product_attention``."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from .common import (LOG2E, attention_flops, attention_inputs, attention_reference, f64,
                    online_softmax_step, store2d, tile2d)

KERNELS = ("attention_fwd",)
D = 64
CASES = [(1, 1, 1), (2, 3, 113), (1, 2, 1000)]  # (batch, heads, seq)
BENCH = [(4, 16, 4096)]
TOL = 2e-2


def make_inputs(shape, seed):
    io = attention_inputs(shape, D, seed)
    B, H, S = shape
    io["lse"] = torch.full((B * H, S), float("nan"), device="cuda")
    return io


def run_tilec(kernels, io):
    B, H, S = io["shape"]
    q = io["q"]
    kernels["attention_fwd"](q, io["k"], io["v"], io["o"], io["lse"], io["scale"],
                             q.stride(0), q.stride(1), q.stride(2), B, H, S)
    return io["o"], io["lse"]


@triton.jit
def _attn_fwd(Q, K, V, O, M, sm_scale, sz, sh, sm, H, S, HEAD_DIM: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    base = off_z.to(tl.int64) * sz + off_h.to(tl.int64) * sh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    qk_scale = sm_scale * 1.44269504
    q = tile2d(Q + base, offs_m, offs_d, sm, 1, S, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, S, BLOCK_N):
        cols = start_n + offs_n
        k = tile2d(K + base, offs_d, cols, 1, sm, HEAD_DIM, S)
        qk = tl.dot(q, k)
        qk = tl.where(cols[None, :] < S, qk * qk_scale, float("-inf"))
        v = tile2d(V + base, cols, offs_d, sm, 1, S, HEAD_DIM)
        acc, m_i, l_i = online_softmax_step(acc, m_i, l_i, qk, v, True)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * S + offs_m, m_i, mask=offs_m < S)
    store2d(O + base, acc, offs_m, offs_d, sm, S, HEAD_DIM)


def run_triton(io):
    B, H, S = io["shape"]
    q = io["q"]
    _attn_fwd[(triton.cdiv(S, 128), B * H)](
        q, io["k"], io["v"], io["o"], io["lse"], io["scale"], q.stride(0), q.stride(1),
        q.stride(2), H, S, HEAD_DIM=D, BLOCK_M=128, BLOCK_N=64, num_warps=4, num_stages=3)
    return io["o"], io["lse"]


def run_torch(io):
    return (F.scaled_dot_product_attention(io["q"], io["k"], io["v"], scale=io["scale"]),)


def reference(io):
    B, H, S = io["shape"]
    q, k = f64(io["q"], io["k"])
    lse = torch.logsumexp(q @ k.transpose(-1, -2) * io["scale"], dim=-1) * LOG2E
    return (attention_reference(io["q"], io["k"], io["v"], io["scale"]),
            lse.reshape(B * H, S))


def flops(shape):
    B, H, S = shape
    return attention_flops(B, H, S, D)
