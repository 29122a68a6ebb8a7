"""Times mkvar.py's grouped variants against torch._grouped_mm and a
torch.mm loop on the MoE up projection (8192 rows, K 4096, N 14336; 8
experts balanced, 64 balanced, 64 Zipf-skewed), alternating rounds, CUDA
events, medians; checks each against a float32 reference first."""
import glob
import json
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
from tilec.runtime import Kernel  # noqa: E402

M, K, N = 8192, 4096, 14336


def routing(experts, skewed):
    if skewed:
        w = torch.tensor([1.0 / (i + 1) for i in range(experts)])
        rows = (w / w.sum() * M).floor().long()
        rows[0] += M - rows.sum()
    else:
        rows = torch.full((experts,), M // experts, dtype=torch.long)
    return rows


def main():
    probe = os.environ.get("PROBE_DIR", os.path.join(HERE, "..", "..", "..", ".gpu", "grouped_probe"))
    kernels = {os.path.basename(p)[:-5]: Kernel(p) for p in sorted(glob.glob(os.path.join(probe, "*.json")))}
    out = {"gpu": torch.cuda.get_device_name(), "commit": os.environ.get("TILEC_COMMIT"), "rows": []}
    for experts, skewed in ((8, False), (64, False), (64, True)):
        rows = routing(experts, skewed)
        offs = rows.cumsum(0).to(torch.int32).cuda()
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(experts, N, K, device="cuda", dtype=torch.bfloat16) / 64
        b = w.transpose(1, 2)  # [E, K, N], column-major matrices
        y = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        starts = [0] + offs.tolist()[:-1]
        ref_rows = [(s, e) for s, e in zip(starts, offs.tolist())]

        def loop():
            for g, (s, e) in enumerate(ref_rows):
                if e > s:
                    torch.mm(a[s:e], b[g], out=y[s:e])
        runs = {"torch_loop": loop, "torch_grouped_mm": lambda: torch._grouped_mm(a, b, offs=offs)}
        for name, kern in kernels.items():
            runs[name] = (lambda kern: lambda: kern(a, b, y, offs, experts, M, N, K, K, K, N, N * K))(kern)
        errors = {}
        for name, fn in list(runs.items()):
            y.fill_(float("nan"))
            r = fn()
            torch.cuda.synchronize()
            got = r if name == "torch_grouped_mm" else y
            g = 1
            s, e = ref_rows[g]
            ref = a[s:e].float() @ b[g].float()
            errors[name] = ((got[s:e].float() - ref).norm() / ref.norm()).item()
            if not errors[name] < 2e-2:
                print(experts, skewed, name, "WRONG", errors[name])
                runs.pop(name)
        times = {n: [] for n in runs}
        for _ in range(5):
            for name, fn in runs.items():
                s_, e_ = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s_.record()
                for _ in range(5):
                    fn()
                e_.record()
                e_.synchronize()
                times[name].append(s_.elapsed_time(e_) / 5 * 1e3)
        med = {n: statistics.median(t) for n, t in times.items()}
        tf = {n: 2 * M * N * K / (t * 1e-6) / 1e12 for n, t in med.items()}
        best = max(tf["torch_loop"], tf.get("torch_grouped_mm", 0))
        row = {"experts": experts, "skewed": skewed, "tflops": tf, "us": med, "errors": errors,
               "vs_best_torch": {n: v / best for n, v in tf.items()}}
        out["rows"].append(row)
        print(experts, "skewed" if skewed else "balanced",
              " ".join(f"{n}={v:.0f}" for n, v in sorted(tf.items())), flush=True)
    with open(os.path.join(os.environ.get("OUT", HERE), "grouped_probe.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
