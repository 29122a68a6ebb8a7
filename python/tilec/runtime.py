"""Loads a tilec kernel (cubin + <kernel>.json) and launches it.

Only the metadata file and the cubin are used: parameter names, kinds and
dtypes, block size, dynamic shared memory and the grid rule all come from
``<kernel>.json``. Launches go through the CUDA driver API
(``cuda.bindings.driver``) on the current torch stream.

Everything a launch needs that does not change between calls is worked out
once per kernel (the parameter layout, the checks, the grid rule as Python
code, which parameters feed which tensor map) or once per device (the
function handle, the persistent grid cap). A call then checks its
arguments, packs them with one ``struct.pack_into`` into a per-thread
buffer whose ``void*[]`` array is built once, looks its tensor maps up in a
cache keyed by (base pointer, sizes, strides), and calls ``cuLaunchKernel``.
:meth:`Kernel.prepare` goes one step further for callers that launch the
same values again and again (``tilec.gemm``'s plans): everything but the
stream is worked out once and kept in a :class:`PreparedLaunch`. The
driver's side -- its entry points, errors and tensor maps -- is
:mod:`tilec.cuda_driver`.
"""

import ctypes
import json
import operator
import os
import struct
import threading

from . import cuda_driver as _cuda
from .cuda_driver import (_MAP_CACHE_LIMIT, _TORCH_DTYPES, _MapPlan, _check,
                          _describe_view_value, _forget_modules, _launch_env, encode_tensor_map,
                          tensor_map_values)
from .errors import LaunchError
from .grid import GridRuleError, compile_rule, evaluate_grid, is_computed, view_value

#: struct format of each scalar dtype a kernel parameter may have (f16/bf16
#: are passed as their 16-bit patterns).
_SCALAR_FORMATS = {"i32": "i", "i64": "q", "f32": "f", "f64": "d", "f16": "H", "bf16": "H"}
_INTEGER_DTYPES = ("i32", "i64")

#: Public here, defined in :mod:`tilec.cuda_driver`: the tensor-map encoder,
#: and the hook tests that swap the torch / driver modules call.
_REEXPORTED = (encode_tensor_map, tensor_map_values, _forget_modules)


def _half_bits(value, dtype):
    if dtype == "f16":
        value = float(value)
        try:
            return struct.unpack("<H", struct.pack("<e", value))[0]
        except OverflowError:  # rounds past the f16 range: +-inf, as a cast gives
            return 0xFC00 if value < 0 else 0x7C00
    # bf16: the high half of the f32 bit pattern, rounded to nearest even.
    bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
    bits += 0x7FFF + ((bits >> 16) & 1)
    return (bits >> 16) & 0xFFFF


class _Arena:
    """One thread's parameter buffer: the packed values and the ``void*[]``
    array pointing into it, built once."""

    __slots__ = ("buffer", "offset", "pointers", "address")

    def __init__(self, layout_size, offsets):
        self.buffer = ctypes.create_string_buffer(layout_size + 64)
        base = ctypes.addressof(self.buffer)
        self.offset = -base % 64  # tensor maps on 64-byte boundaries
        self.pointers = (ctypes.c_void_p * max(1, len(offsets)))(
            *[base + self.offset + o for o in offsets])
        self.address = ctypes.addressof(self.pointers) if offsets else 0


