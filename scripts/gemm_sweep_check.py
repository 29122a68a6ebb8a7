#!/usr/bin/env python3
"""tilec.gemm on random shapes, on the GPU (issue 20's correctness sweep): M,
N, K log-uniform in [1, 16384] (primes and sizes one off a power of two
mixed in, M*N*K at most 2^36 so the float32 reference stays quick), B row- or
column-major, half the cases with 16-byte rows and bases (the fast path),
half with rows padded at random (odd strides) and A's base 2 bytes off now
and then (the any-strides variant), bf16 on both paths, out poisoned with NaN first,
against a float32 reference. Every call picks its kernel as a user's would
(the shape classes, the any-strides variant).

    gemm_sweep_check.py --artifacts DIR [--cases 120] [--out FILE]

DIR: scripts/build_python_artifacts.py --dtype bf16 --chips sm_90a,sm_80.
"""

import argparse
import datetime
import json
import os
import random
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tilec  # noqa: E402

SPECIAL = [1, 2, 3, 7, 13, 17, 31, 63, 65, 127, 129, 251, 255, 257, 509, 1021, 1023, 1025,
           2047, 4093, 4097, 8191, 8193, 16381]


def size(rng):
    if rng.random() < 0.35:
        return rng.choice(SPECIAL)
    return max(1, int(2 ** rng.uniform(0, 14)))


def shape(rng):
    while True:
        m, n, k = size(rng), size(rng), size(rng)
        if m * n * k <= 2 ** 36:
            return m, n, k


def matrix(rows, cols, ld, offset, dtype=torch.bfloat16):
    """rows x cols with row stride ld (>= cols), `offset` elements into its
    buffer."""
    buf = torch.randn(offset + (rows - 1) * ld + cols, device="cuda").to(dtype)
    return buf[offset:offset + (rows - 1) * ld + cols].as_strided((rows, cols), (ld, 1))


def case(rng, chip, artifacts):
    m, n, k = shape(rng)
    # Half the cases keep what the fast path needs (16-byte rows and bases);
    # the other half pad rows at random and move A's base now and then.
    aligned = rng.random() < 0.5
    if aligned:
        pad = lambda c: -(-(c + rng.choice([0, 8])) // 8) * 8  # noqa: E731
        offset = 0
    else:
        pad = lambda c: c + rng.choice([0, 1, 3, 8])  # noqa: E731
        offset = rng.choice([0, 0, 1])
    col_b = rng.random() < 0.5
    a = matrix(m, k, pad(k), offset)
    if col_b:  # b = w.t() of an N x K w
        b = matrix(n, k, pad(k), 0).t()
    else:
        b = matrix(k, n, pad(n), 0)
    out = matrix(m, n, pad(n), 0).fill_(float("nan"))
    tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    scale = ref.abs().max().item() or 1.0
    err = (out.float() - ref).abs().max().item() / scale
    unwritten = int(torch.isnan(out).sum().item())
    return dict(chip=chip, shape=[m, n, k], b_layout="col" if col_b else "row",
                fast_path_operands=aligned,
                lda=a.stride(0), ldb=b.stride(1) if col_b else b.stride(0), ldc=out.stride(0),
                a_offset_elems=offset, rel_err=err, unwritten=unwritten,
                ok=bool(unwritten == 0 and err <= 1.6e-2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--cases", type=int, default=120, help="per chip")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "gemm_sweep.json"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    cases = []
    for chip in ("sm_90a", "sm_80"):
        for _ in range(args.cases):
            try:
                c = case(rng, chip, args.artifacts)
            except Exception as e:  # noqa: BLE001 - a refusal or a failure is a wrong case
                c = dict(chip=chip, ok=False, error=f"{type(e).__name__}: {e}"[:300])
            cases.append(c)
            if not c["ok"]:
                print(json.dumps(c), flush=True)
    record = dict(date=datetime.date.today().isoformat(), gpu=torch.cuda.get_device_name(),
                  seed=args.seed, cases=cases, passed=sum(c["ok"] for c in cases),
                  failed=sum(not c["ok"] for c in cases))
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
    print(f"{record['passed']} passed, {record['failed']} failed of {len(cases)}")
    return 1 if record["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
