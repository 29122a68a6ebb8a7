#!/usr/bin/env python3
"""GPU check of tilec's block-program kernels (issue: foundation).

Loads each compiled kernel through the CUDA driver API using only its
<kernel>.json and cubin (python/tilec/runtime.py), runs it on random
odd-sized inputs with poisoned outputs, and compares with a float64 torch
reference. One directory of artifacts per chip (sm_80/sm_89 PTX assembled for
the GPU at hand). Writes a JSON record of every case.

    python3 -m scripts.gpu.gpu_check --artifacts out/gpu --out bench/results/x.json
"""

import argparse
import datetime
import json
import math
import os
import subprocess
import sys

import torch

from tilec.runtime import load  # noqa: E402

POISON = float("nan")


def rel_err(out, ref):
    out = out.double()
    ref = ref.double()
    denom = ref.abs().max().item()
    return (out - ref).abs().max().item() / (denom if denom > 0 else 1.0)


def padded(rows, cols, ld, dtype, fill=None):
    """A (rows x ld) buffer whose first `cols` columns are the matrix."""
    buf = torch.empty(rows, ld, device="cuda", dtype=dtype)
    if fill is None:
        buf.copy_(torch.randn(rows, ld, device="cuda", dtype=torch.float32).to(dtype))
    else:
        buf.fill_(fill)
    return buf


def check_padding_untouched(buf, cols):
    """Columns past the matrix must still hold the poison."""
    if buf.shape[1] == cols:
        return True
    return bool(torch.isnan(buf[:, cols:].float()).all().item())


def case_scale_add(kdir, M, N, ld):
    k = load(kdir, "scale_add_bf16")
    x = padded(M, N, ld, torch.bfloat16)
    y = padded(M, N, ld + 1, torch.bfloat16)
    out = padded(M, N, ld + 3, torch.bfloat16, fill=POISON)
    alpha = 0.37 + torch.rand(()).item()
    k(x, y, out, alpha, M, N, ld, ld + 1, ld + 3)
    torch.cuda.synchronize()
    ref = (alpha * x[:, :N].double() + y[:, :N].double())
    got = out[:, :N]
    ok_written = not torch.isnan(got.float()).any().item()
    err = rel_err(got, ref)
    # Computed in f32, rounded once to bf16: within one bf16 ulp (2^-8).
    ok = ok_written and err < 8e-3 and check_padding_untouched(out, N)
    return ok, err


def case_softmax(kdir, name, M, N, ld, causal):
    k = load(kdir, name)
    x = padded(M, N, ld, torch.float32) * 3
    y = padded(M, N, ld + 5, torch.float32, fill=POISON)
    k(x, y, M, N, ld, ld + 5)
    torch.cuda.synchronize()
    xs = x[:, :N].double()
    if causal:
        i = torch.arange(M, device="cuda").unsqueeze(1)
        j = torch.arange(N, device="cuda").unsqueeze(0)
        xs = xs.masked_fill(j > i, float("-inf"))
    ref = torch.softmax(xs, dim=1)
    # Rows whose every entry is masked are NaN in the reference and in tilec
    # (0/0); compare the rest.
    valid = ~torch.isnan(ref)
    got = y[:, :N]
    ok_written = not torch.isnan(got[valid]).any().item()
    err = rel_err(got[valid], ref[valid]) if valid.any() else 0.0
    ok = ok_written and err < 1e-5 and check_padding_untouched(y, N)
    return ok, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", required=True,
                    help="directory with one subdirectory of artifacts per chip")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    torch.manual_seed(0)
    gpu = torch.cuda.get_device_name()
    try:
        commit = subprocess.check_output(["git", "rev-parse", "--short", "HEAD"],
                                         text=True).strip()
    except Exception:
        commit = os.environ.get("TILEC_COMMIT", "unknown")
    commit = os.environ.get("TILEC_COMMIT", commit)

    scale_add_shapes = [(1, 1, 1), (7, 33, 33), (33, 129, 131), (127, 1000, 1003),
                        (1000, 4097, 4097), (64, 128, 128), (3, 9, 17)]
    softmax_shapes = [(1, 1, 1), (7, 33, 37), (129, 1000, 1000), (1023, 1024, 1024),
                      (5, 777, 781), (4097, 255, 255)]
    cases = []
    failures = 0
    for chip in sorted(os.listdir(args.artifacts)):
        kdir = os.path.join(args.artifacts, chip)
        if not os.path.isdir(kdir):
            continue
        for M, N, ld in scale_add_shapes:
            ok, err = case_scale_add(kdir, M, N, ld)
            cases.append(dict(chip=chip, kernel="scale_add_bf16", shape=[M, N], ld=ld,
                              max_rel_err=err, ok=ok))
        for name, causal in (("softmax_rows", False), ("softmax_rows_causal", True)):
            for M, N, ld in softmax_shapes:
                ok, err = case_softmax(kdir, name, M, N, ld, causal)
                cases.append(dict(chip=chip, kernel=name, shape=[M, N], ld=ld,
                                  max_rel_err=err, ok=ok))
    for c in cases:
        failures += not c["ok"]
        print(f"{c['chip']:7} {c['kernel']:20} {str(c['shape']):14} ld={c['ld']:<5} "
              f"err={c['max_rel_err']:.2e} {'ok' if c['ok'] else 'FAIL'}")
    record = dict(date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
                  gpu=gpu, commit=commit, torch=torch.__version__,
                  check="block programs (scale_add_bf16, softmax_rows, softmax_rows_causal)",
                  reference="torch float64", poisoned_outputs=True,
                  cases=cases, failures=failures)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
    print(f"{len(cases) - failures}/{len(cases)} cases passed on {gpu} (commit {commit})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
