"""``tilec.gemm`` and ``tilec.attention`` on torch / CuPy / DLPack tensors.

A call describes its tensors (:mod:`tilec.tensors`), checks them, picks the
kernel variant (dtype, B layout, epilogue), finds its cubin -- precompiled in
``artifacts=`` / ``$TILEC_ARTIFACTS``, else compiled through
``libtilec-c.so`` and the on-disk cache -- checks the values against what the
kernel's metadata requires (alignment, divisibility, TMA strides) and
launches it on the current stream through :mod:`tilec.runtime`. Resolved
kernels are memoized per process, so after the first call a launch costs
only the checks and the driver call.

The per-call path: torch tensors (anything with ``data_ptr()``,
``stride()``, ``shape``, ``dtype`` and ``device``) are read attribute by
attribute, and what depends only on dtypes, devices, epilogue flags, chip
and artifacts directory -- the dtype and device checks, the chip, the
variant -- is worked out once and memoized as a plan. A call then checks
shapes and strides with integer operations, picks the shape-class
configuration (memoized per shape) and the kernel (memoized per plan, B
layout and configuration), and runs the kernel's metadata requirements
(alignment, divisibility, TMA strides) as one generated expression over the
launch values. Anything this path does not accept -- other tensor kinds,
explicit ``config=``, empty problems, and every invalid argument -- goes
through the full checks (:func:`_gemm_checked`), which raise the errors.
"""

import os
import threading

from . import artifacts as _artifacts
from .errors import ArgumentError, DTypeError, KernelNotAvailableError, LoweringNotAvailableError
from .kernels import (attention_name, attention_source, gemm_config_suffix, gemm_name,
                      gemm_shape_config, gemm_source)
from .tensors import ELEMENT_BYTES, TORCH_DTYPES, TensorInfo, _parse_device, describe, dtype_name

__all__ = ["gemm", "attention", "device_chip", "chip_for_capability", "clear_kernel_memo",
           "ArgumentError", "DTypeError", "KernelNotAvailableError", "LoweringNotAvailableError"]


_GEMM_INPUT_DTYPES = ("bf16", "f16")
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
    the closest older chip's PTX assembled for the device."""
    major, minor = capability
    arch = f"sm_{major}{minor}"
    if (major, minor) == (9, 0):
        return "sm_90a", "sm_90a"
    if major >= 9:
        return "sm_90", arch
    if major == 8:
        chip = "sm_89" if minor >= 9 else "sm_86" if minor >= 6 else "sm_80"
        return chip, arch
    raise ArgumentError(f"compute capability {major}.{minor} is not supported: tilec kernels "
                        f"need sm_80 (Ampere) or newer")


def device_chip(index=None):
    """``(chip, cubin_arch)`` for CUDA device ``index``."""
    return chip_for_capability(device_capability(index))


#: Resolved kernels: key -> (runtime.Kernel, metadata).
_kernels = {}
_kernels_lock = threading.Lock()


#: Per-call plans of tilec.gemm: (dtypes, devices, flags, chip, directory)
#: -> _GemmPlan; shape-class configurations: (M, N, K, chip) -> (config,
#: name suffix).
_plans = {}
_shape_configs = {}
_shape_config_source = None  # the gemm_shape_config _shape_configs came from
_MEMO_LIMIT = 4096


def clear_kernel_memo():
    """Forgets every resolved kernel and gemm plan (tests; after rebuilding
    artifacts)."""
    with _kernels_lock:
        _kernels.clear()
        _plans.clear()
        _shape_configs.clear()


