#!/usr/bin/env python3
"""Mutation fuzzer for tilec and tilec-opt (Python 3.11 standard library only).

Seeds are the tile programs of the repository (examples/*.mlir, the corpus
of user programs corpus/*.mlir, and every test/**/*.mlir; lit files are
split on `// -----` and their `//` lines are dropped). Each mutant applies
1-3 textual mutations to a seed (integer literals, one value everywhere,
shape dimensions, element types, chips, attribute values, line deletion /
duplication / swap, odd symbol names, a line spliced from another seed) and
runs through

    tilec-opt MUTANT --tilec-to-nvvm=chip=CHIP
    tilec MUTANT --chip=CHIP --emit=ptx -o TMPDIR

with CHIP drawn from sm_80, sm_89 and sm_90a, under a timeout and an
address-space limit. Outcomes:

    ok         exit status 0
    diagnosed  exit status 1 with an `error:` line on stderr
    SILENT     exit status 1 without any `error:` line
    CRASH      a signal, another exit status, or LLVM ERROR / an assertion /
               a stack dump on stderr
    HANG       past the timeout (SIGQUIT first, so LLVM prints where it was)
    OOM        std::bad_alloc / out of memory, or killed near the memory limit

CRASH, HANG, SILENT and OOM results are bucketed by (tool, outcome, first
meaningful line: the LLVM ERROR message, the assertion, or the first tilec /
MLIR frame of the stack dump, numbers stripped). Each bucket keeps its
smallest mutant in OUTDIR/bucket-<n>/input.mlir, with the command and stderr
in info.txt; OUTDIR/summary.json has the counts. The exit status is 1 when a
CRASH, HANG or SILENT bucket is not matched by a line of the known-issues file
(default docs/fuzz-known-issues.txt: signature substrings, `#` comments).

Usage:
    python3 -m scripts.dev.fuzz --smoke          # CI: seed 1, 500 mutants, ~1 min
    python3 -m scripts.dev.fuzz --seconds 3600 --out /tmp/tilec-fuzz
    python3 -m scripts.dev.fuzz --cpu-seconds 3600  # 1 CPU-hour per tool
    python3 -m scripts.dev.fuzz --count 500 --seed 7 --tools tilec-opt
    python3 -m scripts.dev.fuzz --seconds 600 --reduce-seconds 120  # + reduced.mlir

Mutants are deterministic given --seed (mutant i of seed S is the same on
every run); with --seconds, how many of them run depends on the machine.
Linux only (RLIMIT_AS, /proc, pidfd where the kernel has it).
"""

import argparse
import concurrent.futures as cf
import ctypes
import dataclasses
import hashlib
import itertools
import json
import multiprocessing
import os
import random
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOLS = ("tilec-opt", "tilec")
CHIPS = ("sm_80", "sm_89", "sm_90a")
TEXT_CHIPS = CHIPS + ("sm_86", "sm_90", "sm_100a", "sm_75", "sm_", "gfx90a")
INTERESTING = (0, 1, -1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 63, 64, 127, 128,
               255, 256, 1000, 4096, 65536, 2**31 - 1, 2**31, 2**32,
               2**63 - 1, -2**63)
DIMS = tuple(v for v in INTERESTING if 0 <= v < 2**32) + ("?",)
ELEM_TYPES = ("bf16", "f16", "f32", "i32", "i1", "f8E4M3FN", "f8E5M2",
              "f64", "i8")
ODD_NAMES = ('"my kernel"', '"k-1"', 'k.v', '"k.v"', '"%k"', '"kérnel"',
             '"核"', '""', '"k\\0a"', '"1k"', '"k$"',
             # C identifiers that PTX, C or the runtime may still trip on
             "_", "int", "ld", "mov", "reg", "main", "_Z3foov", "k" * 300)
FAILING = ("CRASH", "HANG", "SILENT")
BUCKETED = FAILING + ("OOM",)
CRASH_MARKERS = ("LLVM ERROR", "Assertion", "Stack dump",
                 "PLEASE submit a bug report", "UNREACHABLE",
                 "Segmentation fault")
OOM_MARKERS = ("std::bad_alloc", "out of memory", "MemoryError")
SIGQUIT_GRACE_S = 5.0
# glibc reserves 64 MiB of address space per malloc arena (up to 8 per core);
# on a many-core host MLIR's thread pool would otherwise hit the RLIMIT_AS.
CHILD_ENV = dict(os.environ, MALLOC_ARENA_MAX="4")
STDERR_KEEP = 1 << 20

