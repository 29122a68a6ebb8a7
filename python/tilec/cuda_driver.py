"""The CUDA driver side of a launch (:mod:`tilec.runtime`'s lower half).

The torch and ``cuda.bindings.driver`` entry points a launch uses, looked
up once (:func:`_launch_env`; torch and the bindings are imported then, not
before), the driver's result codes turned into :class:`LaunchError`, and
tensor maps: each ``tensor_maps`` entry of a kernel's metadata checked and
encoded as the C++ runtime does (:func:`encode_tensor_map`), and cached per
kernel by the values it depends on (:class:`_MapPlan`).
"""

import ctypes
import operator
import threading

from .errors import LaunchError
from .grid import GridRuleError, is_computed, view_params, view_value


#: The torch dtype of each tilec dtype name (a torch attribute name).
_TORCH_DTYPES = {
    "f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
    "i32": "int32", "i64": "int64", "i8": "int8", "i1": "bool",
    "f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2",
}


#: Entries a kernel's tensor-map cache holds before it starts over.
_MAP_CACHE_LIMIT = 256


class _Env:
    """The torch and driver entry points a launch uses, looked up once."""

    def __init__(self):
        import torch
        from cuda.bindings import driver
        torch.cuda.init()  # ensures a current primary context
        self.torch = torch
        self.driver = driver
        self.tensor_type = torch.Tensor
        self.launch = driver.cuLaunchKernel
        self.success = driver.CUresult.CUDA_SUCCESS
        self.make_stream = driver.CUstream
        self.streams = {}  # raw handle -> CUstream
        c = getattr(torch, "_C", None)
        get_device = getattr(c, "_cuda_getDevice", None)
        self.current_device = get_device if callable(get_device) else torch.cuda.current_device
        raw_stream = getattr(c, "_cuda_getCurrentRawStream", None)
        self.current_stream = raw_stream if callable(raw_stream) else (
            lambda device: torch.cuda.current_stream(device).cuda_stream)
        self.device_context = torch.cuda.device
        self.dtypes = {}  # tilec dtype name -> torch dtype

    def torch_dtype(self, name):
        """The torch dtype of a tilec dtype name (``None`` for none)."""
        try:
            return self.dtypes[name]
        except KeyError:
            pass
        want = _TORCH_DTYPES.get(name)
        dtype = getattr(self.torch, want, None) if want else None
        self.dtypes[name] = dtype
        return dtype

    def cu_stream(self, stream):
        """The CUstream of a raw handle (memoized) or CUstream object."""
        if isinstance(stream, int):
            cu = self.streams.get(stream)
            if cu is None:
                if len(self.streams) > 1024:
                    self.streams.clear()
                cu = self.streams[stream] = self.make_stream(stream)
            return cu
        if isinstance(stream, self.make_stream):
            return stream
        return self.make_stream(stream)


_env = None


_env_lock = threading.Lock()


def _launch_env():
    global _env
    with _env_lock:
        if _env is None:
            _env = _Env()
        return _env


def _forget_modules():
    """Forgets the torch / driver modules looked up so far (tests that swap
    them)."""
    global _env
    _env = None


def _driver():
    env = _env
    if env is not None:
        return env.driver
    from cuda.bindings import driver
    return driver


def _check(result):
    err = result[0]
    driver = _driver()
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise LaunchError(f"CUDA driver error {name.decode() if name else err}")
    return result[1] if len(result) == 2 else result[1:]


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


def _describe_view_value(v, value, values):
    """"name=value", the constant, or "S * BH = 0 (S=0, BH=8)", as the C++
    runtime spells a tensor-map size or stride in its messages."""
    if is_computed(v):
        params = ", ".join(f"{n}={int(values[n])}" for n in view_params(v))
        return f"{v} = {value} ({params})"
    return f"{v}={value}" if isinstance(v, str) else str(v)


def tensor_map_values(spec, values):
    """(sizes, byte strides past the first), innermost first, of a
    ``tensor_maps`` entry for parameter values ``values`` (a mapping of
    names), checked as the C++ runtime checks them: computed values in
    [0, 2^31), sizes in [0, 2^32] (0 becomes 1: an empty dimension never
    issues a copy), strides positive and below 2^40 bytes."""
    base, eb = spec["base"], spec["elem_bytes"]

    def value(what, d, v):
        try:
            return view_value(v, values)
        except GridRuleError as e:
            params = ", ".join(f"{n}={int(values[n])}" for n in view_params(v)
                               if n in values)
            raise LaunchError(f"tensor map of '{base}': {what} {v} of dimension {d} (innermost "
                              f"first), with {params}, {e}: the kernel computes view sizes and "
                              f"strides in 32-bit integers") from None

    dims, strides = [], []
    for d, v in enumerate(spec["sizes"]):
        size = value("size", d, v)
        if not 0 <= size <= 2**32:
            raise LaunchError(f"tensor map of '{base}': size "
                              f"{_describe_view_value(v, size, values)} of dimension {d} "
                              f"(innermost first) must be in [0, 2^32]")
        dims.append(max(1, size))
    for d, v in enumerate(spec["strides"][1:], 1):
        stride = value("stride", d, v)
        if stride <= 0 or stride * eb >= 2**40:
            raise LaunchError(f"tensor map of '{base}': stride "
                              f"{_describe_view_value(v, stride, values)} of dimension {d} "
                              f"(innermost first) must be positive, a multiple of 16 bytes and "
                              f"below 2^40 bytes ({eb}-byte elements)")
        strides.append(stride * eb)
    return dims, strides


def encode_tensor_map(spec, address, values):
    """The 128 bytes of a CUtensorMap for a ``tensor_maps`` entry of the
    metadata; ``values`` maps parameter names to launch values."""
    driver = _driver()
    dims, strides = tensor_map_values(spec, values)
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


class _MapPlan:
    """How one ``tensor_maps`` entry is fed: its cache key is the launch
    values at ``positions`` (base pointer, then the parameters its sizes
    and strides read)."""

    __slots__ = ("spec", "key", "names", "cache")

    def __init__(self, spec, positions):
        self.spec = spec
        names = [spec["base"]]
        try:
            for v in list(spec["sizes"]) + list(spec["strides"]):
                names += [n for n in view_params(v) if n not in names]
        except GridRuleError as e:
            raise LaunchError(f"tensor map of '{spec['base']}': {e}") from None
        self.names = names
        missing = [n for n in self.names if n not in positions]
        if missing:
            raise LaunchError(f"tensor map of '{spec['base']}' uses unknown parameter(s) "
                              f"{', '.join(missing)}")
        indices = [positions[n] for n in self.names]
        getter = operator.itemgetter(*indices)
        self.key = getter if len(indices) > 1 else (lambda v, g=getter: (g(v),))
        self.cache = {}

    def blob(self, values, key):
        """Encodes the map for ``values`` (a cache miss)."""
        named = dict(zip(self.names, key))
        blob = encode_tensor_map(self.spec, int(key[0]), named)
        if len(self.cache) >= _MAP_CACHE_LIMIT:
            self.cache.clear()
        self.cache[key] = blob
        return blob