class _DeviceState:
    """A kernel on one device: its function handle and grid cap."""

    __slots__ = ("function", "module", "max_programs")

    def __init__(self, module, function):
        self.module, self.function, self.max_programs = module, function, None


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
        self.tensor_maps = self.meta.get("tensor_maps") or []
        self._function = None  # the last device's handle (see _load)
        self._devices = {}  # device index -> _DeviceState
        self._load_lock = threading.Lock()
        self._local = threading.local()
        self._checker = self._checker_env = None  # see _build_checker
        self._prepare()

    def _prepare(self):
        """The per-kernel launch plan (no driver needed)."""
        meta = self.meta
        block = [int(b) for b in meta["block"]]
        self._block = tuple(block + [1] * (3 - len(block)))
        self._threads = self._block[0] * self._block[1] * self._block[2]
        self._smem = int(meta.get("smem_bytes", 0))
        self._persistent = bool(meta.get("persistent"))
        # Thread-block clusters: launched with cuLaunchKernelEx and the
        # cluster-dimension attribute (None: plain cuLaunchKernel).
        cluster = tuple(int(c) for c in (meta.get("cluster") or ()))
        cluster += (1,) * (3 - len(cluster))
        self._cluster = cluster if cluster != (1, 1, 1) else None
        self._nparams = len(self.params)
        self._prepare_layout(self._prepare_steps())
        self._prepare_maps()
        rule = meta.get("grid") or []
        try:
            self._grid_function = compile_rule(rule, self._int_positions) if rule else None
        except GridRuleError:
            self._grid_function = None  # raised again when launched without grid=

    def _prepare_steps(self):
        """Sets how :meth:`__call__` handles each argument; returns each
        parameter's struct format."""
        # Argument handling of __call__: (index, name, code, extra) with code
        # "p" pointer (extra: (tilec dtype, align)), "i" integer (extra:
        # divisibility), "h" f16/bf16 (extra: dtype), "f" other scalar.
        steps = []
        formats = []
        self._half_params = []
        self._unsupported = None
        for i, p in enumerate(self.params):
            if p["kind"] == "pointer":
                steps.append((i, p["name"], "p", (p.get("dtype"), p.get("align"))))
                formats.append("Q")
                continue
            dt = p["dtype"]
            if dt in _INTEGER_DTYPES:
                steps.append((i, p["name"], "i", p.get("divisibility")))
            elif dt in ("f16", "bf16"):
                steps.append((i, p["name"], "h", dt))
                self._half_params.append((i, dt))
            else:
                steps.append((i, p["name"], "f", None))
            if dt not in _SCALAR_FORMATS:
                self._unsupported = self._unsupported or f"'{p['name']}' has dtype {dt}"
            formats.append(_SCALAR_FORMATS.get(dt, "i"))
        self._steps = tuple(steps)
        self._half_params = tuple(self._half_params)
        return formats

    def _prepare_layout(self, formats):
        """The packed layout of the parameters (``formats``: their struct
        formats) and the kernel's tensor maps."""
        # The packed layout: each parameter at its natural alignment, each
        # tensor map (128 bytes) on a 64-byte boundary.
        fmt, offsets, at = ["<"], [], 0
        for code in formats + ["128s"] * len(self.tensor_maps):
            size = struct.calcsize("<" + code)
            align = 64 if code == "128s" else size
            pad = -at % align
            if pad:
                fmt.append(f"{pad}x")
            at += pad
            offsets.append(at)
            fmt.append(code)
            at += size
        self._struct = struct.Struct("".join(fmt))
        self._offsets = tuple(offsets)

    def _prepare_maps(self):
        """How the kernel's tensor maps are fed (:class:`_MapPlan`), cached
        and checked."""
        # Integer parameters are what grid rules and tensor maps refer to.
        self._int_positions = {p["name"]: i for i, p in enumerate(self.params)
                               if p["kind"] != "pointer" and p["dtype"] in _INTEGER_DTYPES}
        positions = dict(self._int_positions)
        positions.update({p["name"]: i for i, p in enumerate(self.params)
                          if p["kind"] == "pointer"})
        self._map_error = None
        try:
            self._maps = tuple(_MapPlan(spec, positions) for spec in self.tensor_maps)
        except LaunchError as e:  # reported when launched, like before
            self._maps, self._map_error = (), e
        # One lookup for all maps of a launch: keyed by every value any map
        # depends on; a miss goes through the per-map caches.
        indices = sorted({positions[n] for plan in self._maps for n in plan.names})
        self._maps_key = (operator.itemgetter(*indices) if len(indices) > 1 else
                          (lambda v, g=operator.itemgetter(*indices): (g(v),)) if indices else
                          (lambda v: ()))
        self._maps_cache = {}
        self._needs_maps = bool(self._maps or self._map_error or self._unsupported)
        # Sizes and strides the kernel computes (see _check_extents).
        self._extents = tuple((spec, d, spec[key][d], key == "sizes")
                              for spec in self.tensor_maps for d in range(len(spec["sizes"]))
                              for key in ("sizes", "strides") if is_computed(spec[key][d]))

    # -- per device ---------------------------------------------------------

    def _device_state(self, device):
        state = self._devices.get(device)
        if state is None:
            state = self._load_device(device)
        return state

    def _load_device(self, device):
        """Loads the cubin into the current context (that of ``device``)."""
        env = _launch_env()
        with self._load_lock:
            state = self._devices.get(device)
            if state is not None:
                return state
            driver = env.driver
            module = _check(driver.cuModuleLoadData(self.cubin))
            function = _check(driver.cuModuleGetFunction(module, self.name.encode()))
            if self._smem > 48 * 1024:
                _check(driver.cuFuncSetAttribute(
                    function,
                    driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    self._smem))
            state = _DeviceState(module, function)
            if self._persistent:
                state.max_programs = self._query_resident_programs(env, function, device)
            self._devices[device] = state
            self._module, self._function = module, function
            return state

    def _load(self):
        """The function handle on the current device (loading it there the
        first time)."""
        env = _launch_env()
        return self._device_state(env.current_device()).function

    def _resident_programs(self):
        """Programs a persistent kernel launches on the current device: as
        many as fit on it at once (queried once per device)."""
        env = _launch_env()
        state = self._device_state(env.current_device())
        if state.max_programs is None:
            state.max_programs = self._query_resident_programs(
                env, state.function, env.current_device())
        return state.max_programs

    def _check_whole_clusters(self, grid):
        """A persistent cluster kernel walks its tiles in whole clusters
        (its programs share tiles by multicast and must run equally many):
        the tile grid, before the cap, is a whole number of clusters. The
        launch grid of every cluster kernel is checked at launch."""
        if self._cluster is None or not self._persistent:
            return
        if any(g % c for g, c in zip(grid, self._cluster)):
            raise LaunchError(
                f"{self.name}: grid {tuple(grid)} is not a whole number of "
                f"{'x'.join(map(str, self._cluster))} clusters (a persistent "
                f"kernel walks its tiles in whole clusters)")

    def _query_resident_programs(self, env, function, device):
        """Programs of ``function`` resident on ``device`` at once: blocks
        per SM times SMs, or for cluster kernels whole clusters (the most
        that can be co-scheduled, times the cluster size, so the capped grid
        stays a multiple of the cluster's x size)."""
        driver = env.driver
        if self._cluster is None:
            per_sm = _check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                function, self._threads, self._smem))
            sms = env.torch.cuda.get_device_properties(device).multi_processor_count
            return max(1, per_sm) * sms
        config = self._launch_config(driver, self._cluster, None)
        clusters = _check(driver.cuOccupancyMaxActiveClusters(function, config))
        cx, cy, cz = self._cluster
        return max(1, clusters) * cx * cy * cz

    def _launch_config(self, driver, grid, cu_stream):
        """The CUlaunchConfig of a cluster launch of ``grid``."""
        config = driver.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = grid
        config.blockDimX, config.blockDimY, config.blockDimZ = self._block
        config.sharedMemBytes = self._smem
        if cu_stream is not None:
            config.hStream = cu_stream
        attr = driver.CUlaunchAttribute()
        attr.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = \
            self._cluster
        config.attrs = [attr]
        config.numAttrs = 1
        return config

    def _launch_clustered(self, env, function, grid, cu_stream, address):
        """cuLaunchKernelEx of a cluster kernel."""
        if any(g % c for g, c in zip(grid, self._cluster)):
            raise LaunchError(
                f"{self.name}: grid {tuple(grid)} is not a whole number of "
                f"{'x'.join(map(str, self._cluster))} clusters")
        config = self._launch_config(env.driver, grid, cu_stream)
        _check(env.driver.cuLaunchKernelEx(config, function, address, 0))

    # -- launching ----------------------------------------------------------

    def grid(self, **scalars):
        rule = self.meta.get("grid") or []
        if not rule:
            raise LaunchError(f"{self.name}: no grid rule in the metadata; pass grid=")
        return evaluate_grid(rule, scalars)

    def _compiled_grid(self):
        f = self._grid_function
        if f is None:
            rule = self.meta.get("grid") or []
            if not rule:
                raise LaunchError(f"{self.name}: no grid rule in the metadata; pass grid=")
            f = self._grid_function = compile_rule(rule, self._int_positions)
        return f

    def __call__(self, *args, grid=None, stream=None):
        if len(args) != self._nparams:
            raise LaunchError(f"{self.name} takes {len(self.params)} arguments "
                              f"({', '.join(p['name'] for p in self.params)}), got {len(args)}")
        env = _cuda._env or _launch_env()
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
        namespace = {"Tensor": env.tensor_type, "index": operator.index, "int": int}
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
                if extra:
                    lines.append(f"    if {a} % {int(extra)}: return None")
        lines.append(f"    return [{', '.join(names)}]")
        exec("\n".join(lines), namespace)  # noqa: S102 - indices and integers only
        self._checker, self._checker_env = namespace["check"], env
        return self._checker

    def _checked_values(self, env, args):
        """The launch values of ``args`` (pointers for tensors), raising
        :class:`LaunchError` for the first argument that fails a check."""
        tensor_type = env.tensor_type
        values = list(args)
        for i, name, code, extra in self._steps:
            a = args[i]
            if code == "p":
                if not isinstance(a, tensor_type) or not a.is_cuda:
                    raise LaunchError(f"{self.name}: '{name}' must be a CUDA tensor")
                dt, align = extra
                if dt is not None:
                    want = env.torch_dtype(dt)
                    if want is not None and a.dtype != want:
                        raise LaunchError(f"{self.name}: '{name}' must have dtype "
                                          f"{_TORCH_DTYPES[dt]}, got {a.dtype}")
                ptr = a.data_ptr()
                if align and ptr % align:
                    raise LaunchError(f"{self.name}: '{name}' must be {align}-byte "
                                      f"aligned (data_ptr % {align} = {ptr % align})")
                values[i] = ptr
            elif code == "i":
                try:
                    v = operator.index(a)
                except TypeError:
                    raise LaunchError(f"{self.name}: '{name}' must be an integer, got "
                                      f"{type(a).__name__}") from None
                if extra and v % extra:
                    raise LaunchError(f"{self.name}: '{name}' = {v} must be a multiple of "
                                      f"{extra}")
                values[i] = v
        return values

    def launch(self, values, device=None, stream=None, grid=None):
        """Launches with ``values`` in parameter order, already checked:
        pointers as integers, integer scalars as ints, other scalars as
        numbers. ``device``: the CUDA device to launch on (default: the
        current one); ``stream``: a raw stream handle or CUstream (default:
        torch's current stream of that device); ``grid``: overrides the
        metadata's rule."""
        if grid is None:
            gx, gy, gz = (self._grid_function or self._compiled_grid())(values)
        else:
            grid = tuple(grid) + (1,) * (3 - len(grid))
            gx, gy, gz = grid
        if gx <= 0 or gy <= 0 or gz <= 0:
            return  # empty problem: nothing to launch
        if self._extents:
            self._check_extents(values)
        env = _cuda._env or _launch_env()
        current = env.current_device()
        if device is not None and device != current:
            with env.device_context(device):
                return self.launch(values, device, stream, (gx, gy, gz))
        self._check_whole_clusters((gx, gy, gz))
        state = self._devices.get(current) or self._device_state(current)
        if self._persistent and gx > state.max_programs:
            gx = state.max_programs
        try:
            arena = self._local.arena
        except AttributeError:
            arena = self._local.arena = _Arena(self._struct.size, self._offsets)
        self._pack(arena, values)
        if stream is None:
            stream = env.current_stream(current)
        cu_stream = env.streams.get(stream) if isinstance(stream, int) else None
        if cu_stream is None:
            cu_stream = env.cu_stream(stream)
        if self._cluster is not None:
            return self._launch_clustered(env, state.function, (gx, gy, gz), cu_stream,
                                          arena.address)
        block = self._block
        (err,) = env.launch(state.function, gx, gy, gz, block[0], block[1], block[2],
                            self._smem, cu_stream, arena.address, 0)
        if err is not env.success and err != env.success:
            _check((err,))

    def _pack(self, arena, values):
        """Packs launch values, and the tensor maps they feed, into
        ``arena``'s buffer."""
        if self._half_params:
            values = list(values)
            for i, dt in self._half_params:
                values[i] = _half_bits(values[i], dt)
        if self._needs_maps:
            blobs = self._maps_cache.get(self._maps_key(values))
            if blobs is None:
                blobs = self._map_blobs(values)
        else:
            blobs = ()
        try:
            self._struct.pack_into(arena.buffer, arena.offset, *values, *blobs)
        except struct.error as e:
            raise LaunchError(f"{self.name}: an argument does not fit its parameter type "
                              f"({self._describe_values(values)}): {e}") from None

    def prepare(self, values, device=None):
        """A :class:`PreparedLaunch` of checked launch ``values`` (as for
        :meth:`launch`) on ``device`` (default: the current one), loading
        the kernel there: grid, function handle and packed parameters worked
        out now, so that launching it costs only the driver call."""
        env = _cuda._env or _launch_env()
        current = env.current_device()
        if device is not None and device != current:
            with env.device_context(device):
                return self.prepare(values, device)
        gx, gy, gz = (self._grid_function or self._compiled_grid())(values)
        if gx > 0 and gy > 0 and gz > 0:
            self._check_whole_clusters((gx, gy, gz))
        state = self._devices.get(current) or self._device_state(current)
        if self._persistent and gx > state.max_programs:
            gx = state.max_programs
        return PreparedLaunch(self, env, current, state.function, (gx, gy, gz), values)

    def _check_extents(self, values):
        """Refuses a computed size or stride of 0 when the grid has programs:
        a parameter of 0 is an empty problem the kernel's own loops skip,
        but a size the kernel computes is not encoded as 1, nor a stride as
        anything (as the C++ runtime and the AOT header refuse them)."""
        env = {p["name"]: v for p, v in zip(self.params, values)}
        for spec, d, v, is_size in self._extents:
            try:
                value = view_value(v, env)
            except (GridRuleError, TypeError, ValueError):
                continue  # reported when the map is encoded
            if value == 0:
                raise LaunchError(f"{self.name}: tensor map of '{spec['base']}': "
                                  f"{'size' if is_size else 'stride'} "
                                  f"{_describe_view_value(v, 0, env)} of dimension {d} "
                                  f"(innermost first) must be "
                                  f"{'at least 1' if is_size else 'positive'} when the grid "
                                  f"has programs")

    def _map_blobs(self, values):
        if self._unsupported:
            raise LaunchError(f"{self.name}: unsupported parameter type: {self._unsupported}")
        if self._map_error is not None:
            raise self._map_error
        blobs = []
        for plan in self._maps:
            key = plan.key(values)
            blob = plan.cache.get(key)
            if blob is None:
                blob = plan.blob(values, key)
            blobs.append(blob)
        blobs = tuple(blobs)
        if len(self._maps_cache) >= _MAP_CACHE_LIMIT:
            self._maps_cache.clear()
        self._maps_cache[self._maps_key(values)] = blobs
        return blobs

    def _describe_values(self, values):
        return ", ".join(f"{p['name']}={v!r}" for p, v in zip(self.params, values))


