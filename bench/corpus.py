#!/usr/bin/env python3
"""The corpus of user programs (corpus/, issue 51) on the GPU: every entry's
tilec kernels beside its Triton twin and torch's own op.

Kernels come from scripts/build/build_corpus_artifacts.py (this machine has no
compiler): OUT/sm_90a and OUT/sm_80 (the mma.sync path, assembled for
sm_90). Each entry (corpus/<name>.py) is run in isolation, so that one
failure does not stop the others:

* correctness: on the entry's odd-size CASES, tilec (each chip) and the
  Triton twin write into NaN-poisoned outputs from never-zero inputs, and
  each output is compared with the float64 reference by its largest error
  relative to the reference's largest magnitude (bound: the entry's TOL);
* speed: on its BENCH shapes, tilec, the twin and torch's anchor are timed
  in alternating rounds (CUDA events, the median of per-round medians:
  bench/block_programs.py's ``time_rounds``), reported as TFLOP/s or GB/s
  with the ratios tilec / Triton and tilec / torch.

One JSON (OUT/corpus.json: date, GPU, commit, per entry its shapes,
errors, numbers and ratios) and a log (OUT/corpus.log). A kernel that
faults loses the process's CUDA context: the entries after it then run in
a fresh process (the script again, with the results so far), so that one
fault costs one entry.

    python3 -m bench.corpus --out OUT [--artifacts .gpu/corpus] [--only NAME,...]
                    [--quick] [--rounds N] [--chips sm_90a,sm_80]
"""

import argparse
import glob
import importlib
import json
import os
import sys
import time
import traceback

from scripts import ROOT

import torch

from scripts.harness.records import new_record, open_log
from scripts.harness.timing import time_rounds
from tilec.runtime import Kernel, LaunchError


def entry_names():
    """The corpus entries: corpus/*.py but the shared helpers."""
    names = (os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "corpus", "*.py")))
    return sorted(n for n in names if n not in ("common", "__init__"))


