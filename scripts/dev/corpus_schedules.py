#!/usr/bin/env python3
"""The schedule each corpus program gets, per chip, as a checked-in table
(corpus/schedules.md; issue 51).

Every corpus/*.mlir is compiled for sm_80, sm_89 and sm_90a to cubin
(`tilec FILE --chip=C --emit=cubin --remarks='tile-.*'`: ptxas must accept
it) and its kernels' schedules are read from the scheduling passes'
remarks: on sm_90a the TMA ring (loads and stages, tile-tma-pipeline), warp
specialization (tile-warp-specialize), wgmma groups kept in flight
(tile-async-wgmma, tile-wgmma-overlap), the TMA-store epilogue
(tile-tma-store), persistence (tile-persistent) and the order of the
output tiles (tile-group-tiles), the loads issued an iteration ahead
(tile-prefetch-loads) and the loops split where their index masks stop
masking (tile-mask-bounds); on sm_80 / sm_89 the
cp.async ring of tile-pipeline, read from the IR after that pass
(`tilec-opt --mlir-print-ir-after=tile-pipeline`: the rings are the
`tile.async_copy` buffers, one stage per leading index), since the pass
remarks only what it declines. A program that does not compile for a chip
is recorded as `FAILS: <its first error>`. Every remark that declines
something is listed under the table with its reason.

    corpus_schedules.py            # print the table
    corpus_schedules.py --update   # rewrite corpus/schedules.md
    corpus_schedules.py --check    # exit 1 (with a diff) when it differs

Options: --tilec / --tilec-opt (default: on PATH, else build/bin),
--jobs N (parallel compiles, default 2), --keep DIR (keep the artifacts).
Python standard library only (CPU CI).
"""

import argparse
import concurrent.futures as cf
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from scripts import ROOT
CORPUS = os.path.join(ROOT, "corpus")
TABLE = os.path.join(CORPUS, "schedules.md")
CHIPS = ("sm_90a", "sm_89", "sm_80")

KERNEL_RE = re.compile(r"^tile\.kernel @(\w+)", re.M)
REMARK_RE = re.compile(r"^(?P<file>[^\n]*?):(?P<line>\d+):(?P<col>\d+): remark: "
                       r"\[(?P<kind>\w+)\] (?P<name>\w+) \| Category:(?P<cat>[\w-]+)"
                       r"(?: \| (?:Remark|Reason)=\"(?P<text>.*)\")?\s*$", re.M)
ERROR_RE = re.compile(r"^(?:[^\n]*?:(?P<line>\d+):\d+: )?error: (?P<msg>.*)$", re.M)
# `tile.async_copy %view[...], %buf[%stage] ... : !tile.view<...>, !tile.smem<SxAxB...>`
COPY_RE = re.compile(r"tile\.async_copy [^\n]*?, (%[\w.#-]+)\[[^\n]*!tile\.smem<(\d+)x")
# A stack dump's frame: `#5 0x00... function (library+0x...)`.
FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (?!llvm::sys::|\(/)(.+?)(?: \(/[^\n]*\)| [\w.]+:\d+:\d+)?$",
                      re.M)
DUMP_RE = re.compile(r"^// -----// IR Dump After [^\n]*\(tile-pipeline\)", re.M)
REGS_RE = re.compile(r"ptxas: (\d+) registers a thread, (\d+) bytes spilled \(stores\) and (\d+)")
DECLINES = ("Missed", "Failure")  # remark kinds listed under the table


def programs():
    """The corpus programs, sorted by name."""
    return sorted(os.path.join(CORPUS, f) for f in os.listdir(CORPUS) if f.endswith(".mlir"))


def first_error(stderr, returncode):
    """The first `error:` message of a failed compile, without paths; for a
    crash, the signal and the first tilec frame of the stack dump (no
    addresses); else the exit status and the last line."""
    m = ERROR_RE.search(stderr)
    if m:
        where = f"line {m.group('line')}: " if m.group("line") else ""
        return where + m.group("msg").strip()
    frames = FRAME_RE.findall(stderr)
    if returncode < 0 or returncode > 128 or frames:
        signal = -returncode if returncode < 0 else returncode - 128
        ours = [f for f in frames if "tilec" in f or "tile::" in f] or frames
        where = ours[0].replace("(anonymous namespace)::", "").split("(")[0] if ours else ""
        return f"crash (signal {signal})" + (f" in {where}" if where else "")
    lines = [l for l in stderr.splitlines() if l.strip()]
    return f"exit status {returncode}" + (f": {lines[-1].strip()}" if lines else "")


