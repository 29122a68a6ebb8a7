"""``tilec.gemm``'s kernels called directly: the plan of a call's metadata
when there is one (:mod:`tilec.plans`), else the checked path
(:func:`_gemm_checked`), which checks the operands, picks the kernel
variant (dtypes, B layout, epilogue, scales, precision) and the shape
class (split-K included), finds its kernels and launches them. The public
``tilec.gemm`` (:mod:`tilec.api`) routes here, or through the torch
operator when autograd or torch.compile needs it.
"""

import math

from . import artifacts as _artifacts
from .checks import (_b_layout, _check_activation, _check_bias, _check_device, _check_k_major,
                     _check_metadata, _gemm_out_dtype, _metadata_problem,
                     _needs_unaligned_variant, _round_up, _row_major_ld)
from .errors import ArgumentError, DTypeError, KernelNotAvailableError
from .kernels import (FP8_DTYPES, PRECISIONS, gemm_config_suffix, gemm_dispatch_config,
                      gemm_unaligned_config,
                      gemm_name, gemm_source, gemm_stage_names, GEMM_SCALE_BLOCK as _SCALE_BLOCK)
from .launch import _allocate, _allocator, _launch_checked, _launch_stages
from .plans import _default_directory, _resolve, _tls
from .targets import _chip_and_arch, _device_num_sms
from .tensors import describe


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


class _GemmCall:
    """A tilec.gemm call on its way through the checks: what each step of
    :func:`_gemm_checked` derives from the arguments (TensorInfos of the
    operands, sizes, leading dimensions, scales, alpha with the scale
    factors folded in), for the steps after it."""

    __slots__ = ("A", "B", "O", "BIAS", "SA", "SB", "block", "device_index", "out_dtype",
                 "precision", "alpha", "beta", "activation", "m", "n", "k", "lda", "ldb",
                 "b_layout", "ldsa", "ldsb")


def _gemm_checked(a, b, out, bias, alpha, beta, activation, out_dtype, chip, artifacts, config,
                  key=None, precision=None, scale_a=None, scale_b=None):
    """tilec.gemm with every check spelled out (and its error messages);
    stores a plan under ``key`` when one is given."""
    op = "tilec.gemm"
    call = _check_gemm_operands(op, a, b, out, bias, alpha, beta, activation, out_dtype,
                                precision, scale_a, scale_b)
    _check_gemm_scales(op, call, scale_a, scale_b)
    if call.O is not None:
        _row_major_ld(op, call.O, "N")
    if min(call.m, call.n) == 0:  # nothing to compute or store
        return out if call.O is not None else _allocate(call.A, (call.m, call.n), call.out_dtype)

    chip, cubin_arch = _chip_and_arch(chip, call.device_index)
    _check_split_k(op, config, call.A.dtype == "i8", call.block is not None)
    stages, config = _gemm_dispatched_stages(op, call, config, chip, cubin_arch, artifacts)
    return _launch_gemm(op, call, stages, config, out, key)


def _check_gemm_operands(op, a, b, out, bias, alpha, beta, activation, out_dtype, precision,
                         scale_a, scale_b):
    """The :class:`_GemmCall` of tilec.gemm's operands after checking their
    devices, dtypes (and f32's precision), shapes, epilogue and layouts."""
    call = _GemmCall()
    call.A, call.B = A, B = describe(a, "a"), describe(b, "b")
    call.O = O = describe(out, "out") if out is not None else None
    call.BIAS = BIAS = describe(bias, "bias") if bias is not None else None
    call.device_index = _check_device(op, [A, B] + [t for t in (O, BIAS) if t is not None])
    int8 = A.dtype == "i8"
    call.out_dtype = out_dtype = _gemm_out_dtype(op, A, B, O, out_dtype)
    if A.dtype == "f32":
        precision = precision or default_precision()
        if precision not in PRECISIONS:
            raise ArgumentError(f"{op}: precision must be 'tf32', 'tf32x3' or 'ieee', not "
                                f"{precision!r}")
    elif precision is not None:
        raise ArgumentError(f"{op}: precision is for f32 inputs; {A.dtype} inputs multiply "
                            f"exactly")
    call.precision = precision
    if int8 and any(x is not None for x in (alpha, beta, bias, activation, scale_a, scale_b)):
        raise ArgumentError(f"{op}: int8 inputs take no alpha, beta, bias, activation or "
                            f"scales: the int32 sums are returned as they are (as "
                            f"torch._int_mm)")
    if A.ndim != 2 or B.ndim != 2:
        raise ArgumentError(f"{op}: a and b must be 2-D, got shapes {list(A.shape)} and "
                            f"{list(B.shape)}")
    m, k = A.shape
    k2, n = B.shape
    call.m, call.n, call.k = m, n, k
    if k != k2:
        raise ArgumentError(f"{op}: inner dimensions differ: a is {m}x{k}, b is {k2}x{n}")
    _check_activation(op, activation)
    if beta is not None and O is None:
        raise ArgumentError(f"{op}: beta scales the existing out, so out= is required with beta")
    if O is not None and O.shape != (m, n):
        raise ArgumentError(f"{op}: out must be {m}x{n}, got {list(O.shape)}")
    _check_bias(op, BIAS, n, out_dtype)
    call.alpha, call.beta, call.activation = alpha, beta, activation
    call.lda = _row_major_ld(op, A, "K")
    call.b_layout, call.ldb = _b_layout(op, B)
    _check_k_major(op, A, B, call.b_layout,
                   "w.t() of an N x K weight, as torch._scaled_mm takes it")
    return call


