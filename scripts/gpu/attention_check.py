#!/usr/bin/env python3
"""Checks tile.attention kernels (python/tilec/kernels.attention_source,
compiled into ARTIFACT_DIR/<chip>/) on the GPU: odd sequence lengths,
seqlen_q != seqlen_k, GQA, head dims 64/128 (and 256 on the first five shapes
where the chip has attention_bf16_d256*.json), causal (bottom-right aligned, as
FlashAttention) or not, poisoned outputs; error against a float32 reference
compared with torch's bf16 SDPA against the same reference (must be <= 2x),
shapes with enough tiles that persistent programs walk several,
the log-sum-exp against float32; and a benchmark (S 1k/4k/16k x d 64/128 x
causal) beside torch SDPA (flash), cuDNN and bench/triton_attention.py: per
shape, every chip's kernel and every baseline in alternating rounds
(TILEC_BENCH_ROUNDS, default 5), the median over rounds reported.

    python3 -m scripts.gpu.attention_check ARTIFACT_DIR OUT_JSON [--quick] [--no-bench]

(ARTIFACT_DIR: .gpu/bundle/att; --quick: the first five shapes, head dims
64 and 128, and the benchmark at S 4k only.)
"""

import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F

from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.records import new_record, ratio, tflops, write_result
from scripts.harness.timing import time_rounds
from tilec.runtime import Kernel

BENCH_ROUNDS = int(os.environ.get("TILEC_BENCH_ROUNDS", "5"))
# Shapes with more query blocks than the H200 has SMs (132) and, causal, at
# least as many pairs of blocks as SMs: a persistent program walks several
# tiles, and the causal pairs run (odd block counts at 4097, 1100, 300 and 100,
# where the block past the last query stands in; rows that see no key at
# Sq > Sk).
PERSISTENT_SHAPES = [(2, 8, 2, 4097, 4097), (4, 16, 4, 1500, 700), (2, 16, 16, 1100, 2000),
                     (1, 140, 70, 100, 100), (1, 66, 66, 300, 300)]


def run(kernel, q, k, v):
    """O and the lse of ``kernel`` (both poisoned first)."""
    B, H, SQ, D = q.shape
    HK, SK = k.shape[1], k.shape[2]
    o = tensors.poisoned(q.shape, q.dtype)
    lse = tensors.poisoned((B, H, SQ), torch.float32)
    kernel(q, k, v, o, lse, B, H, HK, SQ, SK, H * SQ * D, SQ * D, HK * SK * D, SK * D, H * SQ)
    return o, lse


def check_case(kernel, B, H, HK, SQ, SK, d, causal, with_sdpa=True):
    """Runs ``kernel`` on random inputs of one shape (outputs poisoned) and
    compares O and the lse with the float32 reference: O's error must be at
    most 2x torch's bf16 SDPA error against the same reference (or 2e-3;
    without SDPA, e.g. under compute-sanitizer, at most 1e-2), the lse
    within 1e-3 and -inf exactly where the reference's is."""
    torch.manual_seed(SQ * 7 + SK)
    q = torch.randn(B, H, SQ, d, device="cuda").bfloat16()
    k = torch.randn(B, HK, SK, d, device="cuda").bfloat16()
    v = torch.randn(B, HK, SK, d, device="cuda").bfloat16()
    o, lse = run(kernel, q, k, v)
    torch.cuda.synchronize()
    want, want_lse = ref.attention(q, k, v, causal)
    err = ref.rel_err(o, want)
    serr = ref.rel_err(ref.sdpa(q, k, v, causal), want) if with_sdpa else None
    bound = max(2 * serr, 2e-3) if with_sdpa else 1e-2
    lse_err, lse_ok = ref.lse_error(lse, want_lse)
    ok = bool(tensors.unwritten(o) == 0 and err <= bound and lse_ok and lse_err < 1e-3)
    return dict(B=B, H=H, HK=HK, SQ=SQ, SK=SK, head_dim=d, causal=causal,
                max_rel_err=err, torch_sdpa_bf16_err=serr, lse_max_abs_err=lse_err, ok=ok)


