#!/usr/bin/env python3
"""One small launch of each of some block-program (or named GEMM) kernels,
for compute-sanitizer (racecheck, synccheck, memcheck, initcheck) on the GPU
machine:

    compute-sanitizer --tool racecheck python3 -m bench.block_sanitize \
        --artifacts .gpu/block --chip sm_90a --kernel gemm_block_bf16
    compute-sanitizer --tool memcheck python3 -m bench.block_sanitize \
        --artifacts .gpu/block --chip sm_90a --kernel all
"""

import argparse
import os
import sys

import torch

from bench import block_programs as bp


def check(art, chip, name):
    k = bp.load(art, chip, name)
    if name.startswith(("gemm", "linear")):
        linear = name.startswith("linear") or "_bcol" in name
        return bp.check_gemm(k, linear, [(300, 520, 200)])
    from bench.block_attention import check_attention, named_args
    if name.startswith("attention_bf16"):
        # tile.attention's kernel: its own argument list (and the LSE).
        def launch(q, kk, v, o, *_):
            lse = torch.empty(q.shape[0], q.shape[1], q.shape[2],
                              device="cuda", dtype=torch.float32)
            k(*named_args(q, kk, v, o, lse))
        launch.__name__ = name
        return check_attention(launch, name, [(1, 2, 300)], sdpa=False)
    return check_attention(k, name, [(1, 2, 300)], sdpa=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--kernel", required=True,
                    help="a kernel, several separated by commas, or 'all': "
                         "every block program and named GEMM and attention "
                         "kernel of the chip")
    args = ap.parse_args()
    names = args.kernel.split(",")
    if args.kernel == "all":
        d = os.path.join(args.artifacts, args.chip)
        names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json") and
                       f.startswith(("gemm", "linear", "attention_block",
                                     "attention_bf16")) and
                       "__base" not in f)
    ok = True
    for name in names:
        rows = check(args.artifacts, args.chip, name)
        print(name, rows, flush=True)
        ok &= all(r["ok"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
