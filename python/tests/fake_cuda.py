"""Stand-ins for ``torch``, ``cuda.bindings.driver`` and ``cupy`` so that
the launch path of :mod:`tilec.runtime`, :func:`tilec.gemm` and
:func:`tilec.attention` runs on a machine with neither a GPU nor those
packages.

:func:`install` puts the fakes into ``sys.modules`` (and :func:`uninstall`
takes them out again). The fake driver records every launch: grid, block,
dynamic shared memory, stream and -- when ``driver.param_formats`` lists the
struct format of each kernel parameter -- the parameter values read back
from the ``void*[]`` array the launch was given, so tests can check what a
kernel would have received. With ``driver.record = False`` a launch does
nothing at all (the overhead benchmark).
"""

import ctypes
import enum
import struct
import sys
import types

BASE = 0x7F0000000000  # a 256-byte aligned fake device address


def contiguous_strides(shape):
    """Row-major element strides of `shape` (as torch and CuPy lay it out)."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


class dtype:
    """torch.dtype: a named singleton."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


class device:
    """torch.device: ``device("cuda", 0)`` or ``device("cuda:0")``."""

    __slots__ = ("type", "index")

    def __init__(self, kind, index=None):
        if index is None and isinstance(kind, str) and ":" in kind:
            kind, index = kind.split(":")
            index = int(index)
        elif isinstance(kind, int):
            kind, index = "cuda", kind
        self.type, self.index = kind, index

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        return f"device(type={self.type!r}, index={self.index})"


class _Allocator:
    """Hands out 256-byte aligned addresses; like torch's caching allocator,
    a freed block of the same size is handed out again."""

    next_ptr = BASE + (1 << 30)
    free = {}

    @classmethod
    def take(cls, nbytes):
        size = (nbytes + 511) // 256 * 256
        blocks = cls.free.get(size)
        if blocks:
            return blocks.pop(), size
        ptr = cls.next_ptr
        cls.next_ptr += size
        return ptr, size

    @classmethod
    def give_back(cls, ptr, size):
        cls.free.setdefault(size, []).append(ptr)


_ITEMSIZE = {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8, "int32": 4, "int64": 8,
             "int8": 1, "bool": 1}


class Tensor:
    """The attributes of a torch tensor that tilec reads."""

    def __init__(self, shape, dtype_=None, strides=None, ptr=None, device_=None):
        self.shape = tuple(shape)
        if strides is None:
            strides = contiguous_strides(self.shape)
        self._strides = tuple(strides)
        self.dtype = dtype_ if dtype_ is not None else module.bfloat16
        self._block = None
        if ptr is None:
            span = 1 + sum((e - 1) * s for e, s in zip(self.shape, self._strides) if e)
            ptr, size = _Allocator.take(span * _ITEMSIZE.get(self.dtype.name, 4))
            self._block = (ptr, size)
        self._base = None
        self._ptr = ptr
        self.device = device_ if device_ is not None else device("cuda", 0)
        self.is_cuda = self.device.type == "cuda"

    def __del__(self):
        if self._block is not None:
            _Allocator.give_back(*self._block)

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def data_ptr(self):
        return self._ptr

    def get_device(self):
        return self.device.index if self.is_cuda else -1

    def dim(self):
        return len(self.shape)

    def fill_(self, value):
        """Records the value (what tilec fills a one-element descale with)."""
        self.filled = value
        return self

    def is_contiguous(self):
        return self._strides == contiguous_strides(self.shape)

    def contiguous(self):
        """Itself when contiguous, else a (fake) contiguous copy."""
        return self if self.is_contiguous() else Tensor(self.shape, self.dtype,
                                                        device_=self.device)

    def view(self, *shape):
        """A view of a contiguous tensor with another shape."""
        assert self.is_contiguous()
        view = Tensor(shape, self.dtype, ptr=self._ptr, device_=self.device)
        view._base = self
        return view

    def sum(self, dim, dtype=None):
        """A new tensor without dimension ``dim`` (its values are not computed)."""
        shape = self.shape[:dim] + self.shape[dim + 1:]
        state.tensor_ops.append(("sum", self.shape, dim))
        return Tensor(shape, dtype or self.dtype, device_=self.device)

    def to(self, dtype_):
        return self if dtype_ is self.dtype else Tensor(self.shape, dtype_,
                                                        device_=self.device)

    def float(self):
        return self.to(module.float32)

    def __isub__(self, other):
        """Recorded as ("sub", self's address, launches so far)."""
        state.tensor_ops.append(("sub", self._ptr, len(driver.launches)))
        return self

    def __getitem__(self, index):
        """``t[:, :cols]`` of a 2-D tensor (what tilec's allocation does)."""
        rows, cols = index
        assert rows == slice(None) and cols.start is None and cols.step is None
        view = Tensor((self.shape[0], cols.stop), self.dtype, self._strides, self._ptr,
                      self.device)
        view._base = self  # keeps the buffer
        return view


