"""The launch contract's conformance cases (test/Runtime/Inputs/
launch-contract.json) through ctypes and libtilec-runtime.so: the same
table, library and answers as test/Runtime/launch-contract.cpp (lit), so
that the Python package and the C++ side cannot drift apart. No GPU and no
driver: binding (checks, grid, parameter slots, tensor maps) makes no
driver call."""

import ctypes
import json
import os

import pytest

from tilec import _rtcapi

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CASES = os.path.join(REPO, "test", "Runtime", "Inputs", "launch-contract.json")

with open(CASES) as f:
    TABLE = json.load(f)


def make_args(specs):
    """A TilecRtArg array of a case's arguments (and the name bytes it
    points to)."""
    args = (_rtcapi.Arg * max(1, len(specs)))()
    names = []
    for arg, spec in zip(args, specs):
        name = spec.get("name")
        if name is not None:
            names.append(name.encode())
        if "ptr" in spec:
            _rtcapi.make_arg(arg, _rtcapi.ARG_POINTER, int(spec["ptr"], 16),
                             _rtcapi.DTYPES[spec.get("dtype", "any")], names[-1] if name else None)
            shape = spec.get("shape")
            if shape is not None:
                arg.rank = len(shape)
                for d, (extent, stride) in enumerate(zip(shape, spec["strides"])):
                    arg.shape[d], arg.strides[d] = extent, stride
        elif "int" in spec:
            _rtcapi.make_arg(arg, _rtcapi.ARG_INT, spec["int"], 0, names[-1] if name else None)
        else:
            _rtcapi.make_arg(arg, _rtcapi.ARG_FLOAT, float(spec["float"]), 0,
                             names[-1] if name else None)
    return args, names


def describe_binding(b):
    """A binding as the table spells it."""
    maps = []
    for m in b.tensorMaps[:b.numTensorMaps]:
        maps.append({"address": hex(m.address), "dtype": _rtcapi.DTYPE_NAMES[m.dtype],
                     "sizes": list(m.sizes[:m.rank]),
                     "byte_strides": list(m.byteStrides[:m.rank - 1]),
                     "box": list(m.box[:m.rank]), "swizzle": m.swizzle,
                     "position": m.position})
    return {"grid": list(b.grid), "values": [hex(v) for v in b.values[:b.numValues]],
            "maps": maps}


def run_case(case):
    lib = _rtcapi.library()
    text = json.dumps(TABLE["kernels"][case["kernel"]]).encode()
    cubin = b"\x7fELF stand-in"
    kernel = ctypes.c_void_p()
    if lib.tilecRtKernelCreate(cubin, len(cubin), text, len(text),
                               ctypes.byref(kernel)) != _rtcapi.SUCCESS:
        return {"metadata_error": _rtcapi.last_error()}
    try:
        args, _names = make_args(case["args"])
        grid = None if case["grid"] is None else (ctypes.c_int64 * 3)(*case["grid"])
        binding = _rtcapi.Binding(structSize=ctypes.sizeof(_rtcapi.Binding))
        status = lib.tilecRtKernelBind(kernel, args, len(case["args"]), grid,
                                       ctypes.byref(binding))
        if status != _rtcapi.SUCCESS:
            assert status == _rtcapi.INVALID_ARGUMENTS
            outcome = {"error": _rtcapi.last_error()}
        else:
            outcome = describe_binding(binding)
        if grid is None:  # validation agrees with binding
            valid = lib.tilecRtKernelValidate(kernel, args, len(case["args"]))
            assert (valid == _rtcapi.SUCCESS) == (status == _rtcapi.SUCCESS)
        return outcome
    finally:
        lib.tilecRtKernelDestroy(kernel)


@pytest.mark.parametrize("case", TABLE["cases"], ids=[c["name"] for c in TABLE["cases"]])
def test_case(case):
    assert run_case(case) == case["expect"]


def test_the_table_covers_errors_and_launches():
    outcomes = [c["expect"] for c in TABLE["cases"]]
    assert sum("error" in o for o in outcomes) >= 20
    assert sum("grid" in o for o in outcomes) >= 8
    assert sum("metadata_error" in o for o in outcomes) >= 3


