"""Reference Triton kernels for side-by-side measurements.

The GEMM is the anchor measurement's kernel (../shared/anchors/anchors.py in
the project's steering material): grouped rasterization, autotuned over five
configurations."""

import triton
import triton.language as tl
import torch

_CFGS = [triton.Config({"BM": bm, "BN": bn, "BK": bk, "G": 8}, num_stages=s, num_warps=w)
         for (bm, bn, bk, s, w) in [(128, 256, 64, 3, 8), (128, 128, 64, 4, 4), (128, 256, 64, 4, 8),
                                    (256, 128, 64, 3, 8), (128, 128, 128, 3, 8)]]


@triton.autotune(_CFGS, key=["M", "N", "K"])
@triton.jit
def _mm_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    gid = pid // (G * npn)
    first = gid * G
    gs = min(npm - first, G)
    pm = first + ((pid % (G * npn)) % gs)
    pn = (pid % (G * npn)) // gs
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    ap = a + rm[:, None] * sam + rk[None, :] * sak
    bp = b + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        x = tl.load(ap, mask=rk[None, :] < K - k * BK, other=0.0)
        y = tl.load(bp, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(x, y, acc)
        ap += BK * sak
        bp += BK * sbk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c + cm[:, None] * scm + cn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


def triton_mm(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda m: (triton.cdiv(M, m["BM"]) * triton.cdiv(N, m["BN"]),)
    _mm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                     c.stride(0), c.stride(1))
    return c
