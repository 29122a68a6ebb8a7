"""The one way the scripts and benchmarks find the checkout (issue 52): they
are the packages ``scripts`` and ``bench``, run from the repository root as
``python3 -m scripts.<folder>.<name>`` / ``python3 -m bench.<name>``
(scripts/README.md). scripts/__init__.py is the one bootstrap (it puts
python/ on ``sys.path``); no other script or benchmark edits ``sys.path``,
there is no ``_paths.py``, and every import of a module of the checkout
names it by its package (``from bench import block_programs``), so that an
import that only worked through a path hack fails here."""

import ast
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = ("scripts", "bench", "corpus")


def python_files():
    for directory in PACKAGES:
        for base, dirs, files in os.walk(os.path.join(ROOT, directory)):
            dirs[:] = [d for d in dirs if d not in ("results", "__pycache__")]
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(base, name)


def test_every_folder_is_a_package():
    for directory in PACKAGES:
        for base, dirs, files in os.walk(os.path.join(ROOT, directory)):
            dirs[:] = [d for d in dirs if d not in ("results", "__pycache__")]
            if any(f.endswith(".py") for f in files):
                assert "__init__.py" in files, os.path.relpath(base, ROOT)


def test_no_paths_module_and_no_sys_path_edits():
    edits = []
    for path in python_files():
        rel = os.path.relpath(path, ROOT)
        assert os.path.basename(path) != "_paths.py", rel
        if rel == os.path.join("scripts", "__init__.py"):
            continue
        for line in open(path):
            if re.match(r"\s*sys\.path(\.(insert|append|extend)\b|\s*(\[.*\])?\s*[+]?=)", line):
                edits.append(f"{rel}: {line.strip()}")
    assert edits == [], "import through the scripts/bench packages (scripts/README.md) instead"


def module_exists(name):
    parts = name.split(".")
    base = os.path.join(ROOT, *parts)
    return os.path.exists(base + ".py") or os.path.exists(os.path.join(base, "__init__.py"))


#: The modules of scripts/, bench/ and corpus/ by their bare names: an
#: ``import block_programs`` only worked through a sys.path edit.
BARE = {os.path.basename(p)[:-3] for p in python_files()} - {"__init__"}


def test_imports_name_their_package():
    wrong = []
    for path in python_files():
        rel = os.path.relpath(path, ROOT)
        for node in ast.walk(ast.parse(open(path).read(), rel)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in PACKAGES:
                    if not module_exists(name):
                        wrong.append(f"{rel}:{node.lineno}: no module {name}")
                elif top in BARE:
                    wrong.append(f"{rel}:{node.lineno}: `{top}` by its bare name")
    assert wrong == []


def test_bootstrap_puts_the_checkout_first(tmp_path):
    # As `python3 -m scripts.<...>` from the root sees it.
    code = "import sys, scripts; print(scripts.ROOT); print(sys.path[0])"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    root, first = out.stdout.splitlines()
    assert os.path.realpath(root) == os.path.realpath(ROOT)
    assert os.path.realpath(first) == os.path.realpath(os.path.join(ROOT, "python"))


@pytest.mark.parametrize("module", ["scripts.dev.corpus_schedules", "scripts.build.build_gemm_artifacts"])
def test_runs_as_module(module):
    subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, check=True,
                   capture_output=True, env={**os.environ, "PYTHONPATH": ""})


def top_level_names(path):
    """The names a module defines at its top level (defs, assignments,
    imports)."""
    names = set()
    for node in ast.parse(open(path).read()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {x.id for t in targets for x in ast.walk(t) if isinstance(x, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def test_imported_names_exist():
    # `from bench.block_programs import time_graph_rounds` after it moved
    # to the harness fails here, not on the GPU machine.
    wrong = []
    for path in python_files():
        rel = os.path.relpath(path, ROOT)
        for node in ast.walk(ast.parse(open(path).read(), rel)):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level == 0 and node.module.split(".")[0] in PACKAGES:
                base = os.path.join(ROOT, *node.module.split("."))
            elif node.level == 1:
                base = os.path.join(os.path.dirname(path), *node.module.split("."))
            else:
                continue
            module = base + ".py" if os.path.exists(base + ".py") else os.path.join(base, "__init__.py")
            for alias in node.names:
                if module_exists(os.path.relpath(os.path.join(base, alias.name), ROOT).replace(os.sep, ".")):
                    continue
                if alias.name not in top_level_names(module):
                    wrong.append(f"{rel}:{node.lineno}: {node.module}.{alias.name}")
    assert wrong == []