# --------------------------------------------------------------------------
# Seeds


@dataclasses.dataclass(frozen=True)
class Seed:
    origin: str
    text: str


def seed_paths(repo):
    paths = set(repo.glob("examples/*.mlir"))
    paths |= set(repo.glob("corpus/*.mlir"))  # programs nobody tuned the passes for
    paths |= set(repo.glob("test/**/*.mlir"))  # test/tilec/Inputs included
    return sorted(paths)


def split_lit(text):
    """Chunks of a lit file, split on `// -----`, without `//` lines."""
    chunks = re.split(r"^[ \t]*//[ \t]*-----[ \t]*$", text, flags=re.M)
    for chunk in chunks:
        lines = [l for l in chunk.splitlines()
                 if not l.lstrip().startswith("//")]
        body = "\n".join(lines).strip("\n")
        if "tile." in body:
            yield body + "\n"


def load_seeds(repo):
    seeds, seen = [], set()
    for path in seed_paths(repo):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "tile." not in text:
            continue
        for i, chunk in enumerate(split_lit(text)):
            if chunk not in seen:
                seen.add(chunk)
                rel = path.relative_to(repo)
                seeds.append(Seed(f"{rel}#{i}", chunk))
    return seeds

# --------------------------------------------------------------------------
# Mutations: each takes (text, rng, seeds) and returns (text, what) or None.

INT_RE = re.compile(r"(?<![\w.%#@$!])-?\d+(?![\w.])")
SHAPE_RE = re.compile(
    r"(?:tensor|vector|memref|!tile\.view|!tile\.smem|!tile\.tensor_map)"
    r"<((?:(?:\d+|\?)x)+)")


def elem_re(names):
    """An element type name standing alone or ending a shape (64xbf16)."""
    return re.compile(r"(?:(?<=[\d?]x)|(?<![\w%@#$.!]))(" + names +
                      r")(?![\w])")


ELEM_RE = elem_re("f8E4M3FN|f8E5M2|bf16|f16|f32|f64|i64|i32|i8|i1")
CHIP_RE = re.compile(r"\bsm_\d+a?\b")
ATTR_RES = (re.compile(r"warps\((-?\d+)\)"),
            re.compile(r"\bstages\s*=\s*(-?\d+)"),
            re.compile(r"tile\.align\s*=\s*(-?\d+)"),
            re.compile(r"tile\.divisibility\s*=\s*(-?\d+)"),
            re.compile(r"\b[a-z_]+\s*=\s*(-?\d+)\b(?!\.)"))
SYM_RE = re.compile(r'@([A-Za-z_][\w$.]*|"[^"\n]*")')


def splice(text, start, end, new):
    return text[:start] + new + text[end:]


def pick(rng, regex, text):
    matches = list(regex.finditer(text))
    return rng.choice(matches) if matches else None


def mut_int(text, rng, seeds):
    m = pick(rng, INT_RE, text)
    if not m:
        return None
    old = int(m.group())
    new = rng.choice(INTERESTING + (old - 1, old + 1, -old))
    return splice(text, m.start(), m.end(), str(new)), f"int {old}->{new}"


def mut_value_all(text, rng, seeds):
    """One value everywhere: literals and shape dimensions (64 -> 32 in
    `arith.constant 64`, `tensor<64x64xf32>` and `block_m = 64` alike)."""
    values = sorted({m.group() for m in INT_RE.finditer(text)} - {"0", "1"})
    if not values:
        return None
    old = rng.choice(values)
    new = str(nearby(rng, int(old)))
    literal = r"(?<![\w.%#@$!])" + re.escape(old) + r"(?![\w.])"
    dim = r"(?<=[<x])" + re.escape(old) + r"(?=x)"
    regex = re.compile(f"{literal}|{dim}")
    return regex.sub(new, text), f"value all {old}->{new}"


