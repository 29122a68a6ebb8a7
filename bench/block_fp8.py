#!/usr/bin/env python3
"""FP8 GEMMs (examples/gemm_block_fp8.mlir, and tile.gemm on fp8 in
examples/scaled_mm_fp8.mlir) on the GPU:
correctness beside torch._scaled_mm, and speed against it (cuBLAS FP8).

Build here (tilec): compiles the example for sm_90a (wgmma) and sm_89
(mma.sync m16n8k32, assembled for sm_90 so that it runs on the H200):

    block_fp8.py --build [--art .gpu/fp8]

Run there (torch, cuda.bindings):

    block_fp8.py --art .gpu/fp8 --out OUT [--rounds 5]

Casts (examples/quantize_fp8.mlir): bit-exact against torch on odd shapes
(check_casts).

Correctness: random e4m3 (and e5m2) inputs, never zeros, odd shapes (M, N, K
not multiples of the tiles; rows padded to 16 bytes), C poisoned with NaN,
compared by relative max error with a float64 product of the dequantized
inputs. The bound is set by cuBLAS: torch._scaled_mm's error on the same
inputs (zero-padded to its multiples of 16) in the same run, times 2, and
at least bf16's rounding (2^-8). Nothing past column N of C may be written.

scaled_linear_block_fp8 accumulates in wgmma's own FP8 accumulator over all
of K on sm_90a (cuBLAS's use_fast_accum mode), so its bound takes the larger
of cuBLAS's two errors; scaled_linear_block_fp8_promoted sums each K block in
f32 and is held to cuBLAS's default (promoting) mode.

INT8 (examples/gemm_block_i8.mlir): exact against a float64 product on the
same odd shapes, and timed beside torch._int_mm at 8192^3 (check_int8).

TF32 (examples/gemm_block_tf32.mlir, and tile.gemm on f32 in
examples/linear_tf32.mlir): f32 inputs on the same odd shapes (K
rows padded to 4 elements), C poisoned, against a float64 product:
precision(tf32) held to 2x torch.matmul's error with allow_tf32 (cuBLAS
TF32), precision(tf32x3) to 4x torch.matmul's exact f32 error (at least
2^-20), exact f32 on FMA instructions (linear_block_f32, linear_f32) to
that or 2x the error of an f32 sum in K order (its summation order),
whichever is larger; timed beside both at 8192^3 and 4096^3 (check_tf32).

Speed: medians over alternating rounds (block_programs.time_rounds) of the
sm_90a kernel, the sm_89 kernel and torch._scaled_mm with per-tensor scales
and bf16 output (with and without use_fast_accum), at 8192^3 and the
Llama-3 projections at M = 4096, 8192.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

from scripts import ROOT
from scripts.harness.records import new_record, open_log, stamp_commit, write_record, write_result
EXAMPLE = os.path.join(ROOT, "examples", "gemm_block_fp8.mlir")
QUANTIZE = os.path.join(ROOT, "examples", "quantize_fp8.mlir")
NAMED = os.path.join(ROOT, "examples", "scaled_mm_fp8.mlir")
INT8 = os.path.join(ROOT, "examples", "gemm_block_i8.mlir")
TF32 = os.path.join(ROOT, "examples", "gemm_block_tf32.mlir")
TF32_NAMED = os.path.join(ROOT, "examples", "linear_tf32.mlir")
INT_MM = os.path.join(ROOT, "examples", "int_mm_i8.mlir")
CHIPS = {"sm_90a": "sm_90a", "sm_89": "sm_90"}  # chip -> cubin arch

ODD = [(1, 16, 16), (127, 264, 144), (1000, 1032, 1000), (513, 2056, 784),
       (333, 1000, 4112), (2049, 520, 128), (4096, 4096, 4096)]
SPEED = [(8192, 8192, 8192), (4096, 4096, 4096), (4096, 14336, 4096),
         (4096, 4096, 14336), (8192, 4096, 4096), (8192, 14336, 4096),
         (8192, 4096, 14336)]


#: name -> schedule of the K64 variants of scaled_linear_block_fp8 (k64_source).
K64 = {"scaled_linear_block_fp8_k64": None,
       "scaled_linear_block_fp8_k64_cp_async": "tma = false, warp_specialize = false"}


def k64_source(name, schedule):
    """scaled_linear_block_fp8 with K in 64-wide steps: 64-byte operand rows,
    which sm_90a reads in the 64-byte swizzle (TMA, or with `schedule` the
    cp.async ring), as `name`."""
    text = open(EXAMPLE).read()
    start = text.index("tile.kernel @scaled_linear_block_fp8(")
    kernel = text[start:text.index("\n}\n", start) + 3]
    kernel = kernel.replace("@scaled_linear_block_fp8(", f"@{name}(")
    if schedule:
        kernel = kernel.replace("warps(8) {", f"warps(8) schedule<{schedule}> {{")
    kernel = kernel.replace("%c128 = arith.constant 128 : i32",
                            "%c128 = arith.constant 128 : i32\n  %c64 = arith.constant 64 : i32")
    kernel = kernel.replace("step %c128", "step %c64")
    for old, new in (("128x128xf8E4M3FN", "128x64xf8E4M3FN"),
                     ("256x128xf8E4M3FN", "256x64xf8E4M3FN"),
                     ("128x256xf8E4M3FN", "64x256xf8E4M3FN")):
        kernel = kernel.replace(old, new)
    return kernel


def build(art, tilec):
    for chip, arch in CHIPS.items():
        out = os.path.join(art, chip)
        os.makedirs(out, exist_ok=True)
        k64 = []
        for name, schedule in K64.items():
            k64.append(os.path.join(out, name + ".mlir"))
            with open(k64[-1], "w") as f:
                f.write(k64_source(name, schedule))
        for ex in (EXAMPLE, QUANTIZE, NAMED, INT8, TF32, TF32_NAMED, INT_MM, *k64):
            subprocess.run([tilec, ex, f"--chip={chip}", f"--cubin-arch={arch}",
                            "--emit=cubin", "-o", out], check=True)
        print("built", chip, flush=True)
    stamp_commit(art)


def round16(x):
    return (x + 15) // 16 * 16


def operands(torch, M, N, K, bdtype, seed):
    """A (M x K) and B (N x K) fp8, rows padded to 16 bytes with zeros;
    C (M x ldc) bf16 poisoned with NaN."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    ldk, ldc = round16(K), round16(N)

    def fp8(rows, dtype):
        x = torch.zeros(round16(rows), ldk, device="cuda")
        v = torch.randn(rows, K, device="cuda", generator=g)
        v = torch.where(v.abs() < 0.05, torch.full_like(v, 0.5), v)  # never zeros
        x[:rows, :K] = v
        return x.to(dtype)

    a_buf = fp8(M, torch.float8_e4m3fn)
    b_buf = fp8(N, bdtype)
    c_buf = torch.full((M, ldc), float("nan"), device="cuda", dtype=torch.bfloat16)
    return a_buf, b_buf, c_buf, ldk, ldc


