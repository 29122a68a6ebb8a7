#!/usr/bin/env python3
"""Compiles the attention backward block programs (python/tilec/
backward_kernels.py) that scripts/gpu/attention_backward_check.py checks and
times on the GPU machine (no compiler there) into OUT/<chip>/: bf16 at head
dims 64 and 128, causal and not, each kernel as the package builds it and
in tile variants (`<name>__<tiles>`) for A/B runs, and the atomic mode's
kernels (`__atomic[_<tiles>]`). sm_80 PTX is assembled for sm_90 (the H200). Writes each kernel's
compile time (tilec, ptxas included) to OUT/compile_times.json.

    build_backward_artifacts.py [--out .gpu/backward] [--chips sm_80,sm_90a] [--op]

--op also compiles the named op tile.attention_backward
(python/tilec/backward_op.py): deterministic with dK/dV of K's shape
(expanded), and atomic.
"""

import argparse
import json
import os
import re
import subprocess
import tempfile
import time

from scripts import ROOT
from scripts.harness.records import stamp_commit
from scripts.common import backward_kernels
from tilec import backward_op


#: Tile variants per (chip, head dim) for A/B runs, besides the package's
#: choice (backward_kernels.tiles_for) and that choice with prefetch_rows
#: toggled: on sm_90a the dK/dV kernel at the passes' default register
#: split (40 / 232), which the 240-register choice replaced.
T = backward_kernels.Tiles
TILE_VARIANTS = {
    ("sm_90a", 64): [T(dq_n=128), T(dq_n=128, share_tiles=True)],
    # share_tiles: one TMA copy of the tiles two products read (K in the dQ
    # loop, Q and dO in the dK/dV loop), a ring twice as deep.
    ("sm_90a", 128): [T(), T(dkv_consumer_regs=240, share_tiles=True)],
}


#: The atomic mode's dK/dV/dQ kernel (backward_kernels.atomic_sources) in
#: tile variants per (chip, head dim), besides atomic_tiles_for's choice:
#: one warpgroup of 64 keys, or narrower query steps (the fifth product
#: and the second copy of the keys fit the registers and shared memory).
ATOMIC_TILE_VARIANTS = {
    ("sm_90a", 64): [T(dkv_n=64, dkv_warps=4, dkv_consumer_regs=240)],
    ("sm_90a", 128): [T(dkv_n=64, dkv_warps=4, dkv_consumer_regs=240, dq_add_cols=64),
                      T(dkv_n=64, dkv_warps=4, prefetch_rows=False, dq_add_cols=64),
                      T(dkv_n=64, dkv_warps=4),
                      # Two warpgroups of 32-query steps: its TMA ring left
                      # no room for the cp.async ring of the mma.sync dots
                      # until tile-tma-pipeline reserved it (4 stages).
                      T(dkv_m=32),
                      # Two warpgroups of 64 keys each: dS K (64 queries) on
                      # wgmma with the warpgroups splitting dQ's columns.
                      T(dq_add_cols=128),
                      T(dq_add_cols=128, dkv_consumer_regs=240),
                      # ... with one copy of K (dS K reads the keys' copy)
                      # and of Q and dO: the ring fits (2 stages of 64 KB
                      # did not, so the loads stayed the threads').
                      T(dq_add_cols=128, share_tiles=True),
                      T(dq_add_cols=128, dkv_consumer_regs=240, share_tiles=True)],
    ("sm_80", 64): [T(dkv_n=64, dkv_m=64, dkv_warps=4)],
    ("sm_80", 128): [T(dkv_n=64, dkv_m=64, dkv_warps=4), T(dkv_n=64, dkv_m=32, dkv_warps=4)],
}


def _renamed(src, suffix):
    return re.sub(r"^tile\.kernel @(\w+)\(",
                  lambda m: f"tile.kernel @{m.group(1)}{suffix}(", src, flags=re.M)


def variants(chip, d, causal):
    """(suffix, source) of the package's kernels and of each tile variant
    (`<name>__<tiles>`), and of the atomic mode's kernels
    (`<atomic name>__atomic[_<tiles>]`)."""
    default = backward_kernels.tiles_for(chip, d)
    out = [("", backward_kernels.source("bf16", d, causal, tiles=default)[1])]
    toggled = default._replace(prefetch_rows=not default.prefetch_rows)
    for tiles in [toggled] + TILE_VARIANTS.get((chip, d), []):
        if tiles == default:
            continue
        suffix = "__" + tiles.tag()
        _, src = backward_kernels.source("bf16", d, causal, tiles=tiles)
        out.append((suffix, _renamed(src, suffix)))
    atomic = backward_kernels.atomic_tiles_for(chip, d)
    for tiles in [atomic] + ATOMIC_TILE_VARIANTS.get((chip, d), []):
        if tiles == atomic and out[-1][0].startswith("__atomic"):
            continue
        suffix = "__atomic" + ("" if tiles == atomic else "_" + tiles.tag())
        src = "\n".join(s for _, s in backward_kernels.atomic_sources("bf16", d, causal,
                                                                       tiles=tiles))
        out.append((suffix, _renamed(src, suffix)))
    return out


def op_sources(d, causal):
    """(suffix, source) of the named op's kernels (their stage kernels are
    named by backward_op.stage_names)."""
    return [(suffix, backward_op.source("bf16", d, causal, atomic, expanded)[1])
            for suffix, atomic, expanded in (("__op", False, True),
                                             ("__op_mha", False, False),
                                             ("__op_atomic", True, False))
            if not atomic or d in backward_op.ATOMIC_HEAD_DIMS]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu", "backward"))
    ap.add_argument("--chips", default="sm_80,sm_90a")
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--op", action="store_true", help="also tile.attention_backward's kernels")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    stamp_commit(args.out)
    times, found = {}, {}
    for chip in args.chips.split(","):
        arch = "sm_90" if chip in ("sm_80", "sm_89") else chip
        # (Head dim 256: the op's kernels only.)
        for d in backward_op.HEAD_DIMS if args.op else backward_kernels.HEAD_DIMS:
            for causal in (False, True):
                text = variants(chip, d, causal) if d in backward_kernels.HEAD_DIMS else []
                for suffix, src in text + (op_sources(d, causal) if args.op else []):
                    found.setdefault(f"{chip}/d{d}", set()).add(suffix)
                    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
                        f.write(src)
                    t0 = time.time()
                    run = subprocess.run([args.tilec, f.name, f"--chip={chip}",
                                          f"--cubin-arch={arch}", "--emit=cubin", "-o",
                                          os.path.join(args.out, chip)])
                    if run.returncode != 0:
                        print(f"{chip}/d{d}{suffix}: FAILED (left out)", flush=True)
                        found[f"{chip}/d{d}"].discard(suffix)
                        continue
                    dt = time.time() - t0
                    os.unlink(f.name)
                    key = f"{chip}/" + ",".join(re.findall(r"^tile\.kernel @(\w+)", src, re.M))
                    times[key] = round(dt, 3)
                    print(f"{key}: {dt:.2f} s", flush=True)
    with open(os.path.join(args.out, "compile_times.json"), "w") as f:
        json.dump(times, f, indent=1)
    with open(os.path.join(args.out, "variants.json"), "w") as f:
        json.dump({key: sorted(v) for key, v in found.items()}, f, indent=1)


if __name__ == "__main__":
    main()
