#!/usr/bin/env python3
"""Compiles the tile.attention kernels the GPU scripts check, here (no GPU):
OUT/<chip>/attention_bf16_d{64,128,256}[_causal] (the default config of each
chip) and, per chip, the variants OUT/<chip>/<name>__<tag> that
attention_variants.py times beside them. Prints each kernel's compile time.

    build_attention_artifacts.py [--out .gpu/att] [--chips sm_80,sm_90a]
"""

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tilec.kernels import attention_source  # noqa: E402

# tag -> (head dims, config), per chip: alternatives to the default schedule.
VARIANTS = {
    "sm_90a": {
        # The cp.async schedule (no producer warp), the previous default.
        "cpasync": ((64, 128), dict(warp_specialize=0)),
        # The consumer warpgroups issue their products without taking turns.
        "nopp": ((64, 128), dict(pingpong=0)),
        # O stored from registers instead of through Q's buffer and TMA.
        "notma": ((64, 128), dict(tma_store=0)),
        # A third K/V stage (head dim 128 has no shared memory for it).
        "ws_s3": ((64,), dict(stages=3)),
    },
    "sm_80": {
        # Smaller key blocks: fewer Kᵀ/V fragment registers (no spills at
        # head dim 128), more loop steps.
        "bn32": ((64, 128), dict(block_n=32)),
        # Head dim 64 with 64 queries on 4 warps (16 rows per warp).
        "bm64": ((64,), dict(block_m=64)),
        # Head dim 128 with 128 queries on 8 warps (the previous default).
        "bm128w8": ((128,), dict(block_m=128, warps=8)),
    },
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu", "att"))
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--chips", default="sm_80,sm_90a")
    ap.add_argument("--no-variants", action="store_true")
    args = ap.parse_args()
    srcdir = os.path.join(args.out, "src")
    os.makedirs(srcdir, exist_ok=True)
    times = []
    for chip in args.chips.split(","):
        jobs = []
        for d in (64, 128, 256):
            for causal in (False, True):
                jobs.append(attention_source(head_dim=d, causal=causal))
                if args.no_variants:
                    continue
                for tag, (dims, cfg) in VARIANTS.get(chip, {}).items():
                    if d not in dims:
                        continue
                    base, _ = attention_source(head_dim=d, causal=causal)
                    jobs.append(attention_source(head_dim=d, causal=causal, config=cfg,
                                                 name=f"{base}__{tag}"))
        dst = os.path.join(args.out, chip)
        # sm_80 PTX is assembled for the H200 (sm_90).
        cubin_arch = "sm_90a" if chip == "sm_90a" else "sm_90"
        for name, src in jobs:
            path = os.path.join(srcdir, f"{name}.{chip}.mlir")
            with open(path, "w") as f:
                f.write(src)
            t0 = time.time()
            subprocess.run([args.tilec, path, f"--chip={chip}", f"--cubin-arch={cubin_arch}",
                            "--emit=cubin", "-o", dst], check=True)
            times.append((chip, name, time.time() - t0))
    for chip, name, t in times:
        print(f"{chip} {name:48s} compiled in {t:.2f} s")


if __name__ == "__main__":
    main()
