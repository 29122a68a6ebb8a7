#!/usr/bin/env python3
"""Issue 19's proof that the host side runs: the frontend modules of examples/host/ (a layer with a
fused bias+ReLU and a host-side tanh, a batch_matmul, the attention pattern, a matmul pair on
memrefs, a residual add and compare-select ReLU fused into the GEMM, a batch_reduce_matmul
accumulating into a caller's tensor, matmuls on strided windows of larger buffers) compiled by
`tilec --emit=host` into host programs that launch their kernels, run on the GPU, checked against
double-precision references.

  build (here, needs LLVM):  python3 -m scripts.gpu.host_e2e_check build [--out .gpu/host]
      per chip (sm_90a; sm_80 PTX assembled for sm_90): tilec --emit=host -> <module>.host.ll,
      llc-22 -> .o, g++ with examples/host/<module>_main.cpp, libtilec-host-runtime.so and
      libcuda (the toolkit's stub) -> an executable; the runtime library is copied beside it.
  run (on the GPU machine):  python3 -m scripts.gpu.host_e2e_check run [--out .gpu/host] [--json F]
      runs every executable with TILEC_HOST_POISON=1 (the host code's allocations, the outputs
      included, start as NaN), collects their JSON lines, writes F (a record of
      scripts/harness/records.py).
  The bundle (`make gpu-artifacts`) builds the executables as .gpu/bundle/host (when llc-22,
  g++ and CUDA's libcuda stub are there).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from scripts import ROOT
from scripts.harness.records import new_record, stamp_commit, write_record

MODULES = ("mlp", "batch_matmul", "attention", "matmul_memref", "residual", "batch_reduce",
           "matmul_strided")
CHIPS = (("sm_90a", None), ("sm_80", "sm_90"))


def sh(cmd):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def build(out, build_dir=None):
    llc = shutil.which("llc-22") or "/usr/lib/llvm-22/bin/llc"
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    build_dir = build_dir or os.path.join(ROOT, "build")
    tilec = os.path.join(build_dir, "bin/tilec")
    lib = os.path.join(build_dir, "lib")
    for chip, cubin_arch in CHIPS:
        d = os.path.join(out, chip)
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(lib, "libtilec-host-runtime.so"), d)
        for m in MODULES:
            cmd = [tilec, os.path.join(ROOT, "examples/host", m + ".mlir"), "--chip=" + chip,
                   "--emit=host", "-o", d]
            if cubin_arch:
                cmd.append("--cubin-arch=" + cubin_arch)
            sh(cmd)
            ll = os.path.join(d, m + ".host.ll")
            obj = os.path.join(d, m + ".o")
            sh([llc, "-O2", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj])
            sh(["g++", "-O2", "-std=c++17", "-I", os.path.join(ROOT, "include"),
                os.path.join(ROOT, "examples/host", m + "_main.cpp"), obj,
                "-L", d, "-ltilec-host-runtime", "-L", os.path.join(cuda, "lib64/stubs"),
                "-lcuda", "-Wl,-rpath,$ORIGIN", "-o", os.path.join(d, m)])
    stamp_commit(out)


def run(out, path):
    results, ok = [], True
    env = dict(os.environ, TILEC_HOST_POISON="1")
    for chip, _ in CHIPS:
        for m in MODULES:
            exe = os.path.join(out, chip, m)
            p = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=300)
            line = next((l for l in p.stdout.splitlines() if l.startswith("{")), None)
            r = json.loads(line) if line else {"module": m, "ok": False}
            r.update(chip=chip, exit_code=p.returncode)
            if p.stderr.strip():
                r["stderr"] = p.stderr.strip()[-2000:]
            r["ok"] = bool(r.get("ok")) and p.returncode == 0
            ok &= r["ok"]
            results.append(r)
            print(chip, m, r.get("max_rel_err"), "ok" if r["ok"] else "FAIL", flush=True)
    # The commit: $TILEC_COMMIT (the caller's: the GPU machine's copy of the
    # tree may carry a stale .git), else the build's stamp, else the checkout's.
    doc = new_record("host_e2e_check", artifacts=out,
                     what="tilec --emit=host programs of examples/host/*.mlir run end to end "
                          "(outputs poisoned with NaN; double-precision references)",
                     results=results, all_ok=ok)
    if not doc["gpu"]:  # (torch's name; nvidia-smi's without torch)
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip().splitlines()
        doc["gpu"] = gpu[0] if gpu else None
    if path:
        write_record(doc, path)
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("step", choices=("build", "run"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu/host"))
    ap.add_argument("--json", default=None)
    ap.add_argument("--build-dir", default=None, help="build: tilec's build (default build/)")
    a = ap.parse_args()
    if a.step == "build":
        build(a.out, a.build_dir)
        return 0
    return run(a.out, a.json)


if __name__ == "__main__":
    sys.exit(main())
