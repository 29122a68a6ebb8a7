"""What the GPU checks and benchmarks record (no torch needed, so the build
side imports it too):

* ``stamp_commit(directory)``: ``directory/commit.txt``, the short commit
  the artifacts were compiled from (``+dirty`` with uncommitted changes to
  tracked files), written by the build step;
* ``read_commit(directory)``: that stamp (None without one);
* ``open_log(out, name, mode="w")``: a ``log(message)`` that prints and
  appends to ``out/name`` (``mode="a"``: to what it already holds);
* ``new_record(check, artifacts=None, **fields)``: the head every record
  of bench/results/ starts with: date, GPU, commit (``$TILEC_COMMIT``, else
  the artifacts' stamp, else the checkout's), torch version, the check's
  name;
* ``write_record(record, path)`` / ``write_result(result, out, name, log)``:
  the JSON, the latter also logging and returning the exit status from
  ``result["correctness"]`` (1 when any row is not ok);
* ``ratio``, ``geomean``: the numbers records compare by.
"""

import datetime
import json
import math
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True,
                          text=True).stdout.strip()


def checkout_commit():
    """The checkout's short commit, ``+dirty`` with uncommitted changes to
    tracked files (None outside a git checkout)."""
    commit = _git("rev-parse", "--short", "HEAD")
    if not commit:
        return None
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return commit + ("+dirty" if dirty else "")


def stamp_commit(directory):
    """Writes ``directory/commit.txt`` (the build step)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "commit.txt"), "w") as f:
        f.write((checkout_commit() or "unknown") + "\n")


def read_commit(directory):
    """The stamp of ``directory`` (or of the folder above it: a bundle's
    parts carry one stamp), None without one."""
    for d in (directory, os.path.dirname(os.path.normpath(directory))):
        path = os.path.join(d, "commit.txt")
        if os.path.exists(path):
            with open(path) as f:
                return f.read().strip()
    return None


def open_log(out, name, mode="w"):
    """A ``log(message)`` that prints and appends to ``out/name``."""
    os.makedirs(out, exist_ok=True)
    logf = open(os.path.join(out, name), mode)

    def log(message):
        print(message, flush=True)
        logf.write(message + "\n")
        logf.flush()
    return log


def gpu_name():
    """The GPU's name (torch's), or None without torch or a GPU."""
    try:
        import torch
    except ImportError:
        return None
    return torch.cuda.get_device_name() if torch.cuda.is_available() else None


def torch_version():
    try:
        import torch
    except ImportError:
        return None
    return torch.__version__


def new_record(check, artifacts=None, **fields):
    """The head of a record: date, gpu, commit (``$TILEC_COMMIT``, the
    commit a run names itself; else the artifacts' stamp, else the
    checkout's), torch, the check's name, then ``fields``."""
    commit = os.environ.get("TILEC_COMMIT") or (read_commit(artifacts) if artifacts else None)
    record = dict(date=datetime.date.today().isoformat(), gpu=gpu_name(),
                  commit=commit or checkout_commit(), torch=torch_version(), check=check)
    if artifacts:
        record["artifacts"] = artifacts
    record.update(fields)
    return record


def write_record(record, path):
    """``record`` as indented JSON at ``path`` (its folder made)."""
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(record, f, indent=1)


def failures(rows):
    """The rows of a correctness list that are not ok."""
    return [r for r in rows if not r.get("ok")]


def write_result(result, out, name, log=print):
    """Logs how many of ``result["correctness"]`` are ok, writes ``result``
    to ``out/name`` and returns the exit status (1 when any is not)."""
    checks = result.get("correctness", [])
    bad = failures(checks)
    log(f"correctness: {len(checks) - len(bad)}/{len(checks)} ok")
    write_record(result, os.path.join(out, name))
    return 1 if bad else 0


def ratio(numerator, denominator):
    """numerator / denominator rounded to 3 digits, None when either is
    missing or the denominator is 0 (a record keeps the row)."""
    if numerator is None or not denominator:
        return None
    return round(numerator / denominator, 3)


def geomean(values):
    """The geometric mean of the positive values (None when there are none)."""
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def tflops(flops, ms):
    """TFLOP/s of ``flops`` operations in ``ms`` milliseconds."""
    return flops / ms / 1e9 if ms else None


def rates(ms, flops, anchor, names, prefix=""):
    """{prefix + "tflops": TFLOP/s of each timing in ``ms``, prefix +
    "vs_" + anchor: each of ``names`` against the anchor}: a bench row's
    rates (``prefix`` "graph_" for CUDA-graph replays)."""
    tf = {n: tflops(flops, t) for n, t in ms.items()}
    return {prefix + "tflops": tf,
            f"{prefix}vs_{anchor}": {n: ratio(tf[n], tf[anchor]) for n in names}}
