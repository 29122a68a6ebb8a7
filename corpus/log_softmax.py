"""Row log-softmax of a bf16 matrix (N <= 2048) into f32, four rows per
program (log_softmax.mlir). The twin: the same tiles (4 x 2048, 4 warps);
the anchor is ``F.log_softmax`` with an f32 result."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from .common import f64, gen, matrix, poisoned

KERNELS = ("log_softmax",)
CASES = [(1, 1), (7, 1000), (301, 2048)]  # (M, N)
BENCH = [(65536, 2048)]
TOL = 1e-5


def make_inputs(shape, seed):
    M, N = shape
    return dict(shape=shape, x=matrix(M, N, torch.bfloat16, gen(seed), scale=3.0),
                y=poisoned(M, N, torch.float32))


def run_tilec(kernels, io):
    M, N = io["shape"]
    x, y = io["x"], io["y"]
    kernels["log_softmax"](x, y, M, N, x.stride(0), y.stride(0))
    return (y,)


@triton.jit
def _log_softmax(X, Y, M, N, sx, sy, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(X + rows[:, None] * sx + cols[None, :], mask=mask, other=float("-inf"))
    d = x.to(tl.float32) - tl.max(x.to(tl.float32), axis=1)[:, None]
    y = d - tl.log(tl.sum(tl.exp(d), axis=1))[:, None]
    tl.store(Y + rows[:, None] * sy + cols[None, :], y, mask=mask)


def run_triton(io):
    M, N = io["shape"]
    x, y = io["x"], io["y"]
    _log_softmax[(triton.cdiv(M, 4),)](x, y, M, N, x.stride(0), y.stride(0), BM=4, BN=2048,
                                       num_warps=4)
    return (y,)


def run_torch(io):
    return (F.log_softmax(io["x"], dim=-1, dtype=torch.float32),)


def reference(io):
    return (F.log_softmax(f64(io["x"]), dim=-1),)


def bytes_moved(shape):
    M, N = shape
    return 6.0 * M * N
