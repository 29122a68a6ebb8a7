"""Cross-entropy loss forward per row over a large vocabulary: bf16 logits,
i32 labels, f32 losses, one row per program in 4096-wide blocks with an
online max and sum (cross_entropy.mlir). The twin: the same loop
(BLOCK_SIZE 4096, 8 warps); the anchor is ``F.cross_entropy`` with
reduction="none"."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from .common import gen, matrix

KERNELS = ("cross_entropy",)
CASES = [(1, 1), (7, 1000), (33, 50257)]  # (rows, vocabulary)
BENCH = [(4096, 128256)]
TOL = 1e-4


def make_inputs(shape, seed):
    M, V = shape
    g = gen(seed)
    return dict(shape=shape, logits=matrix(M, V, torch.bfloat16, g, scale=3.0),
                labels=torch.randint(0, V, (M,), device="cuda", generator=g, dtype=torch.int32),
                loss=torch.full((M,), float("nan"), device="cuda"))


def run_tilec(kernels, io):
    M, V = io["shape"]
    logits = io["logits"]
    kernels["cross_entropy"](logits, io["labels"], io["loss"], M, V, logits.stride(0))
    return (io["loss"],)


@triton.jit
def _cross_entropy(Logits, Labels, Loss, V, ld, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    base = Logits + row.to(tl.int64) * ld
    m = tl.full([], float("-inf"), tl.float32)
    s = tl.full([], 0.0, tl.float32)
    for v in range(0, V, BLOCK_SIZE):
        cols = v + tl.arange(0, BLOCK_SIZE)
        x = tl.load(base + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    target = tl.load(base + tl.load(Labels + row)).to(tl.float32)
    tl.store(Loss + row, m + tl.log(s) - target)


def run_triton(io):
    M, V = io["shape"]
    logits = io["logits"]
    _cross_entropy[(M,)](logits, io["labels"], io["loss"], V, logits.stride(0), BLOCK_SIZE=4096,
                         num_warps=8)
    return (io["loss"],)


def run_torch(io):
    return (F.cross_entropy(io["logits"], io["labels"].long(), reduction="none"),)


def reference(io):
    x = io["logits"].double()
    return (F.cross_entropy(x, io["labels"].long(), reduction="none"),)


def bytes_moved(shape):
    M, V = shape
    return 2.0 * M * V
