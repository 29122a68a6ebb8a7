#!/usr/bin/env python3
"""tilec.bmm on the GPU, from precompiled kernels (no compiler: any attempt
to compile fails the case): bf16 and f16 batches of odd shapes (batch 1 to
37; M, N, K primes, sizes one off a power of two, single rows and columns,
non-multiples of the 128 x 256 tile, shape classes of the stacked matrices),
B row- or column-major, CuPy arrays too, strided operands (padded rows, every other matrix,
an expanded B shared by all matrices, a strided out), operands the fast
kernel cannot read (odd row strides, a base 2 bytes off: the any-strides
variant), the bias + activation epilogues (f32 output too), K = 0 (zeros,
or activation(bias)) and batch = 0, on both chips (sm_90a and sm_80 PTX).
Outputs are poisoned with NaN before every call; each case runs twice (the
checked path, then the plan the first call made, the output poisoned again)
and is compared with a float32 bmm reference with the same epilogue
(scripts/harness: relative error max|out - ref| / max|ref|, bounded as
gemm_sweep_check.py bounds it: 1.6e-2 for bf16/f16 outputs, 1e-3 for f32).

    python3 -m scripts.gpu.bmm_check --artifacts DIR [--out FILE]

DIR: TILEC_LIBRARY=build/lib/libtilec-c.so \\
     python3 -m scripts.build.build_python_artifacts --bmm-only --out DIR
(default DIR: $TILEC_ARTIFACTS, else .gpu/bmm_python; the bundle's is
.gpu/bundle/python). Writes FILE (default $OUT/bmm_check.json): the record
head (date, GPU, the artifacts' commit stamp), every case and all_ok; exits
non-zero on any failure.
"""

import argparse
import os
import sys

from scripts import ROOT
# No compiler on the GPU machine: make sure none is picked up by accident.
os.environ["TILEC_LIBRARY"] = os.path.join(ROOT, "no-compiler-on-this-machine", "libtilec-c.so")

import torch  # noqa: E402

import tilec  # noqa: E402
from scripts.harness import references as ref  # noqa: E402
from scripts.harness import tensors  # noqa: E402
from scripts.harness.records import new_record, write_record  # noqa: E402
from tilec import ops, plans  # noqa: E402

try:
    import cupy
except ImportError:
    cupy = None

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
TOLERANCE = {"bf16": 1.6e-2, "f16": 1.6e-2, "f32": 1e-3}

#: (batch, M, N, K) of the plain cases, row-major B.
SHAPES = [(1, 1, 1, 1), (1, 127, 255, 61), (3, 127, 255, 61), (37, 13, 17, 31),
          (5, 257, 129, 199), (2, 1, 513, 1001), (7, 1000, 1, 24), (16, 256, 256, 256),
          (4, 333, 777, 1024), (2, 1021, 509, 2053), (12, 333, 200, 136), (1, 4097, 63, 129),
          (2, 128, 1024, 64), (4, 128, 4096, 64), (8, 128, 4001, 64), (4, 1024, 1024, 1024),
          (3, 17, 9, 0), (0, 16, 16, 16)]


