#!/usr/bin/env python3
"""Clock, power and throttle reasons under sustained GEMM load: a tilec GEMM
kernel, then cuBLAS (torch.matmul), each back to back for a few seconds
while nvidia-smi samples the GPU every 50 ms. Tells a power- or
clock-limited kernel from one that leaves the tensor pipe idle.

    python3 -m bench.gemm_power KERNEL.json OUT_JSON [M N K] [seconds]

(Each kernel runs alone for seconds on purpose: the clocks and power under
sustained load are the measurement, not an alternating-round comparison.
OUT_JSON is a record of scripts/harness/records.py.)
"""

import json
import os
import subprocess
import sys
import time

import torch

from scripts.harness.records import new_record, tflops, write_record
from tilec.runtime import Kernel

QUERY = "clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_throttle_reasons.active"


def sustained(fn, seconds, flop):
    """Runs fn back to back for `seconds` under nvidia-smi sampling."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits",
                            "-lms", "50"], stdout=subprocess.PIPE, text=True)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.time()
    runs = 0
    start.record()
    while time.time() - t0 < seconds:
        for _ in range(20):
            fn()
        runs += 20
        torch.cuda.synchronize()
    end.record()
    torch.cuda.synchronize()
    smi.terminate()
    out, _ = smi.communicate()
    samples = []
    for line in out.strip().splitlines():
        f = [x.strip() for x in line.split(",")]
        try:
            samples.append(dict(sm_mhz=float(f[0]), mem_mhz=float(f[1]), power_w=float(f[2]),
                                power_limit_w=float(f[3]), temp_c=float(f[4]), throttle=f[5]))
        except (ValueError, IndexError):
            continue
    # Drop the first samples (ramp-up).
    steady = samples[len(samples) // 4:] or samples

    def med(key):
        v = sorted(s[key] for s in steady)
        return v[len(v) // 2] if v else None

    reasons = {}
    for s in steady:
        reasons[s["throttle"]] = reasons.get(s["throttle"], 0) + 1
    ms = start.elapsed_time(end) / runs
    return dict(tflops=tflops(flop, ms), sm_mhz=med("sm_mhz"), power_w=med("power_w"),
                power_limit_w=med("power_limit_w"), temp_c=med("temp_c"),
                throttle_reasons=reasons, samples=len(steady))


def main():
    path, out = sys.argv[1], sys.argv[2]
    M, N, K = (int(x) for x in sys.argv[3:6]) if len(sys.argv) > 5 else (4096, 4096, 4096)
    seconds = float(sys.argv[6]) if len(sys.argv) > 6 else 4.0
    k = Kernel(path)
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    flop = 2.0 * M * N * K
    rows = new_record("gemm_power", artifacts=os.path.dirname(path) or ".",
                      shape=[M, N, K], kernel=os.path.basename(path))
    rows["tilec"] = sustained(lambda: k(a, b, c, M, N, K, K, N, N), seconds, flop)
    rows["cublas"] = sustained(lambda: torch.matmul(a, b, out=c), seconds, flop)
    rows["tilec_again"] = sustained(lambda: k(a, b, c, M, N, K, K, N, N), seconds, flop)
    print(json.dumps(rows, indent=1))
    write_record(rows, out)


if __name__ == "__main__":
    main()
