#!/usr/bin/env python3
"""GPU check of the Python package on a machine WITHOUT the compiler.

Loads the GEMM kernels precompiled by scripts/build_python_artifacts.py
(artifacts directory, no libtilec-c.so: any attempt to compile fails the
check), then:

  * runs tilec.gemm on odd shapes (rows padded to 16 bytes, as the kernels
    require) for every precompiled variant and chip, NaN-poisoned outputs,
    and compares with torch.matmul and a float32 reference with the same
    epilogue;
  * checks that bad arguments raise before launching (CPU tensor,
    misaligned view, unpadded odd leading dimension, mismatched K) and that
    tilec.attention raises LoweringNotAvailableError;
  * runs one GEMM through DLPack (and CuPy, when installed) inputs;
  * measures host time per call of tilec.gemm, of the runtime's
    Kernel.__call__ and of a raw cuLaunchKernel with prepacked arguments,
    while the GPU is held busy by torch.cuda._sleep (so only enqueueing is
    timed), and reports tilec.gemm's host overhead over the raw launch in us
    against the 10 us target (``target_us``, ``meets_target``). All three
    launch the kernel tilec.gemm dispatches to for the timed shape, and
    tilec.gemm's launch values are checked against the raw launch's first.

Writes one JSON file (default $OUT/python_check.json) and exits non-zero if
any case fails.

    python3 scripts/python_check.py --artifacts .gpu/python [--out FILE]
"""

import argparse
import ctypes
import datetime
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# No compiler on the GPU machine: make sure none is picked up by accident.
os.environ["TILEC_LIBRARY"] = os.path.join(ROOT, "no-compiler-on-this-machine", "libtilec-c.so")
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402

import tilec  # noqa: E402
from tilec import ops  # noqa: E402

#: (M, N, K): odd sizes, a single row, a single column, a K tail.
SHAPES = [(127, 255, 61), (257, 129, 199), (1, 513, 1001), (1000, 1, 24), (333, 777, 4096),
          (2048, 2048, 2048)]

TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


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


def reference(a, b, variant, bias, alpha, beta, c0):
    """The epilogue on a float32 product."""
    acc = a.float() @ b.float()
    if variant.get("alpha"):
        acc = alpha * acc
    if variant.get("beta"):
        acc = acc + beta * c0.float()
    if bias is not None:
        acc = acc + bias.float()
    act = variant.get("activation")
    if act == "relu":
        acc = torch.relu(acc)
    elif act == "gelu":
        acc = torch.nn.functional.gelu(acc)
    elif act == "silu":
        acc = torch.nn.functional.silu(acc)
    return acc


#: (batch, heads, kv heads, seq_q, seq_k) for tilec.attention.
ATTENTION_SHAPES = [(2, 4, 2, 113, 113), (1, 2, 2, 255, 1000), (1, 4, 1, 1000, 257)]


def run_attention_case(chip, variant, shape, artifacts):
    """tilec.attention against a float32 reference (bottom-right causal mask)
    beside torch's bf16 SDPA; also the returned lse."""
    import math
    b, h, hk, sq, sk = shape
    d, causal = variant["head_dim"], variant["causal"]
    torch.manual_seed(sq + sk)
    q = torch.randn(b, h, sq, d, device="cuda").bfloat16()
    k = torch.randn(b, hk, sk, d, device="cuda").bfloat16()
    v = torch.randn(b, hk, sk, d, device="cuda").bfloat16()
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
    return {"chip": chip, "kernel": f"attention_d{d}" + ("_causal" if causal else ""),
            "shape": list(shape), "rel_err_vs_fp32_ref": err, "torch_sdpa_bf16_err": serr,
            "lse_abs_err": lse_err,
            "ok": bool(err <= max(2 * serr, 2e-3) and lse_err < 1e-3
                       and torch.equal(torch.isfinite(lse), finite))}


