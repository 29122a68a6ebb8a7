"""Loads a tilec kernel (cubin + <kernel>.json) and launches it.

The launch contract -- the metadata's checks, the grid rule, tensor maps,
parameter packing, module loading, the persistent grid cap and
``cuLaunchKernelEx`` -- is ``libtilec-runtime.so``'s, the C++ runtime
behind the C ABI of include/tilec-c/Runtime.h (bound by
:mod:`tilec._rtcapi`), the one implementation the AOT headers use too.
This module adds only what is about Python objects: torch (and CuPy)
tensors become data pointers, checked for device, dtype and alignment with
Python's own messages; values are packed into a ``TilecRtArg`` buffer with
one ``struct.pack_into``; the stream is torch's current one.

:meth:`Kernel.prepare` gives a :class:`PreparedLaunch` for callers that
launch the same values again and again (``tilec.gemm``'s plans): a
``TilecRtLaunch`` and its own argument buffer, so that a launch is one
ctypes call (``tilecRtLaunchRun``); :meth:`PreparedLaunch.update` binds
new values once (``tilecRtLaunchUpdate``). The torch side (device,
stream, dtypes) is :mod:`tilec.torch_env`.
"""

import ctypes
import json
import operator
import os
import struct
import threading

from . import _rtcapi
from . import torch_env as _torch
from .errors import GridRuleError, LaunchError
from .tensors import TORCH_DTYPES
from .torch_env import _forget_modules, _launch_env, stream_handle

#: Public here: the hook tests that swap the torch module call.
_REEXPORTED = (_forget_modules, GridRuleError)

_INTEGER_DTYPES = ("i1", "i8", "i16", "i32", "i64")

#: The ``TilecRtArg`` (128 bytes) of each argument code, as a struct format
#: whose values are (kind, value); the fields in between stay 0 (no dtype:
#: Python checks it; no name, rank or shape). Pointers are kind 0.
_ARG_FORMATS = {"p": "24xQ96x", "i": "I28xq88x", "f": "I36xd80x"}

#: CUresult of a thread without a current context.
_CUDA_ERROR_INVALID_CONTEXT = 201


def evaluate_grid(rule, env):
    """(x, y, z) of the grid rule ``rule`` (1 to 3 expressions) with the
    integer parameters ``env`` (a mapping), as the runtime evaluates it;
    raises :class:`GridRuleError` with its message."""
    names = list(env)
    try:
        return _rtcapi.evaluate_grid(list(rule), names, [int(env[n]) for n in names])
    except ValueError as e:
        raise GridRuleError(str(e)) from None


def _argument_steps(params):
    """How each parameter's argument is handled: (index, name, code, extra)
    with code "p" pointer (extra: (tilec dtype, align)), "i" integer, "f"
    floating point (f16 / bf16 are rounded by the runtime)."""
    steps = []
    for i, p in enumerate(params):
        if p["kind"] == "pointer":
            steps.append((i, p["name"], "p", (p.get("dtype"), p.get("align"))))
        elif p["dtype"] in _INTEGER_DTYPES:
            steps.append((i, p["name"], "i", None))
        else:
            steps.append((i, p["name"], "f", None))
    return tuple(steps)


def _make_filler(steps):
    """A function ``fill(buffer, values)`` writing launch values (in
    parameter order) into a ``TilecRtArg`` array with one ``pack_into``."""
    packer = struct.Struct("<" + "".join(_ARG_FORMATS[code] for _, _, code, _ in steps))
    fields = []
    for i, _, code, _ in steps:
        kind = {"p": None, "i": _rtcapi.ARG_INT, "f": _rtcapi.ARG_FLOAT}[code]
        fields.append(f"v[{i}]" if kind is None else f"{kind}, v[{i}]")
    namespace = {"pack_into": packer.pack_into}
    exec(f"def fill(buffer, v):\n    pack_into(buffer, 0, {', '.join(fields)})\n",  # noqa: S102
         namespace)
    return namespace["fill"]


