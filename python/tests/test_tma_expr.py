"""Tensor maps whose sizes and strides the kernel computes (issue 51): the
launch metadata carries an expression over the integer parameters (``"S *
BH"``), in the grid rule's syntax, which the runtime evaluates at launch.
Run on the fake torch and CUDA driver of fake_cuda.py: the shared cases of
test/Runtime/Inputs (which the C++ runtime and the AOT header run too)
through tilec.runtime (libtilec-runtime.so), and the metadata check of
tilec.checks."""

import json
import os
import types

import pytest

import fake_cuda
from tilec import checks, runtime
from tilec.errors import ArgumentError, GridRuleError

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
INPUTS = os.path.join(REPO, "test", "Runtime", "Inputs")
ATTENTION_ROWS = os.path.join(REPO, "test", "Target", "attention-rows-ptx.mlir")
#: The struct format of each parameter kind (fake_cuda records launches by it).
FORMATS = {"pointer": "Q", "i32": "i", "i64": "q", "f32": "f"}


def read_cases(name):
    """(name, integer parameter values, "ok" or "error") of a cases file."""
    cases = []
    with open(os.path.join(INPUTS, name)) as f:
        for line in f:
            tokens = line.split()
            if len(tokens) >= 2 and not tokens[0].startswith("#"):
                cases.append((tokens[0], [int(t) for t in tokens[1:-1]], tokens[-1]))
    return cases


@pytest.fixture
def fakes():
    torch, driver = fake_cuda.install()
    yield torch, driver
    fake_cuda.uninstall()


@pytest.fixture(scope="module")
def attention_rows_meta(library, tmp_path_factory):
    """The launch metadata tilec writes for attention_rows_bf16."""
    import tilec
    with open(ATTENTION_ROWS) as f:
        source = f.read()
    result = tilec.compile(source, chip="sm_90a", emit="ptx",
                           cache_dir=tmp_path_factory.mktemp("cache"))
    return result["attention_rows_bf16"].metadata


def kernel_of(meta, driver):
    kernel = runtime.Kernel.from_artifacts(meta, b"\x7fELF fake cubin")
    driver.param_formats = [FORMATS["pointer"] if p["kind"] == "pointer" else
                            FORMATS[p["dtype"]] for p in kernel.params]
    driver.param_formats += ["128s"] * len(kernel.tensor_maps)
    return kernel


def launch_case(kernel, ints):
    """Launches ``kernel`` with fresh bf16 tensors for its pointers, ``ints``
    for its integer scalars in order and 0.5 for the others, as the C++
    runners do; returns the LaunchError, or None."""
    values = iter(ints)
    args = [fake_cuda.tensor((16,)) if p["kind"] == "pointer" else
            next(values) if p["dtype"] in ("i32", "i64") else 0.5 for p in kernel.params]
    try:
        kernel(*args)
    except runtime.LaunchError as e:
        return e
    return None


def launched_maps(driver, kernel):
    """(address, sizes, byte strides) of the last launch's tensor maps."""
    blobs = driver.launches[-1]["params"][len(kernel.params):]
    return [fake_cuda.decode_tensor_map(b) for b in blobs]


# -- the shared cases ----------------------------------------------------------

META_CASES = read_cases("tma-expr-meta-cases.txt")


@pytest.mark.parametrize("name,ints,outcome", META_CASES, ids=[c[0] for c in META_CASES])
def test_shared_cases_of_written_metadata(fakes, name, ints, outcome):
    torch, driver = fakes
    with open(os.path.join(INPUTS, "tma-expr-meta.json")) as f:
        kernel = kernel_of(json.load(f), driver)
    error = launch_case(kernel, ints)
    assert (error is None) == (outcome == "ok"), f"{name}: {error}"
    assert "unknown parameter" not in str(error)  # the expressions are read
    if name == "ok":  # sizes [64, s * bh, bh], strides [1, h * d, h * d * s]
        (address, sizes, strides), = launched_maps(driver, kernel)
        assert sizes == [64, 400, 4] and strides == [64 * 2, 6400 * 2]


def test_shared_cases_messages(fakes):
    """The C++ runtime's words (test/Runtime/kernel-spec.cpp) where the
    Python runtime checks the same rule."""
    torch, driver = fakes
    with open(os.path.join(INPUTS, "tma-expr-meta.json")) as f:
        kernel = kernel_of(json.load(f), driver)
    expected = {
        "size-2^32": "tensor map of 'x': size s * bh of dimension 1 (innermost first), with "
                     "s=65536, bh=65536, computes 4294967296, outside [0, 2^31): the kernel "
                     "computes view sizes and strides in 32-bit integers",
        "size-0": "computed: tensor map of 'x': size s * bh = 0 (s=0, bh=4) of dimension 1 "
                  "(innermost first) must be at least 1 when the grid has programs",
        "stride-0": "computed: tensor map of 'x': stride h * d = 0 (h=2, d=0) of dimension 1 "
                    "(innermost first) must be positive when the grid has programs",
        "stride-bytes": "tensor map of 'x': stride h * d = 15 (h=3, d=5) of dimension 1 "
                        "(innermost first) must be positive, a multiple of 16 bytes and below "
                        "2^40 bytes (2-byte elements)",
    }
    cases = {name: ints for name, ints, _ in META_CASES}
    for name, text in expected.items():
        error = launch_case(kernel, cases[name])
        assert error is not None and text in str(error), (name, error)
    assert driver.launches == []


