"""Loads a tilec kernel (cubin + <kernel>.json) and launches it.

Only the metadata file and the cubin are used: parameter names, kinds and
dtypes, block size, dynamic shared memory and the grid rule all come from
``<kernel>.json``. Launches go through the CUDA driver API
(``cuda.bindings.driver``) on the current torch stream.
"""

import ctypes
import json
import os
import struct

from .grid import evaluate_grid

_SCALAR_CTYPES = {
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}

_TORCH_DTYPES = {
    "f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
    "i32": "int32", "i64": "int64", "i8": "int8", "i1": "bool",
    "f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2",
}


class LaunchError(RuntimeError):
    pass


def _driver():
    from cuda.bindings import driver
    return driver


def _check(result):
    err = result[0]
    driver = _driver()
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise LaunchError(f"CUDA driver error {name.decode() if name else err}")
    return result[1] if len(result) == 2 else result[1:]


def _half_bits(value, dtype):
    import numpy as np
    if dtype == "f16":
        return int(np.array(value, dtype=np.float16).view(np.uint16))
    # bf16: the high half of the f32 bit pattern, rounded to nearest even.
    bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
    bits += 0x7FFF + ((bits >> 16) & 1)
    return (bits >> 16) & 0xFFFF


class Kernel:
    """One compiled kernel: ``Kernel(path)`` with ``path`` the .json file or
    the directory and kernel name."""

    def __init__(self, json_path, cubin_path=None):
        with open(json_path) as f:
            self.meta = json.load(f)
        if cubin_path is None:
            cubin_path = os.path.splitext(json_path)[0] + ".cubin"
        with open(cubin_path, "rb") as f:
            self.cubin = f.read()
        self.name = self.meta["kernel"]
        self.params = self.meta["params"]
        self._function = None

    def _load(self):
        if self._function is not None:
            return self._function
        import torch
        torch.cuda.init()  # ensures a current primary context
        driver = _driver()
        module = _check(driver.cuModuleLoadData(self.cubin))
        function = _check(driver.cuModuleGetFunction(module, self.name.encode()))
        smem = int(self.meta.get("smem_bytes", 0))
        if smem > 48 * 1024:
            _check(driver.cuFuncSetAttribute(
                function,
                driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                smem))
        self._module, self._function = module, function
        return function

    def grid(self, **scalars):
        rule = self.meta.get("grid") or []
        if not rule:
            raise LaunchError(f"{self.name}: no grid rule in the metadata; pass grid=")
        return evaluate_grid(rule, scalars)

    def __call__(self, *args, grid=None, stream=None):
        import torch
        if len(args) != len(self.params):
            raise LaunchError(f"{self.name} takes {len(self.params)} arguments "
                              f"({', '.join(p['name'] for p in self.params)}), got {len(args)}")
        holders = []
        scalars = {}
        for p, a in zip(self.params, args):
            if p["kind"] == "pointer":
                if not isinstance(a, torch.Tensor) or not a.is_cuda:
                    raise LaunchError(f"{self.name}: '{p['name']}' must be a CUDA tensor")
                want = _TORCH_DTYPES.get(p["dtype"])
                if want and a.dtype != getattr(torch, want):
                    raise LaunchError(f"{self.name}: '{p['name']}' must have dtype {want}, "
                                      f"got {a.dtype}")
                align = p.get("align")
                if align and a.data_ptr() % align:
                    raise LaunchError(f"{self.name}: '{p['name']}' must be {align}-byte "
                                      f"aligned (data_ptr % {align} = {a.data_ptr() % align})")
                holders.append(ctypes.c_uint64(a.data_ptr()))
            else:
                dt = p["dtype"]
                if dt in ("f16", "bf16"):
                    holders.append(ctypes.c_uint16(_half_bits(a, dt)))
                else:
                    holders.append(_SCALAR_CTYPES[dt](a))
                if dt in ("i32", "i64"):
                    scalars[p["name"]] = int(a)
                    div = p.get("divisibility")
                    if div and int(a) % div:
                        raise LaunchError(f"{self.name}: '{p['name']}' = {int(a)} must be a "
                                          f"multiple of {div}")
        if grid is None:
            grid = self.grid(**scalars)
        grid = tuple(grid) + (1,) * (3 - len(grid))
        if any(g <= 0 for g in grid):
            return  # empty problem: nothing to launch
        function = self._load()
        ptrs = (ctypes.c_void_p * len(holders))(
            *[ctypes.addressof(h) for h in holders])
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        block = self.meta["block"]
        driver = _driver()
        _check(driver.cuLaunchKernel(
            function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
            int(self.meta.get("smem_bytes", 0)), driver.CUstream(stream),
            ctypes.addressof(ptrs), 0))


def load(directory, name):
    """The kernel ``name`` compiled into ``directory``."""
    return Kernel(os.path.join(directory, name + ".json"))
