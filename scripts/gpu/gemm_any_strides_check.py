#!/usr/bin/env python3
"""tilec.gemm on operands the fast path cannot read, on the GPU: row strides
that are not whole 16-byte chunks (7x13x19, 1000x999x1001, 4097x4095x63,
129x257x8200, the shapes issue 20 found refused) and bases off 16-byte
alignment, for every input type of the any-strides variant (bf16 and f16
with B row- or column-major and epilogues, TF32, FP8 with and without
scales, int8), against a float32 reference with outputs poisoned first.
For bf16 and f16, times each beside torch.matmul (alternating rounds):
with ``--base DIR``, also the same kernels from another build (an A/B of a
compiler change), and with ``--configs``, other tile configurations of the
any-strides variant (bf16 only; named as tilec.gemm names them), and the
shape class tilec.gemm's dispatch takes (kernels.gemm_unaligned_config). Inputs,
poison, reference, timing and record: scripts/harness.

    python3 -m scripts.gpu.gemm_any_strides_check --artifacts DIR [--base DIR]
        [--configs '[{"aligned": 0, "block_n": 128}]'] [--chips sm_90a,sm_80] [--out FILE]

DIR: python3 -m scripts.build.build_python_artifacts (its aligned = 0 variants).
"""

import argparse
import json
import os
import sys

import torch

import tilec
from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.records import new_record, write_record
from scripts.harness.timing import time_rounds

SHAPES = [(7, 13, 19), (1000, 999, 1001), (4097, 4095, 63), (129, 257, 8200), (512, 512, 512),
          (4095, 4095, 4095)]

#: label -> (A dtype, B dtype, B layout, out dtype, tilec.gemm keywords, reference keywords,
#: tolerance). The variants of scripts/build/build_python_artifacts.py with an
#: aligned = 0 kernel.
VARIANTS = {
    "bf16": (torch.bfloat16, torch.bfloat16, "row", torch.bfloat16, {}, {}, 1e-2),
    "bf16_bcol": (torch.bfloat16, torch.bfloat16, "col", torch.bfloat16, {}, {}, 1e-2),
    "f16": (torch.float16, torch.float16, "row", torch.float16, {}, {}, 1e-2),
    "bf16_bias_relu": (torch.bfloat16, torch.bfloat16, "row", torch.bfloat16,
                       {"activation": "relu"}, {"act": "relu"}, 1e-2),
    "bf16_out_f32": (torch.bfloat16, torch.bfloat16, "row", torch.float32, {}, {}, 1e-4),
    "f32_tf32": (torch.float32, torch.float32, "col", torch.float32, {"precision": "tf32"}, {},
                 2e-3),
    "fp8_e4m3_e5m2": (torch.float8_e4m3fn, torch.float8_e5m2, "col", torch.bfloat16, {}, {},
                      1.6e-2),
    "fp8_scales": (torch.float8_e4m3fn, torch.float8_e4m3fn, "col", torch.bfloat16,
                   {"scales": True}, {}, 1.6e-2),
    "i8": (torch.int8, torch.int8, "col", torch.int32, {}, {}, 0.0),
}
TIMED = ("bf16", "bf16_bcol", "f16")


def operand(rows, cols, dtype, offset=0):
    """rows x cols, contiguous (row stride = cols), starting `offset`
    elements into its buffer (offset 1: a base off 16-byte alignment)."""
    if dtype == torch.int8:
        buf = torch.randint(-8, 8, (rows * cols + offset,), device="cuda", dtype=torch.int8)
    else:
        buf = tensors.randn(rows * cols + offset, torch.float32).to(dtype)
    return buf[offset:].view(rows, cols)


def make_case(label, m, n, k, offset):
    """(a, b, out, call keywords, reference) of one case."""
    a_dtype, b_dtype, layout, out_dtype, kw, ref_kw, _ = VARIANTS[label]
    a = operand(m, k, a_dtype, offset)
    b = operand(k, n, b_dtype) if layout == "row" else operand(n, k, b_dtype).t()
    call = {key: value for key, value in kw.items() if key != "scales"}
    bias = None
    if "activation" in kw:
        bias = tensors.randn(n, out_dtype)
        call["bias"] = bias
    if kw.get("scales"):
        call["scale_a"] = torch.rand(m, 1, device="cuda") + 0.5
        call["scale_b"] = torch.full((1,), 1.25, device="cuda")
    out = tensors.poisoned((m, n), out_dtype)
    want = ref.gemm(a, b, bias=bias, scale_a=call.get("scale_a"), scale_b=call.get("scale_b"),
                    dtype=torch.float64 if a_dtype == torch.int8 else None, **ref_kw)
    return a, b, out, call, want


