#!/usr/bin/env python3
"""GPU check of wgmma with A in registers (the RS form) on sm_90a: the
block program test/Target/Inputs/wgmma_rs.mlir computes C = (2 A) @ B with
the scaled A tile in registers. Random inputs, odd M and N (K a multiple of
64, as the kernel declares), NaN-poisoned outputs and padding, float64
reference (scripts/harness). Writes a JSON record.

    python3 -m scripts.gpu.wgmma_rs_check --artifacts DIR --out FILE.json
"""

import argparse
import os
import subprocess
import sys

import torch

from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.records import new_record, write_record
from tilec.runtime import Kernel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    kernel = Kernel(os.path.join(args.artifacts, "wgmma_rs.json"))
    torch.manual_seed(0)
    cases = []
    for M, N, K in [(64, 128, 64), (1, 1, 64), (65, 129, 128), (1000, 333, 512),
                    (127, 4097, 192), (4097, 255, 1024)]:
        lda, ldb, ldc = K + 8, N + 8 + (-(N + 8)) % 8, N + 3
        a = tensors.randn((M, lda), torch.bfloat16)
        b = tensors.randn((K, ldb), torch.bfloat16)
        c = tensors.poisoned((M, ldc), torch.float32)
        kernel(a, b, c, M, N, K, lda, ldb, ldc)
        torch.cuda.synchronize()
        out = c[:, :N]
        written = tensors.unwritten(out) == 0
        pad_ok = tensors.padding_intact(out, c)
        err = ref.rel_err(out, ref.gemm(a[:, :K], b[:, :N], alpha=2.0, dtype=torch.float64))
        ok = bool(written and pad_ok and err < 1e-4)
        cases.append(dict(shape=[M, N, K], max_rel_err=err, written=written,
                          pad_untouched=pad_ok, ok=ok))
        print(cases[-1], flush=True)
    sass = subprocess.run(["cuobjdump", "-sass", os.path.join(args.artifacts, "wgmma_rs.cubin")],
                          capture_output=True, text=True).stdout
    hgmma = [l.strip() for l in sass.splitlines() if "HGMMA" in l]
    record = new_record("wgmma_rs_check", artifacts=args.artifacts,
                        kernel="test/Target/Inputs/wgmma_rs.mlir (sm_90a)", cases=cases,
                        passed=sum(c["ok"] for c in cases),
                        failed=sum(not c["ok"] for c in cases),
                        sass_hgmma=hgmma[:4], sass_hgmma_count=len(hgmma))
    write_record(record, args.out)
    print(f"{record['passed']}/{len(cases)} ok; HGMMA x{len(hgmma)}: {hgmma[:1]}")
    return 0 if record["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
