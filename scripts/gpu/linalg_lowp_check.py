#!/usr/bin/env python3
"""The linalg frontend's f32, i8 and fp8 kernels on the GPU
(test/Target/Inputs/linalg_lowp.mlir through tile-from-linalg).

Build here (tilec-opt, tilec): outlines the functions with
f32-precision=tf32x3 (the default) and =tf32, and compiles every kernel for
sm_90a and sm_89 (cubin for sm_90, so that it runs on the H200):

    python3 -m scripts.gpu.linalg_lowp_check --build [--art .gpu/linalg] [--bindir build/bin]

Run there (torch, cuda.bindings):

    python3 -m scripts.gpu.linalg_lowp_check --art .gpu/linalg --out OUT [--rounds 5]

The bundle (``make gpu-artifacts``) builds the artifacts as .gpu/bundle/linalg.

Each function is run as its host glue says: the B transpose kernel
(`<f>_transpose0`, X -> Y, R x C -> C x R) into a fresh buffer, then the
GEMM on the transposed B (batched kernels once per matrix, pointers
advanced by the leading stride, as `tile.batch_args` says).

Correctness: random inputs (never zeros), odd shapes (not multiples of the
tiles; rows a multiple of 16 bytes, as TMA needs), C and the transposed B
poisoned first (scripts/harness), against a float64 product: the transpose bit-exact, i8
exact, f32 tf32x3 within 4x torch's exact-f32 matmul error (at least
2^-20), tf32 within 2x the TF32 error of torch's matmul (mma.sync, which
rounds to TF32 as cuBLAS does) or of Triton's tl.dot (wgmma on sm_90a, which
truncates as Triton's does), at least 2^-10; fp8 within 2x
torch._scaled_mm's error (at least bf16's rounding).

Speed (medians over alternating rounds): transpose + GEMM against
torch.matmul (f32 exact and TF32), torch._int_mm and torch._scaled_mm,
and the transpose's bandwidth alone.
"""

import argparse
import json
import os
import subprocess
import sys

from scripts import ROOT
from scripts.harness.records import new_record, open_log, stamp_commit, tflops, write_result

INPUT = os.path.join(ROOT, "test", "Target", "Inputs", "linalg_lowp.mlir")
CHIPS = {"sm_90a": "sm_90a", "sm_89": "sm_90"}  # chip -> cubin arch
PRECISIONS = ("tf32x3", "tf32")

ODD = [(1, 16, 16), (127, 272, 144), (1000, 1040, 1008), (513, 2064, 784),
       (333, 1008, 4112), (2049, 528, 128)]