def _resolve(op, name, make_source, chip, cubin_arch, directory, device_index):
    """(launcher, metadata) of kernel ``name``: precompiled from
    ``directory`` if it has it, else compiled."""
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
    for p in meta["params"]:
        name = p["name"]
        value = values[name]
        what = described.get(name, name)
        if p["kind"] == "pointer":
            if p.get("dtype") and value.dtype != p["dtype"]:
                raise DTypeError(f"{op}: {what} must be {p['dtype']}, got {value.dtype}")
            align = p.get("align")
            if align and value.ptr % align:
                raise ArgumentError(
                    f"{op}: {what} must be {align}-byte aligned, as the kernel reads it in "
                    f"{align}-byte chunks; its data pointer is {value.ptr:#x} (offset "
                    f"{value.ptr % align} bytes) -- views that start inside a row break this")
        elif p.get("divisibility"):
            div = p["divisibility"]
            if int(value) % div:
                raise ArgumentError(
                    f"{op}: {what} = {int(value)} must be a multiple of {div}, as the kernel "
                    f"requires (rows start on 16-byte boundaries); allocate with a padded row, "
                    f"e.g. torch.empty(rows, {_round_up(int(value), div)})[:, :cols]")
    for spec in meta.get("tensor_maps", []):
        base = values[spec["base"]]
        if base.ptr % 16:
            raise ArgumentError(f"{op}: {described.get(spec['base'], spec['base'])} must be "
                                f"16-byte aligned for TMA; its data pointer is {base.ptr:#x}")
        for stride in spec["strides"][1:]:
            elements = int(values[stride]) if isinstance(stride, str) else int(stride)
            if elements * spec["elem_bytes"] % 16:
                what = described.get(stride, stride) if isinstance(stride, str) else stride
                raise ArgumentError(
                    f"{op}: {what} = {elements} elements ({elements * spec['elem_bytes']} bytes) "
                    f"is not a multiple of 16 bytes, which TMA requires for "
                    f"{described.get(spec['base'], spec['base'])}")


def _launch(launcher, args, kind, device_index):
    """Launches ``launcher`` (a :class:`tilec.runtime.Kernel`) with launch
    values ``args`` (in parameter order, pointers as integers, all checked)
    on device ``device_index``, on the current stream of the library the
    tensors come from: CuPy's for ``kind == "cai"``, else torch's."""
    stream = None
    if kind == "cai":
        import cupy  # CuPy arrays run on CuPy's current stream
        stream = cupy.cuda.get_current_stream().ptr
    launcher.launch(args, device=device_index, stream=stream)


_torch_devices = {}


def _allocate(like, shape, dtype, row_quantum=1):
    """An uninitialized matrix with the library of ``like`` (anything with
    ``kind`` and ``device`` as in :class:`TensorInfo`) on its device; rows
    padded to a multiple of ``row_quantum`` elements (a view of a wider
    buffer) when the kernel requires that of the row stride."""
    rows, cols = shape
    padded = (rows, _round_up(cols, row_quantum)) if rows > 1 and cols % row_quantum else shape
    if like.kind == "cai":
        import cupy
        if dtype == "bf16":
            raise DTypeError("CuPy has no bfloat16; pass out= (e.g. a torch tensor)")
        with cupy.cuda.Device(like.device[1]):
            buf = cupy.empty(padded, dtype={"f16": "float16", "f32": "float32"}[dtype])
    else:
        import torch
        index = like.device[1]
        device = _torch_devices.get(index)
        if device is None:
            device = _torch_devices[index] = torch.device("cuda", index)
        buf = torch.empty(padded, dtype=getattr(torch, TORCH_DTYPES[dtype]), device=device)
    return buf if padded == shape else buf[:, :cols]


_SLOW = object()  # _gemm_fast: "take the full checks"

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


def gemm(a, b, *, out=None, bias=None, alpha=None, beta=None, activation=None, out_dtype=None,
         chip=None, artifacts=None, config=None):
    """``out = activation(alpha * a @ b + beta * out + bias)`` with a tilec
    kernel.

    ``a``: M x K, row-major (unit stride along K; any row stride that keeps
    rows 16-byte aligned). ``b``: K x N, row-major or column-major (e.g.
    ``w.t()`` of an N x K weight). Both bf16 or both f16. ``out``: M x N,
    row-major, dtype ``out_dtype`` (default: the input dtype; ``f32``
    possible); allocated when omitted; read when ``beta`` is given.
    ``bias``: N elements of the output dtype. ``activation``: ``None``,
    ``"relu"``, ``"gelu"`` or ``"silu"``. ``chip``: tilec target (default:
    the device's, ``sm_90a`` on Hopper). ``artifacts``: directory of
    precompiled kernels (default ``$TILEC_ARTIFACTS``), used before the
    compiler. ``config``: tile configuration overrides (e.g.
    ``{"block_n": 128, "stages": 3}``).

    Runs on the current torch stream (CuPy's for CuPy arrays) and returns
    ``out``. Invalid arguments raise :class:`ArgumentError` /
    :class:`DTypeError` before anything is launched.
    """
    if config is None:
        result = _gemm_fast(a, b, out, bias, alpha, beta, activation, out_dtype, chip, artifacts)
        if result is not _SLOW:
            return result
    return _gemm_checked(a, b, out=out, bias=bias, alpha=alpha, beta=beta, activation=activation,
                         out_dtype=out_dtype, chip=chip, artifacts=artifacts, config=config)


