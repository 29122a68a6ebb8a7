"""``tilec.gemm`` and ``tilec.attention`` on torch / CuPy / DLPack tensors.

A call describes its tensors (:mod:`tilec.tensors`), checks them, picks the
kernel variant (dtype, B layout, epilogue), finds its cubin -- precompiled in
``artifacts=`` / ``$TILEC_ARTIFACTS``, else compiled through
``libtilec-c.so`` and the on-disk cache -- checks the values against what the
kernel's metadata requires (alignment, divisibility, TMA strides) and
launches it on the current stream through :mod:`tilec.runtime`. Resolved
kernels are memoized per process, so after the first call a launch costs
only the checks and the driver call.
"""

import os
import threading

from . import artifacts as _artifacts
from .errors import ArgumentError, DTypeError, KernelNotAvailableError, LoweringNotAvailableError
from .kernels import gemm_config_suffix, gemm_name, gemm_shape_config, gemm_source
from .tensors import ELEMENT_BYTES, TORCH_DTYPES, TensorInfo, describe, dtype_name

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


def clear_kernel_memo():
    """Forgets every resolved kernel (tests; after rebuilding artifacts)."""
    with _kernels_lock:
        _kernels.clear()


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


def _free_stride(extent, element_bytes):
    """The leading dimension to pass for a matrix with a single row, whose
    stride the kernel never follows: the row length rounded to 16 bytes."""
    return _round_up(max(extent, 1), max(1, _ROW_BYTES // max(element_bytes, 1)))


def _row_major_ld(op, info, what):
    """Leading dimension of a row-major matrix (unit stride along columns)."""
    rows, cols = info.shape
    if cols > 1 and info.strides[1] != 1:
        raise ArgumentError(
            f"{op}: {info.name} must be row-major with unit stride along its last dimension "
            f"({what}); got strides {info.strides} -- pass {info.name}.contiguous()")
    return info.strides[0] if rows > 1 else _free_stride(cols, info.element_bytes)


def _b_layout(op, info):
    """(layout, ldb) of B: ``row`` (K x N, unit column stride) or ``col``
    (unit row stride, e.g. ``w.t()`` of an N x K weight). When both fit, the
    one whose leading dimension keeps rows 16-byte aligned wins."""
    k, n = info.shape
    quantum = max(1, _ROW_BYTES // max(info.element_bytes, 1))
    candidates = []
    if n == 1 or info.strides[1] == 1:
        candidates.append(("row", info.strides[0] if k > 1 else _free_stride(n, info.element_bytes)))
    if k == 1 or info.strides[0] == 1:
        candidates.append(("col", info.strides[1] if n > 1 else _free_stride(k, info.element_bytes)))
    if not candidates:
        raise ArgumentError(f"{op}: b must have unit stride along one dimension (row- or "
                            f"column-major); got strides {info.strides} -- pass b.contiguous()")
    for layout, ld in candidates:
        if ld % quantum == 0:
            return layout, ld
    return candidates[0]


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


def _launch(launcher, args, first, device_index):
    """Launches on the current stream of the device and of the library
    ``first`` (a :class:`TensorInfo`) comes from."""
    import torch
    torch_args = [a.as_torch() if isinstance(a, TensorInfo) else a for a in args]
    stream = None
    if first.kind == "cai":
        import cupy  # CuPy arrays run on CuPy's current stream
        stream = cupy.cuda.get_current_stream().ptr
    if device_index != torch.cuda.current_device():
        with torch.cuda.device(device_index):
            launcher(*torch_args, stream=stream)
    else:
        launcher(*torch_args, stream=stream)


def _allocate(like, shape, dtype, row_quantum=1):
    """An uninitialized matrix with the library of ``like`` on its device;
    rows padded to a multiple of ``row_quantum`` elements (a view of a wider
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
        buf = torch.empty(padded, dtype=getattr(torch, TORCH_DTYPES[dtype]),
                          device=f"cuda:{like.device[1]}")
    return buf if padded == shape else buf[:, :cols]


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
    _launch(launcher, args, A, device_index)
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


def attention(q, k, v, *, causal=False, scale=None, out=None, chip=None, artifacts=None):
    """Scaled dot-product attention ``softmax(q @ k^T * scale [+ causal
    mask]) @ v`` over ``[batch, heads, seq, head_dim]`` tensors.

    Not available yet: the tile dialect has the ``tile.attention`` op, but
    the compiler cannot lower it (``tile-expand-named-ops`` expands
    ``tile.gemm`` only), so there is no kernel to run. The arguments are
    checked, then :class:`LoweringNotAvailableError` (a
    ``NotImplementedError``) is raised; nothing is computed.
    """
    op = "tilec.attention"
    Q, K, V = describe(q, "q"), describe(k, "k"), describe(v, "v")
    infos = [Q, K, V] + ([describe(out, "out")] if out is not None else [])
    _check_device(op, infos)
    for t in (Q, K, V):
        if t.ndim != 4:
            raise ArgumentError(f"{op}: {t.name} must be [batch, heads, seq, head_dim], got "
                                f"shape {list(t.shape)}")
        if t.dtype not in _GEMM_INPUT_DTYPES:
            raise DTypeError(f"{op}: {t.name} must be bf16 or f16, got {t.dtype}")
    if not Q.dtype == K.dtype == V.dtype:
        raise DTypeError(f"{op}: q, k and v must share a dtype, got {Q.dtype}, {K.dtype}, "
                         f"{V.dtype}")
    if K.shape != V.shape or Q.shape[:2] != K.shape[:2] or Q.shape[3] != K.shape[3]:
        raise ArgumentError(f"{op}: incompatible shapes q {list(Q.shape)}, k {list(K.shape)}, "
                            f"v {list(V.shape)}")
    raise LoweringNotAvailableError(
        f"{op}: tile.attention cannot be compiled yet -- the tilec compiler has no lowering "
        f"for it (tile-expand-named-ops expands tile.gemm only), so no attention kernel "
        f"exists and nothing was computed. Use "
        f"torch.nn.functional.scaled_dot_product_attention until it lands.")
