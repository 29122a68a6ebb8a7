#!/usr/bin/env python3
"""tile.gemm's batch-reduce form (C = alpha-less sum_b A[b] B[b] + beta C,
what tile-from-linalg makes of linalg.batch_reduce_matmul) on the GPU.

    python3 -m scripts.gpu.batch_reduce_check build DIR [--tilec T]  # here: compile the kernels
    python3 -m scripts.gpu.batch_reduce_check run DIR                # GPU: check them against torch

Kernels: bf16 in, bf16 or f32 out, B row- or column-major, with and
without beta, for sm_90a and sm_80 (assembled for sm_90). Checks: random
inputs, odd sizes (rows padded to 16 bytes), C poisoned with NaN where it
is not read, a float32 reference (the batch's products summed, then the
epilogue) by the Frobenius relative error (scripts/harness: rms_err); one
large shape timed against torch's A.bmm(B).sum(0) and its einsum in
alternating rounds (scripts/harness/timing.py). Writes
$OUT/batch_reduce_check.json. The bundle (``make gpu-artifacts``) builds
DIR as .gpu/bundle/batch_reduce."""
import argparse
import os
import subprocess
import sys

from scripts import ROOT
CHIPS = {"sm_90a": "sm_90a", "sm_80": "sm_90"}
VARIANTS = [("bf16", "row", False), ("bf16", "col", False), ("bf16", "row", True),
            ("f32", "col", True)]
SHAPES = [(3, 127, 255, 61), (5, 257, 129, 200), (1, 64, 64, 64), (16, 1000, 777, 100),
          (7, 33, 4097, 250), (2, 2048, 2048, 1024)]


def source(out, b_layout, beta):
    name = f"batch_reduce_{out}_b{b_layout}" + ("_beta" if beta else "")
    b_strides, b_type = ("%sb, %ldb, 1", "?, ?, 1") if b_layout == "row" else ("%sb, 1, %ldb", "?, 1, ?")
    params = ["%A: !tile.ptr<bf16>", "%B: !tile.ptr<bf16>", f"%C: !tile.ptr<{out}>"]
    params += ["%beta: f32"] if beta else []
    params += ["%batch: i32", "%M: i32", "%N: i32", "%K: i32", "%lda: i32", "%ldb: i32",
               "%ldc: i32", "%sa: i32", "%sb: i32"]
    return name, f"""tile.kernel @{name}({', '.join(params)}) {{
  %a = tile.make_view %A[%batch, %M, %K] strides [%sa, %lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%batch, %K, %N] strides [{b_strides}] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<{out}>
  tile.gemm %a, %b, %c{' beta(%beta)' if beta else ''} : !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [{b_type}]>, !tile.view<?x?x{out}, strides = [?, 1]>
  tile.return
}}
"""


def build(out, tilec=None):
    from scripts.harness.records import stamp_commit
    tilec = tilec or os.path.join(ROOT, "build", "bin", "tilec")
    for chip, arch in CHIPS.items():
        d = os.path.join(out, chip)
        os.makedirs(d, exist_ok=True)
        for out_t, layout, beta in VARIANTS:
            name, src = source(out_t, layout, beta)
            path = os.path.join(d, name + ".mlir")
            with open(path, "w") as f:
                f.write(src)
            subprocess.run([tilec, path, f"--chip={chip}", f"--cubin-arch={arch}",
                            "--emit=cubin", "-o", d], check=True)
            print(chip, name)
    stamp_commit(out)
    return 0


def padded(torch, *shape, dtype):
    """A tensor of `shape` whose last dimension's rows start on 16 bytes."""
    from scripts.harness import tensors
    quantum = 16 // dtype.itemsize
    return tensors.randn(shape[:-1] + (tensors.round_up(shape[-1], quantum),),
                         dtype)[..., :shape[-1]]


def run(out):
    import torch
    from scripts.harness import references as ref
    from scripts.harness import tensors
    from scripts.harness.records import new_record, tflops, write_record
    from scripts.harness.timing import time_rounds
    from tilec.runtime import Kernel
    torch.manual_seed(5)
    cases, ok = [], True
    for chip in CHIPS:
        for out_t, layout, beta in VARIANTS:
            name, _ = source(out_t, layout, beta)
            kern = Kernel(os.path.join(out, chip, name + ".json"))
            odt = torch.float32 if out_t == "f32" else torch.bfloat16
            for batch, m, n, k in SHAPES:
                a = padded(torch, batch, m, k, dtype=torch.bfloat16)
                if layout == "row":
                    b = padded(torch, batch, k, n, dtype=torch.bfloat16)
                    ldb = b.stride(1)
                else:
                    b = padded(torch, batch, n, k, dtype=torch.bfloat16).transpose(1, 2)
                    ldb = b.stride(2)
                c = padded(torch, m, n, dtype=odt)
                c0 = c.clone()
                if not beta:
                    tensors.poison_(c)
                args = [a, b, c] + ([0.5] if beta else [])
                args += [batch, m, n, k, a.stride(1), ldb, c.stride(0), a.stride(0), b.stride(0)]
                kern(*args)
                torch.cuda.synchronize()
                want = ref.epilogue(ref.gemm(a, b).sum(0), beta=0.5 if beta else None, c=c0)
                err = ref.rms_err(c, want)
                good = err < 1e-2 and tensors.unwritten(c) == 0
                ok &= good
                cases.append({"chip": chip, "kernel": name, "shape": [batch, m, n, k],
                              "rel_err": err, "ok": good})
                print(chip, name, (batch, m, n, k), f"{err:.2e}", "ok" if good else "WRONG",
                      flush=True)
    # Speed: 16 x (4096 x 4096 x 512), bf16, sm_90a.
    batch, m, n, k = 16, 4096, 4096, 512
    kern = Kernel(os.path.join(out, "sm_90a", source("bf16", "row", False)[0] + ".json"))
    a = torch.randn(batch, m, k, device="cuda").bfloat16()
    b = torch.randn(batch, k, n, device="cuda").bfloat16()
    c = torch.empty(m, n, device="cuda").bfloat16()
    runs = {"tilec": lambda: kern(a, b, c, batch, m, n, k, k, n, n, m * k, k * n),
            "torch_bmm_sum": lambda: a.bmm(b).sum(0),
            "torch_einsum": lambda: torch.einsum("bmk,bkn->mn", a, b)}
    ms = time_rounds(runs, rounds=5)
    speed = {name: tflops(2 * batch * m * n * k, t) for name, t in ms.items()}
    print("speed 16 x 4096 x 4096 x 512:", {n: round(v) for n, v in speed.items()})
    record = new_record("batch_reduce_check", artifacts=out,
                        cases=cases, passed=sum(x["ok"] for x in cases), total=len(cases),
                        speed={"shape": [batch, m, n, k], "tflops": speed})
    write_record(record, os.path.join(os.environ.get("OUT", "."), "batch_reduce_check.json"))
    print(f"{record['passed']}/{record['total']} correct")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("build", "run"))
    ap.add_argument("dir", help="the kernels' folder (build: written; run: read)")
    ap.add_argument("--tilec", help="build: the compiler (default build/bin/tilec)")
    args = ap.parse_args()
    return build(args.dir, args.tilec) if args.mode == "build" else run(args.dir)


if __name__ == "__main__":
    sys.exit(main())
