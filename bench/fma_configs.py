#!/usr/bin/env python3
"""Tile configurations of exact f32 (tile.gemm in ieee precision, FMA
instructions) on the GPU: each config checked on odd shapes against a
float64 product (bound: 2x an f32 sum in K order, at least 2^-20) and timed
beside cuBLAS's exact f32 in alternating rounds at 4096^3 and 8192^3.

Build here (tilec):   fma_configs.py --build [--art .gpu/fma]
Run there (torch):    fma_configs.py --art .gpu/fma --out OUT
"""

import argparse
import os
import subprocess
import sys

from scripts import ROOT
from scripts.harness.records import new_record, open_log, stamp_commit, write_result

#: tag -> tile.gemm config (None: the compiler's rule, 128 x 128, K 8, 8 warps).
CONFIGS = {"default": None,
           "m64n128": {"block_m": 64, "block_n": 128, "warps": 4},
           "m128n64": {"block_m": 128, "block_n": 64, "warps": 4},
           "m64n64": {"block_m": 64, "block_n": 64, "warps": 4},
           "k4": {"block_k": 4},
           "m64n64k16": {"block_m": 64, "block_n": 64, "block_k": 16, "warps": 4}}
ODD = [(1, 16, 16), (127, 264, 144), (1000, 1032, 1000), (333, 1000, 4112)]


def build(art, tilec):
    from tilec.kernels import gemm_source
    out = os.path.join(art, "sm_90a")
    os.makedirs(out, exist_ok=True)
    for tag, config in CONFIGS.items():
        name, src = gemm_source("f32", b_layout="col", precision="ieee", config=config,
                                name=f"fma_{tag}")
        path = os.path.join(out, name + ".mlir")
        with open(path, "w") as f:
            f.write(src)
        subprocess.run([tilec, path, "--chip=sm_90a", "--cubin-arch=sm_90a", "--emit=cubin",
                        "-o", out], check=True)
        print("built", name, flush=True)
    stamp_commit(art)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--art", default=os.path.join(ROOT, ".gpu", "fma"))
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--out", default="out")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    if args.build:
        return build(args.art, args.tilec)
    import torch
    from bench.block_fp8 import serial_f32
    from scripts.harness.artifacts import load
    from scripts.harness.timing import time_rounds
    log = open_log(args.out, "fma_configs.log")
    result = new_record("fma_configs", artifacts=args.art, configs=CONFIGS, correctness=[],
                        speed=[])
    kernels = {tag: load(args.art, "sm_90a", f"fma_{tag}") for tag in CONFIGS}
    for tag, kn in kernels.items():
        for i, (M, N, K) in enumerate(ODD):
            g = torch.Generator(device="cuda").manual_seed(i)
            ldk, ldc = (K + 3) // 4 * 4, (N + 3) // 4 * 4
            a = torch.randn(M, ldk, device="cuda", generator=g)
            w = torch.randn(N, ldk, device="cuda", generator=g)
            c = torch.full((M, ldc), float("nan"), device="cuda")
            # tile.gemm on f32: A, B (= Wᵀ, column-major), C; sizes; strides.
            kn(a, w, c, M, N, K, ldk, ldk, ldc)
            torch.cuda.synchronize()
            ref = a[:, :K].double() @ w[:, :K].double().T
            serial = serial_f32(torch, a[:, :K], w[:, :K])
            scale = ref.abs().max().item()
            out = c[:, :N].double()
            err = (out - ref).abs().max().item() / scale
            serial_err = (serial.double() - ref).abs().max().item() / scale
            bound = max(2 * serial_err, 2.0 ** -20)
            ok = bool(not torch.isnan(out).any().item() and err <= bound)
            result["correctness"].append(dict(config=tag, shape=[M, N, K], max_rel_err=err,
                                              bound=bound, ok=ok))
            log(f"{'ok  ' if ok else 'FAIL'} {tag} {M}x{N}x{K} err={err:.2e} bound={bound:.2e}")
    for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192)):
        a = torch.randn(M, K, device="cuda")
        w = torch.randn(N, K, device="cuda")
        c = torch.empty(M, N, device="cuda")
        fns = {tag: (lambda kn=kn: kn(a, w, c, M, N, K, K, K, N)) for tag, kn in kernels.items()}
        torch.backends.cuda.matmul.allow_tf32 = False
        fns["cublas_f32"] = lambda: a @ w.T
        ms = time_rounds(fns, args.rounds)
        tf = {k: round(2.0 * M * N * K / v / 1e9, 1) for k, v in ms.items()}
        result["speed"].append(dict(shape=[M, N, K], tflops=tf))
        log(f"{M}x{N}x{K} " + " ".join(f"{k}={v}" for k, v in tf.items()))
    return write_result(result, args.out, "fma_configs.json", log)


if __name__ == "__main__":
    sys.exit(main())