def test_evaluate_grid():
    assert _rtcapi.evaluate_grid(["ceildiv(M, 128) * 2", "mod(0 - M, 7)"], ["M"], [300]) == (
        6, (-300) % 7, 1)
    with pytest.raises(ValueError, match="unknown parameter 'N'"):
        _rtcapi.evaluate_grid(["N"], ["M"], [1])
    with pytest.raises(ValueError, match="division by zero"):
        _rtcapi.evaluate_grid(["ceildiv(M, 0)"], ["M"], [1])


def test_api_version_and_errors():
    lib = _rtcapi.library()
    assert lib.tilecRtGetAPIVersion() == _rtcapi.API_VERSION
    assert ctypes.sizeof(_rtcapi.Arg) == 128
    kernel = ctypes.c_void_p()
    assert lib.tilecRtKernelCreate(b"", 0, b"{", 1, ctypes.byref(kernel)) == \
        _rtcapi.INVALID_ARGUMENTS
    assert not kernel.value and _rtcapi.last_error().startswith("<kernel>.json: ")


class _LaunchConfig(ctypes.Structure):
    """The head of CUlaunchConfig (what the fake driver reads)."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.c_void_p), ("numAttrs", ctypes.c_uint)]


@pytest.fixture
def fake_driver():
    """A driver of ctypes callbacks in place of libcuda (tilecRtSetDriver):
    one context, module and function; launches and encodes recorded."""
    calls = {"launches": [], "encodes": [], "loads": 0}
    ok = 0

    def out_ptr(p, value):
        p[0] = value
        return ok

    def launch(config, function, params, extra):
        c = _LaunchConfig.from_address(config)
        values = [ctypes.c_uint64.from_address(params[i]).value for i in range(9)]
        calls["launches"].append((tuple(c.grid), c.stream, values))
        return ok

    def encode(m, dtype, rank, address, sizes, strides, box, elem, il, sw, l2, oob):
        calls["encodes"].append((address, [sizes[i] for i in range(rank)]))
        return ok

    def load(module, image):
        calls["loads"] += 1
        return out_ptr(module, 0x2000)
    impl = {
        "getErrorName": lambda e, name: out_ptr(name, b"CUDA_ERROR_FAKE"),
        "getErrorString": lambda e, text: out_ptr(text, b"fake"),
        "ctxGetCurrent": lambda ctx: out_ptr(ctx, 0xC000),
        "ctxPushCurrent": lambda ctx: ok, "ctxPopCurrent": lambda ctx: out_ptr(ctx, 0xC000),
        "ctxGetDevice": lambda dev: out_ptr(dev, 0),
        "deviceGetAttribute": lambda value, attr, dev: out_ptr(value, 132),
        "moduleLoadData": load, "moduleUnload": lambda m: ok,
        "moduleGetFunction": lambda f, m, name: out_ptr(f, 0x3000),
        "funcSetAttribute": lambda f, attr, v: ok,
        "occupancyMaxActiveBlocksPerMultiprocessor": lambda n, f, b, s: out_ptr(n, 1),
        "occupancyMaxActiveClusters": lambda n, f, c: out_ptr(n, 16),
        "tensorMapEncodeTiled": encode, "launchKernelEx": launch}
    table = _rtcapi.Driver(**{name: ftype(impl[name]) for name, ftype in
                              _rtcapi.DRIVER_FUNCTIONS})
    _rtcapi.set_driver(table)
    yield calls
    _rtcapi.set_driver(None)


def gemm_kernel():
    """(the library, the table's gemm kernel created on the fake driver,
    the arguments of its case gemm-ok)."""
    lib = _rtcapi.library()
    case = next(c for c in TABLE["cases"] if c["name"] == "gemm-ok")
    text = json.dumps(TABLE["kernels"]["gemm"]).encode()
    kernel = ctypes.c_void_p()
    assert lib.tilecRtKernelCreate(b"\x7fELF", 4, text, len(text), ctypes.byref(kernel)) == 0
    args, _ = make_args(case["args"])
    return lib, kernel, args


def test_prepared_launch_on_a_fake_driver(fake_driver):
    """tilecRtLaunchCreate then tilecRtLaunchRun with one argument buffer:
    the same arguments launch without binding again, a new pointer is bound
    (and its tensor map encoded), a refused one launches nothing and keeps
    the launch's arguments; the persistent grid is capped at 132."""
    lib, kernel, args = gemm_kernel()
    launch = ctypes.c_void_p()
    args[3].intValue = 3001  # 24 x 10 tiles: more than the 132 resident programs
    assert lib.tilecRtLaunchCreate(kernel, args, 9, None, ctypes.byref(launch)) == 0, \
        _rtcapi.last_error()
    grid = (ctypes.c_int64 * 3)()
    lib.tilecRtLaunchGetGrid(launch, grid)
    assert list(grid) == [132, 1, 1] and fake_driver["loads"] == 1
    assert len(fake_driver["encodes"]) == 2
    assert lib.tilecRtLaunchRun(launch, args, 9, 0x5000) == 0
    assert lib.tilecRtLaunchRun(launch, None, 0, 0x5000) == 0
    assert len(fake_driver["encodes"]) == 2  # nothing bound again
    args[0].address = 0x50000
    assert lib.tilecRtLaunchRun(launch, args, 9, 0x5000) == 0
    assert fake_driver["encodes"][-1][0] == 0x50000
    args[0].address = 0x50002
    assert lib.tilecRtLaunchRun(launch, args, 9, 0x5000) == _rtcapi.INVALID_ARGUMENTS
    assert "'A' must be 16-byte aligned" in _rtcapi.last_error()
    assert lib.tilecRtLaunchRun(launch, None, 0, 0x5000) == 0
    launches = fake_driver["launches"]
    assert len(launches) == 4 and all(g == (132, 1, 1) and s == 0x5000 for g, s, _ in launches)
    assert [v[0] for _, _, v in launches] == [0x10000, 0x10000, 0x50000, 0x50000]
    assert launches[0][2][3:] == [3001, 600, 300, 304, 608, 600]
    assert lib.tilecRtKernelLaunch(kernel, args, 9, None, None) == _rtcapi.INVALID_ARGUMENTS
    lib.tilecRtLaunchDestroy(launch)
    lib.tilecRtKernelDestroy(kernel)


