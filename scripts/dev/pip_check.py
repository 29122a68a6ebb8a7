"""Checks a pip-installed tilec package (`make pip-check`).

Run with the venv's python from a directory outside the checkout, reading
this file from stdin (so that nothing of the checkout is on sys.path):

    cd $(BUILD)/pip-check && TILEC_LIBRARY=.../libtilec-c.so venv/bin/python - < scripts/dev/pip_check.py

It checks that the package imported is the installed one, with the version
pip recorded; that importing it needs neither torch nor CuPy; that without
TILEC_LIBRARY the missing compiler library is an error that says to set it;
that with it a tile program compiles to PTX; and that `python -m tilec cache
info` runs. Any failure raises, so the exit status is non-zero.
"""

import importlib.metadata
import os
import subprocess
import sys

# No tensor library: importing tilec and compiling must not need one.
for name in ("torch", "cupy", "numpy"):
    sys.modules[name] = None

import tilec  # noqa: E402
from tilec import _capi  # noqa: E402

SCALE_SOURCE = """\
tile.kernel @scale(%x: !tile.ptr<f32>, %n: i32) grid(ceildiv(%n, 512)) {
  %c512 = arith.constant 512 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c512 : i32
  %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
  %t = tile.load %v[%off] : !tile.view<?xf32, strides = [1]> -> tensor<512xf32>
  %two = arith.constant dense<2.0> : tensor<512xf32>
  %r = arith.mulf %t, %two : tensor<512xf32>
  tile.store %r, %v[%off] : tensor<512xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
"""


def main():
    location = os.path.dirname(os.path.abspath(tilec.__file__))
    assert os.path.realpath(location).startswith(os.path.realpath(sys.prefix)), \
        f"tilec was imported from {location}, not from the venv {sys.prefix}"
    assert _capi.source_checkout() is None, f"{location} looks like a source checkout"
    installed = importlib.metadata.version("tilec")
    assert installed == tilec.__version__, (installed, tilec.__version__)

    library = os.environ.pop("TILEC_LIBRARY", None)
    assert library, "run with TILEC_LIBRARY set to the built libtilec-c.so"
    try:
        tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache=False)
        raise AssertionError("compiled without TILEC_LIBRARY")
    except tilec.CompilerNotFoundError as e:
        assert "set TILEC_LIBRARY" in str(e), f"the error does not say to set TILEC_LIBRARY: {e}"
    os.environ["TILEC_LIBRARY"] = library
    _capi.reset_library()

    r = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache=False)
    assert ".entry scale" in r.ptx, r.ptx[:500]
    assert _capi.load_library().version == tilec.__version__

    info = subprocess.run([sys.executable, "-m", "tilec", "cache", "info"], check=True,
                          capture_output=True, text=True).stdout
    assert "entries:" in info, info
    print(f"pip-check: tilec {installed} installed in {sys.prefix} compiles with {library}")


main()
