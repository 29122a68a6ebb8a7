#!/usr/bin/env python3
"""tilec.gemm on random shapes, on the GPU (issue 20's correctness sweep): M,
N, K log-uniform in [1, 16384] (primes and sizes one off a power of two
mixed in, M*N*K at most 2^36 so the float32 reference stays quick), B row- or
column-major, half the cases with 16-byte rows and bases (the fast path),
half with rows padded at random (odd strides) and A's base 2 bytes off now
and then (the any-strides variant), bf16 on both paths, out poisoned with NaN first,
against a float32 reference. Every call picks its kernel as a user's would
(the shape classes, split-K, the any-strides variant).

Build here (the kernels every case's dispatch picks on the H200's 132 SMs,
with the compiler; the cases are drawn from the seed, so the build knows
them), then run there:

    TILEC_LIBRARY=build/lib/libtilec-c.so python3 -m scripts.gpu.gemm_sweep_check --build DIR [--cases 150]
    python3 -m scripts.gpu.gemm_sweep_check --artifacts DIR [--cases 150] [--out FILE]

The bundle (``make gpu-artifacts``) builds DIR as .gpu/bundle/gemm_sweep
(150 cases, seed 20). Inputs, poison, reference and record come from
scripts/harness.
"""

import argparse
import json
import os
import random
import sys

from scripts import ROOT

SPECIAL = [1, 2, 3, 7, 13, 17, 31, 63, 65, 127, 129, 251, 255, 257, 509, 1021, 1023, 1025,
           2047, 4093, 4097, 8191, 8193, 16381]
CHIPS = {"sm_90a": "sm_90a", "sm_80": "sm_90"}  # chip -> ptxas target on the H200
NUM_SMS = 132  # the H200


def size(rng):
    if rng.random() < 0.35:
        return rng.choice(SPECIAL)
    return max(1, int(2 ** rng.uniform(0, 14)))


def shape(rng):
    while True:
        m, n, k = size(rng), size(rng), size(rng)
        if m * n * k <= 2 ** 36:
            return m, n, k


def draw(rng):
    """One case's shape, layout, row strides and A's base offset (elements)."""
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
    lda = pad(k)
    ldb = pad(k) if col_b else pad(n)
    ldc = pad(n)
    return dict(m=m, n=n, k=k, aligned=aligned, offset=offset, col_b=col_b, lda=lda, ldb=ldb,
                ldc=ldc)


def cases_of(seed, count):
    """chip -> the drawn cases (the same sequence every time for a seed)."""
    rng = random.Random(seed)
    return {chip: [draw(rng) for _ in range(count)] for chip in CHIPS}


def kernel_configs(c, chip):
    """The configs tilec.gemm's dispatch can pick for case ``c`` on the
    H200 (the package's own list: the shape class, split-K included, its
    fallbacks and the any-strides variant)."""
    from tilec import kernels
    return kernels.gemm_dispatch_configs(c["m"], c["n"], c["k"], chip, NUM_SMS,
                                         b_layout="col" if c["col_b"] else "row")


def build(directory, seed, count):
    from scripts.harness.artifacts import build_package_kernels
    from tilec.kernels import gemm_config_suffix, gemm_name, gemm_source
    sources = {}
    for chip, cases in cases_of(seed, count).items():
        for c in cases:
            variant = {"b_layout": "col" if c["col_b"] else "row"}
            for config in kernel_configs(c, chip):
                name = gemm_name(**variant) + gemm_config_suffix(config)
                sources[(chip, name)] = gemm_source(**variant, config=config, name=name)[1]
    built = build_package_kernels(directory, sources, CHIPS)
    print(f"{built} kernels in {directory}")


def matrix(torch, rows, cols, ld, offset, dtype):
    """rows x cols with row stride ld (>= cols), `offset` elements into its
    buffer."""
    from scripts.harness import tensors
    buf = tensors.randn(offset + (rows - 1) * ld + cols, dtype)
    return buf[offset:offset + (rows - 1) * ld + cols].as_strided((rows, cols), (ld, 1))


def run_case(torch, tilec, c, chip, artifacts):
    from scripts.harness import references as ref
    from scripts.harness import tensors
    m, n, k, bf16 = c["m"], c["n"], c["k"], torch.bfloat16
    a = matrix(torch, m, k, c["lda"], c["offset"], bf16)
    if c["col_b"]:  # b = w.t() of an N x K w
        b = matrix(torch, n, k, c["ldb"], 0, bf16).t()
    else:
        b = matrix(torch, k, n, c["ldb"], 0, bf16)
    out = matrix(torch, m, n, c["ldc"], 0, bf16)
    # Twice: the second call runs through the plan of the first.
    for _ in range(2):
        tensors.poison_(out)
        tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts)
    torch.cuda.synchronize()
    err = ref.rel_err(out, ref.gemm(a, b))
    unwritten = tensors.unwritten(out)
    fast = c["offset"] == 0 and c["lda"] % 8 == 0 and c["ldb"] % 8 == 0
    picked = kernel_configs(c, chip)[0] if fast else None
    return dict(chip=chip, shape=[m, n, k], b_layout="col" if c["col_b"] else "row",
                fast_path_operands=c["aligned"], lda=c["lda"], ldb=c["ldb"], ldc=c["ldc"],
                a_offset_elems=c["offset"], split_k=(picked or {}).get("split_k", 1),
                rel_err=err, unwritten=unwritten, ok=bool(unwritten == 0 and err <= 1.6e-2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", metavar="DIR", help="compile the cases' kernels into DIR (here)")
    ap.add_argument("--artifacts", help="run the cases with DIR's kernels (there)")
    ap.add_argument("--cases", type=int, default=150, help="per chip")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "gemm_sweep.json"))
    args = ap.parse_args()
    if args.build:
        build(args.build, args.seed, args.cases)
        return 0
    if not args.artifacts:
        ap.error("--build DIR or --artifacts DIR")
    # No compiler on the GPU machine; the shape rule from the build machine.
    os.environ["TILEC_LIBRARY"] = os.path.join(ROOT, "no-compiler-on-this-machine",
                                               "libtilec-c.so")
    rules = os.path.join(args.artifacts, "libtilec-rules.so")
    if os.path.isfile(rules):
        os.environ["TILEC_RULES_LIBRARY"] = os.path.abspath(rules)
    import torch
    import tilec
    from scripts.harness.records import new_record, write_record
    torch.manual_seed(args.seed)
    cases = []
    for chip, drawn in cases_of(args.seed, args.cases).items():
        for c in drawn:
            try:
                result = run_case(torch, tilec, c, chip, args.artifacts)
            except Exception as e:  # noqa: BLE001 - a refusal or a failure is a wrong case
                result = dict(chip=chip, shape=[c["m"], c["n"], c["k"]], ok=False,
                              error=f"{type(e).__name__}: {e}"[:300])
            cases.append(result)
            if not result["ok"]:
                print(json.dumps(result), flush=True)
    record = new_record("gemm_sweep_check", artifacts=args.artifacts,
                        seed=args.seed, cases=cases, passed=sum(c["ok"] for c in cases),
                        failed=sum(not c["ok"] for c in cases),
                        split_k_cases=sum(c.get("split_k", 1) > 1 for c in cases))
    write_record(record, args.out)
    print(f"{record['passed']} passed, {record['failed']} failed of {len(cases)} "
          f"({record['split_k_cases']} split K)")
    return 1 if record["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