class _GemmPlan:
    """What a tilec.gemm call depends on besides shapes, strides and
    pointers, worked out once per (dtypes, devices, epilogue, chip,
    artifacts directory). ``kind`` and ``device`` are as in
    :class:`TensorInfo` (for :func:`_allocate`)."""

    __slots__ = ("kind", "device", "index", "dtype", "out_dtype", "in_quantum", "out_quantum",
                 "has_bias", "has_alpha", "has_beta", "variant", "chip", "cubin_arch",
                 "directory", "kernels")


class _GemmEntry:
    """A resolved kernel of a plan: the launcher, the generated function
    that checks and orders the launch values (``None``: always take the full
    checks) and the row quantum an allocated ``out`` needs."""

    __slots__ = ("launcher", "pack", "ldc_quantum")

    def __init__(self, launcher, pack, ldc_quantum):
        self.launcher, self.pack, self.ldc_quantum = launcher, pack, ldc_quantum


def _make_plan(a_dtype, a_dev, b_dtype, b_dev, o_dtype, o_dev, bias_dtype, bias_dev, out_dtype,
               activation, has_alpha, has_beta, chip, directory):
    """A :class:`_GemmPlan`, or ``None`` when the arguments fail a check
    (the full checks then report it)."""
    try:
        has_out, has_bias = o_dev is not None, bias_dev is not None
        devices = [_parse_device(a_dev), _parse_device(b_dev)]
        devices += [_parse_device(d) for d in (o_dev, bias_dev) if d is not None]
        if any(d[0] != "cuda" or d != devices[0] for d in devices):
            return None
        index = devices[0][1]
        dtype = dtype_name(a_dtype)
        if dtype not in _GEMM_INPUT_DTYPES or dtype_name(b_dtype) != dtype:
            return None
        wanted = _dtype_arg(out_dtype) if out_dtype is not None else None
        if has_out:
            given = dtype_name(o_dtype)
            if wanted is not None and given != wanted:
                return None
            wanted = given
        wanted = wanted or dtype
        if wanted not in _GEMM_OUTPUT_DTYPES or activation not in _ACTIVATIONS:
            return None
        if (has_beta and not has_out) or (has_bias and dtype_name(bias_dtype) != wanted):
            return None
        if chip is None:
            chip, cubin_arch = device_chip(index)
        else:
            cubin_arch = _cubin_arch_for(chip, index)
    except Exception:  # noqa: BLE001 - the full checks raise the right error
        return None
    plan = _GemmPlan()
    plan.kind, plan.device, plan.index = "torch", ("cuda", index), index
    plan.dtype, plan.out_dtype = dtype, wanted
    plan.in_quantum = _row_quantum(ELEMENT_BYTES[dtype])
    plan.out_quantum = _row_quantum(ELEMENT_BYTES[wanted])
    plan.has_bias, plan.has_alpha, plan.has_beta = has_bias, has_alpha, has_beta
    plan.variant = dict(dtype=dtype, out_dtype=wanted, bias=has_bias, activation=activation,
                        alpha=has_alpha, beta=has_beta)
    plan.chip, plan.cubin_arch, plan.directory = chip, cubin_arch, directory
    plan.kernels = {}
    return plan


#: Argument names of the generated pack functions (see _compile_pack).
_PACK_ARGS = ("A", "B", "C", "bias", "alpha", "beta", "M", "N", "K", "lda", "ldb", "ldc")
_PACK_INTS = ("M", "N", "K", "lda", "ldb", "ldc")