def run_case(chip, variant, shape, artifacts):
    """One tilec.gemm call checked against torch; returns a record."""
    m, n, k = shape
    dtype = TORCH_DTYPES[variant.get("dtype", "bf16")]
    out_dtype = TORCH_DTYPES[variant.get("out_dtype", variant.get("dtype", "bf16"))]
    a = padded(m, k, dtype)
    if variant.get("b_layout") == "col":
        b = padded(n, k, dtype).t()  # K x N, column-major
    else:
        b = padded(k, n, dtype)
    bias = torch.randn(n, device="cuda").to(out_dtype) if variant.get("bias") else None
    alpha, beta = (0.75, -0.5) if variant.get("alpha") else (None, None)
    if variant.get("beta"):
        out = padded(m, n, out_dtype)
    else:
        out = padded(m, n, out_dtype, fill=float("nan"))
    c0 = out.clone()
    tilec.gemm(a, b, out=out, bias=bias, alpha=alpha, beta=beta,
               activation=variant.get("activation"), chip=chip, artifacts=artifacts)
    torch.cuda.synchronize()
    ref = reference(a, b, variant, bias, alpha, beta, c0)
    scale = max(ref.abs().max().item(), 1e-6)
    err = (out.float() - ref).abs().max().item() / scale
    unwritten = torch.isnan(out.float()).sum().item()
    plain = torch.matmul(a, b).to(out_dtype) if not (variant.get("bias") or variant.get("alpha")
                                                     or variant.get("activation")) else None
    vs_torch = ((out.float() - plain.float()).abs().max().item() / scale
                if plain is not None else None)
    tol = 2e-3 if out_dtype == torch.float32 else 1.6e-2
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
        expect_error("misaligned view", tilec.ArgumentError,
                     lambda: tilec.gemm(torch.randn(64, 72, device="cuda").to(
                         torch.bfloat16)[:, 1:65], b, artifacts=artifacts)),
        expect_error("unpadded odd lda", tilec.ArgumentError,
                     lambda: tilec.gemm(odd, padded(61, 64, torch.bfloat16),
                                        artifacts=artifacts)),
        expect_error("mismatched K", tilec.ArgumentError,
                     lambda: tilec.gemm(a, padded(32, 64, torch.bfloat16), artifacts=artifacts)),
        expect_error("f32 inputs", tilec.DTypeError,
                     lambda: tilec.gemm(a.float(), b.float(), artifacts=artifacts)),
        expect_error("attention head_dim 96", tilec.ArgumentError,
                     lambda: tilec.attention(q96, q96, q96, artifacts=artifacts)),
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


