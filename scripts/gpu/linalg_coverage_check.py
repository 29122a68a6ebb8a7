#!/usr/bin/env python3
"""The kernels tile-from-linalg makes of test/Conversion/LinalgToTile/from-linalg-coverage.mlir (a linalg.generic
matmul, linalg.contract, matvec accumulating into y, vecmat with a dynamic K, nn.Linear as a
generic, bias + GELU and SiLU epilogues), launched on the GPU against a float32 reference on both paths. Build here: tilec-opt the
test with -split-input-file -tile-from-linalg, split it at // -----, and tilec each part into
.gpu/lin/<chip> (sm_80 with --cubin-arch=sm_90); run there from the repository root."""
import json, torch
import tilec.runtime
torch.manual_seed(0)
def r(*s, dt=torch.bfloat16): return torch.randn(*s, device="cuda").to(dt)
res = []
for chip in ("sm_90a", "sm_80"):
    d = f".gpu/lin/{chip}"
    K = lambda n: tilec.runtime.Kernel(f"{d}/{n}.json")
    cases = []
    a, b = r(256, 128), r(128, 512); c = torch.full((256, 512), float("nan"), device="cuda")
    cases.append(("generic_matmul", K("generic_matmul_gemm0"), (a, b, c), c, a.float() @ b.float()))
    a, b = r(64, 32, dt=torch.float16), r(32, 48, dt=torch.float16); c = torch.full((64, 48), float("nan"), device="cuda")
    cases.append(("contract_matmul", K("contract_matmul_gemm0"), (a, b, c), c, a.float() @ b.float()))
    a, x = r(256, 128), r(128); y = torch.randn(256, device="cuda"); y0 = y.clone()
    cases.append(("matvec (accumulates into y)", K("matvec_gemm0"), (a, x, y), y, y0 + a.float() @ x.float()))
    x, b = r(1000, dt=torch.float16), r(1000, 64, dt=torch.float16); c = torch.full((64,), float("nan"), device="cuda")
    cases.append(("vecmat K=1000", K("vecmat_gemm0"), (x, b, c, 1000), c, x.float() @ b.float()))
    a, w = r(256, 512), r(128, 512); c = torch.full((256, 128), float("nan"), device="cuda")
    cases.append(("generic_linear", K("generic_linear_gemm0"), (a, w, c), c, a.float() @ w.float().t()))
    # Fused epilogues: bias + GELU (erf form, torch-mlir's decomposition;
    # bf16 out) and SiLU in its two forms (f32 out).
    a, b, bias = r(64, 32), r(32, 16), torch.randn(16, device="cuda")
    c = torch.full((64, 16), float("nan"), device="cuda").bfloat16()
    cases.append(("bias_gelu_erf", K("bias_gelu_erf_gemm0"), (a, b, bias, c), c,
                  torch.nn.functional.gelu(a.float() @ b.float() + bias)))
    for i in (0, 1):
        c = torch.full((64, 16), float("nan"), device="cuda")
        cases.append((f"silu_form{i}", K(f"silu_forms_gemm{i}"), (a, b, c), c,
                      torch.nn.functional.silu(a.float() @ b.float())))
    for name, k, args, out, ref in cases:
        k(*args)
        torch.cuda.synchronize()
        err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
        # (bf16 outputs: one rounding, 2^-8 relative)
        ok = err < (1e-2 if out.dtype == torch.bfloat16 else 1e-3) and not torch.isnan(out).any().item()
        res.append(dict(chip=chip, case=name, max_rel_err=err, ok=ok))
        print(chip, name, f"{err:.2e}", "ok" if ok else "FAIL")
import os
json.dump(dict(date="2026-12-04", gpu=torch.cuda.get_device_name(), results=res), open(os.path.join(os.environ.get("OUT", "."), "linalg_coverage.json"), "w"), indent=1)
