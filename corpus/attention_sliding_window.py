"""Sliding-window causal attention forward, head dim 64: query i sees keys
i - window < j <= i (attention_sliding_window.mlir). The twin: the same loop
(128 queries, 64-key blocks from the first block the program's window
reaches, 4 warps, the running max starting at -1e30); the anchor is
FlexAttention with the window as its mask_mod."""

import triton
import triton.language as tl

from .common import attention_inputs, attention_reference, flex, online_softmax_step, store2d, tile2d

KERNELS = ("attention_sliding_window",)
D = 64
CASES = [(1, 1, 1, 16), (2, 3, 113, 50), (1, 2, 1000, 300)]  # (batch, heads, seq, window)
BENCH = [(4, 16, 8192, 1024)]
TOL = 2e-2


def make_inputs(shape, seed):
    return attention_inputs(shape, D, seed)


def run_tilec(kernels, io):
    B, H, S, W = io["shape"]
    q = io["q"]
    kernels["attention_sliding_window"](q, io["k"], io["v"], io["o"], *q.stride()[:3], B, H,
                                        S, W, io["scale"])
    return (io["o"],)


@triton.jit
def _window(Q, K, V, O, sz, sh, sm, S, W, sm_scale, D: tl.constexpr, BM: tl.constexpr,
            BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    base = tl.program_id(2).to(tl.int64) * sz + tl.program_id(1).to(tl.int64) * sh
    rows = m0 + tl.arange(0, BM)
    d = tl.arange(0, D)
    qk_scale = sm_scale * 1.44269504
    q = tile2d(Q + base, rows, d, sm, 1, S, D)
    m_i = tl.full([BM], -1.0e30, tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    lo = tl.maximum(m0 - W + 1, 0) // BN * BN
    for n in range(lo, tl.minimum(m0 + BM, S), BN):
        cols = n + tl.arange(0, BN)
        s = tl.dot(q, tile2d(K + base, d, cols, 1, sm, D, S)) * qk_scale
        causal = cols[None, :] <= rows[:, None]
        near = rows[:, None] - cols[None, :] < W
        s = tl.where((cols[None, :] < S) & causal & near, s, float("-inf"))
        v = tile2d(V + base, cols, d, sm, 1, S, D)
        acc, m_i, l_i = online_softmax_step(acc, m_i, l_i, s, v, True)
    store2d(O + base, acc / l_i[:, None], rows, d, sm, S, D)


def run_triton(io):
    B, H, S, W = io["shape"]
    q = io["q"]
    _window[(triton.cdiv(S, 128), H, B)](q, io["k"], io["v"], io["o"], *q.stride()[:3], S, W,
                                         io["scale"], D=D, BM=128, BN=64, num_warps=4)
    return (io["o"],)


def run_torch(io):
    W = io["shape"][3]

    def window(b, h, q_idx, kv_idx):
        return (kv_idx <= q_idx) & (q_idx - kv_idx < W)
    return (flex(io, "attention_sliding_window", mask_mod=window),)


def reference(io):
    W = io["shape"][3]
    return (attention_reference(io["q"], io["k"], io["v"], io["scale"],
                                keep=lambda i, j: (j <= i) & (i - j < W)),)


def flops(shape):
    B, H, S, W = shape
    return 4.0 * B * H * S * min(W, S) * D  # about the visible pairs
