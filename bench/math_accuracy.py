#!/usr/bin/env python3
"""The accuracy of every math op on the GPU, against a float64 reference.

Kernels come from scripts/dev/gen_math_ops.py's files, compiled elsewhere
(`scripts/build/build_gpu_artifacts.sh`-style: `tilec FILE --chip=sm_90a --emit=cubin
-o DIR`); this machine needs only torch and cuda.bindings.

For each kernel (op x dtype x IEEE/fast): about 1M random inputs from the
op's domain (never all zeros; an odd count, so the last tile is partial),
the output poisoned first and checked to be untouched past the end, the
result compared with torch's float64 function of the same (rounded) inputs,
in units in the last place of the output dtype. The maximum goes into the
JSON record beside the bound of bench/math_bounds.json; a kernel above its
bound, or one that wrote past the end, fails the run.

    math_accuracy.py --artifacts DIR --out OUT [--n 1000003] [--only REGEX]
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys

import torch

from scripts import ROOT
from tilec.runtime import Kernel

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
#: Mantissa bits and the exponent of the smallest normal, per dtype.
FORMAT = {"f32": (23, -126), "f16": (10, -14), "bf16": (7, -126)}


def _u(n, lo, hi, g):
    return torch.rand(n, device="cuda", dtype=torch.float64, generator=g) * (hi - lo) + lo


def _logu(n, lo, hi, g):
    """Positive values spread over [e^lo, e^hi]."""
    return torch.exp(_u(n, lo, hi, g))


def _signed_logu(n, lo, hi, g):
    sign = torch.where(torch.rand(n, device="cuda", generator=g) < 0.5, -1.0, 1.0)
    return sign.double() * _logu(n, lo, hi, g)


def _cbrt(x):
    return torch.sign(x) * torch.abs(x) ** (1.0 / 3.0)


def _round_half_away(x):
    return torch.sign(x) * torch.floor(torch.abs(x) + 0.5)


#: op -> (x domain, y domain or None, float64 reference of (x, y)).
OPS = {
    "absf": (lambda n, g: _signed_logu(n, -10, 10, g), None, lambda x, y: torch.abs(x)),
    "acos": (lambda n, g: _u(n, -1, 1, g), None, lambda x, y: torch.acos(x)),
    "acosh": (lambda n, g: 1 + _logu(n, -10, 8, g), None, lambda x, y: torch.acosh(x)),
    "asin": (lambda n, g: _u(n, -1, 1, g), None, lambda x, y: torch.asin(x)),
    "asinh": (lambda n, g: _signed_logu(n, -10, 10, g), None, lambda x, y: torch.asinh(x)),
    "atan": (lambda n, g: _signed_logu(n, -10, 10, g), None, lambda x, y: torch.atan(x)),
    "atanh": (lambda n, g: _u(n, -0.999, 0.999, g), None, lambda x, y: torch.atanh(x)),
    "cbrt": (lambda n, g: _signed_logu(n, -20, 20, g), None, lambda x, y: _cbrt(x)),
    "ceil": (lambda n, g: _u(n, -1000, 1000, g), None, lambda x, y: torch.ceil(x)),
    "cos": (lambda n, g: _u(n, -100, 100, g), None, lambda x, y: torch.cos(x)),
    "cosh": (lambda n, g: _u(n, -80, 80, g), None, lambda x, y: torch.cosh(x)),
    "erf": (lambda n, g: _u(n, -5, 5, g), None, lambda x, y: torch.erf(x)),
    "erfc": (lambda n, g: _u(n, -5, 9, g), None, lambda x, y: torch.erfc(x)),
    "exp": (lambda n, g: _u(n, -80, 80, g), None, lambda x, y: torch.exp(x)),
    "exp2": (lambda n, g: _u(n, -120, 120, g), None, lambda x, y: torch.exp2(x)),
    "expm1": (lambda n, g: _u(n, -10, 10, g), None, lambda x, y: torch.expm1(x)),
    "floor": (lambda n, g: _u(n, -1000, 1000, g), None, lambda x, y: torch.floor(x)),
    "log": (lambda n, g: _logu(n, -80, 80, g), None, lambda x, y: torch.log(x)),
    "log10": (lambda n, g: _logu(n, -80, 80, g), None, lambda x, y: torch.log10(x)),
    "log1p": (lambda n, g: _u(n, -0.99, 100, g), None, lambda x, y: torch.log1p(x)),
    "log2": (lambda n, g: _logu(n, -80, 80, g), None, lambda x, y: torch.log2(x)),
    "round": (lambda n, g: _u(n, -1000, 1000, g), None, lambda x, y: _round_half_away(x)),
    "roundeven": (lambda n, g: _u(n, -1000, 1000, g), None, lambda x, y: torch.round(x)),
    "rsqrt": (lambda n, g: _logu(n, -80, 80, g), None, lambda x, y: torch.rsqrt(x)),
    "sin": (lambda n, g: _u(n, -100, 100, g), None, lambda x, y: torch.sin(x)),
    "sinh": (lambda n, g: _u(n, -80, 80, g), None, lambda x, y: torch.sinh(x)),
    "sqrt": (lambda n, g: _logu(n, -80, 80, g), None, lambda x, y: torch.sqrt(x)),
    "tan": (lambda n, g: _u(n, -100, 100, g), None, lambda x, y: torch.tan(x)),
    "tanh": (lambda n, g: _u(n, -10, 10, g), None, lambda x, y: torch.tanh(x)),
    "trunc": (lambda n, g: _u(n, -1000, 1000, g), None, lambda x, y: torch.trunc(x)),
    "atan2": (lambda n, g: torch.randn(n, device="cuda", dtype=torch.float64, generator=g),
              lambda n, g: torch.randn(n, device="cuda", dtype=torch.float64, generator=g),
              lambda x, y: torch.atan2(x, y)),
    "copysign": (lambda n, g: _signed_logu(n, -10, 10, g), lambda n, g: _signed_logu(n, -10, 10, g),
                 lambda x, y: torch.copysign(x, y)),
    "powf": (lambda n, g: _logu(n, -4, 4, g), lambda n, g: _u(n, -8, 8, g),
             lambda x, y: torch.pow(x, y)),
    "divf": (lambda n, g: _signed_logu(n, -30, 30, g), lambda n, g: _signed_logu(n, -30, 30, g),
             lambda x, y: x / y),
    "fma": (lambda n, g: _signed_logu(n, -10, 10, g), lambda n, g: _signed_logu(n, -10, 10, g),
            lambda x, y: x * y + x),
    "clampf": (lambda n, g: torch.randn(n, device="cuda", dtype=torch.float64, generator=g),
               lambda n, g: torch.randn(n, device="cuda", dtype=torch.float64, generator=g),
               lambda x, y: torch.clamp(x, y, y)),
    "fpowi": (lambda n, g: _signed_logu(n, -2, 2, g), lambda n, g: torch.floor(_u(n, -8, 9, g)),
              lambda x, y: torch.pow(x, y)),
    "sincos": (lambda n, g: _u(n, -100, 100, g), None, lambda x, y: torch.sin(x)),
}
SPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-40, 3.0]
CLASSIFY = {"isnan": torch.isnan, "isinf": torch.isinf, "isfinite": torch.isfinite,
            "isnormal": None}


def ulp_error(got, ref, dtype):
    """|got - ref| in units in the last place of `dtype` at `ref` (float64);
    0 where both are the same infinity or both NaN, inf where only one is."""
    mant, emin = FORMAT[dtype]
    got = got.double()
    _, e = torch.frexp(ref)
    e = torch.clamp(e.double() - 1, min=emin)
    ulp = torch.exp2(e - mant)
    err = torch.abs(got - ref) / ulp
    same = (got == ref) | (torch.isnan(got) & torch.isnan(ref))
    err = torch.where(same, torch.zeros_like(err), err)
    return torch.nan_to_num(err, nan=float("inf"))


def run_kernel(kernel, x, y, n, out_dtype, pad=64):
    """out = kernel(x, y) with `pad` poisoned elements past n; returns out
    and whether the padding survived."""
    out = torch.full((n + pad,), float("nan") if out_dtype.is_floating_point else -7,
                     device="cuda", dtype=out_dtype)
    kernel(x, y, out, n)
    torch.cuda.synchronize()
    tail = out[n:]
    intact = bool(torch.isnan(tail).all()) if out_dtype.is_floating_point else bool((tail == -7).all())
    return out[:n], intact


def check_float(art, op, dtype, fast, n, g):
    name = f"math_{op}_{dtype}" + ("_fast" if fast else "")
    kernel = Kernel(os.path.join(art, name + ".json"))
    tdt = DTYPES[dtype]
    if op in CLASSIFY:
        base = torch.randn(n, device="cuda", generator=g).to(tdt)
        base[: len(SPECIAL) * 8] = torch.tensor(SPECIAL * 8, device="cuda").to(tdt)
        got, intact = run_kernel(kernel, base, base, n, tdt)
        x64 = base.double()
        if op == "isnormal":
            want = torch.isfinite(x64) & (torch.abs(x64) >= 2.0 ** FORMAT[dtype][1])
        else:
            want = CLASSIFY[op](x64)
        bad = int((got.double() != want.double()).sum())
        return {"kernel": name, "max_ulp": 0.0 if bad == 0 else float("inf"), "mismatches": bad,
                "intact_tail": intact}
    xdom, ydom, ref = OPS[op]
    x = xdom(n, g).to(tdt)
    y = (ydom(n, g) if ydom else torch.randn(n, device="cuda", dtype=torch.float64, generator=g)).to(tdt)
    if op == "divf":
        y = torch.where(y == 0, torch.ones_like(y), y)
    y_before = y.clone()
    got, intact = run_kernel(kernel, x, y, n, tdt)
    want = ref(x.double(), y_before.double())
    # A result beyond the dtype's range is its infinity.
    rounded = want.to(tdt).double()
    want = torch.where(torch.isinf(rounded) & ~torch.isinf(want), rounded, want)
    err = ulp_error(got, want, dtype)
    worst = int(torch.argmax(err))
    record = {"kernel": name, "max_ulp": float(err.max()), "mean_ulp": float(err[torch.isfinite(err)].mean()),
              "worst_input": [float(x[worst]), float(y_before[worst])], "worst_got": float(got[worst]),
              "worst_want": float(want[worst]), "intact_tail": intact}
    if op == "sincos":  # cos went to y
        cerr = ulp_error(y[:n], torch.cos(x.double()), dtype)
        record["max_ulp_cos"] = float(cerr.max())
        record["max_ulp"] = max(record["max_ulp"], record["max_ulp_cos"])
    return record


def check_int(art, op, n, g):
    name = f"math_{op}_i32"
    kernel = Kernel(os.path.join(art, name + ".json"))
    x = torch.randint(-2 ** 31, 2 ** 31 - 1, (n,), device="cuda", dtype=torch.int32, generator=g)
    y = torch.randint(-3, 12, (n,), device="cuda", dtype=torch.int32, generator=g)
    if op == "ipowi":
        x = torch.randint(-9, 10, (n,), device="cuda", dtype=torch.int32, generator=g)
    got, intact = run_kernel(kernel, x, y, n, torch.int32)
    xs, ys = x.cpu().tolist(), y.cpu().tolist()
    got = got.cpu().tolist()
    step = max(1, n // 20000)  # a sample: the reference is Python
    bad = 0
    for i in range(0, n, step):
        bad += got[i] != int_ref(op, xs[i], ys[i])
    return {"kernel": name, "max_ulp": 0.0 if bad == 0 else float("inf"), "mismatches": bad,
            "checked": len(range(0, n, step)), "intact_tail": intact}


def _wrap32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def int_ref(op, x, y):
    u = x & 0xFFFFFFFF
    if op == "absi":
        return _wrap32(abs(x))
    if op == "ctlz":
        return 32 - u.bit_length()
    if op == "cttz":
        return 32 if u == 0 else (u & -u).bit_length() - 1
    if op == "ctpop":
        return bin(u).count("1")
    if op == "ipowi":
        if y < 0:
            return 1 if x == 1 else ((-1 if y % 2 else 1) if x == -1 else 0)
        return _wrap32(x ** y)
    raise ValueError(op)


def git_commit(artifacts):
    """The commit the kernels were built at (commit.txt beside them), or
    this checkout's."""
    stamp = os.path.join(artifacts, "commit.txt")
    if os.path.exists(stamp):
        with open(stamp) as f:
            return f.read().strip()
    try:
        return subprocess.check_output(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                       text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=1000003)
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    with open(os.path.join(ROOT, "bench", "math_bounds.json")) as f:
        bounds = json.load(f)
    g = torch.Generator(device="cuda").manual_seed(51)
    names = sorted(os.path.basename(p)[:-5] for p in os.listdir(args.artifacts) if p.endswith(".json"))
    rows, failures = [], []
    for name in names:
        if args.only and not re.search(args.only, name):
            continue
        m = re.match(r"math_(\w+?)_(f32|f16|bf16|i32)(_fast)?$", name)
        if not m:
            continue
        op, dtype, fast = m.group(1), m.group(2), bool(m.group(3))
        try:
            row = (check_int(args.artifacts, op, args.n, g) if dtype == "i32"
                   else check_float(args.artifacts, op, dtype, fast, args.n, g))
        except Exception as e:  # noqa: BLE001 - one op's failure is a row
            row = {"kernel": name, "error": f"{type(e).__name__}: {e}"}
        bound = bounds.get(op + ("_fast" if fast else ""), {}).get(dtype)
        row["bound_ulp"] = bound
        ok = "error" not in row and row.get("intact_tail") and (
            bound is None or row["max_ulp"] <= bound)
        row["ok"] = bool(ok)
        if not ok:
            failures.append(name)
        rows.append(row)
        print(f"{name:28s} max {row.get('max_ulp', 'ERR')!s:>10} ulp  bound {bound}  "
              f"{'ok' if ok else 'FAIL ' + row.get('error', '')}", flush=True)
    record = {"date": datetime.date.today().isoformat(), "gpu": torch.cuda.get_device_name(),
              "commit": git_commit(args.artifacts), "n": args.n, "kernels": rows, "failures": failures}
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "math_accuracy.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
    print(f"{len(rows)} kernels, {len(failures)} failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
