#!/usr/bin/env python3
"""One small launch of a block-program kernel, for compute-sanitizer
(racecheck, synccheck, memcheck) on the GPU machine:

    compute-sanitizer --tool racecheck python3 bench/block_sanitize.py \
        --artifacts .gpu/block --chip sm_90a --kernel gemm_block_bf16
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import block_programs as bp  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--kernel", required=True)
    args = ap.parse_args()
    k = bp.load(args.artifacts, args.chip, args.kernel)
    if args.kernel.startswith(("gemm", "linear")):
        rows = bp.check_gemm(k, args.kernel.startswith("linear"), [(300, 520, 200)])
    else:
        from block_attention import check_attention
        rows = check_attention(k, args.kernel, [(1, 2, 300)], sdpa=False)
    print(rows)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
