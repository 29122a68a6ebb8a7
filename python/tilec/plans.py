"""Resolved kernels and plans: what makes a repeated call cheap.

A kernel is resolved once per process and key (name, chip, cubin arch,
artifacts directory, device): precompiled in ``artifacts=`` /
``$TILEC_ARTIFACTS``, else compiled through ``libtilec-c.so`` and the
on-disk cache (:func:`_resolve`).

For torch tensors, a call first looks for a *plan*: a checked call worked
out for the same tensor metadata -- shapes, strides, dtypes, devices -- and
the same flags, chip and artifacts directory, holding the kernel's
:class:`tilec.runtime.PreparedLaunch` (grid, function handle, parameters
packed once). Everything the checks derive is a function of that key,
except what depends on data pointers (alignment, tensor maps) and float
scalars: a plan compares those with the ones it was last packed with and,
when they differ, checks the alignments again and re-packs (tensor maps
come from the kernel's cache keyed by pointer, sizes and strides). So a hit
never launches with stale values, and a call that repeats costs reading the
tensors' attributes, one dictionary lookup and ``cuLaunchKernel``. Plans
are per thread (a prepared launch's buffer is re-packed in place), at most
``_PLAN_LIMIT`` of them, all dropped by :func:`clear_kernel_memo`.
"""

import os
import threading
import weakref

from . import artifacts as _artifacts
from .errors import KernelNotAvailableError
from .targets import _capability_or_none, _num_sms


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
        return _per_stream(self.scratch, self.allocate_lse, stream)


class _StagedPlan:
    """A checked call of several kernels launched in order (split-K's
    partial products, then their sum) prepared for reuse: a :class:`_Plan`
    per kernel, all bound to the same per-call values, and the f32
    workspace between them, one per stream (allocated on it, so that the
    kernels of one stream reuse it in order) and kept.

    ``stages``: the plans; ``allocate``: what allocates the output when the
    call does not pass it; ``allocate_workspace``: the workspace's;
    ``scratch``: stream -> workspace; ``w_slots``: each stage's (parameter
    index, byte offset) of each pointer into the workspace; ``bound``: the
    workspace address packed now; ``lse_scratches``: as :class:`_Plan`'s
    ``scratch`` (attention's lse when the caller does not want it)."""

    __slots__ = ("stages", "allocate", "allocate_lse", "allocate_workspace", "scratch", "w_slots",
                 "bound", "lse_scratches")

    @property
    def last(self):
        return self.stages[-1].last

    def stream(self):
        """torch's current stream on the plan's device (raw handle)."""
        return self.stages[0].stream()

    def lse_scratch(self, stream):
        """As :meth:`_Plan.lse_scratch`."""
        return _per_stream(self.lse_scratches, self.allocate_lse, stream)

    def bind(self, dyn):
        """As :meth:`_Plan.bind`, for every stage (none re-packed unless all
        fit)."""
        if not all(stage.fits(dyn) for stage in self.stages):
            return False
        for stage in self.stages:
            stage.bind(dyn)
        return True

    def launch(self, stream=None):
        """Launches the stages on ``stream`` (default: the current one)."""
        stages = self.stages
        stream = stages[0].stream() if stream is None else stream
        workspace = _per_stream(self.scratch, self.allocate_workspace, stream)
        address = workspace.data_ptr()
        if address != self.bound:
            for stage, slots in zip(stages, self.w_slots):
                for slot, offset in slots:
                    stage.values[slot] = address + offset
                stage.launch.update(stage.values)
            self.bound = address
        for stage in stages:
            stage.launch(stream)


def _per_stream(scratch, allocate, stream):
    """A buffer from ``allocate`` kept per stream in ``scratch`` (stream ->
    buffer; at most 8 kept): allocated on that stream, so that freeing it
    is ordered after the launches using it."""
    buffer = scratch.get(stream)
    if buffer is None:
        if len(scratch) >= 8:
            scratch.clear()
        buffer = scratch[stream] = allocate()
    return buffer


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