def check_int8(torch, load, art, result, log, time_rounds, rounds):
    """gemm_block_i8.mlir: exact against a float64 product (|sum| < 2^53),
    odd shapes, C poisoned; timed beside torch._int_mm at 8192^3."""
    for chip, name in [(c, n) for c in CHIPS for n in ("linear_block_i8", "int_mm_i8")]:
        kn = load(art, chip, name)
        for i, (M, N, K) in enumerate(ODD):
            g = torch.Generator(device="cuda").manual_seed(80 + i)
            ldk, ldc = round16(K), (N + 3) // 4 * 4
            a = torch.randint(-128, 128, (M, ldk), device="cuda", generator=g, dtype=torch.int8)
            b = torch.randint(-128, 128, (N, ldk), device="cuda", generator=g, dtype=torch.int8)
            c = torch.full((M, ldc), -7, device="cuda", dtype=torch.int32)
            kn(a, b, c, M, N, K, ldk, ldk, ldc)
            torch.cuda.synchronize()
            ref = (a[:, :K].double() @ b[:, :K].double().T).to(torch.int64)
            same = torch.equal(c[:, :N].to(torch.int64), ref)
            pad = ldc == N or bool((c[:, N:] == -7).all().item())
            ok = bool(same and pad)
            result["correctness"].append(dict(chip=chip, kernel=name, shape=[M, N, K],
                                              exact=bool(same), pad_untouched=pad, ok=ok))
            log(f"{'ok  ' if ok else 'FAIL'} {chip} {name} {M}x{N}x{K} exact={same}")
    M = N = K = 8192
    a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
    b = torch.randint(-128, 128, (N, K), device="cuda", dtype=torch.int8)
    c = torch.empty(M, N, device="cuda", dtype=torch.int32)
    fns = {f"{chip}/{name}": (lambda kn=load(art, chip, name): kn(a, b, c, M, N, K, K, K, N))
           for chip in CHIPS for name in ("linear_block_i8", "int_mm_i8")}
    fns["int_mm"] = lambda: torch._int_mm(a, b.T)
    ms = time_rounds(fns, rounds)
    tops = {k: round(2.0 * M * N * K / v / 1e9, 1) for k, v in ms.items()}
    result["speed_int8"] = dict(shape=[M, N, K], tops=tops)
    log(f"int8 {M}^3 TOPS " + " ".join(f"{k}={v}" for k, v in tops.items()))


