"""What the GPU checks and benchmarks record beside their artifacts and
results (no torch needed, so the build side imports it too):

* ``stamp_commit(directory)``: ``directory/commit.txt``, the short commit
  the artifacts were compiled from (``+dirty`` with uncommitted changes to
  tracked files), written by the build step;
* ``read_commit(directory)``: that stamp (None without one), for the JSON;
* ``open_log(out, name, mode="w")``: a ``log(message)`` that prints and
  appends to ``out/name`` (``mode="a"``: to what it already holds);
* ``write_result(result, out, name, log)``: logs how many of
  ``result["correctness"]`` are ok, writes ``result`` to ``out/name`` as
  JSON, and returns the exit status (1 when any check failed).
"""

import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True,
                          text=True).stdout.strip()


def stamp_commit(directory):
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    with open(os.path.join(directory, "commit.txt"), "w") as f:
        f.write(_git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else "") + "\n")


def read_commit(directory):
    path = os.path.join(directory, "commit.txt")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read().strip()


def open_log(out, name, mode="w"):
    os.makedirs(out, exist_ok=True)
    logf = open(os.path.join(out, name), mode)

    def log(message):
        print(message, flush=True)
        logf.write(message + "\n")
        logf.flush()
    return log


def write_result(result, out, name, log):
    checks = result["correctness"]
    bad = [r for r in checks if not r["ok"]]
    log(f"correctness: {len(checks) - len(bad)}/{len(checks)} ok")
    with open(os.path.join(out, name), "w") as f:
        json.dump(result, f, indent=1)
    return 1 if bad else 0
