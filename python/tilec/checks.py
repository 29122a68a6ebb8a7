"""Argument checks the ops share: one device, matrix layouts and leading
dimensions, the GEMM family's dtypes and epilogue, and the launch values
against what a kernel's metadata requires (alignment, divisibility, TMA
strides). Each raises :class:`ArgumentError` / :class:`DTypeError` with a
message that names the argument and how to fix it.
"""

import re

from .errors import ArgumentError, DTypeError, GridRuleError
from .kernels import FP8_DTYPES, default_out_dtype
from .runtime import evaluate_grid
from .tensors import ELEMENT_BYTES, dtype_name


_GEMM_INPUT_DTYPES = ("bf16", "f16", "f32", "i8") + FP8_DTYPES
_GEMM_OUTPUT_DTYPES = ("bf16", "f16", "f32")
_ACTIVATIONS = (None, "relu", "gelu", "silu")
_ROW_BYTES = 16  # cp.async / TMA move 16-byte chunks: row strides are multiples


_VIEW_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VIEW_FUNCTIONS = ("ceildiv", "floordiv", "mod")


def view_params(value):
    """The parameter names a tensor-map size or stride of <kernel>.json
    reads (an integer, a name, or an expression in the grid rule's syntax)."""
    if isinstance(value, int):
        return ()
    return tuple(dict.fromkeys(n for n in _VIEW_NAME.findall(value)
                               if n not in _VIEW_FUNCTIONS))


def view_value(value, values):
    """A tensor-map size or stride for the parameter values ``values`` (a
    mapping), evaluated by the runtime; :class:`GridRuleError` for a
    division by zero or a value outside the kernel's 32-bit [0, 2^31) (the
    runtime checks every intermediate value again at launch)."""
    if isinstance(value, int):
        return value
    (result, _, _) = evaluate_grid([value], {n: values[n] for n in view_params(value)})
    if not 0 <= result < 2**31:
        raise GridRuleError(f"computes {result}, outside [0, 2^31)")
    return result


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
