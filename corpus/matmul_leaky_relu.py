"""Triton tutorial 03, matrix multiplication with a leaky-ReLU epilogue, in
fp16 (matmul_leaky_relu.mlir). The twin is the tutorial's kernel at its
first CUDA configuration (128 x 256 x 64, GROUP_SIZE_M 8, 3 stages, 8
warps); the anchor is ``torch.matmul`` then ``F.leaky_relu``."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from .common import f64, gen, matrix, poisoned

KERNELS = ("matmul_leaky_relu",)
CASES = [(1, 8, 1), (127, 264, 72), (1000, 1032, 1000)]  # (M, N, K)
BENCH = [(8192, 8192, 8192)]
TOL = 1e-2


def make_inputs(shape, seed):
    M, N, K = shape
    g = gen(seed)
    return dict(shape=shape, a=matrix(M, K, torch.float16, g),
                b=matrix(K, N, torch.float16, g, scale=K ** -0.5),
                c=poisoned(M, N, torch.float16))


def run_tilec(kernels, io):
    M, N, K = io["shape"]
    a, b, c = io["a"], io["b"], io["c"]
    kernels["matmul_leaky_relu"](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0))
    return (c,)


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def _matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
            stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
            BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def run_triton(io):
    M, N, K = io["shape"]
    a, b, c = io["a"], io["b"], io["c"]
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 256),)
    _matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                  c.stride(0), c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=256,
                  BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_stages=3, num_warps=8)
    return (c,)


def run_torch(io):
    return (F.leaky_relu(torch.matmul(io["a"], io["b"]), 0.01),)


def reference(io):
    a, b = f64(io["a"], io["b"])
    return (F.leaky_relu(a @ b, 0.01),)


def flops(shape):
    M, N, K = shape
    return 2.0 * M * N * K
