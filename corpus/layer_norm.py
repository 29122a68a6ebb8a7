"""Triton tutorial 05, layer normalization forward in fp16, storing each
row's mean and 1 / std (layer_norm.mlir). The twin is the tutorial's kernel
with BLOCK_SIZE 1024 and 4 warps (the tutorial sizes the block to the row);
the anchor is ``F.layer_norm``."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from .common import f64, gen, matrix, poisoned, randn

KERNELS = ("layer_norm",)
CASES = [(1, 1), (7, 1000), (151, 5000)]  # (M, N)
BENCH = [(16384, 4096)]
TOL = 1e-2
EPS = 1e-5


def make_inputs(shape, seed):
    M, N = shape
    g = gen(seed)
    x = matrix(M, N, torch.float16, g)
    y = poisoned(M, N, torch.float16)
    # The kernel has one row stride for X and Y.
    assert x.stride(0) == y.stride(0)
    return dict(shape=shape, x=x, y=y, w=randn((N,), torch.float16, g),
                b=randn((N,), torch.float16, g),
                mean=torch.full((M,), float("nan"), device="cuda"),
                rstd=torch.full((M,), float("nan"), device="cuda"))


def run_tilec(kernels, io):
    M, N = io["shape"]
    x = io["x"]
    kernels["layer_norm"](x, io["y"], io["w"], io["b"], io["mean"], io["rstd"], x.stride(0),
                          M, N, EPS)
    return io["y"], io["mean"], io["rstd"]


@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def run_triton(io):
    M, N = io["shape"]
    x = io["x"]
    _layer_norm_fwd_fused[(M,)](x, io["y"], io["w"], io["b"], io["mean"], io["rstd"],
                                x.stride(0), N, EPS, BLOCK_SIZE=1024, num_warps=4)
    return io["y"], io["mean"], io["rstd"]


def run_torch(io):
    return (F.layer_norm(io["x"], io["w"].shape, io["w"], io["b"], EPS),)


def reference(io):
    x, w, b = f64(io["x"], io["w"], io["b"])
    mean = x.mean(dim=1)
    var = ((x - mean[:, None]) ** 2).mean(dim=1)
    rstd = 1 / torch.sqrt(var + EPS)
    return (x - mean[:, None]) * rstd[:, None] * w + b, mean, rstd


def bytes_moved(shape):
    M, N = shape
    return 4.0 * M * N
