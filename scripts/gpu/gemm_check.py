#!/usr/bin/env python3
"""GPU check and benchmark of tilec's GEMM kernels.

Correctness: random inputs, odd shapes, poisoned outputs, every variant
(dtype, B layout, output type, epilogue) against a float64 reference.
Speed: the main bf16 kernel beside cuBLAS (torch.matmul) and Triton on the
issue's six shapes, plus configuration ablations, median of many runs
(triton.testing.do_bench). SASS instruction mix from cuobjdump.

    python3 -m scripts.gpu.gemm_check --artifacts .gpu/gemm/sm_80 --out DIR [--bench]
"""

import argparse
import datetime
import json
import os
import random
import re
import subprocess
import sys

import torch

from tilec.kernels import gemm_shape_config, gemm_shape_tag  # noqa: E402
from tilec.runtime import Kernel, LaunchError  # noqa: E402

DT = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
BENCH_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 1024),
                (16384, 4096, 4096), (4096, 14336, 4096), (128, 8192, 8192)]


def parse_name(name):
    parts = name.split("_")
    v = dict(dtype=parts[1], out=parts[2], layout=parts[3][1:],
             alpha="alpha" in parts, beta="beta" in parts, bias="bias" in parts,
             act=next((p for p in parts if p in ("relu", "gelu", "silu")), None))
    return v


def round8(x):
    return (x + 7) // 8 * 8


def make_inputs(v, M, N, K):
    dt = DT[v["dtype"]]
    lda, ldc = round8(K), round8(N)
    a_buf = torch.randn(M, lda, device="cuda").to(dt)
    a = a_buf[:, :K]
    if v["layout"] == "row":
        ldb = round8(N)
        b_buf = torch.randn(K, ldb, device="cuda").to(dt)
        b = b_buf[:, :N]
    else:
        ldb = round8(K)
        b_buf = torch.randn(N, ldb, device="cuda").to(dt)
        b = b_buf[:, :K].t()
    return a_buf, b_buf, a, b, lda, ldb, ldc


def run_case(kernel, v, M, N, K):
    a_buf, b_buf, a, b, lda, ldb, ldc = make_inputs(v, M, N, K)
    out_dt = DT[v["out"]]
    c_buf = torch.full((M, ldc), float("nan"), device="cuda", dtype=out_dt)
    args = [a_buf, b_buf, c_buf]
    ref = a.double() @ b.double()
    alpha, beta = 0.75, -0.5
    if v["bias"]:
        bias = torch.randn(N, device="cuda").to(out_dt)
        args.append(bias)
    if v["alpha"]:
        args.append(alpha)
        ref = ref * alpha
    if v["beta"]:
        c_buf[:, :N] = torch.randn(M, N, device="cuda").to(out_dt)
        ref = ref + beta * c_buf[:, :N].double()
        args.append(beta)
    if v["bias"]:
        ref = ref + bias.double()
    if v["act"] == "relu":
        ref = torch.relu(ref)
    elif v["act"] == "gelu":
        ref = torch.nn.functional.gelu(ref)
    elif v["act"] == "silu":
        ref = torch.nn.functional.silu(ref)
    args += [M, N, K, lda, ldb, ldc]
    kernel(*args)
    torch.cuda.synchronize()
    out = c_buf[:, :N]
    written = not torch.isnan(out.float()).any().item()
    pad_ok = ldc == N or torch.isnan(c_buf[:, N:].float()).all().item()
    denom = ref.abs().max().item() or 1.0
    err = (out.double() - ref).abs().max().item() / denom if written else float("inf")
    tol = 1e-4 if v["out"] == "f32" else 1e-2
    if v["act"] == "gelu":
        tol = max(tol, 2e-4)  # the erf polynomial is accurate to ~1e-7 abs
    return dict(shape=[M, N, K], max_rel_err=err, written=written, pad_untouched=bool(pad_ok),
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


def bench(kdir, log):
    from triton.testing import do_bench
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
        flop = 2.0 * M * N * K
        ref = torch.matmul(a, b)
        tf = lambda ms: flop / ms / 1e9
        row = dict(shape=[M, N, K], tilec_kernel=variant)
        row["cublas_tflops"] = tf(do_bench(lambda: torch.matmul(a, b), warmup=50, rep=300,
                                           return_mode="median"))
        t = triton_mm(a, b)
        row["triton_tflops"] = tf(do_bench(lambda: triton_mm(a, b), warmup=50, rep=300,
                                           return_mode="median"))
        main(a, b, c, M, N, K, K, N, N)
        torch.cuda.synchronize()
        row["tilec_rel_err"] = ((c.float() - ref.float()).norm() / ref.float().norm()).item()
        row["tilec_tflops"] = tf(do_bench(lambda: main(a, b, c, M, N, K, K, N, N), warmup=50,
                                          rep=300, return_mode="median"))
        if (M, N, K) in [(4096, 4096, 4096), (8192, 8192, 8192)]:
            for abl in ablations:
                k = Kernel(os.path.join(kdir, abl + ".json"))
                row[abl + "_tflops"] = tf(do_bench(lambda: k(a, b, c, M, N, K, K, N, N),
                                                   warmup=30, rep=200, return_mode="median"))
        row["vs_cublas"] = row["tilec_tflops"] / row["cublas_tflops"]
        row["vs_triton"] = row["tilec_tflops"] / row["triton_tflops"]
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
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "gemm_log.txt"), "w")

    def log(msg):
        print(msg, flush=True)
        logf.write(msg + "\n")
        logf.flush()

    torch.manual_seed(0)
    record = dict(date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
                  gpu=torch.cuda.get_device_name(), commit=os.environ.get("TILEC_COMMIT", "?"),
                  artifacts=args.artifacts, torch=torch.__version__)
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
    json.dump(record, open(os.path.join(args.out, "gemm_record.json"), "w"), indent=1)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
