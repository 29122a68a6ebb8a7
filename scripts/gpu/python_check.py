#!/usr/bin/env python3
"""GPU check of the Python package on a machine WITHOUT the compiler.

Loads the GEMM and attention kernels precompiled by
python3 -m scripts.build.build_python_artifacts (artifacts directory, no libtilec-c.so:
any attempt to compile fails the check), then:

  * runs tilec.gemm on odd shapes (rows padded to 16 bytes, as the kernels
    require) for every precompiled variant and chip, NaN-poisoned outputs,
    and compares with torch.matmul and a float32 reference with the same
    epilogue; tilec.attention (bf16 and f16, head dims 64/128, causal or
    not, GQA, Sq != Sk) against a float32 reference and torch's SDPA;
  * checks that bad arguments raise before launching (CPU tensor,
    mismatched K, attention head dim 96, CuPy attention in f32 or not
    contiguous), and that a misaligned view or an unpadded odd leading
    dimension runs (tilec.gemm's any-strides variant) and is correct;
  * runs GEMM and attention through DLPack-only objects and CuPy arrays (f16,
    on a non-default CuPy stream, with CuPy outputs and lse), and attention
    on views (q a head slice, out with other strides) that take the copying
    path;
  * measures host time per call while the GPU is held busy by
    torch.cuda._sleep (so only enqueueing is timed): a raw launch (one
    ctypes call of the runtime's tilecRtLaunchRun, prepared once),
    tilec.gemm / tilec.attention (with out=, and allocating), the
    runtime's Kernel.__call__ and torch.matmul, and reports the host
    overhead over the raw launch in us (median and min of the per-round
    differences, the timings interleaved round by round) against the 10 us
    target (``target_us``, ``meets_target``). The raw launch and the op
    launch the same kernel object on the same grid; the op's launch values are checked against the
    raw launch's before timing, and the results of both after.

Writes one JSON file (default $OUT/python_check.json) and exits non-zero if
any case fails.

    python3 -m scripts.gpu.python_check --artifacts .gpu/python [--out FILE] [--commit SHA]
"""

import argparse
import json
import os
import statistics
import sys
import time

from scripts import ROOT
# No compiler on the GPU machine: make sure none is picked up by accident.
os.environ["TILEC_LIBRARY"] = os.path.join(ROOT, "no-compiler-on-this-machine", "libtilec-c.so")

import torch  # noqa: E402

import tilec  # noqa: E402
from scripts.harness import references as refs  # noqa: E402
from scripts.harness.records import new_record, write_record  # noqa: E402
from tilec import _rtcapi, launch, ops  # noqa: E402

#: (M, N, K): odd sizes, a single row, a single column, a K tail; with a
#: column-major bf16/f16 b on sm_90a the first three and (33, 1000, 777)
#: run transposed (the shape rule's decode classes).
SHAPES = [(127, 255, 61), (257, 129, 199), (1, 513, 1001), (1000, 1, 24), (333, 777, 4096),
          (2048, 2048, 2048), (33, 1000, 777)]

TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32,
                "f8e4m3": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2,
                "i8": torch.int8, "i32": torch.int32}


def padded(rows, cols, dtype, quantum=8, fill=None):
    """A rows x cols matrix (random, or ``fill``) whose rows start on 16-byte
    boundaries: a view of a rows x round_up(cols, 8) buffer, the layout the
    kernels require of every operand (TMA, cp.async)."""
    ld = (cols + quantum - 1) // quantum * quantum
    if fill is None:
        buf = torch.randn(rows, ld, device="cuda", dtype=torch.float32).to(dtype)
    else:
        buf = torch.full((rows, ld), fill, device="cuda", dtype=dtype)
    return buf[:, :cols]


def reference(a, b, variant, bias, alpha, beta, c0, scale_a=None, scale_b=None):
    """The variant's epilogue on a float32 product (scripts/harness)."""
    if variant.get("block_scales"):
        acc = refs.block_scaled_gemm(a, b, scale_a, scale_b)
    else:
        acc = refs.gemm(a, b, scale_a=scale_a, scale_b=scale_b)
    return refs.epilogue(acc, alpha=alpha if variant.get("alpha") else None,
                         beta=beta if variant.get("beta") else None, c=c0, bias=bias,
                         act=variant.get("activation"))


#: (batch, heads, kv heads, seq_q, seq_k) for tilec.attention: on sm_90a the
#: causal ones up to 2048 queries take the persistent kernel (the shape-class
#: dispatch), (4, 16, 4, 1000, 1000) with more pairs of query blocks than SMs,
#: and the last one the default kernel.
ATTENTION_SHAPES = [(2, 4, 2, 113, 113), (1, 2, 2, 255, 1000), (1, 4, 1, 1000, 257),
                    (4, 16, 4, 1000, 1000), (1, 2, 1, 2100, 2300)]


