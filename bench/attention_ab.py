#!/usr/bin/env python3
"""Interleaved A/B timing of tile.attention kernels beside torch's SDPA
backends, in alternating rounds (scripts/harness/timing.py: short samples,
the order rotated every round, medians), so a drift in clock or power during
the run falls on all kernels alike. OUT_JSON is a record
(scripts/harness/records.py) whose ``rows`` are the shapes.

    python3 -m bench.attention_ab ARTIFACT_DIR/<chip> OUT_JSON HEAD_DIM CAUSAL(0|1) NAME...
      [--seqlens 1024,4096] [--rounds 6]

B*S = 16k tokens, H*D = 2048 (the issue's benchmark shapes).
"""

import argparse
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F

from scripts.harness.records import new_record, tflops, write_record
from scripts.harness.timing import time_rounds
from tilec.runtime import Kernel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("art")
    ap.add_argument("out")
    ap.add_argument("head_dim", type=int)
    ap.add_argument("causal", type=int)
    ap.add_argument("names", nargs="+")
    ap.add_argument("--seqlens", default="1024,4096")
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    d, causal = args.head_dim, bool(args.causal)
    rows = []
    for S in map(int, args.seqlens.split(",")):
        B, H = 16384 // S, 2048 // d
        q, k, v = (torch.randn(B, H, S, d, device="cuda").bfloat16() for _ in range(3))
        o = torch.empty_like(q)
        lse = torch.empty(B, H, S, device="cuda")
        flop = 4.0 * B * H * S * S * d * (0.5 if causal else 1.0)
        fns = {}
        for n in args.names:
            kern = Kernel(os.path.join(args.art, n + ".json"))
            fns[n] = (lambda kern=kern: kern(q, k, v, o, lse, B, H, H, S, S, H * S * d,
                                             S * d, H * S * d, S * d, H * S))

        def sdpa(backend):
            def f():
                with sdpa_kernel(backend):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return f
        fns["torch_flash"] = sdpa(SDPBackend.FLASH_ATTENTION)
        fns["cudnn"] = sdpa(SDPBackend.CUDNN_ATTENTION)
        times = {}
        ms = time_rounds(fns, args.rounds, samples_out=times)
        row = dict(S=S, B=B, H=H, head_dim=d, causal=causal, rounds=args.rounds)
        for n, ts in times.items():
            row[n] = tflops(flop, ms[n])
            row[n + "_spread"] = (max(ts) - min(ts)) / statistics.median(ts)
        print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}),
              flush=True)
        rows.append(row)
    write_record(new_record("attention_ab", artifacts=args.art, rows=rows), args.out)


if __name__ == "__main__":
    sys.exit(main())
