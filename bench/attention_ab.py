#!/usr/bin/env python3
"""Interleaved A/B timing of tile.attention kernels beside torch's SDPA
backends: each round times every kernel once (median of do_bench), rounds
alternate the order, and the report is the median over rounds, so a drift in
clock or power during the run falls on all kernels alike.

    attention_ab.py ARTIFACT_DIR/<chip> OUT_JSON HEAD_DIM CAUSAL(0|1) NAME...
      [--seqlens 1024,4096] [--rounds 6]

B*S = 16k tokens, H*D = 2048 (the issue's benchmark shapes).
"""

import argparse
import json
import os
import statistics

import torch
import torch.nn.functional as F

from tilec.runtime import Kernel  # noqa: E402


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
    from triton.testing import do_bench
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
        times = {n: [] for n in fns}
        order = list(fns)
        for r in range(args.rounds):
            for n in (order if r % 2 == 0 else order[::-1]):
                times[n].append(do_bench(fns[n], warmup=5, rep=40, return_mode="median"))
        row = dict(S=S, B=B, H=H, head_dim=d, causal=causal, rounds=args.rounds)
        for n, ts in times.items():
            row[n] = flop / statistics.median(ts) / 1e9
            row[n + "_spread"] = (max(ts) - min(ts)) / statistics.median(ts)
        print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}),
              flush=True)
        rows.append(row)
    json.dump(rows, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
