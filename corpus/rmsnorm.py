"""RMSNorm over rows of a bf16 matrix, N <= 4096, one row per program in one
4096-wide tile (rmsnorm.mlir). The twin: the same (BLOCK_SIZE 4096, 8
warps); the anchor is ``F.rms_norm``."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from .common import f64, gen, matrix, poisoned, randn

KERNELS = ("rmsnorm",)
CASES = [(1, 1), (7, 1000), (301, 4096)]  # (M, N)
BENCH = [(32768, 4096)]
TOL = 1e-2
EPS = 1e-6


def make_inputs(shape, seed):
    M, N = shape
    g = gen(seed)
    return dict(shape=shape, x=matrix(M, N, torch.bfloat16, g), w=randn((N,), torch.bfloat16, g),
                y=poisoned(M, N, torch.bfloat16))


def run_tilec(kernels, io):
    M, N = io["shape"]
    x, y = io["x"], io["y"]
    kernels["rmsnorm"](x, io["w"], y, M, N, x.stride(0), y.stride(0), EPS)
    return (y,)


@triton.jit
def _rmsnorm(X, W, Y, N, sx, sy, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * sx + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(Y + row * sy + cols, (x * rstd * w).to(tl.bfloat16), mask=mask)


def run_triton(io):
    M, N = io["shape"]
    x, y = io["x"], io["y"]
    _rmsnorm[(M,)](x, io["w"], y, N, x.stride(0), y.stride(0), EPS, BLOCK_SIZE=4096, num_warps=8)
    return (y,)


def run_torch(io):
    return (F.rms_norm(io["x"], io["w"].shape, io["w"], EPS),)


def reference(io):
    x, w = f64(io["x"], io["w"])
    return (x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + EPS) * w,)


def bytes_moved(shape):
    M, N = shape
    return 4.0 * M * N
