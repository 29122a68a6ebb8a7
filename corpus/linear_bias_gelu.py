"""nn.Linear + bias + tanh-GELU: Y = gelu_tanh(X Wᵀ + b), bf16
(linear_bias_gelu.mlir). The twin: the tutorial matmul's grouped program
order, 128 x 128 x 64 tiles, 8 warps, 3 stages, libdevice's tanh; the
anchor is ``F.gelu(F.linear(x, w, b), approximate="tanh")``."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.language.extra import libdevice

from .common import f64, gen, matrix, poisoned, randn, store2d, tile2d

KERNELS = ("linear_bias_gelu",)
CASES = [(1, 8, 16), (127, 264, 72), (1000, 1000, 520)]  # (M, N, K)
BENCH = [(8192, 8192, 4096)]
TOL = 1e-2


def make_inputs(shape, seed):
    M, N, K = shape
    g = gen(seed)
    return dict(shape=shape, x=matrix(M, K, torch.bfloat16, g),
                w=matrix(N, K, torch.bfloat16, g, scale=K ** -0.5),
                b=randn((N,), torch.bfloat16, g), y=poisoned(M, N, torch.bfloat16))


def run_tilec(kernels, io):
    M, N, K = io["shape"]
    x, w, y = io["x"], io["w"], io["y"]
    kernels["linear_bias_gelu"](x, w, io["b"], y, M, N, K, x.stride(0), w.stride(0), y.stride(0))
    return (y,)


@triton.jit
def _linear_gelu(X, W, Bias, Y, M, N, K, sx, sw, sy, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr, G: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    first = pid // (G * npn) * G
    gs = min(npm - first, G)
    pm = first + (pid % (G * npn)) % gs
    pn = (pid % (G * npn)) // gs
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        acc = tl.dot(tile2d(X, rm, rk, sx, 1, M, K), tile2d(W, rk, rn, 1, sw, K, N), acc)
    v = acc + tl.load(Bias + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    gelu = 0.5 * v * (1 + libdevice.tanh(0.797884583 * (v + 0.044715 * v * v * v)))
    store2d(Y, gelu, rm, rn, sy, M, N)


def run_triton(io):
    M, N, K = io["shape"]
    x, w, y = io["x"], io["w"], io["y"]
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    _linear_gelu[grid](x, w, io["b"], y, M, N, K, x.stride(0), w.stride(0), y.stride(0), BM=128,
                       BN=128, BK=64, G=8, num_warps=8, num_stages=3)
    return (y,)


def run_torch(io):
    return (F.gelu(F.linear(io["x"], io["w"], io["b"]), approximate="tanh"),)


def reference(io):
    x, w, b = f64(io["x"], io["w"], io["b"])
    return (F.gelu(x @ w.t() + b, approximate="tanh"),)


def flops(shape):
    M, N, K = shape
    return 2.0 * M * N * K
