"""A uniform view of the tensors ``tilec.gemm`` and friends accept.

torch tensors are read directly; objects with ``__cuda_array_interface__``
(CuPy, Numba) through that interface; any other object with ``__dlpack__``
through ``torch.from_dlpack``. Only attributes are read here (shape, element
strides, dtype, data pointer, device), so argument checking works on
tensor-like stand-ins without torch or a GPU; torch is imported only to wrap
non-torch tensors at launch time.
"""

from .errors import ArgumentError

#: tilec dtype names (as in <kernel>.json) by torch / NumPy dtype name.
DTYPE_NAMES = {
    "bfloat16": "bf16", "float16": "f16", "half": "f16", "float32": "f32", "float": "f32",
    "float64": "f64", "double": "f64", "int32": "i32", "int": "i32", "int64": "i64",
    "long": "i64", "int8": "i8", "bool": "i1", "float8_e4m3fn": "f8e4m3",
    "float8_e5m2": "f8e5m2",
}

#: Bytes per element of each tilec dtype.
ELEMENT_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "f64": 8, "i32": 4, "i64": 8, "i8": 1,
                 "i1": 1, "f8e4m3": 1, "f8e5m2": 1}

#: tilec dtype by __cuda_array_interface__ typestr (bf16 has none).
_TYPESTRS = {"<f2": "f16", "<f4": "f32", "<f8": "f64", "<i4": "i32", "<i8": "i64",
             "|i1": "i8", "|b1": "i1"}

#: torch dtype attribute by tilec dtype name.
TORCH_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
                "i32": "int32", "i64": "int64", "i8": "int8", "i1": "bool",
                "f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}

_DLPACK_CUDA = 2  # kDLCUDA


class TensorInfo:
    """What a kernel launch needs to know about one tensor argument.

    ``kind`` is ``"torch"``, ``"cai"`` (``__cuda_array_interface__``) or
    ``"dlpack"``; ``strides`` are in elements; ``device`` is a
    ``(type, index)`` pair such as ``("cuda", 0)``; ``dtype`` a tilec name
    (``"bf16"``) or the foreign name when tilec has none.
    """

    __slots__ = ("obj", "name", "kind", "shape", "strides", "dtype", "ptr", "device", "_torch")

    def __init__(self, obj, name, kind, shape, strides, dtype, ptr, device, torch_view=None):
        self.obj, self.name, self.kind = obj, name, kind
        self.shape, self.strides, self.dtype = tuple(shape), tuple(strides), dtype
        self.ptr, self.device = int(ptr), device
        self._torch = torch_view

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def element_bytes(self):
        return ELEMENT_BYTES.get(self.dtype, 0)

    def as_torch(self):
        """A torch tensor over the same memory (the object itself for torch)."""
        if self._torch is None:
            import torch
            self._torch = torch.from_dlpack(self.obj) if self.kind != "torch" else self.obj
        return self._torch

    def __repr__(self):
        return (f"TensorInfo({self.name}: {self.dtype}{list(self.shape)}, strides={self.strides}, "
                f"ptr={self.ptr:#x}, device={self.device[0]}:{self.device[1]})")


#: Memo of dtype_name / _parse_device by (hashable) dtype / device object:
#: reading a torch dtype's name costs more than the rest of a tensor's
#: description.
_dtype_memo = {}
_device_memo = {}


def dtype_name(dtype):
    """tilec name of a torch / NumPy / string dtype (the input if unknown)."""
    try:
        return _dtype_memo[dtype]
    except (KeyError, TypeError):
        pass
    text = getattr(dtype, "name", None) or str(dtype)
    text = text.rsplit(".", 1)[-1]
    name = DTYPE_NAMES.get(text, text)
    try:
        _dtype_memo[dtype] = name
    except TypeError:  # unhashable
        pass
    return name


def _parse_device(device):
    """``(type, index)`` of a torch.device, a string like ``"cuda:1"`` or a
    CuPy device (memoized)."""
    try:
        return _device_memo[device]
    except (KeyError, TypeError):
        pass
    parsed = _device_tuple(device)
    try:
        _device_memo[device] = parsed
    except TypeError:
        pass
    return parsed


def _device_tuple(device):
    """Uncached :func:`_parse_device`."""
    if isinstance(device, str):
        kind, _, index = device.partition(":")
        return kind, int(index) if index else 0
    kind = getattr(device, "type", None)
    if kind is not None:
        index = getattr(device, "index", None)
        return str(kind), 0 if index is None else int(index)
    index = getattr(device, "id", None)  # CuPy
    if index is not None:
        return "cuda", int(index)
    return str(device), 0


def describe(x, name):
    """:class:`TensorInfo` of argument ``name``; ``TypeError`` for objects
    that are not tensors."""
    if hasattr(x, "data_ptr") and hasattr(x, "stride") and hasattr(x, "shape"):
        device = getattr(x, "device", None)
        if device is None:
            device = "cuda" if getattr(x, "is_cuda", False) else "cpu"
        return TensorInfo(x, name, "torch", x.shape, x.stride(), dtype_name(x.dtype),
                          x.data_ptr(), _parse_device(device))
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        shape = tuple(int(s) for s in cai["shape"])
        dtype = getattr(x, "dtype", None)
        dtype = dtype_name(dtype) if dtype is not None else _TYPESTRS.get(cai["typestr"],
                                                                          cai["typestr"])
        itemsize = int(cai["typestr"][2:]) if cai["typestr"][2:].isdigit() else 1
        if cai.get("strides") is None:
            strides, step = [], 1
            for extent in reversed(shape):
                strides.append(step)
                step *= max(extent, 1)
            strides.reverse()
        else:
            strides = [s // itemsize for s in cai["strides"]]
        device = getattr(x, "device", None)
        return TensorInfo(x, name, "cai", shape, strides, dtype, cai["data"][0],
                          _parse_device(device) if device is not None else ("cuda", 0))
    if hasattr(x, "__dlpack__"):
        try:
            import torch
        except ImportError:
            raise TypeError(f"{name}: a DLPack tensor needs torch to be read "
                            f"({type(x).__name__})") from None
        if hasattr(x, "__dlpack_device__") and x.__dlpack_device__()[0] != _DLPACK_CUDA:
            raise ArgumentError(f"{name} is not on a CUDA device (DLPack device "
                                f"{x.__dlpack_device__()})")
        t = torch.from_dlpack(x)
        info = describe(t, name)
        info.obj, info.kind, info._torch = x, "dlpack", t
        return info
    raise TypeError(f"{name} must be a tensor (torch, CuPy, or an object with __dlpack__ or "
                    f"__cuda_array_interface__), not {type(x).__name__}")
