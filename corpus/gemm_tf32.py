"""An f32 GEMM in TF32, as Triton's tl.dot does by default: C = A * B, A
and B row-major (gemm_tf32.mlir). The twin: the same tiles (128 x 128 x
32, 8 warps, 3 stages, input_precision="tf32"); the anchor is
``torch.matmul`` with TF32 allowed."""

import torch
import triton
import triton.language as tl

from .common import f64, gen, matrix, poisoned, store2d, tile2d

KERNELS = ("gemm_tf32",)
CASES = [(1, 8, 1), (127, 264, 72), (1000, 1000, 520)]  # (M, N, K)
BENCH = [(8192, 8192, 4096)]
TOL = 1e-2


def make_inputs(shape, seed):
    M, N, K = shape
    g = gen(seed)
    return dict(shape=shape, a=matrix(M, K, torch.float32, g),
                b=matrix(K, N, torch.float32, g, scale=K ** -0.5),
                c=poisoned(M, N, torch.float32))


def run_tilec(kernels, io):
    M, N, K = io["shape"]
    a, b, c = io["a"], io["b"], io["c"]
    kernels["gemm_tf32"](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0))
    return (c,)


@triton.jit
def _gemm_tf32(A, B, C, M, N, K, sa, sb, sc, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    rm = (pid // npn) * BM + tl.arange(0, BM)
    rn = (pid % npn) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        acc = tl.dot(tile2d(A, rm, rk, sa, 1, M, K), tile2d(B, rk, rn, sb, 1, K, N), acc,
                     input_precision="tf32")
    store2d(C, acc, rm, rn, sc, M, N)


def run_triton(io):
    M, N, K = io["shape"]
    a, b, c = io["a"], io["b"], io["c"]
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    _gemm_tf32[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=128, BN=128,
                     BK=32, num_warps=8, num_stages=3)
    return (c,)


def run_torch(io):
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        return (torch.matmul(io["a"], io["b"]),)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


def reference(io):
    a, b = f64(io["a"], io["b"])
    return (a @ b,)


def flops(shape):
    M, N, K = shape
    return 2.0 * M * N * K