class Kernel:
    """One compiled kernel: ``Kernel(path)`` with ``path`` the .json file
    (the cubin next to it, or ``cubin_path``)."""

    def __init__(self, json_path, cubin_path=None):
        with open(json_path) as f:
            text = f.read()
        if cubin_path is None:
            cubin_path = os.path.splitext(json_path)[0] + ".cubin"
        with open(cubin_path, "rb") as f:
            cubin = f.read()
        self._init(json.loads(text), cubin, text)

    @classmethod
    def from_artifacts(cls, meta, cubin):
        """A kernel from its parsed metadata and cubin bytes (as
        ``tilec.compile`` returns them), without files."""
        kernel = cls.__new__(cls)
        kernel._init(meta, cubin, None)
        return kernel

    def _init(self, meta, cubin, text):
        self.meta = meta
        self.cubin = cubin
        self.name = meta["kernel"]
        self.params = meta["params"]
        self.tensor_maps = meta.get("tensor_maps") or []
        self._nparams = len(self.params)
        self._steps = _argument_steps(self.params)
        self._fill_args = _make_filler(self._steps)
        self._local = threading.local()
        self._checker = self._checker_env = None  # see _build_checker
        self._lib = lib = _rtcapi.library()
        self._launch_c = lib.tilecRtKernelLaunch
        self._handle, self._create_error = None, None
        self._generation = _rtcapi.driver_generation
        handle = ctypes.c_void_p()
        data = (text if text is not None else json.dumps(meta)).encode()
        if lib.tilecRtKernelCreate(cubin, len(cubin), data, len(data),
                                   ctypes.byref(handle)) != _rtcapi.SUCCESS:
            # Reported when launched, as every other problem of the metadata.
            self._create_error = _rtcapi.last_error()
        self._handle = handle.value

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        try:
            if handle and self._generation == _rtcapi.driver_generation:
                self._lib.tilecRtKernelDestroy(handle)
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _kernel_handle(self):
        """The ``TilecRtKernel``, or the runtime's reason why there is none."""
        if self._handle is None:
            raise LaunchError(self._create_error)
        return self._handle

    def _args_buffer(self):
        """This thread's ``TilecRtArg`` array and its address."""
        try:
            return self._local.args
        except AttributeError:
            args = (_rtcapi.Arg * max(1, self._nparams))()
            self._local.args = (args, ctypes.addressof(args))
            return self._local.args

    def _fill(self, args, values):
        try:
            self._fill_args(args, values)
        except struct.error as e:
            described = ", ".join(f"{p['name']}={v!r}" for p, v in zip(self.params, values))
            raise LaunchError(f"{self.name}: an argument does not fit its parameter type "
                              f"({described}): {e}") from None

    def _check_status(self, status, env, device, retry):
        """Raises the runtime's message for a failed call; a thread without
        a current context gets ``device``'s primary context and one
        ``retry()``."""
        if (status == _rtcapi.DRIVER_ERROR and env is not None
                and self._lib.tilecRtGetLastDriverResult() == _CUDA_ERROR_INVALID_CONTEXT):
            env.make_current(device)
            status = retry()
        if status != _rtcapi.SUCCESS:
            raise LaunchError(_rtcapi.last_error())

    # -- launching ----------------------------------------------------------

    def grid(self, **scalars):
        """The grid of the metadata's rule for integer parameters ``scalars``."""
        rule = self.meta.get("grid") or []
        if not rule:
            raise LaunchError(f"{self.name}: no grid rule in the metadata; pass grid=")
        return evaluate_grid(rule, scalars)

    def __call__(self, *args, grid=None, stream=None):
        if len(args) != self._nparams:
            raise LaunchError(f"{self.name} takes {len(self.params)} arguments "
                              f"({', '.join(p['name'] for p in self.params)}), got {len(args)}")
        env = _torch._env or _launch_env()
        checker = self._checker if self._checker_env is env else self._build_checker(env)
        try:
            values = checker(args)
        except Exception:  # noqa: BLE001 - as for None
            values = None
        if values is None:  # something is off: the step-by-step checks say what
            values = self._checked_values(env, args)
        return self.launch(values, stream=stream, grid=grid)

    def _build_checker(self, env):
        """A function of the arguments doing :meth:`_checked_values`'s checks
        in one pass of generated code: it returns the launch values, or
        ``None`` (or raises) when a check fails."""
        namespace = {"Tensor": env.tensor_type, "index": operator.index}
        names = [f"a{i}" for i in range(self._nparams)]
        lines = ["def check(args):"]
        if names:
            lines.append(f"    {', '.join(names)}, = args")
        for i, name, code, extra in self._steps:
            a = f"a{i}"
            if code == "p":
                dt, align = extra
                lines.append(f"    if not isinstance({a}, Tensor) or not {a}.is_cuda: return None")
                want = env.torch_dtype(dt) if dt is not None else None
                if want is not None:
                    namespace[f"d{i}"] = want
                    lines.append(f"    if {a}.dtype != d{i}: return None")
                lines.append(f"    {a} = {a}.data_ptr()")
                if align:
                    lines.append(f"    if {a} % {int(align)}: return None")
            elif code == "i":
                lines.append(f"    if type({a}) is not int: {a} = index({a})")
        lines.append(f"    return [{', '.join(names)}]")
        exec("\n".join(lines), namespace)  # noqa: S102 - indices and integers only
        self._checker, self._checker_env = namespace["check"], env
        return self._checker

    def _checked_values(self, env, args):
        """The launch values of ``args`` (pointers for tensors), raising
        :class:`LaunchError` for the first tensor or integer argument that
        fails a check (the runtime checks the rest of the contract)."""
        tensor_type = env.tensor_type
        values = list(args)
        for i, name, code, extra in self._steps:
            a = args[i]
            if code == "p":
                if not isinstance(a, tensor_type) or not a.is_cuda:
                    raise LaunchError(f"{self.name}: '{name}' must be a CUDA tensor")
                dt, align = extra
                want = env.torch_dtype(dt) if dt is not None else None
                if want is not None and a.dtype != want:
                    raise LaunchError(f"{self.name}: '{name}' must have dtype "
                                      f"{TORCH_DTYPES[dt]}, got {a.dtype}")
                ptr = a.data_ptr()
                if align and ptr % align:
                    raise LaunchError(f"{self.name}: '{name}' must be {align}-byte "
                                      f"aligned (data_ptr % {align} = {ptr % align})")
                values[i] = ptr
            elif code == "i":
                try:
                    values[i] = operator.index(a)
                except TypeError:
                    raise LaunchError(f"{self.name}: '{name}' must be an integer, got "
                                      f"{type(a).__name__}") from None
        return values

    def launch(self, values, device=None, stream=None, grid=None):
        """Launches with ``values`` in parameter order: pointers as
        integers, integer scalars as ints, other scalars as numbers (checked
        by the runtime). ``device``: the CUDA device to launch on (default:
        the current one); ``stream``: a raw stream handle or a stream object
        (default: torch's current stream of that device); ``grid``:
        overrides the metadata's rule."""
        env = _torch._env or _launch_env()
        current = env.current_device()
        if device is not None and device != current:
            with env.device_context(device):
                return self.launch(values, None, stream, grid)
        handle = self._handle or self._kernel_handle()
        args, address = self._args_buffer()
        self._fill(args, values)
        if stream is None:
            stream = env.current_stream(current)
        elif type(stream) is not int:
            stream = stream_handle(stream)
        if grid is not None:
            grid = (ctypes.c_int64 * 3)(*(tuple(grid) + (1,) * (3 - len(grid))))
        status = self._launch_c(handle, address, self._nparams, grid, stream)
        if status:
            self._check_status(status, env, current, lambda: self._launch_c(
                handle, address, self._nparams, grid, stream))

    def prepare(self, values, device=None):
        """A :class:`PreparedLaunch` of launch ``values`` (as for
        :meth:`launch`) on ``device`` (default: the current one), loading
        the kernel there: checks, grid, tensor maps and parameters worked
        out now, so that launching it costs one call into the runtime."""
        env = _torch._env or _launch_env()
        current = env.current_device()
        if device is not None and device != current:
            with env.device_context(device):
                return self.prepare(values)
        return PreparedLaunch(self, env, current, values)


