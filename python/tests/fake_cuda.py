"""Stand-ins for ``torch``, ``cupy`` and the CUDA driver so that the launch
path of :mod:`tilec.runtime`, :func:`tilec.gemm` and :func:`tilec.attention`
runs on a machine with neither a GPU nor those packages.

:func:`install` puts the fake modules into ``sys.modules`` and the fake
driver -- a ``TilecRtDriver`` of ctypes callbacks -- into
``libtilec-runtime.so`` through ``tilecRtSetDriver`` (and :func:`uninstall`
takes them out again), so the real runtime checks, binds and launches. The
fake driver (:class:`FakeDriver`) records every launch: grid, block, dynamic
shared memory, stream and -- when ``driver.param_formats`` lists the struct
format of each kernel parameter -- the parameter values read back from the
``void*[]`` array the launch was given, so tests can check what a kernel
would have received. With ``driver.record = False`` a launch does nothing
at all (the overhead benchmark).
"""

import ctypes
import ctypes.util
import enum
import struct
import sys
import types

from tilec import _rtcapi

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
    torch.is_grad_enabled = lambda: False

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


# -- the CUDA driver: a TilecRtDriver of ctypes callbacks -------------------


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_INVALID_HANDLE = 400


#: The names getErrorName hands out (kept alive: the runtime reads them).
_ERROR_NAMES = {int(r): r.name.encode() for r in CUresult}