def bench_shape(art, chips, S, d, causal, rounds):
    """Times every chip's kernel and the baselines (torch SDPA's flash and
    cuDNN backends, bench/triton_attention.py) at one shape in alternating
    rounds. Returns one row per chip."""
    B, H = 16384 // S, 2048 // d
    name = f"attention_bf16_d{d}" + ("_causal" if causal else "")
    q, k, v = (torch.randn(B, H, S, d, device="cuda").bfloat16() for _ in range(3))
    o = torch.empty_like(q)
    lse = torch.empty(B, H, S, device="cuda")
    flop = 4.0 * B * H * S * S * d * (0.5 if causal else 1.0)
    fns, errors, extra = {}, {}, {}
    for chip in chips:
        kern = Kernel(os.path.join(art, chip, name + ".json"))
        fns[chip] = (lambda kern=kern: kern(q, k, v, o, lse, B, H, H, S, S, H * S * d, S * d,
                                            H * S * d, S * d, H * S))

    def sdpa(backend):
        def f():
            with torch.nn.attention.sdpa_kernel(backend):
                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return f
    fns["torch_flash"] = sdpa(torch.nn.attention.SDPBackend.FLASH_ATTENTION)
    try:
        fns["cudnn"] = sdpa(torch.nn.attention.SDPBackend.CUDNN_ATTENTION)
        fns["cudnn"]()
    except RuntimeError as e:  # no cuDNN backend for this shape
        errors["cudnn"] = str(e)[:200]
        del fns["cudnn"]
    try:
        from bench.triton_attention import triton_attention
        # Sanity check against the flash backend before timing.
        ot = triton_attention(q, k, v, causal)
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
            of = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        extra["triton_max_abs_err"] = (ot.float() - of.float()).abs().max().item()
        del ot, of
        fns["triton"] = lambda: triton_attention(q, k, v, causal)
    except Exception as e:  # a Triton problem never stops the run
        errors["triton"] = str(e)[:200]
    tf = {n: tflops(flop, ms) for n, ms in time_rounds(fns, rounds, calls=10).items()}
    rows = []
    for chip in chips:
        row = dict(chip=chip, B=B, H=H, S=S, head_dim=d, causal=causal, rounds=rounds,
                   tilec_tflops=tf[chip], torch_flash_tflops=tf["torch_flash"],
                   vs_torch_flash=ratio(tf[chip], tf["torch_flash"]))
        for base in ("cudnn", "triton"):
            if base in tf:
                row[base + "_tflops"] = tf[base]
                row["vs_" + base] = ratio(tf[chip], tf[base])
            else:
                row[base + "_error"] = errors[base]
        row.update(extra)
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("artifacts")
    ap.add_argument("out_json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-bench", action="store_true")
    args = ap.parse_args()
    art = args.artifacts
    cases = []
    shapes = [(1, 1, 1, 1, 1), (2, 4, 4, 113, 113), (1, 4, 2, 128, 255),
              (2, 2, 1, 255, 128), (1, 8, 8, 1023, 1023),
              (1, 4, 1, 2048, 2048), (1, 2, 2, 4097, 4097), (1, 2, 2, 1, 4097)]
    shapes = shapes[:5] if args.quick else shapes + PERSISTENT_SHAPES
    for (B, H, HK, SQ, SK) in shapes:
        for d in (64, 128):
            for causal in (False, True):
                cases.append((B, H, HK, SQ, SK, d, causal))
    record = new_record("attention_check", artifacts=art, correctness=[], bench=[])
    chips = [c for c in sorted(os.listdir(art))
             if os.path.isfile(os.path.join(art, c, "attention_bf16_d128.json"))]
    for chip in chips:
        # Head dim 256 where the chip's artifacts have it: the first 5 shapes.
        chip_cases = list(cases)
        for causal in (False, True):
            name = "attention_bf16_d256" + ("_causal" if causal else "")
            if os.path.isfile(os.path.join(art, chip, name + ".json")) and not args.quick:
                chip_cases += [(B, H, HK, SQ, SK, 256, causal)
                               for (B, H, HK, SQ, SK) in shapes[:5]]
        for (B, H, HK, SQ, SK, d, causal) in chip_cases:
            name = f"attention_bf16_d{d}" + ("_causal" if causal else "")
            kernel = Kernel(os.path.join(art, chip, name + ".json"))
            r = dict(chip=chip, **check_case(kernel, B, H, HK, SQ, SK, d, causal))
            print(json.dumps(r), flush=True)
            record["correctness"].append(r)
    # Speed beside torch SDPA (flash), cuDNN and a Triton FlashAttention-2 kernel
    # (bench/triton_attention.py): B*S = 16k tokens, H*D = 2048, every chip and
    # baseline interleaved per shape.
    for S in () if args.no_bench else (4096,) if args.quick else (1024, 4096, 16384):
        for d in (64, 128):
            for causal in (False, True):
                for row in bench_shape(art, chips, S, d, causal, BENCH_ROUNDS):
                    print(json.dumps(row), flush=True)
                    record["bench"].append(row)
    return write_result(record, os.path.dirname(os.path.abspath(args.out_json)),
                        os.path.basename(args.out_json))


if __name__ == "__main__":
    sys.exit(main())
