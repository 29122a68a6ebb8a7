#!/usr/bin/env python3
"""tilec.gemm on operands the fast path cannot read, on the GPU: row strides
that are not whole 16-byte chunks (7x13x19, 1000x999x1001, 4097x4095x63,
129x257x8200, the shapes issue 20 found refused) and bases off 16-byte
alignment, bf16 on both paths, against a float32 reference with outputs
poisoned (NaN) first, beside torch.matmul's own error and time (alternating
rounds). Inputs, poison, reference, timing and record: scripts/harness.

    python3 -m scripts.gpu.gemm_any_strides_check --artifacts DIR [--out FILE]

DIR: python3 -m scripts.build.build_python_artifacts --dtype bf16 (its aligned = 0 variants).
"""

import argparse
import json
import os
import sys

import torch

import tilec
from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.records import new_record, write_record
from scripts.harness.timing import time_rounds

SHAPES = [(7, 13, 19), (1000, 999, 1001), (4097, 4095, 63), (129, 257, 8200), (512, 512, 512)]


def operand(rows, cols, offset):
    """rows x cols bf16, contiguous (row stride = cols), starting `offset`
    elements into its buffer (offset 1: a base 2 bytes past alignment)."""
    buf = tensors.randn(rows * cols + offset, torch.bfloat16)
    return buf[offset:].view(rows, cols)


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
                out = tensors.poisoned((m, n), torch.bfloat16)
                tilec.gemm(a, b, out=out, chip=chip, artifacts=args.artifacts)
                torch.cuda.synchronize()
                want = ref.gemm(a, b)
                err = ref.rel_err(out, want)
                torch_err = ref.rel_err(torch.matmul(a, b), want)
                ok = err <= max(2 * torch_err, 1e-2) and tensors.unwritten(out) == 0
                ms = time_rounds({"tilec": lambda: tilec.gemm(a, b, out=out, chip=chip,
                                                              artifacts=args.artifacts),
                                  "torch": lambda: torch.matmul(a, b)}, rounds=3)
                case = dict(chip=chip, shape=[m, n, k], a_offset_elems=offset, rel_err=err,
                            torch_bf16_rel_err=torch_err, ok=bool(ok),
                            tilec_us=ms["tilec"] * 1e3, torch_us=ms["torch"] * 1e3)
                cases.append(case)
                print(json.dumps(case), flush=True)
    record = new_record("gemm_any_strides_check", artifacts=args.artifacts, cases=cases,
                        passed=sum(c["ok"] for c in cases),
                        failed=sum(not c["ok"] for c in cases))
    write_record(record, args.out)
    print(f"{record['passed']} passed, {record['failed']} failed")
    return 1 if record["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
