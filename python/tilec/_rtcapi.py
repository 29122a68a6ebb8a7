"""ctypes bindings of ``libtilec-runtime.so`` (``include/tilec-c/Runtime.h``).

The launch contract -- argument checks, the grid rule, tensor maps,
parameter packing, module loading and ``cuLaunchKernelEx`` -- lives in the
C++ runtime; this module only binds its C ABI. The library needs neither a
GPU nor libcuda to load (it looks the driver up at the first launch), so
checks, grids and packed parameters work on any machine.

The library is located, in order, through ``$TILEC_RUNTIME_LIBRARY`` (the
file, or a directory holding it), next to this package (where ``pip
install`` puts it when it was copied into ``python/tilec/`` first, see
python/README.md), beside ``$TILEC_LIBRARY`` (the compiler's library), and
in the build directories of the source checkout the
package is imported from (``build/lib``, then ``build-*/lib``).
"""

import ctypes
import os
import threading

from ._capi import checkout_paths, source_checkout

LIBRARY_NAME = "libtilec-runtime.so"

#: ``TILEC_RT_API_VERSION`` of the structs below.
API_VERSION = 1

# TilecRtStatus values.
SUCCESS, INVALID_ARGUMENTS, DRIVER_ERROR, INVALID_CALL = range(4)

# TilecRtArgKind values.
ARG_POINTER, ARG_INT, ARG_FLOAT = range(3)

#: TilecRtDType values by metadata spelling.
DTYPES = {name: i for i, name in enumerate(
    ("any", "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "f8e4m3",
     "f8e5m2"))}
DTYPE_NAMES = {i: name for name, i in DTYPES.items()}

MAX_RANK = 5


class RuntimeNotFoundError(RuntimeError):
    """``libtilec-runtime.so`` cannot be found or loaded."""