class DLPackOnly:
    """An object exposing a fake tensor through the DLPack protocol only
    (what the fake ``torch.from_dlpack`` reads back)."""

    def __init__(self, t):
        self._t = t

    def __dlpack__(self, **kwargs):
        return ("fake dltensor", self._t)

    def __dlpack_device__(self):
        return (2, self._t.device.index) if self._t.is_cuda else (1, 0)


def _from_dlpack(x):
    if isinstance(x, Tensor):
        return x
    capsule = x.__dlpack__()
    assert capsule[0] == "fake dltensor"
    return capsule[1]


class Stream:
    def __init__(self, handle, device_index):
        self.cuda_stream = handle
        self.device = device("cuda", device_index)


class _DeviceContext:
    def __init__(self, index):
        # (torch.cuda.device takes an index or a torch.device)
        self.index = index.index if isinstance(index, device) else index

    def __enter__(self):
        self.prev = state.current_device
        state.current_device = self.index
        state.device_switches += 1

    def __exit__(self, *exc):
        state.current_device = self.prev


def _empty(shape, dtype=None, device=None):
    if isinstance(device, str):
        device = globals()["device"](device)
    elif isinstance(device, int):
        device = globals()["device"]("cuda", device)
    return Tensor(shape, dtype, device_=device)


state = types.SimpleNamespace(current_device=0, streams={0: 0x5000, 1: 0x5100},
                              device_switches=0, capability=(9, 0), sms=132, tensor_ops=[])


def _build_torch():
    torch = types.ModuleType("torch")
    torch.__fake__ = True
    torch.Tensor = Tensor
    torch.dtype = dtype
    torch.device = device
    for name in _ITEMSIZE:
        setattr(torch, name, dtype(name))
    torch.float8_e4m3fn = dtype("float8_e4m3fn")
    torch.float8_e5m2 = dtype("float8_e5m2")
    torch.empty = _empty
    torch.empty_like = lambda t: Tensor(t.shape, t.dtype, device_=t.device)
    torch.from_dlpack = _from_dlpack

    cuda = types.ModuleType("torch.cuda")
    cuda.init = lambda: None
    cuda.is_available = lambda: True
    cuda.current_device = lambda: state.current_device
    cuda.current_stream = lambda device=None: Stream(
        state.streams[state.current_device if device is None else device], state.current_device)
    cuda.device = _DeviceContext
    cuda.get_device_capability = lambda index=None: state.capability
    cuda.get_device_properties = lambda index=None: types.SimpleNamespace(
        multi_processor_count=state.sms)
    cuda.synchronize = lambda: None
    torch.cuda = cuda

    c = types.ModuleType("torch._C")
    c._cuda_getDevice = lambda: state.current_device
    c._cuda_getCurrentRawStream = lambda index: state.streams[index]
    torch._C = c
    return torch


# -- cuda.bindings.driver ---------------------------------------------------


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_INVALID_HANDLE = 400


class _Handle:
    def __init__(self, value=0):
        self.value = int(value)

    def __int__(self):
        return self.value

    def getPtr(self):
        return self.value


class CUstream(_Handle):
    pass


class CUmodule(_Handle):
    pass


