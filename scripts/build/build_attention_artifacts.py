#!/usr/bin/env python3
"""Compiles the tile.attention kernels the GPU scripts check, here (no GPU):
OUT/<chip>/attention_bf16_d{64,128,256}[_causal] (the default config of each
chip) and, per chip, the variants OUT/<chip>/<name>__<tag> that
attention_variants.py times beside them. Prints each kernel's compile time.

    build_attention_artifacts.py [--out .gpu/att] [--chips sm_80,sm_90a]
"""

import argparse
import os

from scripts import ROOT
from scripts.build.build_gemm_artifacts import compile_kernels
from tilec.kernels import attention_source

# tag -> (head dims, config), per chip: alternatives to the default schedule.
VARIANTS = {
    "sm_90a": {
        # The cp.async schedule (no producer warp), the previous default (at
        # head dim 256 until the warp-specialized kernel took it too).
        "cpasync": ((64, 128, 256), dict(warp_specialize=0)),
        # The consumer warpgroups issue their products without taking turns.
        "nopp": ((64, 128), dict(pingpong=0)),
        # O stored from registers instead of through Q's buffer and TMA.
        "notma": ((64, 128), dict(tma_store=0)),
        # A third K/V stage (with one Q buffer at head dim 128).
        "ws_s3": ((64,), dict(stages=3)),
        # Not persistent (the default is persistent without the causal
        # mask), and persistent (for causal: the longest-first snake order).
        "nopersist": ((64, 128), dict(persistent=0)),
        "persist": ((64, 128), dict(persistent=1)),
        # The previous setmaxnreg split (consumers/producer).
        "r240": ((64, 128), dict(consumer_regs=240, producer_regs=24)),
    },
    "sm_80": {
        # Head dim 128 with 32-key blocks in a 4-stage ring (the previous
        # default) and 64-key blocks in 3 stages (one block per SM).
        "bn32s4": ((128,), dict(block_n=32, stages=4)),
        "s3": ((64, 128), dict(stages=3)),
        # 32-key blocks at head dim 64.
        "bn32": ((64,), dict(block_n=32)),
        # Head dim 256 with Q held in registers.
        "qreg": ((64, 256), dict(q_in_smem=0)),
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
        times += compile_kernels(args.tilec, srcdir, os.path.join(args.out, chip), chip, jobs)
    for chip, name, t in times:
        print(f"{chip} {name:48s} compiled in {t:.2f} s")


if __name__ == "__main__":
    main()
