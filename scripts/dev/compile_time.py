#!/usr/bin/env python3
"""Measures compile time to cubin of corpus/*.mlir and examples/*.mlir (the
bounds of issue 52: 1.0 s on sm_90a, 1.5 s on sm_80 on the 2-core machine).

    compile_time.py [--tilec build/bin/tilec] [--base /tmp/bin-base/tilec]
        [--chips sm_90a,sm_80] [--runs 3] [--only SUBSTRING] [--json OUT]

Each run is `tilec FILE --chip=C --emit=cubin -o DIR --timing`; it records
the wall time, the CPU time of tilec and its ptxas children (user + system,
from wait4's rusage) and the top-level rows of the --timing report (parse,
passes, LLVM, ptxas; their wall column). With --base, the base binary and
the new one run alternately (A B A B ...), so that load from other work on
the machine falls on both; the record keeps the median of each.
"""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from _paths import ROOT  # noqa: E402  (puts the checkout on sys.path)

#: Top-level rows of the --timing report, by the start of their name.
ROWS = {"parse": "parse", "passes": "passes", "llvm": "LLVM:", "ptxas": "ptxas"}


def parse_timing(text):
    """The wall seconds of the top-level rows of a --timing report."""
    out = {}
    for line in text.splitlines():
        # "    0.1928 ( 22.7%)  passes ..." or, with threads, user and wall
        # columns: the last number before the name is the wall time.
        m = re.match(r"^((?:\s+[0-9.]+ \(\s*[0-9.]+%\))+)  (\S.*)$", line)
        if not m:
            continue
        name = m.group(2)
        nums = re.findall(r"([0-9.]+) \(", m.group(1))
        for key, prefix in ROWS.items():
            if name.startswith(prefix) and key not in out:
                out[key] = float(nums[-1])
    return out


def run_once(tilec, path, chip):
    """One compile: wall, cpu (tilec + ptxas) and the --timing rows."""
    with tempfile.TemporaryDirectory() as out:
        start = time.monotonic()
        p = subprocess.Popen([tilec, path, f"--chip={chip}", "--emit=cubin",
                              "-o", out, "--timing"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
    rec = {"ok": p.returncode == 0, "wall": wall,
           "cpu": ru.ru_utime + ru.ru_stime}
    rec.update(parse_timing(err))
    return rec


def median_of(runs):
    """Per field, the median over `runs`."""
    keys = [k for k in runs[0] if k != "ok"]
    med = {k: round(statistics.median(r.get(k, 0.0) for r in runs), 3)
           for k in keys}
    med["ok"] = all(r["ok"] for r in runs)
    return med


def programs(only):
    paths = sorted(glob.glob(os.path.join(ROOT, "corpus", "*.mlir")) +
                   glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
    return [p for p in paths if not only or only in p]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--base", help="a second tilec, run alternately")
    ap.add_argument("--chips", default="sm_90a,sm_80")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", help="programs whose path contains this")
    ap.add_argument("--json", help="write the records here")
    args = ap.parse_args()
    binaries = {"new": args.tilec}
    if args.base:
        binaries = {"base": args.base, "new": args.tilec}
    records = []
    for path in programs(args.only):
        rel = os.path.relpath(path, ROOT)
        kernels = len(re.findall(r"^\s*tile\.kernel\b", open(path).read(), re.M))
        for chip in args.chips.split(","):
            runs = {k: [] for k in binaries}
            for _ in range(args.runs):
                for key, binary in binaries.items():
                    runs[key].append(run_once(binary, path, chip))
            rec = {"program": rel, "chip": chip, "kernels_in_source": kernels}
            for key in binaries:
                rec[key] = median_of(runs[key])
            records.append(rec)
            cols = "  ".join(
                f"{k}: wall {rec[k]['wall']:.2f} cpu {rec[k]['cpu']:.2f} "
                f"(passes {rec[k].get('passes', 0):.2f} llvm "
                f"{rec[k].get('llvm', 0):.2f} ptxas {rec[k].get('ptxas', 0):.2f})"
                + ("" if rec[k]["ok"] else " FAILED")
                for k in binaries)
            print(f"{rel:48s} {chip:7s} {cols}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
