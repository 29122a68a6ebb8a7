#!/usr/bin/env python3
"""Compiles the block programs that bench/block_programs.py checks and
times on the GPU machine (no compiler there) into OUT/<chip>/:

  * examples/gemm_block_bf16.mlir (the plain GEMM and nn.Linear's form) as
    written, and schedule variants of each (`<name>__<tag>`) for A/B runs;
  * the attention block program of examples/attention_block_bf16.mlir
    (scripts/common/attention_block_template.py) at head dims 64 and 128, causal
    and not, and schedule variants;
  * the named ops beside them (tile.gemm with row- and column-major B).

Prints each kernel's compile time (tilec, ptxas included) and writes them to
OUT/compile_times.json. sm_80 PTX is assembled for sm_90 (the H200).

    build_block_artifacts.py [--out .gpu/block] [--chips sm_80,sm_90a]
"""

import argparse
import json
import os
import re
import subprocess
import time

from scripts import ROOT
from scripts.harness.records import stamp_commit
from scripts.common.attention_block_template import attention_block_source
from tilec.kernels import attention_source, gemm_source

# tag -> schedule knobs, per chip, applied to every kernel of the examples.
VARIANTS = {
    "sm_90a": {
        "persist": "persistent = true",
        "nopersist": "persistent = false",
        "nows": "warp_specialize = false",
        "sync": "async_wgmma = false",
        "notmastore": "tma_store = false",
        "cpasync": "tma = false",
    },
    "sm_80": {},
}


def kernels_of(src):
    return re.findall(r"^tile\.kernel @(\w+)", src, re.M)


def with_schedule(src, kernel, tag, knobs):
    """``src`` with kernel @kernel renamed <kernel>__<tag> and its schedule
    set to ``knobs`` (merged over the one it has)."""
    start = src.index(f"tile.kernel @{kernel}(")
    end = src.find("\ntile.kernel @", start + 1)
    end = len(src) if end < 0 else end
    text = src[start:end].replace(f"@{kernel}(", f"@{kernel}__{tag}(", 1)
    head, brace, body = text.partition("{\n")
    m = re.search(r"schedule<([^>]*)>", head)
    if m:
        old = dict(kv.split(" = ") for kv in (s.strip() for s in m.group(1).split(",")) if kv)
        new = dict(kv.split(" = ") for kv in (s.strip() for s in knobs.split(",")))
        old.update(new)
        head = head.replace(m.group(0), "schedule<" + ", ".join(f"{k} = {v}" for k, v in old.items()) + ">")
    else:
        head = head.rstrip() + f" schedule<{knobs}> "
    return head + brace + body


# Attention variants, per chip (the GEMM knobs above apply to GEMMs only).
ATTENTION_VARIANTS = {
    "sm_90a": {
        "nows": "warp_specialize = false",
        "cpasync": "tma = false",
        "persist": "persistent = true",
        "nopersist": "persistent = false",
        "notmastore": "tma_store = false",
        "nopingpong": "pingpong = false",
    },
}


# Tile choices a user would tune per chip (as a Triton autotune config
# lists them): on mma.sync chips 64-key blocks over 4 warps (32 query rows a
# warp, so every ldmatrix of K and V feeds two mma.sync) instead of 128-key
# blocks over 8 warps; `s2` also asks for a 2-stage ring.
ATTENTION_TILES = {
    "sm_80": {
        "bn64w4": (dict(block_n=64, warps=4), ""),
        "bn64w4s2": (dict(block_n=64, warps=4), "stages = 2"),
    },
}


def jobs_for(chip):
    jobs = []
    path = os.path.join(ROOT, "examples", "gemm_block_bf16.mlir")
    src = open(path).read()
    jobs.append(("gemm_block_bf16", src))
    for kernel in kernels_of(src):
        for tag, knobs in VARIANTS.get(chip, {}).items():
            jobs.append((f"{kernel}__{tag}", with_schedule(src, kernel, tag, knobs)))
    # The attention block program at head dims 64 and 128:
    # attention_block[_causal]_d<D>[__<tag>].
    for d in (64, 128):
        for causal in (False, True):
            name = f"attention_block{'_causal' if causal else ''}_d{d}"
            jobs.append((name, attention_block_source(d, causal, name)))
            for tag, knobs in ATTENTION_VARIANTS.get(chip, {}).items():
                jobs.append((f"{name}__{tag}",
                             attention_block_source(d, causal, f"{name}__{tag}", knobs)))
            for tag, (tiles, knobs) in ATTENTION_TILES.get(chip, {}).items():
                jobs.append((f"{name}__{tag}",
                             attention_block_source(d, causal, f"{name}__{tag}", knobs,
                                                    **tiles)))
    jobs.append(gemm_source())
    jobs.append(gemm_source(b_layout="col"))
    for d in (64, 128):
        for causal in (False, True):
            jobs.append(attention_source(head_dim=d, causal=causal))
    return jobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu", "block"))
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--chips", default="sm_80,sm_90a")
    args = ap.parse_args()
    srcdir = os.path.join(args.out, "src")
    os.makedirs(srcdir, exist_ok=True)
    times = []
    for chip in args.chips.split(","):
        dst = os.path.join(args.out, chip)
        cubin_arch = "sm_90a" if chip == "sm_90a" else "sm_90"
        for name, src in jobs_for(chip):
            path = os.path.join(srcdir, f"{name}.{chip}.mlir")
            with open(path, "w") as f:
                f.write(src)
            t0 = time.time()
            subprocess.run([args.tilec, path, f"--chip={chip}", f"--cubin-arch={cubin_arch}",
                            "--emit=cubin", "-o", dst], check=True)
            dt = time.time() - t0
            times.append(dict(chip=chip, source=name, seconds=round(dt, 3)))
            print(f"{chip} {name:40s} compiled in {dt:.2f} s", flush=True)
    with open(os.path.join(args.out, "compile_times.json"), "w") as f:
        json.dump(times, f, indent=1)
    stamp_commit(args.out)


if __name__ == "__main__":
    main()
