"""Triton tutorial 01, vector addition: z = x + y on n f32 elements
(vector_add.mlir). The twin is the tutorial's kernel (BLOCK_SIZE 1024, 4
warps); torch's anchor is ``torch.add``."""

import torch
import triton
import triton.language as tl

from .common import f64, gen, nan_like, randn

KERNELS = ("vector_add",)
CASES = [(1,), (98_431,), (1_000_003,)]
BENCH = [(1 << 26,)]
TOL = 1e-6


def make_inputs(shape, seed):
    (n,) = shape
    g = gen(seed)
    x = randn((n,), torch.float32, g)
    return dict(shape=shape, x=x, y=randn((n,), torch.float32, g), z=nan_like(x))


def run_tilec(kernels, io):
    kernels["vector_add"](io["x"], io["y"], io["z"], io["shape"][0])
    return (io["z"],)


@triton.jit
def _add(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def run_triton(io):
    n = io["shape"][0]
    _add[(triton.cdiv(n, 1024),)](io["x"], io["y"], io["z"], n, BLOCK_SIZE=1024, num_warps=4)
    return (io["z"],)


def run_torch(io):
    return (torch.add(io["x"], io["y"], out=io["z"]),)


def reference(io):
    x, y = f64(io["x"], io["y"])
    return (x + y,)


def bytes_moved(shape):
    return 12.0 * shape[0]
