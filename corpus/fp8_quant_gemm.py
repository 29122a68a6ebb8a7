"""FP8 inference GEMM: quantize the bf16 activations to e4m3 with a
per-tensor scale, then Y = (Xq Wqᵀ) * sx * sw in bf16, the weights
quantized ahead of time (fp8_quant_gemm.mlir, two kernels launched in
order). The twin: the same two kernels and tiles (32 x 128 over 4 warps;
128 x 128 x 128, 8 warps, 3 stages); the anchor is eager quantization then
``torch._scaled_mm``."""

import torch
import triton
import triton.language as tl

from .common import gen, matrix, poisoned, store2d, tile2d

KERNELS = ("fp8_quant_gemm_quantize", "fp8_quant_gemm_matmul")
CASES = [(1, 16, 16), (127, 272, 80), (1000, 1008, 528)]  # (M, N, K); K, N multiples of 16
BENCH = [(8192, 8192, 8192)]
TOL = 2e-2
E4M3 = torch.float8_e4m3fn
FP8_MAX = 448.0


def _quantize_weight(w):
    """Wq (row stride padded to 16) and its scale, as a checkpoint holds."""
    sw = w.float().abs().max().item() / FP8_MAX
    wq = poisoned(*w.shape, E4M3)
    wq.copy_((w.float() / sw).clamp(-FP8_MAX, FP8_MAX).to(E4M3))
    return wq, sw


def make_inputs(shape, seed):
    M, N, K = shape
    g = gen(seed)
    x = matrix(M, K, torch.bfloat16, g)
    wq, sw = _quantize_weight(matrix(N, K, torch.bfloat16, g))
    sx = x.float().abs().max().item() / FP8_MAX
    return dict(shape=shape, x=x, sx=sx, wq=wq, sw=sw,
                xq=poisoned(M, K, E4M3), y=poisoned(M, N, torch.bfloat16))


def run_tilec(kernels, io):
    M, N, K = io["shape"]
    x, xq, wq, y = io["x"], io["xq"], io["wq"], io["y"]
    kernels["fp8_quant_gemm_quantize"](x, xq, 1.0 / io["sx"], M, K, x.stride(0), xq.stride(0))
    kernels["fp8_quant_gemm_matmul"](xq, wq, y, io["sx"], io["sw"], M, N, K, xq.stride(0),
                                     wq.stride(0), y.stride(0))
    return (y,)


@triton.jit
def _quantize(X, Xq, inv_scale, M, K, sx, sq, BM: tl.constexpr, BK: tl.constexpr):
    rk = tl.program_id(0) * BK + tl.arange(0, BK)
    rm = tl.program_id(1) * BM + tl.arange(0, BM)
    x = tile2d(X, rm, rk, sx, 1, M, K).to(tl.float32) * inv_scale
    store2d(Xq, tl.clamp(x, -448.0, 448.0), rm, rk, sq, M, K)


@triton.jit
def _matmul(A, B, Y, scale_a, scale_b, M, N, K, sa, sb, sy, BM: tl.constexpr, BN: tl.constexpr,
            BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    rm = (pid // npn) * BM + tl.arange(0, BM)
    rn = (pid % npn) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        acc = tl.dot(tile2d(A, rm, rk, sa, 1, M, K), tile2d(B, rk, rn, 1, sb, K, N), acc)
    store2d(Y, acc * (scale_a * scale_b), rm, rn, sy, M, N)


def run_triton(io):
    M, N, K = io["shape"]
    x, xq, wq, y = io["x"], io["xq"], io["wq"], io["y"]
    _quantize[(triton.cdiv(K, 128), triton.cdiv(M, 32))](x, xq, 1.0 / io["sx"], M, K,
                                                         x.stride(0), xq.stride(0), BM=32,
                                                         BK=128, num_warps=4)
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    _matmul[grid](xq, wq, y, io["sx"], io["sw"], M, N, K, xq.stride(0), wq.stride(0), y.stride(0),
                  BM=128, BN=128, BK=128, num_warps=8, num_stages=3)
    return (y,)


def run_torch(io):
    xq = (io["x"].float() * (1.0 / io["sx"])).clamp(-FP8_MAX, FP8_MAX).to(E4M3)
    one = torch.ones((), device="cuda")
    return (torch._scaled_mm(xq, io["wq"].t(), scale_a=one * io["sx"], scale_b=one * io["sw"],
                             out_dtype=torch.bfloat16),)


def reference(io):
    # The same quantization of X (round to nearest even, saturated), then
    # the product of the dequantized operands in float64.
    xq = (io["x"].float() * (1.0 / io["sx"])).clamp(-FP8_MAX, FP8_MAX).to(E4M3)
    a = xq.double() * io["sx"]
    b = io["wq"].double() * io["sw"]
    return (a @ b.t(),)


def flops(shape):
    M, N, K = shape
    return 2.0 * M * N * K
