"""The one way the scripts and benchmarks find the checkout (issue 52):
``_paths.py`` beside the scripts of scripts/gpu, scripts/build, scripts/dev
and bench/ (scripts/README.md). Its copies are identical, importing it from
any of those directories gives the repository root and puts the script
directories on ``sys.path``, and no other script or benchmark edits
``sys.path`` (bench/corpus.py's corpus/ excepted: its entries must shadow
bench's modules of the same name)."""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COPIES = ("scripts/gpu", "scripts/build", "scripts/dev", "bench")
#: sys.path edits allowed outside _paths.py: (file, line).
ALLOWED = {("bench/corpus.py", 'sys.path.insert(0, os.path.join(ROOT, "corpus"))')}


def test_copies_are_identical():
    texts = {d: open(os.path.join(ROOT, d, "_paths.py")).read() for d in COPIES}
    assert len(set(texts.values())) == 1, "the _paths.py copies differ: " + ", ".join(COPIES)


@pytest.mark.parametrize("directory", COPIES)
def test_import_finds_the_checkout(directory, tmp_path):
    # From another working directory, as a script of that directory sees it.
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import _paths; "
            "print(_paths.ROOT); print('\\n'.join(sys.path))")
    out = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, directory)],
                         cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    assert os.path.realpath(lines[0]) == os.path.realpath(ROOT)
    path = [os.path.realpath(p) for p in lines[1:]]
    for sub in ("python", "bench", "scripts/common", "scripts/gpu", "scripts/build", "scripts/dev",
                "examples"):
        assert os.path.realpath(os.path.join(ROOT, sub)) in path, sub


def test_no_other_sys_path_edits():
    edits = []
    for directory in ("scripts", "bench"):
        for base, dirs, files in os.walk(os.path.join(ROOT, directory)):
            dirs[:] = [d for d in dirs if not (directory == "bench" and d == "results")]
            for name in sorted(files):
                if not name.endswith(".py") or name == "_paths.py":
                    continue
                path = os.path.join(base, name)
                rel = os.path.relpath(path, ROOT)
                for line in open(path):
                    if re.match(r"\s*sys\.path(\.(insert|append|extend)\b|\s*(\[.*\])?\s*[+]?=)",
                                line) and (rel, line.strip()) not in ALLOWED:
                        edits.append(f"{rel}: {line.strip()}")
    assert edits == [], "use `from _paths import ROOT` (scripts/README.md) instead"
