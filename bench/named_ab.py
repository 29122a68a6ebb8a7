#!/usr/bin/env python3
"""Interleaved A/B of the named ops compiled by two tilec builds: the
evidence a redesign of how tile.gemm / tile.attention are built keeps their
speed (issue "One mechanism").

Artifacts come from scripts/build/build_named_ab.py: ART/{old,new}/<chip>/ hold
gemm_bf16_bf16_{brow,bcol} and attention_bf16_d{64,128}[_causal] from each
build. Every kernel of a row (old and new, both chips, and cuBLAS or cuDNN
for scale) is timed in alternating short samples (block_programs.time_rounds)
so that all run under the same clock and power state. New kernels are also
checked for correctness on odd shapes (poisoned outputs, float64 reference).

    named_ab.py --artifacts .gpu/ab --out OUT [--rounds 5] [--only gemm,attention]
"""

import argparse
import json
import os
import subprocess

import torch
import torch.nn.functional as F

from scripts import ROOT
from bench.block_attention import BENCH as ATTENTION_SHAPES
from bench.block_attention import ODD as ATTENTION_ODD
from bench.block_attention import check_attention, named_args
from bench.block_programs import GEMM_ODD, check_gemm, gemm_operands
from scripts.harness.artifacts import load
from scripts.harness.records import new_record
from scripts.harness.timing import time_rounds

# The six benchmark shapes of scripts/gpu/gemm_check.py.
GEMM_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 1024),
               (16384, 4096, 4096), (4096, 14336, 4096), (128, 8192, 8192)]
CHIPS = ("sm_90a", "sm_80")


def kernels(art, name):
    """{'<side>_<chip>': Kernel} for the builds that have `name`."""
    found = {}
    for side in ("old", "new"):
        for chip in CHIPS:
            k = load(os.path.join(art, side), chip, name)
            if k is not None:
                found[f"{side}_{chip}"] = k
    return found


def ratios(t, _kernels):
    """new / old per chip, where both ran."""
    return {chip: t[f"new_{chip}"] / t[f"old_{chip}"]
            for chip in CHIPS if f"new_{chip}" in t and f"old_{chip}" in t}


# (kernel, B column-major) of each GEMM section.
GEMMS = [("gemm_bf16_bf16_brow", False), ("gemm_bf16_bf16_bcol", True)]
# scripts/build/build_named_ab.py's CLUSTER_GEMMS.
CLUSTER_GEMMS = [("gemm_cm2", False), ("gemm_cn2", False), ("gemm_cm2cn2", False),
                 ("gemm_cm2_bcol", True)]


def check_new(art, name, check, rows, log):
    """Appends check(kernel)'s rows for the new builds of `name` to `rows`."""
    for key, k in kernels(art, name).items():
        if not key.startswith("new_"):
            continue
        for r in check(k):
            r.update(kernel=name, build=key)
            rows.append(r)
            if not r["ok"]:
                log("FAIL " + json.dumps(r))


def gemm_section(art, rounds, log, gemms=GEMMS):
    out = dict(correctness=[], bench=[])
    for name, bcol in gemms:
        check_new(art, name, lambda k, bcol=bcol: check_gemm(k, bcol, GEMM_ODD, named=True),
                  out["correctness"], log)
    log(f"gemm correctness: {sum(r['ok'] for r in out['correctness'])}/{len(out['correctness'])}")
    for (M, N, K) in GEMM_SHAPES:
        for name, bcol in gemms:
            layout = "bcol" if bcol else "brow"
            ks = kernels(art, name)
            if not ks:
                continue
            a_buf, b_buf, c_buf, a, b, lda, ldb, ldc = gemm_operands(M, N, K, bcol, 3)
            c2 = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            fns = {key: (lambda k=k: k(a_buf, b_buf, c_buf, M, N, K, lda, ldb, ldc))
                   for key, k in ks.items()}
            fns["cublas"] = lambda: torch.matmul(a, b, out=c2)
            ms = time_rounds(fns, rounds)
            t = {key: 2.0 * M * N * K / v / 1e9 for key, v in ms.items()}
            row = dict(shape=[M, N, K], kernel=name, b_layout=layout[1:], tflops=t,
                       new_vs_old=ratios(t, ks))
            out["bench"].append(row)
            log(json.dumps(row))
    return out