def _check_gemm_scales(op, call, scale_a, scale_b):
    """Checks ``scale_a`` / ``scale_b`` and sets the call's scale operands:
    block scales (``block``: their leading dimensions), or row / column
    vectors, whose number factors fold into alpha."""
    A = call.A
    call.block = _block_scales(op, scale_a, scale_b, A.dtype in FP8_DTYPES, call.m, call.n,
                               call.k)
    if call.block is not None:
        call.SA, call.SB, call.ldsa, call.ldsb = call.block
        fa = fb = 1.0
    else:
        call.SA, fa = _scale_vector(op, scale_a, "scale_a", call.m, other_axis=1)
        call.SB, fb = _scale_vector(op, scale_b, "scale_b", call.n, other_axis=0)
    if fa != 1.0 or fb != 1.0:
        call.alpha = (1.0 if call.alpha is None else float(call.alpha)) * fa * fb


def _gemm_variant(call):
    """The keyword arguments of :func:`gemm_source` for the call's kernel."""
    A, B = call.A, call.B
    return dict(dtype=A.dtype, out_dtype=call.out_dtype, b_layout=call.b_layout,
                bias=call.BIAS is not None, activation=call.activation,
                alpha=call.alpha is not None, beta=call.beta is not None,
                precision=call.precision if A.dtype == "f32" else None,
                b_dtype=B.dtype if B.dtype != A.dtype else None,
                scale_a=call.SA is not None, scale_b=call.SB is not None,
                block_scales=call.block is not None)


def _gemm_dispatched_stages(op, call, config, chip, cubin_arch, artifacts):
    """(stages, config) of the call's kernels: ``config``'s, or without one
    the per-shape-class dispatch's (the variant for any strides where the
    operands or a given out need it)."""
    A, O, m, n = call.A, call.O, call.m, call.n
    variant = _gemm_variant(call)
    dispatched = config is None
    if dispatched:  # the per-shape-class dispatch
        # (Decode shapes run transposed where the operands allow it, and
        # split K where the tiles leave SMs idle: 16-bit inputs, no scales.)
        config = gemm_dispatch_config(m, n, call.k, chip, _device_num_sms(call.device_index),
                                      dtype=A.dtype, b_layout=call.b_layout,
                                      scales=call.SA is not None or call.SB is not None,
                                      block_scales=call.block is not None)
        # Operands the fast path cannot read (bases not 16-byte aligned, rows
        # not whole 16-byte chunks): the variant that takes any strides (one
        # per kernel variant: the shape classes tune the fast path).
        if _needs_unaligned_variant([(A, call.lda), (call.B, call.ldb)]):
            config = gemm_unaligned_config(m, n, call.k, chip,
                                           _device_num_sms(call.device_index), dtype=A.dtype,
                                           scales=call.SA is not None or call.SB is not None,
                                           block_scales=call.block is not None)
    stages, config = _gemm_class_stages(op, variant, config, dispatched, chip, cubin_arch,
                                        artifacts, call.device_index)
    # A caller's out the class's kernel cannot store to (what its metadata
    # requires: the TMA-store epilogue's 16-byte base, rows and N; the
    # threads' stores take any out) takes the variant for any strides too.
    if dispatched and O is not None and (config or {}).get("aligned", 1):
        stored = {"C": O, "ldc": _row_major_ld(op, O, "N"), "N": n}
        if any(_metadata_problem(op, meta, stored, {}, dtypes=False) for _, meta in stages):
            config = dict(_UNALIGNED)
            stages = _gemm_stages(op, variant, config, chip, cubin_arch, artifacts,
                                  call.device_index)
    return stages, config


