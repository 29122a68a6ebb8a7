"""``tilec.attention``'s kernels called directly (FlashAttention-2's
forward; FP8 inputs with descales, FlashAttention-3's recipe): the plan of
a call's metadata when there is one (:mod:`tilec.plans`), else the checked
path (:func:`_attention_checked`, :func:`_attention_fp8_checked`). The
public ``tilec.attention`` (:mod:`tilec.api`) routes here, or through the
torch operator when autograd or torch.compile needs it.
"""

import math
import struct

from . import artifacts as _artifacts
from .checks import _check_device, _check_metadata
from .errors import ArgumentError, DTypeError, KernelNotAvailableError
from .kernels import (FP8_DTYPES, attention_name, attention_shape_config, attention_source,
                      gemm_config_suffix)
from .launch import _allocate, _allocator, _launch_checked
from .plans import _default_directory, _resolve, _tls
from .targets import _chip_and_arch
from .tensors import describe


_ATTENTION_DTYPES = ("bf16", "f16")

#: What may change between tilec.attention calls that share a plan.
_ATTENTION_DYNAMIC = ("Q", "K", "V", "O", "LSE")


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


def _attention_checked(q, k, v, causal, out, return_lse, chip, artifacts, key=None, scale=None,
                       mods=None, op="tilec.attention"):
    """tilec.attention with every check spelled out (and its error
    messages); stores a plan under ``key`` when one is given. ``mods``: the
    (score_mod, mask_mod) region texts of tilec.flex_attention."""
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
        return _attention_contiguous(Q, k, v, causal, O, return_lse, chip, artifacts, scale,
                                     mods, op)

    allocated = out is None
    out, O, lse = _attention_outputs(Q, out, O, (b, h, sq, d), Q.dtype)
    if min(b, h, sq) == 0:
        return (out, lse) if return_lse else out
    chip, cubin_arch = _chip_and_arch(chip, device_index)
    directory = artifacts if artifacts is not None else _artifacts.default_directory()
    config = attention_shape_config(sq, d, causal, chip)  # the per-shape-class dispatch
    if scale == _attention_scale(op, 1.0 / math.sqrt(d)):
        scale = None  # the default: the kernels without a scale
    default = attention_name(Q.dtype, d, causal, scale=scale, mods=mods)
    name = default + gemm_config_suffix(config)
    try:
        launcher, meta = _resolve(op, name,
                                  lambda: attention_source(Q.dtype, d, causal, config=config,
                                                           name=name, scale=scale,
                                                           mods=mods)[1],
                                  chip, cubin_arch, directory, device_index)
    except KernelNotAvailableError:
        if name == default:
            raise
        # The variant is only faster: without it (artifacts built before it
        # and no compiler), the default kernel computes the same.
        launcher, meta = _resolve(op, default,
                                  lambda: attention_source(Q.dtype, d, causal, scale=scale,
                                                           mods=mods)[1],
                                  chip, cubin_arch, directory, device_index)
    values = {"Q": Q, "K": K, "V": V, "O": O, "LSE": describe(lse, "lse"), "B": b, "H": h,
              "HK": hk, "SQ": sq, "SK": sk, "q_batch": Q.strides[0], "q_head": Q.strides[1],
              "kv_batch": K.strides[0], "kv_head": K.strides[1], "lse_batch": h * sq}
    described = {"Q": "q", "K": "k", "V": "v", "O": "out", "LSE": "lse",
                 "kv_batch": "k.stride(0)", "kv_head": "k.stride(1)"}
    values.update(_table_values(op, mods, device_index))
    values.update(_block_list_values(op, mods, b, h, sq))
    _check_metadata(op, meta, values, described)
    _launch_checked(key, launcher, meta, values, Q.kind, device_index,
                    _ATTENTION_DYNAMIC + tuple(_mods_tensors(mods)),
                    **_attention_allocators(key, Q, (b, h, sq, d), Q.dtype, allocated))
    return (out, lse) if return_lse else out


def _table_tensors(mods):
    """{launch parameter: tensor} of the tables a flex call's regions read
    (the captured tensors of a traced score_mod / mask_mod, ``TS<i>`` /
    ``TM<i>``, as kernels.mods_tables names them)."""
    tensors = {}
    for region, base in zip(tuple(mods or ())[:2], ("TS", "TM")):
        for i, tensor in enumerate(getattr(region, "tables", ())):
            tensors[f"{base}{i}"] = tensor
    return tensors


