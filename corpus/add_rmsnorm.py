"""Residual add + RMSNorm (vLLM's fused_add_rms_norm): h = x + r stored back
into r, y = rmsnorm(h) * w, bf16, four rows per program (add_rmsnorm.mlir).
The twin: the same tiles (4 x 2048, 8 warps); the anchor is eager torch,
the add then ``F.rms_norm``."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from .common import f64, gen, matrix, poisoned, randn

KERNELS = ("add_rmsnorm",)
CASES = [(1, 1), (7, 1000), (301, 2048)]  # (M, N)
BENCH = [(65536, 2048)]
TOL = 1e-2
EPS = 1e-6


def make_inputs(shape, seed):
    M, N = shape
    g = gen(seed)
    x = matrix(M, N, torch.bfloat16, g)
    r = matrix(M, N, torch.bfloat16, g)
    return dict(shape=shape, x=x, r=r, r0=r.clone(), w=randn((N,), torch.bfloat16, g),
                y=poisoned(M, N, torch.bfloat16))


def run_tilec(kernels, io):
    M, N = io["shape"]
    x = io["x"]
    kernels["add_rmsnorm"](x, io["r"], io["w"], io["y"], M, N, x.stride(0), EPS)
    return io["y"], io["r"]


@triton.jit
def _add_rmsnorm(X, R, W, Y, M, N, ld, eps, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * ld + cols[None, :]
    h = tl.load(X + offs, mask=mask, other=0.0).to(tl.float32)
    h += tl.load(R + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(R + offs, h.to(tl.bfloat16), mask=mask)
    rstd = tl.rsqrt(tl.sum(h * h, axis=1) / N + eps)
    w = tl.load(W + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(Y + offs, (h * rstd[:, None] * w[None, :]).to(tl.bfloat16), mask=mask)


def run_triton(io):
    M, N = io["shape"]
    x = io["x"]
    _add_rmsnorm[(triton.cdiv(M, 4),)](x, io["r"], io["w"], io["y"], M, N, x.stride(0), EPS, BM=4,
                                       BN=2048, num_warps=8)
    return io["y"], io["r"]


def run_torch(io):
    h = io["x"] + io["r"]
    return (F.rms_norm(h, io["w"].shape, io["w"], EPS),)


def reference(io):
    x, r, w = f64(io["x"], io["r0"], io["w"])
    h = x + r
    return h * torch.rsqrt((h * h).mean(dim=1, keepdim=True) + EPS) * w, h


def bytes_moved(shape):
    M, N = shape
    return 8.0 * M * N