class PreparedLaunch:
    """One kernel launch on one device worked out once
    (:meth:`Kernel.prepare`): a ``TilecRtLaunch`` (``handle``) and the
    ``TilecRtArg`` buffer it was made from.

    Calling it launches on ``stream`` (default: torch's current stream of
    the device), from any current device, with one ctypes call
    (``tilecRtLaunchRun``). :meth:`update` binds other values (tensor maps
    from the kernel's cache) and writes them into the buffer, so that the
    next launch does not bind again. A prepared launch is not safe to
    update from one thread while another launches it: keep one per thread.
    """

    __slots__ = ("kernel", "env", "device", "handle", "values", "_args", "_address", "_count",
                 "_run", "_generation")

    def __init__(self, kernel, env, device, values):
        self.kernel, self.env, self.device, self.handle = kernel, env, device, None
        self._args = (_rtcapi.Arg * max(1, kernel._nparams))()
        self._address, self._count = ctypes.addressof(self._args), kernel._nparams
        self._generation = _rtcapi.driver_generation
        lib = kernel._lib
        self._run = lib.tilecRtLaunchRun
        handle = kernel._kernel_handle()
        kernel._fill(self._args, values)
        launch = ctypes.c_void_p()

        def create():
            return lib.tilecRtLaunchCreate(handle, self._address, self._count, None,
                                           ctypes.byref(launch))
        status = create()
        if status:
            kernel._check_status(status, env, device, create)
        self.handle = launch.value
        self.values = tuple(values)

    def __del__(self):
        handle, self.handle = self.handle, None
        try:
            if handle and self._generation == _rtcapi.driver_generation:
                self.kernel._lib.tilecRtLaunchDestroy(handle)
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    @property
    def grid(self):
        """The grid launched (capped for persistent kernels)."""
        grid = (ctypes.c_int64 * 3)()
        self.kernel._lib.tilecRtLaunchGetGrid(self.handle, grid)
        return tuple(grid)

    def update(self, values):
        """Binds ``values`` (in parameter order, as for
        :meth:`Kernel.launch`) into the launch and its argument buffer, so
        that the next call launches without binding again; raises
        :class:`LaunchError` (keeping the launch's values) when the runtime
        refuses them."""
        kernel = self.kernel
        args = (_rtcapi.Arg * max(1, self._count))()
        kernel._fill(args, values)
        if kernel._lib.tilecRtLaunchUpdate(self.handle, args, self._count):
            raise LaunchError(_rtcapi.last_error())
        ctypes.memmove(self._address, args, ctypes.sizeof(args))
        self.values = tuple(values)

    def __call__(self, stream=None):
        env = self.env
        if env.current_device() != self.device:
            with env.device_context(self.device):
                return self(stream)
        if stream is None:
            stream = env.current_stream(self.device)
        elif type(stream) is not int:
            stream = stream_handle(stream)
        status = self._run(self.handle, self._address, self._count, stream)
        if status:
            self.kernel._check_status(status, env, self.device, lambda: self._run(
                self.handle, self._address, self._count, stream))


def load(directory, name):
    """The kernel ``name`` compiled into ``directory``."""
    return Kernel(os.path.join(directory, name + ".json"))
