#!/usr/bin/env python3
"""Compiles the GEMM variants measured on the GPU machine into
.gpu/gemm/<chip>/: every dtype / B layout / output / epilogue combination,
plus configuration ablations of the main kernel. sm_80/sm_89 PTX is assembled
for sm_90 (the H200)."""

import argparse
import itertools
import os
import shutil
import subprocess
import time

from scripts import ROOT
from tilec import _rules
from tilec.kernels import gemm_shape_config, gemm_shape_tag, gemm_source


def variants():
    yield {}
    for dtype, out, layout in itertools.product(("bf16", "f16"), ("same", "f32"), ("row", "col")):
        yield dict(dtype=dtype, out_dtype=dtype if out == "same" else "f32", b_layout=layout)
    for act in ("relu", "gelu", "silu"):
        yield dict(bias=True, activation=act)
    yield dict(alpha=True, beta=True)
    yield dict(out_dtype="f32", b_layout="col", alpha=True, beta=True, bias=True, activation="gelu")


ABLATIONS = {
    "bk64_s3": dict(block_k=64, stages=3),
    "s3": dict(stages=3),
    "s5": dict(stages=5),
    "m256n128": dict(block_m=256, block_n=128),
    "m128n128_w4": dict(block_m=128, block_n=128, warps=4),
    "m128n128_w8": dict(block_m=128, block_n=128, warps=8),
    "g16": dict(group_m=16),
}

# sm_90a: the warp-specialized TMA + wgmma kernel by default; ablations of
# its stages, rasterization and epilogue, and the cp.async + wgmma kernel.
ABLATIONS_SM90A = {
    "s2": dict(stages=2),
    "g16": dict(group_m=16),
    "nows": dict(warp_specialize=0),
    "nows_s3": dict(warp_specialize=0, stages=3),
    # Thread-block clusters with TMA multicast of the shared operand.
    "cm2": dict(cluster_m=2),
    "cn2": dict(cluster_n=2),
    "cm2cn2": dict(cluster_m=2, cluster_n=2),
}

# sm_90a cluster kernels over other layouts, outputs and epilogues (checked
# on more shapes than the ablations: partial cluster tiles, ragged edges).
CLUSTER_VARIANTS_SM90A = [
    ("cm2", dict(b_layout="col"), dict(cluster_m=2)),
    ("cn2", dict(b_layout="col", dtype="f16"), dict(cluster_n=2)),
    ("cm2", dict(out_dtype="f32", bias=True, activation="gelu"), dict(cluster_m=2)),
    ("cn2", dict(alpha=True, beta=True), dict(cluster_n=2)),
    ("cm2cn2", dict(b_layout="col", bias=True, activation="relu"),
     dict(cluster_m=2, cluster_n=2)),
]

# The shape-class variants python/tilec/kernels.py dispatches to.
SHAPE_CLASSES = [(128, 8192, 8192), (512, 4096, 4096)]


def compile_kernels(tilec, srcdir, dst, chip, jobs):
    """Writes each (name, source) of ``jobs`` to SRCDIR/<name>.<chip>.mlir and
    compiles it for ``chip`` into ``dst`` (sm_80-class PTX is assembled for
    the H200's sm_90); returns (chip, name, seconds) per kernel."""
    cubin_arch = "sm_90a" if chip == "sm_90a" else "sm_90"
    times = []
    for name, src in jobs:
        path = os.path.join(srcdir, f"{name}.{chip}.mlir")
        with open(path, "w") as f:
            f.write(src)
        t0 = time.time()
        subprocess.run([tilec, path, f"--chip={chip}", f"--cubin-arch={cubin_arch}",
                        "--emit=cubin", "-o", dst], check=True)
        times.append((chip, name, time.time() - t0))
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu", "gemm"))
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--chips", default="sm_80,sm_89")
    args = ap.parse_args()
    srcdir = os.path.join(args.out, "src")
    os.makedirs(srcdir, exist_ok=True)
    jobs = []
    seen = set()
    for v in variants():
        name, src = gemm_source(**v)
        if name not in seen:
            seen.add(name)
            jobs.append((name, src))
    times = []
    for chip in args.chips.split(","):
        dst = os.path.join(args.out, chip)
        # sm_80 and sm_90a get every variant and their ablations; other chips
        # the main kernel only. sm_80/sm_89 PTX is assembled for sm_90.
        full = chip in ("sm_80", "sm_90a")
        ablations = ABLATIONS_SM90A if chip == "sm_90a" else ABLATIONS
        chip_jobs = list(jobs) if full else jobs[:1]
        if full:
            for tag, cfg in ablations.items():
                chip_jobs.append(gemm_source(config=cfg, name=f"gemm_bf16_bf16_brow_{tag}"))
            for shape in SHAPE_CLASSES:
                cfg = gemm_shape_config(*shape, chip=chip)
                if cfg:
                    chip_jobs.append(gemm_source(
                        config=cfg, name="gemm_bf16_bf16_brow" + gemm_shape_tag(cfg)))
            if chip == "sm_90a":
                for tag, v, cfg in CLUSTER_VARIANTS_SM90A:
                    name, _ = gemm_source(**v)
                    chip_jobs.append(gemm_source(**v, config=cfg, name=f"{name}_{tag}"))
                # Every 16-bit-output variant without the TMA store, for N
                # that is not a multiple of 8.
                cfg = {"tma_store": 0}
                for v in variants():
                    if v.get("out_dtype", v.get("dtype", "bf16")) != "f32":
                        name, _ = gemm_source(**v)
                        chip_jobs.append(gemm_source(**v, config=cfg,
                                                     name=name + gemm_shape_tag(cfg)))
        times += compile_kernels(args.tilec, srcdir, dst, chip, chip_jobs)
    for chip, name, t in times:
        print(f"{chip} {name:48s} compiled in {t:.2f} s")
    # The shape rule gemm_check.py dispatches by, for the GPU machine.
    shutil.copy2(_rules.library_path(), os.path.join(args.out, _rules.LIBRARY_NAME))


if __name__ == "__main__":
    main()