def run_named(kernel, q, k, v, o):
    """tile.attention's parameters (the LSE into a poisoned scratch row)."""
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    kernel(*named_args(q, k, v, o, lse))


# (kernel name, causal, head dim, sequence lengths timed, heads x head dim)
ATTENTION_ROWS = [(f"attention_bf16_d{D}" + ("_causal" if c else ""), c, D, S, 2048)
                  for (S, D) in ATTENTION_SHAPES for c in (False, True)]
# What tilec.attention also runs on sm_90a: the persistent causal kernel it
# takes up to 2048 queries, and head dim 256 (H = 8).
ATTENTION_EXTRA_ROWS = (
    [(f"attention_bf16_d{D}_causal_persistent", True, D, S, 2048)
     for D in (64, 128) for S in (1024, 2048)] +
    [("attention_bf16_d256" + ("_causal" if c else ""), c, 256, S, 2048)
     for S in (1024, 4096, 16384) for c in (False, True)])


def attention_section(art, rounds, log, rows=ATTENTION_ROWS):
    out = dict(correctness=[], bench=[])
    for name in dict.fromkeys(r[0] for r in rows):
        check_new(art, name,
                  lambda k, name=name: check_attention(k, name, ATTENTION_ODD, launch=run_named),
                  out["correctness"], log)
    log(f"attention correctness: {sum(r['ok'] for r in out['correctness'])}/"
        f"{len(out['correctness'])}")
    from torch.nn.attention import SDPBackend, sdpa_kernel
    for (name, causal, D, S, width) in rows:
        B, H = 16384 // S, width // D
        ks = kernels(art, name)
        if not ks:
            continue
        g = torch.Generator(device="cuda").manual_seed(S + D)
        q, k, v = (torch.randn(B, H, S, D, device="cuda", generator=g).bfloat16()
                   for _ in range(3))
        o = torch.empty_like(q)
        lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
        fns = {key: (lambda kn=kn: kn(*named_args(q, k, v, o, lse))) for key, kn in ks.items()}

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        fns["cudnn"] = cudnn
        ms = time_rounds(fns, rounds)
        flop = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
        t = {key: flop / v / 1e9 for key, v in ms.items()}
        row = dict(kernel=name, S=S, D=D, B=B, H=H, causal=causal, tflops=t,
                   new_vs_old=ratios(t, ks))
        out["bench"].append(row)
        log(json.dumps(row))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", default=os.path.join(ROOT, ".gpu", "ab"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="gemm,attention")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "named_ab.log"), "w")

    def log(msg):
        print(msg, flush=True)
        logf.write(msg + "\n")
        logf.flush()

    meta = {}
    for side in ("old", "new"):
        p = os.path.join(args.artifacts, side, "commit.txt")
        meta[side] = open(p).read().strip() if os.path.exists(p) else "?"
    result = new_record("named_ab", builds=meta)
    only = args.only.split(",")
    if "gemm" in only:
        result["gemm"] = gemm_section(args.artifacts, args.rounds, log)
    if "gemm_cluster" in only:
        result["gemm_cluster"] = gemm_section(args.artifacts, args.rounds, log,
                                              CLUSTER_GEMMS)
    if "attention" in only:
        result["attention"] = attention_section(args.artifacts, args.rounds, log)
    if "attention_extra" in only:
        result["attention_extra"] = attention_section(args.artifacts, args.rounds, log,
                                                      ATTENTION_EXTRA_ROWS)
    worst = {}
    for sec in ("gemm", "gemm_cluster", "attention", "attention_extra"):
        for row in result.get(sec, {}).get("bench", []):
            for chip, r in row["new_vs_old"].items():
                worst[f"{sec}_{chip}"] = min(worst.get(f"{sec}_{chip}", 9.0), r)
    result["worst_new_vs_old"] = worst
    result["all_correct"] = all(r["ok"] for sec in ("gemm", "gemm_cluster", "attention", "attention_extra")
                                for r in result.get(sec, {}).get("correctness", []))
    log("worst new/old: " + json.dumps(worst) + f", all correct: {result['all_correct']}")
    with open(os.path.join(args.out, "named_ab.json"), "w") as f:
        json.dump(result, f, indent=1)
    subprocess.run(["nvidia-smi", "--query-gpu=name,clocks.sm,power.draw", "--format=csv"],
                   stdout=logf, stderr=subprocess.STDOUT)


if __name__ == "__main__":
    main()