def cases():
    """Every case: a dict of how its operands are laid out."""
    out = []
    for dtype in ("bf16", "f16"):
        out += [dict(dtype=dtype, shape=s) for s in SHAPES]
        # The same with rows padded to 16 bytes: what the fast kernel reads
        # (the plain ones take the any-strides variant where K or N is odd).
        out += [dict(dtype=dtype, shape=s, a_pad=-s[3] % 8, b_pad=-s[2] % 8) for s in SHAPES
                if (s[2] % 8 or s[3] % 8) and s[0] * s[1] * s[2] * s[3]]
        out += [
            dict(dtype=dtype, shape=(9, 200, 120, 136), b_layout="col"),
            dict(dtype=dtype, shape=(4, 77, 333, 1000), b_layout="col"),
            dict(dtype=dtype, shape=(6, 61, 45, 61), b_layout="col", a_pad=3, b_pad=3),
            # Rows padded to 16 bytes (the fast kernel), matrices apart.
            dict(dtype=dtype, shape=(5, 100, 61, 61), a_pad=3, b_pad=3, out_pad=8),
            dict(dtype=dtype, shape=(6, 64, 96, 128), every_other=True),
            dict(dtype=dtype, shape=(11, 129, 65, 257), expand_b=True),
            dict(dtype=dtype, shape=(11, 129, 72, 256), expand_b=True),
            # What only the any-strides variant reads.
            dict(dtype=dtype, shape=(3, 64, 64, 64), a_pad=1),
            dict(dtype=dtype, shape=(5, 31, 200, 77), a_offset=1),
            dict(dtype=dtype, shape=(4, 100, 40, 72), b_layout="col", b_pad=1, a_offset=1),
            dict(dtype=dtype, shape=(2, 63, 64, 64), b_batch_pad=4),  # matrices 8 bytes off
            # An allocated out.
            dict(dtype=dtype, shape=(7, 150, 70, 90), allocate=True),
            dict(dtype=dtype, shape=(7, 150, 72, 96), allocate=True),
        ]
    out += [
        dict(dtype="bf16", shape=(5, 130, 300, 77), bias=True, activation="relu"),
        dict(dtype="bf16", shape=(5, 130, 304, 80), bias=True, activation="relu"),
        dict(dtype="bf16", shape=(6, 64, 520, 200), bias=True, activation="gelu",
             out_dtype="f32"),
        dict(dtype="bf16", shape=(3, 33, 17, 5), bias=True, activation="gelu", out_dtype="f32",
             a_pad=1),
        dict(dtype="f16", shape=(3, 255, 129, 64), bias=True, activation="silu"),
        dict(dtype="f16", shape=(3, 255, 136, 64), bias=True, activation="silu"),
        dict(dtype="f16", shape=(2, 1, 1, 1), bias=True, activation="silu"),
        dict(dtype="bf16", shape=(3, 17, 9, 0), bias=True, activation="relu"),
        dict(dtype="bf16", shape=(2, 5, 12, 0), bias=True, activation="gelu", out_dtype="f32"),
    ]
    if cupy is not None:  # CuPy arrays in and out (f16: CuPy has no bf16)
        out += [dict(dtype="f16", shape=(3, 127, 255, 61), cupy=True),
                dict(dtype="f16", shape=(4, 64, 64, 64), cupy=True, allocate=True),
                dict(dtype="f16", shape=(3, 17, 9, 0), cupy=True, allocate=True),
                dict(dtype="f16", shape=(3, 17, 9, 0), cupy=True, bias=True, activation="silu")]
    return out


def operand(batch, rows, cols, dtype, pad=0, offset=0, batch_pad=0):
    """A [batch, rows, cols] tensor with rows ``cols + pad`` elements apart
    and matrices ``rows * (cols + pad) + batch_pad`` apart, ``offset``
    elements into its buffer (random normal values)."""
    ld = cols + pad
    stride = rows * ld + batch_pad
    span = offset + ((batch - 1) * stride + (rows - 1) * ld + cols if batch * rows * cols else 0)
    buf = tensors.randn(max(span, 1), dtype)
    return buf[offset:].as_strided((batch, rows, cols), (stride, ld, 1))


def make_operands(c):
    batch, m, n, k = c["shape"]
    dtype = DTYPES[c["dtype"]]
    if c.get("every_other"):
        a = operand(2 * batch, m, k, dtype)[::2]
    else:
        a = operand(batch, m, k, dtype, c.get("a_pad", 0), c.get("a_offset", 0))
    if c.get("expand_b"):
        b = operand(1, k, n, dtype).expand(batch, k, n)
    elif c.get("b_layout") == "col":  # b = w.transpose(1, 2) of a [batch, N, K] w
        b = operand(batch, n, k, dtype, c.get("b_pad", 0), 0, c.get("b_batch_pad", 0))
        b = b.transpose(1, 2)
    else:
        b = operand(batch, k, n, dtype, c.get("b_pad", 0), 0, c.get("b_batch_pad", 0))
    out_dtype = DTYPES[c.get("out_dtype", c["dtype"])]
    bias = torch.randn(n, device="cuda").to(out_dtype) if c.get("bias") else None
    out = None if c.get("allocate") else operand(batch, m, n, out_dtype, c.get("out_pad", 0))
    return a, b, bias, out, out_dtype