def short(exc):
    """One line for an exception: its type and first message line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


def load_entry(name):
    """corpus/<name>.py as the module ``corpus.<name>`` (registered in
    sys.modules under that name, which torch.compile, FlexAttention's
    anchor, needs to import the functions it traces)."""
    return importlib.import_module(f"corpus.{name}")


class Specialized:
    """A kernel specialized on integers divisible by 16 (a `_spec` build),
    and the one without that specialization for the calls that break it,
    as Triton keeps a specialization per argument property."""

    def __init__(self, special, generic):
        self.special, self.generic = special, generic

    def __call__(self, *args, **kwargs):
        try:
            return self.special(*args, **kwargs)
        except LaunchError:
            return self.generic(*args, **kwargs)


def load_kernels(art, chip, name, mod, build):
    """{kernel name: Kernel} of an entry for one chip, or the reason there
    is none (the compile error recorded by the build)."""
    record = build.get(chip, {}).get(name)
    if record is not None and not record["ok"]:
        return None, "not built: " + record["error"]
    kernels = {}
    for k in mod.KERNELS:
        path = os.path.join(art, chip, k + ".json")
        if not os.path.exists(path):
            return None, f"not built: no {chip}/{k}.json"
        kernels[k] = Kernel(path)
        if chip.endswith("_spec"):
            generic = os.path.join(art, chip.removesuffix("_spec"), k + ".json")
            if not os.path.exists(generic):
                return None, f"not built: no {chip.removesuffix('_spec')}/{k}.json"
            kernels[k] = Specialized(kernels[k], Kernel(generic))
    return kernels, None


def implementations(mod, kernels):
    """{label: run(io)} for the tilec chips that have kernels and the twin."""
    impls = {f"tilec_{chip}": (lambda io, k=k: mod.run_tilec(k, io)) for chip, k in kernels.items()}
    impls["triton"] = mod.run_triton
    return impls


def check_entry(mod, impls, cases, log):
    """Correctness rows: one per case and implementation."""
    from corpus.common import rel_err  # imports Triton, as the entries do
    rows = []
    for i, shape in enumerate(cases):
        seed = 1000 + i
        try:
            refs = mod.reference(mod.make_inputs(shape, seed))
        except Exception as exc:  # noqa: BLE001 - recorded, the entry goes on
            rows.append(dict(shape=list(shape), impl="reference", ok=False, error=short(exc)))
            continue
        for label, fn in impls.items():
            row = dict(shape=list(shape), impl=label)
            try:
                outs = fn(mod.make_inputs(shape, seed))
                torch.cuda.synchronize()
                errs = [rel_err(o, r) for o, r in zip(outs, refs)]
                row.update(max_rel_err=max(errs), per_output=errs,
                           ok=bool(len(outs) == len(refs) and max(errs) <= mod.TOL))
            except Exception as exc:  # noqa: BLE001
                row.update(ok=False, error=short(exc))
                torch.cuda.synchronize()
            rows.append(row)
            if not row["ok"]:
                why = row["error"] if "error" in row else f"error {row['max_rel_err']:.3g}"
                log(f"  FAIL {label} {shape}: {why}")
    return rows


def metric(mod, shape):
    """(unit, amount of work of one call at ``shape``)."""
    if hasattr(mod, "flops"):
        return "TFLOP/s", mod.flops(shape) / 1e12
    return "GB/s", mod.bytes_moved(shape) / 1e9


def bench_entry(mod, impls, shapes, rounds, log):
    """Speed rows: one per shape, every implementation that runs."""
    rows = []
    for shape in shapes:
        io = mod.make_inputs(shape, 7)
        fns, errors = {}, {}
        for label, fn in list(impls.items()) + [("torch", mod.run_torch)]:
            try:  # a first call compiles (Triton, torch.compile) and must work
                fn(io)
                torch.cuda.synchronize()
                fns[label] = lambda fn=fn, io=io: fn(io)
            except Exception as exc:  # noqa: BLE001
                errors[label] = short(exc)
                torch.cuda.synchronize()
        unit, work = metric(mod, shape)
        row = dict(shape=list(shape), unit=unit, errors=errors)
        if fns:
            ms = time_rounds(fns, rounds)
            row["ms"] = ms
            row["perf"] = {k: work / (v * 1e-3) for k, v in ms.items()}
            perf = row["perf"]
            for label in [k for k in perf if k.startswith("tilec_")]:
                chip = label.removeprefix("tilec_")
                mine = perf[label]
                for other in ("triton", "torch"):
                    if mine and perf.get(other):
                        row[f"tilec_{chip}_vs_{other}"] = mine / perf[other]
        rows.append(row)
        log(f"  {shape}: " + ", ".join(f"{k} {v:.1f} {unit}" for k, v in row.get("perf", {}).items())
            + "".join(f"; {k}: {v}" for k, v in errors.items()))
        fns.clear()
        del io
        torch.cuda.empty_cache()
    return rows


def run_entry(name, args, chips, build, log):
    """One entry, isolated: its record for the JSON."""
    t0 = time.time()
    record = dict(name=name)
    try:
        mod = load_entry(name)
        kernels, skipped = {}, {}
        doc = (mod.__doc__ or "").strip().split("\n\n")[0]
        record["about"] = " ".join(doc.split())
        for chip in chips:
            ks, why = load_kernels(args.artifacts, chip, name, mod, build)
            if ks is None:
                skipped[chip] = why
                log(f"  {chip}: {why}")
            else:
                kernels[chip] = ks
        record["skipped"] = skipped
        impls = implementations(mod, kernels)
        cases = mod.CASES[:2] if args.quick else mod.CASES
        shapes = mod.BENCH[:1] if args.quick else mod.BENCH
        record["tolerance"] = mod.TOL
        record["correctness"] = check_entry(mod, impls, cases, log)
        record["bench"] = bench_entry(mod, impls, shapes, args.rounds, log)
    except Exception as exc:  # noqa: BLE001
        record["error"] = short(exc)
        record["traceback"] = traceback.format_exc()
        log(f"  ERROR {short(exc)}")
    record["seconds"] = round(time.time() - t0, 1)
    return record


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", default=os.path.join(ROOT, ".gpu", "corpus"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated entry names")
    ap.add_argument("--quick", action="store_true", help="two cases, one shape, 3 rounds")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--chips", default="sm_90a,sm_90a_fast,sm_90a_fast_spec,sm_80")
    ap.add_argument("--resume", help=argparse.SUPPRESS)  # see continue_elsewhere
    args = ap.parse_args()
    chips = args.chips.split(",")
    if args.quick:
        args.rounds = min(args.rounds, 3)
    log = open_log(args.out, "corpus.log", "a" if args.resume else "w")
    build_path = os.path.join(args.artifacts, "build.json")
    build = json.load(open(build_path)) if os.path.exists(build_path) else {}
    result = json.load(open(args.resume)) if args.resume else new_result(args)
    only = set(filter(None, args.only.split(",")))
    names = [n for n in entry_names() if (not only or n in only) and n not in result["entries"]]
    unknown = only - set(entry_names())
    if unknown:
        log(f"unknown entries: {', '.join(sorted(unknown))}")
    for i, name in enumerate(names):
        log(f"{name}")
        result["entries"][name] = rec = run_entry(name, args, chips, build, log)
        bad = [r for r in rec.get("correctness", []) if not r["ok"]]
        log(f"  done in {rec['seconds']} s, {len(bad)} correctness failures"
            + (f", error: {rec['error']}" if "error" in rec else ""))
        if not cuda_healthy():
            rec["cuda_context_lost"] = True
            continue_elsewhere(args, result, names[i + 1:], log)
    result["seconds"] = round(time.time() - result["started"], 1)
    result["summary"] = summarize(result["entries"])
    with open(os.path.join(args.out, "corpus.json"), "w") as f:
        json.dump(result, f, indent=1)
    log(json.dumps(result["summary"], indent=1))
    return 1 if result["summary"]["correctness_failures"] else 0


def new_result(args):
    """The JSON's header: date, GPU, versions, the artifacts' commit."""
    result = new_record("corpus", artifacts=args.artifacts,
                        quick=args.quick, rounds=args.rounds, started=time.time(), entries={})
    try:
        import triton
        result["triton"] = triton.__version__
    except ImportError:
        pass
    return result


def cuda_healthy():
    """False once a kernel has faulted: the CUDA context is lost for good."""
    try:
        torch.ones(1, device="cuda").add_(1)
        torch.cuda.synchronize()
        return True
    except Exception:  # noqa: BLE001
        return False


def continue_elsewhere(args, result, rest, log):
    """After a fault the process cannot launch again: the remaining entries
    run in a fresh process (this script, --resume with the results so far),
    which writes the JSON."""
    if not rest:
        return
    partial = os.path.join(args.out, "corpus.partial.json")
    with open(partial, "w") as f:
        json.dump(result, f)
    log(f"  the CUDA context is lost (a kernel faulted); {len(rest)} entries go on in a new process")
    # `python3 -m bench.corpus` from the root (the paths made absolute first).
    argv = [sys.executable, "-m", "bench.corpus", "--artifacts", os.path.abspath(args.artifacts),
            "--out", os.path.abspath(args.out), "--rounds", str(args.rounds), "--chips",
            args.chips, "--resume", os.path.abspath(partial),
            "--only", ",".join(rest)]
    os.chdir(ROOT)
    os.execv(sys.executable, argv + (["--quick"] if args.quick else []))


def summarize(entries):
    """Counts over the run, and the geometric mean of each ratio."""
    fails = [f"{n}:{r['impl']}:{r['shape']}" for n, e in entries.items()
             for r in e.get("correctness", []) if not r["ok"]]
    ratios = {}
    for e in entries.values():
        for row in e.get("bench", []):
            for k, v in row.items():
                if k.endswith(("_vs_triton", "_vs_torch")):
                    ratios.setdefault(k, []).append(v)
    geo = {k: float(torch.tensor(v).log().mean().exp()) for k, v in ratios.items()}
    return dict(entries=len(entries), errors=[n for n, e in entries.items() if "error" in e],
                correctness_failures=fails, geomean_ratios=geo)


if __name__ == "__main__":
    sys.exit(main())
