#!/usr/bin/env python3
"""Runs one tile.attention kernel on a few small ragged shapes (GQA,
seqlen_q != seqlen_k, enough heads for the persistent causal pairs) with attention_check.py's check against float32;
meant to run under compute-sanitizer (memcheck, racecheck, synccheck):

    compute-sanitizer --tool racecheck python3 -m scripts.gpu.attention_sanitize \
        --artifacts .gpu/att/sm_90a --kernel attention_bf16_d128_causal
"""

import argparse
import os
import sys

from scripts.gpu.attention_check import check_case
from tilec.runtime import Kernel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--kernel", default="attention_bf16_d128")
    ap.add_argument("--no-sdpa", action="store_true",
                    help="skip torch's SDPA (the error bound's reference), so that only "
                         "tilec's kernel and torch's plain kernels run under the tool")
    args = ap.parse_args()
    kernel = Kernel(os.path.join(args.artifacts, args.kernel + ".json"))
    d = int(args.kernel.split("_d")[1].split("_")[0])
    causal = "_causal" in args.kernel  # also variants: <name>_causal__<tag>
    ok = True
    # The last two give a persistent causal kernel on the H200 at least one
    # pair of query blocks per program (odd block counts).
    for (B, H, HK, SQ, SK) in [(1, 2, 1, 300, 300), (1, 2, 2, 113, 257), (1, 1, 1, 200, 77),
                               (1, 140, 70, 100, 100), (1, 66, 66, 300, 300)]:
        r = check_case(kernel, B, H, HK, SQ, SK, d, causal, with_sdpa=not args.no_sdpa)
        print(args.kernel, r)
        ok &= r["ok"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
