#!/usr/bin/env python3
"""GPU check of tilec's block-program kernels (issue: foundation).

Loads each compiled kernel through the CUDA driver API using only its
<kernel>.json and cubin (python/tilec/runtime.py), runs it on random
odd-sized inputs with poisoned outputs, and compares with a float64 torch
reference. One directory of artifacts per chip (sm_80/sm_89 PTX assembled for
the GPU at hand). Writes a JSON record of every case.

    python3 -m scripts.gpu.gpu_check --artifacts .gpu/bundle/examples --out bench/results/x.json
"""

import argparse
import os
import sys

import torch

from scripts.harness import tensors
from scripts.harness.records import new_record, write_record
from scripts.harness.references import rel_err
from tilec.runtime import load


def padded(rows, cols, ld, dtype, fill=None):
    """A (rows x ld) buffer whose first `cols` columns are the matrix:
    random, or poisoned when ``fill`` is set."""
    if fill is not None:
        return tensors.poisoned((rows, ld), dtype)
    return torch.randn(rows, ld, device="cuda", dtype=torch.float32).to(dtype)


def check_padding_untouched(buf, cols):
    """Columns past the matrix must still hold the poison."""
    return tensors.padding_intact(buf[:, :cols], buf)


def case_scale_add(kdir, M, N, ld):
    k = load(kdir, "scale_add_bf16")
    x = padded(M, N, ld, torch.bfloat16)
    y = padded(M, N, ld + 1, torch.bfloat16)
    out = padded(M, N, ld + 3, torch.bfloat16, fill=True)
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
    y = padded(M, N, ld + 5, torch.float32, fill=True)
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
    record = new_record("block programs (scale_add_bf16, softmax_rows, softmax_rows_causal)",
                        artifacts=args.artifacts, reference="torch float64",
                        poisoned_outputs=True, cases=cases, failures=failures)
    write_record(record, args.out)
    print(f"{len(cases) - failures}/{len(cases)} cases passed on {record['gpu']} "
          f"(commit {record['commit']})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
