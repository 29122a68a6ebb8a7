#!/usr/bin/env python3
"""Compiles the corpus of user programs (corpus/*.mlir) for the GPU machine,
which has no compiler: every program for sm_90a (cubin for sm_90a) and for
sm_80 (PTX assembled for sm_90, so that the mma.sync path runs on Hopper),
into OUT/<chip>/<kernel>.{json,cubin,ptx}. bench/corpus.py loads them.

A chip named `<chip>_fast` (e.g. sm_90a_fast) compiles for <chip> with
`--fast-math` (Triton's float semantics: `/` is div.full, exp ex2.approx),
into OUT/<chip>_fast/. A `_spec` suffix (sm_90a_fast_spec) adds the
specialization Triton makes of every integer argument that is a multiple of
16: each i32 parameter without a hint gets {tile.divisibility = 16}. Such a
kernel serves only calls whose integers are multiples of 16 (its launcher
refuses the others); bench/corpus.py falls back to the kernel without the
suffix then, as Triton compiles a second specialization. A `_base` suffix
last (sm_90a_fast_base) compiles with the compiler given by --base-tilec
instead: an A/B of two builds of tilec in one GPU run.

A program that does not compile is recorded, not fatal: OUT/build.json
holds, per chip and program, whether it compiled, the first error line and
the compile time (tilec and ptxas). OUT/commit.txt stamps the commit.

    build_corpus_artifacts.py [--out .gpu/corpus] [--tilec build/bin/tilec]
                              [--chips sm_90a,sm_90a_fast,sm_80] [--only NAME,...] [--jobs 2]
                              [--base-tilec OLD/bin/tilec]
"""

import argparse
import concurrent.futures as cf
import json
import os
import re
import subprocess
import time

from scripts import ROOT
from scripts.harness.records import stamp_commit
from scripts.dev.corpus_schedules import first_error, programs

#: ptxas target of each chip's cubin on the Hopper GPU machine.
CUBIN_ARCH = {"sm_90a": "sm_90a", "sm_80": "sm_90", "sm_89": "sm_90"}


#: An i32 parameter without attributes: `%name: i32` not followed by `{`.
_PLAIN_I32 = re.compile(r"(%[\w$.-]+\s*:\s*i32)(?!\s*\{)")


def specialize_kernels(text):
    """`text` with {tile.divisibility = 16} on every i32 parameter of every
    tile.kernel that has no attributes (Triton's specialization of integers
    divisible by 16). A signature ends at the `{` that opens the body (at
    the end of its line)."""
    out, at = [], 0
    for m in re.finditer(r"tile\.kernel @", text):
        if m.start() < at:
            continue
        end = text.index("{\n", m.start())
        out.append(text[at:m.start()])
        out.append(_PLAIN_I32.sub(r"\1 {tile.divisibility = 16 : i64}", text[m.start():end]))
        at = end
    out.append(text[at:])
    return "".join(out)


def compile_one(tilec, path, chip, out, base_tilec=None):
    """Compiles one program for one chip; returns its build.json record."""
    t0 = time.time()
    if chip.endswith("_base"):
        tilec = base_tilec
    target = chip.removesuffix("_base").removesuffix("_spec").removesuffix("_fast")
    flags = ["--fast-math"] if "_fast" in chip else []
    source = path
    if chip.removesuffix("_base").endswith("_spec"):
        with open(path) as f:
            text = f.read()
        source = os.path.join(out, chip, os.path.basename(path))
        with open(source, "w") as f:
            f.write(specialize_kernels(text))
    proc = subprocess.run([tilec, source, f"--chip={target}", f"--cubin-arch={CUBIN_ARCH[target]}",
                           "--emit=cubin", "-o", os.path.join(out, chip)] + flags,
                          capture_output=True, text=True)
    record = dict(ok=proc.returncode == 0, seconds=round(time.time() - t0, 3))
    if proc.returncode:
        record["error"] = first_error(proc.stderr, proc.returncode)
    return record


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu", "corpus"))
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--chips", default="sm_90a,sm_90a_fast,sm_90a_fast_spec,sm_80")
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--base-tilec", help="the compiler of the chips named <chip>_base "
                    "(an A/B against an older build)")
    args = ap.parse_args()
    chips = args.chips.split(",")
    if any(c.endswith("_base") for c in chips) and not args.base_tilec:
        ap.error("a <chip>_base needs --base-tilec")
    for chip in chips:
        os.makedirs(os.path.join(args.out, chip), exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    paths = [p for p in programs() if not only or os.path.basename(p)[:-5] in only]
    jobs = [(p, c) for p in paths for c in chips]
    build = {c: {} for c in chips}
    with cf.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {pool.submit(compile_one, args.tilec, p, c, args.out, args.base_tilec): (p, c) for p, c in jobs}
        for fut in cf.as_completed(futures):
            path, chip = futures[fut]
            name = os.path.basename(path)[:-5]
            record = build[chip][name] = fut.result()
            status = "ok" if record["ok"] else "FAILS: " + record["error"]
            print(f"{chip} {name:28s} {record['seconds']:6.2f} s  {status}", flush=True)
    for chip in chips:
        build[chip] = dict(sorted(build[chip].items()))
    with open(os.path.join(args.out, "build.json"), "w") as f:
        json.dump(build, f, indent=1)
    stamp_commit(args.out)
    failed = sum(not r["ok"] for c in build.values() for r in c.values())
    print(f"{len(jobs) - failed}/{len(jobs)} compiled; see {os.path.join(args.out, 'build.json')}")


if __name__ == "__main__":
    main()