def kernel_spans(text):
    """(kernel name, first line, has a tile.dot) of each tile.kernel."""
    starts = [(m.group(1), text.count("\n", 0, m.start()) + 1, m.start())
              for m in KERNEL_RE.finditer(text)]
    spans = []
    for i, (name, line, pos) in enumerate(starts):
        end = starts[i + 1][2] if i + 1 < len(starts) else len(text)
        spans.append((name, line, "tile.dot" in text[pos:end]))
    return spans


def kernel_at(spans, line):
    """The kernel whose text holds ``line`` (1-based)."""
    owner = spans[0][0]
    for name, first, _ in spans:
        if line >= first:
            owner = name
    return owner


def run(cmd, timeout=600):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stderr, proc.stdout


def compile_chip(tools, path, chip, outdir):
    """Compiles ``path`` for ``chip``: (returncode, remark text, error, IR
    after tile-pipeline or '')."""
    tilec, tilec_opt = tools
    rc, err, _ = run([tilec, path, f"--chip={chip}", "--emit=cubin", "-o", outdir,
                      "--remarks=tile-.*"])
    if rc:
        return rc, err, first_error(err, rc), ""
    prc, perr, _ = run([tilec_opt, path,
                        f"--pass-pipeline=builtin.module(tilec-schedule{{chip={chip}}})",
                        "--mlir-print-ir-after=tile-pipeline", "-o", os.devnull])
    return rc, err, None, perr if prc == 0 else ""


# ---------------------------------------------------------------------------
# Reading what the passes did
# ---------------------------------------------------------------------------

def remarks_by_kernel(stderr, spans):
    """{kernel: [(kind, category, name, text)]} in the order printed, without
    repeats (a pass may run on several copies of a loop). Remarks of
    tile-prefetch-loads are one per load: those of different lines stay."""
    out = {name: [] for name, _, _ in spans}
    seen = set()
    for m in REMARK_RE.finditer(stderr):
        rec = (m.group("kind"), m.group("cat"), m.group("name"), m.group("text") or "")
        line = int(m.group("line"))
        key = rec + ((line,) if rec[1] == "tile-prefetch-loads" else ())
        if key in seen:
            continue
        seen.add(key)
        out[kernel_at(spans, line)].append(rec)
    return out


def rings_by_kernel(ir, spans):
    """{kernel: 'N loads, S stages' per loop ring} from the IR after
    tile-pipeline: the distinct buffers tile.async_copy writes, by depth
    (a depth-1 buffer is an operand staged once, not a ring)."""
    out = {}
    dumps = DUMP_RE.split(ir)[1:]
    for dump in dumps:
        m = KERNEL_RE.search(dump) or re.search(r"tile\.kernel @(\w+)", dump)
        if not m:
            continue
        buffers = {}
        for buf, depth in COPY_RE.findall(dump):
            buffers[buf] = int(depth)
        by_depth = {}
        for depth in buffers.values():
            by_depth[depth] = by_depth.get(depth, 0) + 1
        parts = [f"{n} load{'s' * (n > 1)}, {d} stages" for d, n in sorted(by_depth.items(),
                                                                           reverse=True) if d > 1]
        staged = by_depth.get(1, 0)
        if staged:
            parts.append(f"{staged} operand{'s' * (staged > 1)} staged once")
        out[m.group(1)] = "; ".join(parts) or "none"
    return out


def pick(remarks, category, passed=None):
    """The texts of ``category``'s remarks named ``passed`` (or all)."""
    return [t for k, c, n, t in remarks if c == category and (passed is None or n == passed)]


def declined(remarks, category):
    return any(c == category and k in DECLINES for k, c, _, _ in remarks)


def registers(remarks):
    """`R` (or `R, S B spilled`) from tile-resources' ptxas report."""
    for text in pick(remarks, "tile-resources"):
        m = REGS_RE.search(text)
        if m:
            spilled = int(m.group(2)) + int(m.group(3))
            return m.group(1) + (f", {spilled} B spilled" if spilled else "")
    return "?"


