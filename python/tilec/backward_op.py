"""Attention backward through the named op ``tile.attention_backward``.

The compiler builds the kernels: one ``tile.kernel`` holding the op is split
into one kernel per stage (``tile-split-stages``) and each stage
is expanded with the chip's tiles (``tile-expand-named-ops``), into the
block programs that ``scripts/common/backward_kernels.py`` writes as text (the
reference the expansion is checked against). This module writes that kernel
and fills its parameters by name.

Every stage kernel takes the same parameters (:data:`PARAMS`, the
accumulator's and the expanded views' only in the modes that have them), so
:func:`launch_args` builds one argument dict and orders it per kernel from
the kernel's metadata.

* ``deterministic``: stages ``pre``, ``dq``, ``dkdv``;
* ``atomic`` (``deterministic=False``): ``pre_zero_dq``, ``dkdv_dq``,
  ``dq_scale``, with the f32 dQ accumulator ``DQA``;
* ``expanded`` (grouped-query K/V): dK and dV get K's heads; the dK/dV stage
  writes one gradient per query head into ``dKH`` / ``dVH`` and a last
  stage, ``dkdv_sum``, sums each group's.

Tensors are contiguous in their last two dimensions (rows of head_dim
elements). Head dims 64, 128 and 256 (the atomic mode: 64 and 128; the
text programs of ``scripts/common/backward_kernels.py``: 64 and 128).
"""

#: Element types the op takes (those of the text programs too).
DTYPES = ("bf16", "f16")
#: Head dims the op takes (the atomic mode: 64 and 128).
HEAD_DIMS = (64, 128, 256)
ATOMIC_HEAD_DIMS = (64, 128)


def check(dtype, head_dim, atomic=False):
    """Raises ValueError for a dtype, head dim or mode the op does not take."""
    dims = ATOMIC_HEAD_DIMS if atomic else HEAD_DIMS
    if dtype not in DTYPES or head_dim not in dims:
        mode = "the atomic mode of " if atomic else ""
        raise ValueError(f"{mode}tile.attention_backward takes "
                         f"{'/'.join(DTYPES)} at head dims "
                         f"{'/'.join(map(str, dims))}, not {dtype} at {head_dim}")

#: Parameters of every stage kernel, in order (without the optional ones).
_POINTERS = (("Q", "T"), ("K", "T"), ("V", "T"), ("O", "T"), ("dO", "T"), ("LSE", "f32"),
             ("dQ", "T"), ("dK", "T"), ("dV", "T"), ("L2", "f32"), ("DELTA", "f32"))
_SIZES = ("B", "H", "HK", "SQ", "SK")
#: (view, pointer, heads, seq) of the [batch, heads, seq, head_dim] views;
#: each has the strides <view>_batch and <view>_head.
_VIEWS = (("q", "Q", "H", "SQ"), ("k", "K", "HK", "SK"), ("v", "V", "HK", "SK"),
          ("o", "O", "H", "SQ"), ("do", "dO", "H", "SQ"), ("dq", "dQ", "H", "SQ"))


def stages(atomic=False, expanded=False):
    """The stages in launch order."""
    names = ["pre_zero_dq", "dkdv_dq", "dq_scale"] if atomic else ["pre", "dq", "dkdv"]
    return names + (["dkdv_sum"] if expanded else [])


def name(dtype="bf16", head_dim=128, causal=False, atomic=False, expanded=False):
    """The kernel holding the op (its stage kernels are ``<name>_<stage>``)."""
    return (f"attention_bwd_op_{dtype}_d{head_dim}" + ("_causal" if causal else "")
            + ("_atomic" if atomic else "") + ("_gqa" if expanded else ""))


def stage_names(dtype="bf16", head_dim=128, causal=False, atomic=False, expanded=False):
    base = name(dtype, head_dim, causal, atomic, expanded)
    return [f"{base}_{s}" for s in stages(atomic, expanded)]


