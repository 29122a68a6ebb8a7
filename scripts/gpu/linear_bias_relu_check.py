#!/usr/bin/env python3
"""examples/linear_bias_relu_bf16.mlir on the GPU at odd and even shapes, per
chip, with examples/linear_bias_relu.py's check (float32 reference, torch's
bf16 error beside, y poisoned first)
(bench/results/2026-12-04_warp_replicated_conversion_fix_h200.json). Run
from the repository root: python3 -m scripts.gpu.linear_bias_relu_check [DIR]
(DIR/<chip>/; default the bundle's examples, .gpu/bundle/examples)."""

import os
import sys

import torch

import tilec.runtime
from scripts.harness.artifacts import bundle_part, load_example

check = load_example("linear_bias_relu").check
# The kernels: the bundle's examples (make gpu-artifacts), or DIR/<chip>.
ART = sys.argv[1] if len(sys.argv) > 1 else bundle_part("examples")

SHAPES = [(1000, 1000, 1000), (1024, 1024, 1024), (1000, 1000, 1024), (1024, 1024, 1000),
          (128, 128, 64), (256, 256, 1000)]

failed = 0
for chip in ("sm_90a", "sm_80"):
    kernel = tilec.runtime.Kernel(
        os.path.join(ART, chip, "linear_bias_relu_bf16.json"))
    for M, N, K in SHAPES:
        torch.manual_seed(0)
        r = check(kernel, M, N, K)
        ok = not r["unwritten"] and r["err"] <= max(2 * r["torch_err"], 1e-2)
        failed += not ok
        print(chip, M, N, K, "err", r["err"], "torch bf16 err", r["torch_err"],
              "unwritten", r["unwritten"], "ok" if ok else "FAIL")
sys.exit(1 if failed else 0)