def test_launch_update_binds_once(fake_driver):
    """tilecRtLaunchUpdate binds new arguments without launching (one
    encode of the new map), and a tilecRtLaunchRun with the same buffer
    then launches without binding again; a refused update launches nothing
    and the launch keeps its arguments."""
    lib, kernel, args = gemm_kernel()
    launch = ctypes.c_void_p()
    assert lib.tilecRtLaunchCreate(kernel, args, 9, None, ctypes.byref(launch)) == 0, \
        _rtcapi.last_error()
    encodes = len(fake_driver["encodes"])
    args[0].address = 0x50000
    assert lib.tilecRtLaunchUpdate(launch, args, 9) == 0, _rtcapi.last_error()
    assert len(fake_driver["encodes"]) == encodes + 1 and not fake_driver["launches"]
    assert fake_driver["encodes"][-1][0] == 0x50000
    assert lib.tilecRtLaunchRun(launch, args, 9, 0x5000) == 0
    assert len(fake_driver["encodes"]) == encodes + 1  # not bound again
    args[0].address = 0x50002
    assert lib.tilecRtLaunchUpdate(launch, args, 9) == _rtcapi.INVALID_ARGUMENTS
    assert "'A' must be 16-byte aligned" in _rtcapi.last_error()
    assert lib.tilecRtLaunchRun(launch, None, 0, 0x5000) == 0
    assert [v[0] for _, _, v in fake_driver["launches"]] == [0x50000, 0x50000]
    assert lib.tilecRtLaunchUpdate(launch, None, 9) == _rtcapi.INVALID_CALL
    lib.tilecRtLaunchDestroy(launch)
    lib.tilecRtKernelDestroy(kernel)