def test_prepared_launch_refuses_a_computed_zero(fakes):
    torch, driver = fakes
    with open(os.path.join(INPUTS, "tma-expr-meta.json")) as f:
        kernel = kernel_of(json.load(f), driver)
    x = fake_cuda.tensor((16,)).data_ptr()
    launch = kernel.prepare([x, 100, 4, 2, 32])
    with pytest.raises(runtime.LaunchError, match="size s \\* bh = 0 .* must be at least 1"):
        launch.update([x, 0, 4, 2, 32])
    with pytest.raises(runtime.LaunchError, match="stride h \\* d = 0 .* must be positive"):
        kernel.prepare([x, 100, 4, 2, 0])
    kernel.prepare([x, 0, 0, 2, 32])  # no programs: nothing to refuse


ROWS_CASES = read_cases("tma-expr-cases.txt")


@pytest.mark.parametrize("name,ints,outcome", ROWS_CASES, ids=[c[0] for c in ROWS_CASES])
def test_shared_cases_of_a_compiled_kernel(fakes, attention_rows_meta, name, ints, outcome):
    torch, driver = fakes
    kernel = kernel_of(attention_rows_meta, driver)
    error = launch_case(kernel, ints)
    assert (error is None) == (outcome == "ok"), f"{name}: {error}"
    assert error is None or "outside [0, 2^31)" in str(error), error
    s, bh = ints
    if outcome != "ok" or s == 0:
        assert driver.launches == []
        return
    maps = {address: (sizes, strides) for address, sizes, strides in
            launched_maps(driver, kernel)}
    bases = {p["name"]: a for p, a in zip(kernel.params, driver.launches[-1]["params"])}
    # Q, K and V are [S * BH, 128]; O is [BH, S, 128] with head stride S * 128.
    for name in ("K", "V"):
        assert maps[bases[name]] == ([128, s * bh], [256])
    assert maps[bases["O"]] == ([128, s, bh], [256, s * 128 * 2])


def test_compiled_metadata_carries_the_expressions(attention_rows_meta):
    maps = {m["base"]: m for m in attention_rows_meta["tensor_maps"]}
    assert maps["K"]["sizes"] == [128, "S * BH"] and maps["K"]["strides"] == [1, 128]
    assert maps["O"]["sizes"] == [128, "S", "BH"] and maps["O"]["strides"] == [1, 128, "S * 128"]


# -- the metadata check of the ops ---------------------------------------------


def test_view_values_are_checked_in_the_kernels_range():
    env = {"S": 1000, "BH": 3, "H": 2, "N": -1}
    assert checks.view_value("S * BH", env) == 3000
    assert checks.view_value("S", env) == 1000 and checks.view_value(7, env) == 7
    assert checks.view_value("floordiv(S, 128) * 128 + mod(S, 128)", env) == 1000
    assert checks.view_value("(S)", env) == 1000
    for text, message in [("S * BH * 1000000", "computes 3000000000, outside"),
                          ("N - 2", "computes -3, outside"),
                          ("ceildiv(S, H - 2)", "division by zero")]:
        with pytest.raises(GridRuleError, match=message):
            checks.view_value(text, env)
    assert checks.view_params("S * BH + mod(S, H)") == ("S", "BH", "H")
    assert checks.view_params("lda") == ("lda",) and checks.view_params(8) == ()


def test_ops_metadata_check_reads_computed_strides():
    meta = {"params": [{"name": "x", "kind": "pointer", "dtype": "bf16"},
                       {"name": "h", "kind": "scalar", "dtype": "i32"},
                       {"name": "d", "kind": "scalar", "dtype": "i32"}],
            "tensor_maps": [{"base": "x", "elem_bytes": 2, "sizes": [64, "h"],
                             "strides": [1, "h * d"]}]}
    x = types.SimpleNamespace(ptr=0x10000, dtype="bf16")
    assert checks._metadata_problem("op", meta, {"x": x, "h": 2, "d": 32}, {}) is None
    problem = checks._metadata_problem("op", meta, {"x": x, "h": 3, "d": 5}, {})
    assert isinstance(problem, ArgumentError)
    assert "h * d = 15 elements (30 bytes) is not a multiple of 16 bytes" in str(problem)
    problem = checks._metadata_problem("op", meta, {"x": x, "h": -3, "d": 5}, {})
    assert "stride h * d of the tensor map of x computes -15, outside" in str(problem)
    # Values it does not have are not checked.
    assert checks._metadata_problem("op", meta, {"x": x, "h": 3}, {}) is None
