"""Times the variants of mkvar.py (out/*.json) against torch (x @ w.T) on
decode / skinny shapes, in alternating rounds with CUDA events; the weights
rotate over copies larger than L2, as in a decode step. Writes
$OUT/skinny_probe.json (or ./skinny_probe.json)."""
import glob
import json
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
from tilec.runtime import Kernel  # noqa: E402

SHAPES = [(m, n, k) for m in (1, 16, 64) for (n, k) in
          ((4096, 4096), (6144, 4096), (14336, 4096), (4096, 14336), (1024, 4096),
           (8192, 8192), (28672, 8192))] + [(33, 8192, 4096), (129, 257, 8200), (128, 4096, 4096)]
ROUNDS, ITERS = 5, 20


def main():
    kernels = {os.path.basename(p)[:-5]: Kernel(p) for p in sorted(glob.glob(os.path.join(os.environ.get("PROBE_DIR", os.path.join(HERE, "..", "..", "..", ".gpu", "skinny_probe")), "*.json")))}
    rows = []
    for (m, n, k) in SHAPES:
        copies = max(2, (160 << 20) // (n * k * 2) + 1)
        ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / 32 for _ in range(copies)]
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        ref = (x.float() @ ws[0].float().T)
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        ref_bias_relu = torch.relu(ref + bias.float())
        runs = {"torch": lambda w, y: torch.matmul(x, w.T, out=y)}
        for name, kern in kernels.items():
            if name.endswith("_bias_relu"):
                runs[name] = (lambda kern: lambda w, y: kern(x, w, y, bias, m, n, k, k, k, n))(kern)
            else:
                runs[name] = (lambda kern: lambda w, y: kern(x, w, y, m, n, k, k, k, n))(kern)
        # tilec.gemm itself (its dispatch, plans and host cost), where
        # artifacts are given.
        if os.environ.get("TILEC_GEMM_ARTIFACTS"):
            import tilec
            art, chip = os.environ["TILEC_GEMM_ARTIFACTS"], os.environ.get("TILEC_GEMM_CHIP")
            runs["tilec_gemm"] = lambda w, y: tilec.gemm(x, w.t(), out=y, artifacts=art, chip=chip)
        # What the shape rule picks (include/tilec/Rules/ShapeRules.h).
        tokens = 16 if m <= 16 else 32 if m <= 32 else 64
        rule = f"named_swap{tokens}x{128 if tokens == 64 and n >= 8192 else 64}" if m <= 64 else "base_n64"
        errors = {}
        for name, fn in list(runs.items()):
            y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            want = ref_bias_relu if name.endswith("_bias_relu") else ref
            try:
                fn(ws[0], y)
                torch.cuda.synchronize()
                err = ((y.float() - want).norm() / want.norm()).item()
            except Exception as e:  # noqa: BLE001
                print(m, n, k, name, "failed:", e)
                runs.pop(name)
                continue
            errors[name] = err
            if not err < 2e-2:
                print(m, n, k, name, "WRONG", err)
                runs.pop(name)
        times = {name: [] for name in runs}
        y = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        for name, fn in runs.items():
            for i in range(3):
                fn(ws[i % copies], y)
        for _ in range(ROUNDS):
            for name, fn in runs.items():
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                for i in range(ITERS):
                    fn(ws[i % copies], y)
                e.record()
                e.synchronize()
                times[name].append(s.elapsed_time(e) / ITERS * 1e3)
        med = {name: statistics.median(t) for name, t in times.items()}
        nbytes = (n * k + m * k + m * n) * 2
        row = {"m": m, "n": n, "k": k, "rule": rule, "us": med, "errors": errors,
               "gbps": {name: nbytes / (t * 1e-6) / 1e9 for name, t in med.items()},
               "vs_torch": {name: med["torch"] / t for name, t in med.items()}}
        best = max((v, name) for name, v in row["vs_torch"].items() if name != "torch")
        print(f"{m}x{n}x{k}: torch {med['torch']:.1f} us {row['gbps']['torch']:.0f} GB/s; best {best[1]} "
              f"{best[0]:.2f}x; rule {rule} {row['vs_torch'].get(rule, 0):.2f}x; "
              f"base_n64 {row['vs_torch'].get('base_n64', 0):.2f}x "
              f"base_n128 {row['vs_torch'].get('base_n128', 0):.2f}x", flush=True)
        rows.append(row)
        del ws
    out = os.environ.get("OUT", HERE)
    with open(os.path.join(out, "skinny_probe.json"), "w") as f:
        json.dump({"gpu": torch.cuda.get_device_name(), "commit": os.environ.get("TILEC_COMMIT"),
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