TF32_KERNELS = ("linear_block_tf32", "linear_block_tf32x3", "linear_block_f32", "linear_tf32",
                "linear_tf32x3", "linear_f32")


def triton_tf32(torch, a, b):
    """a @ b.T by a Triton kernel with tl.dot(input_precision="tf32"), 128x128x32
    tiles: Triton's TF32 on the same inputs, for the error it gets (wgmma on
    sm_90 reads the f32 bits in shared memory, as tilec's sm_90a kernel)."""
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(A, B, C, M, N, K, lda, ldb, ldc, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            ta = tl.load(A + rm[:, None] * lda + (k + rk)[None, :],
                         mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
            tb = tl.load(B + rn[None, :] * ldb + (k + rk)[:, None],
                         mask=(rn[None, :] < N) & ((k + rk)[:, None] < K), other=0.0)
            acc = tl.dot(ta, tb, acc, input_precision="tf32")
        tl.store(C + rm[:, None] * ldc + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    M, K = a.shape
    N = b.shape[0]
    c = torch.empty(M, N, device="cuda")
    kernel[(triton.cdiv(M, 128), triton.cdiv(N, 128))](a, b, c, M, N, K, a.stride(0),
                                                        b.stride(0), N, BM=128, BN=128, BK=32)
    return c


def serial_f32(torch, a, b):
    """a @ b.T summed in f32 in K order, one product and one addition per
    step (rounded each): the summation order of tile.dot in ieee precision
    (one fma per step), whose error grows with K as cuBLAS's blocked sums'
    does not."""
    acc = torch.zeros(a.shape[0], b.shape[0], device="cuda")
    for k in range(a.shape[1]):
        acc += a[:, k, None] * b[None, :, k]
    return acc


def check_tf32(torch, load, art, result, log, time_rounds, rounds):
    """gemm_block_tf32.mlir on odd shapes against a float64 product, beside
    cuBLAS TF32 (allow_tf32) and exact f32 on the same inputs; timed beside
    both."""
    def cublas(a, b, tf32):
        old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        try:
            return a @ b.T
        finally:
            torch.backends.cuda.matmul.allow_tf32 = old

    for chip in CHIPS:
        for name in TF32_KERNELS:
            kn = load(art, chip, name)
            for i, (M, N, K) in enumerate(ODD):
                g = torch.Generator(device="cuda").manual_seed(90 + i)
                ldk, ldc = (K + 3) // 4 * 4, (N + 3) // 4 * 4
                a = torch.randn(M, ldk, device="cuda", generator=g)
                b = torch.randn(N, ldk, device="cuda", generator=g)
                c = torch.full((M, ldc), float("nan"), device="cuda")
                kn(a, b, c, M, N, K, ldk, ldk, ldc)
                torch.cuda.synchronize()
                ref = a[:, :K].double() @ b[:, :K].double().T
                out = c[:, :N].double()
                written = not torch.isnan(out).any().item()
                pad = ldc == N or bool(torch.isnan(c[:, N:]).all().item())

                def rel(x):
                    return ((x - ref).abs().max() / ref.abs().max()).item()
                err = rel(out) if written else float("inf")
                tf32_err = rel(cublas(a[:, :K], b[:, :K], True).double())
                f32_err = rel(cublas(a[:, :K], b[:, :K], False).double())
                triton_err = rel(triton_tf32(torch, a[:, :K], b[:, :K]).double())
                # TF32: cuBLAS's TF32 error (x2), at least 2^-10 (cuBLAS
                # runs tiny shapes in exact f32); wgmma (sm_90a) truncates
                # the inputs to TF32 as Triton does, held to Triton's error
                # (x2). 3xTF32: exact f32's (x4). Exact f32 on FMA
                # instructions sums in K order: also at most twice the
                # error of that order in f32 (serial_f32).
                serial_err = (rel(serial_f32(torch, a[:, :K], b[:, :K]).double())
                              if name.endswith("_f32") else None)
                if name.endswith("tf32x3"):
                    bound = max(4 * f32_err, 2.0 ** -20)
                elif name.endswith("_f32"):
                    bound = max(4 * f32_err, 2 * serial_err, 2.0 ** -20)
                else:
                    bound = max(2 * (triton_err if chip == "sm_90a" else tf32_err), 2.0 ** -10)
                ok = bool(written and pad and err <= bound)
                result["correctness"].append(dict(
                    chip=chip, kernel=name, shape=[M, N, K], max_rel_err=err,
                    cublas_tf32_max_rel_err=tf32_err, cublas_f32_max_rel_err=f32_err,
                    triton_tf32_max_rel_err=triton_err, serial_f32_max_rel_err=serial_err,
                    bound=bound, written=written, pad_untouched=pad, ok=ok))
                log(f"{'ok  ' if ok else 'FAIL'} {chip} {name} {M}x{N}x{K} err={err:.2e} "
                    f"(cublas tf32 {tf32_err:.2e}, f32 {f32_err:.2e}, triton tf32 "
                    f"{triton_err:.2e}, bound {bound:.2e})")
    for M, N, K in ((8192, 8192, 8192), (4096, 4096, 4096)):
        a = torch.randn(M, K, device="cuda")
        b = torch.randn(N, K, device="cuda")
        c = torch.empty(M, N, device="cuda")
        fns = {f"{chip}/{name}": (lambda kn=load(art, chip, name): kn(a, b, c, M, N, K, K, K, N))
               for chip in CHIPS for name in TF32_KERNELS}
        fns["cublas_tf32"] = lambda: cublas(a, b, True)
        fns["cublas_f32"] = lambda: cublas(a, b, False)
        ms = time_rounds(fns, rounds)
        tflops = {k: round(2.0 * M * N * K / v / 1e9, 1) for k, v in ms.items()}
        result.setdefault("speed_tf32", []).append(dict(shape=[M, N, K], tflops=tflops))
        log(f"tf32 {M}x{N}x{K} TFLOP/s " + " ".join(f"{k}={v}" for k, v in tflops.items()))


def check_rowwise(torch, load, art, result, log, time_rounds, rounds):
    """scaled_mm_fp8_rowwise (tile.gemm with scale_a, scale_b): odd shapes
    against a float64 product of the dequantized inputs, bound 2x
    torch._scaled_mm's row-wise error, the larger of its two accumulation
    modes (at least 2^-8); timed beside it."""
    for chip in CHIPS:
        kn = load(art, chip, "scaled_mm_fp8_rowwise")
        for i, (M, N, K) in enumerate(ODD):
            a_buf, b_buf, c_buf, ldk, ldc = operands(torch, M, N, K, torch.float8_e4m3fn, 30 + i)
            g = torch.Generator(device="cuda").manual_seed(60 + i)
            sa = torch.rand(a_buf.shape[0], device="cuda", generator=g) + 0.5
            sb = torch.rand(b_buf.shape[0], device="cuda", generator=g) + 0.5
            kn(a_buf, b_buf, c_buf, sa, sb, M, N, K, ldk, ldk, ldc)
            torch.cuda.synchronize()
            ref = (a_buf[:M, :K].double() @ b_buf[:N, :K].double().T) * (
                sa[:M, None].double() * sb[None, :N].double())
            out = c_buf[:, :N].double()
            written = not torch.isnan(out).any().item()
            pad = ldc == N or bool(torch.isnan(c_buf[:, N:].float()).all().item())
            err = ((out - ref).abs().max() / ref.abs().max()).item() if written else float("inf")
            # tile.gemm's fp8 kernel accumulates in wgmma's own precision on
            # sm_90a, as cuBLAS's use_fast_accum mode: the larger of both.
            errs = []
            for fast in (False, True):
                cb = torch._scaled_mm(a_buf, b_buf.T, scale_a=sa[:, None], scale_b=sb[None, :],
                                      out_dtype=torch.bfloat16,
                                      use_fast_accum=fast)[:M, :N].double()
                errs.append(((cb - ref).abs().max() / ref.abs().max()).item())
            cublas_err = max(errs)
            bound = max(2 * cublas_err, 2.0 ** -8)
            ok = bool(written and pad and err <= bound)
            result["correctness"].append(dict(chip=chip, kernel="scaled_mm_fp8_rowwise",
                                              shape=[M, N, K], max_rel_err=err,
                                              cublas_max_rel_err=cublas_err, bound=bound,
                                              written=written, pad_untouched=pad, ok=ok))
            log(f"{'ok  ' if ok else 'FAIL'} {chip} scaled_mm_fp8_rowwise {M}x{N}x{K} "
                f"err={err:.2e} cublas={cublas_err:.2e}")
    for M, N, K in ((8192, 8192, 8192), (4096, 14336, 4096)):
        a_buf, b_buf, c_buf, ldk, ldc = operands(torch, M, N, K, torch.float8_e4m3fn, 3)
        sa = torch.rand(M, device="cuda") + 0.5
        sb = torch.rand(N, device="cuda") + 0.5
        kn = load(art, "sm_90a", "scaled_mm_fp8_rowwise")
        fns = {"sm_90a_rowwise": lambda: kn(a_buf, b_buf, c_buf, sa, sb, M, N, K, ldk, ldk, ldc),
               "cublas_rowwise": lambda: torch._scaled_mm(a_buf, b_buf.T, scale_a=sa[:, None],
                                                          scale_b=sb[None, :],
                                                          out_dtype=torch.bfloat16)}
        ms = time_rounds(fns, rounds)
        tf = {k: round(2.0 * M * N * K / v / 1e9, 1) for k, v in ms.items()}
        result.setdefault("speed_rowwise", []).append(dict(shape=[M, N, K], tflops=tf))
        log(f"rowwise {M}x{N}x{K} TFLOP/s " + " ".join(f"{k}={v}" for k, v in tf.items()))


BLOCKWISE = ("scaled_mm_fp8_blockwise", "scaled_linear_block_fp8_blockwise")


def blockwise_scales(torch, M, N, K, seed):
    """DeepGEMM's block scales: scale_a [ceil(K/128), M] (1x128, M
    contiguous), scale_b [ceil(N/128), ceil(K/128)] (128x128), in [0.5, 1.5)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    kb, nb = (K + 127) // 128, (N + 127) // 128
    sa = torch.rand(kb, M, device="cuda", generator=g) + 0.5
    sb = torch.rand(nb, kb, device="cuda", generator=g) + 0.5
    return sa, sb


def blockwise_reference(torch, a, b, sa, sb):
    """float64 product of the dequantized A (M x K) and B (N x K)."""
    M, K = a.shape
    N = b.shape[0]
    col = torch.arange(K, device="cuda") // 128
    a_deq = a.double() * sa.double().t()[:, col]
    b_deq = b.double() * sb.double()[torch.arange(N, device="cuda") // 128][:, col]
    return a_deq @ b_deq.t()


def torch_blockwise(torch, a, b_col, sa, sb):
    """torch._scaled_mm with 1x128 / 128x128 block scales (cuBLAS), or None
    where this torch / cuBLAS does not take them."""
    try:
        return torch._scaled_mm(a, b_col, scale_a=sa.t(), scale_b=sb.t(),
                                out_dtype=torch.bfloat16)
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        return e


def check_blockwise(torch, load, art, result, log, time_rounds, rounds):
    """scaled_mm_fp8_blockwise (tile.gemm) and
    scaled_linear_block_fp8_blockwise (the block program): DeepGEMM's 1x128 /
    128x128 block scales with f32 promotion per K block: odd shapes against a float64 product of the
    dequantized inputs, bound 2x the row-wise per-tensor kernel's error
    against its own reference (cuBLAS's promoted mode) and at least
    2^-8; timed beside tilec's per-tensor kernel, the promoted per-tensor
    block program, torch._scaled_mm per-tensor, and cuBLAS block-scaled
    where torch takes it."""
    one = torch.ones((), device="cuda")

    def run(kn, name, a_buf, b_buf, c_buf, sa, sb, M, N, K, ldk, ldc):
        if name == "scaled_mm_fp8_blockwise":  # tile.gemm: KB, NB parameters
            kn(a_buf, b_buf, c_buf, sa, sb, M, N, K, sa.shape[0], sb.shape[0], ldk, ldk, ldc)
        else:
            kn(a_buf, b_buf, c_buf, sa, sb, M, N, K, ldk, ldk, ldc)

    for chip, name in [(chip, name) for chip in CHIPS for name in BLOCKWISE]:
        kn = load(art, chip, name)
        for i, (M, N, K) in enumerate(ODD):
            a_buf, b_buf, c_buf, ldk, ldc = operands(torch, M, N, K, torch.float8_e4m3fn, 40 + i)
            sa, sb = blockwise_scales(torch, M, N, K, 80 + i)
            run(kn, name, a_buf, b_buf, c_buf, sa, sb, M, N, K, ldk, ldc)
            torch.cuda.synchronize()
            a, b = a_buf[:M, :K], b_buf[:N, :K]
            ref = blockwise_reference(torch, a, b, sa, sb)
            out = c_buf[:, :N].double()
            written = not torch.isnan(out).any().item()
            pad = ldc == N or bool(torch.isnan(c_buf[:, N:].float()).all().item())
            err = ((out - ref).abs().max() / ref.abs().max()).item() if written else float("inf")
            # cuBLAS's promoted FP8 error on the same products (per-tensor).
            cref = a.double() @ b.double().t()
            cb = torch._scaled_mm(a_buf, b_buf.T, scale_a=one, scale_b=one,
                                  out_dtype=torch.bfloat16)[:M, :N].double()
            cublas_err = ((cb - cref).abs().max() / cref.abs().max()).item()
            bound = max(2 * cublas_err, 2.0 ** -8)
            ok = bool(written and pad and err <= bound)
            result["correctness"].append(dict(chip=chip, kernel=name,
                                              shape=[M, N, K], max_rel_err=err,
                                              cublas_max_rel_err=cublas_err, bound=bound,
                                              written=written, pad_untouched=pad, ok=ok))
            log(f"{'ok  ' if ok else 'FAIL'} {chip} {name} {M}x{N}x{K} "
                f"err={err:.2e} cublas(per-tensor)={cublas_err:.2e}")
    bw = {name: load(art, "sm_90a", name) for name in BLOCKWISE}
    named = load(art, "sm_90a", "scaled_mm_fp8")
    promoted = load(art, "sm_90a", "scaled_linear_block_fp8_promoted")
    for M, N, K in SPEED:
        a_buf, b_buf, c_buf, ldk, ldc = operands(torch, M, N, K, torch.float8_e4m3fn, 3)
        sa, sb = blockwise_scales(torch, M, N, K, 4)
        b_col = b_buf.T
        fns = {"tilec_blockwise_named": lambda: run(bw["scaled_mm_fp8_blockwise"],
                                                    "scaled_mm_fp8_blockwise", a_buf, b_buf,
                                                    c_buf, sa, sb, M, N, K, ldk, ldc),
               "tilec_blockwise_block_program": lambda: run(
                   bw["scaled_linear_block_fp8_blockwise"], "scaled_linear_block_fp8_blockwise",
                   a_buf, b_buf, c_buf, sa, sb, M, N, K, ldk, ldc),
               "tilec_per_tensor": lambda: named(a_buf, b_buf, c_buf, 0.9375, M, N, K,
                                                 ldk, ldk, ldc),
               "tilec_promoted_per_tensor": lambda: promoted(a_buf, b_buf, c_buf, 0.75, 1.25,
                                                             M, N, K, ldk, ldk, ldc),
               "cublas_per_tensor": lambda: torch._scaled_mm(a_buf, b_col, scale_a=one,
                                                             scale_b=one,
                                                             out_dtype=torch.bfloat16)}
        tb = torch_blockwise(torch, a_buf, b_col, sa, sb)
        if isinstance(tb, Exception):
            if M == SPEED[0][0]:
                log(f"cuBLAS block-scaled: not taken by torch ({str(tb).splitlines()[0][:200]})")
        else:
            ref = blockwise_reference(torch, a_buf[:64].contiguous(), b_buf, sa[:, :64], sb)
            err = ((tb[:64].double() - ref).abs().max() / ref.abs().max()).item()
            if M == SPEED[0][0]:
                log(f"cuBLAS block-scaled: taken, error on the first rows {err:.2e}")
            fns["cublas_blockwise"] = lambda: torch_blockwise(torch, a_buf, b_col, sa, sb)
        ms = time_rounds(fns, rounds)
        tf = {k: round(2.0 * M * N * K / v / 1e9, 1) for k, v in ms.items()}
        row = dict(shape=[M, N, K], tflops=tf,
                   named_blockwise_vs={k: round(tf["tilec_blockwise_named"] / v, 3)
                                       for k, v in tf.items()})
        result.setdefault("speed_blockwise", []).append(row)
        log(f"blockwise {M}x{N}x{K} TFLOP/s " + " ".join(f"{k}={v}" for k, v in tf.items()))


def check_casts(torch, load, art, result, log):
    """quantize_fp8.mlir: bit-exact against torch's casts of the saturated
    values (torch's own float8 casts do not saturate), on odd shapes with
    values past the fp8 range; dequantize exact against q.float() * s."""
    for chip in CHIPS:
        for i, (M, N) in enumerate([(1, 1), (33, 129), (1000, 999), (257, 4100)]):
            g = torch.Generator(device="cuda").manual_seed(50 + i)
            ld = N + 3
            x_buf = (torch.randn(M, ld, device="cuda", generator=g) * 300).bfloat16()
            x = x_buf[:, :N]
            scale = 1.5
            for name, dt, fmax in (("quantize_e4m3", torch.float8_e4m3fn, 448.0),
                                   ("quantize_e5m2", torch.float8_e5m2, 57344.0)):
                q_buf = torch.full((M, ld), 0x7F, device="cuda", dtype=torch.uint8).view(dt)
                load(art, chip, name)(x_buf, q_buf, scale, M, N, ld, ld)
                torch.cuda.synchronize()
                ref = (x.float() * scale).clamp(-fmax, fmax).to(dt)
                same = torch.equal(q_buf[:, :N].view(torch.uint8), ref.view(torch.uint8))
                pad = bool((q_buf[:, N:].view(torch.uint8) == 0x7F).all().item())
                ok = bool(same and pad)
                result["correctness"].append(dict(chip=chip, kernel=name, shape=[M, N],
                                                  bit_exact=bool(same), pad_untouched=pad, ok=ok))
                log(f"{'ok  ' if ok else 'FAIL'} {chip} {name} {M}x{N} bit_exact={same}")
            q8 = torch.full((M, ld), 0x7F, device="cuda", dtype=torch.uint8).view(torch.float8_e4m3fn)
            load(art, chip, "quantize_e4m3")(x_buf, q8, scale, M, N, ld, ld)
            y_buf = torch.full((M, ld), float("nan"), device="cuda", dtype=torch.bfloat16)
            load(art, chip, "dequantize_e4m3")(q8, y_buf, 0.5, M, N, ld, ld)
            torch.cuda.synchronize()
            ref = (q8[:, :N].float() * 0.5).bfloat16()
            same = torch.equal(y_buf[:, :N], ref)
            pad = bool(torch.isnan(y_buf[:, N:].float()).all().item())
            ok = bool(same and pad)
            result["correctness"].append(dict(chip=chip, kernel="dequantize_e4m3", shape=[M, N],
                                              bit_exact=bool(same), pad_untouched=pad, ok=ok))
            log(f"{'ok  ' if ok else 'FAIL'} {chip} dequantize_e4m3 {M}x{N} bit_exact={same}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--art", default=os.path.join(ROOT, ".gpu", "fp8"))
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--out", default="out")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", choices=("tf32", "rowwise", "int8", "blockwise", "fp8"),
                    default=None,
                    help="run one part (e.g. the TF32 checks) and write block_fp8_<part>.json; "
                         "fp8: the per-tensor FP8 kernels (correctness, speed, SASS) only")
    args = ap.parse_args()
    if args.build:
        return build(args.art, args.tilec)

    import torch
    from scripts.harness.artifacts import load
    from scripts.harness.timing import time_rounds

    log = open_log(args.out, "block_fp8.log")

    kernels = {(chip, name): load(args.art, chip, name)
               for chip in CHIPS for name in ("scaled_linear_block_fp8", "scaled_linear_block_fp8_promoted",
                             "linear_block_e4m3_e5m2", "scaled_mm_fp8", *K64)}
    result = new_record("block_fp8", artifacts=args.art, correctness=[], speed=[])
    one = torch.ones((), device="cuda")
    if args.only and args.only != "fp8":
        check = {"tf32": check_tf32, "rowwise": check_rowwise, "int8": check_int8,
                 "blockwise": check_blockwise}[args.only]
        check(torch, load, args.art, result, log, time_rounds, args.rounds)
        bad = [r for r in result["correctness"] if not r["ok"]]
        log(f"correctness: {len(result['correctness']) - len(bad)}/{len(result['correctness'])} ok")
        write_record(result, os.path.join(args.out, f"block_fp8_{args.only}.json"))
        return 1 if bad else 0
    if not args.only:
        check_casts(torch, load, args.art, result, log)
        check_int8(torch, load, args.art, result, log, time_rounds, args.rounds)
        check_tf32(torch, load, args.art, result, log, time_rounds, args.rounds)
        check_rowwise(torch, load, args.art, result, log, time_rounds, args.rounds)
        check_blockwise(torch, load, args.art, result, log, time_rounds, args.rounds)
    for (chip, name), kn in kernels.items():
        mixed = "e5m2" in name
        bdtype = torch.float8_e5m2 if mixed else torch.float8_e4m3fn
        for i, (M, N, K) in enumerate(ODD):
            a_buf, b_buf, c_buf, ldk, ldc = operands(torch, M, N, K, bdtype, 7 + i)
            sa, sb = (0.75, 1.25) if not mixed else (1.0, 1.0)
            if mixed:
                kn(a_buf, b_buf, c_buf, M, N, K, ldk, ldk, ldc)
            elif name == "scaled_mm_fp8":  # tile.gemm: alpha = scale_a * scale_b
                kn(a_buf, b_buf, c_buf, sa * sb, M, N, K, ldk, ldk, ldc)
            else:
                kn(a_buf, b_buf, c_buf, sa, sb, M, N, K, ldk, ldk, ldc)
            torch.cuda.synchronize()
            ref = (a_buf[:M, :K].double() @ b_buf[:N, :K].double().T) * (sa * sb)
            out = c_buf[:, :N].double()
            written = not torch.isnan(out).any().item()
            pad_ok = ldc == N or torch.isnan(c_buf[:, N:].float()).all().item()
            err = ((out - ref).abs().max() / ref.abs().max()).item() if written else float("inf")
            # cuBLAS on the same (zero-padded) inputs.
            # (use_fast_accum: cuBLAS accumulating in the tensor cores' own
            # precision, as wgmma FP8 does; without it cuBLAS promotes.)
            # cuBLAS takes e4m3 x e5m2 too.
            errs = []
            for fast in (False, True):
                cb = torch._scaled_mm(a_buf, b_buf.T, scale_a=one * sa, scale_b=one * sb,
                                      out_dtype=torch.bfloat16,
                                      use_fast_accum=fast)[:M, :N].double()
                errs.append(((cb - ref).abs().max() / ref.abs().max()).item())
            ref_err, fast_err = errs
            # The promoted kernel sums in f32 as cuBLAS's default does.
            worst = ref_err if "promoted" in name else max(ref_err, fast_err)
            bound = max(2 * worst, 2.0 ** -8)
            ok = bool(written and pad_ok and err <= bound)
            row = dict(chip=chip, kernel=name, shape=[M, N, K], max_rel_err=err,
                       cublas_max_rel_err=ref_err, cublas_fast_accum_max_rel_err=fast_err,
                       bound=bound, written=written,
                       pad_untouched=bool(pad_ok), ok=ok)
            result["correctness"].append(row)
            log(f"{'ok  ' if ok else 'FAIL'} {chip} {name} {M}x{N}x{K} err={err:.2e} "
                f"cublas={ref_err:.2e} fast={fast_err:.2e}")
    for (M, N, K) in SPEED:
        a_buf, b_buf, c_buf, ldk, ldc = operands(torch, M, N, K, torch.float8_e4m3fn, 1)
        sa = one * 0.75
        sb = one * 1.25
        fns = {}
        for chip in CHIPS:
            for name, tag in (("scaled_linear_block_fp8", ""), ("scaled_linear_block_fp8_promoted",
                                                                "_promoted"),
                              ("scaled_mm_fp8", "_named"), ("scaled_linear_block_fp8_k64", "_k64")):
                if chip == "sm_89" and tag:
                    continue
                kn = kernels[(chip, name)]
                fns[chip + tag] = ((lambda kn=kn: kn(a_buf, b_buf, c_buf, 0.9375, M, N, K,
                                                     ldk, ldk, ldc)) if tag == "_named" else
                                   (lambda kn=kn: kn(a_buf, b_buf, c_buf, 0.75, 1.25, M, N, K,
                                                     ldk, ldk, ldc)))
        fns["cublas"] = lambda: torch._scaled_mm(a_buf, b_buf.T, scale_a=sa, scale_b=sb,
                                                 out_dtype=torch.bfloat16)
        fns["cublas_fast"] = lambda: torch._scaled_mm(a_buf, b_buf.T, scale_a=sa, scale_b=sb,
                                                      out_dtype=torch.bfloat16,
                                                      use_fast_accum=True)
        ms = time_rounds(fns, args.rounds)
        tf = {k: 2.0 * M * N * K / v / 1e9 for k, v in ms.items()}
        row = dict(shape=[M, N, K], tflops={k: round(v, 1) for k, v in tf.items()},
                   vs_cublas={k: round(v / tf["cublas"], 3) for k, v in tf.items()})
        result["speed"].append(row)
        log(f"{M}x{N}x{K} " + " ".join(f"{k}={v:.0f}({row['vs_cublas'][k]:.2f})"
                                       for k, v in tf.items()))
    sass = {}
    for chip in CHIPS:
        for name in ("scaled_linear_block_fp8", "linear_block_i8", "linear_block_tf32",
                     "linear_block_tf32x3", *K64):
            s = subprocess.run(["cuobjdump", "-sass", os.path.join(args.art, chip, name + ".cubin")],
                               capture_output=True, text=True).stdout
            ops = re.findall(r"\b([A-Z][A-Z0-9]*(?:\.[A-Za-z0-9_]+)*)\b", s)
            sass[f"{chip}/{name}"] = {op: n for op, n in collections.Counter(
                o for o in ops if re.match(r"(Q|H|I)GMMA|[HI]MMA|UTMALDG|LDSM|F2FP|HADD2|LDL|STL",
                                           o)).items()}
    result["sass"] = sass
    log(json.dumps(sass))
    return write_result(result, args.out,
                        f"block_fp8_{args.only}.json" if args.only else "block_fp8.json", log)


if __name__ == "__main__":
    sys.exit(main())