def _compile_pack(meta, plan):
    """A function of the launch values (``_PACK_ARGS``, pointers as ints)
    that returns them in the kernel's parameter order, or ``None`` when one
    breaks a requirement of the metadata (what :func:`_check_metadata`
    checks: alignment, divisibility, TMA base and strides). ``None`` instead
    of a function when the kernel's parameters are not the ones tilec.gemm
    passes or a requirement fails whatever the values (the full checks
    handle those)."""
    pointers = {"A": plan.dtype, "B": plan.dtype, "C": plan.out_dtype}
    scalars = set(_PACK_INTS)
    if plan.has_bias:
        pointers["bias"] = plan.out_dtype
    if plan.has_alpha:
        scalars.add("alpha")
    if plan.has_beta:
        scalars.add("beta")
    order, conditions = [], []
    for p in meta["params"]:
        name = p["name"]
        if p["kind"] == "pointer":
            if name not in pointers or (p.get("dtype") and p["dtype"] != pointers[name]):
                return None
            if p.get("align"):
                conditions.append(f"{name} % {int(p['align'])}")
        else:
            if name not in scalars:
                return None
            if p.get("divisibility"):
                value = name if name in _PACK_INTS else f"int({name})"
                conditions.append(f"{value} % {int(p['divisibility'])}")
        order.append(name)
    for spec in meta.get("tensor_maps") or []:
        if spec["base"] not in pointers:
            return None
        conditions.append(f"{spec['base']} % 16")
        eb = int(spec["elem_bytes"])
        for stride in spec["strides"][1:]:
            if isinstance(stride, str):
                if stride not in _PACK_INTS:
                    return None
                conditions.append(f"{stride} * {eb} % 16")
            elif int(stride) * eb % 16:
                return None
    lines = [f"def pack({', '.join(_PACK_ARGS)}):"]
    if conditions:
        lines += [f"    if {' or '.join(conditions)}:", "        return None"]
    lines.append(f"    return ({''.join(n + ', ' for n in order)})")
    namespace = {}
    exec("\n".join(lines), namespace)  # noqa: S102 - names and integers from the metadata
    return namespace["pack"]


def _make_entry(plan, b_layout, config, suffix):
    """Resolves the kernel of a plan for a B layout and configuration."""
    variant = dict(plan.variant, b_layout=b_layout)
    name = gemm_name(**variant) + suffix
    launcher, meta = _resolve("tilec.gemm", name,
                              lambda: gemm_source(**variant, config=config, name=name)[1],
                              plan.chip, plan.cubin_arch, plan.directory, plan.index)
    ldc_param = next((p for p in meta["params"] if p["name"] == "ldc"), {})
    entry = _GemmEntry(launcher, _compile_pack(meta, plan), ldc_param.get("divisibility", 1))
    if len(plan.kernels) >= _MEMO_LIMIT:
        plan.kernels.clear()
    plan.kernels[(b_layout, suffix)] = entry
    return entry


def _shape_config(m, n, k, chip):
    """(config, kernel-name suffix) of the shape class (memoized per shape
    and per gemm_shape_config function)."""
    global _shape_config_source
    if _shape_config_source is not gemm_shape_config:
        _shape_configs.clear()
        _shape_config_source = gemm_shape_config
    config = gemm_shape_config(m, n, k, chip)
    found = (config, gemm_config_suffix(config))
    if len(_shape_configs) >= _MEMO_LIMIT:
        _shape_configs.clear()
    _shape_configs[(m, n, k, chip)] = found
    return found


