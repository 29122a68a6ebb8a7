"""Batched GEMM (torch.bmm's problem) on the H200: tilec's batched tile.gemm
(examples/gemm_batched_bf16.mlir, one launch for the whole batch) against the
same matrices as a loop of per-matrix launches (examples/gemm_bf16.mlir, what
tile-from-linalg made of linalg.batch_matmul before) and torch.bmm (cuBLAS),
bf16 in and out, in alternating rounds (scripts/harness/timing.py, 5
rounds). Correctness first: outputs poisoned with NaN, float32 reference
(scripts/harness).

Build here: tilec examples/{gemm_batched_bf16,gemm_bf16}.mlir --emit=cubin
into .gpu/bmm/sm_90a and (--chip=sm_80 --cubin-arch=sm_90) .gpu/bmm/sm_80.
Run there: python3 -m bench.bmm [--json OUT] (from the repository root)."""
import argparse
import json
import sys

import torch

from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.records import new_record, ratio, tflops, write_record
from scripts.harness.timing import time_rounds
from tilec.runtime import Kernel

SHAPES = [(16, 1024, 1024, 1024), (8, 2048, 2048, 2048), (64, 256, 256, 256),
          (128, 128, 128, 128), (32, 512, 512, 128), (12, 333, 200, 136)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--dir", default=".gpu/bmm")
    ap.add_argument("--commit", default=None,
                    help="the record's commit (default $TILEC_COMMIT, else the artifacts' stamp)")
    args = ap.parse_args()
    torch.manual_seed(0)
    kernels = {}
    for chip in ("sm_90a", "sm_80"):
        kernels[chip] = (Kernel(f"{args.dir}/{chip}/gemm_batched_bf16.json"),
                         Kernel(f"{args.dir}/{chip}/gemm_bf16.json"))
    rows, ok = [], True
    for (B, M, N, K) in SHAPES:
        a = tensors.randn((B, M, K), torch.bfloat16)
        b = tensors.randn((B, K, N), torch.bfloat16)
        want = ref.gemm(a, b)
        outs = {}

        def batched(chip):
            c = outs.setdefault(("b", chip), torch.empty(B, M, N, device="cuda", dtype=torch.bfloat16))
            return lambda: kernels[chip][0](a, b, c, B, M, N, K, M * K, K * N, M * N)

        def loop(chip):
            c = outs.setdefault(("l", chip), torch.empty(B, M, N, device="cuda", dtype=torch.bfloat16))
            k = kernels[chip][1]
            views = [(a[i], b[i], c[i]) for i in range(B)]
            def run():
                for x, y, z in views:
                    k(x, y, z, M, N, K, K, N, N)
            return run

        cb = torch.empty(B, M, N, device="cuda", dtype=torch.bfloat16)
        variants = {"tilec_batched_sm90a": batched("sm_90a"), "tilec_loop_sm90a": loop("sm_90a"),
                    "tilec_batched_sm80": batched("sm_80"), "tilec_loop_sm80": loop("sm_80"),
                    "torch_bmm": lambda: torch.bmm(a, b, out=cb)}
        errors = {}
        for name, fn in variants.items():
            for c in list(outs.values()) + [cb]:
                tensors.poison_(c)
            fn()
            torch.cuda.synchronize()
            out = {"tilec_batched_sm90a": outs.get(("b", "sm_90a")), "tilec_loop_sm90a": outs.get(("l", "sm_90a")),
                   "tilec_batched_sm80": outs.get(("b", "sm_80")), "tilec_loop_sm80": outs.get(("l", "sm_80")),
                   "torch_bmm": cb}[name]
            errors[name] = ref.rel_err(out, want)
        torch_err = errors["torch_bmm"]
        for name, err in errors.items():
            good = err == err and err <= max(2 * torch_err, 1e-2)
            ok &= good
        med = time_rounds(variants, rounds=5)
        tf = {n: tflops(2 * B * M * N * K, ms) for n, ms in med.items()}
        row = dict(shape=[B, M, N, K], tflops={n: round(v, 1) for n, v in tf.items()},
                   us={n: round(ms * 1e3, 1) for n, ms in med.items()},
                   max_rel_err={n: float(f"{v:.3g}") for n, v in errors.items()},
                   batched_vs_loop_sm90a=ratio(tf["tilec_batched_sm90a"], tf["tilec_loop_sm90a"]),
                   batched_vs_loop_sm80=ratio(tf["tilec_batched_sm80"], tf["tilec_loop_sm80"]),
                   batched_sm90a_vs_torch=ratio(tf["tilec_batched_sm90a"], tf["torch_bmm"]))
        rows.append(row)
        print(json.dumps(row), flush=True)
    doc = new_record("bench.bmm", artifacts=args.dir, what=__doc__.split("\n\n")[0], rows=rows,
                     all_correct=ok)
    if args.commit:
        doc["commit"] = args.commit
    if args.json:
        write_record(doc, args.json)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
