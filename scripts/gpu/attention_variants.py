#!/usr/bin/env python3
"""Tile-size variants of tile.attention beside the default kernel, in one
run: every ARTIFACT_DIR/<chip>/attention_bf16_d<D>[_causal]__<tag>.json is
checked on a few odd shapes (attention_check.check_case) and timed at
B*S = 16k tokens, H*D = 2048 next to the default kernel of that head dim,
the two in alternating rounds (scripts/harness/timing.py). OUT_JSON is a
record (scripts/harness/records.py) whose ``variants`` are the rows.

    python3 -m scripts.gpu.attention_variants ARTIFACT_DIR OUT_JSON [--rounds 5]
"""

import argparse
import json
import os
import sys

import torch

from scripts.gpu.attention_check import PERSISTENT_SHAPES, check_case
from scripts.harness.records import new_record, ratio, tflops, write_record
from scripts.harness.timing import time_rounds
from tilec.runtime import Kernel


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("artifacts")
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    art = args.artifacts
    rows = []
    for chip in sorted(os.listdir(art)):
        cdir = os.path.join(art, chip)
        if not os.path.isdir(cdir):
            continue
        for fname in sorted(os.listdir(cdir)):
            if "__" not in fname or not fname.endswith(".json"):
                continue
            name = fname[:-5]
            base, tag = name.split("__")
            d = int(base.split("_d")[1].split("_")[0])
            causal = base.endswith("_causal")
            kernel = Kernel(os.path.join(cdir, fname))
            default = Kernel(os.path.join(cdir, base + ".json"))
            ok = all(check_case(kernel, B, H, HK, SQ, SK, d, causal)["ok"]
                     for (B, H, HK, SQ, SK) in [(1, 1, 1, 1, 1), (2, 4, 2, 113, 255),
                                                (1, 2, 2, 1023, 1023), (1, 2, 1, 255, 128),
                                                (1, 2, 2, 4097, 4097)] + PERSISTENT_SHAPES)
            row = dict(chip=chip, kernel=name, tag=tag, head_dim=d, causal=causal, correct=ok)
            for S in (1024, 4096):
                B, H = 16384 // S, 2048 // d
                q, k, v = (torch.randn(B, H, S, d, device="cuda").bfloat16() for _ in range(3))
                o = torch.empty_like(q)
                lse = torch.empty(B, H, S, device="cuda")
                flop = 4.0 * B * H * S * S * d * (0.5 if causal else 1.0)
                kargs = (q, k, v, o, lse, B, H, H, S, S, H * S * d, S * d, H * S * d, S * d, H * S)
                ms = time_rounds({"default": lambda: default(*kargs),
                                  "variant": lambda: kernel(*kargs)}, args.rounds)
                for key, t in ms.items():
                    row[f"{key}_tflops_S{S}"] = tflops(flop, t)
                row[f"variant_vs_default_S{S}"] = ratio(ms["default"], ms["variant"])
            print(json.dumps(row), flush=True)
            rows.append(row)
    write_record(new_record("attention_variants", artifacts=art, variants=rows), args.out)


if __name__ == "__main__":
    sys.exit(main())