def _mods_tensors(mods):
    """{launch parameter: tensor} of the tensors a flex call's regions
    read: the tables (:func:`_table_tensors`) and the block list (``KVN``,
    ``KVI``, ``KVF``). Their pointers may change between calls sharing a
    plan."""
    tensors = _table_tensors(mods)
    if mods and len(mods) > 2 and mods[2]:
        tensors.update(KVN=mods[2].num, KVI=mods[2].indices, KVF=mods[2].full)
    return tensors


def _attention_mods(q, k, v, causal, return_lse, chip, artifacts, scale, mods, op):
    """A tilec.flex_attention call: the plan of its metadata (the tensors',
    the regions' texts, and the shapes and strides of the tensors they
    read) when there is one, else the checked path, which makes it."""
    try:  # torch tensors: the plan of this call's metadata (module doc)
        tensors = _mods_tensors(mods)
        # The texts as plain strings: a trace keeps its captured tensors,
        # which the plan cache must not hold on to.
        texts = tuple(None if m is None else str(m) for m in mods or ())
        extra = (scale, texts, tuple((t.shape, t.stride(), t.dtype, t.device)
                                     for t in tensors.values()))
        key = _attention_plan_key("flex", q, k, v, None, causal, return_lse, chip, artifacts,
                                  extra)
        plan = _tls.plans.get(key)
    except Exception:  # noqa: BLE001 - not torch-style tensors: the checked path
        key = plan = None
    if plan is not None:
        result = _launch_attention_plan(plan, q, k, v, None, return_lse,
                                        tuple(t.data_ptr() for t in tensors.values()))
        if result is not None:
            return result
    return _attention_checked(q, k, v, causal, None, return_lse, chip, artifacts, key,
                              scale=scale, mods=mods, op=op)


def _table_values(op, mods, device_index):
    """The launch values of the tables the regions read (the captured
    tensors of a traced score_mod / mask_mod, :mod:`tilec.mods`): per
    table its pointer, sizes and strides (kernels.mods_tables names them)."""
    values = {}
    for name, tensor in _table_tensors(mods).items():
        base = name.lower()
        T = describe(tensor, f"the score_mod's / mask_mod's captured tensor {name[2:]}")
        if _check_device(op, [T]) != device_index:
            raise ArgumentError(f"{op}: a captured tensor of the score_mod / mask_mod is on "
                                f"cuda:{T.device[1]}, the query on cuda:{device_index}")
        values[name] = T
        for d, (n, stride) in enumerate(zip(T.shape, T.strides)):
            values.update({f"{base}_n{d}": n, f"{base}_s{d}": stride})
    return values


def _block_list_values(op, mods, b, h, sq):
    """The launch values of a block list (mods[2], :class:`tilec.flex.BlockList`):
    its views, with stride 0 along a batch or head dimension of 1."""
    if not mods or len(mods) < 3 or not mods[2]:
        return {}
    N, I = describe(mods[2].num, "the block mask's kv_num_blocks"), \
        describe(mods[2].indices, "the block mask's kv_indices")
    F = describe(mods[2].full, "the block mask's full_kv_num_blocks")
    if N.shape[0] not in (1, b) or N.shape[1] not in (1, h) or N.shape[2] * 128 < sq or \
            I.shape[:3] != N.shape or F.shape != N.shape or F.strides != N.strides:
        raise ArgumentError(f"{op}: the block mask's lists ({list(N.shape)}, {list(I.shape)}) "
                            f"do not cover B={b}, H={h} and {sq} queries in blocks of 128")
    return {"KVN": N, "KVI": I, "KVF": F, "QB": N.shape[2], "NB": I.shape[3],
            "kvn_b": N.strides[0] if N.shape[0] > 1 else 0,
            "kvn_h": N.strides[1] if N.shape[1] > 1 else 0,
            "kvi_b": I.strides[0] if I.shape[0] > 1 else 0,
            "kvi_h": I.strides[1] if I.shape[1] > 1 else 0, "kvi_q": I.strides[2]}


def _attention_contiguous(Q, k, v, causal, O, return_lse, chip, artifacts, scale=None, mods=None,
                          op="tilec.attention"):
    """tilec.attention through contiguous q and out: copies q when it is
    not contiguous, and out (after the kernel) when it is not."""
    if Q.kind == "cai":
        import cupy
        q = Q.obj if _is_contiguous(Q) else cupy.ascontiguousarray(Q.obj)
    else:
        q = Q.obj if _is_contiguous(Q) else Q.as_torch().contiguous()
    if O is not None and _is_contiguous(O):
        return _attention_checked(q, k, v, causal, O.obj, return_lse, chip, artifacts,
                                  scale=scale, mods=mods, op=op)
    result = _attention_checked(q, k, v, causal, None, return_lse, chip, artifacts,
                                scale=scale, mods=mods, op=op)
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
