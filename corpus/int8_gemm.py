"""W8A8 linear layer: Y = (A Bᵀ) * sa[m] * sb[n], int8 operands, i32
accumulation, f32 row and column scales, bf16 out (int8_gemm.mlir). The
twin: the same tiles (128 x 128 x 128, 8 warps, 3 stages); the anchor is
``torch._int_mm`` then the scales in eager torch."""

import torch
import triton
import triton.language as tl

from .common import gen, matrix, poisoned, store2d, tile2d

KERNELS = ("int8_gemm",)
CASES = [(1, 8, 16), (127, 264, 80), (1000, 1000, 528)]  # (M, N, K); K a multiple of 16
BENCH = [(8192, 8192, 8192)]
TOL = 1e-2


def make_inputs(shape, seed):
    M, N, K = shape
    g = gen(seed)
    return dict(shape=shape, a=matrix(M, K, torch.int8, g), b=matrix(N, K, torch.int8, g),
                sa=torch.rand(M, device="cuda", generator=g) * 1e-2 + 1e-3,
                sb=torch.rand(N, device="cuda", generator=g) * 1e-2 + 1e-3,
                y=poisoned(M, N, torch.bfloat16))


def run_tilec(kernels, io):
    M, N, K = io["shape"]
    a, b, y = io["a"], io["b"], io["y"]
    kernels["int8_gemm"](a, b, io["sa"], io["sb"], y, M, N, K, a.stride(0), b.stride(0),
                         y.stride(0))
    return (y,)


@triton.jit
def _int8_gemm(A, B, SA, SB, Y, M, N, K, sa, sb, sy, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    rm = (pid // npn) * BM + tl.arange(0, BM)
    rn = (pid % npn) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.int32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        acc = tl.dot(tile2d(A, rm, rk, sa, 1, M, K), tile2d(B, rk, rn, 1, sb, K, N), acc)
    scale_a = tl.load(SA + rm, mask=rm < M, other=0.0)
    scale_b = tl.load(SB + rn, mask=rn < N, other=0.0)
    store2d(Y, acc.to(tl.float32) * scale_a[:, None] * scale_b[None, :], rm, rn, sy, M, N)


def run_triton(io):
    M, N, K = io["shape"]
    a, b, y = io["a"], io["b"], io["y"]
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    _int8_gemm[grid](a, b, io["sa"], io["sb"], y, M, N, K, a.stride(0), b.stride(0), y.stride(0),
                     BM=128, BN=128, BK=128, num_warps=8, num_stages=3)
    return (y,)


def run_torch(io):
    # torch._int_mm wants M > 16 and K, N multiples of 8: the bench shapes.
    acc = torch._int_mm(io["a"], io["b"].t())
    return ((acc.float() * io["sa"][:, None] * io["sb"][None, :]).bfloat16(),)


def reference(io):
    a, b = io["a"].double(), io["b"].double()
    return ((a @ b.t()) * io["sa"].double()[:, None] * io["sb"].double()[None, :],)


def flops(shape):
    M, N, K = shape
    return 2.0 * M * N * K