def build(art, bindir):
    opt, tilec = os.path.join(bindir, "tilec-opt"), os.path.join(bindir, "tilec")
    os.makedirs(art, exist_ok=True)
    for prec in PRECISIONS:
        mlir = os.path.join(art, f"linalg_{prec}.mlir")
        subprocess.run([opt, INPUT, f"-tile-from-linalg=f32-precision={prec}", "-o", mlir],
                       check=True)
        for chip, arch in CHIPS.items():
            subprocess.run([tilec, mlir, f"--chip={chip}", f"--cubin-arch={arch}",
                            "--emit=cubin", "-o", os.path.join(art, prec, chip)], check=True)
        print("built", prec, flush=True)
    stamp_commit(art)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--art", default=os.path.join(ROOT, ".gpu", "linalg"))
    ap.add_argument("--bindir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--out", default="out")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    if args.build:
        return build(args.art, args.bindir)

    import torch
    from scripts.harness import references as ref
    from scripts.harness import tensors
    from scripts.harness.artifacts import load
    from scripts.harness.timing import time_rounds
    from bench.block_fp8 import triton_tf32

    log = open_log(args.out, "linalg_lowp.log")

    def kernels(prec, chip, func):
        d = os.path.join(args.art, prec)
        return load(d, chip, f"{func}_transpose0"), load(d, chip, f"{func}_gemm0")

    def transpose(kt, b):
        """The host glue's transpose launch: [batch,] K x N -> [batch,] N x K
        into a poisoned buffer, per matrix."""
        K, N = b.shape[-2:]
        bt = tensors.poisoned(tuple(b.shape[:-2]) + (N, K), b.dtype)  # NaN, or -1 for i8
        for i in range(b.shape[0] if b.dim() == 3 else 1):
            src, dst = (b[i], bt[i]) if b.dim() == 3 else (b, bt)
            kt(src, dst, K, N)
        return bt

    result = new_record("linalg_lowp_check", artifacts=args.art,
                        input="test/Target/Inputs/linalg_lowp.mlir", correctness=[], speed=[])

    def record(ok, **row):
        row["ok"] = bool(ok)
        result["correctness"].append(row)
        log(f"{'ok  ' if ok else 'FAIL'} " + " ".join(f"{k}={v:.2e}" if isinstance(v, float)
                                                   else f"{k}={v}" for k, v in row.items()
                                                   if k != "ok"))

    rel = ref.rel_err  # (inf where the output holds a NaN)

    def nonzero(x):
        return torch.where(x.abs() < 0.05, torch.full_like(x, 0.5), x)

    g = torch.Generator(device="cuda").manual_seed(5)
    for chip in CHIPS:
        for i, (M, N, K) in enumerate(ODD):
            # f32, both precisions.
            a = nonzero(torch.randn(M, K, device="cuda", generator=g))
            b = nonzero(torch.randn(K, N, device="cuda", generator=g))
            want = ref.gemm(a, b, dtype=torch.float64)
            torch.backends.cuda.matmul.allow_tf32 = False
            exact_err = rel(a @ b, want)
            torch.backends.cuda.matmul.allow_tf32 = True
            tf32_err = rel(a @ b, want)
            torch.backends.cuda.matmul.allow_tf32 = False
            # wgmma (sm_90a) reads TF32 by truncating the f32 bits, as
            # Triton's TF32 does there; cuBLAS and mma.sync round.
            triton_err = rel(triton_tf32(torch, a.contiguous(), b.t().contiguous()), want)
            for prec in PRECISIONS:
                kt, kg = kernels(prec, chip, "matmul_f32")
                bt = transpose(kt, b)
                c = tensors.poisoned((M, N), torch.float32)
                kg(a, bt, c, M, N, K)
                torch.cuda.synchronize()
                t_ok = torch.equal(bt, b.t())
                err = rel(c, want)
                if prec == "tf32x3":
                    bound = max(4 * exact_err, 2.0 ** -20)
                else:  # (cuBLAS runs tiny shapes in exact f32: TF32's floor)
                    bound = max(2 * (triton_err if chip == "sm_90a" else tf32_err), 2.0 ** -10)
                record(t_ok and err <= bound, chip=chip, func="matmul_f32", precision=prec,
                       shape=[M, N, K], transpose_exact=t_ok, max_rel_err=err, bound=bound,
                       torch_err=exact_err if prec == "tf32x3" else tf32_err,
                       triton_tf32_err=triton_err)
            # i8: exact.
            ai = torch.randint(-128, 128, (M, K), device="cuda", generator=g, dtype=torch.int8)
            bi = torch.randint(-128, 128, (K, N), device="cuda", generator=g, dtype=torch.int8)
            kt, kg = kernels("tf32x3", chip, "matmul_i8")
            bt = transpose(kt, bi)
            c = tensors.poisoned((M, N), torch.int32)
            kg(ai, bt, c, M, N, K)
            torch.cuda.synchronize()
            exact = torch.equal(c.double(), ref.gemm(ai, bi, dtype=torch.float64))
            record(exact and torch.equal(bt, bi.t()), chip=chip, func="matmul_i8",
                   shape=[M, N, K], exact=exact)
            # fp8 batched, e4m3 x e5m2 -> bf16.
            nb = 3
            a8 = nonzero(torch.randn(nb, M, K, device="cuda", generator=g)).to(torch.float8_e4m3fn)
            b8 = nonzero(torch.randn(nb, K, N, device="cuda", generator=g)).to(torch.float8_e5m2)
            kt, kg = kernels("tf32x3", chip, "batch_matmul_fp8")
            bt = transpose(kt, b8)
            c = tensors.poisoned((nb, M, N), torch.bfloat16)
            for j in range(nb):
                kg(a8[j], bt[j], c[j], M, N, K)
            torch.cuda.synchronize()
            want = ref.gemm(a8, b8, dtype=torch.float64)
            one = torch.ones((), device="cuda")
            cub = torch.stack([torch._scaled_mm(a8[j], bt[j].t(), scale_a=one, scale_b=one,
                                                out_dtype=torch.bfloat16) for j in range(nb)])
            cub_err = rel(cub, want)
            err = rel(c, want)
            bound = max(2 * cub_err, 2.0 ** -8)
            t_ok = torch.equal(bt.view(torch.uint8), b8.transpose(1, 2).contiguous().view(torch.uint8))
            record(t_ok and err <= bound, chip=chip, func="batch_matmul_fp8", shape=[nb, M, N, K],
                   transpose_exact=t_ok, max_rel_err=err, bound=bound, cublas_err=cub_err)
            # fp8 nn.Linear with bias + ReLU (no transpose).
            x8 = nonzero(torch.randn(M, K, device="cuda", generator=g)).to(torch.float8_e4m3fn)
            w8 = nonzero(torch.randn(N, K, device="cuda", generator=g)).to(torch.float8_e4m3fn)
            bias = torch.randn(N, device="cuda", generator=g).bfloat16()
            kt, kg = kernels("tf32x3", chip, "linear_fp8_bias_relu")
            c = tensors.poisoned((M, N), torch.bfloat16)
            kg(x8, w8, bias, c, M, N, K)
            torch.cuda.synchronize()
            want = ref.gemm(x8, w8.t(), bias=bias, act="relu", dtype=torch.float64)
            cub = torch.relu(torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one,
                                              out_dtype=torch.float32) + bias.float())
            cub_err = rel(cub.bfloat16(), want)
            err = rel(c, want)
            bound = max(2 * cub_err, 2.0 ** -8)
            record(kt is None and err <= bound, chip=chip, func="linear_fp8_bias_relu",
                   shape=[M, N, K], max_rel_err=err, bound=bound, cublas_err=cub_err)

    # Speed at large shapes, sm_90a kernels: transpose + GEMM (the whole
    # host glue) and the GEMM alone, beside torch.
    for (M, N, K) in [(4096, 4096, 4096), (8192, 8192, 8192)]:
        flops = 2.0 * M * N * K
        a = torch.randn(M, K, device="cuda")
        b = torch.randn(K, N, device="cuda")
        c = torch.empty(M, N, device="cuda")
        fns = {}
        for prec in PRECISIONS:
            kt, kg = kernels(prec, "sm_90a", "matmul_f32")
            bt = torch.empty(N, K, device="cuda")
            fns[f"tilec_{prec}"] = (lambda kt=kt, kg=kg, bt=bt:
                                    (kt(b, bt, K, N), kg(a, bt, c, M, N, K)))
            fns[f"tilec_{prec}_gemm_only"] = lambda kg=kg, bt=bt: kg(a, bt, c, M, N, K)
        fns["transpose_only"] = lambda kt=kt, bt=bt: kt(b, bt, K, N)

        def torch_mm(tf32):
            def f():
                torch.backends.cuda.matmul.allow_tf32 = tf32
                torch.matmul(a, b, out=c)
            return f
        fns["torch_f32"] = torch_mm(False)
        fns["torch_tf32"] = torch_mm(True)
        ms = time_rounds(fns, args.rounds)
        torch.backends.cuda.matmul.allow_tf32 = False
        row = dict(func="matmul_f32", shape=[M, N, K], ms=ms,
                   tflops={k: tflops(flops, v) for k, v in ms.items() if k != "transpose_only"},
                   transpose_gbs=2 * K * N * 4 / (ms["transpose_only"] * 1e-3) / 1e9,
                   ratio_tf32x3_vs_torch_f32=ms["torch_f32"] / ms["tilec_tf32x3"],
                   ratio_tf32_vs_torch_tf32=ms["torch_tf32"] / ms["tilec_tf32"])
        result["speed"].append(row)
        log(json.dumps(row))

    for (M, N, K) in [(8192, 8192, 8192), (4096, 14336, 4096)]:
        flops = 2.0 * M * N * K
        ai = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
        bi = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8)
        ci = torch.empty(M, N, device="cuda", dtype=torch.int32)
        kt, kg = kernels("tf32x3", "sm_90a", "matmul_i8")
        bti = torch.empty(N, K, device="cuda", dtype=torch.int8)
        bcol = bi.t().contiguous().t()  # torch._int_mm wants B column-major
        a8 = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b8 = torch.randn(1, K, N, device="cuda").to(torch.float8_e5m2)
        c8 = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        kt8, kg8 = kernels("tf32x3", "sm_90a", "batch_matmul_fp8")
        bt8 = torch.empty(N, K, device="cuda", dtype=torch.float8_e5m2)
        b8col = b8[0].t().contiguous().t()
        one = torch.ones((), device="cuda")
        fns = {
            "tilec_i8": lambda: (kt(bi, bti, K, N), kg(ai, bti, ci, M, N, K)),
            "tilec_i8_gemm_only": lambda: kg(ai, bti, ci, M, N, K),
            "torch_int_mm": lambda: torch._int_mm(ai, bcol),
            "tilec_fp8": lambda: (kt8(b8[0], bt8, K, N), kg8(a8, bt8, c8, M, N, K)),
            "tilec_fp8_gemm_only": lambda: kg8(a8, bt8, c8, M, N, K),
            "torch_scaled_mm": lambda: torch._scaled_mm(a8, b8col, scale_a=one, scale_b=one,
                                                        out_dtype=torch.bfloat16),
        }
        ms = time_rounds(fns, args.rounds)
        row = dict(func="matmul_i8 / batch_matmul_fp8 (one matrix)", shape=[M, N, K], ms=ms,
                   tflops={k: tflops(flops, v) for k, v in ms.items()},
                   ratio_i8_vs_int_mm=ms["torch_int_mm"] / ms["tilec_i8"],
                   ratio_fp8_vs_scaled_mm=ms["torch_scaled_mm"] / ms["tilec_fp8"],
                   ratio_fp8_gemm_only_vs_scaled_mm=ms["torch_scaled_mm"] / ms["tilec_fp8_gemm_only"])
        result["speed"].append(row)
        log(json.dumps(row))

    return write_result(result, args.out, "linalg_lowp.json", log)


if __name__ == "__main__":
    sys.exit(main())
