#!/usr/bin/env python3
"""Runs one GEMM kernel on a small and a ragged shape and checks the result;
meant to run under compute-sanitizer (memcheck, racecheck, synccheck):

    compute-sanitizer --tool racecheck python3 -m scripts.gpu.gemm_sanitize \
        --artifacts .gpu/gemm/sm_90a --kernel gemm_bf16_bf16_brow
"""

import argparse
import os
import sys

from scripts.gpu.gemm_check import parse_name, run_case
from tilec.runtime import Kernel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--kernel", default="gemm_bf16_bf16_brow")
    args = ap.parse_args()
    kernel = Kernel(os.path.join(args.artifacts, args.kernel + ".json"))
    v = parse_name(args.kernel)
    ok = True
    for shape in [(128, 256, 128), (300, 520, 200)]:
        r = run_case(kernel, v, *shape)
        print(args.kernel, r)
        ok &= r["ok"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