def source(dtype="bf16", head_dim=128, causal=False, atomic=False, expanded=False):
    """``(name, source)``: a kernel holding tile.attention_backward."""
    check(dtype, head_dim, atomic)
    t, d = dtype, head_dim
    ptrs = list(_POINTERS) + ([("DQA", "f32")] if atomic else []) + (
        [("dKH", "T"), ("dVH", "T")] if expanded else [])
    dk_heads = "HK" if expanded else "H"
    views = list(_VIEWS) + [("dk", "dK", dk_heads, "SK"), ("dv", "dV", dk_heads, "SK")]
    if expanded:
        views += [("dkh", "dKH", "H", "SK"), ("dvh", "dVH", "H", "SK")]
    strides = [f"{v}_{s}" for v, *_ in views for s in ("batch", "head")]
    strides += ["lse_batch", "lse_head", "rows_batch"] + (["dqa_batch", "dqa_head"]
                                                          if atomic else [])
    align = "{tile.align = 16 : i64}"
    params = ([f"%{p}: !tile.ptr<{t if pt == 'T' else pt}> {align}" for p, pt in ptrs]
              + [f"%{s}: i32" for s in _SIZES] + [f"%{s}: i32" for s in strides]
              + ["%scale: f32"])
    kname = name(dtype, head_dim, causal, atomic, expanded)
    v4 = f"!tile.view<?x?x?x{d}x{t}, strides = [?, ?, {d}, 1]>"
    r3 = "!tile.view<?x?x?xf32, strides = [?, ?, 1]>"
    a4 = f"!tile.view<?x?x?x{d}xf32, strides = [?, ?, {d}, 1]>"
    lines = [f"tile.kernel @{kname}(" + ",\n    ".join(params) + ") {"]
    for v, ptr, heads, seq in views:
        lines.append(f"  %{v} = tile.make_view %{ptr}[%B, %{heads}, %{seq}, {d}] strides "
                     f"[%{v}_batch, %{v}_head, {d}, 1] : !tile.ptr<{t}>")
    lines.append("  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %lse_head, 1] "
                 ": !tile.ptr<f32>")
    for v, ptr in (("l2", "L2"), ("dl", "DELTA")):
        lines.append(f"  %{v} = tile.make_view %{ptr}[%B, %H, %SQ] strides [%rows_batch, %SQ, 1] "
                     ": !tile.ptr<f32>")
    scratch = "%l2, %dl"
    if atomic:
        lines.append(f"  %dqa = tile.make_view %DQA[%B, %H, %SQ, {d}] strides "
                     f"[%dqa_batch, %dqa_head, {d}, 1] : !tile.ptr<f32>")
        scratch += f", %dqa : {a4}"
    extra = f" expanded(%dkh, %dvh : {v4}, {v4})" if expanded else ""
    mode = (" causal" if causal else "") + (" atomic" if atomic else "")
    types = ", ".join([v4] * 5 + [r3] + [v4] * 3 + [r3, r3])
    lines += ["  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv)",
              f"      scratch({scratch}){extra} scale(%scale){mode}",
              f"      : {types}", "  tile.return", "}", ""]
    return kname, "\n".join(lines)


def launch_values(q, k, v, out, grad_out, lse, l2, delta, dq, dk, dv, scale, dqa=None,
                  dkh=None, dvh=None):
    """Every parameter's value by name, from tensors with ``shape`` and
    ``stride()`` (torch's): ``l2`` / ``delta`` contiguous f32 ``[B, H, SQ]``,
    ``dqa`` the atomic mode's contiguous f32 ``[B, H, SQ, D]`` accumulator,
    ``dkh`` / ``dvh`` the expanded mode's ``[B, H, SK, D]`` gradients (then
    ``dk`` / ``dv`` have K's heads)."""
    b, h, sq, _ = q.shape
    hk, sk = k.shape[1], k.shape[2]
    values = dict(Q=q, K=k, V=v, O=out, dO=grad_out, LSE=lse, dQ=dq, dK=dk, dV=dv, L2=l2,
                  DELTA=delta, B=b, H=h, HK=hk, SQ=sq, SK=sk, scale=float(scale),
                  lse_batch=lse.stride()[0], lse_head=lse.stride()[1],
                  rows_batch=l2.stride()[0])
    for key, t in (("q", q), ("k", k), ("v", v), ("o", out), ("do", grad_out), ("dq", dq),
                   ("dk", dk), ("dv", dv), ("dqa", dqa), ("dkh", dkh), ("dvh", dvh)):
        if t is not None:
            values[f"{key}_batch"], values[f"{key}_head"] = t.stride()[:2]
    if dqa is not None:
        values["DQA"] = dqa
    if dkh is not None:
        values["dKH"], values["dVH"] = dkh, dvh
    return values


def launch_args(params, values):
    """The positional arguments of a kernel whose metadata lists ``params``
    (``[{"name": ...}, ...]``), from :func:`launch_values`."""
    missing = [p["name"] for p in params if p["name"] not in values]
    if missing:
        raise KeyError(f"no value for the kernel parameters {missing}")
    return tuple(values[p["name"]] for p in params)
