"""Batched GEMM over contiguous bf16 tensors, the strides computed in the
kernel from the sizes, the batch on the grid's z (bmm.mlir). The twin: the
same tiles (128 x 128 x 64, 8 warps, 3 stages, batch on program_id 2); the
anchor is ``torch.bmm``. K and N are multiples of 16 (the program's
hints)."""

import torch
import triton
import triton.language as tl

from .common import f64, gen, nan_like, randn, store2d, tile2d

KERNELS = ("bmm",)
CASES = [(1, 1, 16, 16), (3, 127, 272, 80), (2, 1000, 1040, 528)]  # (batch, M, N, K)
BENCH = [(32, 2048, 2048, 1024)]
TOL = 1e-2


def make_inputs(shape, seed):
    batch, M, N, K = shape
    g = gen(seed)
    c = torch.empty(batch, M, N, device="cuda", dtype=torch.bfloat16)
    return dict(shape=shape, a=randn((batch, M, K), torch.bfloat16, g),
                b=randn((batch, K, N), torch.bfloat16, g, scale=K ** -0.5), c=nan_like(c))


def run_tilec(kernels, io):
    kernels["bmm"](io["a"], io["b"], io["c"], *io["shape"])
    return (io["c"],)


@triton.jit
def _bmm(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rm = tl.program_id(1) * BM + tl.arange(0, BM)
    i = tl.program_id(2).to(tl.int64)
    A += i * M * K
    B += i * K * N
    C += i * M * N
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        acc = tl.dot(tile2d(A, rm, rk, K, 1, M, K), tile2d(B, rk, rn, N, 1, K, N), acc)
    store2d(C, acc, rm, rn, N, M, N)


def run_triton(io):
    batch, M, N, K = io["shape"]
    grid = (triton.cdiv(N, 128), triton.cdiv(M, 128), batch)
    _bmm[grid](io["a"], io["b"], io["c"], M, N, K, BM=128, BN=128, BK=64, num_warps=8,
               num_stages=3)
    return (io["c"],)


def run_torch(io):
    return (torch.bmm(io["a"], io["b"]),)


def reference(io):
    a, b = f64(io["a"], io["b"])
    return (a @ b,)


def flops(shape):
    batch, M, N, K = shape
    return 2.0 * batch * M * N * K
