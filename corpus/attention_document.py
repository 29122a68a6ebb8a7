"""Causal attention over packed documents, head dim 64: query i sees key
j <= i of the same document, per-token document ids in an i32 table
(attention_document.mlir). The twin: the same loop (128 queries, 64-key
blocks, 4 warps, every block below the diagonal visited, the running max
starting at -1e30); the anchor is FlexAttention with the document mask as
its mask_mod."""

import torch
import triton
import triton.language as tl

from .common import (attention_flops, attention_inputs, attention_reference, flex,
                    online_softmax_step, store2d, tile2d)

KERNELS = ("attention_document",)
D = 64
CASES = [(1, 1, 1), (2, 3, 113), (2, 2, 1000)]  # (batch, heads, seq)
BENCH = [(2, 16, 8192)]
TOL = 2e-2
MEAN_DOC = 300  # tokens per document on average


def make_inputs(shape, seed):
    io = attention_inputs(shape, D, seed)
    B, H, S = shape
    starts = torch.rand(B, S, device="cuda", generator=io["g"]) < 1.0 / MEAN_DOC
    io["docs"] = torch.cumsum(starts, dim=1).to(torch.int32)
    return io


def run_tilec(kernels, io):
    B, H, S = io["shape"]
    q = io["q"]
    kernels["attention_document"](q, io["k"], io["v"], io["o"], io["docs"], *q.stride()[:3], B,
                                  H, S, io["scale"])
    return (io["o"],)


@triton.jit
def _document(Q, K, V, O, Docs, sz, sh, sm, S, sm_scale, D: tl.constexpr, BM: tl.constexpr,
              BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    b = tl.program_id(2)
    base = b.to(tl.int64) * sz + tl.program_id(1).to(tl.int64) * sh
    rows = m0 + tl.arange(0, BM)
    d = tl.arange(0, D)
    qk_scale = sm_scale * 1.44269504
    q = tile2d(Q + base, rows, d, sm, 1, S, D)
    doc_q = tl.load(Docs + b * S + rows, mask=rows < S, other=0)
    m_i = tl.full([BM], -1.0e30, tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for n in range(0, tl.minimum(m0 + BM, S), BN):
        cols = n + tl.arange(0, BN)
        s = tl.dot(q, tile2d(K + base, d, cols, 1, sm, D, S)) * qk_scale
        doc_k = tl.load(Docs + b * S + cols, mask=cols < S, other=0)
        keep = (cols[None, :] < S) & (cols[None, :] <= rows[:, None])
        keep = keep & (doc_q[:, None] == doc_k[None, :])
        s = tl.where(keep, s, float("-inf"))
        v = tile2d(V + base, cols, d, sm, 1, S, D)
        acc, m_i, l_i = online_softmax_step(acc, m_i, l_i, s, v, True)
    store2d(O + base, acc / l_i[:, None], rows, d, sm, S, D)


def run_triton(io):
    B, H, S = io["shape"]
    q = io["q"]
    _document[(triton.cdiv(S, 128), H, B)](q, io["k"], io["v"], io["o"], io["docs"],
                                           *q.stride()[:3], S, io["scale"], D=D, BM=128, BN=64,
                                           num_warps=4)
    return (io["o"],)


def run_torch(io):
    docs = io["docs"]

    def document(b, h, q_idx, kv_idx):
        return (kv_idx <= q_idx) & (docs[b, q_idx] == docs[b, kv_idx])
    return (flex(io, "attention_document", mask_mod=document),)


def reference(io):
    docs = io["docs"]
    same = (docs[:, :, None] == docs[:, None, :])[:, None]  # [B, 1, S, S]
    return (attention_reference(io["q"], io["k"], io["v"], io["scale"],
                                keep=lambda i, j: (j <= i) & same),)


def flops(shape):
    B, H, S = shape
    return attention_flops(B, H, S, D) * min(1.0, MEAN_DOC / S)  # about the visible pairs
