"""``tilec.bmm`` and ``tilec.grouped_gemm``: GEMMs over a stack of matrices
in one launch (a batch of them; the groups of an MoE layer, their row
ranges given by offsets read on the device). Both take the GEMM kernels'
batched / grouped variants (:mod:`tilec.op_gemm` finds them) and the shape
class of their rows stacked, and keep plans as ``tilec.gemm`` does.
"""

from .checks import (_batched_b_layout, _batched_row_major, _check_activation, _check_bias,
                     _check_device, _check_k_major, _check_metadata, _gemm_out_dtype,
                     _needs_unaligned_variant, _row_major_ld)
from .errors import ArgumentError, DTypeError, KernelNotAvailableError
from .kernels import gemm_shape_config, grouped_gemm_shape_config
from .launch import _allocate, _allocator, _current_cupy_stream, _launch_checked
from .op_gemm import _UNALIGNED, _allocate_out, _gemm_kernel, default_precision
from .plans import _default_directory, _tls
from .targets import _chip_and_arch, _device_num_sms
from .tensors import describe


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
