"""GeGLU as one dual GEMM: Y = gelu(X Wgᵀ) * (X Wuᵀ) with the exact (erf)
GELU, bf16 (geglu.mlir). The twin: the same tiles (128 x 64 x 64, 4 warps,
3 stages, a 2-D grid), both dots in one K loop; the anchor is eager torch,
two matmuls then gelu * mul."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from .common import f64, gen, matrix, poisoned, store2d, tile2d

KERNELS = ("geglu",)
CASES = [(1, 8, 16), (127, 264, 72), (1000, 1000, 520)]  # (M, N, K)
BENCH = [(8192, 4096, 4096)]
TOL = 1e-2


def make_inputs(shape, seed):
    M, N, K = shape
    g = gen(seed)
    return dict(shape=shape, x=matrix(M, K, torch.bfloat16, g),
                wg=matrix(N, K, torch.bfloat16, g, scale=K ** -0.5),
                wu=matrix(N, K, torch.bfloat16, g, scale=K ** -0.5),
                y=poisoned(M, N, torch.bfloat16))


def run_tilec(kernels, io):
    M, N, K = io["shape"]
    x, wg, y = io["x"], io["wg"], io["y"]
    kernels["geglu"](x, wg, io["wu"], y, M, N, K, x.stride(0), wg.stride(0), y.stride(0))
    return (y,)


@triton.jit
def _geglu(X, Wg, Wu, Y, M, N, K, sx, sw, sy, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rm = tl.program_id(1) * BM + tl.arange(0, BM)
    g = tl.zeros((BM, BN), tl.float32)
    u = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        x = tile2d(X, rm, rk, sx, 1, M, K)
        g = tl.dot(x, tile2d(Wg, rk, rn, 1, sw, K, N), g)
        u = tl.dot(x, tile2d(Wu, rk, rn, 1, sw, K, N), u)
    gelu = 0.5 * g * (1 + tl.erf(g * 0.707106781))
    store2d(Y, gelu * u, rm, rn, sy, M, N)


def run_triton(io):
    M, N, K = io["shape"]
    x, wg, y = io["x"], io["wg"], io["y"]
    grid = (triton.cdiv(N, 64), triton.cdiv(M, 128))
    _geglu[grid](x, wg, io["wu"], y, M, N, K, x.stride(0), wg.stride(0), y.stride(0), BM=128,
                 BN=64, BK=64, num_warps=4, num_stages=3)
    return (y,)


def run_torch(io):
    x = io["x"]
    return (F.gelu(x @ io["wg"].t()) * (x @ io["wu"].t()),)


def reference(io):
    x, wg, wu = f64(io["x"], io["wg"], io["wu"])
    return (F.gelu(x @ wg.t()) * (x @ wu.t()),)


def flops(shape):
    M, N, K = shape
    return 4.0 * M * N * K
