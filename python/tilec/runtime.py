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


_TMA_DTYPES = {
    "bf16": "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16",
    "f16": "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
    "f32": "CU_TENSOR_MAP_DATA_TYPE_FLOAT32",
    "f64": "CU_TENSOR_MAP_DATA_TYPE_FLOAT64",
    "i32": "CU_TENSOR_MAP_DATA_TYPE_INT32",
    "i64": "CU_TENSOR_MAP_DATA_TYPE_INT64",
    "i8": "CU_TENSOR_MAP_DATA_TYPE_UINT8",
    "f8e4m3": "CU_TENSOR_MAP_DATA_TYPE_UINT8",
    "f8e5m2": "CU_TENSOR_MAP_DATA_TYPE_UINT8",
}
_TMA_SWIZZLES = {0: "CU_TENSOR_MAP_SWIZZLE_NONE", 32: "CU_TENSOR_MAP_SWIZZLE_32B",
                 64: "CU_TENSOR_MAP_SWIZZLE_64B", 128: "CU_TENSOR_MAP_SWIZZLE_128B"}


def encode_tensor_map(spec, address, values):
    """The 128 bytes of a CUtensorMap for a ``tensor_maps`` entry of the
    metadata; ``values`` maps parameter names to launch values."""
    driver = _driver()

    def value(v):
        return int(values[v]) if isinstance(v, str) else int(v)

    eb = spec["elem_bytes"]
    # An empty dimension never issues a copy; the map still needs extent 1.
    dims = [max(1, value(v)) for v in spec["sizes"]]
    strides = [value(v) * eb for v in spec["strides"][1:]]
    if address % 16 or any(st % 16 for st in strides):
        raise LaunchError(f"tensor map of '{spec['base']}': TMA needs a 16-byte aligned base "
                          f"and 16-byte multiple strides (got {address:#x}, {strides})")
    rank = len(dims)
    cu64 = driver.cuuint64_t
    cu32 = driver.cuuint32_t
    tmap = _check(driver.cuTensorMapEncodeTiled(
        getattr(driver.CUtensorMapDataType, _TMA_DTYPES[spec["dtype"]]), rank, address,
        [cu64(d) for d in dims], [cu64(st) for st in strides],
        [cu32(b) for b in spec["box"]], [cu32(1)] * rank,
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(driver.CUtensorMapSwizzle, _TMA_SWIZZLES[spec["swizzle"]]),
        driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
    return ctypes.string_at(tmap.getPtr(), 128)


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
            meta = json.load(f)
        if cubin_path is None:
            cubin_path = os.path.splitext(json_path)[0] + ".cubin"
        with open(cubin_path, "rb") as f:
            cubin = f.read()
        self._init(meta, cubin)

    @classmethod
    def from_artifacts(cls, meta, cubin):
        """A kernel from its parsed metadata and cubin bytes (as
        ``tilec.compile`` returns them), without files."""
        kernel = cls.__new__(cls)
        kernel._init(meta, cubin)
        return kernel

    def _init(self, meta, cubin):
        self.meta = meta
        self.cubin = cubin
        self.name = self.meta["kernel"]
        self.params = self.meta["params"]
        self.tensor_maps = self.meta.get("tensor_maps", [])
        self._function = None
        self._max_programs = None
        self._map_cache = {}

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
        pointers = {}
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
                pointers[p["name"]] = a.data_ptr()
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
        if self.meta.get("persistent"):
            grid = (min(grid[0], self._resident_programs()),) + tuple(grid[1:])
        for spec in self.tensor_maps:
            key = (spec["index"], pointers[spec["base"]],
                   tuple(scalars.get(v, v) for v in spec["sizes"] + spec["strides"]))
            blob = self._map_cache.get(key)
            if blob is None:
                blob = encode_tensor_map(spec, pointers[spec["base"]], scalars)
                if len(self._map_cache) > 256:
                    self._map_cache.clear()
                self._map_cache[key] = blob
            holders.append(ctypes.create_string_buffer(blob, 128))
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


    def _resident_programs(self):
        """Programs a persistent kernel launches: as many as fit on the
        device at once."""
        if self._max_programs is None:
            import torch
            driver = _driver()
            per_sm = _check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                self._function, self.meta["block"][0], int(self.meta.get("smem_bytes", 0))))
            sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
            self._max_programs = max(1, per_sm) * sms
        return self._max_programs


def load(directory, name):
    """The kernel ``name`` compiled into ``directory``."""
    return Kernel(os.path.join(directory, name + ".json"))