class CUfunction(_Handle):
    pass


class cuuint64_t(_Handle):
    pass


class cuuint32_t(_Handle):
    pass


class CUtensorMap:
    """128 bytes: base address, then the encoded dims, strides and box as
    u64s (enough for tests to see what was encoded)."""

    def __init__(self, words):
        self._buf = ctypes.create_string_buffer(struct.pack(f"<{len(words)}Q", *words), 128)

    def getPtr(self):
        return ctypes.addressof(self._buf)


def _enum(name, members):
    return enum.IntEnum(name, {m: i for i, m in enumerate(members)})


def decode_tensor_map(blob):
    """(address, dims, byte strides) of a fake-encoded tensor map."""
    words = struct.unpack("<16Q", blob)
    rank = words[1]
    return words[0], list(words[2:2 + rank]), list(words[2 + rank:1 + 2 * rank])


def _build_driver():
    driver = types.ModuleType("cuda.bindings.driver")
    driver.__fake__ = True
    driver.CUresult = CUresult
    driver.CUstream = CUstream
    driver.CUmodule = CUmodule
    driver.CUfunction = CUfunction
    driver.cuuint64_t = cuuint64_t
    driver.cuuint32_t = cuuint32_t
    driver.CUfunction_attribute = _enum("CUfunction_attribute",
                                        ["CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"])
    driver.CUtensorMapDataType = _enum("CUtensorMapDataType", [
        "CU_TENSOR_MAP_DATA_TYPE_UINT8", "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
        "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", "CU_TENSOR_MAP_DATA_TYPE_FLOAT32",
        "CU_TENSOR_MAP_DATA_TYPE_FLOAT64", "CU_TENSOR_MAP_DATA_TYPE_INT32",
        "CU_TENSOR_MAP_DATA_TYPE_INT64"])
    driver.CUtensorMapInterleave = _enum("CUtensorMapInterleave",
                                         ["CU_TENSOR_MAP_INTERLEAVE_NONE"])
    driver.CUtensorMapSwizzle = _enum("CUtensorMapSwizzle", [
        "CU_TENSOR_MAP_SWIZZLE_NONE", "CU_TENSOR_MAP_SWIZZLE_32B", "CU_TENSOR_MAP_SWIZZLE_64B",
        "CU_TENSOR_MAP_SWIZZLE_128B"])
    driver.CUtensorMapL2promotion = _enum("CUtensorMapL2promotion",
                                          ["CU_TENSOR_MAP_L2_PROMOTION_L2_256B"])
    driver.CUtensorMapFloatOOBfill = _enum("CUtensorMapFloatOOBfill",
                                           ["CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE"])

    driver.CUlaunchAttributeID = _enum("CUlaunchAttributeID",
                                       ["CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION"])
    driver.CUlaunchConfig = lambda: types.SimpleNamespace(hStream=CUstream(0), attrs=[],
                                                          numAttrs=0)
    driver.CUlaunchAttribute = lambda: types.SimpleNamespace(
        id=None, value=types.SimpleNamespace(clusterDim=types.SimpleNamespace(x=0, y=0, z=0)))
    driver.active_clusters = 60  # what cuOccupancyMaxActiveClusters answers

    driver.launches = []
    driver.loads = []
    driver.encodes = []
    driver.occupancy_queries = []
    driver.record = True
    driver.param_formats = None  # struct format per kernel parameter, to decode them
    driver.launch_result = CUresult.CUDA_SUCCESS
    ok = (CUresult.CUDA_SUCCESS,)

    def cuModuleLoadData(image):
        driver.loads.append(state.current_device)
        return CUresult.CUDA_SUCCESS, CUmodule(len(driver.loads))

    def cuModuleGetFunction(module, name):
        return CUresult.CUDA_SUCCESS, CUfunction(0x1000 * module.value + state.current_device)

    def cuFuncSetAttribute(function, attribute, value):
        return ok

    def cuOccupancyMaxActiveBlocksPerMultiprocessor(function, block, smem):
        driver.occupancy_queries.append((function.value, block, smem))
        return CUresult.CUDA_SUCCESS, 1

    def cuGetErrorName(err):
        return CUresult.CUDA_SUCCESS, CUresult(err).name.encode()

    def cuTensorMapEncodeTiled(dtype_, rank, address, dims, strides, box, elem_strides,
                               interleave, swizzle, l2, oob):
        words = [int(address), rank] + [int(d) for d in dims] + [int(s) for s in strides]
        driver.encodes.append(words)
        return CUresult.CUDA_SUCCESS, CUtensorMap(words)

    def cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        if not driver.record:
            return ok
        record = {"function": int(f), "grid": (gx, gy, gz), "block": (bx, by, bz),
                  "smem": smem, "stream": int(stream), "device": state.current_device}
        formats = driver.param_formats
        if formats is not None:
            pointers = (ctypes.c_void_p * len(formats)).from_address(params)
            record["params"] = [
                struct.unpack("<" + fmt, ctypes.string_at(pointers[i], struct.calcsize(fmt)))[0]
                for i, fmt in enumerate(formats)]
        driver.launches.append(record)
        return (driver.launch_result,)

    def cuOccupancyMaxActiveClusters(function, config):
        (attr,) = config.attrs
        dims = attr.value.clusterDim
        driver.occupancy_queries.append((function.value, "clusters", (dims.x, dims.y, dims.z)))
        return CUresult.CUDA_SUCCESS, driver.active_clusters

    def cuLaunchKernelEx(config, f, params, extra):
        assert config.numAttrs == len(config.attrs) == 1
        (attr,) = config.attrs
        assert attr.id == driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        (result,) = cuLaunchKernel(f, config.gridDimX, config.gridDimY, config.gridDimZ,
                                   config.blockDimX, config.blockDimY, config.blockDimZ,
                                   config.sharedMemBytes, config.hStream, params, extra)
        if driver.record:
            dims = attr.value.clusterDim
            driver.launches[-1]["cluster"] = (dims.x, dims.y, dims.z)
        return (result,)

    for f in (cuModuleLoadData, cuModuleGetFunction, cuFuncSetAttribute,
              cuOccupancyMaxActiveBlocksPerMultiprocessor, cuGetErrorName,
              cuTensorMapEncodeTiled, cuLaunchKernel, cuOccupancyMaxActiveClusters,
              cuLaunchKernelEx):
        setattr(driver, f.__name__, f)
    return driver