class PreparedLaunch:
    """One kernel launch on one device worked out once (:meth:`Kernel.prepare`):
    the function handle, the grid (capped for persistent kernels) and the
    parameters packed into a buffer of its own, with the ``void*[]`` array
    pointing into it.

    Calling it launches on ``stream`` (default: torch's current stream of
    the device), from any current device. :meth:`update` re-packs it for
    other values that give the same grid -- new data pointers, float
    scalars -- and re-encodes (or takes from the kernel's cache) the tensor
    maps those values feed. A prepared launch is not safe to update from one
    thread while another launches it: keep one per thread.
    """

    __slots__ = ("kernel", "env", "device", "function", "grid", "block", "smem", "arena",
                 "values", "_rule_grid", "_empty", "_address")

    def __init__(self, kernel, env, device, function, grid, values):
        self.kernel, self.env, self.device, self.function = kernel, env, device, function
        self.grid, self.block, self.smem = grid, kernel._block, kernel._smem
        self._empty = grid[0] <= 0 or grid[1] <= 0 or grid[2] <= 0  # nothing to launch
        self.arena = _Arena(kernel._struct.size, kernel._offsets)
        self._address = self.arena.address
        self._rule_grid = (kernel._grid_function or kernel._compiled_grid())(values)
        self.values = None
        self.update(values)

    def update(self, values):
        """Re-packs the parameters for ``values`` (checked, in parameter
        order); they must give the grid this launch was prepared with."""
        kernel = self.kernel
        if (kernel._grid_function or kernel._compiled_grid())(values) != self._rule_grid:
            raise LaunchError(f"{kernel.name}: a prepared launch cannot change its grid "
                              f"({kernel._describe_values(values)})")
        if self._empty:  # nothing launches: no parameter or map to pack
            self.values = tuple(values)
            return
        if kernel._extents:
            kernel._check_extents(values)
        kernel._pack(self.arena, values)
        self.values = tuple(values)

    def __call__(self, stream=None):
        env = self.env
        if env.current_device() != self.device:
            with env.device_context(self.device):
                return self(stream)
        if stream is None:
            stream = env.current_stream(self.device)
        try:
            cu_stream = env.streams.get(stream)
        except TypeError:  # an unhashable stream object
            cu_stream = None
        if cu_stream is None:
            cu_stream = env.cu_stream(stream)
        if self._empty:
            return
        grid, block = self.grid, self.block
        if self.kernel._cluster is not None:
            return self.kernel._launch_clustered(env, self.function, grid, cu_stream,
                                                 self._address)
        (err,) = env.launch(self.function, grid[0], grid[1], grid[2], block[0], block[1],
                            block[2], self.smem, cu_stream, self._address, 0)
        if err is not env.success and err != env.success:
            _check((err,))


def load(directory, name):
    """The kernel ``name`` compiled into ``directory``."""
    return Kernel(os.path.join(directory, name + ".json"))
