#!/usr/bin/env python3
"""GPU check and benchmark of tilec's GEMM kernels (tile.gemm).

Correctness: random inputs, odd shapes, poisoned outputs, every variant
(dtype, B layout, output type, epilogue) against a float64 reference.
Speed: the main bf16 kernel beside cuBLAS (torch.matmul) and Triton on the
issue's six shapes, plus configuration ablations, in alternating rounds
(scripts/harness/timing.py). SASS instruction mix from cuobjdump.

    python3 -m scripts.gpu.gemm_check --artifacts .gpu/bundle/gemm/sm_90a --out DIR [--bench]
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys

import torch

from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.records import new_record, open_log, ratio, tflops, write_record
from scripts.harness.timing import time_rounds
from tilec.kernels import gemm_shape_config, gemm_shape_tag
from tilec.runtime import Kernel, LaunchError

DT = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
BENCH_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 1024),
                (16384, 4096, 4096), (4096, 14336, 4096), (128, 8192, 8192)]


def parse_name(name):
    """The variant of ``gemm_<dtype>_<out>_b<layout>[_alpha][_beta][_bias][_act]``."""
    parts = name.split("_")
    return dict(dtype=parts[1], out=parts[2], layout=parts[3][1:],
                alpha="alpha" in parts, beta="beta" in parts, bias="bias" in parts,
                act=next((p for p in parts if p in ("relu", "gelu", "silu")), None))


def make_inputs(v, M, N, K):
    """A (M x K) and B (K x N, or Nᵀ for a column-major B), rows padded to 8."""
    dt = DT[v["dtype"]]
    a = tensors.randn((M, tensors.round_up(K, 8)), dt)[:, :K]
    if v["layout"] == "row":
        b = tensors.randn((K, tensors.round_up(N, 8)), dt)[:, :N]
    else:
        b = tensors.randn((N, tensors.round_up(K, 8)), dt)[:, :K].t()
    return a, b


def run_case(kernel, v, M, N, K):
    """One launch of the variant ``v`` into a poisoned C, against float64."""
    a, b = make_inputs(v, M, N, K)
    out_dt = DT[v["out"]]
    out = tensors.poisoned((M, N), out_dt, pad_to=8)
    epilogue = dict(act=v["act"])
    args = [a.base, b.base, out.base]
    if v["bias"]:
        epilogue["bias"] = torch.randn(N, device="cuda").to(out_dt)
        args.append(epilogue["bias"])
    if v["alpha"]:
        epilogue["alpha"] = 0.75
        args.append(0.75)
    if v["beta"]:
        out.copy_(torch.randn(M, N, device="cuda").to(out_dt))
        epilogue.update(beta=-0.5, c=out.clone())
        args.append(-0.5)
    kernel(*args, M, N, K, a.base.shape[1], b.base.shape[1], out.base.shape[1])
    torch.cuda.synchronize()
    err = ref.rel_err(out, ref.gemm(a, b, dtype=torch.float64, **epilogue))
    written = tensors.unwritten(out) == 0
    pad_ok = tensors.padding_intact(out, out.base)
    tol = 1e-4 if v["out"] == "f32" else 1e-2
    if v["act"] == "gelu":
        tol = max(tol, 2e-4)  # the erf polynomial is accurate to ~1e-7 abs
    return dict(shape=[M, N, K], max_rel_err=err, written=written, pad_untouched=pad_ok,
                ok=bool(written and pad_ok and err < tol))


def correctness(kdir, log):
    rng = random.Random(1234)
    odd = [1, 7, 33, 127, 128, 255, 1000, 4097]
    main_shapes = [(m, n, k) for m, n, k in [(1, 1, 1), (7, 33, 127), (4097, 255, 1000),
                                             (128, 128, 128), (1000, 4097, 33), (255, 7, 4097),
                                             (33, 1000, 1)]]
    while len(main_shapes) < 56:
        main_shapes.append((rng.choice(odd + [rng.randint(1, 3000)]),
                            rng.choice(odd + [rng.randint(1, 3000)]),
                            rng.choice(odd + [rng.randint(1, 3000)])))
    results = []
    for fname in sorted(os.listdir(kdir)):
        if not fname.endswith(".json"):
            continue
        name = fname[:-5]
        kernel = Kernel(os.path.join(kdir, fname))
        v = parse_name(name)
        is_ablation = (name.startswith("gemm_bf16_bf16_brow_")
                       and not any(t in name for t in ("alpha", "bias")))
        with open(os.path.join(kdir, fname)) as f:
            clustered = json.load(f).get("cluster", [1, 1, 1]) != [1, 1, 1]
        if name == "gemm_bf16_bf16_brow":
            shapes = main_shapes
        elif clustered:  # partial cluster tiles at every ragged edge
            shapes = main_shapes[:24]
        elif is_ablation:
            shapes = main_shapes[:6]
        else:
            shapes = main_shapes[:12]
        with open(os.path.join(kdir, fname)) as f:
            n_div = next((p.get("divisibility") for p in json.load(f)["params"]
                          if p["name"] == "N"), None)
        for (M, N, K) in shapes:
            if n_div and N % n_div:
                # Refused at launch with a clear error; the dispatch's
                # variant without the TMA store serves this N.
                try:
                    run_case(kernel, v, M, N, K)
                    refused = None
                except LaunchError as e:
                    refused = str(e)
                twin = name + gemm_shape_tag({"tma_store": 0})
                twin_json = os.path.join(kdir, twin + ".json")
                if os.path.exists(twin_json):
                    r = run_case(Kernel(twin_json), v, M, N, K)
                else:  # an ablation: only the refusal is checked
                    r = dict(shape=[M, N, K], ok=True)
                    twin = None
                r["kernel"], r["served_by"], r["refused"] = name, twin, refused
                r["ok"] = bool(r["ok"] and refused and f"'N' = {N}" in refused)
            else:
                r = run_case(kernel, v, M, N, K)
                r["kernel"] = name
            results.append(r)
            if not r["ok"]:
                log(f"FAIL {name} {r}")
    return results


def bench(kdir, log, rounds=5):
    """TFLOP/s of the kernel the Python API picks per shape, beside cuBLAS
    and Triton (and the ablations at the two square shapes), timed in
    alternating rounds."""
    from bench.triton_ref import triton_mm
    rows = []
    with open(os.path.join(kdir, "gemm_bf16_bf16_brow.json")) as f:
        chip = json.load(f)["chip"]
    ablations = sorted(f[:-5] for f in os.listdir(kdir)
                       if f.startswith("gemm_bf16_bf16_brow_") and f.endswith(".json")
                       and not any(t in f for t in ("alpha", "bias")))
    for (M, N, K) in BENCH_SHAPES:
        # The kernel the Python API dispatches to for this shape class.
        variant = "gemm_bf16_bf16_brow" + gemm_shape_tag(gemm_shape_config(M, N, K, chip))
        main = Kernel(os.path.join(kdir, variant + ".json"))
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        main(a, b, c, M, N, K, K, N, N)
        torch.cuda.synchronize()
        want = torch.matmul(a, b).float()
        row = dict(shape=[M, N, K], tilec_kernel=variant,
                   tilec_rel_err=((c.float() - want).norm() / want.norm()).item())
        fns = {"tilec": lambda: main(a, b, c, M, N, K, K, N, N),
               "cublas": lambda: torch.matmul(a, b), "triton": lambda: triton_mm(a, b)}
        if (M, N, K) in [(4096, 4096, 4096), (8192, 8192, 8192)]:
            for abl in ablations:
                k = Kernel(os.path.join(kdir, abl + ".json"))
                fns[abl] = lambda k=k: k(a, b, c, M, N, K, K, N, N)
        for name, ms in time_rounds(fns, rounds).items():
            row[name + "_tflops"] = tflops(2.0 * M * N * K, ms)
        row["vs_cublas"] = ratio(row["tilec_tflops"], row["cublas_tflops"])
        row["vs_triton"] = ratio(row["tilec_tflops"], row["triton_tflops"])
        log(json.dumps(row))
        rows.append(row)
    return rows


def sass_mix(cubin):
    try:
        out = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True,
                             check=True).stdout
    except Exception as e:
        return {"error": str(e)}
    mix = {}
    for op in ("HMMA", "LDGSTS", "LDSM", "HGMMA", "UTMALDG", "UTMASTG", "SYNCS", "USETMAXREG",
               "BAR", "LDG", "STG", "STS", "LDS"):
        mix[op] = len(re.findall(r"\b" + op + r"\b", out))
    return mix


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--bench", action="store_true")
    args = ap.parse_args()
    # The shape rule (libtilec-rules.so) that build_gemm_artifacts.py put
    # beside the chips' directories.
    rules = os.path.join(os.path.dirname(os.path.abspath(args.artifacts)), "libtilec-rules.so")
    if os.path.isfile(rules) and "TILEC_RULES_LIBRARY" not in os.environ:
        os.environ["TILEC_RULES_LIBRARY"] = rules
    log = open_log(args.out, "gemm_log.txt")
    torch.manual_seed(0)
    record = new_record("gemm_check", artifacts=args.artifacts)
    record["sass"] = sass_mix(os.path.join(args.artifacts, "gemm_bf16_bf16_brow.cubin"))
    log("SASS " + json.dumps(record["sass"]))
    # Alignment requirements are refused with a clear error.
    k = Kernel(os.path.join(args.artifacts, "gemm_bf16_bf16_brow.json"))
    a = torch.randn(8, 9, device="cuda", dtype=torch.bfloat16)
    try:
        k(a, a, a, 8, 9, 9, 9, 9, 9)
        record["misaligned_refused"] = False
    except LaunchError as e:
        record["misaligned_refused"] = str(e)
    log(f"misaligned lda: {record['misaligned_refused']}")
    res = correctness(args.artifacts, log)
    record["correctness"] = res
    fails = sum(not r["ok"] for r in res)
    log(f"correctness: {len(res) - fails}/{len(res)} cases ok, "
        f"{len(set(r['kernel'] for r in res))} kernels, "
        f"{len(set(tuple(r['shape']) for r in res))} shapes")
    if args.bench:
        record["bench"] = bench(args.artifacts, log)
    write_record(record, os.path.join(args.out, "gemm_record.json"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
