"""Allocating outputs and launching checked calls.

Outputs are allocated with the library of the inputs (CuPy for CuPy
arrays, else torch) on their device. A checked call launches through
:mod:`tilec.runtime` on the current stream of that library -- through a new
plan (:mod:`tilec.plans`) when its tensors are torch's, so that the next
call with the same metadata skips the checks.
"""

from .checks import _round_up
from .errors import DTypeError
from .plans import _StagedPlan, _make_plan, _prepare_plan, _store_plan
from .tensors import TORCH_DTYPES, TensorInfo


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


def _launch_args(meta, values):
    """Launch values in parameter order (pointers as integers) of a
    checked call's ``values`` (parameter name -> value, :class:`TensorInfo`
    for tensors)."""
    args = [values[p["name"]] for p in meta["params"]]
    return [v.ptr if isinstance(v, TensorInfo) else v for v in args]


def _launch_stages(key, stages, values, kind, device_index, names, allocate, workspace,
                   offsets=None, allocate_lse=None):
    """Launches the kernels ``stages`` ([(launcher, metadata)]) of one
    checked call in order: through a new :class:`_StagedPlan` for ``key``
    when there is one (torch tensors), else directly. ``workspace``: (the
    f32 buffer between the stages, its allocator); ``offsets``: the
    parameters that point into it and their byte offsets (default ``{"W":
    0}``, ``values["W"]`` its description)."""
    offsets = offsets or {"W": 0}
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
    plan.w_slots = tuple(tuple((i, offsets[p["name"]]) for i, p in enumerate(meta["params"])
                               if p["name"] in offsets)
                         for _, meta in stages)
    buffer, plan.allocate_workspace = workspace
    plan.allocate, plan.allocate_lse, plan.bound = allocate, allocate_lse, buffer.data_ptr()
    plan.lse_scratches = {}
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
