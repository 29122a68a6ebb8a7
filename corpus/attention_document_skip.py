"""Causal attention over packed documents with block skipping, head dim 64
(attention_document_skip.mlir): attention_document's program, with the key
loop starting at the block of the first query's document start, read from
a per-token table of document starts. The twin: the same loop (128
queries, 64-key blocks from that block to the diagonal, 4 warps, the
running max starting at -1e30); the anchor is FlexAttention with the
document mask as its mask_mod (its block mask skips the same blocks)."""

import torch
import triton
import triton.language as tl

from .attention_document import CASES, BENCH, D, TOL, flops, make_inputs as _document_inputs
from .attention_document import reference, run_torch
from .common import online_softmax_step, store2d, tile2d

KERNELS = ("attention_document_skip",)
__all__ = ["CASES", "BENCH", "TOL", "flops", "reference", "run_torch"]


def make_inputs(shape, seed):
    io = _document_inputs(shape, seed)
    docs = io["docs"]
    B, S = docs.shape
    pos = torch.arange(S, device="cuda", dtype=torch.int32).expand(B, S)
    first = torch.ones_like(docs, dtype=torch.bool)
    first[:, 1:] = docs[:, 1:] != docs[:, :-1]
    # The start of each token's document: the last document start at or
    # before the token (a running max of the start positions).
    starts = torch.where(first, pos, torch.zeros_like(pos))
    io["starts"] = torch.cummax(starts, dim=1).values.to(torch.int32).contiguous()
    return io


def run_tilec(kernels, io):
    B, H, S = io["shape"]
    q = io["q"]
    kernels["attention_document_skip"](q, io["k"], io["v"], io["o"], io["docs"], io["starts"],
                                       *q.stride()[:3], B, H, S, io["scale"])
    return (io["o"],)


@triton.jit
def _document_skip(Q, K, V, O, Docs, Starts, sz, sh, sm, S, sm_scale, D: tl.constexpr,
                   BM: tl.constexpr, BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    b = tl.program_id(2)
    base = b.to(tl.int64) * sz + tl.program_id(1).to(tl.int64) * sh
    rows = m0 + tl.arange(0, BM)
    d = tl.arange(0, D)
    qk_scale = sm_scale * 1.44269504
    q = tile2d(Q + base, rows, d, sm, 1, S, D)
    doc_q = tl.load(Docs + b * S + rows, mask=rows < S, other=0)
    lo = tl.load(Starts + b * S + m0) // BN * BN
    m_i = tl.full([BM], -1.0e30, tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for n in range(lo, tl.minimum(m0 + BM, S), BN):
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
    _document_skip[(triton.cdiv(S, 128), H, B)](q, io["k"], io["v"], io["o"], io["docs"],
                                                io["starts"], *q.stride()[:3], S, io["scale"],
                                                D=D, BM=128, BN=64, num_warps=4)
    return (io["o"],)
