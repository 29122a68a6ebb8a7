"""Random-shape sweep of every shipped kernel family on the GPU (issue 16).

For each family (GEMM in both B forms, attention at head dims 64 and 128,
causal and not) and each path (sm_90a, and sm_80 PTX assembled for sm_90),
draws --shapes random problem sizes (odd, not multiples of any tile), runs
every kernel of the family compiled by scripts/build/build_block_artifacts.py on
each (the named ops and the block programs with all their schedule
variants) on NaN-poisoned outputs, and compares with a float64 (GEMM) or
float32 (attention) reference by relative error.

    python3 -m scripts.build.build_block_artifacts                     # here
    python3 -m scripts.gpu.gpu_sweep --artifacts .gpu/block --out DIR # on the GPU

Writes DIR/gpu_sweep.json (per family and kernel: shapes run, failures with
their shapes and errors) and exits 1 on any wrong result.
"""

import argparse
import datetime
import json
import os
import random
import sys

import torch
import torch.nn.functional as F

from scripts import ROOT

from bench.block_attention import named_args, reference, run_block  # noqa: E402
from bench.block_programs import gemm_operands
from scripts.harness.artifacts import load
from tilec.runtime import LaunchError  # noqa: E402

CHIPS = ("sm_90a", "sm_80")


def kernels_of(art, chip, prefixes):
    """Names of the artifacts of `chip` starting with one of `prefixes`
    (copies built by an earlier tilec, `__base`, excluded)."""
    d = os.path.join(art, chip)
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))
    return [n for n in names if n.startswith(prefixes) and not n.endswith("__base")]


def gemm_family(art, rng, count, log):
    """GEMM: plain B (row-major) and nn.Linear's B = Wᵀ."""
    out = {}
    forms = {False: ("gemm_block_bf16", "gemm_bf16_bf16_brow"),
             True: ("linear_block_bf16", "gemm_bf16_bf16_bcol")}
    for chip in CHIPS:
        for linear, prefixes in forms.items():
            names = kernels_of(art, chip, prefixes)
            kernels = {n: load(art, chip, n) for n in names}
            stats = {n: dict(runs=0, refused=0, failures=[]) for n in names}
            for i in range(count):
                M, N, K = (rng.randint(1, 2500) for _ in range(3))
                # Half the shapes meet the named GEMM's N % 8 (its launch
                # refuses the others: counted as refused, not run).
                if i % 2:
                    N = (N + 7) // 8 * 8
                a_buf, b_buf, c_buf, a, b, lda, ldb, ldc = gemm_operands(M, N, K, linear, i)
                ref = a.double() @ b.double()
                scale = max(ref.abs().max().item(), 1e-30)
                for n, k in kernels.items():
                    c_buf.fill_(float("nan"))
                    try:
                        k(a_buf, b_buf, c_buf, M, N, K, lda, ldb, ldc)
                    except LaunchError:
                        stats[n]["refused"] += 1
                        continue
                    torch.cuda.synchronize()
                    got = c_buf[:, :N].double()
                    err = ((got - ref).abs().max() / scale).item()
                    pad = ldc == N or torch.isnan(c_buf[:, N:].float()).all().item()
                    stats[n]["runs"] += 1
                    if not (err < 1e-2 and pad):  # NaN (unwritten) fails too
                        stats[n]["failures"].append(dict(shape=[M, N, K], err=err, pad=bool(pad)))
            key = f"{chip}/{'linear' if linear else 'plain'}"
            out[key] = stats
            log(f"gemm {key}: {len(names)} kernels x {count} shapes, "
                f"{sum(len(s['failures']) for s in stats.values())} wrong")
    return out


def attention_kernels(art, chip, d, causal):
    suffix = ("_causal" if causal else "") + f"_d{d}"
    block = [n for n in kernels_of(art, chip, ("attention_block" + suffix,))
             if n == "attention_block" + suffix or n.startswith("attention_block" + suffix + "__")]
    named = [n for n in kernels_of(art, chip, (f"attention_bf16_d{d}",))
             if n == f"attention_bf16_d{d}" + ("_causal" if causal else "")]
    return block, named


def attention_family(art, rng, count, log):
    """Attention: head dims 64 and 128, causal and not, block programs and
    tile.attention."""
    out = {}
    for chip in CHIPS:
        for d in (64, 128):
            for causal in (False, True):
                block, named = attention_kernels(art, chip, d, causal)
                kernels = {n: load(art, chip, n) for n in block + named}
                stats = {n: dict(runs=0, failures=[]) for n in kernels}
                for i in range(count):
                    B, H = rng.randint(1, 3), rng.randint(1, 3)
                    S = rng.randint(1, 1500)
                    g = torch.Generator(device="cuda").manual_seed(1000 + i)
                    q, k, v = (torch.randn(B, H, S, d, device="cuda", generator=g).bfloat16()
                               for _ in range(3))
                    ref = reference(q, k, v, causal)
                    sd = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    scale = ref.abs().max().item()
                    bound = max(2 * (sd.float() - ref).abs().max().item() / scale, 1e-2)
                    o = torch.empty_like(q)
                    lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
                    for n, kern in kernels.items():
                        o.fill_(float("nan"))
                        if n in named:
                            kern(*named_args(q, k, v, o, lse))
                        else:
                            run_block(kern, q, k, v, o)
                        torch.cuda.synchronize()
                        err = ((o.float() - ref).abs().max() / scale).item()
                        stats[n]["runs"] += 1
                        if not err <= bound:
                            stats[n]["failures"].append(dict(shape=[B, H, S, d], err=err, bound=bound))
                key = f"{chip}/d{d}{'/causal' if causal else ''}"
                out[key] = stats
                log(f"attention {key}: {len(kernels)} kernels x {count} shapes, "
                    f"{sum(len(s['failures']) for s in stats.values())} wrong")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", default=os.path.join(ROOT, ".gpu", "block"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", type=int, default=200)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--only", default="gemm,attention")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "gpu_sweep.log"), "w")

    def log(msg):
        print(msg, flush=True)
        logf.write(msg + "\n")

    rng = random.Random(args.seed)
    commit = open(os.path.join(args.artifacts, "commit.txt")).read().strip()
    result = dict(date=datetime.date.today().isoformat(), gpu=torch.cuda.get_device_name(),
                  commit=commit, shapes_per_family=args.shapes, seed=args.seed)
    if "gemm" in args.only:
        result["gemm"] = gemm_family(args.artifacts, rng, args.shapes, log)
    if "attention" in args.only:
        result["attention"] = attention_family(args.artifacts, rng, args.shapes, log)
    runs = wrong = 0
    for fam in ("gemm", "attention"):
        for stats in result.get(fam, {}).values():
            for s in stats.values():
                runs += s["runs"]
                wrong += len(s["failures"])
    result["runs"], result["wrong"] = runs, wrong
    with open(os.path.join(args.out, "gpu_sweep.json"), "w") as f:
        json.dump(result, f, indent=1)
    log(f"{runs} kernel runs, {wrong} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
