#!/usr/bin/env python3
"""Checks tile.attention with a score_mod on the GPU: the example
examples/attention_softcap_window.mlir (causal, logit softcap and sliding
window in the score_mod, GQA, the lse) compiled for each chip of the bundle.

Correctness: odd sequence lengths, SQ != SK both ways (rows that see no key
at SQ > SK give 0 and lse -inf), windows of 1 key, of some keys and wider
than the sequence; outputs poisoned; O against a float32 reference (within
2x the same computation in bf16, or 2e-3), the lse within 1e-3.

Speed (without --no-bench): B = 2, H = 16, head dim 128, window 1024,
softcap 50 (issue 53's anchor), S = 8k (and 4k without --quick), each chip's
kernel beside FlexAttention under torch.compile (the same score_mod and a
sliding-window causal block mask) in alternating rounds; TFLOP/s over the
visible query-key pairs.

    python3 -m scripts.gpu.attention_score_mod_check --artifacts .gpu/bundle/examples \\
        --out OUT [--quick] [--no-bench]
"""

import argparse
import os
import sys

import torch

from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.records import new_record, ratio, tflops, write_result
from scripts.harness.timing import time_rounds
from tilec.runtime import Kernel

NAME = "attention_softcap_window"
D = 128
# (B, H, HK, SQ, SK, window, cap)
CASES = [(2, 8, 2, 1000, 1000, 256, 50.0), (1, 4, 4, 77, 77, 1, 30.0),
         (2, 8, 8, 333, 700, 100, 20.0), (1, 8, 2, 700, 333, 64, 50.0),
         (1, 2, 2, 1500, 1500, 4096, 50.0)]


def score_mod_of(cap, window, sq, sk):
    """The example's score_mod on a [.., SQ, SK] score tensor (indices
    [SQ, 1] and [1, SK]): softcap, then -inf outside the window (queries
    bottom-right aligned with the keys)."""
    def score_mod(s, qi, kj):
        s = torch.tanh(s / cap) * cap
        inside = (qi + (sk - sq) - kj) < window
        return s.masked_fill(~inside, float("-inf"))
    return score_mod


def launch(kernel, q, k, v, o, lse, cap, window):
    B, H, SQ, _ = q.shape
    HK, SK = k.shape[1], k.shape[2]
    kernel(q, k, v, o, lse, B, H, HK, SQ, SK, H * SQ * D, SQ * D, HK * SK * D, SK * D, H * SQ,
           cap, window)


def check_case(kernel, B, H, HK, SQ, SK, window, cap):
    g = tensors.generator(SQ * 13 + SK + window)
    q = tensors.randn((B, H, SQ, D), torch.bfloat16, generator=g)
    k = tensors.randn((B, HK, SK, D), torch.bfloat16, generator=g)
    v = tensors.randn((B, HK, SK, D), torch.bfloat16, generator=g)
    o = tensors.poisoned(q.shape, q.dtype)
    lse = tensors.poisoned((B, H, SQ), torch.float32)
    launch(kernel, q, k, v, o, lse, cap, window)
    torch.cuda.synchronize()
    mod = score_mod_of(cap, window, SQ, SK)
    want, want_lse = ref.attention(q, k, v, causal=True, score_mod=mod)
    low, _ = ref.attention(q, k, v, causal=True, score_mod=mod, dtype=torch.bfloat16)
    err = ref.rel_err(o, want)
    bf16_err = ref.rel_err(low, want)
    bound = max(2 * bf16_err, 2e-3)
    lse_err, lse_ok = ref.lse_error(lse, want_lse)
    ok = bool(tensors.unwritten(o) == 0 and err <= bound and lse_ok and lse_err < 1e-3)
    return dict(B=B, H=H, HK=HK, SQ=SQ, SK=SK, window=window, cap=cap, max_rel_err=err,
                bf16_reference_err=bf16_err, lse_max_abs_err=lse_err, ok=ok)


def bench(kernels, S, rounds, window=1024, cap=50.0, B=2, H=16):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    g = tensors.generator(S)
    q, k, v = (tensors.randn((B, H, S, D), torch.bfloat16, generator=g) for _ in range(3))
    o = torch.empty_like(q)
    lse = torch.empty(B, H, S, device="cuda")

    def flex_mod(score, b, h, qi, kj):
        return torch.tanh(score / cap) * cap

    def mask_mod(b, h, qi, kj):
        return (kj <= qi) & (qi - kj < window)

    block_mask = create_block_mask(mask_mod, B, H, S, S, device="cuda")
    flex = torch.compile(flex_attention, dynamic=False)
    fns = {chip: (lambda kn=kn: launch(kn, q, k, v, o, lse, cap, window))
           for chip, kn in kernels.items()}
    fns["flex"] = lambda: flex(q, k, v, score_mod=flex_mod, block_mask=block_mask)
    ms = time_rounds(fns, rounds)
    flops = 4.0 * B * H * D * ref.visible_pairs(S, window)
    tf = {n: tflops(flops, t) for n, t in ms.items()}
    return dict(B=B, H=H, S=S, D=D, window=window, cap=cap, ms=ms, tflops=tf,
                vs_flex={n: ratio(tf[n], tf["flex"]) for n in kernels})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", required=True, help="the bundle's examples folder")
    ap.add_argument("--out", default="out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    chips = sorted(c for c in os.listdir(args.artifacts)
                   if os.path.isfile(os.path.join(args.artifacts, c, NAME + ".json")))
    kernels = {c: Kernel(os.path.join(args.artifacts, c, NAME + ".json")) for c in chips}
    result = new_record("attention_score_mod", artifacts=args.artifacts, kernel=NAME,
                        chips=chips, correctness=[], bench=[])
    for chip, kn in kernels.items():
        for case in CASES:
            row = dict(chip=chip, **check_case(kn, *case))
            result["correctness"].append(row)
            print(("ok  " if row["ok"] else "FAIL"), chip, case,
                  f"err={row['max_rel_err']:.2e} (bf16 {row['bf16_reference_err']:.2e}) "
                  f"lse={row['lse_max_abs_err']:.1e}", flush=True)
    if not args.no_bench:
        for S in ((8192,) if args.quick else (4096, 8192)):
            row = bench(kernels, S, args.rounds)
            result["bench"].append(row)
            print(f"S={S}", {n: round(t, 1) for n, t in row["tflops"].items()}, flush=True)
    if not chips:
        print(f"no {NAME}.json under {args.artifacts}/<chip>")
        return 1
    return write_result(result, args.out, "attention_score_mod.json")


if __name__ == "__main__":
    sys.exit(main())