def nearby(rng, value):
    """A power-of-two neighbour most of the time (tile sizes must be powers
    of two, so these get past the verifier), else an interesting value."""
    if value > 1 and rng.random() < 0.6:
        return max(1, rng.choice((value * 2, value // 2, value * 4,
                                  value // 4)))
    return rng.choice([v for v in DIMS if v != "?"])


def new_dims(rng, dims):
    dims = list(dims)
    roll = rng.random()
    if roll < 0.1 and len(dims) > 1:
        del dims[rng.randrange(len(dims))]
    elif roll < 0.2:
        dims.insert(rng.randrange(len(dims) + 1), str(rng.choice(DIMS)))
    else:
        i = rng.randrange(len(dims))
        dims[i] = str(rng.choice(DIMS) if dims[i] == "?" or rng.random() < 0.3
                      else nearby(rng, int(dims[i])))
    return "".join(d + "x" for d in dims)


def mut_shape(text, rng, seeds):
    m = pick(rng, SHAPE_RE, text)
    if not m:
        return None
    old = m.group(1)
    new = new_dims(rng, old.split("x")[:-1])
    if rng.random() < 0.8:  # every type with this shape, so the IR stays typed
        regex = re.compile(r"(?<=<)" + re.escape(old) + r"(?![\d?])")
        return regex.sub(new, text), f"shape all <{old} -> <{new}"
    return (splice(text, m.start(1), m.end(1), new),
            f"shape <{old} -> <{new}")


def mut_elem(text, rng, seeds):
    m = pick(rng, ELEM_RE, text)
    if not m:
        return None
    old, new = m.group(1), rng.choice(ELEM_TYPES)
    if rng.random() < 0.8:
        return elem_re(old).sub(new, text), f"elem all {old}->{new}"
    return splice(text, m.start(1), m.end(1), new), f"elem {old}->{new}"


def mut_chip(text, rng, seeds):
    m = pick(rng, CHIP_RE, text)
    if not m:
        return None
    new = rng.choice(TEXT_CHIPS)
    return splice(text, m.start(), m.end(), new), f"chip {m.group()}->{new}"


def mut_attr(text, rng, seeds):
    matches = [m for regex in ATTR_RES for m in regex.finditer(text)]
    if not matches:
        return None
    m = rng.choice(matches)
    new = str(rng.choice(INTERESTING))
    return (splice(text, m.start(1), m.end(1), new),
            f"attr {m.group()} -> {new}")


def code_lines(lines):
    return [i for i, line in enumerate(lines) if line.strip()]


def mut_delete(text, rng, seeds):
    lines = text.splitlines()
    idx = code_lines(lines)
    if len(idx) < 2:
        return None
    i = rng.choice(idx)
    gone = lines.pop(i)
    return "\n".join(lines) + "\n", f"delete line {i + 1}: {gone.strip()[:60]}"


def mut_duplicate(text, rng, seeds):
    lines = text.splitlines()
    idx = code_lines(lines)
    if not idx:
        return None
    i = rng.choice(idx)
    lines.insert(i, lines[i])
    return "\n".join(lines) + "\n", f"duplicate line {i + 1}"


def mut_swap(text, rng, seeds):
    lines = text.splitlines()
    idx = code_lines(lines)
    if len(idx) < 2:
        return None
    i, j = rng.sample(idx, 2)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n", f"swap lines {i + 1} and {j + 1}"


def mut_rename(text, rng, seeds):
    names = sorted(set(SYM_RE.findall(text)))
    if not names:
        return None
    old, new = rng.choice(names), rng.choice(ODD_NAMES)
    regex = re.compile("@" + re.escape(old) + r"(?![\w$.])")
    return regex.sub(lambda _: "@" + new, text), f"rename @{old} -> @{new}"


def mut_splice(text, rng, seeds):
    donor = rng.choice(seeds).text.splitlines()
    idx = code_lines(donor)
    lines = text.splitlines()
    if not idx or not lines:
        return None
    line = donor[rng.choice(idx)]
    at = rng.randrange(len(lines) + 1)
    lines.insert(at, line)
    return "\n".join(lines) + "\n", f"splice at {at + 1}: {line.strip()[:60]}"


MUTATORS = ((mut_int, 3), (mut_value_all, 3), (mut_shape, 3), (mut_elem, 2),
            (mut_chip, 1), (mut_attr, 3), (mut_delete, 2), (mut_duplicate, 1),
            (mut_swap, 1), (mut_rename, 1), (mut_splice, 2))


def mutate(text, rng, seeds):
    """Apply 1-3 mutations; returns (text, [descriptions])."""
    funcs = [f for f, _ in MUTATORS]
    weights = [w for _, w in MUTATORS]
    applied = []
    for _ in range(rng.randint(1, 3)):
        for _attempt in range(10):
            func = rng.choices(funcs, weights)[0]
            result = func(text, rng, seeds)
            if result and result[0] != text:
                text = result[0]
                applied.append(result[1])
                break
    return text, applied


@dataclasses.dataclass
class Mutant:
    index: int
    origin: str
    chip: str
    text: str
    mutations: list


def by_file(seeds):
    groups = {}
    for s in seeds:
        groups.setdefault(s.origin.split("#")[0], []).append(s)
    return list(groups.values())


def mutants(seed, seeds):
    """Endless, deterministic stream of distinct mutants. The seed file is
    drawn first, so the long lists of invalid-IR cases do not dominate."""
    seen, groups = set(), by_file(seeds)
    index = 0
    while True:
        for attempt in range(20):
            rng = random.Random(f"{seed}:{index}:{attempt}")
            base = rng.choice(rng.choice(groups))
            chip = rng.choice(CHIPS)
            text, applied = mutate(base.text, rng, seeds)
            digest = hashlib.sha1(text.encode()).digest()
            if applied and digest not in seen:
                seen.add(digest)
                yield Mutant(index, base.origin, chip, text, applied)
                break
        index += 1

# --------------------------------------------------------------------------
# Running one tool (inside a worker process: single-threaded, so preexec_fn
# is safe).


@dataclasses.dataclass
class RunResult:
    returncode: int
    timed_out: bool
    stderr: str
    maxrss_kb: int
    wall_s: float
    cpu_s: float = 0.0


def command(tool, binary, path, chip, outdir):
    if tool == "tilec-opt":
        return [binary, path, f"--tilec-to-nvvm=chip={chip}"]
    return [binary, path, f"--chip={chip}", "--emit=ptx", "-o", outdir]


def limiter(mem_bytes):
    def preexec():
        resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (mem_bytes, mem_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return preexec


def wait_for_exit(pid, pidfd, seconds):
    """True when the process exited within `seconds` (it is not reaped)."""
    if pidfd is not None:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(max(0, int(seconds * 1000))))
    deadline = time.monotonic() + seconds  # kernels before 5.3: poll
    while time.monotonic() < deadline:
        flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
        if os.waitid(os.P_PID, pid, flags) is not None:
            return True
        time.sleep(0.02)
    return False


def open_pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def busiest_thread(pid):
    best, best_cpu = pid, -1
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return pid
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        cpu = int(fields[11]) + int(fields[12])  # utime + stime
        if cpu > best_cpu:
            best, best_cpu = int(tid), cpu
    return best


def interrupt(pid):
    """SIGQUIT to the busiest thread: LLVM's handler prints its stack (tilec
    compiles on a worker thread while main waits in pthread_join)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.tgkill(pid, busiest_thread(pid), signal.SIGQUIT) == 0:
            return
    except (OSError, AttributeError):
        pass
    try:
        os.kill(pid, signal.SIGQUIT)
    except ProcessLookupError:
        pass


def kill_group(pid, sig):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def read_stderr(handle):
    size = handle.seek(0, os.SEEK_END)
    handle.seek(0)
    if size <= STDERR_KEEP:
        return handle.read().decode(errors="replace")
    head = handle.read(STDERR_KEEP // 4).decode(errors="replace")
    handle.seek(size - STDERR_KEEP // 2)
    tail = handle.read().decode(errors="replace")
    return f"{head}\n[... {size} bytes, truncated ...]\n{tail}"


def spawn(cmd, cwd, mem_bytes, stderr):
    for attempt in range(10):  # the binary may be relinked while we run
        try:
            return subprocess.Popen(
                cmd, cwd=cwd, env=CHILD_ENV, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=stderr,
                preexec_fn=limiter(mem_bytes), start_new_session=True)
        except OSError:
            if attempt == 9:
                raise
            time.sleep(3)


def execute(cmd, cwd, timeout, mem_bytes):
    start = time.monotonic()
    with tempfile.TemporaryFile(dir=cwd) as err:
        proc = spawn(cmd, cwd, mem_bytes, err)
        pidfd = open_pidfd(proc.pid)
        try:
            timed_out = not wait_for_exit(proc.pid, pidfd, timeout)
            if timed_out:
                interrupt(proc.pid)
                if not wait_for_exit(proc.pid, pidfd, SIGQUIT_GRACE_S):
                    kill_group(proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            if pidfd is not None:
                os.close(pidfd)
        proc.returncode = os.waitstatus_to_exitcode(status)
        kill_group(proc.pid, signal.SIGKILL)  # stray llvm-symbolizer
        return RunResult(proc.returncode, timed_out, read_stderr(err),
                         usage.ru_maxrss, time.monotonic() - start,
                         usage.ru_utime + usage.ru_stime)

# --------------------------------------------------------------------------
# Classification and signatures


def classify(res, mem_bytes):
    err, rc = res.stderr, res.returncode
    if res.timed_out:
        return "HANG"
    near_limit = res.maxrss_kb * 1024 >= 0.5 * mem_bytes
    if rc != 0 and any(m in err for m in OOM_MARKERS):
        return "OOM"
    if rc in (-signal.SIGKILL, -signal.SIGXFSZ) or (rc < 0 and near_limit):
        return "OOM"
    if rc not in (0, 1) or any(m in err for m in CRASH_MARKERS):
        return "CRASH"
    if rc == 0:
        return "ok"
    return "diagnosed" if "error:" in err else "SILENT"


def normalize(text):
    text = re.sub(r"0x[0-9a-fA-F]+", "0x?", text)
    text = re.sub(r"\d+", "N", text)
    return re.sub(r"\s+", " ", text).strip()[:240]


FRAME_RE = re.compile(r"^\s*#\d+\s+0x[0-9a-fA-F]+\s+(.*)$", re.M)
MODULE_RE = re.compile(r"\s*\(([^()]*)\+0x[0-9a-fA-F]+\)$")
SOURCE_RE = re.compile(r"\s+(\S+):\d+(?::\d+)?$")
SKIP_FRAMES = ("llvm::sys::", "SignalHandler", "__restore_rt", "__pthread",
               "pthread_kill", "raise", "abort", "__GI_", "__assert",
               "llvm::report_fatal_error", "llvm::llvm_unreachable",
               "llvm::report_bad_alloc", "std::", "__cxa", "__gnu_cxx",
               "operator new", "__libc", "_start", "main", "malloc", "free",
               "call_init")
UPSTREAM = ("/usr/", "/lib/", "./")


def frames(stderr):
    """(function, is tilec code) for each symbolized stack-dump frame."""
    for m in FRAME_RE.finditer(stderr):
        line, where = m.group(1), ""
        for regex in (MODULE_RE, SOURCE_RE):
            found = regex.search(line)
            if found:
                line, where = line[:found.start()], found.group(1)
        name = line.strip()
        if name and not name.startswith(SKIP_FRAMES):
            ours = "tilec" in name or not where.startswith(UPSTREAM)
            yield short_name(name), ours


def short_name(name):
    """Drops argument lists and template arguments: f<T>(int) -> f<>()."""
    name = name.replace("(anonymous namespace)", "{anon}")
    for regex, empty in ((r"\([^()]*\)", "()"), (r"<[^<>]*>", "<>")):
        previous = None
        while previous != name:
            previous, name = name, re.sub(regex, empty, name)
    return name.replace(" const", "")[:120]


def first_frame(stderr, outcome):
    """The first meaningful frame; when it is upstream code, also the first
    tilec frame below it. A hang is located by its tilec frame alone."""
    found = list(frames(stderr))
    ours = [name for name, mine in found if mine]
    if outcome == "HANG" and ours:
        return ours[0]
    if not found:
        return None
    top, mine = found[0]
    return top if mine or not ours else f"{top} <- {ours[0]}"


def crash_line(res, outcome):
    err = res.stderr
    m = re.search(r"LLVM ERROR: (.*)", err)
    if m:
        return "LLVM ERROR: " + m.group(1)
    m = re.search(r"Assertion `(.*)' failed", err)
    if m:
        return f"Assertion `{m.group(1)}' failed"
    m = re.search(r"(?:^|\n)(.*)\nUNREACHABLE executed", err)
    if m:
        return "UNREACHABLE: " + m.group(1)
    frame = first_frame(err, outcome)
    if frame:
        return frame
    for marker in OOM_MARKERS:
        if marker in err:
            return marker
    if res.timed_out:
        return "timeout"
    if res.returncode < 0:
        return "signal " + signal.Signals(-res.returncode).name
    return f"exit {res.returncode}"


def signature(tool, outcome, res):
    if outcome == "SILENT":
        lines = [l for l in res.stderr.splitlines() if l.strip()]
        line = lines[0] if lines else "<no stderr>"
    else:
        line = crash_line(res, outcome)
    return f"{tool} | {outcome} | {normalize(line)}"

# --------------------------------------------------------------------------
# Worker entry points


def run_tool(tool, binary, text, chip, timeout, mem_bytes):
    workdir = tempfile.mkdtemp(prefix="tilec-fuzz-")
    try:
        path = os.path.join(workdir, "input.mlir")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        outdir = os.path.join(workdir, "out")
        os.mkdir(outdir)
        cmd = command(tool, binary, path, chip, outdir)
        res = execute(cmd, workdir, timeout, mem_bytes)
        outcome = classify(res, mem_bytes)
        sig = signature(tool, outcome, res) if outcome in BUCKETED else None
        return outcome, sig, res
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def run_job(job):
    tool, binary, mutant, timeout, mem_bytes = job
    outcome, sig, res = run_tool(tool, binary, mutant.text, mutant.chip,
                                 timeout, mem_bytes)
    return tool, mutant, outcome, sig, res


def reduce_job(job):
    """Line-based delta debugging that keeps the bucket's signature."""
    tool, binary, mutant, sig, timeout, mem_bytes, budget = job
    deadline = time.monotonic() + budget
    lines = mutant.text.splitlines()
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        i, removed = 0, False
        while i < len(lines) and time.monotonic() < deadline:
            trial = lines[:i] + lines[i + chunk:]
            text = "\n".join(trial) + "\n"
            _, got, _ = run_tool(tool, binary, text, mutant.chip, timeout,
                                 mem_bytes)
            if trial and got == sig:
                lines, removed = trial, True
            else:
                i += chunk
        if not removed:
            chunk //= 2
    return sig, "\n".join(lines) + "\n"

# --------------------------------------------------------------------------
# Results


@dataclasses.dataclass
class Bucket:
    signature: str
    tool: str
    outcome: str
    count: int
    mutant: Mutant
    result: RunResult
    known: bool = False
    reduced: str = None


class Stats:
    def __init__(self, known):
        self.known = known
        self.mutants = set()
        self.runs = {t: 0 for t in TOOLS}
        self.cpu_s = {t: 0.0 for t in TOOLS}
        self.outcomes = {t: {} for t in TOOLS}
        self.buckets = {}

    def add(self, tool, mutant, outcome, sig, res):
        self.mutants.add(mutant.index)
        self.runs[tool] += 1
        self.cpu_s[tool] += res.cpu_s
        per_tool = self.outcomes[tool]
        per_tool[outcome] = per_tool.get(outcome, 0) + 1
        if sig is None:
            return
        bucket = self.buckets.get(sig)
        if bucket is None:
            known = any(k in sig for k in self.known)
            self.buckets[sig] = Bucket(sig, tool, outcome, 1, mutant, res,
                                       known)
            return
        bucket.count += 1
        best = bucket.mutant
        if (len(mutant.text), mutant.index) < (len(best.text), best.index):
            bucket.mutant, bucket.result = mutant, res

    def ordered(self):
        return sorted(self.buckets.values(),
                      key=lambda b: (b.outcome, b.tool, b.signature))

    def new_failures(self):
        return [b for b in self.buckets.values()
                if b.outcome in FAILING and not b.known]

# --------------------------------------------------------------------------
# Output


def bucket_info(bucket, binary, input_path):
    res, mutant = bucket.result, bucket.mutant
    cmd = command(bucket.tool, binary, input_path, mutant.chip,
                  "/tmp/tilec-fuzz-ptx")
    lines = [f"signature: {bucket.signature}",
             f"known: {'yes' if bucket.known else 'no'}",
             f"count: {bucket.count}",
             f"command: {' '.join(map(quote, cmd))}",
             f"exit status: {res.returncode}"
             + (" (timed out)" if res.timed_out else ""),
             f"max rss: {res.maxrss_kb // 1024} MiB, wall: {res.wall_s:.1f} s",
             f"seed: {mutant.origin} (mutant {mutant.index}, chip "
             f"{mutant.chip})",
             "mutations:"] + [f"  {m}" for m in mutant.mutations]
    return "\n".join(lines) + "\n\nstderr:\n" + res.stderr


def quote(arg):
    return arg if re.fullmatch(r"[\w./=:+-]+", arg) else repr(arg)


def write_buckets(outdir, stats, binaries):
    for old in outdir.glob("bucket-*"):
        shutil.rmtree(old, ignore_errors=True)
    paths = {}
    for n, bucket in enumerate(stats.ordered(), 1):
        bdir = outdir / f"bucket-{n}"
        bdir.mkdir(parents=True)
        path = bdir / "input.mlir"
        path.write_text(bucket.mutant.text, encoding="utf-8")
        if bucket.reduced:
            (bdir / "reduced.mlir").write_text(bucket.reduced,
                                               encoding="utf-8")
        info = bucket_info(bucket, binaries[bucket.tool], str(path))
        (bdir / "info.txt").write_text(info, encoding="utf-8")
        paths[bucket.signature] = str(path)
    return paths


def summary(args, stats, elapsed, paths):
    buckets = [{"id": n, "tool": b.tool, "outcome": b.outcome,
                "signature": b.signature, "count": b.count,
                "known": b.known, "failing": b.outcome in FAILING,
                "size": len(b.mutant.text), "input": paths[b.signature],
                "reduced": b.reduced is not None}
               for n, b in enumerate(stats.ordered(), 1)]
    return {"seed": args.seed, "seconds": args.seconds, "count": args.count,
            "jobs": args.jobs, "timeout_s": args.timeout,
            "mem_mb": args.mem_mb, "tools": args.tools,
            "elapsed_s": round(elapsed, 1), "mutants": len(stats.mutants),
            "cpu_seconds": args.cpu_seconds,
            "runs": stats.runs,
            "tool_cpu_s": {t: round(stats.cpu_s[t], 1) for t in args.tools},
            "outcomes": stats.outcomes,
            "buckets": buckets,
            "new_failures": len(stats.new_failures()),
            "known_failures": sum(b["known"] and b["failing"]
                                  for b in buckets)}


def print_summary(data, out):
    print(f"\n{data['mutants']} mutants in {data['elapsed_s']} s "
          f"(seed {data['seed']}, {data['jobs']} jobs)")
    for tool in data["tools"]:
        counts = ", ".join(f"{k} {v}" for k, v in
                           sorted(data["outcomes"][tool].items()))
        print(f"  {tool}: {data['runs'][tool]} runs, "
              f"{data['tool_cpu_s'][tool]:.0f} CPU-s: {counts or '-'}")
    for b in data["buckets"]:
        tag = "known" if b["known"] else ("NEW" if b["failing"] else "info")
        print(f"  [{tag:5}] bucket-{b['id']} x{b['count']}: {b['signature']}")
    print(f"{data['new_failures']} failing bucket(s) not in the known-issues "
          f"list, {data['known_failures']} known; details in {out}")

# --------------------------------------------------------------------------
# Driver


def submit_next(pool, jobs, args, binaries, mem):
    tool, mutant = next(jobs)
    return pool.submit(run_job, (tool, binaries[tool], mutant, args.timeout,
                                 mem))


def cpu_budget_left(args, stats):
    """With --cpu-seconds: the tools that have not had their CPU time yet."""
    return [t for t in args.tools if stats.cpu_s[t] < args.cpu_seconds]


def fuzz(pool, args, seeds, stats, binaries):
    stream = mutants(args.seed, seeds)
    if args.count:
        stream = itertools.islice(stream, args.count)
    if args.cpu_seconds:
        # Each mutant goes to the tools still short of their CPU time, so a
        # fast tool does not stop early and a slow one does not run long.
        jobs = ((tool, m) for m in stream
                for tool in cpu_budget_left(args, stats))
    else:
        jobs = ((tool, m) for m in stream for tool in args.tools)
    start = time.monotonic()
    deadline = start + args.seconds if args.seconds else None
    mem, pending, exhausted, report = args.mem_mb << 20, set(), False, start
    while True:
        while (not exhausted and len(pending) < args.jobs
               and (deadline is None or time.monotonic() < deadline)
               and (not args.cpu_seconds or cpu_budget_left(args, stats))):
            try:
                pending.add(submit_next(pool, jobs, args, binaries, mem))
            except StopIteration:
                exhausted = True
        if not pending:
            return
        done, pending = cf.wait(pending, timeout=1.0,
                                return_when=cf.FIRST_COMPLETED)
        for fut in done:
            try:
                stats.add(*fut.result())
            except OSError as exc:  # e.g. the binary vanished for 30 s
                print(f"fuzz.py: run failed: {exc}", file=sys.stderr)
        if time.monotonic() - report >= 15:
            report = time.monotonic()
            cpu = ", ".join(f"{t} {stats.cpu_s[t]:.0f}" for t in args.tools)
            print(f"[{report - start:6.0f} s] {len(stats.mutants)} mutants, "
                  f"CPU-s {cpu}, "
                  f"{len(stats.buckets)} buckets, "
                  f"{len(stats.new_failures())} new failing", flush=True)


def reduce_buckets(pool, args, stats, binaries):
    todo = [b for b in stats.buckets.values()
            if b.outcome in ("CRASH", "SILENT")]
    if not todo or args.reduce_seconds <= 0:
        return
    print(f"reducing {len(todo)} bucket(s), {args.reduce_seconds} s each",
          flush=True)
    mem = args.mem_mb << 20
    futs = [pool.submit(reduce_job, (b.tool, binaries[b.tool], b.mutant,
                                     b.signature, args.timeout, mem,
                                     args.reduce_seconds)) for b in todo]
    for fut in cf.as_completed(futs):
        sig, text = fut.result()
        stats.buckets[sig].reduced = text


def load_known(path):
    if path is None:
        return []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [l.strip() for l in lines if l.strip() and
            not l.lstrip().startswith("#")]


def wait_for_binaries(binaries):
    for _ in range(20):  # they may be relinked while we start
        missing = [b for b in binaries.values() if not os.access(b, os.X_OK)]
        if not missing:
            return
        time.sleep(3)
    sys.exit(f"fuzz.py: not executable: {', '.join(missing)}")


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Mutation fuzzer for tilec and tilec-opt.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--tilec", default="build/bin/tilec")
    p.add_argument("--tilec-opt", default="build/bin/tilec-opt")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float,
                        help="stop submitting mutants after this long")
    budget.add_argument("--count", type=int,
                        help="number of mutants (default 200)")
    budget.add_argument("--cpu-seconds", type=float,
                        help="run until each tool has used this much CPU "
                             "time (user + system of its runs)")
    p.add_argument("--seed", type=int, default=None, help="default 0")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds per run (default 20, 60 with --smoke)")
    p.add_argument("--mem-mb", type=int, default=4096,
                   help="address-space limit per run (MiB)")
    p.add_argument("--out", default="/tmp/tilec-fuzz")
    p.add_argument("--tools", default=",".join(TOOLS),
                   help="comma-separated subset of tilec,tilec-opt")
    p.add_argument("--known-issues", default=None,
                   help="default docs/fuzz-known-issues.txt when present")
    p.add_argument("--reduce-seconds", type=float, default=0,
                   help="shrink each CRASH/SILENT bucket by deleting lines "
                        "for up to this long (written as reduced.mlir)")
    p.add_argument("--smoke", action="store_true",
                   help="CI mode: seed 1, 500 mutants, 60 s timeout, both "
                        "tools (about a minute on two cores)")
    return finish_args(p, p.parse_args(argv))


def finish_args(parser, args):
    if args.smoke:
        # A fixed number of mutants (not a time budget) keeps the CI run the
        # same on every machine; the long timeout keeps a slow, busy machine
        # from calling a seconds-long compile a hang.
        if args.count is None and args.seconds is None:
            args.count = 500
        args.seed = 1 if args.seed is None else args.seed
        args.timeout = 60 if args.timeout is None else args.timeout
        args.tools = ",".join(TOOLS)
    args.seed = 0 if args.seed is None else args.seed
    args.timeout = 20 if args.timeout is None else args.timeout
    if args.count is None and args.seconds is None and not args.cpu_seconds:
        args.count = 200
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    if not args.tools or any(t not in TOOLS for t in args.tools):
        parser.error(f"--tools: choose from {','.join(TOOLS)}")
    default_known = REPO / "docs" / "fuzz-known-issues.txt"
    if args.known_issues is None and default_known.exists():
        args.known_issues = str(default_known)
    args.jobs = max(1, args.jobs)
    return args


def main(argv=None):
    args = parse_args(argv)
    binaries = {"tilec": os.path.abspath(args.tilec),
                "tilec-opt": os.path.abspath(args.tilec_opt)}
    wait_for_binaries({t: binaries[t] for t in args.tools})
    seeds = load_seeds(REPO)
    stats = Stats(load_known(args.known_issues))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"{len(seeds)} seeds, tools {','.join(args.tools)}, seed "
          f"{args.seed}, {args.jobs} jobs, out {out}", flush=True)
    start = time.monotonic()
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(args.jobs, mp_context=ctx) as pool:
        try:
            fuzz(pool, args, seeds, stats, binaries)
            reduce_buckets(pool, args, stats, binaries)
        except KeyboardInterrupt:
            print("interrupted; writing what was found", file=sys.stderr)
            pool.shutdown(wait=False, cancel_futures=True)
    shown = {t: args.tilec if t == "tilec" else args.tilec_opt for t in TOOLS}
    paths = write_buckets(out, stats, shown)
    data = summary(args, stats, time.monotonic() - start, paths)
    (out / "summary.json").write_text(json.dumps(data, indent=2) + "\n")
    print_summary(data, out)
    return 1 if data["new_failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
