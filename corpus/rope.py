"""Rotary position embedding (rotate-half) on a contiguous [batch, seq,
heads, 128] bf16 tensor with f32 cos/sin tables [seq, 64] (rope.mlir, which
views the tensor as [batch, heads, seq, 128] with strides computed in the
kernel). The twin: the same tiles (64 positions of one head, 4 warps); the
anchor is the eager rotate-half formula of Hugging Face's Llama."""

import torch
import triton
import triton.language as tl

from .common import gen, nan_like, randn, store2d, tile2d

KERNELS = ("rope",)
D = 128
CASES = [(1, 1, 1), (2, 37, 3), (1, 1000, 4)]  # (batch, seq, heads)
BENCH = [(8, 4096, 32)]
TOL = 1e-2


def _tables(S):
    """cos and sin of position s times the frequencies 10000^(-2i / D)."""
    inv = 1.0 / 10000 ** (torch.arange(0, D, 2, device="cuda", dtype=torch.float64) / D)
    angle = torch.arange(S, device="cuda", dtype=torch.float64)[:, None] * inv[None, :]
    return angle.cos().float().contiguous(), angle.sin().float().contiguous()


def make_inputs(shape, seed):
    B, S, H = shape
    x = randn((B, S, H, D), torch.bfloat16, gen(seed))
    cos, sin = _tables(S)
    return dict(shape=shape, x=x, cos=cos, sin=sin, out=nan_like(x))


def run_tilec(kernels, io):
    kernels["rope"](io["x"], io["cos"], io["sin"], io["out"], *io["shape"])
    return (io["out"],)


@triton.jit
def _rope(X, Cos, Sin, Out, S, H, BS: tl.constexpr, HALF: tl.constexpr):
    rs = tl.program_id(0) * BS + tl.arange(0, BS)
    h = tl.program_id(1)
    b = tl.program_id(2).to(tl.int64)
    d = tl.arange(0, HALF)
    base = (b * S * H + h) * 2 * HALF
    ss = H * 2 * HALF
    x1 = tile2d(X + base, rs, d, ss, 1, S, HALF).to(tl.float32)
    x2 = tile2d(X + base + HALF, rs, d, ss, 1, S, HALF).to(tl.float32)
    cos = tile2d(Cos, rs, d, HALF, 1, S, HALF)
    sin = tile2d(Sin, rs, d, HALF, 1, S, HALF)
    store2d(Out + base, x1 * cos - x2 * sin, rs, d, ss, S, HALF)
    store2d(Out + base + HALF, x2 * cos + x1 * sin, rs, d, ss, S, HALF)


def run_triton(io):
    B, S, H = io["shape"]
    _rope[(triton.cdiv(S, 64), H, B)](io["x"], io["cos"], io["sin"], io["out"], S, H, BS=64,
                                      HALF=D // 2, num_warps=4)
    return (io["out"],)


def _rotate(x, cos, sin):
    """Hugging Face's apply_rotary_pos_emb on [B, S, H, D] with [S, D / 2] tables."""
    cos = torch.cat([cos, cos], dim=-1)[None, :, None, :]
    sin = torch.cat([sin, sin], dim=-1)[None, :, None, :]
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin


def run_torch(io):
    return (_rotate(io["x"].float(), io["cos"], io["sin"]).bfloat16(),)


def reference(io):
    return (_rotate(io["x"].double(), io["cos"].double(), io["sin"].double()),)


def bytes_moved(shape):
    B, S, H = shape
    return 4.0 * B * S * H * D + 2 * 4.0 * S * D / 2
