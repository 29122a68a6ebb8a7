"""``tilec.gemm``, ``tilec.bmm``, ``tilec.grouped_gemm`` and
``tilec.attention`` on torch / CuPy / DLPack tensors.

A call describes its tensors (:mod:`tilec.tensors`), checks them, picks the
kernel variant (dtype, B layout, epilogue, head dim, causal), finds its
cubin -- precompiled in ``artifacts=`` / ``$TILEC_ARTIFACTS``, else compiled
through ``libtilec-c.so`` and the on-disk cache -- checks the values against
what the kernel's metadata requires (alignment, divisibility, TMA strides)
and launches it through :mod:`tilec.runtime` on the current stream of the
library the tensors come from (CuPy's for CuPy arrays, else torch's).
Resolved kernels are memoized per process.

Each op has one checked path (:func:`_gemm_checked`, :func:`_bmm_checked`,
:func:`_grouped_checked`, :func:`_attention_checked`) that does all of the
above and raises the errors. For torch tensors, a call first looks for a
*plan*: a checked call worked out for the same tensor metadata -- shapes,
strides, dtypes, devices -- and the same flags, chip and artifacts
directory, holding the kernel's :class:`tilec.runtime.PreparedLaunch` (grid,
function handle, parameters packed once). Everything the checks derive is a
function of that key, except what depends on data pointers (alignment,
tensor maps) and float scalars: a plan compares those with the ones it was
last packed with and, when they differ, checks the alignments again and
re-packs (tensor maps come from the kernel's cache keyed by pointer, sizes
and strides). So a hit never launches with stale values, and a call that
repeats costs reading the tensors' attributes, one dictionary lookup and
``cuLaunchKernel``. Plans are per thread (a prepared launch's buffer is
re-packed in place), at most ``_PLAN_LIMIT`` of them, all dropped by
:func:`clear_kernel_memo`.
"""

import math
import os
import struct
import sys
import threading
import weakref

from . import artifacts as _artifacts
from .errors import ArgumentError, DTypeError, KernelNotAvailableError, LoweringNotAvailableError
from .grid import GridRuleError, view_params, view_value
from . import _rules
from .kernels import (FP8_DTYPES, PRECISIONS, attention_name, attention_shape_config,
                      gemm_stage_names,
                      attention_source, default_out_dtype, gemm_config_suffix, gemm_name,
                      gemm_dispatch_config, gemm_shape_config, gemm_source,
                      grouped_gemm_shape_config, GEMM_SCALE_BLOCK as _SCALE_BLOCK)
from .tensors import ELEMENT_BYTES, TORCH_DTYPES, TensorInfo, describe, dtype_name

__all__ = ["gemm", "bmm", "grouped_gemm", "attention", "default_precision", "device_chip",
           "chip_for_capability", "clear_kernel_memo",
           "ArgumentError", "DTypeError", "KernelNotAvailableError", "LoweringNotAvailableError"]


_GEMM_INPUT_DTYPES = ("bf16", "f16", "f32", "i8") + FP8_DTYPES
_ATTENTION_DTYPES = ("bf16", "f16")
_GEMM_OUTPUT_DTYPES = ("bf16", "f16", "f32")
_ACTIVATIONS = (None, "relu", "gelu", "silu")
_ROW_BYTES = 16  # cp.async / TMA move 16-byte chunks: row strides are multiples


def device_capability(index=None):
    """``(major, minor)`` of CUDA device ``index`` (current by default)."""
    import torch
    return tuple(torch.cuda.get_device_capability(index))


def chip_for_capability(capability):
    """``(chip, cubin_arch)`` tilec targets on a device of that compute
    capability: its own ISA where tilec has one (``sm_90a`` on Hopper), else
    the closest older chip's PTX assembled for the device (the compiler's
    rule, through ``libtilec-rules.so``)."""
    major, minor = capability
    found = _rules.chip_for_capability(major, minor)
    if found is None:
        raise ArgumentError(f"compute capability {major}.{minor} is not supported: tilec "
                            f"kernels need sm_80 (Ampere) or newer")
    return found


def device_chip(index=None):
    """``(chip, cubin_arch)`` for CUDA device ``index``."""
    return chip_for_capability(device_capability(index))


#: Resolved kernels: key -> (runtime.Kernel, metadata).
_kernels = {}
_kernels_lock = threading.Lock()


#: Plans of the calls each thread made (see the module's doc): a dict per
#: thread, each reachable from _plan_caches (through a holder that dies with
#: the thread) for clear_kernel_memo.
_PLAN_LIMIT = 1024


class _PlanCacheHolder:
    __slots__ = ("plans", "__weakref__")

    def __init__(self, plans):
        self.plans = plans


_plan_caches = weakref.WeakSet()


class _Local(threading.local):
    def __init__(self):
        self.plans = {}
        self.holder = _PlanCacheHolder(self.plans)
        with _kernels_lock:
            _plan_caches.add(self.holder)


_tls = _Local()


def clear_kernel_memo():
    """Forgets every resolved kernel, every thread's plans and the devices'
    SM counts (tests; after rebuilding artifacts or changing
    :func:`tilec.kernels.gemm_shape_config`)."""
    with _kernels_lock:
        _kernels.clear()
        _num_sms.clear()
        for holder in list(_plan_caches):
            holder.plans.clear()


def _resolve(op, name, make_source, chip, cubin_arch, directory, device_index, kernel=None):
    """(launcher, metadata) of kernel ``name`` (or of ``kernel``, one of the
    kernels its source defines: a stage of a named op that is several):
    precompiled from ``directory`` if it has it, else compiled."""
    name = kernel or name
    key = (name, chip, cubin_arch, directory, device_index)
    found = _kernels.get(key)
    if found is not None:
        return found
    with _kernels_lock:
        found = _kernels.get(key)
        if found is not None:
            return found
        source = make_source()
        from .runtime import Kernel
        pre = _artifacts.find(directory, chip, name, source) if directory else None
        if pre is not None:
            meta, cubin = pre
            capability = _capability_or_none(device_index)
            if capability and not _artifacts.cubin_runs_on(meta.get("cubin_arch"), capability):
                raise _artifacts.ArtifactError(
                    f"{op}: the precompiled {name} for {chip} is a cubin for "
                    f"{meta.get('cubin_arch')}, which cannot run on this GPU (compute "
                    f"capability {capability[0]}.{capability[1]})")
            found = (Kernel.from_artifacts(meta, cubin), meta)
        else:
            found = _compile(op, name, source, chip, cubin_arch, directory)
        _kernels[key] = found
        return found


def _capability_or_none(device_index):
    """The device's compute capability, or ``None`` without torch/CUDA."""
    try:
        return device_capability(device_index)
    except Exception:  # no torch, no driver: nothing to check against
        return None


def _compile(op, name, source, chip, cubin_arch, directory):
    """Compiles ``source`` (through the cache) and returns (launcher, meta)."""
    from . import _capi
    from .compiler import compile as compile_source
    try:
        result = compile_source(source, chip=chip, emit="cubin", cubin_arch=cubin_arch)
    except _capi.CompilerNotFoundError as e:
        where = (f"no precompiled {name} in {os.path.join(directory, chip)}"
                 if directory else "no artifacts directory (artifacts= / TILEC_ARTIFACTS)")
        raise KernelNotAvailableError(f"{op}: cannot get kernel {name} for {chip}: {where}, "
                                      f"and {e}") from e
    kernel = result[name]
    return kernel.launcher(), kernel.metadata


def _check_device(op, infos):
    """All tensors on one CUDA device; returns its index."""
    first = infos[0]
    for info in infos:
        if info.device[0] != "cuda":
            raise ArgumentError(f"{op}: {info.name} is on {info.device[0]}; tilec kernels need "
                                f"CUDA tensors")
        if info.device != first.device:
            raise ArgumentError(f"{op}: {info.name} is on cuda:{info.device[1]} but "
                                f"{first.name} is on cuda:{first.device[1]}")
    return first.device[1]


def _round_up(value, multiple):
    return (value + multiple - 1) // multiple * multiple


