#!/usr/bin/env python3
"""tilec.gemm on operands the fast path cannot read, on the GPU: row strides
that are not whole 16-byte chunks (7x13x19, 1000x999x1001, 4097x4095x63,
129x257x8200, the shapes issue 20 found refused) and bases off 16-byte
alignment, bf16 on both paths, against a float32 reference with outputs
poisoned (NaN) first, beside torch.matmul's own error and time.

    gemm_any_strides_check.py --artifacts DIR [--out FILE]

DIR: python3 -m scripts.build.build_python_artifacts --dtype bf16 (its aligned = 0 variants).
"""

import argparse
import datetime
import json
import os
import sys

import torch

import tilec  # noqa: E402

SHAPES = [(7, 13, 19), (1000, 999, 1001), (4097, 4095, 63), (129, 257, 8200), (512, 512, 512)]


def operand(rows, cols, offset):
    """rows x cols bf16, contiguous (row stride = cols), starting `offset`
    elements into its buffer (offset 1: a base 2 bytes past alignment)."""
    buf = torch.randn(rows * cols + offset, device="cuda").to(torch.bfloat16)
    return buf[offset:].view(rows, cols)


def time_us(fn, reps=20):
    fn()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) / reps * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                   "gemm_any_strides.json"))
    args = ap.parse_args()
    torch.manual_seed(0)
    cases = []
    for chip in ("sm_90a", "sm_80"):
        for m, n, k in SHAPES:
            for offset in (0, 1):
                a, b = operand(m, k, offset), operand(k, n, 0)
                out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
                tilec.gemm(a, b, out=out, chip=chip, artifacts=args.artifacts)
                torch.cuda.synchronize()
                ref = a.float() @ b.float()
                scale = ref.abs().max().item() or 1.0
                err = (out.float() - ref).abs().max().item() / scale
                torch_err = (torch.matmul(a, b).float() - ref).abs().max().item() / scale
                ok = err <= max(2 * torch_err, 1e-2) and not torch.isnan(out).any().item()
                case = dict(chip=chip, shape=[m, n, k], a_offset_elems=offset, rel_err=err,
                            torch_bf16_rel_err=torch_err, ok=bool(ok),
                            tilec_us=time_us(lambda: tilec.gemm(a, b, out=out, chip=chip,
                                                                artifacts=args.artifacts)),
                            torch_us=time_us(lambda: torch.matmul(a, b)))
                cases.append(case)
                print(json.dumps(case), flush=True)
    record = dict(date=datetime.date.today().isoformat(), gpu=torch.cuda.get_device_name(),
                  cases=cases, passed=sum(c["ok"] for c in cases),
                  failed=sum(not c["ok"] for c in cases))
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
    print(f"{record['passed']} passed, {record['failed']} failed")
    return 1 if record["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