class _LaunchConfig(ctypes.Structure):
    """CUlaunchConfig."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.c_void_p), ("numAttrs", ctypes.c_uint)]


class _ClusterAttribute(ctypes.Structure):
    """CUlaunchAttribute holding CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (4)."""
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_int), ("dims", ctypes.c_uint * 3)]


_CLUSTER_DIMENSION = 4


def decode_tensor_map(blob):
    """(address, dims, byte strides) of a fake-encoded tensor map."""
    words = struct.unpack("<16Q", blob)
    rank = words[1]
    return words[0], list(words[2:2 + rank]), list(words[2 + rank:1 + 2 * rank])


def _noop_launch():
    """A C function that ignores its arguments and returns 0 (libm's
    feclearexcept), standing in for launchKernelEx when nothing is recorded:
    the overhead benchmark then times no Python callback. ``None`` if libm
    has none."""
    name = ctypes.util.find_library("m")
    try:
        address = ctypes.cast(ctypes.CDLL(name).feclearexcept, ctypes.c_void_p).value
    except (OSError, AttributeError, TypeError):
        return None
    return dict(_rtcapi.DRIVER_FUNCTIONS)["launchKernelEx"](address)


class FakeDriver:
    """The fake driver's records and knobs: ``launches`` (grid, block,
    smem, stream, device, function, and ``params`` read back through
    ``param_formats``, ``cluster``), ``loads`` (the device of each module
    load), ``encodes`` ([address, rank, sizes..., byte strides...] per
    tensor map, which is also what the 128 bytes of the map hold),
    ``occupancy_queries``; ``launch_result`` is what launches return,
    ``active_clusters`` what cuOccupancyMaxActiveClusters answers. With
    ``record = False`` a launch is a C function doing nothing."""

    def __init__(self):
        self.launches, self.loads, self.encodes, self.occupancy_queries = [], [], [], []
        self.param_formats = None  # struct format per kernel parameter, to decode them
        self.launch_result = CUresult.CUDA_SUCCESS
        self.active_clusters = 60
        self._record = True
        self._callbacks = _callbacks(self)
        self.table = _rtcapi.Driver(**self._callbacks)

    @property
    def record(self):
        return self._record

    @record.setter
    def record(self, value):
        self._record = bool(value)
        noop = None if value else _noop_launch()
        self.table.launchKernelEx = noop or self._callbacks["launchKernelEx"]
        _rtcapi.library().tilecRtSetDriver(ctypes.byref(self.table))

    def launch(self, config, function, params, extra):
        if not self._record:
            return 0
        c = _LaunchConfig.from_address(config)
        record = {"function": function, "grid": tuple(c.grid), "block": tuple(c.block),
                  "smem": c.smem, "stream": c.stream or 0, "device": state.current_device}
        formats = self.param_formats
        if formats is not None:
            record["params"] = [
                struct.unpack("<" + fmt, ctypes.string_at(params[i], struct.calcsize(fmt)))[0]
                for i, fmt in enumerate(formats)]
        if c.numAttrs:
            attr = _ClusterAttribute.from_address(c.attrs)
            assert c.numAttrs == 1 and attr.id == _CLUSTER_DIMENSION
            record["cluster"] = tuple(attr.dims)
        self.launches.append(record)
        return int(self.launch_result)

    def encode(self, tmap, dtype_, rank, address, sizes, strides, box, elem, il, sw, l2, oob):
        words = [address or 0, rank] + [sizes[i] for i in range(rank)] + [
            strides[i] for i in range(rank - 1)]
        self.encodes.append(words)
        ctypes.memmove(tmap, struct.pack(f"<{len(words)}Q", *words), 8 * len(words))
        return 0

    def load(self, module, image):
        self.loads.append(state.current_device)
        module[0] = len(self.loads)
        return 0

    def occupancy_clusters(self, out, function, config):
        c = _LaunchConfig.from_address(config)
        dims = tuple(_ClusterAttribute.from_address(c.attrs).dims)
        self.occupancy_queries.append((function, "clusters", dims))
        out[0] = self.active_clusters
        return 0

    def occupancy_blocks(self, out, function, block, smem):
        self.occupancy_queries.append((function, block, smem))
        out[0] = 1
        return 0


def _callbacks(driver):
    """The TilecRtDriver members of ``driver`` as ctypes callbacks."""
    def put(p, value):
        p[0] = value
        return 0

    def error_name(e, name):
        name[0] = _ERROR_NAMES.get(e, b"CUDA_ERROR_UNKNOWN")
        return 0

    def get_function(f, module, name):
        return put(f, 0x1000 * module + state.current_device)
    impl = {
        "getErrorName": error_name, "getErrorString": lambda e, text: put(text, None),
        "ctxGetCurrent": lambda ctx: put(ctx, 0xC000 + state.current_device),
        "ctxPushCurrent": lambda ctx: 0, "ctxPopCurrent": lambda ctx: put(ctx, None),
        "ctxGetDevice": lambda dev: put(dev, state.current_device),
        "deviceGetAttribute": lambda value, attr, dev: put(value, state.sms),
        "moduleLoadData": driver.load, "moduleUnload": lambda m: 0,
        "moduleGetFunction": get_function, "funcSetAttribute": lambda f, attr, v: 0,
        "occupancyMaxActiveBlocksPerMultiprocessor": driver.occupancy_blocks,
        "occupancyMaxActiveClusters": driver.occupancy_clusters,
        "tensorMapEncodeTiled": driver.encode, "launchKernelEx": driver.launch}
    return {name: ftype(impl[name]) for name, ftype in _rtcapi.DRIVER_FUNCTIONS}


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
driver = None  # the installed fake driver (FakeDriver)
_saved = {}
_NAMES = ("torch", "torch.cuda", "torch._C", "cupy", "cupy.cuda")


def install():
    """Puts fresh fakes into sys.modules and the fake driver into
    libtilec-runtime.so (tilecRtSetDriver); returns (torch, driver)."""
    global module, driver
    module, driver = _build_torch(), FakeDriver()
    state.current_device, state.device_switches, state.capability = 0, 0, (9, 0)
    state.sms = 132
    state.tensor_ops = []
    state.streams = {0: 0x5000, 1: 0x5100}
    cupy_state.device, cupy_state.streams, cupy_state.copies = 0, {0: 0x6000, 1: 0x6100}, []
    cupy = _build_cupy()
    new = {"torch": module, "torch.cuda": module.cuda, "torch._C": module._C, "cupy": cupy,
           "cupy.cuda": cupy.cuda}
    for name in _NAMES:
        _saved.setdefault(name, sys.modules.get(name))
        sys.modules[name] = new[name]
    _forget_runtime_modules()
    _rtcapi.set_driver(driver.table)
    return module, driver


def uninstall():
    for name in _NAMES:
        old = _saved.pop(name, None)
        if old is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = old
    _forget_runtime_modules()
    _rtcapi.set_driver(None)


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