def sm90_columns(remarks, has_dot, ring_ir):
    """The sm_90a columns: TMA ring (or the cp.async ring of the IR when
    there is none), warp specialization, wgmma in flight, TMA store,
    persistent, tile order, loads issued ahead, index masks, registers."""
    ring = "; ".join(t.replace(" on TMA in a ", ", ").replace("-stage ring", " stages")
                     for t in pick(remarks, "tile-tma-pipeline", "Pipelined"))
    if not ring:
        ring = "no" if declined(remarks, "tile-tma-pipeline") or has_dot else "—"
    if ring_ir not in ("none", "?"):  # loads no TMA ring took, in a cp.async ring
        ring = ("no" if ring == "—" else ring) + f"; cp.async: {ring_ir}"
    ws = "yes" if pick(remarks, "tile-warp-specialize", "Specialized") else (
        "no" if declined(remarks, "tile-warp-specialize") or has_dot else "—")
    # "one wgmma group stays in flight", or "the N wgmma groups of an
    # iteration ... stay in flight" (independent dots, a dual GEMM).
    inflight = 0
    for text in pick(remarks, "tile-async-wgmma", "InFlight"):
        m = re.search(r"the (\d+) wgmma groups", text)
        inflight = max(inflight, int(m.group(1)) if m else 1)
    overlap = pick(remarks, "tile-wgmma-overlap", "Overlapped")
    if not has_dot:
        wgmma = "—"
    else:
        wgmma = str(inflight) + (", overlapped" if overlap else "")
    store = "yes" if pick(remarks, "tile-tma-store", "Staged") else (
        "no" if declined(remarks, "tile-tma-store") else "—")
    persistent = "yes" if pick(remarks, "tile-persistent", "Persistent") else "no"
    order = "program's"
    for text in pick(remarks, "tile-group-tiles", "Grouped"):
        m = re.search(r"groups of (\d+) tile rows", text)
        order = f"grouped, {m.group(1)} rows" if m else "grouped"
    ahead = len(pick(remarks, "tile-prefetch-loads", "Prefetched"))
    masks = "—"
    for text in pick(remarks, "tile-mask-bounds", "Bounded"):
        m = re.search(r"in the iterations (before a bound|between two bounds|from a bound on)",
                      text)
        masks = "split: " + {"before a bound": "masked tail", "between two bounds":
                             "masked head and tail", "from a bound on": "masked head"}[m.group(1)]
        if "index comparisons hold" in text:
            masks += " (other terms in every iteration)"
    if masks == "—" and pick(remarks, "tile-mask-bounds", "NotBounded"):
        masks = "every iteration"
    if pick(remarks, "tile-split-loops", "ShallowRing"):
        masks = "every iteration (shallow ring)"
    if pick(remarks, "tile-split-loops", "LoadedStart"):
        masks = "every iteration (loaded start)"
    return [ring, ws, wgmma, store, persistent, order, str(ahead) if ahead else "—", masks,
            registers(remarks)]


def full_schedule(cols):
    """A dot kernel with a TMA ring, warp specialization and async wgmma:
    groups in flight across iterations, or (two dependent dots, attention)
    the next iteration's first dot overlapped with the register work."""
    ring, ws, wgmma = cols[:3]
    return not ring.startswith(("no", "—", "FAILS")) and ws == "yes" and \
        (not wgmma.startswith(("0", "—")) or "overlapped" in wgmma)


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

def analyze(tools, path, workdir, jobs_pool):
    """Per kernel of ``path``: {chip: columns}, and the declines / failures
    to list under the table."""
    text = open(path).read()
    spans = kernel_spans(text)
    name = os.path.basename(path)[:-5]
    futures = {chip: jobs_pool.submit(compile_chip, tools, path, chip,
                                      os.path.join(workdir, name, chip)) for chip in CHIPS}
    rows = {k: {"has_dot": dot} for k, _, dot in spans}
    notes = {k: [] for k, _, _ in spans}
    for chip in CHIPS:
        rc, err, error, ir = futures[chip].result()
        if error:
            for k in rows:
                rows[k][chip] = ["FAILS: " + error]
                notes[k].append((chip, "FAILS: " + error))
            continue
        missing = [k for k, _, _ in spans
                   if not os.path.exists(os.path.join(workdir, name, chip, k + ".cubin"))]
        if missing:
            for k in rows:
                rows[k][chip] = ["FAILS: no cubin for " + ", ".join(missing)]
            continue
        remarks = remarks_by_kernel(err, spans)
        rings = rings_by_kernel(ir, spans)
        for k in rows:
            if chip == "sm_90a":
                rows[k][chip] = sm90_columns(remarks[k], rows[k]["has_dot"], rings.get(k, "?"))
            else:
                rows[k][chip] = [rings.get(k, "?")]
            for kind, cat, rname, rtext in remarks[k]:
                if kind in DECLINES:
                    notes[k].append((chip, f"{cat} {rname}: {rtext}"))
    return name, rows, {k: merge_chips(v) for k, v in notes.items()}


def merge_chips(notes):
    """`chip, chip: text` lines from (chip, text) pairs, one per text, in
    the order first seen."""
    chips = {}
    for chip, text in notes:
        if chip not in chips.setdefault(text, []):
            chips[text].append(chip)
    return [f"{', '.join(c)}: {text}" for text, c in chips.items()]