def _row_quantum(element_bytes):
    """Elements per 16-byte row chunk."""
    return max(1, _ROW_BYTES // max(element_bytes, 1))


def _free_stride(extent, element_bytes):
    """The leading dimension to pass for a matrix with a single row, whose
    stride the kernel never follows: the row length rounded to 16 bytes."""
    return _round_up(max(extent, 1), _row_quantum(element_bytes))


def _row_major_ld(op, info, what):
    """Leading dimension of a row-major matrix (unit stride along columns)."""
    rows, cols = info.shape
    if cols > 1 and info.strides[1] != 1:
        raise ArgumentError(
            f"{op}: {info.name} must be row-major with unit stride along its last dimension "
            f"({what}); got strides {info.strides} -- pass {info.name}.contiguous()")
    return info.strides[0] if rows > 1 else _free_stride(cols, info.element_bytes)


def _b_layout_of(k, n, s0, s1, quantum):
    """(layout, ldb) of a K x N matrix B with strides (s0, s1), ``None`` when
    it has unit stride along neither dimension; see :func:`_b_layout`."""
    row = col = None
    if n == 1 or s1 == 1:
        row = s0 if k > 1 else _round_up(max(n, 1), quantum)
        if row % quantum == 0:
            return "row", row
    if k == 1 or s0 == 1:
        col = s1 if n > 1 else _round_up(max(k, 1), quantum)
        if col % quantum == 0:
            return "col", col
    if row is not None:
        return "row", row
    if col is not None:
        return "col", col
    return None


def _b_layout(op, info):
    """(layout, ldb) of B: ``row`` (K x N, unit column stride) or ``col``
    (unit row stride, e.g. ``w.t()`` of an N x K weight). When both fit, the
    one whose leading dimension keeps rows 16-byte aligned wins."""
    k, n = info.shape
    found = _b_layout_of(k, n, info.strides[0], info.strides[1],
                         _row_quantum(info.element_bytes))
    if found is None:
        raise ArgumentError(f"{op}: b must have unit stride along one dimension (row- or "
                            f"column-major); got strides {info.strides} -- pass b.contiguous()")
    return found


def _check_metadata(op, meta, values, described):
    """Checks launch values against the kernel's requirements: pointer dtype
    and alignment, scalar divisibility, TMA base/stride rules. ``described``
    maps parameter names to what the user passed, for the messages."""
    problem = _metadata_problem(op, meta, values, described)
    if problem is not None:
        raise problem


def _metadata_problem(op, meta, values, described, dtypes=True):
    """The error :func:`_check_metadata` raises for these launch values (of
    the parameters ``values`` has), or ``None`` when they meet the kernel's
    requirements (``dtypes=False``: its alignment requirements only)."""
    for p in meta["params"]:
        name = p["name"]
        if name not in values:
            continue
        value = values[name]
        what = described.get(name, name)
        if p["kind"] == "pointer":
            if dtypes and p.get("dtype") and value.dtype != p["dtype"]:
                return DTypeError(f"{op}: {what} must be {p['dtype']}, got {value.dtype}")
            align = p.get("align")
            if align and value.ptr % align:
                return ArgumentError(
                    f"{op}: {what} must be {align}-byte aligned, as the kernel reads it in "
                    f"{align}-byte chunks; its data pointer is {value.ptr:#x} (offset "
                    f"{value.ptr % align} bytes) -- views that start inside a row break this")
        elif p.get("divisibility"):
            div = p["divisibility"]
            if int(value) % div:
                return ArgumentError(
                    f"{op}: {what} = {int(value)} must be a multiple of {div}, as the kernel "
                    f"requires (rows start on 16-byte boundaries); allocate with a padded row, "
                    f"e.g. torch.empty(rows, {_round_up(int(value), div)})[:, :cols]")
    for spec in meta.get("tensor_maps", []):
        if spec["base"] not in values:
            continue
        base = values[spec["base"]]
        if base.ptr % 16:
            return ArgumentError(f"{op}: {described.get(spec['base'], spec['base'])} must be "
                                 f"16-byte aligned for TMA; its data pointer is {base.ptr:#x}")
        for stride in spec["strides"][1:]:
            if any(n not in values for n in view_params(stride)):
                continue
            try:
                elements = view_value(stride, values)
            except GridRuleError as e:
                return ArgumentError(f"{op}: stride {stride} of the tensor map of "
                                     f"{described.get(spec['base'], spec['base'])} {e}")
            if elements * spec["elem_bytes"] % 16:
                what = described.get(stride, stride) if isinstance(stride, str) else stride
                return ArgumentError(
                    f"{op}: {what} = {elements} elements ({elements * spec['elem_bytes']} bytes) "
                    f"is not a multiple of 16 bytes, which TMA requires for "
                    f"{described.get(spec['base'], spec['base'])}")
    return None


# -- allocating and launching ------------------------------------------------

_torch_devices = {}
_CUPY_DTYPES = {"f16": "float16", "f32": "float32"}


def _allocator(like, shape, dtype, row_quantum=1):
    """A function allocating an uninitialized ``shape`` tensor of tilec
    ``dtype`` with the library of ``like`` (anything with ``kind`` and
    ``device`` as in :class:`TensorInfo`: CuPy for ``"cai"``, else torch) on
    its device. A matrix's rows are padded to a multiple of ``row_quantum``
    elements (a view of a wider buffer) when the kernel requires that of the
    row stride."""
    shape = tuple(shape)
    padded = shape
    if row_quantum > 1 and len(shape) == 2 and shape[0] > 1 and shape[1] % row_quantum:
        padded = (shape[0], _round_up(shape[1], row_quantum))
    cols = shape[-1] if shape else 0
    if like.kind == "cai":
        import cupy
        if dtype not in _CUPY_DTYPES:
            raise DTypeError(f"CuPy has no {TORCH_DTYPES.get(dtype, dtype)}; pass out= (e.g. a "
                             f"torch tensor)")
        device, np_dtype = cupy.cuda.Device(like.device[1]), _CUPY_DTYPES[dtype]

        def allocate():
            with device:
                buf = cupy.empty(padded, dtype=np_dtype)
            return buf if padded == shape else buf[:, :cols]
        return allocate
    import torch
    index = like.device[1]
    device = _torch_devices.get(index)
    if device is None:
        device = _torch_devices[index] = torch.device("cuda", index)
    empty, torch_dtype = torch.empty, getattr(torch, TORCH_DTYPES[dtype])
    if padded == shape:
        return lambda: empty(shape, dtype=torch_dtype, device=device)
    return lambda: empty(padded, dtype=torch_dtype, device=device)[:, :cols]


def _allocate(like, shape, dtype, row_quantum=1):
    """A tensor from :func:`_allocator`."""
    return _allocator(like, shape, dtype, row_quantum)()


def _current_cupy_stream(device_index):
    """CuPy's current stream on a device (raw handle)."""
    import cupy
    with cupy.cuda.Device(device_index):
        return cupy.cuda.get_current_stream().ptr


def _launch(launcher, args, kind, device_index):
    """Launches ``launcher`` (a :class:`tilec.runtime.Kernel`) with launch
    values ``args`` (in parameter order, pointers as integers, all checked)
    on device ``device_index``, on the current stream of the library the
    tensors come from: CuPy's for ``kind == "cai"``, else torch's."""
    stream = _current_cupy_stream(device_index) if kind == "cai" else None
    launcher.launch(args, device=device_index, stream=stream)


class _Plan:
    """A checked call prepared for reuse (see the module's doc).

    ``launch``: the :class:`tilec.runtime.PreparedLaunch`; ``values``: its
    launch values; ``slots`` / ``aligns``: for each per-call value (data
    pointers, float scalars, in the op's order) its parameter index
    (``None``: not passed) and the alignment its pointer needs (0: none);
    ``last``: the per-call values packed now (``None`` while re-packing);
    ``allocate`` / ``allocate_lse``: what allocates the output / the lse
    when the call does not pass it; ``scratch``: attention's lse when the
    caller does not want it, one per stream."""

    __slots__ = ("launch", "env", "index", "values", "slots", "aligns", "last", "allocate",
                 "allocate_lse", "scratch")

    def fits(self, dyn):
        """Whether the per-call values ``dyn`` keep every pointer's
        alignment requirement."""
        for value, align in zip(dyn, self.aligns):
            if align and value % align:
                return False
        return True

    def bind(self, dyn):
        """Packs the per-call values ``dyn``; ``False`` (nothing launched)
        when a pointer breaks an alignment requirement."""
        if not self.fits(dyn):
            return False
        values = self.values
        for slot, value in zip(self.slots, dyn):
            if slot is not None:
                values[slot] = value
        self.last = None  # a failed re-pack must not leave a stale match
        self.launch.update(values)
        self.last = dyn
        return True

    def stream(self):
        """torch's current stream on the plan's device (raw handle)."""
        return self.env.current_stream(self.index)

    def lse_scratch(self, stream):
        """An lse buffer the kernel may write on ``stream`` and nobody reads;
        allocated on that stream (so that freeing it is ordered after the
        launches using it) and kept."""
        lse = self.scratch.get(stream)
        if lse is None:
            if len(self.scratch) >= 8:
                self.scratch.clear()
            lse = self.scratch[stream] = self.allocate_lse()
        return lse


class _StagedPlan:
    """A checked call of several kernels launched in order (split-K's
    partial products, then their sum) prepared for reuse: a :class:`_Plan`
    per kernel, all bound to the same per-call values, and the f32
    workspace between them, one per stream (allocated on it, so that the
    kernels of one stream reuse it in order) and kept.

    ``stages``: the plans; ``allocate``: what allocates the output when the
    call does not pass it; ``allocate_workspace``: the workspace's;
    ``scratch``: stream -> workspace; ``w_slots``: each stage's parameter
    index of the workspace; ``bound``: the workspace address packed now."""

    __slots__ = ("stages", "allocate", "allocate_workspace", "scratch", "w_slots", "bound")

    @property
    def last(self):
        return self.stages[-1].last

    def bind(self, dyn):
        """As :meth:`_Plan.bind`, for every stage (none re-packed unless all
        fit)."""
        if not all(stage.fits(dyn) for stage in self.stages):
            return False
        for stage in self.stages:
            stage.bind(dyn)
        return True

    def launch(self):
        stages = self.stages
        stream = stages[0].stream()
        workspace = self.scratch.get(stream)
        if workspace is None:
            if len(self.scratch) >= 8:
                self.scratch.clear()
            workspace = self.scratch[stream] = self.allocate_workspace()
        address = workspace.data_ptr()
        if address != self.bound:
            for stage, slot in zip(stages, self.w_slots):
                stage.values[slot] = address
                stage.launch.update(stage.values)
            self.bound = address
        for stage in stages:
            stage.launch()


def _pointer_aligns(meta):
    """Alignment each pointer parameter needs (kernel's align, 16 for TMA
    bases), by name."""
    aligns = {p["name"]: int(p.get("align") or 0) for p in meta["params"]
              if p["kind"] == "pointer"}
    for spec in meta.get("tensor_maps") or []:
        aligns[spec["base"]] = max(aligns.get(spec["base"], 0), 16)
    return aligns


def _prepare_plan(launcher, meta, args, device_index, names, dyn, allocate=None,
                  allocate_lse=None):
    """A :class:`_Plan` of the checked launch ``args`` (values in parameter
    order) of ``launcher``. ``names`` / ``dyn``: the parameter names and
    values of what may change between calls with that key (data pointers,
    float scalars)."""
    positions = {p["name"]: i for i, p in enumerate(meta["params"])}
    aligns = _pointer_aligns(meta)
    plan = _Plan()
    plan.launch = launcher.prepare(args, device_index)
    plan.env, plan.index = plan.launch.env, plan.launch.device
    plan.values = list(args)
    plan.slots = tuple(positions.get(n) for n in names)
    plan.aligns = tuple(aligns.get(n, 0) for n in names)
    plan.last = tuple(dyn)
    plan.allocate, plan.allocate_lse, plan.scratch = allocate, allocate_lse, {}
    return plan


def _store_plan(key, plan):
    """Stores ``plan`` for ``key`` in this thread's cache."""
    cache = _tls.plans
    if len(cache) >= _PLAN_LIMIT:
        cache.clear()
    cache[key] = plan
    return plan


def _make_plan(key, launcher, meta, args, device_index, names, dyn, allocate=None,
               allocate_lse=None):
    """:func:`_prepare_plan`, stored for ``key`` in this thread's cache."""
    return _store_plan(key, _prepare_plan(launcher, meta, args, device_index, names, dyn,
                                          allocate, allocate_lse))


def _launch_args(meta, values):
    """Launch values in parameter order (pointers as integers) of a
    checked call's ``values`` (parameter name -> value, :class:`TensorInfo`
    for tensors)."""
    args = [values[p["name"]] for p in meta["params"]]
    return [v.ptr if isinstance(v, TensorInfo) else v for v in args]


def _launch_stages(key, stages, values, kind, device_index, names, allocate, workspace):
    """Launches the kernels ``stages`` ([(launcher, metadata)]) of one
    checked call in order: through a new :class:`_StagedPlan` for ``key``
    when there is one (torch tensors), else directly. ``workspace``: (the
    f32 buffer between the stages, its allocator); ``values["W"]`` is its
    description."""
    if key is None or kind != "torch":
        for launcher, meta in stages:
            _launch(launcher, _launch_args(meta, values), kind, device_index)
        return
    dyn = tuple(v.ptr if isinstance(v, TensorInfo) else v
                for v in (values.get(n) for n in names))
    plan = _StagedPlan()
    plan.stages = [_prepare_plan(launcher, meta, _launch_args(meta, values), device_index,
                                 names, dyn)
                   for launcher, meta in stages]
    plan.w_slots = tuple(next(i for i, p in enumerate(meta["params"]) if p["name"] == "W")
                         for _, meta in stages)
    buffer, plan.allocate_workspace = workspace
    plan.allocate, plan.bound = allocate, values["W"].ptr
    plan.scratch = {plan.stages[0].stream(): buffer}
    _store_plan(key, plan).launch()


def _launch_checked(key, launcher, meta, values, kind, device_index, names, **allocators):
    """Launches a checked call (``values``: parameter name -> value,
    :class:`TensorInfo` for tensors): through a new plan for ``key`` when
    there is one (torch tensors), else directly."""
    args = _launch_args(meta, values)
    if key is not None and kind == "torch":
        dyn = [values.get(n) for n in names]
        dyn = tuple(v.ptr if isinstance(v, TensorInfo) else v for v in dyn)
        plan = _make_plan(key, launcher, meta, args, device_index, names, dyn, **allocators)
        if plan is not None:
            plan.launch()
            return
    _launch(launcher, args, kind, device_index)


# $TILEC_ARTIFACTS is read on every call (a change takes effect at once),
# straight from os.environ's dict of encoded names and values where CPython
# has one (os.environ.get decodes and costs about a microsecond).
_environ = os.environ
_environ_data = getattr(_environ, "_data", None)
try:
    _ARTIFACTS_KEY = _environ.encodekey("TILEC_ARTIFACTS")
    _decode_environ = _environ.decodevalue
except AttributeError:  # not CPython's os._Environ
    _environ_data = None
_decoded_environ = {}


def _default_directory():
    """``$TILEC_ARTIFACTS`` or ``None`` (as :func:`artifacts.default_directory`)."""
    data = _environ_data
    if data is None or os.environ is not _environ:
        return _artifacts.default_directory()
    raw = data.get(_ARTIFACTS_KEY)
    if not raw:
        return None
    value = _decoded_environ.get(raw)
    if value is None:
        if len(_decoded_environ) > 64:
            _decoded_environ.clear()
        value = _decoded_environ[raw] = _decode_environ(raw)
    return value


def _chip_and_arch(chip, device_index):
    """(chip, cubin arch) for an explicit ``chip`` or the device's."""
    if chip is None:
        return device_chip(device_index)
    return chip, _cubin_arch_for(chip, device_index)


# -- tilec.gemm -----------------------------------------------------------------

#: What may change between tilec.gemm calls that share a plan.
_GEMM_DYNAMIC = ("A", "B", "C", "bias", "alpha", "beta")


def default_precision():
    """How f32 inputs multiply when ``precision`` is not given, as torch
    chooses for its own f32 matmuls: ``"tf32"`` where
    ``torch.get_float32_matmul_precision()`` is ``"high"`` or ``"medium"``
    (``allow_tf32``), else ``"tf32x3"`` (torch's default, ``"highest"``:
    3xTF32 is about as accurate as exact f32 on tensor cores, several times
    faster than ``"ieee"``'s FMA instructions)."""
    try:
        import torch
    except ImportError:
        return "tf32x3"
    return "tf32x3" if torch.get_float32_matmul_precision() == "highest" else "tf32"


def gemm(a, b, *, out=None, bias=None, alpha=None, beta=None, activation=None, out_dtype=None,
         precision=None, scale_a=None, scale_b=None, chip=None, artifacts=None, config=None):
    """``out = activation(alpha * a @ b + beta * out + bias)`` with a tilec
    kernel.

    ``a``: M x K, row-major (unit stride along K; any row stride that keeps
    rows 16-byte aligned). ``b``: K x N, row-major or column-major (e.g.
    ``w.t()`` of an N x K weight). Both bf16 or both f16. ``out``: M x N,
    row-major, dtype ``out_dtype`` (default: the input dtype; ``f32``
    possible); allocated when omitted; read when ``beta`` is given.
    f32 inputs need a column-major ``b``; ``precision`` says how they
    multiply: ``"tf32"`` (one TF32 product on tensor cores, torch's
    ``allow_tf32``), ``"tf32x3"`` (three TF32 products, about f32's
    accuracy) or ``"ieee"`` (exact products on FMA instructions, several
    times slower); by default as torch's float32 matmul precision says
    (:func:`default_precision`).
    float8 inputs (``torch.float8_e4m3fn`` / ``float8_e5m2``, mixed too)
    need a column-major ``b`` as ``torch._scaled_mm`` does, and give bf16 by
    default. ``scale_a`` / ``scale_b`` scale the product's rows and columns
    (any input dtype): a number, a one-element f32 tensor (per-tensor), or
    f32 tensors of M x 1 (or M) and 1 x N (or N) elements (row-wise), as
    ``torch._scaled_mm`` takes them; with float8 inputs, also block scales
    (DeepGEMM's recipe, torch._scaled_mm's 1x128 / 128x128 scaling):
    ``scale_a`` of shape [M, ceil(K/128)] and ``scale_b`` of
    [ceil(K/128), ceil(N/128)], f32, each K block's product scaled and
    summed in f32.
    ``bias``: N elements of the output dtype. ``activation``: ``None``,
    ``"relu"``, ``"gelu"`` or ``"silu"``. ``chip``: tilec target (default:
    the device's, ``sm_90a`` on Hopper). ``artifacts``: directory of
    precompiled kernels (default ``$TILEC_ARTIFACTS``), used before the
    compiler. ``config``: tile configuration overrides (e.g.
    ``{"block_n": 128, "stages": 3}``); with ``"split_k": S`` (S > 1) the
    GEMM runs in split-K: two kernels, the partial products of S K ranges
    per tile into an f32 workspace, then their sum in a fixed order (the
    same bits on every run; no int8 inputs or block scales). Without
    ``config`` the compiler's shape rule picks the tiles, and split-K where
    it measured a gain (decode shapes whose weight tiles leave SMs idle;
    16-bit inputs without scales; the device's SM count decides).

    Differentiable (torch tensors): when a gradient is needed, or while
    torch.compile traces, the call goes through ``torch.ops.tilec.gemm``
    (:mod:`tilec.torch_ops`; its backward is two tilec GEMMs). Calls with
    ``out``, ``beta``, scales or ``config`` take the direct path only.

    Tensors: torch, CuPy (``__cuda_array_interface__``) or any DLPack
    object; an allocated ``out`` is a CuPy array for CuPy inputs, else a
    torch tensor. Runs on the current torch stream (CuPy's for CuPy arrays)
    and returns ``out``. Invalid arguments raise :class:`ArgumentError` /
    :class:`DTypeError` before anything is launched.
    """
    if (out is None and beta is None and scale_a is None and scale_b is None and config is None
            and _torch_op_route(a, b, bias)):
        from . import torch_ops
        if out_dtype is not None:
            out_dtype = dtype_name(out_dtype)
        if precision is None and str(a.dtype) == "torch.float32":
            precision = default_precision()
        return torch_ops.gemm(a, b, bias, None if alpha is None else float(alpha), activation,
                              out_dtype, precision, chip, artifacts)
    return _gemm_direct(a, b, out=out, bias=bias, alpha=alpha, beta=beta, activation=activation,
                        out_dtype=out_dtype, precision=precision, scale_a=scale_a,
                        scale_b=scale_b, chip=chip, artifacts=artifacts, config=config)


def _gemm_direct(a, b, *, out=None, bias=None, alpha=None, beta=None, activation=None,
                 out_dtype=None, precision=None, scale_a=None, scale_b=None, chip=None,
                 artifacts=None, config=None):
    """tilec.gemm's kernels, called directly (no torch operator)."""
    key = None
    if precision is None and str(getattr(a, "dtype", "")) == "torch.float32":
        precision = default_precision()
    if config is None and scale_a is None and scale_b is None:
        try:  # torch tensors: the plan of this call's metadata (module doc)
            # Whether the bases are 16-byte aligned picks the kernel variant
            # (see _needs_unaligned_variant), so it is part of the key.
            bases = a.data_ptr() | b.data_ptr() | (0 if out is None else out.data_ptr())
            key = ("gemm", precision, bases % 16 == 0, a.shape, a.stride(), a.dtype, a.device,
                   b.shape, b.stride(), b.dtype, b.device,
                   None if out is None else (out.shape, out.stride(), out.dtype, out.device),
                   None if bias is None else (bias.shape, bias.stride(), bias.dtype,
                                              bias.device),
                   alpha is None, beta is None, activation, out_dtype, chip,
                   _default_directory() if artifacts is None else artifacts)
            plan = _tls.plans.get(key)
        except Exception:  # noqa: BLE001 - not torch-style tensors: the checked path
            key = plan = None
        if plan is not None:
            c = plan.allocate() if out is None else out
            dyn = (a.data_ptr(), b.data_ptr(), c.data_ptr(),
                   None if bias is None else bias.data_ptr(),
                   None if alpha is None else float(alpha), None if beta is None else float(beta))
            if dyn == plan.last or plan.bind(dyn):
                plan.launch()
                return c
    return _gemm_checked(a, b, out, bias, alpha, beta, activation, out_dtype, chip, artifacts,
                         config, key, precision, scale_a, scale_b)


def _scale_vector(op, scale, name, extent, other_axis):
    """(vector TensorInfo or None, factor) of a ``scale_a`` / ``scale_b``
    argument over ``extent`` rows (columns): numbers become a factor of
    alpha, one-element tensors a vector of ``extent`` copies (no host
    synchronization), M x 1 / 1 x N tensors contiguous f32 vectors."""
    if scale is None:
        return None, 1.0
    if isinstance(scale, (int, float)):
        return None, float(scale)
    info = describe(scale, name)
    if info.dtype != "f32":
        raise DTypeError(f"{op}: {name} must be float32, got {info.dtype}")
    numel = math.prod(info.shape)
    if numel == 1 and extent != 1:
        if info.kind != "torch":
            raise ArgumentError(f"{op}: a one-element {name} is expanded with torch; pass a "
                                f"vector of {extent} elements (or a number)")
        t = info.as_torch().reshape(1).expand(extent).contiguous()
        return describe(t, name), 1.0
    shapes = [(extent,), (extent, 1) if other_axis == 1 else (1, extent)]
    if tuple(info.shape) not in shapes or numel != extent:
        raise ArgumentError(f"{op}: {name} must have one element or shape "
                            f"{list(shapes[1])} (or [{extent}]), got {list(info.shape)}")
    axis = 0 if len(info.shape) == 1 or other_axis == 1 else 1
    if extent > 1 and info.strides[axis] != 1:
        raise ArgumentError(f"{op}: {name} must be contiguous, got strides "
                            f"{tuple(info.strides)}")
    return info, 1.0




def _unit_stride_rows(op, info, name):
    """``info``, or its copy (with torch) with unit stride along dimension
    0 (the layout torch gives 1x128 / 128x128 scales) where it has another."""
    if info.shape[0] == 1 or info.strides[0] == 1:
        return info
    if info.kind != "torch":
        raise ArgumentError(f"{op}: {name} must have unit stride along dimension 0, got "
                            f"strides {tuple(info.strides)}")
    return describe(info.as_torch().t().contiguous().t(), name)


def _block_scales(op, scale_a, scale_b, fp8, m, n, k):
    """``(SA, SB, ldsa, ldsb)`` for block scales as torch._scaled_mm takes
    them -- ``scale_a`` of shape [M, ceil(K/128)] (one scale per row and
    128-wide K block), ``scale_b`` of [ceil(K/128), ceil(N/128)] (one per
    128x128 block of b) -- or None for other scales. The kernel reads
    scale_a's columns and scale_b's columns as rows (M and K blocks
    contiguous, torch's layout of these scales); other strides are copied."""
    if any(s is None or isinstance(s, (int, float)) for s in (scale_a, scale_b)):
        return None
    kb, nb = -(-k // _SCALE_BLOCK), -(-n // _SCALE_BLOCK)
    SA, SB = describe(scale_a, "scale_a"), describe(scale_b, "scale_b")
    if SA.ndim != 2 or SB.ndim != 2 or tuple(SB.shape) != (kb, nb) or (kb, nb) == (1, n):
        return None  # row-wise (or wrong) scales: checked as such
    if not fp8:
        raise ArgumentError(f"{op}: block scales (scale_b of shape [{kb}, {nb}]) need float8 "
                            f"inputs")
    if tuple(SA.shape) != (m, kb):
        raise ArgumentError(f"{op}: with a block scale_b of shape [{kb}, {nb}] (128x128 "
                            f"blocks), scale_a must have shape [{m}, {kb}] (1x128 blocks), "
                            f"got {list(SA.shape)}")
    for name, info in (("scale_a", SA), ("scale_b", SB)):
        if info.dtype != "f32":
            raise DTypeError(f"{op}: {name} must be float32, got {info.dtype}")
    SA = _unit_stride_rows(op, SA, "scale_a")
    SB = _unit_stride_rows(op, SB, "scale_b")
    return SA, SB, SA.strides[1] if kb > 1 else m, SB.strides[1] if nb > 1 else kb


def _gemm_checked(a, b, out, bias, alpha, beta, activation, out_dtype, chip, artifacts, config,
                  key=None, precision=None, scale_a=None, scale_b=None):
    """tilec.gemm with every check spelled out (and its error messages);
    stores a plan under ``key`` when one is given."""
    op = "tilec.gemm"
    A, B = describe(a, "a"), describe(b, "b")
    tensors = [A, B]
    O = describe(out, "out") if out is not None else None
    BIAS = describe(bias, "bias") if bias is not None else None
    tensors += [t for t in (O, BIAS) if t is not None]
    device_index = _check_device(op, tensors)

    fp8, int8 = A.dtype in FP8_DTYPES, A.dtype == "i8"
    out_dtype = _gemm_out_dtype(op, A, B, O, out_dtype)
    if A.dtype == "f32":
        precision = precision or default_precision()
        if precision not in PRECISIONS:
            raise ArgumentError(f"{op}: precision must be 'tf32', 'tf32x3' or 'ieee', not "
                                f"{precision!r}")
    elif precision is not None:
        raise ArgumentError(f"{op}: precision is for f32 inputs; {A.dtype} inputs multiply "
                            f"exactly")
    if int8 and any(x is not None for x in (alpha, beta, bias, activation, scale_a, scale_b)):
        raise ArgumentError(f"{op}: int8 inputs take no alpha, beta, bias, activation or "
                            f"scales: the int32 sums are returned as they are (as "
                            f"torch._int_mm)")
    if A.ndim != 2 or B.ndim != 2:
        raise ArgumentError(f"{op}: a and b must be 2-D, got shapes {list(A.shape)} and "
                            f"{list(B.shape)}")
    m, k = A.shape
    k2, n = B.shape
    if k != k2:
        raise ArgumentError(f"{op}: inner dimensions differ: a is {m}x{k}, b is {k2}x{n}")
    _check_activation(op, activation)
    if beta is not None and O is None:
        raise ArgumentError(f"{op}: beta scales the existing out, so out= is required with beta")
    if O is not None and O.shape != (m, n):
        raise ArgumentError(f"{op}: out must be {m}x{n}, got {list(O.shape)}")
    _check_bias(op, BIAS, n, out_dtype)

    lda = _row_major_ld(op, A, "K")
    b_layout, ldb = _b_layout(op, B)
    _check_k_major(op, A, B, b_layout, "w.t() of an N x K weight, as torch._scaled_mm takes it")
    block = _block_scales(op, scale_a, scale_b, fp8, m, n, k)
    if block is not None:
        SA, SB, ldsa, ldsb = block
        fa = fb = 1.0
    else:
        SA, fa = _scale_vector(op, scale_a, "scale_a", m, other_axis=1)
        SB, fb = _scale_vector(op, scale_b, "scale_b", n, other_axis=0)
    if fa != 1.0 or fb != 1.0:
        alpha = (1.0 if alpha is None else float(alpha)) * fa * fb
    if O is not None:
        _row_major_ld(op, O, "N")
    if min(m, n) == 0:  # nothing to compute or store
        return out if O is not None else _allocate(A, (m, n), out_dtype)

    chip, cubin_arch = _chip_and_arch(chip, device_index)
    variant = dict(dtype=A.dtype, out_dtype=out_dtype, b_layout=b_layout, bias=BIAS is not None,
                   activation=activation, alpha=alpha is not None, beta=beta is not None,
                   precision=precision if A.dtype == "f32" else None,
                   b_dtype=B.dtype if B.dtype != A.dtype else None,
                   scale_a=SA is not None, scale_b=SB is not None,
                   block_scales=block is not None)
    _check_split_k(op, config, int8, block is not None)
    dispatched = config is None
    if dispatched:  # the per-shape-class dispatch
        # (Decode shapes run transposed where the operands allow it, and
        # split K where the tiles leave SMs idle: 16-bit inputs, no scales.)
        config = gemm_dispatch_config(m, n, k, chip, _device_num_sms(device_index),
                                      dtype=A.dtype, b_layout=b_layout,
                                      scales=SA is not None or SB is not None,
                                      block_scales=block is not None)
        # Operands the fast path cannot read (bases not 16-byte aligned, rows
        # not whole 16-byte chunks): the variant that takes any strides (one
        # per kernel variant: the shape classes tune the fast path).
        if _needs_unaligned_variant([(A, lda), (B, ldb)]):
            config = dict(_UNALIGNED)
    stages, config = _gemm_class_stages(op, variant, config, dispatched, chip, cubin_arch,
                                        artifacts, device_index)
    # A caller's out the class's kernel cannot store to (what its metadata
    # requires: the TMA-store epilogue's 16-byte base, rows and N; the
    # threads' stores take any out) takes the variant for any strides too.
    if dispatched and O is not None and config != _UNALIGNED:
        stored = {"C": O, "ldc": _row_major_ld(op, O, "N"), "N": n}
        if any(_metadata_problem(op, meta, stored, {}, dtypes=False) for _, meta in stages):
            config = dict(_UNALIGNED)
            stages = _gemm_stages(op, variant, config, chip, cubin_arch, artifacts,
                                  device_index)
    meta = stages[-1][1]

    allocate = None
    if O is None:
        out, O, allocate = _allocate_out(A, (m, n), out_dtype, meta, key is not None)
    ldc = _row_major_ld(op, O, "N")
    values = {"A": A, "B": B, "C": O, "M": m, "N": n, "K": k, "lda": lda, "ldb": ldb, "ldc": ldc}
    workspace = _split_k_workspace(op, A, config, m, n)
    if workspace is not None:
        buffer, allocate_workspace, ldw = workspace
        values.update(W=describe(buffer, "the split-K workspace"), ldw=ldw, sw=m * ldw)
        workspace = (buffer, allocate_workspace)
    if BIAS is not None:
        values["bias"] = BIAS
    if alpha is not None:
        values["alpha"] = float(alpha)
    if beta is not None:
        values["beta"] = float(beta)
    if SA is not None:
        values["SA"] = SA
    if SB is not None:
        values["SB"] = SB
    if block is not None:
        values.update(KB=-(-k // _SCALE_BLOCK), NB=-(-n // _SCALE_BLOCK), ldsa=ldsa, ldsb=ldsb)
    described = {"A": "a", "B": "b", "C": "out", "bias": "bias", "SA": "scale_a",
                 "SB": "scale_b",
                 "lda": "the row stride of a (a.stride(0))",
                 "ldb": f"the leading dimension of b (b.stride({0 if b_layout == 'row' else 1}))",
                 "ldc": "the row stride of out (out.stride(0))"}
    for launcher, meta in stages:
        _check_metadata(op, meta, values, described)
    if workspace is not None:
        _launch_stages(key, stages, values, A.kind, device_index, _GEMM_DYNAMIC, allocate,
                       workspace)
    else:
        _launch_checked(key, *stages[0], values, A.kind, device_index, _GEMM_DYNAMIC,
                        allocate=allocate)
    return out


def _allocate_out(A, shape, out_dtype, meta, for_plan):
    """(out, its TensorInfo, its allocator for a plan or ``None``): an
    [M, N] out whose rows are padded as the kernel's ``ldc`` requires."""
    ldc_param = next((p for p in meta["params"] if p["name"] == "ldc"), {})
    allocate = _allocator(A, shape, out_dtype, row_quantum=ldc_param.get("divisibility", 1))
    out = allocate()
    return out, describe(out, "out"), allocate if for_plan else None


def _gemm_out_dtype(op, A, B, O, out_dtype):
    """Checks the dtypes of a GEMM's inputs ``A`` and ``B`` (alike, or both
    float8) and returns its output dtype: out's (``O``, when given), else
    ``out_dtype``, else the inputs' default (bf16 for float8, int32 for
    int8, else theirs)."""
    fp8 = A.dtype in FP8_DTYPES
    if A.dtype not in _GEMM_INPUT_DTYPES:
        raise DTypeError(f"{op}: a must be bf16, f16, f32, float8 (e4m3, e5m2) or int8, got "
                         f"{A.dtype}")
    if fp8 and B.dtype not in FP8_DTYPES:
        raise DTypeError(f"{op}: a is {A.dtype}, so b must be float8 too (e4m3 or e5m2), got "
                         f"{B.dtype}")
    if not fp8 and B.dtype != A.dtype:
        raise DTypeError(f"{op}: a and b must have the same dtype, got {A.dtype} and {B.dtype}")
    if out_dtype is not None:
        out_dtype = _dtype_arg(out_dtype)
    if O is not None:
        if out_dtype is not None and O.dtype != out_dtype:
            raise DTypeError(f"{op}: out is {O.dtype} but out_dtype={out_dtype}")
        out_dtype = O.dtype
    out_dtype = out_dtype or default_out_dtype(A.dtype)
    if A.dtype == "i8":
        if out_dtype != "i32":
            raise DTypeError(f"{op}: int8 inputs give int32 (as torch._int_mm), not {out_dtype}")
    elif out_dtype not in _GEMM_OUTPUT_DTYPES:
        raise DTypeError(f"{op}: the output must be bf16, f16 or f32, got {out_dtype}")
    return out_dtype


def _check_activation(op, activation):
    if activation not in _ACTIVATIONS:
        raise ArgumentError(f"{op}: activation must be None, 'relu', 'gelu' or 'silu', not "
                            f"{activation!r}")


def _check_bias(op, BIAS, n, out_dtype, shared=""):
    """A bias (``None``: none) of ``n`` contiguous elements of the output
    dtype; ``shared`` says, in the message, what shares it."""
    if BIAS is None:
        return
    if BIAS.ndim != 1 or BIAS.shape[0] != n:
        raise ArgumentError(f"{op}: bias must have shape [{n}]{shared}, got {list(BIAS.shape)}")
    if BIAS.dtype != out_dtype:
        raise DTypeError(f"{op}: bias must be {out_dtype} (the output dtype), got {BIAS.dtype}")
    if n > 1 and BIAS.strides[0] != 1:
        raise ArgumentError(f"{op}: bias must be contiguous, got stride {BIAS.strides[0]}")


def _check_k_major(op, A, B, b_layout, example):
    """f32, float8 and int8 inputs need a column-major b (``example``: how
    to pass one)."""
    if A.dtype in ("f32", "i8") + FP8_DTYPES and b_layout != "col":
        what = "TF32" if A.dtype == "f32" else "8-bit"
        raise ArgumentError(f"{op}: an {A.dtype} b must be column-major (unit stride along K, "
                            f"e.g. {example}): {what} operands are read K-major; got strides "
                            f"{tuple(B.strides)}")


def _gemm_stages(op, variant, config, chip, cubin_arch, artifacts, device_index):
    """[(launcher, metadata)] of the GEMM kernel ``variant`` (keyword
    arguments of :func:`gemm_source`) with ``config``, named as
    :func:`gemm_name` and :func:`gemm_config_suffix` say: precompiled in
    ``artifacts`` (default ``$TILEC_ARTIFACTS``), else compiled. One kernel,
    or a split-K config's two (launched in this order)."""
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    name = gemm_name(**variant) + gemm_config_suffix(config)
    return [_resolve(op, name, lambda: gemm_source(**variant, config=config, name=name)[1],
                     chip, cubin_arch, directory, device_index, kernel=kernel)
            for kernel in gemm_stage_names(name, config)]


def _gemm_kernel(op, variant, config, chip, cubin_arch, artifacts, device_index):
    """(launcher, metadata) of a GEMM kernel that is one (batched, grouped:
    no split-K), as :func:`_gemm_stages` finds it."""
    if int((config or {}).get("split_k", 1)) > 1:
        raise ArgumentError(f"{op}: split_k is for 2-D GEMMs (tilec.gemm)")
    return _gemm_stages(op, variant, config, chip, cubin_arch, artifacts, device_index)[0]


def _check_split_k(op, config, int8, block_scaled):
    """Refuses a ``split_k`` config for what split-K cannot take."""
    if int((config or {}).get("split_k", 1)) > 1 and (int8 or block_scaled):
        raise ArgumentError(f"{op}: split_k takes no int8 inputs or block scales (its partial "
                            f"products are f32 sums of whole K ranges)")


def _split_k_workspace(op, A, config, m, n):
    """``(buffer, allocator, ldw)`` of a split-K config's workspace (an f32
    [split_k, M, N] buffer, rows padded to ``ldw``, 16 bytes, allocated on
    the current stream), or ``None`` without split-K."""
    split_k = int((config or {}).get("split_k", 1))
    if split_k <= 1:
        return None
    ldw = _round_up(n, 4)
    if split_k * m * ldw >= 2 ** 31:
        raise ArgumentError(f"{op}: split_k = {split_k} needs a workspace of {split_k} x {m} x "
                            f"{ldw} f32 elements, more than 2^31; use fewer ranges (split-K is "
                            f"for shapes with few tiles)")
    allocate = _allocator(A, (split_k, m, ldw), "f32")
    return allocate(), allocate, ldw


_num_sms = {}


def _device_num_sms(device_index):
    """Multiprocessors of CUDA device ``device_index`` (the shape rule's
    ``num_sms``), or 0 (the count the rule is tuned for) without torch/CUDA."""
    count = _num_sms.get(device_index)
    if count is None:
        try:
            import torch
            count = torch.cuda.get_device_properties(device_index).multi_processor_count
        except Exception:  # noqa: BLE001 - no torch, no driver: the rule's typical count
            count = 0
        _num_sms[device_index] = count
    return count


#: The config of tilec.gemm's variant for operands of any alignment.
_UNALIGNED = {"aligned": 0}


def _gemm_class_stages(op, variant, config, dispatched, chip, cubin_arch, artifacts,
                       device_index):
    """(stages, config) of :func:`_gemm_stages` for ``config``; where the
    dispatch chose a shape class that is not available (artifacts built
    without it and no compiler), the class without split-K, else the
    default kernel, which compute the same (a class is only faster)."""
    try:
        return _gemm_stages(op, variant, config, chip, cubin_arch, artifacts,
                            device_index), config
    except KernelNotAvailableError:
        if not dispatched or not config or config == _UNALIGNED:
            raise
    if "split_k" in config:
        unsplit = {f: v for f, v in config.items() if f != "split_k"} or None
        try:
            return _gemm_stages(op, variant, unsplit, chip, cubin_arch, artifacts,
                                device_index), unsplit
        except KernelNotAvailableError:
            pass
    return _gemm_stages(op, variant, None, chip, cubin_arch, artifacts, device_index), None


def _needs_unaligned_variant(operands):
    """Whether any (TensorInfo, leading dimension) pair breaks the fast
    path's requirements: a 16-byte aligned base and a leading dimension of
    whole 16-byte chunks (tile.gemm's ``aligned``)."""
    for info, ld in operands:
        if info.ptr % 16 or ld % _row_quantum(info.element_bytes):
            return True
    return False


def _dtype_arg(dtype):
    """tilec name of a dtype argument (``torch.float32``, ``"f32"``...)."""
    name = dtype_name(dtype)
    if name not in ELEMENT_BYTES:
        raise DTypeError(f"unknown dtype {dtype!r}")
    return name


def _cubin_arch_for(chip, device_index):
    """ptxas target for an explicit ``chip``: the device's own arch when a
    GPU is visible (sm_80 PTX runs on Hopper as an sm_90 cubin), else the
    chip."""
    capability = _capability_or_none(device_index)
    if capability is None or chip == "sm_90a":
        return None
    return f"sm_{capability[0]}{capability[1]}"


# -- tilec.bmm ------------------------------------------------------------------

#: What may change between tilec.bmm calls that share a plan.
_BMM_DYNAMIC = ("A", "B", "C", "bias")


def bmm(a, b, *, out=None, bias=None, activation=None, out_dtype=None, chip=None,
        artifacts=None, config=None):
    """``out[i] = activation(a[i] @ b[i] + bias)`` for every matrix of a
    batch, as ``torch.bmm`` (plus the epilogue), in one kernel launch.

    ``a``: [batch, M, K], each matrix row-major (unit stride along K; rows
    and matrices any number of elements apart). ``b``: [batch, K, N], each
    matrix row-major or column-major (e.g. ``w.transpose(1, 2)`` of a
    [batch, N, K] ``w``). bf16 or f16 (both alike); f32 (column-major
    ``b``; multiplied as torch's float32 matmul precision says, see
    :func:`default_precision`), float8 (column-major ``b``; bf16 output by
    default) and int8 (column-major ``b``; int32 sums, no epilogue) as
    :func:`gemm` takes them. A stride of 0 along the batch (an expanded
    operand) shares one matrix. ``out``: [batch, M, N], unit stride along
    N, dtype ``out_dtype`` (default: the input dtype; ``f32`` possible);
    allocated contiguous when omitted; written, never read. ``bias``: N
    elements of the output dtype, shared by all matrices. ``activation``:
    ``None``, ``"relu"``, ``"gelu"`` or ``"silu"``. ``chip``, ``artifacts``,
    ``config``: as for :func:`gemm` (the shape class is that of the
    matrices stacked, batch * M rows; operands whose bases are not 16-byte
    aligned, or whose row or batch strides are not whole 16-byte chunks,
    take the variant for any strides, ``{"aligned": 0}``, unless ``config``
    is given).

    Zero-size batch, M or N launch nothing; K = 0 launches nothing either
    and gives ``activation(bias)`` in every row (zeros without a bias, as
    torch.bmm), written through torch (CuPy for a CuPy ``out`` without a
    bias). Tensors: torch, CuPy or DLPack, as for :func:`gemm`. Runs on the
    current torch stream (CuPy's for CuPy arrays) and returns ``out``.
    Invalid arguments raise :class:`ArgumentError` / :class:`DTypeError`
    before anything is launched.
    """
    key = None
    if config is None:
        try:  # torch tensors: the plan of this call's metadata (module doc)
            key = _stacked_plan_key("bmm", a, b, out, (bias,), (activation, out_dtype), chip,
                                    artifacts)
        except Exception:  # noqa: BLE001 - not torch-style tensors: the checked path
            key = None
        result = None if key is None else _launch_stacked_plan(key, a, b, out, (bias,))
        if result is not None:
            return result
    return _bmm_checked(a, b, out, bias, activation, out_dtype, chip, artifacts, config, key)


def _tensor_key(t):
    """A torch-style tensor's metadata in a plan's key (``None``: absent)."""
    return None if t is None else (t.shape, t.stride(), t.dtype, t.device)


def _stacked_plan_key(kind, a, b, out, others, flags, chip, artifacts):
    """The key of a :func:`bmm` / :func:`grouped_gemm` call's plan (module
    doc): the metadata of ``a``, ``b``, ``out`` and ``others`` (the other
    tensor arguments, ``None`` for absent ones), whether a's and b's bases
    are 16-byte aligned (which picks the kernel variant), f32's precision,
    ``flags``, the chip and artifacts. Raises for tensors that are not
    torch-style."""
    precision = default_precision() if str(a.dtype) == "torch.float32" else None
    return (kind, precision, (a.data_ptr() | b.data_ptr()) % 16 == 0, _tensor_key(a),
            _tensor_key(b), _tensor_key(out), tuple(map(_tensor_key, others)), flags,
            chip, _default_directory() if artifacts is None else artifacts)


def _launch_stacked_plan(key, a, b, out, others):
    """Launches the plan stored under ``key`` on this call's tensors (their
    data pointers in the plan's order: A, B, C, then ``others``) and
    returns out; ``None`` when there is no plan, or a pointer breaks an
    alignment (the checked path then says which)."""
    plan = _tls.plans.get(key)
    if plan is None:
        return None
    c = plan.allocate() if out is None else out
    dyn = (a.data_ptr(), b.data_ptr(), c.data_ptr(),
           *[None if t is None else t.data_ptr() for t in others])
    if dyn == plan.last or plan.bind(dyn):
        plan.launch()
        return c
    return None


def _batch_stride(info, rows, ld):
    """The batch stride of a [batch, rows, cols] operand: its own, or for a
    single matrix (whose batch stride the kernel never follows) the span of
    ``rows`` rows ``ld`` apart, in whole 16-byte chunks."""
    if info.shape[0] > 1:
        return info.strides[0]
    return _round_up(max(rows, 1) * ld, _row_quantum(info.element_bytes))


def _batched_row_major(op, info, what):
    """(batch stride, row stride) of a [batch, rows, cols] operand whose
    matrices are row-major (unit stride along ``what``, the columns)."""
    rows, cols = info.shape[1:]
    if cols > 1 and info.strides[2] != 1:
        raise ArgumentError(
            f"{op}: {info.name} must have unit stride along its last dimension ({what}); got "
            f"strides {info.strides} -- pass {info.name}.contiguous()")
    ld = info.strides[1] if rows > 1 else _free_stride(cols, info.element_bytes)
    return _batch_stride(info, rows, ld), ld


def _batched_b_layout(op, info):
    """(layout, batch stride, ldb) of a [batch, K, N] b whose matrices are
    row-major (``row``) or column-major (``col``); see :func:`_b_layout`."""
    k, n = info.shape[1:]
    found = _b_layout_of(k, n, info.strides[1], info.strides[2],
                         _row_quantum(info.element_bytes))
    if found is None:
        raise ArgumentError(
            f"{op}: b's matrices must have unit stride along one dimension (row- or "
            f"column-major); got strides {info.strides} -- pass b.contiguous()")
    layout, ldb = found
    return layout, _batch_stride(info, k if layout == "row" else n, ldb), ldb


def _grouped_class_kernel(op, variant, config, untransposed, chip, cubin_arch, artifacts,
                          device_index):
    """(launcher, metadata) of the grouped GEMM class the rule picked; where
    a transposed (decode) class is not available (artifacts built without
    it and no compiler), ``untransposed()``'s class (the rule's without
    ``can_swap_ab``), which computes the same."""
    try:
        return _gemm_kernel(op, variant, config, chip, cubin_arch, artifacts, device_index)
    except KernelNotAvailableError:
        if not (config or {}).get("swap_ab"):
            raise
    return _gemm_kernel(op, variant, untransposed(), chip, cubin_arch, artifacts, device_index)


def _check_int8_epilogue(op, A, bias, activation):
    if A.dtype == "i8" and (bias is not None or activation is not None):
        raise ArgumentError(f"{op}: int8 inputs take no bias or activation: the int32 sums are "
                            f"returned as they are (as torch._int_mm)")


#: Shape-rule fields a batched or grouped GEMM does without: its programs
#: each take a tile of one matrix (no cluster multicast) and store it
#: without TMA.
_STACKED_DROPPED = ("tma_store", "cluster_m", "cluster_n")


def _stacked_config(rows, n, k, chip, operands):
    """The configuration of a batched or grouped GEMM called without
    ``config``: the variant for any strides when an operand ((TensorInfo,
    stride) pairs) breaks the fast path's requirements (C needs nothing:
    these GEMMs store it without TMA), else the shape class of its ``rows``
    rows stacked (tile-expand-named-ops does the same for static sizes),
    less :data:`_STACKED_DROPPED`."""
    if _needs_unaligned_variant(operands):
        return dict(_UNALIGNED)
    config = gemm_shape_config(rows, n, k, chip) or {}
    return {f: v for f, v in config.items() if f not in _STACKED_DROPPED} or None


def _bmm_checked(a, b, out, bias, activation, out_dtype, chip, artifacts, config, key=None):
    """tilec.bmm with every check spelled out (and its error messages);
    stores a plan under ``key`` when one is given."""
    op = "tilec.bmm"
    A, B = describe(a, "a"), describe(b, "b")
    O = describe(out, "out") if out is not None else None
    BIAS = describe(bias, "bias") if bias is not None else None
    device_index = _check_device(op, [t for t in (A, B, O, BIAS) if t is not None])
    out_dtype = _gemm_out_dtype(op, A, B, O, out_dtype)
    _check_int8_epilogue(op, A, bias, activation)
    if A.ndim != 3 or B.ndim != 3:
        raise ArgumentError(f"{op}: a and b must be 3-D [batch, rows, cols], got shapes "
                            f"{list(A.shape)} and {list(B.shape)} (2-D matrices: tilec.gemm)")
    batch, m, k = A.shape
    batch_b, k2, n = B.shape
    if batch != batch_b:
        raise ArgumentError(f"{op}: a and b must have the same batch size, got {batch} and "
                            f"{batch_b} (expand the one to share: b.expand({batch}, -1, -1))")
    if k != k2:
        raise ArgumentError(f"{op}: inner dimensions differ: a is {batch}x{m}x{k}, b is "
                            f"{batch_b}x{k2}x{n}")
    _check_activation(op, activation)
    if O is not None and O.shape != (batch, m, n):
        raise ArgumentError(f"{op}: out must be {batch}x{m}x{n}, got {list(O.shape)}")
    _check_bias(op, BIAS, n, out_dtype, " (shared by all matrices)")
    sa, lda = _batched_row_major(op, A, "K")
    b_layout, sb, ldb = _batched_b_layout(op, B)
    _check_k_major(op, A, B, b_layout, "w.transpose(1, 2) of a [batch, N, K] w")
    if O is not None:
        _batched_row_major(op, O, "N")
        if batch > 1 and O.strides[0] == 0 and m * n:
            raise ArgumentError(f"{op}: out's matrices overlap (batch stride 0, an expanded "
                                f"tensor): every matrix needs memory of its own -- pass a "
                                f"contiguous out")
    if min(batch, m, n) == 0:  # nothing to compute or store
        return out if O is not None else _allocate(A, (batch, m, n), out_dtype)
    if k == 0:  # no products: activation(0 + bias), torch.bmm's zeros without a bias
        if O is None:
            out = _allocate(A, (batch, m, n), out_dtype)
            O = describe(out, "out")
        _write_without_products(O, BIAS, activation, device_index)
        return out

    chip, cubin_arch = _chip_and_arch(chip, device_index)
    precision = default_precision() if A.dtype == "f32" else None
    variant = dict(dtype=A.dtype, out_dtype=out_dtype, b_layout=b_layout, bias=BIAS is not None,
                   activation=activation, precision=precision,
                   b_dtype=B.dtype if B.dtype != A.dtype else None, batched=True)
    if config is None:  # the per-shape-class dispatch, as the compiler's
        config = _stacked_config(batch * m, n, k, chip, [(A, lda), (A, sa), (B, ldb), (B, sb)])
    launcher, meta = _gemm_kernel(op, variant, config, chip, cubin_arch, artifacts, device_index)

    allocate = None
    if O is None:
        out = _allocate(A, (batch, m, n), out_dtype)
        O = describe(out, "out")
        if key is not None:
            allocate = _allocator(A, (batch, m, n), out_dtype)
    sc, ldc = _batched_row_major(op, O, "N")
    values = {"A": A, "B": B, "C": O, "batch": batch, "M": m, "N": n, "K": k,
              "lda": lda, "ldb": ldb, "ldc": ldc, "sa": sa, "sb": sb, "sc": sc}
    if BIAS is not None:
        values["bias"] = BIAS
    described = {"A": "a", "B": "b", "C": "out", "bias": "bias",
                 "lda": "the row stride of a (a.stride(1))",
                 "ldb": f"the leading dimension of b (b.stride({1 if b_layout == 'row' else 2}))",
                 "ldc": "the row stride of out (out.stride(1))",
                 "sa": "the batch stride of a (a.stride(0))",
                 "sb": "the batch stride of b (b.stride(0))",
                 "sc": "the batch stride of out (out.stride(0))"}
    _check_metadata(op, meta, values, described)
    _launch_checked(key, launcher, meta, values, A.kind, device_index, _BMM_DYNAMIC,
                    allocate=allocate)
    return out


def _write_without_products(O, BIAS, activation, device_index, row_ends=None):
    """out of a K = 0 product: ``activation(bias)`` in every row, zeros
    without a bias (every activation keeps 0); with ``row_ends`` (a grouped
    GEMM's offsets, on the device) only in the rows before its last
    element, the others left as they are (compared on the device: no
    synchronization). CuPy zero-fills a CuPy out without either; anything
    else is written through torch (on CuPy's current stream for CuPy
    arrays), without a kernel of tilec's."""
    if BIAS is None and row_ends is None:
        if O.kind == "cai":
            import cupy
            with cupy.cuda.Device(device_index):
                cupy.asarray(O.obj).fill(0)
        else:
            (O.obj if O.kind == "torch" else O.as_torch()).fill_(0)
        return
    import torch
    stream = (torch.cuda.ExternalStream(_current_cupy_stream(device_index)) if O.kind == "cai"
              else torch.cuda.current_stream(device_index))
    with torch.cuda.stream(stream):
        target = O.as_torch()
        row = (torch.zeros(target.shape[-1], device=target.device) if BIAS is None
               else BIAS.as_torch().float())
        if activation == "relu":
            row = torch.relu(row)
        elif activation == "gelu":  # tile.gemm's: 0.5 x (1 + erf(x / sqrt(2)))
            row = torch.nn.functional.gelu(row)
        elif activation == "silu":
            row = torch.nn.functional.silu(row)
        value = row.to(target.dtype).expand(target.shape)
        if row_ends is not None:  # the groups' rows: those before the last row end
            rows = torch.arange(target.shape[0], device=target.device)
            value = torch.where((rows < row_ends.as_torch()[-1])[:, None], value, target)
        target.copy_(value)


# -- tilec.grouped_gemm ---------------------------------------------------------

#: What may change between tilec.grouped_gemm calls that share a plan (the
#: offsets' values are read on the device: only their address is packed).
_GROUPED_DYNAMIC = ("A", "B", "C", "bias", "offsets")


def grouped_gemm(a, b, offsets, *, out=None, bias=None, activation=None, out_dtype=None,
                 chip=None, artifacts=None, config=None):
    """``out[s:e] = activation(a[s:e] @ b[g] + bias)`` for every group g of
    a grouped GEMM, rows ``s = offsets[g - 1]`` (0 for g = 0) to ``e =
    offsets[g]``: the experts of an MoE layer, as ``torch._grouped_mm(a, b,
    offs=offsets)`` (plus the epilogue), in one kernel launch.

    ``a``: [M, K], the rows (tokens) of every group stacked, row-major
    (unit stride along K; any row stride). ``b``: [E, K, N], one matrix
    per group, each row-major or column-major (e.g. ``w.transpose(1, 2)``
    of an [E, N, K] stack of nn.Linear weights), any number of elements
    apart (0, an expanded operand, shares one matrix). bf16 or f16 (both
    alike); f32 (multiplied as torch's float32 matmul precision says, see
    :func:`default_precision`), float8 (bf16 output by default) and int8
    (int32 sums, no epilogue), all three with a column-major ``b``, as
    :func:`bmm` takes them.

    ``offsets``: int32, one element per group (E), contiguous, on a's
    device: the groups' cumulative row ends, torch._grouped_mm's ``offs``.
    They are read on the device, so a call never synchronizes with the
    host and a plan (or a CUDA graph) serves any routing of the same
    shapes. They must be non-decreasing and at most M -- not checked, as
    that would read them back (a group ending before it starts is empty).
    Groups may be empty, the first and the last included.

    ``out``: [M, N], row-major (unit stride along N), dtype ``out_dtype``
    (default: the input dtype; ``f32`` possible); allocated when omitted;
    written, never read: its rows from ``offsets[-1]`` on are not written
    (they keep their values; an allocated out's are uninitialized).
    ``bias``: N elements of the output dtype, shared by all groups.
    ``activation``: ``None``, ``"relu"``, ``"gelu"`` or ``"silu"``.
    ``chip``, ``artifacts``, ``config``: as for :func:`gemm` (the class is
    the compiler's grouped rule's, :func:`tilec.kernels.grouped_gemm_shape_config`:
    decode-time experts, a few tokens each on average, run transposed where
    B is column-major, else the shape class of the M rows; operands whose
    bases are not 16-byte aligned, or whose row or matrix strides are not
    whole 16-byte chunks, take the variant for any strides, ``{"aligned":
    0}``, unless ``config`` is given; a grouped GEMM takes no clusters and
    no TMA store, so ``config`` must not ask for them).

    Zero M or N, or no groups (E = 0), launch nothing and write nothing.
    K = 0 launches nothing either and gives ``activation(bias)`` (zeros
    without a bias, as torch._grouped_mm) in the rows before
    ``offsets[-1]``, written through torch (compared with the offsets on
    the device, no synchronization). Tensors: torch, CuPy or DLPack, as for
    :func:`gemm`. Runs on the current torch stream (CuPy's for CuPy arrays)
    and returns ``out``. Invalid arguments raise :class:`ArgumentError` /
    :class:`DTypeError` before anything is launched.
    """
    key = None
    if config is None:
        others = (bias, offsets)
        try:  # torch tensors: the plan of this call's metadata (module doc)
            key = _stacked_plan_key("grouped_gemm", a, b, out, others,
                                    (activation, out_dtype), chip, artifacts)
        except Exception:  # noqa: BLE001 - not torch-style tensors: the checked path
            key = None
        result = None if key is None else _launch_stacked_plan(key, a, b, out, others)
        if result is not None:
            return result
    return _grouped_checked(a, b, offsets, out, bias, activation, out_dtype, chip, artifacts,
                            config, key)


def _group_offsets(op, info, groups):
    """Checks ``offsets``: int32, one element per group, contiguous."""
    if info.dtype != "i32":
        raise DTypeError(f"{op}: offsets must be int32 (the groups' cumulative row ends, as "
                         f"torch._grouped_mm's offs), got {info.dtype} -- pass "
                         f"offsets.to(torch.int32)")
    if info.ndim != 1 or info.shape[0] != groups:
        raise ArgumentError(f"{op}: offsets must have shape [{groups}] (one row end per group: "
                            f"b holds {groups} matrices), got {list(info.shape)}")
    if groups > 1 and info.strides[0] != 1:
        raise ArgumentError(f"{op}: offsets must be contiguous, got stride {info.strides[0]} "
                            f"-- pass offsets.contiguous()")


def _grouped_checked(a, b, offsets, out, bias, activation, out_dtype, chip, artifacts, config,
                     key=None):
    """tilec.grouped_gemm with every check spelled out (and its error
    messages); stores a plan under ``key`` when one is given."""
    op = "tilec.grouped_gemm"
    A, B, OFFS = describe(a, "a"), describe(b, "b"), describe(offsets, "offsets")
    O = describe(out, "out") if out is not None else None
    BIAS = describe(bias, "bias") if bias is not None else None
    device_index = _check_device(op, [t for t in (A, B, OFFS, O, BIAS) if t is not None])
    out_dtype = _gemm_out_dtype(op, A, B, O, out_dtype)
    _check_int8_epilogue(op, A, bias, activation)
    if A.ndim != 2 or B.ndim != 3:
        raise ArgumentError(f"{op}: a must be 2-D [M, K] (every group's rows) and b 3-D "
                            f"[groups, K, N] (one matrix per group), got shapes "
                            f"{list(A.shape)} and {list(B.shape)}")
    m, k = A.shape
    groups, k2, n = B.shape
    if k != k2:
        raise ArgumentError(f"{op}: inner dimensions differ: a is {m}x{k}, b is "
                            f"{groups}x{k2}x{n}")
    _group_offsets(op, OFFS, groups)
    _check_activation(op, activation)
    if O is not None and O.shape != (m, n):
        raise ArgumentError(f"{op}: out must be {m}x{n}, got {list(O.shape)}")
    _check_bias(op, BIAS, n, out_dtype, " (shared by all groups)")
    lda = _row_major_ld(op, A, "K")
    b_layout, sb, ldb = _batched_b_layout(op, B)
    _check_k_major(op, A, B, b_layout, "w.transpose(1, 2) of an [E, N, K] weight stack")
    if O is not None:
        _row_major_ld(op, O, "N")
    if min(m, n, groups) == 0:  # nothing to compute or store
        return out if O is not None else _allocate(A, (m, n), out_dtype)
    if k == 0:  # no products: activation(0 + bias) in the groups' rows
        if O is None:
            out = _allocate(A, (m, n), out_dtype)
            O = describe(out, "out")
        _write_without_products(O, BIAS, activation, device_index, row_ends=OFFS)
        return out

    chip, cubin_arch = _chip_and_arch(chip, device_index)
    precision = default_precision() if A.dtype == "f32" else None
    variant = dict(dtype=A.dtype, out_dtype=out_dtype, b_layout=b_layout, bias=BIAS is not None,
                   activation=activation, precision=precision,
                   b_dtype=B.dtype if B.dtype != A.dtype else None, grouped=True)
    if config is None:  # the per-shape-class dispatch, as the compiler's
        # (C needs nothing: grouped GEMMs store it without TMA. Decode
        # steps, a few tokens per expert, run transposed.)
        if _needs_unaligned_variant([(A, lda), (B, ldb), (B, sb)]):
            config = dict(_UNALIGNED)
        else:
            can_swap_ab = A.dtype in ("bf16", "f16") and b_layout == "col"
            config = grouped_gemm_shape_config(m, groups, n, k, chip,
                                               _device_num_sms(device_index), can_swap_ab)

        def untransposed():
            return grouped_gemm_shape_config(m, groups, n, k, chip,
                                             _device_num_sms(device_index), False)
        launcher, meta = _grouped_class_kernel(op, variant, config, untransposed, chip,
                                               cubin_arch, artifacts, device_index)
    else:
        launcher, meta = _gemm_kernel(op, variant, config, chip, cubin_arch, artifacts,
                                      device_index)
    allocate = None
    if O is None:
        out, O, allocate = _allocate_out(A, (m, n), out_dtype, meta, key is not None)
    values = {"A": A, "B": B, "C": O, "offsets": OFFS, "groups": groups, "M": m, "N": n, "K": k,
              "lda": lda, "ldb": ldb, "ldc": _row_major_ld(op, O, "N"), "sb": sb}
    if BIAS is not None:
        values["bias"] = BIAS
    described = {"A": "a", "B": "b", "C": "out", "bias": "bias", "offsets": "offsets",
                 "lda": "the row stride of a (a.stride(0))",
                 "ldb": f"the leading dimension of b (b.stride({1 if b_layout == 'row' else 2}))",
                 "ldc": "the row stride of out (out.stride(0))",
                 "sb": "the matrix stride of b (b.stride(0))"}
    _check_metadata(op, meta, values, described)
    _launch_checked(key, launcher, meta, values, A.kind, device_index, _GROUPED_DYNAMIC,
                    allocate=allocate)
    return out


# -- tilec.attention ------------------------------------------------------------

#: What may change between tilec.attention calls that share a plan.
_ATTENTION_DYNAMIC = ("Q", "K", "V", "O", "LSE")


def attention(q, k, v, *, causal=False, scale=None, out=None, return_lse=False, chip=None,
              artifacts=None, q_descale=None, k_descale=None, v_descale=None,
              deterministic=True):
    """Scaled dot-product attention ``softmax(q @ k^T / sqrt(head_dim) [+
    causal mask]) @ v`` over ``[batch, heads, seq, head_dim]`` tensors
    (``tile.attention``: FlashAttention-2 forward).

    FP8 (FlashAttention-3's recipe; sm_90a, and sm_89 PTX): q, k and v in
    ``torch.float8_e4m3fn`` (or all ``float8_e5m2``) with ``q_descale``,
    ``k_descale``, ``v_descale`` (each input is its FP8 tensor times its
    descale; 1.0 when omitted): numbers (per tensor), or f32 tensors read on
    the device, FlashAttention-3's: one element (per tensor) or
    ``[batch, kv_heads]`` (per batch and K/V head; the query heads of a
    group share their K/V head's q_descale). Tensors are not read back, so
    the call does not synchronize and can be captured in a CUDA graph (their
    values are not checked); numbers given beside tensors become one-element
    tensors. Head dims 64, 128 and 256. v must be contiguous along seq (the transpose
    of a ``[batch, heads, head_dim, seq]`` tensor, rows 16-byte aligned:
    FP8 tensor cores read it K-major). The output is bf16; P is quantized
    to e4m3 after the online softmax.

    ``scale``: the softmax scale (default ``1/sqrt(head_dim)``, as SDPA's
    ``scale=``). It is a constant of the kernel: another value is another
    kernel, compiled on first use (precompiled artifacts hold the default).

    Differentiable (torch tensors): when a gradient is needed, the call
    goes through ``torch.ops.tilec.attention`` (:mod:`tilec.torch_ops`),
    whose backward is :func:`tilec.attention_backward`; under
    ``torch.compile`` it is one graph node. bf16/f16 only; ``out=`` and FP8
    calls are not differentiable. ``deterministic`` picks the backward's dQ:
    its own kernel (True, the same bits on every run) or f32 atomic adds in
    the dK/dV kernel (False; see :func:`tilec.attention_backward`).

    ``k``/``v`` may have fewer heads than ``q`` (grouped-query attention;
    they must divide q's) and another sequence length; ``causal`` aligns the
    mask bottom-right as FlashAttention does (query i sees keys j <= i +
    Sk - Sq). bf16 or f16; head dims 64, 128 and 256; q, k and v contiguous in
    their last two dimensions, k and v with the same strides (an ``out`` of
    another layout than q's, or a q not laid out as a contiguous tensor
    when out is allocated, costs a copy). Returns the
    output (and the natural-log log-sum-exp of each row, f32 [batch, heads,
    seq_q], with ``return_lse``).

    The kernel variant follows the shape class
    (:func:`tilec.kernels.attention_shape_config`: on sm_90a, causal
    attention over at most 2048 queries runs the persistent kernel).

    Tensors: torch, CuPy (``__cuda_array_interface__``; f16, as CuPy has no
    bf16) or any DLPack object; allocated results are CuPy arrays for CuPy
    inputs, else torch tensors. Runs on the current torch stream (CuPy's for
    CuPy arrays). Invalid arguments raise :class:`ArgumentError` /
    :class:`DTypeError` before anything is launched.
    """
    descales = (q_descale, k_descale, v_descale)
    if out is None and descales == (None, None, None) and _torch_op_route(q, k, v):
        from . import torch_ops
        o, lse = torch_ops.attention(q, k, v, causal, scale, deterministic, chip, artifacts)
        return (o, lse) if return_lse else o
    return _attention_direct(q, k, v, causal=causal, scale=scale, out=out, return_lse=return_lse,
                             chip=chip, artifacts=artifacts, q_descale=q_descale,
                             k_descale=k_descale, v_descale=v_descale)


def _attention_direct(q, k, v, *, causal=False, scale=None, out=None, return_lse=False,
                      chip=None, artifacts=None, q_descale=None, k_descale=None,
                      v_descale=None):
    """tilec.attention's kernels, called directly (no torch operator)."""
    descales = (q_descale, k_descale, v_descale)
    if scale is not None:
        scale = _attention_scale("tilec.attention", scale)
    if descales != (None, None, None):
        if scale is not None:
            raise ArgumentError("tilec.attention: scale= is not supported with FP8 descales")
        return _attention_fp8(q, k, v, causal, out, return_lse, chip, artifacts, descales)
    try:  # torch tensors: the plan of this call's metadata (module doc)
        key = _attention_plan_key("attention", q, k, v, out, causal, return_lse, chip,
                                  artifacts, extra=scale)
        plan = _tls.plans.get(key)
    except Exception:  # noqa: BLE001 - not torch-style tensors: the checked path
        key = plan = None
    if plan is not None:
        result = _launch_attention_plan(plan, q, k, v, out, return_lse)
        if result is not None:
            return result
    # FP8 calls have plans of their own (keyed by how descales are given).
    if str(getattr(q, "dtype", "")).endswith(("float8_e4m3fn", "float8_e5m2")):
        if scale is not None:
            raise ArgumentError("tilec.attention: scale= is not supported for FP8 attention")
        return _attention_fp8(q, k, v, causal, out, return_lse, chip, artifacts, descales)
    return _attention_checked(q, k, v, causal, out, return_lse, chip, artifacts, key, scale)


def _attention_scale(op, scale):
    """``scale`` as a float32 bit pattern's hex digits (the kernel constant
    and its name), after checking it."""
    value = float(scale)
    if not math.isfinite(value) or value == 0:
        raise ArgumentError(f"{op}: scale must be finite and nonzero, got {scale}")
    return "%08x" % struct.unpack("<I", struct.pack("<f", value))[0]


def _torch_op_route(*tensors):
    """Whether a call on ``tensors`` goes through the torch operators of
    :mod:`tilec.torch_ops`: torch tensors while torch.compile traces, or
    when autograd needs a gradient of one of them."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    compiler = getattr(torch, "compiler", None)
    if compiler is not None and compiler.is_compiling():
        return True
    grad_enabled = getattr(torch, "is_grad_enabled", None)
    if grad_enabled is None or not grad_enabled():
        return False
    tensor = getattr(torch, "Tensor", ())
    return any(isinstance(t, tensor) and getattr(t, "requires_grad", False) for t in tensors)


def _attention_plan_key(kind, q, k, v, out, causal, return_lse, chip, artifacts, extra=None):
    """The key of an attention call's plan: everything but the data
    (torch-style tensors; raises for others)."""
    return (kind, q.shape, q.stride(), q.dtype, q.device,
            k.shape, k.stride(), k.dtype, k.device, v.shape, v.stride(), v.dtype, v.device,
            None if out is None else (out.shape, out.stride(), out.dtype, out.device), extra,
            bool(causal), bool(return_lse), chip,
            _default_directory() if artifacts is None else artifacts)


def _launch_attention_plan(plan, q, k, v, out, return_lse, extra_dyn=()):
    """Launches ``plan`` on this call's tensors (and ``extra_dyn``, the
    per-call values after Q, K, V, O, LSE); returns the result, or ``None``
    when a pointer breaks an alignment (the checked path then says which)."""
    stream = plan.stream()
    o = plan.allocate() if out is None else out
    lse = plan.allocate_lse() if return_lse else plan.lse_scratch(stream)
    dyn = (q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr()) + extra_dyn
    if dyn == plan.last or plan.bind(dyn):
        plan.launch(stream)
        return (o, lse) if return_lse else o
    return None


def _attention_allocators(key, Q, shape, dtype, allocated):
    """What a plan for ``key`` allocates per call (none without a key): the
    lse, and the ``shape`` output of ``dtype`` when the call allocated it."""
    if key is None:
        return {}
    allocators = {"allocate_lse": _allocator(Q, shape[:3], "f32")}
    if allocated:
        allocators["allocate"] = _allocator(Q, shape, dtype)
    return allocators


def _check_rank4(op, infos):
    for t in infos:
        if t.ndim != 4:
            raise ArgumentError(f"{op}: {t.name} must be [batch, heads, seq, head_dim], got "
                                f"shape {list(t.shape)}")


def _attention_sizes(op, Q, K, V):
    """(batch, heads, seq_q, head_dim, kv heads, seq_k) of compatible q, k,
    v: k and v alike, same batch and head_dim, k heads dividing q heads."""
    b, h, sq, d = Q.shape
    hk, sk = K.shape[1], K.shape[2]
    if (K.shape != V.shape or K.shape[0] != b or K.shape[3] != d or hk == 0
            or h % hk):
        raise ArgumentError(f"{op}: incompatible shapes q {list(Q.shape)}, k {list(K.shape)}, "
                            f"v {list(V.shape)} (k and v alike, same batch and head_dim, "
                            f"k heads dividing q heads)")
    return b, h, sq, d, hk, sk


def _attention_outputs(Q, out, O, shape, dtype):
    """(out, its TensorInfo, lse): out allocated like q when None, and the
    f32 [batch, heads, seq_q] lse."""
    if out is None:
        out = _allocate(Q, shape, dtype)
        O = describe(out, "out")
    return out, O, _allocate(Q, shape[:3], "f32")


def _outer_strides(info):
    """Batch and head strides where those dimensions have more than one
    element (a stride along a dimension of one element is never followed)."""
    return tuple(s if e > 1 else 0 for e, s in zip(info.shape[:2], info.strides[:2]))


def _contiguous_strides(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def _is_contiguous(info):
    return all(e <= 1 or s == c for e, s, c in zip(info.shape, info.strides,
                                                     _contiguous_strides(info.shape)))


def _attention_checked(q, k, v, causal, out, return_lse, chip, artifacts, key=None, scale=None):
    """tilec.attention with every check spelled out (and its error
    messages); stores a plan under ``key`` when one is given."""
    op = "tilec.attention"
    Q, K, V = describe(q, "q"), describe(k, "k"), describe(v, "v")
    O = describe(out, "out") if out is not None else None
    device_index = _check_device(op, [Q, K, V] + ([O] if O is not None else []))
    _check_rank4(op, (Q, K, V))
    for t in (Q, K, V):
        if t.dtype not in _ATTENTION_DTYPES:
            raise DTypeError(f"{op}: {t.name} must be bf16 or f16, got {t.dtype}")
    if not Q.dtype == K.dtype == V.dtype:
        raise DTypeError(f"{op}: q, k and v must share a dtype, got {Q.dtype}, {K.dtype}, "
                         f"{V.dtype}")
    b, h, sq, d, hk, sk = _attention_sizes(op, Q, K, V)
    if d not in (64, 128, 256):
        raise ArgumentError(f"{op}: head_dim must be 64, 128 or 256, got {d}")
    for t in (Q, K, V):
        if t.strides[3] != 1 or (t.shape[2] > 1 and t.strides[2] != d):
            raise ArgumentError(f"{op}: {t.name} must be contiguous in its last two dimensions "
                                f"(strides [..., {d}, 1]), got strides {list(t.strides)}")
    if _outer_strides(V) != _outer_strides(K):
        raise ArgumentError(f"{op}: k and v must have the same strides, got "
                            f"{list(K.strides)} and {list(V.strides)}")
    if O is not None and (O.shape != Q.shape or O.dtype != Q.dtype):
        raise ArgumentError(f"{op}: out must have q's shape and dtype ({list(Q.shape)}, "
                            f"{Q.dtype}), got {list(O.shape)}, {O.dtype}")
    # The kernel writes out with q's strides: other layouts of out, and a q
    # not laid out like the out allocated for it, go through copies.
    if O is None and not _is_contiguous(Q) or O is not None and (
            O.strides[3] != 1 or (sq > 1 and O.strides[2] != d)
            or _outer_strides(O) != _outer_strides(Q)):
        return _attention_contiguous(Q, k, v, causal, O, return_lse, chip, artifacts, scale)

    allocated = out is None
    out, O, lse = _attention_outputs(Q, out, O, (b, h, sq, d), Q.dtype)
    if min(b, h, sq) == 0:
        return (out, lse) if return_lse else out
    chip, cubin_arch = _chip_and_arch(chip, device_index)
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    config = attention_shape_config(sq, d, causal, chip)  # the per-shape-class dispatch
    if scale == _attention_scale(op, 1.0 / math.sqrt(d)):
        scale = None  # the default: the kernels without a scale
    default = attention_name(Q.dtype, d, causal, scale=scale)
    name = default + gemm_config_suffix(config)
    try:
        launcher, meta = _resolve(op, name,
                                  lambda: attention_source(Q.dtype, d, causal, config=config,
                                                           name=name, scale=scale)[1],
                                  chip, cubin_arch, directory, device_index)
    except KernelNotAvailableError:
        if name == default:
            raise
        # The variant is only faster: without it (artifacts built before it
        # and no compiler), the default kernel computes the same.
        launcher, meta = _resolve(op, default,
                                  lambda: attention_source(Q.dtype, d, causal, scale=scale)[1],
                                  chip, cubin_arch, directory, device_index)
    values = {"Q": Q, "K": K, "V": V, "O": O, "LSE": describe(lse, "lse"), "B": b, "H": h,
              "HK": hk, "SQ": sq, "SK": sk, "q_batch": Q.strides[0], "q_head": Q.strides[1],
              "kv_batch": K.strides[0], "kv_head": K.strides[1], "lse_batch": h * sq}
    described = {"Q": "q", "K": "k", "V": "v", "O": "out", "LSE": "lse",
                 "kv_batch": "k.stride(0)", "kv_head": "k.stride(1)"}
    _check_metadata(op, meta, values, described)
    _launch_checked(key, launcher, meta, values, Q.kind, device_index, _ATTENTION_DYNAMIC,
                    **_attention_allocators(key, Q, (b, h, sq, d), Q.dtype, allocated))
    return (out, lse) if return_lse else out


def _descale_value(op, name, x):
    """A per-tensor descale factor given as a number (``None``: 1.0)."""
    value = 1.0 if x is None else float(x)
    if not math.isfinite(value) or value <= 0:
        raise ArgumentError(f"{op}: {name} must be positive and finite, got {value}")
    return value


#: The launch values of FP8 attention that may change between calls sharing
#: a plan: per-tensor descales as numbers, or the descale tensors.
_ATTENTION_FP8_DYNAMIC = {False: _ATTENTION_DYNAMIC + ("q_descale", "k_descale", "v_descale"),
                          True: _ATTENTION_DYNAMIC + ("DQ", "DK", "DV")}
_DESCALE_NAMES = ("q_descale", "k_descale", "v_descale")


def _is_number(x):
    return x is None or isinstance(x, (int, float))


def _descale_tensors(op, q, descales):
    """The descales as tensors (numbers beside a tensor become one-element
    f32 tensors on q's device), or ``None`` when all are numbers."""
    if all(_is_number(x) for x in descales):
        return None
    like = describe(q, "q")
    result = []
    for name, x in zip(_DESCALE_NAMES, descales):
        if _is_number(x):
            t = _allocate(like, (1,), "f32")
            value = _descale_value(op, name, x)
            t.fill(value) if like.kind == "cai" else t.fill_(value)
            x = t
        result.append(x)
    return tuple(result)


def _descale_views(op, infos, b, hk):
    """Launch values of descale tensors ``infos``: each pointer and its
    [batch, kv_heads] strides (0 along a dimension of one element: one
    element broadcasts to all)."""
    values = {}
    for info, x in zip(infos, "qkv"):
        if info.dtype != "f32":
            raise DTypeError(f"{op}: {info.name} must be float32, got {info.dtype}")
        numel = math.prod(info.shape)
        if numel == 1:
            strides = (0, 0)
        elif tuple(info.shape) == (b, hk):
            strides = tuple(s if e > 1 else 0 for e, s in zip(info.shape, info.strides))
        else:
            raise ArgumentError(f"{op}: {info.name} must have one element or shape "
                                f"[batch, kv_heads] = [{b}, {hk}], got {list(info.shape)}")
        values[f"D{x.upper()}"] = info
        values[f"d{x}_batch"], values[f"d{x}_head"] = strides
    return values


def _attention_fp8(q, k, v, causal, out, return_lse, chip, artifacts, descales):
    """tilec.attention on float8 inputs: the plan of this call's metadata
    (and of how its descales are given) when there is one, else the checked
    path."""
    op = "tilec.attention"
    tensors = _descale_tensors(op, q, descales)
    try:  # torch tensors: the plan of this call's metadata (module doc)
        key = _attention_plan_key(
            "attention_fp8", q, k, v, out, causal, return_lse, chip, artifacts,
            None if tensors is None else tuple((t.shape, t.stride(), t.dtype, t.device)
                                               for t in tensors))
        plan = _tls.plans.get(key)
    except Exception:  # noqa: BLE001 - not torch-style tensors: the checked path
        key = plan = None
    if plan is not None:
        ds = (tuple(_descale_value(op, n, x) for n, x in zip(_DESCALE_NAMES, descales))
              if tensors is None else tuple(t.data_ptr() for t in tensors))
        result = _launch_attention_plan(plan, q, k, v, out, return_lse, ds)
        if result is not None:
            return result
    return _attention_fp8_checked(q, k, v, causal, out, return_lse, chip, artifacts, descales,
                                  tensors, key)


def _attention_fp8_checked(q, k, v, causal, out, return_lse, chip, artifacts, descales, tensors,
                           key):
    """tilec.attention on float8 inputs with every check spelled out;
    stores a plan under ``key`` when one is given."""
    op = "tilec.attention"
    Q, K, V = describe(q, "q"), describe(k, "k"), describe(v, "v")
    O = describe(out, "out") if out is not None else None
    D = [] if tensors is None else [describe(t, n) for t, n in zip(tensors, _DESCALE_NAMES)]
    device_index = _check_device(op, [Q, K, V] + ([O] if O is not None else []) + D)
    _check_rank4(op, (Q, K, V))
    if Q.dtype not in FP8_DTYPES or not Q.dtype == K.dtype == V.dtype:
        raise DTypeError(f"{op}: with descales, q, k and v must all be float8_e4m3fn or all "
                         f"float8_e5m2, got {Q.dtype}, {K.dtype}, {V.dtype}")
    b, h, sq, d, hk, sk = _attention_sizes(op, Q, K, V)
    if d not in (64, 128, 256):
        raise ArgumentError(f"{op}: FP8 attention takes head_dim 64, 128 or 256, got {d}")
    for t in (Q, K):
        if t.strides[3] != 1 or (t.shape[2] > 1 and t.strides[2] != d):
            raise ArgumentError(f"{op}: {t.name} must be contiguous in its last two dimensions "
                                f"(strides [..., {d}, 1]), got strides {list(t.strides)}")
    if V.strides[2] != 1 and sk > 1:
        raise ArgumentError(f"{op}: an FP8 v must be contiguous along seq (v.stride(2) == 1: "
                            f"pass vt.transpose(-1, -2) of a [batch, heads, {d}, seq] vt), got "
                            f"strides {list(V.strides)}")
    if tensors is None:
        descale_values = dict(zip(_DESCALE_NAMES, (_descale_value(op, n, x) for n, x in
                                                   zip(_DESCALE_NAMES, descales))))
    else:
        descale_values = _descale_views(op, D, b, hk)
    if O is not None and (O.shape != Q.shape or O.dtype != "bf16" or O.strides[3] != 1
                          or (sq > 1 and O.strides[2] != d)
                          or _outer_strides(O) != _outer_strides(Q)):
        raise ArgumentError(f"{op}: out must be bf16 of q's shape {list(Q.shape)} with q's "
                            f"strides, got {O.dtype} {list(O.shape)} strides {list(O.strides)}")
    if O is None and not _is_contiguous(Q):
        raise ArgumentError(f"{op}: an FP8 q must be contiguous (out takes its strides), got "
                            f"strides {list(Q.strides)}")
    allocated = out is None
    out, O, lse = _attention_outputs(Q, out, O, (b, h, sq, d), "bf16")
    if min(b, h, sq) == 0:
        return (out, lse) if return_lse else out
    chip, cubin_arch = _chip_and_arch(chip, device_index)
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    with_tensors = tensors is not None
    name = attention_name(Q.dtype, d, causal, with_tensors)
    launcher, meta = _resolve(op, name,
                              lambda: attention_source(Q.dtype, d, causal,
                                                       descale_tensors=with_tensors)[1],
                              chip, cubin_arch, directory, device_index)
    values = {"Q": Q, "K": K, "V": V, "O": O, "LSE": describe(lse, "lse"), "B": b, "H": h,
              "HK": hk, "SQ": sq, "SK": sk, "q_batch": Q.strides[0], "q_head": Q.strides[1],
              "kv_batch": K.strides[0], "kv_head": K.strides[1], "lse_batch": h * sq,
              "v_batch": V.strides[0], "v_head": V.strides[1], "v_ld": V.strides[3],
              **descale_values}
    described = {"Q": "q", "K": "k", "V": "v", "O": "out", "LSE": "lse",
                 "kv_batch": "k.stride(0)", "kv_head": "k.stride(1)",
                 "v_batch": "v.stride(0)", "v_head": "v.stride(1)", "v_ld": "v.stride(3)",
                 "DQ": "q_descale", "DK": "k_descale", "DV": "v_descale"}
    _check_metadata(op, meta, values, described)
    _launch_checked(key, launcher, meta, values, Q.kind, device_index,
                    _ATTENTION_FP8_DYNAMIC[with_tensors],
                    **_attention_allocators(key, Q, (b, h, sq, d), "bf16", allocated))
    return (out, lse) if return_lse else out


def _attention_contiguous(Q, k, v, causal, O, return_lse, chip, artifacts, scale=None):
    """tilec.attention through contiguous q and out: copies q when it is
    not contiguous, and out (after the kernel) when it is not."""
    if Q.kind == "cai":
        import cupy
        q = Q.obj if _is_contiguous(Q) else cupy.ascontiguousarray(Q.obj)
    else:
        q = Q.obj if _is_contiguous(Q) else Q.as_torch().contiguous()
    if O is not None and _is_contiguous(O):
        return _attention_checked(q, k, v, causal, O.obj, return_lse, chip, artifacts,
                                  scale=scale)
    result = _attention_checked(q, k, v, causal, None, return_lse, chip, artifacts,
                                scale=scale)
    if O is None:
        return result
    written = result[0] if return_lse else result
    # Copied on the stream the kernel ran on (CuPy's for CuPy arrays).
    if Q.kind == "cai":
        import cupy
        cupy.asarray(O.obj)[...] = written
    else:
        O.as_torch().copy_(written)
    return (O.obj, result[1]) if return_lse else O.obj