class Arg(ctypes.Structure):
    """TilecRtArg: one launch argument (128 bytes)."""
    _fields_ = [("kind", ctypes.c_uint32), ("dtype", ctypes.c_uint32),
                ("rank", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("name", ctypes.c_char_p), ("address", ctypes.c_uint64),
                ("intValue", ctypes.c_int64), ("floatValue", ctypes.c_double),
                ("shape", ctypes.c_int64 * MAX_RANK), ("strides", ctypes.c_int64 * MAX_RANK)]


class TensorMap(ctypes.Structure):
    """TilecRtTensorMap: cuTensorMapEncodeTiled's inputs for one map."""
    _fields_ = [("address", ctypes.c_uint64), ("rank", ctypes.c_uint32),
                ("dtype", ctypes.c_uint32), ("swizzle", ctypes.c_uint32),
                ("position", ctypes.c_uint32), ("sizes", ctypes.c_uint64 * MAX_RANK),
                ("byteStrides", ctypes.c_uint64 * MAX_RANK),
                ("box", ctypes.c_uint32 * MAX_RANK), ("reserved", ctypes.c_uint32)]


class Binding(ctypes.Structure):
    """TilecRtBinding: what a launch would pass (tilecRtKernelBind)."""
    _fields_ = [("structSize", ctypes.c_size_t), ("grid", ctypes.c_int64 * 3),
                ("numValues", ctypes.c_size_t), ("values", ctypes.POINTER(ctypes.c_uint64)),
                ("positions", ctypes.POINTER(ctypes.c_uint32)),
                ("numTensorMaps", ctypes.c_size_t),
                ("tensorMaps", ctypes.POINTER(TensorMap))]


_I = ctypes.c_int
_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_IP = ctypes.POINTER(ctypes.c_int)
_U64P = ctypes.POINTER(ctypes.c_uint64)
_U32P = ctypes.POINTER(ctypes.c_uint32)

#: TilecRtDriver's members: (name, ctypes function type).
DRIVER_FUNCTIONS = (
    ("getErrorName", ctypes.CFUNCTYPE(_I, _I, ctypes.POINTER(ctypes.c_char_p))),
    ("getErrorString", ctypes.CFUNCTYPE(_I, _I, ctypes.POINTER(ctypes.c_char_p))),
    ("ctxGetCurrent", ctypes.CFUNCTYPE(_I, _PP)),
    ("ctxPushCurrent", ctypes.CFUNCTYPE(_I, _P)),
    ("ctxPopCurrent", ctypes.CFUNCTYPE(_I, _PP)),
    ("ctxGetDevice", ctypes.CFUNCTYPE(_I, _IP)),
    ("deviceGetAttribute", ctypes.CFUNCTYPE(_I, _IP, _I, _I)),
    ("moduleLoadData", ctypes.CFUNCTYPE(_I, _PP, _P)),
    ("moduleUnload", ctypes.CFUNCTYPE(_I, _P)),
    ("moduleGetFunction", ctypes.CFUNCTYPE(_I, _PP, _P, ctypes.c_char_p)),
    ("funcSetAttribute", ctypes.CFUNCTYPE(_I, _P, _I, _I)),
    ("occupancyMaxActiveBlocksPerMultiprocessor",
     ctypes.CFUNCTYPE(_I, _IP, _P, _I, ctypes.c_size_t)),
    ("occupancyMaxActiveClusters", ctypes.CFUNCTYPE(_I, _IP, _P, _P)),
    ("tensorMapEncodeTiled", ctypes.CFUNCTYPE(_I, _P, _I, ctypes.c_uint32, _P, _U64P, _U64P,
                                              _U32P, _U32P, _I, _I, _I, _I)),
    ("launchKernelEx", ctypes.CFUNCTYPE(_I, _P, _P, _PP, _PP)),
)


class Driver(ctypes.Structure):
    """TilecRtDriver: driver functions standing in for libcuda (tests)."""
    _fields_ = [("structSize", ctypes.c_size_t)] + list(DRIVER_FUNCTIONS)


def candidate_paths():
    """Where the library is looked for, in order."""
    explicit = os.environ.get("TILEC_RUNTIME_LIBRARY")
    if explicit:
        return [os.path.join(explicit, LIBRARY_NAME) if os.path.isdir(explicit) else explicit]
    paths = []
    compiler = os.environ.get("TILEC_LIBRARY")  # the compiler's library sits beside it
    if compiler:
        directory = compiler if os.path.isdir(compiler) else os.path.dirname(compiler)
        paths.append(os.path.join(directory, LIBRARY_NAME))
    return paths + [p for p in checkout_paths(LIBRARY_NAME) if p not in paths]


def _bind(lib):
    """Declares the C functions' signatures on ``lib``."""
    def sig(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, list(argtypes)
    size, i64p = ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64)
    sig("tilecRtGetAPIVersion", ctypes.c_uint)
    sig("tilecRtGetLastError", ctypes.c_char_p)
    sig("tilecRtGetLastDriverResult", _I)
    sig("tilecRtKernelCreate", _I, _P, size, ctypes.c_char_p, size, _PP)
    sig("tilecRtKernelDestroy", None, _P)
    sig("tilecRtKernelValidate", _I, _P, _P, size)
    sig("tilecRtKernelBind", _I, _P, _P, size, _P, ctypes.POINTER(Binding))
    sig("tilecRtKernelLoad", _I, _P)
    sig("tilecRtKernelLaunch", _I, _P, _P, size, _P, _P)
    sig("tilecRtLaunchCreate", _I, _P, _P, size, _P, _PP)
    sig("tilecRtLaunchUpdate", _I, _P, _P, size)
    sig("tilecRtLaunchRun", _I, _P, _P, size, _P)
    sig("tilecRtLaunchGetGrid", None, _P, i64p)
    sig("tilecRtLaunchDestroy", None, _P)
    sig("tilecRtEvaluateGrid", _I, ctypes.POINTER(ctypes.c_char_p), size,
        ctypes.POINTER(ctypes.c_char_p), i64p, size, i64p)
    sig("tilecRtSetDriver", _I, ctypes.POINTER(Driver))


def _load(path):
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise RuntimeNotFoundError(f"cannot load the tilec runtime library {path}: {e}") from e
    lib.tilecRtGetAPIVersion.restype = ctypes.c_uint
    api = lib.tilecRtGetAPIVersion()
    if api != API_VERSION:
        raise RuntimeNotFoundError(f"{path} implements tilec runtime API version {api}; this "
                                   f"package needs {API_VERSION}")
    _bind(lib)
    return lib


_lock = threading.Lock()
_library = None

#: Bumped by every :func:`set_driver`: handles made under another driver are
#: not destroyed (their modules belong to a driver that is gone).
driver_generation = 0


def library():
    """The process-wide ``libtilec-runtime.so`` (a ctypes.CDLL); raises
    :class:`RuntimeNotFoundError` if none can be loaded."""
    global _library
    lib = _library
    if lib is not None:
        return lib
    with _lock:
        if _library is None:
            tried = candidate_paths()
            found = next((p for p in tried if os.path.isfile(p)), None)
            if found is None:
                where = ("set TILEC_RUNTIME_LIBRARY to it" if source_checkout() is None else
                         "build it (ninja tilec-runtime; without the compiler, "
                         "scripts/gpu/build_runtime.sh) or set TILEC_RUNTIME_LIBRARY to it")
                raise RuntimeNotFoundError(
                    f"the tilec runtime library ({LIBRARY_NAME}) was not found; looked in: "
                    f"{', '.join(tried)}. It launches every kernel: {where}")
            _library = _load(found)
        return _library


def last_error():
    """The calling thread's last failure message."""
    return library().tilecRtGetLastError().decode("utf-8", errors="replace")


def set_driver(table):
    """Makes the runtime call ``table`` (a :class:`Driver`) instead of
    libcuda; ``None`` goes back to libcuda."""
    global driver_generation
    lib = library()
    driver_generation += 1
    if table is None:
        lib.tilecRtSetDriver(None)
        return
    table.structSize = ctypes.sizeof(Driver)
    if lib.tilecRtSetDriver(ctypes.byref(table)) != SUCCESS:
        raise RuntimeError(last_error())


def make_arg(arg, kind, value, dtype=0, name=None):
    """Fills the :class:`Arg` ``arg`` (zeroed) with a value of ``kind``."""
    arg.kind, arg.dtype, arg.rank = kind, dtype, 0
    arg.name = name
    if kind == ARG_POINTER:
        arg.address = value
    elif kind == ARG_INT:
        arg.intValue = value
    else:
        arg.floatValue = value
    return arg


def evaluate_grid(exprs, names, values):
    """(x, y, z) of the grid rule ``exprs`` with integer parameters
    ``names`` = ``values``; raises ``ValueError`` with the runtime's
    message."""
    lib = library()
    n = len(names)
    c_exprs = (ctypes.c_char_p * max(1, len(exprs)))(*[e.encode() for e in exprs])
    c_names = (ctypes.c_char_p * max(1, n))(*[k.encode() for k in names])
    c_values = (ctypes.c_int64 * max(1, n))(*values)
    grid = (ctypes.c_int64 * 3)()
    if lib.tilecRtEvaluateGrid(c_exprs, len(exprs), c_names, c_values, n, grid) != SUCCESS:
        raise ValueError(last_error())
    return tuple(grid)
