#!/usr/bin/env python3
"""The kernels tile-from-linalg makes of test/Conversion/LinalgToTile/from-linalg-coverage.mlir
(a linalg.generic matmul, linalg.contract, matvec accumulating into y, vecmat with a dynamic K,
nn.Linear as a generic, bias + GELU and SiLU epilogues), launched on the GPU against a float32
reference on both paths (outputs poisoned with NaN first; scripts/harness).

Build here (tilec-opt the test with -split-input-file -tile-from-linalg, split it at
// -----, tilec each part that holds a kernel into DIR/<chip>, sm_80 with
--cubin-arch=sm_90), run there from the repository root:

    python3 -m scripts.gpu.linalg_coverage_check build [--artifacts .gpu/lin] [--bindir build/bin]
    python3 -m scripts.gpu.linalg_coverage_check [run] [--artifacts .gpu/lin] [--out FILE]

The bundle (``make gpu-artifacts``) builds DIR as .gpu/bundle/lin. FILE defaults to
$OUT/linalg_coverage.json.
"""
import argparse
import os
import subprocess
import sys

from scripts import ROOT

INPUT = os.path.join(ROOT, "test", "Conversion", "LinalgToTile", "from-linalg-coverage.mlir")
CHIPS = {"sm_90a": "sm_90a", "sm_80": "sm_90"}  # chip -> cubin arch


def build(art, bindir):
    from scripts.harness.records import stamp_commit
    opt, tilec = os.path.join(bindir, "tilec-opt"), os.path.join(bindir, "tilec")
    text = subprocess.run([opt, INPUT, "-split-input-file", "-tile-from-linalg=quiet=true"],
                          check=True, capture_output=True, text=True).stdout
    parts = [p for p in text.split("// -----") if "tile.kernel" in p]
    os.makedirs(art, exist_ok=True)
    for i, part in enumerate(parts):
        path = os.path.join(art, f"part{i}.mlir")
        with open(path, "w") as f:
            f.write(part)
        for chip, arch in CHIPS.items():
            subprocess.run([tilec, path, f"--chip={chip}", f"--cubin-arch={arch}",
                            "--emit=cubin", "-o", os.path.join(art, chip)], check=True)
    stamp_commit(art)
    print(f"{len(parts)} parts with kernels in {art}")
    return 0


def run(art, out_path):
    import torch
    from scripts.harness import references as ref
    from scripts.harness import tensors
    from scripts.harness.records import new_record, write_record
    from tilec.runtime import Kernel

    torch.manual_seed(0)

    def r(*s, dt=torch.bfloat16):
        return torch.randn(*s, device="cuda").to(dt)

    res = []
    for chip in CHIPS:
        def K(name):
            return Kernel(os.path.join(art, chip, name + ".json"))
        cases = []
        a, b = r(256, 128), r(128, 512)
        c = tensors.poisoned((256, 512), torch.float32)
        cases.append(("generic_matmul", K("generic_matmul_gemm0"), (a, b, c), c, ref.gemm(a, b)))
        a, b = r(64, 32, dt=torch.float16), r(32, 48, dt=torch.float16)
        c = tensors.poisoned((64, 48), torch.float32)
        cases.append(("contract_matmul", K("contract_matmul_gemm0"), (a, b, c), c, ref.gemm(a, b)))
        a, x = r(256, 128), r(128)
        y = torch.randn(256, device="cuda")
        y0 = y.clone()
        cases.append(("matvec (accumulates into y)", K("matvec_gemm0"), (a, x, y), y,
                      y0 + ref.gemm(a, x)))
        x, b = r(1000, dt=torch.float16), r(1000, 64, dt=torch.float16)
        c = tensors.poisoned((64,), torch.float32)
        cases.append(("vecmat K=1000", K("vecmat_gemm0"), (x, b, c, 1000), c, ref.gemm(x, b)))
        a, w = r(256, 512), r(128, 512)
        c = tensors.poisoned((256, 128), torch.float32)
        cases.append(("generic_linear", K("generic_linear_gemm0"), (a, w, c), c, ref.gemm(a, w.t())))
        # Fused epilogues: bias + GELU (erf form, torch-mlir's decomposition;
        # bf16 out) and SiLU in its two forms (f32 out).
        a, b, bias = r(64, 32), r(32, 16), torch.randn(16, device="cuda")
        c = tensors.poisoned((64, 16), torch.bfloat16)
        cases.append(("bias_gelu_erf", K("bias_gelu_erf_gemm0"), (a, b, bias, c), c,
                      ref.gemm(a, b, bias=bias, act="gelu")))
        for i in (0, 1):
            c = tensors.poisoned((64, 16), torch.float32)
            cases.append((f"silu_form{i}", K(f"silu_forms_gemm{i}"), (a, b, c), c,
                          ref.gemm(a, b, act="silu")))
        for name, k, args, out, want in cases:
            k(*args)
            torch.cuda.synchronize()
            err = ref.rel_err(out, want)
            # (bf16 outputs: one rounding, 2^-8 relative)
            ok = (err < (1e-2 if out.dtype == torch.bfloat16 else 1e-3)
                  and tensors.unwritten(out) == 0)
            res.append(dict(chip=chip, case=name, max_rel_err=err, ok=ok))
            print(chip, name, f"{err:.2e}", "ok" if ok else "FAIL", flush=True)
    write_record(new_record("linalg_coverage_check", artifacts=art, results=res), out_path)
    return 0 if all(r["ok"] for r in res) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", nargs="?", choices=("build", "run"), default="run")
    ap.add_argument("--artifacts", default=os.path.join(".gpu", "lin"))
    ap.add_argument("--bindir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                  "linalg_coverage.json"))
    args = ap.parse_args()
    if args.step == "build":
        return build(args.artifacts, args.bindir)
    return run(args.artifacts, args.out)


if __name__ == "__main__":
    sys.exit(main())