def timed(fn, calls):
    """Host microseconds per call of ``fn`` while the GPU is busy, so that
    launches only enqueue (median of 15 rounds)."""
    rounds = []
    for _ in range(15):
        torch.cuda.synchronize()
        torch.cuda._sleep(50_000_000)  # ~tens of ms of GPU time ahead of the launches
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        rounds.append((time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(rounds), min(rounds)


def overhead(chip, artifacts, shape=(256, 256, 256), calls=200):
    """Host cost per call: tilec.gemm vs Kernel.__call__ (and Kernel.launch
    with checked values) vs raw cuLaunchKernel, all launching the kernel
    tilec.gemm dispatches to for ``shape``."""
    from cuda.bindings import driver
    m, n, k = shape
    a, b = padded(m, k, torch.bfloat16), padded(k, n, torch.bfloat16)
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts)  # resolve, load, warm up
    torch.cuda.synchronize()
    # The kernel tilec.gemm launches for this shape -- the shape-class
    # dispatch may pick a variant (e.g. narrower N tiles on sm_90a) -- and
    # the values it passes, caught at tilec.ops._launch, so that all timings
    # launch the same kernel object on the same grid with the same values.
    config = tilec.kernels.gemm_shape_config(m, n, k, chip)
    name = tilec.kernels.gemm_name() + tilec.kernels.gemm_config_suffix(config)
    caught = []
    real_launch = ops._launch

    def catching(launcher, values, kind, device_index):
        caught.append((launcher, list(values)))
        return real_launch(launcher, values, kind, device_index)

    ops._launch = catching
    try:
        tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts)
    finally:
        ops._launch = real_launch
    torch.cuda.synchronize()
    expected = [a.data_ptr(), b.data_ptr(), out.data_ptr(), m, n, k, a.stride(0), b.stride(0),
                out.stride(0)]
    if len(caught) != 1 or caught[0][0].name != name or caught[0][1] != expected:
        raise RuntimeError(f"tilec.gemm for {chip} launched "
                           f"{[(launcher.name, values) for launcher, values in caught]}, "
                           f"expected {name} with {expected}")
    launcher = caught[0][0]
    meta = launcher.meta
    args = (a, b, out, m, n, k, a.stride(0), b.stride(0), out.stride(0))

    # Raw launch: the same function and grid with the parameter buffer packed once.
    function = launcher._load()
    holders = [ctypes.c_uint64(a.data_ptr()), ctypes.c_uint64(b.data_ptr()),
               ctypes.c_uint64(out.data_ptr())] + [ctypes.c_int32(v) for v in args[3:]]
    for spec in launcher.tensor_maps:
        values = {"M": m, "N": n, "K": k, "lda": a.stride(0), "ldb": b.stride(0),
                  "ldc": out.stride(0)}
        base = {"A": a, "B": b, "C": out}[spec["base"]].data_ptr()
        from tilec.runtime import encode_tensor_map
        holders.append(ctypes.create_string_buffer(encode_tensor_map(spec, base, values), 128))
    params = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
    grid = launcher.grid(M=m, N=n, K=k, lda=args[6], ldb=args[7], ldc=args[8])
    if meta.get("persistent"):
        grid = (min(grid[0], launcher._resident_programs()),) + tuple(grid[1:])
    block = meta["block"]
    stream = driver.CUstream(torch.cuda.current_stream().cuda_stream)
    smem = int(meta.get("smem_bytes", 0))
    params_address = ctypes.addressof(params)

    def raw():
        driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                              smem, stream, params_address, 0)

    # The raw launch must compute the same product, or its timing means nothing.
    out.zero_()
    (err,) = driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1],
                                   block[2], smem, stream, params_address, 0)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    raw_err = (out.float() - ref).abs().max().item() / ref.abs().max().item()
    if err != driver.CUresult.CUDA_SUCCESS or raw_err > 1.6e-2:
        raise RuntimeError(f"raw launch for {chip} failed: {err}, rel err {raw_err}")

    launch_values = list(expected)
    raw_us, raw_min = timed(raw, calls)
    runtime_us, runtime_min = timed(lambda: launcher(*args), calls)
    values_us, _ = timed(lambda: launcher.launch(launch_values), calls)
    gemm_us, gemm_min = timed(lambda: tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts),
                              calls)
    alloc_us, _ = timed(lambda: tilec.gemm(a, b, chip=chip, artifacts=artifacts), calls)
    matmul_us, _ = timed(lambda: torch.matmul(a, b, out=out), calls)
    target_us = 10.0  # the bound on tilec.gemm's host cost over the raw launch
    return {"chip": chip, "kernel": name, "grid": list(grid), "shape": list(shape),
            "calls_per_round": calls,
            "raw_launch_us": raw_us, "runtime_kernel_call_us": runtime_us,
            "runtime_launch_values_us": values_us,
            "tilec_gemm_us": gemm_us, "tilec_gemm_alloc_out_us": alloc_us,
            "torch_matmul_us": matmul_us,
            "host_overhead_us": gemm_us - raw_us,
            "host_overhead_min_us": gemm_min - raw_min,
            "runtime_overhead_us": runtime_us - raw_us,
            "target_us": target_us,
            "meets_target": gemm_us - raw_us <= target_us}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", default=os.path.join(ROOT, ".gpu", "python"))
    default_out = os.path.join(os.environ.get("OUT", os.path.join(ROOT, "bench", "results")),
                               "python_check.json")
    ap.add_argument("--out", default=default_out)
    args = ap.parse_args()
    artifacts = os.path.abspath(args.artifacts)
    with open(os.path.join(artifacts, "manifest.json")) as f:
        manifest = json.load(f)

    record = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "artifacts": manifest, "cases": [], "errors": []}
    for chip, kernels in manifest["kernels"].items():
        for entry in kernels:
            if entry["variant"].get("attention"):
                for shape in ATTENTION_SHAPES:
                    try:
                        record["cases"].append(run_attention_case(
                            chip, entry["variant"], shape, artifacts))
                    except Exception as e:  # noqa: BLE001 - record and go on
                        record["cases"].append({"chip": chip, "kernel": entry["name"],
                                                "shape": list(shape), "ok": False,
                                                "error": f"{type(e).__name__}: {e}"[:500]})
                continue
            for shape in SHAPES:
                try:
                    record["cases"].append(run_case(chip, entry["variant"], shape, artifacts))
                except Exception as e:  # noqa: BLE001 - record and go on
                    record["cases"].append({"chip": chip, "kernel": entry["name"],
                                            "shape": list(shape), "ok": False,
                                            "error": f"{type(e).__name__}: {e}"[:500]})
    record["argument_checks"] = argument_checks(artifacts)
    record["interop"] = interop_checks(artifacts)
    record["overhead"] = [overhead(chip, artifacts) for chip in manifest["kernels"]]
    checks = record["cases"] + record["argument_checks"] + record["interop"]
    record["passed"] = sum(c["ok"] for c in checks)
    record["failed"] = sum(not c["ok"] for c in checks)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
    for c in checks:
        if not c["ok"]:
            print("FAILED", json.dumps(c))
    for o in record["overhead"]:
        print(f"{o['chip']}: tilec.gemm {o['tilec_gemm_us']:.1f} us/call, raw launch "
              f"{o['raw_launch_us']:.1f} us -> host overhead {o['host_overhead_us']:.1f} us "
              f"(target <= {o['target_us']:.0f} us: {'met' if o['meets_target'] else 'NOT met'}); "
              f"Kernel.__call__ {o['runtime_kernel_call_us']:.1f} us, torch.matmul "
              f"{o['torch_matmul_us']:.1f} us")
    print(f"{record['passed']} passed, {record['failed']} failed -> {args.out}")
    return 1 if record["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
