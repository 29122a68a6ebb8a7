"""The package as installed: importable without torch or CuPy, its version
from one place, and a missing compiler library that says to set
TILEC_LIBRARY when the package lies outside a source checkout. (`make
pip-check` installs it with pip into a venv and compiles from there.)"""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import tilec
from tilec import _capi
from conftest import SCALE_SOURCE

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
REPO = os.path.dirname(PYTHON_DIR)

NO_TENSOR_LIBRARIES = """\
import sys
for name in ("torch", "cupy", "numpy", "cuda"):
    sys.modules[name] = None  # importing any of them raises ImportError
"""


def run_python(code, pythonpath, env_changes=None, drop=()):
    env = dict(os.environ, PYTHONPATH=pythonpath, **(env_changes or {}))
    for name in drop:
        env.pop(name, None)
    return subprocess.run([sys.executable, "-c", NO_TENSOR_LIBRARIES + textwrap.dedent(code)],
                          capture_output=True, text=True, env=env, cwd="/")


def test_import_needs_no_tensor_library():
    done = run_python("""
        import tilec, tilec.cache, tilec.runtime, tilec.__main__
        assert "torch" not in [m for m in sys.modules if sys.modules[m] is not None]
        for call in (lambda: tilec.gemm([1], [2]), lambda: tilec.attention([1], [2], [3])):
            try:
                call()
            except TypeError as e:
                assert "must be a tensor" in str(e), e
            else:
                raise AssertionError("a list was taken for a tensor")
        print("ok", tilec.__version__)
    """, PYTHON_DIR)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", tilec.__version__]


def test_installed_copy_says_to_set_tilec_library(tmp_path):
    site = tmp_path / "site-packages"
    shutil.copytree(os.path.join(PYTHON_DIR, "tilec"), site / "tilec",
                    ignore=shutil.ignore_patterns("__pycache__"))
    done = run_python("""
        import tilec
        from tilec import _capi
        assert _capi.source_checkout() is None
        assert _capi.candidate_paths() == [os.path.join(os.path.dirname(tilec.__file__),
                                                        "libtilec-c.so")]
        try:
            tilec.compile("tile.kernel @k() { tile.return }", chip="sm_80", cache=False)
        except tilec.CompilerNotFoundError as e:
            print(e)
    """.replace("import tilec\n", "import os, tilec\n", 1), str(site), drop=["TILEC_LIBRARY"])
    assert done.returncode == 0, done.stderr
    assert "installed outside a source checkout" in done.stdout
    assert "set TILEC_LIBRARY to the libtilec-c.so of a tilec build" in done.stdout


def test_checkout_copy_finds_the_build_tree():
    assert _capi.source_checkout() == REPO
    paths = _capi.checkout_paths("libtilec-c.so")
    assert os.path.join(REPO, "build", "lib", "libtilec-c.so") in paths


def test_installed_copy_compiles_with_tilec_library(library, tmp_path):
    site = tmp_path / "site-packages"
    shutil.copytree(os.path.join(PYTHON_DIR, "tilec"), site / "tilec",
                    ignore=shutil.ignore_patterns("__pycache__"))
    done = run_python(f"""
        import tilec
        r = tilec.compile({SCALE_SOURCE!r}, chip="sm_80", emit="ptx", cache=False)
        assert ".entry scale" in r.ptx
        print(tilec.__file__)
    """, str(site), env_changes={"TILEC_LIBRARY": library.path})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(site / "tilec" / "__init__.py")


def test_pyproject_takes_the_packages_version():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(PYTHON_DIR, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)
    assert project["project"]["name"] == "tilec"
    assert "version" in project["project"]["dynamic"] and "version" not in project["project"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "tilec.__version__"}
    assert project["project"]["dependencies"] == []
    assert project["tool"]["setuptools"]["packages"] == ["tilec"]
    assert os.path.isfile(os.path.join(PYTHON_DIR, project["project"]["readme"]))