def check(label, chip, shape, offset, artifacts, config):
    """One call of one build checked against the reference; the case and
    its operands (for timing)."""
    m, n, k = shape
    a, b, out, call, want = make_case(label, m, n, k, offset)
    tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts, config=config, **call)
    torch.cuda.synchronize()
    err = ref.rel_err(out, want)
    tol = VARIANTS[label][-1]
    ok = err <= tol and tensors.unwritten(out) == 0
    return dict(variant=label, chip=chip, shape=[m, n, k], a_offset_elems=offset,
                config=config, rel_err=err, tolerance=tol, ok=bool(ok)), (a, b, out, call)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--base", help="artifacts of another build, timed beside --artifacts")
    ap.add_argument("--configs", default="[]",
                    help="JSON list of other any-strides configs to check and time (bf16)")
    ap.add_argument("--chips", default="sm_90a,sm_80")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                   "gemm_any_strides.json"))
    args = ap.parse_args()
    torch.manual_seed(0)
    builds = {"tilec": args.artifacts}
    if args.base:
        builds["tilec_base"] = args.base
    configs = [{"aligned": 0}] + json.loads(args.configs)
    cases, timings = [], []
    num_sms = torch.cuda.get_device_properties(0).multi_processor_count
    for chip in args.chips.split(","):
        for label in VARIANTS:
            for shape in SHAPES:
                for offset in (0, 1):
                    impls = {}
                    for build, artifacts in builds.items():
                        # (Other configs: bf16, this build only; the shape class
                        # tilec.gemm's dispatch takes for such operands, where it
                        # is not the plain variant: timed types, this build.)
                        mine = configs if label == "bf16" else configs[:1]
                        dtype = "f16" if label == "f16" else "bf16"
                        shape_class = tilec.kernels.gemm_unaligned_config(
                            *shape, chip, num_sms, dtype=dtype)
                        if label in TIMED and shape_class not in mine:
                            mine = mine + [shape_class]
                        for config in (mine if build == "tilec" else configs[:1]):
                            name = build + ("_class" if config is shape_class else
                                            tilec.kernels.gemm_config_suffix(config)[
                                                len("_aligned0"):])
                            try:
                                case, ops = check(label, chip, shape, offset, artifacts, config)
                            except Exception as e:  # noqa: BLE001 - recorded, not fatal
                                if (isinstance(e, tilec.KernelNotAvailableError)
                                        and config is shape_class):
                                    # (Artifacts built without the class: tilec.gemm's
                                    # dispatch falls back to the plain variant.)
                                    print(f"skipped {label} {shape}: {e}"[:200], flush=True)
                                    continue
                                case, ops = dict(variant=label, chip=chip, shape=list(shape),
                                                 a_offset_elems=offset, config=config,
                                                 error=f"{type(e).__name__}: {e}"[:300],
                                                 ok=False), None
                            case["impl"] = name
                            cases.append(case)
                            print(json.dumps(case), flush=True)
                            if ops:
                                impls[name] = (artifacts, config, ops)
                    if label not in TIMED or offset or not impls:
                        continue
                    fns = {name: (lambda art=art, cfg=cfg, o=o:
                                  tilec.gemm(o[0], o[1], out=o[2], chip=chip, artifacts=art,
                                             config=cfg, **o[3]))
                           for name, (art, cfg, o) in impls.items()}
                    a, b = next(iter(impls.values()))[2][:2]
                    fns["torch"] = lambda a=a, b=b: torch.matmul(a, b)
                    ms = time_rounds(fns, rounds=args.rounds)
                    m, n, k = shape
                    tflops = {key: 2 * m * n * k / (v * 1e-3) / 1e12 for key, v in ms.items()}
                    row = dict(variant=label, chip=chip, shape=list(shape), ms=ms, tflops=tflops,
                               vs_torch={key: ms["torch"] / v for key, v in ms.items()
                                         if key != "torch"})
                    timings.append(row)
                    print(json.dumps(row), flush=True)
    record = new_record("gemm_any_strides_check", artifacts=args.artifacts, base=args.base,
                        gpu=torch.cuda.get_device_name(), cases=cases, timings=timings,
                        passed=sum(c["ok"] for c in cases),
                        failed=sum(not c["ok"] for c in cases))
    write_record(record, args.out)
    print(f"{record['passed']} passed, {record['failed']} failed")
    return 1 if record["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
