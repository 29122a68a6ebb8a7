"""Random-shape sweep of every shipped kernel family on the GPU (issue 16).

For each family (GEMM in both B forms, attention at head dims 64 and 128,
causal and not) and each path (sm_90a, and sm_80 PTX assembled for sm_90),
draws --shapes random problem sizes (odd, not multiples of any tile), runs
every kernel of the family compiled by scripts/build/build_block_artifacts.py on
each (the named ops and the block programs with all their schedule
variants) on NaN-poisoned outputs, and compares with a float64 (GEMM) or
float32 (attention) reference by relative error (scripts/harness).

    python3 -m scripts.build.build_block_artifacts                     # here
    python3 -m scripts.gpu.gpu_sweep --artifacts .gpu/block --out DIR # on the GPU

Writes DIR/gpu_sweep.json (per family and kernel: shapes run, failures with
their shapes and errors) and exits 1 on any wrong result.
"""

import argparse
import os
import random
import sys

import torch
import torch.nn.functional as F

from bench.block_attention import named_args, run_block
from bench.block_programs import gemm_operands
from scripts import ROOT
from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.artifacts import kernel_names, load
from scripts.harness.records import new_record, open_log, write_record
from tilec.runtime import LaunchError

CHIPS = ("sm_90a", "sm_80")


def kernels_of(art, chip, prefixes):
    """Names of the artifacts of `chip` starting with one of `prefixes`
    (copies built by an earlier tilec, `__base`, excluded)."""
    return [n for n in kernel_names(art, chip)
            if n.startswith(prefixes) and not n.endswith("__base")]


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
                want = ref.gemm(a, b, dtype=torch.float64)
                for n, k in kernels.items():
                    tensors.poison_(c_buf)
                    try:
                        k(a_buf, b_buf, c_buf, M, N, K, lda, ldb, ldc)
                    except LaunchError:
                        stats[n]["refused"] += 1
                        continue
                    torch.cuda.synchronize()
                    err = ref.rel_err(c_buf[:, :N], want)
                    pad = tensors.padding_intact(c_buf[:, :N], c_buf)
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
                    q, k, v = (tensors.randn((B, H, S, d), torch.bfloat16, generator=g)
                               for _ in range(3))
                    want = ref.attention(q, k, v, causal)[0]  # (SQ = SK)
                    # The anchor: torch's bf16 SDPA (is_causal: its flash path).
                    sd = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    bound = max(2 * ref.rel_err(sd, want), 1e-2)
                    o = tensors.poisoned(q.shape, q.dtype)
                    lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
                    for n, kern in kernels.items():
                        tensors.poison_(o)
                        if n in named:
                            kern(*named_args(q, k, v, o, lse))
                        else:
                            run_block(kern, q, k, v, o)
                        torch.cuda.synchronize()
                        err = ref.rel_err(o, want)
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
    log = open_log(args.out, "gpu_sweep.log")
    rng = random.Random(args.seed)
    result = new_record("gpu_sweep", artifacts=args.artifacts,
                        shapes_per_family=args.shapes, seed=args.seed)
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
    write_record(result, os.path.join(args.out, "gpu_sweep.json"))
    log(f"{runs} kernel runs, {wrong} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