# -- cupy ---------------------------------------------------------------------

_CUPY_ITEMSIZE = {"float16": 2, "float32": 4, "float64": 8}
_CUPY_TYPESTRS = {"float16": "<f2", "float32": "<f4", "float64": "<f8"}
cupy_state = types.SimpleNamespace(device=0, streams={0: 0x6000, 1: 0x6100}, copies=[])


class CupyDevice:
    """cupy.cuda.Device: a context manager making device ``id`` current."""

    def __init__(self, id=None):
        self.id = cupy_state.device if id is None else id

    def __enter__(self):
        self.prev = cupy_state.device
        cupy_state.device = self.id
        return self

    def __exit__(self, *exc):
        cupy_state.device = self.prev


class CupyDtype:
    def __init__(self, name):
        self.name = name


class CupyArray:
    """What tilec reads of a CuPy array: ``__cuda_array_interface__`` (byte
    strides), ``dtype`` and ``device``."""

    def __init__(self, shape, dtype="float16", strides=None, ptr=None, device_id=None):
        self.shape = tuple(shape)
        self.dtype = CupyDtype(dtype)
        itemsize = _CUPY_ITEMSIZE[dtype]
        if strides is None:
            strides = contiguous_strides(self.shape)
        self.strides = tuple(s * itemsize for s in strides)  # bytes, as CuPy has them
        self._block = None
        if ptr is None:
            span = 1 + sum((e - 1) * s for e, s in zip(self.shape, strides) if e)
            ptr, size = _Allocator.take(span * itemsize)
            self._block = (ptr, size)
        self.ptr = ptr
        self.device = CupyDevice(cupy_state.device if device_id is None else device_id)
        self._base = None

    def __del__(self):
        if self._block is not None:
            _Allocator.give_back(*self._block)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": _CUPY_TYPESTRS[self.dtype.name],
                "strides": self.strides, "data": (self.ptr, False), "version": 3}

    def __getitem__(self, index):
        rows, cols = index
        assert rows == slice(None) and cols.start is None and cols.step is None
        itemsize = _CUPY_ITEMSIZE[self.dtype.name]
        view = CupyArray((self.shape[0], cols.stop), self.dtype.name,
                         [s // itemsize for s in self.strides], self.ptr, self.device.id)
        view._base = self
        return view

    def __setitem__(self, index, value):
        assert index is Ellipsis
        cupy_state.copies.append((value, self, cupy_state.streams[cupy_state.device]))


def _build_cupy():
    cupy = types.ModuleType("cupy")
    cupy.__fake__ = True
    cuda = types.ModuleType("cupy.cuda")
    cuda.Device = CupyDevice
    cuda.get_current_stream = lambda: types.SimpleNamespace(
        ptr=cupy_state.streams[cupy_state.device])
    cupy.cuda = cuda
    cupy.ndarray = CupyArray
    cupy.empty = lambda shape, dtype="float16": CupyArray(shape, dtype)
    cupy.asarray = lambda x: x

    def ascontiguousarray(x):
        copy = CupyArray(x.shape, x.dtype.name, device_id=x.device.id)
        cupy_state.copies.append((x, copy, cupy_state.streams[cupy_state.device]))
        return copy
    cupy.ascontiguousarray = ascontiguousarray
    return cupy


def cupy_array(shape, dtype="float16", strides=None, offset=0, device_id=0):
    """A fake CuPy array (``offset`` bytes past a fresh 256-aligned buffer)."""
    a = CupyArray(shape, dtype, strides, device_id=device_id)
    a.ptr += offset
    return a


module = None  # the installed fake torch
driver = None  # the installed fake driver
_saved = {}
_NAMES = ("torch", "torch.cuda", "torch._C", "cuda", "cuda.bindings", "cuda.bindings.driver",
          "cupy", "cupy.cuda")


def install():
    """Puts fresh fakes into sys.modules; returns (torch, driver)."""
    global module, driver
    module, driver = _build_torch(), _build_driver()
    state.current_device, state.device_switches, state.capability = 0, 0, (9, 0)
    state.sms = 132
    state.tensor_ops = []
    state.streams = {0: 0x5000, 1: 0x5100}
    cupy_state.device, cupy_state.streams, cupy_state.copies = 0, {0: 0x6000, 1: 0x6100}, []
    cupy = _build_cupy()
    cuda_pkg = types.ModuleType("cuda")
    bindings = types.ModuleType("cuda.bindings")
    bindings.driver = driver
    cuda_pkg.bindings = bindings
    new = {"torch": module, "torch.cuda": module.cuda, "torch._C": module._C, "cuda": cuda_pkg,
           "cuda.bindings": bindings, "cuda.bindings.driver": driver, "cupy": cupy,
           "cupy.cuda": cupy.cuda}
    for name in _NAMES:
        _saved.setdefault(name, sys.modules.get(name))
        sys.modules[name] = new[name]
    _forget_runtime_modules()
    return module, driver


def uninstall():
    for name in _NAMES:
        old = _saved.pop(name, None)
        if old is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = old
    _forget_runtime_modules()


def _forget_runtime_modules():
    """tilec.runtime keeps the torch / driver modules once imported."""
    runtime = sys.modules.get("tilec.runtime")
    forget = getattr(runtime, "_forget_modules", None)
    if forget is not None:
        forget()


def tensor(shape, dtype_name="bfloat16", strides=None, offset=0, device_index=0, ptr=None,
           kind="cuda"):
    """A fake torch tensor (``offset`` bytes past a fresh 256-aligned buffer)."""
    t = Tensor(shape, getattr(module, dtype_name), strides, ptr,
               device(kind, device_index if kind == "cuda" else None))
    t._ptr += offset
    return t
