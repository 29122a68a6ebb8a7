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
