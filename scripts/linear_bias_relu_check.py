#!/usr/bin/env python3
"""examples/linear_bias_relu_bf16.mlir on the GPU at odd and even shapes, per chip, against a float32
reference with torch's bf16 matmul error beside (bench/results/2026-12-04_warp_replicated_conversion_fix_h200.json).
Run from the repository root with the kernels compiled into .gpu/guide/<chip>/."""
import sys, torch
sys.path.insert(0, "python")
import tilec.runtime
for c in ("sm_90a", "sm_80"):
    k = tilec.runtime.Kernel(f".gpu/guide/{c}/linear_bias_relu_bf16.json")
    for (M, N, K) in [(1000, 1000, 1000), (1024, 1024, 1024), (1000, 1000, 1024), (1024, 1024, 1000), (128, 128, 64), (256, 256, 1000)]:
        torch.manual_seed(0)
        x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(N, device="cuda", dtype=torch.bfloat16)
        y = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(x, w, b, y, M, N, K, x.stride(0), w.stride(0), y.stride(0))
        torch.cuda.synchronize()
        ref = torch.relu(x.float() @ w.float().t() + b.float())
        tb = torch.relu((x @ w.t()).float() + b.float())
        d = (y.float() - ref).abs()
        bad = d > 0.02 * ref.abs().max()
        idx = bad.nonzero()
        print(c, M, N, K, "err", (d.max() / ref.abs().max()).item(), "torch bf16 err", ((tb - ref).abs().max() / ref.abs().max()).item(), "nbad", bad.sum().item(), "nan", torch.isnan(y).sum().item(),
              "rows", idx[:, 0].unique()[:10].tolist() if len(idx) else [], "cols", idx[:, 1].unique()[:10].tolist() if len(idx) else [])