def _launch_gemm(op, call, stages, config, out, key):
    """Allocates out (when not given) and the split-K workspace, checks the
    launch values against every stage's metadata and launches the stages;
    returns out."""
    A, O, m, n, k = call.A, call.O, call.m, call.n, call.k
    allocate = None
    if O is None:
        out, O, allocate = _allocate_out(A, (m, n), call.out_dtype, stages[-1][1],
                                         key is not None)
    ldc = _row_major_ld(op, O, "N")
    values = {"A": A, "B": call.B, "C": O, "M": m, "N": n, "K": k, "lda": call.lda,
              "ldb": call.ldb, "ldc": ldc}
    workspace = _split_k_workspace(op, A, config, m, n)
    if workspace is not None:
        buffer, allocate_workspace, ldw = workspace
        values.update(W=describe(buffer, "the split-K workspace"), ldw=ldw, sw=m * ldw)
        workspace = (buffer, allocate_workspace)
    values.update(_gemm_epilogue_values(call))
    described = {"A": "a", "B": "b", "C": "out", "bias": "bias", "SA": "scale_a",
                 "SB": "scale_b",
                 "lda": "the row stride of a (a.stride(0))",
                 "ldb": f"the leading dimension of b "
                        f"(b.stride({0 if call.b_layout == 'row' else 1}))",
                 "ldc": "the row stride of out (out.stride(0))"}
    for launcher, meta in stages:
        _check_metadata(op, meta, values, described)
    if workspace is not None:
        _launch_stages(key, stages, values, A.kind, call.device_index, _GEMM_DYNAMIC, allocate,
                       workspace)
    else:
        _launch_checked(key, *stages[0], values, A.kind, call.device_index, _GEMM_DYNAMIC,
                        allocate=allocate)
    return out


def _gemm_epilogue_values(call):
    """The launch values of the call's bias, alpha, beta and scales (those
    it has)."""
    values = {}
    if call.BIAS is not None:
        values["bias"] = call.BIAS
    if call.alpha is not None:
        values["alpha"] = float(call.alpha)
    if call.beta is not None:
        values["beta"] = float(call.beta)
    if call.SA is not None:
        values["SA"] = call.SA
    if call.SB is not None:
        values["SB"] = call.SB
    if call.block is not None:
        values.update(KB=-(-call.k // _SCALE_BLOCK), NB=-(-call.n // _SCALE_BLOCK),
                      ldsa=call.ldsa, ldsb=call.ldsb)
    return values


def _allocate_out(A, shape, out_dtype, meta, for_plan):
    """(out, its TensorInfo, its allocator for a plan or ``None``): an
    [M, N] out whose rows are padded as the kernel's ``ldc`` requires."""
    ldc_param = next((p for p in meta["params"] if p["name"] == "ldc"), {})
    allocate = _allocator(A, shape, out_dtype, row_quantum=ldc_param.get("divisibility", 1))
    out = allocate()
    return out, describe(out, "out"), allocate if for_plan else None


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


#: The config of tilec.gemm's variant for operands of any alignment.
_UNALIGNED = {"aligned": 0}


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


def _gemm_class_stages(op, variant, config, dispatched, chip, cubin_arch, artifacts,
                       device_index):
    """(stages, config) of :func:`_gemm_stages` for ``config``; where the
    dispatch chose a shape class that is not available (artifacts built
    without it and no compiler), the class without split-K, else the
    default kernel, which compute the same (a class is only faster); for a
    class of the any-strides variant, that variant's default."""
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
    default = None if config.get("aligned", 1) else dict(_UNALIGNED)
    return (_gemm_stages(op, variant, default, chip, cubin_arch, artifacts, device_index),
            default)
