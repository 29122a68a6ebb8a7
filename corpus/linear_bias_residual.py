"""nn.Linear + bias + residual in fp16: Y = X Wᵀ + b + R
(linear_bias_residual.mlir). The twin: the same tiles (128 x 256 x 64, 8
warps, 3 stages, a 2-D grid); the anchor is ``torch.addmm`` plus the
residual."""

import torch
import triton
import triton.language as tl

from .common import f64, gen, matrix, poisoned, randn, store2d, tile2d

KERNELS = ("linear_bias_residual",)
CASES = [(1, 8, 16), (127, 264, 72), (1000, 1000, 520)]  # (M, N, K)
BENCH = [(8192, 8192, 4096)]
TOL = 1e-2


def make_inputs(shape, seed):
    M, N, K = shape
    g = gen(seed)
    return dict(shape=shape, x=matrix(M, K, torch.float16, g),
                w=matrix(N, K, torch.float16, g, scale=K ** -0.5),
                b=randn((N,), torch.float16, g), r=matrix(M, N, torch.float16, g),
                y=poisoned(M, N, torch.float16))


def run_tilec(kernels, io):
    M, N, K = io["shape"]
    x, w, r, y = io["x"], io["w"], io["r"], io["y"]
    kernels["linear_bias_residual"](x, w, io["b"], r, y, M, N, K, x.stride(0), w.stride(0),
                                    r.stride(0), y.stride(0))
    return (y,)


@triton.jit
def _linear_residual(X, W, Bias, R, Y, M, N, K, sx, sw, sr, sy, BM: tl.constexpr,
                     BN: tl.constexpr, BK: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rm = tl.program_id(1) * BM + tl.arange(0, BM)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        acc = tl.dot(tile2d(X, rm, rk, sx, 1, M, K), tile2d(W, rk, rn, 1, sw, K, N), acc)
    acc += tl.load(Bias + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    acc += tile2d(R, rm, rn, sr, 1, M, N).to(tl.float32)
    store2d(Y, acc, rm, rn, sy, M, N)


def run_triton(io):
    M, N, K = io["shape"]
    x, w, r, y = io["x"], io["w"], io["r"], io["y"]
    grid = (triton.cdiv(N, 256), triton.cdiv(M, 128))
    _linear_residual[grid](x, w, io["b"], r, y, M, N, K, x.stride(0), w.stride(0), r.stride(0),
                           y.stride(0), BM=128, BN=256, BK=64, num_warps=8, num_stages=3)
    return (y,)


def run_torch(io):
    return (torch.addmm(io["b"], io["x"], io["w"].t()) + io["r"],)


def reference(io):
    x, w, b, r = f64(io["x"], io["w"], io["b"], io["r"])
    return (x @ w.t() + b + r,)


def flops(shape):
    M, N, K = shape
    return 2.0 * M * N * K