def render(results):
    """The markdown of corpus/schedules.md."""
    head = ["program", "kernel", "sm_90a TMA ring", "warp spec.", "wgmma groups in flight",
            "TMA store", "persistent", "tile order", "loads issued ahead", "index masks",
            "sm_90a registers",
            "sm_89 cp.async ring",
            "sm_80 cp.async ring"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    full = weak = fails = nodot = 0
    weak_names, fail_names = [], []
    details = []
    for name, rows, notes in results:
        for kernel, row in rows.items():
            c90 = row["sm_90a"]
            c90 = c90 + ["—"] * (9 - len(c90))
            cells = [name, kernel] + c90 + [row["sm_89"][0], row["sm_80"][0]]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
            if c90[0].startswith("FAILS"):
                fails += 1
                fail_names.append(kernel)
            elif not row["has_dot"]:
                nodot += 1
            elif full_schedule(c90):
                full += 1
            else:
                weak += 1
                weak_names.append(kernel)
            if notes[kernel]:
                details.append(f"### {kernel}\n")
                details += [f"- {n}" for n in notes[kernel]]
                details.append("")
    total = full + weak + fails + nodot
    summary = [
        f"{len(results)} programs, {total} kernels. On sm_90a, of the kernels with a "
        f"`tile.dot`: {full} get the full schedule (a TMA ring, warp specialization and "
        f"async wgmma: a group in flight, or overlapped), {weak} do not"
        + (f" ({', '.join(weak_names)})" if weak_names else "")
        + f"; {nodot} kernels have no dot; {fails} fail to compile for sm_90a"
        + (f" ({', '.join(fail_names)})" if fail_names else "") + "."]
    return "\n".join(HEADER + summary + [""] + lines + ["", "## Declined and failed", ""]
                     + details).rstrip("\n") + "\n"


HEADER = [
    "# Corpus schedules",
    "",
    "Generated by `scripts/dev/corpus_schedules.py --update` (do not edit by hand): the",
    "schedule each program of the corpus (issue 51) gets from tilec, read from",
    "`tilec --remarks='tile-.*'` (sm_90a) and from the IR after `tile-pipeline`",
    "(cp.async rings as loads and stages; on sm_90a, the loads no TMA ring took).",
    "`wgmma groups in flight`: how many tile-async-wgmma keeps in flight across",
    "iterations; `overlapped` when tile-wgmma-overlap issues the next iteration's",
    "first dot before this one's register work (attention's two dependent dots).",
    "`loads issued ahead`: loads no ring took that tile-prefetch-loads issues one",
    "iteration ahead, into registers. `index masks`: where tile-mask-bounds found",
    "the iterations in which a select's index mask masks nothing, the loop is split",
    "and only the masked iterations (the last blocks, and the first for a sliding",
    "window) apply it (`other terms in every iteration`: the mask also and-s terms",
    "that are not index comparisons, such as a document id compared with `==`;",
    "only those stay in the unmasked iterations); `every iteration` when the mask",
    "has no index comparison it can bound, or where tile-split-loops keeps it:",
    "(shallow ring) on a 2-stage TMA ring, (loaded start) in a loop that starts",
    "where loaded data says.",
    "`—`: the pass had nothing to do (no loop, no dot, no tile store); `FAILS`: the",
    "first error of the compile; registers and spills are ptxas's.",
    "`test/Corpus/schedules.test` fails when the compiler's output differs: rerun",
    "with `--update` and review the diff.",
    "",
]


def find_tool(name, given):
    if given:
        return shutil.which(given) or given
    return shutil.which(name) or os.path.join(ROOT, "build", "bin", name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--update", action="store_true")
    mode.add_argument("--check", action="store_true")
    ap.add_argument("--tilec")
    ap.add_argument("--tilec-opt")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", help="directory for the artifacts (default: a temporary one)")
    args = ap.parse_args()
    tools = (find_tool("tilec", args.tilec), find_tool("tilec-opt", args.tilec_opt))
    t0 = time.time()
    workdir = args.keep or tempfile.mkdtemp(prefix="tilec-corpus-")
    try:
        with cf.ThreadPoolExecutor(max(1, args.jobs)) as compiles, \
                cf.ThreadPoolExecutor(max(1, args.jobs)) as programs_pool:
            futures = [programs_pool.submit(analyze, tools, p, workdir, compiles)
                       for p in programs()]
            results = [f.result() for f in futures]
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    table = render(results)
    seconds = time.time() - t0
    if args.update:
        with open(TABLE, "w") as f:
            f.write(table)
        print(f"wrote {TABLE} ({seconds:.0f} s)")
        return 0
    if args.check:
        old = open(TABLE).read() if os.path.exists(TABLE) else ""
        if old == table:
            print(f"corpus schedules match {TABLE} ({seconds:.0f} s)")
            return 0
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), table.splitlines(True),
                                                   "corpus/schedules.md", "tilec now"))
        print("corpus schedules differ: rerun scripts/dev/corpus_schedules.py --update and review "
              "the diff", file=sys.stderr)
        return 1
    sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