def run(c, chip, artifacts):
    batch, m, n, k = c["shape"]
    a, b, bias, out, out_dtype = make_operands(c)
    want = ref.gemm(a, b, bias=bias, act=c.get("activation"))
    ops.clear_kernel_memo()  # (to record the kernel this case resolves)
    record = dict(chip=chip, dtype=c["dtype"], shape=[batch, m, n, k],
                  layout={key: v for key, v in c.items() if key not in ("dtype", "shape")},
                  a_strides=list(a.stride()), b_strides=list(b.stride()))
    errors, unwritten = [], []
    for attempt in ("checked", "plan"):
        if out is None:  # what tilec.bmm allocates most likely starts as NaN
            if c.get("cupy"):
                tensors.poison_allocator(batch * m * n, cupy.float16, cupy=cupy)
            else:
                tensors.poison_allocator(batch * m * n, out_dtype)
        else:
            tensors.poison_(out)
        args = (a, b, out, bias)
        if c.get("cupy"):  # the same memory as CuPy arrays
            args = [None if t is None else cupy.asarray(t) for t in args]
        result = tilec.bmm(*args[:2], out=args[2], bias=args[3],
                           activation=c.get("activation"), out_dtype=c.get("out_dtype"),
                           chip=chip, artifacts=artifacts)
        torch.cuda.synchronize()
        if c.get("cupy"):
            if not isinstance(result, cupy.ndarray):
                raise AssertionError(f"CuPy inputs gave a {type(result).__name__}")
            if out is not None and result.data.ptr != out.data_ptr():
                raise AssertionError("tilec.bmm did not return out")
            result = torch.as_tensor(result, device="cuda")
        elif out is not None and result is not out:
            raise AssertionError("tilec.bmm did not return out")
        if tuple(result.shape) != (batch, m, n) or result.dtype != out_dtype:
            raise AssertionError(f"got {result.dtype} {list(result.shape)}, expected "
                                 f"{out_dtype} {[batch, m, n]}")
        errors.append(ref.rel_err(result, want))
        unwritten.append(tensors.unwritten(result))
        if attempt == "checked":
            record["kernels"] = sorted({key[0] for key in plans._kernels})
    if not c.get("bias") and want.numel():  # torch's own error, for comparison
        record["torch_rel_err"] = ref.rel_err(torch.bmm(a, b), want)
    tol = TOLERANCE[c.get("out_dtype", c["dtype"])]
    record.update(rel_err=errors, unwritten=unwritten, tolerance=tol,
                  plans=len(plans._tls.plans),
                  ok=bool(all(e <= tol for e in errors) and not any(unwritten)))
    return record


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", default=os.environ.get("TILEC_ARTIFACTS")
                    or os.path.join(ROOT, ".gpu", "bmm_python"))
    ap.add_argument("--chips", default="sm_90a,sm_80")
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "bmm_check.json"))
    ap.add_argument("--seed", type=int, default=20)
    args = ap.parse_args()
    artifacts = os.path.abspath(args.artifacts)
    # The shape rule (libtilec-rules.so, no compiler needed) ships beside the
    # artifacts (scripts/build/build_python_artifacts.py).
    if os.path.isfile(os.path.join(artifacts, "libtilec-rules.so")):
        os.environ["TILEC_RULES_LIBRARY"] = os.path.join(artifacts, "libtilec-rules.so")
    torch.manual_seed(args.seed)
    records = []
    for chip in [c for c in args.chips.split(",") if c]:
        for c in cases():
            try:
                r = run(c, chip, artifacts)
            except Exception as e:  # noqa: BLE001 - a refusal or a failure is a wrong case
                r = dict(chip=chip, dtype=c["dtype"], shape=list(c["shape"]),
                         layout={k: v for k, v in c.items() if k not in ("dtype", "shape")},
                         ok=False, error=f"{type(e).__name__}: {e}"[:500])
            records.append(r)
            status = "ok" if r["ok"] else "FAILED"
            print(f"{status} {chip} {r['dtype']} {r['shape']} {r['layout']} "
                  f"{r.get('kernels', '')} rel_err={r.get('rel_err')} {r.get('error', '')}",
                  flush=True)
    passed = sum(r["ok"] for r in records)
    doc = new_record("bmm_check", artifacts=artifacts,
                     cupy=None if cupy is None else cupy.__version__,
                     cases=records, passed=passed, failed=len(records) - passed,
                     all_ok=passed == len(records))
    write_record(doc, args.out)
    print(f"{passed} passed, {len(records) - passed} failed of {len(records)} -> {args.out}")
    return 0 if doc["all_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
