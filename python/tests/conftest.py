"""pytest configuration of the CPU-side tests of the tilec package.

The package is imported from this checkout. Tests that compile need
``libtilec-c.so``: when ``$TILEC_LIBRARY`` names it (as ``make test`` does),
failing to load it fails those tests; otherwise they are skipped. No test
needs torch or a GPU; every cache lives in a temporary directory.
"""

import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, ".."))
# The repository root, after everything else: the scripts package
# (scripts.common.backward_kernels: the attention backward's reference block
# programs; scripts.harness: the GPU checks' harness).
sys.path.append(os.path.abspath(os.path.join(_HERE, "..", "..")))

from tilec import (_capi, api, checks, launch, op_attention, op_batched, op_gemm,  # noqa: E402
                   op_kvcache, op_varlen, ops, plans, targets)

#: The modules of the host layer (tilec.ops's public names come from them).
#: They import their helpers by name, so a helper a test replaces is
#: replaced in each of them that holds it (see :func:`patch_host`).
HOST_MODULES = (targets, plans, checks, launch, op_gemm, op_batched, op_attention, op_kvcache,
                op_varlen, api)

#: A one-kernel tile program: y = 2 * x over n floats.
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


@pytest.fixture(scope="session")
def library():
    """The loaded compiler library (skip or fail when there is none)."""
    try:
        return _capi.load_library()
    except _capi.CompilerNotFoundError as e:
        if os.environ.get("TILEC_LIBRARY"):
            pytest.fail(f"TILEC_LIBRARY is set but the library cannot be used: {e}")
        pytest.skip(f"no tilec compiler library: {e}")


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Keeps every test's cache and artifacts out of the user's directories
    and forgets kernels resolved by earlier tests."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "default-cache"))
    monkeypatch.delenv("TILEC_ARTIFACTS", raising=False)
    ops.clear_kernel_memo()
    yield
    ops.clear_kernel_memo()


@pytest.fixture
def patch_host(monkeypatch):
    """``patch_host(name, value)``: sets ``name`` to ``value`` in every
    module of :data:`HOST_MODULES` that has it (undone after the test), as
    ``monkeypatch.setattr(tilec.ops, name, value)`` did while the layer was
    one module; a name none of them has is an error."""
    def patch(name, value):
        holders = [m for m in HOST_MODULES if hasattr(m, name)]
        assert holders, f"no module of the host layer has {name}"
        for module in holders:
            monkeypatch.setattr(module, name, value)
    return patch


@pytest.fixture
def count_compiles(library, monkeypatch):
    """Counts calls into the compiler library."""
    calls = []
    real = library.compile

    def counting(*args, **kwargs):
        calls.append(kwargs.get("chip"))
        return real(*args, **kwargs)

    monkeypatch.setattr(library, "compile", counting)
    return calls