def run_attention_case(chip, variant, shape, artifacts):
    """tilec.attention against a float32 reference (bottom-right causal mask)
    beside torch's bf16 SDPA; also the returned lse."""
    import math
    b, h, hk, sq, sk = shape
    d, causal = variant["head_dim"], variant["causal"]
    dtype = TORCH_DTYPES[variant.get("dtype", "bf16")]
    torch.manual_seed(sq + sk)
    q = torch.randn(b, h, sq, d, device="cuda").to(dtype)
    k = torch.randn(b, hk, sk, d, device="cuda").to(dtype)
    v = torch.randn(b, hk, sk, d, device="cuda").to(dtype)
    out, lse = tilec.attention(q, k, v, causal=causal, return_lse=True, chip=chip,
                               artifacts=artifacts)
    kf = k.float().repeat_interleave(h // hk, dim=1)
    vf = v.float().repeat_interleave(h // hk, dim=1)
    s = q.float() @ kf.transpose(-1, -2) / math.sqrt(d)
    mask = None
    if causal:
        i = torch.arange(sq, device="cuda")[:, None]
        j = torch.arange(sk, device="cuda")[None, :]
        mask = j <= i + (sk - sq)
        s = s.masked_fill(~mask, float("-inf"))
    ref = (torch.softmax(s, -1).nan_to_num(0.0) @ vf)
    ref_lse = torch.logsumexp(s, -1)
    sdpa = torch.nn.functional.scaled_dot_product_attention(
        q, k.repeat_interleave(h // hk, dim=1), v.repeat_interleave(h // hk, dim=1),
        attn_mask=mask).float().nan_to_num(0.0)
    scale = ref.abs().max().item() or 1.0
    err = (out.float() - ref).abs().max().item() / scale
    serr = (sdpa - ref).abs().max().item() / scale
    finite = torch.isfinite(ref_lse)
    lse_err = (lse - ref_lse)[finite].abs().max().item() if finite.any() else 0.0
    kernel = (tilec.kernels.attention_name(variant.get("dtype", "bf16"), d, causal)
              + tilec.kernels.gemm_config_suffix(
                  tilec.kernels.attention_shape_config(sq, d, causal, chip)))
    return {"chip": chip, "kernel": kernel,
            "shape": list(shape), "rel_err_vs_fp32_ref": err, "torch_sdpa_bf16_err": serr,
            "lse_abs_err": lse_err,
            "ok": bool(err <= max(2 * serr, 2e-3) and lse_err < 1e-3
                       and torch.equal(torch.isfinite(lse), finite))}


def run_attention_fp8_case(chip, variant, shape, artifacts):
    """tilec.attention on float8 (V given transposed) against a float64
    reference over the dequantized inputs; the bound is twice the error of
    that reference with P rounded to e4m3 (the kernel's design), at least
    2^-7; the lse against the unquantized reference. Per-tensor descales
    (numbers), or with ``descale_tensors`` per (batch, K/V head) descale
    tensors [b, hk] (FlashAttention-3's; q's over the query heads of each
    group): each (batch, head group) gets its own range, q's times f, k's
    divided by f (the scores keep their size, the descales differ by up to
    2^(hk + b)), v's times another factor, so that a factor read for the
    wrong (batch, head) shows; the error is then taken per (batch, head),
    relative to that head's output. out is poisoned (NaN) first."""
    import math
    b, h, hk, sq, sk = shape
    d, causal = variant["head_dim"], variant["causal"]
    per_head = bool(variant.get("descale_tensors"))
    e4m3 = torch.float8_e4m3fn
    torch.manual_seed(sq + sk)
    g = h // hk

    # Per (batch i, head group j): q's range 2^(i + j), k's 2^-(i + j), v's
    # 2^(hk - 1 - j) (per_head only).
    ij = (torch.arange(b, device="cuda")[:, None] + torch.arange(hk, device="cuda")[None, :])
    ranges = {"q": 2.0 ** ij, "k": 2.0 ** -ij,
              "v": 2.0 ** (hk - 1 - torch.arange(hk, device="cuda"))[None, :].expand(b, hk)}

    def quantize(x, heads, name):
        """(e4m3 tensor, descale): amax / 448 per tensor, or per (batch,
        K/V head) as a [b, hk] tensor for the device."""
        if not per_head:
            descale = x.abs().max().float() / 448.0
            return (x / descale).to(e4m3), descale.item()
        x = x * ranges[name].repeat_interleave(heads // hk, dim=1)[..., None, None]
        amax = x.abs().reshape(b, hk, -1).amax(-1).float()
        descale = amax / 448.0
        scale = descale.repeat_interleave(heads // hk, dim=1)[..., None, None]
        return (x / scale).to(e4m3), descale
    (q8, dq), (k8, dk), (v8, dv) = (quantize(torch.randn(b, n, s_, d, device="cuda"), n, name)
                                    for name, n, s_ in (("q", h, sq), ("k", hk, sk),
                                                        ("v", hk, sk)))
    ldv = (sk + 15) // 16 * 16
    vt = torch.zeros(b, hk, d, ldv, device="cuda", dtype=e4m3)
    vt[..., :sk] = v8.transpose(-1, -2)
    v_arg = vt[..., :sk].transpose(-1, -2)  # [b, hk, sk, d], contiguous along sk
    out = torch.full((b, h, sq, d), float("nan"), device="cuda", dtype=torch.bfloat16)
    out, lse = tilec.attention(q8, k8, v_arg, causal=causal, out=out, return_lse=True,
                               chip=chip, artifacts=artifacts, q_descale=dq, k_descale=dk,
                               v_descale=dv)

    def dequantize(x8, descale, heads):
        if not per_head:
            return x8.double() * descale
        return x8.double() * descale.double().repeat_interleave(heads // hk, dim=1)[
            ..., None, None]
    q = dequantize(q8, dq, h)
    k = dequantize(k8, dk, hk).repeat_interleave(g, dim=1)
    v = dequantize(v8, dv, hk).repeat_interleave(g, dim=1)
    s = q @ k.transpose(-1, -2) / math.sqrt(d)
    if causal:
        i = torch.arange(sq, device="cuda")[:, None]
        j = torch.arange(sk, device="cuda")[None, :]
        s = s.masked_fill(~(j <= i + (sk - sq)), float("-inf"))
    mx = s.amax(-1, keepdim=True).nan_to_num(0.0, neginf=0.0)
    p = torch.exp(s - mx)
    l = p.sum(-1, keepdim=True)
    ref = (p @ v / l).nan_to_num(0.0)
    emul = (p.float().to(e4m3).double() @ v / l).nan_to_num(0.0)
    ref_lse = (mx + torch.log(l))[..., 0]
    # Errors per (batch, head), each relative to that head's output.
    scale = ref.abs().amax((-2, -1), keepdim=True).clamp_min(1e-30)
    err = ((out.double() - ref).abs() / scale).max().item()
    emul_err = ((emul - ref).abs() / scale).max().item()
    bound = max(2 * emul_err, 2.0 ** -7)
    finite = torch.isfinite(ref_lse)
    lse_err = (lse.double() - ref_lse)[finite].abs().max().item() if finite.any() else 0.0
    # ex2.approx and f32 sums: relative to the lse's size (a few units here).
    lse_bound = 1e-3 * max(1.0, ref_lse[finite].abs().max().item() if finite.any() else 1.0)
    return {"chip": chip, "kernel": tilec.kernels.attention_name("f8e4m3", d, causal, per_head),
            "shape": list(shape), "rel_err_vs_fp64_ref": err, "p_quantization_err": emul_err,
            "bound": bound, "lse_abs_err": lse_err, "out_dtype": str(out.dtype),
            "lse_bound": lse_bound,
            "ok": bool(err <= bound and lse_err <= lse_bound and out.dtype == torch.bfloat16
                       and torch.equal(torch.isfinite(lse), finite))}


def attention_fp8_graph_case(chip, variant, artifacts):
    """FP8 attention reading descale tensors, captured in a CUDA graph: the
    replay after v_descale doubles in place gives exactly twice the output
    (the kernel reads the descales on the device at each launch; nothing is
    baked in at capture), and the first replay equals an eager call."""
    b, h, hk, s = 2, 4, 2, 300
    d, causal = variant["head_dim"], variant["causal"]
    e4m3 = torch.float8_e4m3fn
    torch.manual_seed(5)
    q8, k8 = (torch.randn(n, device="cuda").to(e4m3) for n in ((b, h, s, d), (b, hk, s, d)))
    vt = torch.randn(b, hk, d, s + 4, device="cuda").to(e4m3)
    v8 = vt[..., :s].transpose(-1, -2)
    dq, dk = (torch.rand(b, hk, device="cuda") + 0.5 for _ in range(2))
    dv = torch.rand(b, hk, device="cuda") + 0.5
    where = dict(causal=causal, chip=chip, artifacts=artifacts)
    out = torch.empty(b, h, s, d, device="cuda", dtype=torch.bfloat16)

    def call():
        tilec.attention(q8, k8, v8, out=out, q_descale=dq, k_descale=dk, v_descale=dv,
                        **where)
    call()  # loads the kernel and makes the plan outside the capture
    eager = out.clone()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    first = out.clone()
    dv.mul_(2.0)
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    return {"case": f"{chip} fp8 attention d{d}{' causal' if causal else ''} descale tensors "
                    f"in a CUDA graph", "chip": chip,
            "first_replay_equals_eager": bool(torch.equal(first, eager)),
            "doubled_v_descale_doubles_out": bool(torch.equal(out, first * 2)),
            "ok": bool(torch.equal(first, eager) and torch.equal(out, first * 2)
                       and not torch.isnan(first).any().item())}


def run_case(chip, variant, shape, artifacts):
    """One tilec.gemm call checked against torch; returns a record."""
    m, n, k = shape
    fp8 = variant.get("dtype", "bf16").startswith("f8")
    int8 = variant.get("dtype") == "i8"
    dtype = TORCH_DTYPES[variant.get("dtype", "bf16")]
    b_dtype = TORCH_DTYPES[variant.get("b_dtype") or variant.get("dtype", "bf16")]
    out_dtype = TORCH_DTYPES[variant.get("out_dtype", "bf16" if fp8 else "i32" if int8 else
                                         variant.get("dtype", "bf16"))]
    quantum = 16 if fp8 or int8 else 8  # 16-byte rows
    a = padded(m, k, dtype, quantum)
    if variant.get("b_layout") == "col":
        b = padded(n, k, b_dtype, quantum).t()  # K x N, column-major
    else:
        b = padded(k, n, b_dtype, quantum)
    # Row-wise scale_a (M x 1) and a one-element scale_b (per-tensor, which
    # tilec.gemm expands to a vector on the device).
    scale_a = (torch.rand(m, 1, device="cuda") + 0.5) if variant.get("scale_a") else None
    scale_b = (torch.full((1,), 1.25, device="cuda")) if variant.get("scale_b") else None
    if variant.get("block_scales"):  # torch's layouts: M and K blocks contiguous
        kb, nb = -(-k // 128), -(-n // 128)
        scale_a = (torch.rand(kb, m, device="cuda") + 0.5).t()
        scale_b = (torch.rand(nb, kb, device="cuda") + 0.5).t()
    bias = torch.randn(n, device="cuda").to(out_dtype) if variant.get("bias") else None
    alpha, beta = (0.75, -0.5) if variant.get("alpha") else (None, None)
    if variant.get("beta"):
        out = padded(m, n, out_dtype)
    else:  # poisoned (int32: a value no sum of these inputs hits exactly everywhere)
        out = padded(m, n, out_dtype, fill=-7 if int8 else float("nan"))
    c0 = out.clone()
    tilec.gemm(a, b, out=out, bias=bias, alpha=alpha, beta=beta,
               activation=variant.get("activation"), precision=variant.get("precision"),
               scale_a=scale_a, scale_b=scale_b, chip=chip, artifacts=artifacts)
    torch.cuda.synchronize()
    ref = reference(a, b, variant, bias, alpha, beta, c0, scale_a, scale_b)
    scale = max(ref.abs().max().item(), 1e-6)
    err = (out.float() - ref).abs().max().item() / scale
    unwritten = torch.isnan(out.float()).sum().item()
    plain = torch.matmul(a, b).to(out_dtype) if not (variant.get("bias") or variant.get("alpha")
                                                     or variant.get("activation") or fp8
                                                     or int8) else None
    vs_torch = ((out.float() - plain.float()).abs().max().item() / scale
                if plain is not None else None)
    # f32 inputs: TF32's rounding (2^-11 a product), 3xTF32 close to f32's.
    tol = ({"tf32": 2e-3, "tf32x3": 2e-5, "ieee": 2e-5}.get(variant.get("precision"), 2e-3)
           if out_dtype == torch.float32 else 0.0 if int8 else 1.6e-2)  # int8: exact
    ok = unwritten == 0 and err <= tol
    return {"chip": chip, "kernel": tilec.kernels.gemm_name(**variant), "M": m, "N": n, "K": k,
            "rel_err_vs_fp32_ref": err, "rel_diff_vs_torch_matmul": vs_torch,
            "unwritten": unwritten, "tolerance": tol, "ok": ok}


def expect_error(label, exc_type, fn):
    """Runs ``fn`` expecting ``exc_type``; returns a record."""
    try:
        fn()
    except exc_type as e:
        return {"case": label, "ok": True, "message": str(e)[:300]}
    except Exception as e:  # noqa: BLE001 - the wrong exception is a failure
        return {"case": label, "ok": False, "message": f"{type(e).__name__}: {e}"[:300]}
    return {"case": label, "ok": False, "message": "no exception"}


def expect_matmul(label, a, b, artifacts):
    """tilec.gemm(a, b) runs (the any-strides variant takes what the fast
    kernel refuses, since f826327) and matches a float32 matmul."""
    try:
        out = tilec.gemm(a, b, artifacts=artifacts)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - any exception is a failure
        return {"case": label, "ok": False, "message": f"{type(e).__name__}: {e}"[:300]}
    ref = a.float() @ b.float()
    err = ((out.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-6)).item()
    return {"case": label, "ok": err <= 2e-2, "max_rel_err": err}


def argument_checks(artifacts):
    """Bad arguments raise before anything is launched."""
    a = padded(64, 64, torch.bfloat16)
    b = padded(64, 64, torch.bfloat16)
    odd = torch.randn(64, 61, device="cuda").to(torch.bfloat16)  # lda = 61
    q = torch.randn(1, 2, 64, 64, device="cuda").to(torch.bfloat16)
    q96 = torch.randn(1, 2, 64, 96, device="cuda").to(torch.bfloat16)
    return [
        expect_error("cpu tensor", tilec.ArgumentError,
                     lambda: tilec.gemm(a.cpu(), b, artifacts=artifacts)),
        expect_matmul("misaligned view (any-strides variant)",
                      torch.randn(64, 72, device="cuda").to(torch.bfloat16)[:, 1:65], b,
                      artifacts),
        expect_matmul("unpadded odd lda (any-strides variant)", odd,
                      padded(61, 64, torch.bfloat16), artifacts),
        expect_error("mismatched K", tilec.ArgumentError,
                     lambda: tilec.gemm(a, padded(32, 64, torch.bfloat16), artifacts=artifacts)),
        expect_error("f32 inputs with a row-major b", tilec.ArgumentError,
                     lambda: tilec.gemm(a.float(), b.float(), artifacts=artifacts)),
        expect_error("f64 inputs", tilec.DTypeError,
                     lambda: tilec.gemm(a.double(), b.double(), artifacts=artifacts)),
        expect_error("attention head_dim 96", tilec.ArgumentError,
                     lambda: tilec.attention(q96, q96, q96, artifacts=artifacts)),
        expect_error("attention q on the cpu", tilec.ArgumentError,
                     lambda: tilec.attention(q.cpu(), q, q, artifacts=artifacts)),
    ] + cupy_argument_checks(artifacts)


def cupy_argument_checks(artifacts):
    """tilec.attention's checks on CuPy arrays."""
    try:
        import cupy
    except ImportError:
        return [{"case": "cupy attention checks", "ok": True, "skipped": "cupy not installed"}]
    q = cupy.random.standard_normal((1, 2, 64, 64), dtype=cupy.float32)
    q16 = q.astype(cupy.float16)
    strided = cupy.random.standard_normal((1, 2, 64, 128), dtype=cupy.float32).astype(
        cupy.float16)[..., :64]
    return [
        expect_error("cupy attention f32", tilec.DTypeError,
                     lambda: tilec.attention(q, q, q, artifacts=artifacts)),
        expect_error("cupy attention q not contiguous", tilec.ArgumentError,
                     lambda: tilec.attention(strided, q16, q16, artifacts=artifacts)),
        expect_error("cupy attention k of another dtype", tilec.DTypeError,
                     lambda: tilec.attention(q16, q, q, artifacts=artifacts)),
    ]


class DLPackOnly:
    """Exposes a tensor through the DLPack protocol only."""

    def __init__(self, t):
        self._t = t

    def __dlpack__(self, **kwargs):
        return self._t.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


def interop_checks(artifacts):
    """DLPack (and CuPy when present) inputs give torch's answer."""
    records = []
    a, b = padded(96, 40, torch.bfloat16), padded(40, 72, torch.bfloat16)
    ref = a.float() @ b.float()
    out = tilec.gemm(DLPackOnly(a), DLPackOnly(b), out=torch.empty(96, 72, device="cuda",
                                                                   dtype=torch.bfloat16),
                     artifacts=artifacts)
    torch.cuda.synchronize()
    err = (out.float() - ref).abs().max().item() / ref.abs().max().item()
    records.append({"case": "dlpack inputs", "ok": err < 1.6e-2, "rel_err": err})
    try:
        import cupy
    except ImportError:
        records.append({"case": "cupy inputs", "ok": True, "skipped": "cupy not installed"})
        return records
    ah, bh = padded(96, 40, torch.float16), padded(40, 72, torch.float16)
    ca, cb = cupy.from_dlpack(ah), cupy.from_dlpack(bh)
    cout = tilec.gemm(ca, cb, artifacts=artifacts)
    cupy.cuda.get_current_stream().synchronize()
    got = torch.from_dlpack(cout).float()
    ref = ah.float() @ bh.float()
    err = (got - ref).abs().max().item() / ref.abs().max().item()
    records.append({"case": "cupy inputs", "ok": err < 1.6e-2, "rel_err": err,
                    "type": type(cout).__name__})
    return records


def attention_reference(q, k, v, causal):
    """float32 attention and lse (bottom-right causal mask, GQA)."""
    return refs.attention(q, k, v, causal)


def attention_record(case, out, lse, ref, ref_lse, **extra):
    """Compares an attention result (torch tensors) with the reference."""
    scale = ref.abs().max().item() or 1.0
    err = (out.float() - ref).abs().max().item() / scale
    unwritten = torch.isnan(out.float()).sum().item()
    record = {"case": case, "rel_err": err, "unwritten": unwritten, **extra}
    ok = err < 1e-2 and unwritten == 0
    if lse is not None:
        lse_err = (lse.float() - ref_lse).abs().max().item()
        record["lse_abs_err"] = lse_err
        ok = ok and lse_err < 1e-3
    record["ok"] = bool(ok)
    return record


def attention_interop_checks(chip, artifacts):
    """tilec.attention on DLPack-only objects, CuPy arrays (on a CuPy
    stream of their own) and views that take the copying path."""
    records = []
    torch.manual_seed(7)
    q = torch.randn(2, 4, 200, 64, device="cuda").bfloat16()
    k = torch.randn(2, 2, 300, 64, device="cuda").bfloat16()
    v = torch.randn(2, 2, 300, 64, device="cuda").bfloat16()
    ref, ref_lse = attention_reference(q, k, v, True)
    out = torch.full_like(q, float("nan"))
    result, lse = tilec.attention(DLPackOnly(q), DLPackOnly(k), DLPackOnly(v), causal=True,
                                  out=DLPackOnly(out), return_lse=True, chip=chip,
                                  artifacts=artifacts)
    torch.cuda.synchronize()
    records.append(attention_record(f"{chip} attention dlpack inputs and out", out, lse, ref,
                                    ref_lse, returns=type(result).__name__))
    result = tilec.attention(DLPackOnly(q), DLPackOnly(k), DLPackOnly(v), causal=True, chip=chip,
                             artifacts=artifacts)
    torch.cuda.synchronize()
    records.append(attention_record(f"{chip} attention dlpack inputs, allocated out", result,
                                    None, ref, None, returns=type(result).__name__))

    # Views: q a slice of a wider head dimension of heads, out transposed.
    wide = torch.randn(2, 6, 200, 64, device="cuda").bfloat16()
    qs = wide[:, 1:5]
    ref_s, _ = attention_reference(qs, k, v, False)
    got = tilec.attention(qs, k, v, chip=chip, artifacts=artifacts)
    torch.cuda.synchronize()
    records.append(attention_record(f"{chip} attention q head slice", got, None, ref_s, None))
    out_t = torch.full((2, 200, 4, 64), float("nan"), device="cuda",
                       dtype=torch.bfloat16).transpose(1, 2)
    tilec.attention(q, k, v, causal=True, out=out_t, chip=chip, artifacts=artifacts)
    torch.cuda.synchronize()
    records.append(attention_record(f"{chip} attention out [b, s, h, d] view", out_t, None, ref,
                                    None))
    try:
        import cupy
    except ImportError:
        records.append({"case": f"{chip} cupy attention", "ok": True,
                        "skipped": "cupy not installed"})
        return records
    qh, kh, vh = q.half(), k.half(), v.half()
    ref, ref_lse = attention_reference(qh, kh, vh, False)
    # On a non-blocking CuPy stream whose inputs and poisoned output are
    # ready only after milliseconds of other work on that stream: a launch
    # on any other stream would read unready inputs or be overwritten by
    # the poison.
    stream = cupy.cuda.Stream(non_blocking=True)
    big = cupy.random.standard_normal((8192, 8192), dtype=cupy.float32).astype(cupy.float16)
    src = [cupy.from_dlpack(t) for t in (qh, kh, vh)]
    cupy.cuda.Device().synchronize()
    torch.cuda.synchronize()
    with stream:
        for _ in range(4):
            big = big @ big * 1e-4
        cq, ck, cv = (x.copy() for x in src)
        cout = cupy.full(cq.shape, cupy.nan, dtype=cupy.float16)
        got, glse = tilec.attention(cq, ck, cv, out=cout, return_lse=True, chip=chip,
                                    artifacts=artifacts)
        alloc, alse = tilec.attention(cq, ck, cv, return_lse=True, chip=chip,
                                      artifacts=artifacts)
    stream.synchronize()
    records.append(attention_record(
        f"{chip} cupy attention out= on a cupy stream", torch.from_dlpack(cout),
        torch.from_dlpack(glse), ref, ref_lse,
        returns=[type(got).__name__, type(glse).__name__], same_out=got is cout))
    records.append(attention_record(
        f"{chip} cupy attention allocated", torch.from_dlpack(alloc), torch.from_dlpack(alse),
        ref, ref_lse, returns=[type(alloc).__name__, type(alse).__name__]))
    records[-1]["ok"] = records[-1]["ok"] and type(alloc).__module__.startswith("cupy")
    return records


def timed(fns, calls, rounds=15):
    """Host microseconds per call of each function of ``fns`` (label ->
    function) while the GPU is busy, so that launches only enqueue. The
    functions are interleaved: every round times each once, behind its own
    GPU sleep, so that drifts of the host (other tenants, clocks) hit all of
    them alike and per-round differences pair up. Returns label -> list of
    per-round times."""
    per_round = {label: [] for label in fns}
    for _ in range(rounds):
        for label, fn in fns.items():
            torch.cuda.synchronize()
            torch.cuda._sleep(50_000_000)  # ~tens of ms of GPU time ahead of the launches
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            per_round[label].append((time.perf_counter() - start) / calls * 1e6)
            torch.cuda.synchronize()
    return per_round


def summary(per_round, op, raw="raw"):
    """Medians and minima of each timing, and the op's overhead over the raw
    launch: median and minimum of the per-round differences."""
    out = {}
    for label, times in per_round.items():
        out[label + "_us"] = statistics.median(times)
        out[label + "_min_us"] = min(times)
    diffs = [a - b for a, b in zip(per_round[op], per_round[raw])]
    out["host_overhead_us"] = statistics.median(diffs)
    out["host_overhead_min_us"] = min(diffs)
    out["host_overhead_rounds_us"] = diffs
    return out


def catch_plan(call):
    """Runs ``call`` with fresh kernel and plan memos, catching the plan
    the checked path makes: (kernel, launch values in parameter order)."""
    ops.clear_kernel_memo()
    caught = []
    real = launch._make_plan  # (the launch path's binding, which it calls)

    def catching(key, launcher, meta, args, *rest, **kwargs):
        caught.append((launcher, list(args)))
        return real(key, launcher, meta, args, *rest, **kwargs)

    launch._make_plan = catching
    try:
        call()
    finally:
        launch._make_plan = real
    torch.cuda.synchronize()
    return caught


def raw_launch(launcher, values):
    """The floor: ``launcher`` with ``values`` prepared once through the
    runtime's C ABI (tilecRtLaunchCreate), launched by one ctypes call of
    tilecRtLaunchRun with no arguments to compare (libtilec-runtime.so then
    only calls cuLaunchKernelEx); returns (launch function, status of a first
    launch, grid)."""
    prepared = launcher.prepare(values)
    run, handle = _rtcapi.library().tilecRtLaunchRun, prepared.handle
    stream = torch.cuda.current_stream().cuda_stream

    def raw():
        return run(handle, None, 0, stream)
    raw.keep = prepared
    return raw, raw(), list(prepared.grid)


def overhead(chip, artifacts, shape=(256, 256, 256), calls=200):
    """Host cost per call: tilec.gemm vs Kernel.__call__ (and Kernel.launch
    with checked values) vs the raw launch, all launching the kernel
    tilec.gemm dispatches to for ``shape``."""
    m, n, k = shape
    a, b = padded(m, k, torch.bfloat16), padded(k, n, torch.bfloat16)
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    # The kernel tilec.gemm launches for this shape -- the shape-class
    # dispatch may pick a variant (e.g. narrower N tiles on sm_90a) -- and
    # the values it passes, caught where its plan is made, so that all
    # timings launch the same kernel object on the same grid with the same
    # values.
    config = tilec.kernels.gemm_shape_config(m, n, k, chip)
    name = tilec.kernels.gemm_name() + tilec.kernels.gemm_config_suffix(config)
    caught = catch_plan(lambda: tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts))
    expected = [a.data_ptr(), b.data_ptr(), out.data_ptr(), m, n, k, a.stride(0), b.stride(0),
                out.stride(0)]
    if len(caught) != 1 or caught[0][0].name != name or caught[0][1] != expected:
        raise RuntimeError(f"tilec.gemm for {chip} launched "
                           f"{[(launcher.name, values) for launcher, values in caught]}, "
                           f"expected {name} with {expected}")
    launcher = caught[0][0]
    args = (a, b, out, m, n, k, a.stride(0), b.stride(0), out.stride(0))

    # Raw launch: the same kernel, grid and values, prepared once.
    out.zero_()
    raw, err, grid = raw_launch(launcher, expected)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    raw_err = (out.float() - ref).abs().max().item() / ref.abs().max().item()
    if err != _rtcapi.SUCCESS or raw_err > 1.6e-2:
        raise RuntimeError(f"raw launch for {chip} failed: {err}, rel err {raw_err}")

    launch_values = list(expected)
    per_round = timed({
        "raw": raw,
        "tilec_gemm": lambda: tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts),
        "runtime_kernel_call": lambda: launcher(*args),
        "runtime_launch_values": lambda: launcher.launch(launch_values),
        "tilec_gemm_alloc_out": lambda: tilec.gemm(a, b, chip=chip, artifacts=artifacts),
        "torch_matmul": lambda: torch.matmul(a, b, out=out)}, calls)
    # And tilec.gemm's launches after all that compute the product.
    out.zero_()
    tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts)
    torch.cuda.synchronize()
    gemm_err = (out.float() - ref).abs().max().item() / ref.abs().max().item()
    target_us = 10.0  # the bound on tilec.gemm's host cost over the raw launch
    record = {"chip": chip, "kernel": name, "grid": grid, "shape": list(shape),
              "calls_per_round": calls}
    record.update(summary(per_round, "tilec_gemm"))
    record["raw_launch_us"], record["raw_launch_min_us"] = record.pop("raw_us"), record.pop(
        "raw_min_us")
    record["runtime_overhead_us"] = statistics.median(
        [a - b for a, b in zip(per_round["runtime_kernel_call"], per_round["raw"])])
    record.update(tilec_gemm_rel_err_after_timing=gemm_err, target_us=target_us,
                  meets_target=record["host_overhead_us"] <= target_us and gemm_err <= 1.6e-2)
    return record


def attention_overhead(chip, artifacts, shape=(2, 8, 512, 128), calls=200):
    """Host cost per call: tilec.attention (out=, no lse) vs a raw
    launch of the same kernel with the same values; also with an
    allocated out, with the lse returned, and torch's SDPA."""
    b, h, s, d = shape
    torch.manual_seed(11)
    q, k, v = (torch.randn(b, h, s, d, device="cuda").bfloat16() for _ in range(3))
    out = torch.empty_like(q)
    name = tilec.kernels.attention_name("bf16", d, False)
    caught = catch_plan(lambda: tilec.attention(q, k, v, out=out, chip=chip,
                                                artifacts=artifacts))
    if len(caught) != 1 or caught[0][0].name != name:
        raise RuntimeError(f"tilec.attention for {chip} launched "
                           f"{[(launcher.name, values) for launcher, values in caught]}")
    launcher, values = caught[0]
    lse = torch.empty(b, h, s, device="cuda", dtype=torch.float32)
    expected_head = [q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr()]
    expected_tail = [b, h, h, s, s, h * s * d, s * d, h * s * d, s * d, h * s]
    if values[:4] != expected_head or values[5:] != expected_tail:
        raise RuntimeError(f"tilec.attention for {chip} launched {values}, expected "
                           f"{expected_head} + [lse] + {expected_tail}")
    raw_values = expected_head + [lse.data_ptr()] + expected_tail
    out.zero_()
    raw, err, grid = raw_launch(launcher, raw_values)
    torch.cuda.synchronize()
    ref, _ = attention_reference(q, k, v, False)
    raw_err = (out.float() - ref).abs().max().item() / ref.abs().max().item()
    if err != _rtcapi.SUCCESS or raw_err > 1e-2:
        raise RuntimeError(f"raw attention launch for {chip} failed: {err}, rel err {raw_err}")
    per_round = timed({
        "raw": raw,
        "tilec_attention": lambda: tilec.attention(q, k, v, out=out, chip=chip,
                                                   artifacts=artifacts),
        "tilec_attention_alloc": lambda: tilec.attention(q, k, v, chip=chip,
                                                         artifacts=artifacts),
        "tilec_attention_lse": lambda: tilec.attention(q, k, v, out=out, return_lse=True,
                                                       chip=chip, artifacts=artifacts),
        "torch_sdpa": lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)}, calls)
    out.zero_()
    tilec.attention(q, k, v, out=out, chip=chip, artifacts=artifacts)
    torch.cuda.synchronize()
    att_err = (out.float() - ref).abs().max().item() / ref.abs().max().item()
    target_us = 10.0
    record = {"chip": chip, "kernel": name, "grid": grid, "shape": list(shape),
              "calls_per_round": calls}
    record.update(summary(per_round, "tilec_attention"))
    record["raw_launch_us"], record["raw_launch_min_us"] = record.pop("raw_us"), record.pop(
        "raw_min_us")
    record.update(tilec_attention_rel_err_after_timing=att_err, target_us=target_us,
                  meets_target=record["host_overhead_us"] <= target_us and att_err <= 1e-2)
    return record


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", default=os.path.join(ROOT, ".gpu", "python"))
    default_out = os.path.join(os.environ.get("OUT", os.path.join(ROOT, "bench", "results")),
                               "python_check.json")
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--commit", default=None, help="the commit of the package checked")
    ap.add_argument("--cases-only", action="store_true",
                    help="only the kernels' cases (artifacts of one dtype: no interop, "
                         "argument or overhead checks, which need the bf16 kernels)")
    args = ap.parse_args()
    artifacts = os.path.abspath(args.artifacts)
    # The shape rule (libtilec-rules.so, no compiler needed) ships beside the
    # artifacts (scripts/build/build_python_artifacts.py).
    if os.path.isfile(os.path.join(artifacts, "libtilec-rules.so")):
        os.environ["TILEC_RULES_LIBRARY"] = os.path.join(artifacts, "libtilec-rules.so")
    with open(os.path.join(artifacts, "manifest.json")) as f:
        manifest = json.load(f)

    record = new_record("python_check", artifacts=artifacts, manifest=manifest, cases=[],
                        errors=[])
    record["device"] = record["gpu"]
    if args.commit:
        record["commit"] = args.commit
    for chip, kernels in manifest["kernels"].items():
        for entry in kernels:
            if entry["variant"].get("batched"):
                continue  # tilec.bmm's (build_python_artifacts.py --bmm): scripts/gpu/bmm_check.py
            if entry["variant"].get("grouped"):
                continue  # tilec.grouped_gemm's (--grouped): scripts/gpu/grouped_gemm_check.py
            if entry["variant"].get("attention_backward"):
                continue  # tilec.attention's backward: scripts/gpu/training_check.py
            if entry["variant"].get("attention"):
                if entry["variant"].get("config"):
                    continue  # reached through the dispatch from the default's cases
                fp8 = entry["variant"].get("dtype") == "f8e4m3"
                for shape in ATTENTION_SHAPES:
                    try:
                        record["cases"].append((run_attention_fp8_case if fp8 else
                                                run_attention_case)(
                            chip, entry["variant"], shape, artifacts))
                    except Exception as e:  # noqa: BLE001 - record and go on
                        record["cases"].append({"chip": chip, "kernel": entry["name"],
                                                "shape": list(shape), "ok": False,
                                                "error": f"{type(e).__name__}: {e}"[:500]})
                if entry["variant"].get("descale_tensors"):
                    try:
                        record["cases"].append(attention_fp8_graph_case(
                            chip, entry["variant"], artifacts))
                    except Exception as e:  # noqa: BLE001 - record and go on
                        record["cases"].append({"chip": chip, "kernel": entry["name"],
                                                "case": "CUDA graph", "ok": False,
                                                "error": f"{type(e).__name__}: {e}"[:500]})
                continue
            for shape in SHAPES:
                try:
                    record["cases"].append(run_case(chip, entry["variant"], shape, artifacts))
                except Exception as e:  # noqa: BLE001 - record and go on
                    record["cases"].append({"chip": chip, "kernel": entry["name"],
                                            "shape": list(shape), "ok": False,
                                            "error": f"{type(e).__name__}: {e}"[:500]})
    if args.cases_only:
        record["argument_checks"], record["interop"] = [], []
        record["overhead"], record["attention_overhead"] = [], []
        return finish(record, args.out)
    record["argument_checks"] = argument_checks(artifacts)
    record["interop"] = interop_checks(artifacts)
    for chip in manifest["kernels"]:
        try:
            record["interop"] += attention_interop_checks(chip, artifacts)
        except Exception as e:  # noqa: BLE001 - record and go on
            record["interop"].append({"case": f"{chip} attention interop", "ok": False,
                                      "error": f"{type(e).__name__}: {e}"[:500]})
    record["overhead"], record["attention_overhead"] = [], []
    for chip in manifest["kernels"]:
        for where, measure in (("overhead", overhead), ("attention_overhead",
                                                        attention_overhead)):
            try:
                record[where].append(measure(chip, artifacts))
            except Exception as e:  # noqa: BLE001 - record and go on
                record["errors"].append({"case": f"{chip} {where}",
                                         "error": f"{type(e).__name__}: {e}"[:500]})
    return finish(record, args.out)


def finish(record, out):
    """Counts, writes and prints the record; the exit status."""
    record["overhead_meets_target"] = bool(
        record["overhead"] and record["attention_overhead"]
        and all(o["meets_target"] for o in record["overhead"] + record["attention_overhead"]))
    checks = record["cases"] + record["argument_checks"] + record["interop"]
    record["passed"] = sum(c["ok"] for c in checks)
    record["failed"] = sum(not c["ok"] for c in checks) + len(record["errors"])
    write_record(record, out)
    for c in checks + record["errors"]:
        if not c.get("ok"):
            print("FAILED", json.dumps(c))
    for o in record["overhead"]:
        print(f"{o['chip']}: tilec.gemm {o['tilec_gemm_us']:.1f} us/call, raw launch "
              f"{o['raw_launch_us']:.1f} us -> host overhead {o['host_overhead_us']:.1f} us "
              f"(target <= {o['target_us']:.0f} us: {'met' if o['meets_target'] else 'NOT met'}); "
              f"Kernel.__call__ {o['runtime_kernel_call_us']:.1f} us, torch.matmul "
              f"{o['torch_matmul_us']:.1f} us")
    for o in record["attention_overhead"]:
        print(f"{o['chip']}: tilec.attention {o['tilec_attention_us']:.1f} us/call, raw launch "
              f"{o['raw_launch_us']:.1f} us -> host overhead {o['host_overhead_us']:.1f} us "
              f"(target <= {o['target_us']:.0f} us: {'met' if o['meets_target'] else 'NOT met'}); "
              f"allocating out {o['tilec_attention_alloc_us']:.1f} us, with lse "
              f"{o['tilec_attention_lse_us']:.1f} us")
    print(f"{record['passed']} passed, {record['failed']} failed -> {out}")
    return 1 if record["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
