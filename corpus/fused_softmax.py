"""Triton tutorial 02, fused softmax: the row softmax of an M x N f32
matrix, N <= 1024 (fused_softmax.mlir). The twin is the tutorial's kernel
(a fixed number of programs walking the rows, BLOCK_SIZE 1024, 8 warps,
num_stages 4 as the tutorial picks on Hopper); the anchor is
``torch.softmax``."""

import torch
import triton
import triton.language as tl

from .common import f64, gen, matrix, poisoned, sm_count

KERNELS = ("fused_softmax",)
CASES = [(1, 1), (1823, 781), (37, 1024)]
BENCH = [(32768, 1024)]
TOL = 1e-5


def make_inputs(shape, seed):
    M, N = shape
    return dict(shape=shape, x=matrix(M, N, torch.float32, gen(seed)),
                y=poisoned(M, N, torch.float32), programs=min(M, 4 * sm_count()))


def run_tilec(kernels, io):
    M, N = io["shape"]
    x, y = io["x"], io["y"]
    kernels["fused_softmax"](x, y, x.stride(0), y.stride(0), M, N, io["programs"])
    return (y,)


@triton.jit
def _softmax(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
             BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


def run_triton(io):
    M, N = io["shape"]
    x, y = io["x"], io["y"]
    _softmax[(io["programs"],)](y, x, x.stride(0), y.stride(0), M, N, BLOCK_SIZE=1024,
                                num_stages=4, num_warps=8)
    return (y,)


def run_torch(io):
    return (torch.softmax(io["x"], dim=-1),)


def reference(io):
    return (torch.softmax(f64(io["x"]), dim=-1),)


def bytes_moved(shape):
    return 8.0 * shape[0] * shape[1]