def _gemm_fast(a, b, out, bias, alpha, beta, activation, out_dtype, chip, artifacts):
    """tilec.gemm for torch-style tensors with memoized plans; returns
    ``_SLOW`` for anything it does not accept, before launching."""
    directory = artifacts if artifacts is not None else _default_directory()
    try:
        a_dtype, a_dev, sa, sta, pa = a.dtype, a.device, a.shape, a.stride(), a.data_ptr()
        b_dtype, b_dev, sb, stb, pb = b.dtype, b.device, b.shape, b.stride(), b.data_ptr()
        if out is None:
            o_dtype = o_dev = None
            pc = 0
        else:
            o_dtype, o_dev, so, sto, pc = (out.dtype, out.device, out.shape, out.stride(),
                                           out.data_ptr())
        if bias is None:
            bias_dtype = bias_dev = None
            pbias = 0
        else:
            bias_dtype, bias_dev, sbias, stbias, pbias = (bias.dtype, bias.device, bias.shape,
                                                          bias.stride(), bias.data_ptr())
        key = (a_dtype, a_dev, b_dtype, b_dev, o_dtype, o_dev, bias_dtype, bias_dev, out_dtype,
               activation, alpha is not None, beta is not None, chip, directory)
        plan = _plans.get(key)
        if plan is None:
            plan = _make_plan(*key)
            if plan is None:
                return _SLOW
            if len(_plans) >= _MEMO_LIMIT:
                _plans.clear()
            _plans[key] = plan
        if alpha is not None:
            alpha = float(alpha)
        if beta is not None:
            beta = float(beta)

        if len(sa) != 2 or len(sb) != 2:
            return _SLOW
        m, k = sa
        k2, n = sb
        if k != k2 or not m or not n:
            return _SLOW
        if k > 1 and sta[1] != 1:
            return _SLOW
        quantum = plan.in_quantum
        lda = sta[0] if m > 1 else -(-max(k, 1) // quantum) * quantum
        layout = _b_layout_of(k, n, stb[0], stb[1], quantum)
        if layout is None:
            return _SLOW
        b_layout, ldb = layout
        if out is not None:
            if len(so) != 2 or so[0] != m or so[1] != n or (n > 1 and sto[1] != 1):
                return _SLOW
            quantum = plan.out_quantum
            ldc = sto[0] if m > 1 else -(-n // quantum) * quantum
        if bias is not None and (len(sbias) != 1 or sbias[0] != n or (n > 1 and stbias[0] != 1)):
            return _SLOW
        shape_key = (m, n, k, plan.chip)
        found = (_shape_configs.get(shape_key) if _shape_config_source is gemm_shape_config
                 else None)
    except Exception:  # noqa: BLE001 - not a torch-style tensor, odd values: full checks
        return _SLOW
    config, suffix = found or _shape_config(m, n, k, plan.chip)
    entry = plan.kernels.get((b_layout, suffix)) or _make_entry(plan, b_layout, config, suffix)
    if entry.pack is None:
        return _SLOW
    if out is None:
        out = _allocate(plan, (m, n), plan.out_dtype, row_quantum=entry.ldc_quantum)
        try:
            sto, pc = out.stride(), out.data_ptr()
            if n > 1 and sto[1] != 1:
                return _SLOW
            quantum = plan.out_quantum
            ldc = sto[0] if m > 1 else -(-n // quantum) * quantum
        except Exception:  # noqa: BLE001
            return _SLOW
    values = entry.pack(pa, pb, pc, pbias, alpha, beta, m, n, k, lda, ldb, ldc)
    if values is None:
        return _SLOW  # a metadata requirement fails: the full checks say which
    _launch(entry.launcher, values, "torch", plan.index)
    return out


def _gemm_checked(a, b, *, out=None, bias=None, alpha=None, beta=None, activation=None,
                  out_dtype=None, chip=None, artifacts=None, config=None):
    """tilec.gemm with every check spelled out (and its error messages):
    for tensors other than torch's, explicit configurations and invalid
    arguments."""
    op = "tilec.gemm"
    A, B = describe(a, "a"), describe(b, "b")
    tensors = [A, B]
    O = describe(out, "out") if out is not None else None
    BIAS = describe(bias, "bias") if bias is not None else None
    tensors += [t for t in (O, BIAS) if t is not None]
    device_index = _check_device(op, tensors)

    if A.dtype not in _GEMM_INPUT_DTYPES:
        raise DTypeError(f"{op}: a must be bf16 or f16, got {A.dtype}")
    if B.dtype != A.dtype:
        raise DTypeError(f"{op}: a and b must have the same dtype, got {A.dtype} and {B.dtype}")
    if out_dtype is not None:
        out_dtype = _dtype_arg(out_dtype)
    if O is not None:
        if out_dtype is not None and O.dtype != out_dtype:
            raise DTypeError(f"{op}: out is {O.dtype} but out_dtype={out_dtype}")
        out_dtype = O.dtype
    out_dtype = out_dtype or A.dtype
    if out_dtype not in _GEMM_OUTPUT_DTYPES:
        raise DTypeError(f"{op}: the output must be bf16, f16 or f32, got {out_dtype}")
    if A.ndim != 2 or B.ndim != 2:
        raise ArgumentError(f"{op}: a and b must be 2-D, got shapes {list(A.shape)} and "
                            f"{list(B.shape)}")
    m, k = A.shape
    k2, n = B.shape
    if k != k2:
        raise ArgumentError(f"{op}: inner dimensions differ: a is {m}x{k}, b is {k2}x{n}")
    if activation not in _ACTIVATIONS:
        raise ArgumentError(f"{op}: activation must be None, 'relu', 'gelu' or 'silu', not "
                            f"{activation!r}")
    if beta is not None and O is None:
        raise ArgumentError(f"{op}: beta scales the existing out, so out= is required with beta")
    if O is not None and O.shape != (m, n):
        raise ArgumentError(f"{op}: out must be {m}x{n}, got {list(O.shape)}")
    if BIAS is not None:
        if BIAS.ndim != 1 or BIAS.shape[0] != n:
            raise ArgumentError(f"{op}: bias must have shape [{n}], got {list(BIAS.shape)}")
        if BIAS.dtype != out_dtype:
            raise DTypeError(f"{op}: bias must be {out_dtype} (the output dtype), got "
                             f"{BIAS.dtype}")
        if n > 1 and BIAS.strides[0] != 1:
            raise ArgumentError(f"{op}: bias must be contiguous, got stride {BIAS.strides[0]}")

    lda = _row_major_ld(op, A, "K")
    b_layout, ldb = _b_layout(op, B)
    if O is not None:
        _row_major_ld(op, O, "N")
    if min(m, n) == 0:  # nothing to compute or store
        return out if O is not None else _allocate(A, (m, n), out_dtype)

    if chip is None:
        chip, cubin_arch = device_chip(device_index)
    else:
        cubin_arch = _cubin_arch_for(chip, device_index)
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    variant = dict(dtype=A.dtype, out_dtype=out_dtype, b_layout=b_layout, bias=BIAS is not None,
                   activation=activation, alpha=alpha is not None, beta=beta is not None)
    if config is None:  # the per-shape-class dispatch
        config = gemm_shape_config(m, n, A.shape[1], chip)
    name = gemm_name(**variant) + gemm_config_suffix(config)
    launcher, meta = _resolve(op, name, lambda: gemm_source(**variant, config=config, name=name)[1],
                              chip, cubin_arch, directory, device_index)

    if O is None:
        ldc_param = next((p for p in meta["params"] if p["name"] == "ldc"), {})
        out = _allocate(A, (m, n), out_dtype, row_quantum=ldc_param.get("divisibility", 1))
        O = describe(out, "out")
    ldc = _row_major_ld(op, O, "N")
    values = {"A": A, "B": B, "C": O, "M": m, "N": n, "K": k, "lda": lda, "ldb": ldb, "ldc": ldc}
    if BIAS is not None:
        values["bias"] = BIAS
    if alpha is not None:
        values["alpha"] = float(alpha)
    if beta is not None:
        values["beta"] = float(beta)
    described = {"A": "a", "B": "b", "C": "out", "bias": "bias",
                 "lda": "the row stride of a (a.stride(0))",
                 "ldb": f"the leading dimension of b (b.stride({0 if b_layout == 'row' else 1}))",
                 "ldc": "the row stride of out (out.stride(0))"}
    _check_metadata(op, meta, values, described)
    args = [values[p["name"]] for p in meta["params"]]
    args = [v.ptr if isinstance(v, TensorInfo) else v for v in args]
    _launch(launcher, args, A.kind, device_index)
    return out


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


def attention(q, k, v, *, causal=False, out=None, return_lse=False, chip=None, artifacts=None):
    """Scaled dot-product attention ``softmax(q @ k^T / sqrt(head_dim) [+
    causal mask]) @ v`` over ``[batch, heads, seq, head_dim]`` tensors
    (``tile.attention``: FlashAttention-2 forward).

    ``k``/``v`` may have fewer heads than ``q`` (grouped-query attention;
    they must divide q's) and another sequence length; ``causal`` aligns the
    mask bottom-right as FlashAttention does (query i sees keys j <= i +
    Sk - Sq). Head dims 64 and 128; each tensor contiguous in its last two
    dimensions. Returns the output (and the natural-log log-sum-exp of each
    row, f32 [batch, heads, seq_q], with ``return_lse``).
    """
    op = "tilec.attention"
    Q, K, V = describe(q, "q"), describe(k, "k"), describe(v, "v")
    infos = [Q, K, V] + ([describe(out, "out")] if out is not None else [])
    device_index = _check_device(op, infos)
    for t in (Q, K, V):
        if t.ndim != 4:
            raise ArgumentError(f"{op}: {t.name} must be [batch, heads, seq, head_dim], got "
                                f"shape {list(t.shape)}")
        if t.dtype not in _GEMM_INPUT_DTYPES:
            raise DTypeError(f"{op}: {t.name} must be bf16 or f16, got {t.dtype}")
    if not Q.dtype == K.dtype == V.dtype:
        raise DTypeError(f"{op}: q, k and v must share a dtype, got {Q.dtype}, {K.dtype}, "
                         f"{V.dtype}")
    b, h, sq, d = Q.shape
    hk, sk = K.shape[1], K.shape[2]
    if (K.shape != V.shape or K.shape[0] != b or K.shape[3] != d or hk == 0
            or h % hk):
        raise ArgumentError(f"{op}: incompatible shapes q {list(Q.shape)}, k {list(K.shape)}, "
                            f"v {list(V.shape)} (k and v alike, same batch and head_dim, "
                            f"k heads dividing q heads)")
    if d not in (64, 128):
        raise ArgumentError(f"{op}: head_dim must be 64 or 128, got {d}")
    for t in (Q, K, V):
        if t.strides[3] != 1 or (t.shape[2] > 1 and t.strides[2] != d):
            raise ArgumentError(f"{op}: {t.name} must be contiguous in its last two dimensions "
                                f"(strides [..., {d}, 1]), got strides {list(t.strides)}")
    if Q.kind != "torch":
        raise ArgumentError(f"{op}: expects torch tensors, got {Q.kind}")
    import torch
    if out is None:
        out = torch.empty((b, h, sq, d), dtype=q.dtype, device=q.device)
    O = describe(out, "out")
    if O.shape != Q.shape or O.dtype != Q.dtype or O.strides[3] != 1 or (
            sq > 1 and O.strides[2] != d):
        raise ArgumentError(f"{op}: out must be like q ({list(Q.shape)}, {Q.dtype}, contiguous "
                            f"in its last two dimensions)")
    if O.strides[:2] != Q.strides[:2]:
        out_c = torch.empty_like(q)
        result = attention(q, k, v, causal=causal, out=out_c, return_lse=return_lse,
                           chip=chip, artifacts=artifacts)
        out.copy_(out_c)
        return (out, result[1]) if return_lse else out
    lse = torch.empty((b, h, sq), dtype=torch.float32, device=q.device)
    if min(b, h, sq) == 0:
        return (out, lse) if return_lse else out
    if chip is None:
        chip, cubin_arch = device_chip(device_index)
    else:
        cubin_arch = _cubin_arch_for(chip, device_index)
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    name = attention_name(Q.dtype, d, causal)
    launcher, meta = _resolve(op, name, lambda: attention_source(Q.dtype, d, causal)[1],
                              chip, cubin_arch, directory, device_index)
    values = {"Q": Q, "K": K, "V": V, "O": O, "LSE": describe(lse, "lse"), "B": b, "H": h,
              "HK": hk, "SQ": sq, "SK": sk, "q_batch": Q.strides[0], "q_head": Q.strides[1],
              "kv_batch": K.strides[0], "kv_head": K.strides[1], "lse_batch": h * sq}
    if (V.strides[0], V.strides[1]) != (K.strides[0], K.strides[1]):
        raise ArgumentError(f"{op}: k and v must have the same strides, got "
                            f"{list(K.strides)} and {list(V.strides)}")
    described = {"Q": "q", "K": "k", "V": "v", "O": "out", "LSE": "lse",
                 "kv_batch": "k.stride(0)", "kv_head": "k.stride(1)"}
    _check_metadata(op, meta, values, described)
    args = [values[p["name"]] for p in meta["params"]]
    args = [v.ptr if isinstance(v, TensorInfo) else v for v in args]
    _launch(launcher, args, Q.kind, device_index)
    return (out, lse) if return_lse else out
