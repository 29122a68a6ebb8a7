#!/usr/bin/env python3
"""GPU check of libtilec-runtime.so's C ABI (include/tilec-c/Runtime.h) from
Python through ctypes (python/tilec/_rtcapi.py), on the gemm_bf16 kernels
of scripts/build/build_aot_artifacts.sh (one directory per chip, each with
gemm_bf16.cubin and .json):

  * tilecRtKernelLaunch on torch tensors (ragged M and K, NaN-poisoned C) on
    torch's current stream, against a float32 reference;
  * a prepared launch (tilecRtLaunchCreate, then tilecRtLaunchRun with a
    pre-built argument buffer whose C pointer is updated in place): correct
    on the new output too;
  * refused launches (misaligned A, lda not a multiple of 8) return
    TilecRtInvalidArguments with the runtime's message and launch nothing;
  * host cost per launch while the GPU is held busy (torch.cuda._sleep),
    interleaved round by round: tilecRtLaunchRun with unchanged arguments
    (one ctypes call: what a planned Python call would cost), with the C
    pointer alternating between two outputs (a re-bind each call),
    tilecRtKernelLaunch (bind + cached tensor maps + launch each call), and
    the current Python path (tilec.runtime.Kernel.__call__ and its
    PreparedLaunch) for comparison.

Writes one JSON record (--out) and exits non-zero if a check fails.

    TILEC_RUNTIME_LIBRARY=.../libtilec-runtime.so \\
        python3 scripts/gpu/launch_contract_check.py --aot .gpu/launch-contract/aot
"""

import argparse
import ctypes
import datetime
import json
import os
import statistics
import sys
import time

from scripts import ROOT

import torch

from tilec import _rtcapi, runtime

failures = []


def verdict(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def padded(rows, cols, quantum=8):
    """A bf16 rows x cols matrix with rows padded to a multiple of 8."""
    ld = (cols + quantum - 1) // quantum * quantum
    return torch.randn(rows, ld, device="cuda").bfloat16()[:, :cols]


def make_args(values):
    """A TilecRtArg buffer of gemm_bf16's launch values (pointers, i32s)."""
    args = (_rtcapi.Arg * len(values))()
    for i, v in enumerate(values):
        _rtcapi.make_arg(args[i], _rtcapi.ARG_POINTER if i < 3 else _rtcapi.ARG_INT, v)
    return args


def gemm_values(a, b, c):
    m, k = a.shape
    n = b.shape[1]
    return [a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k, a.stride(0), b.stride(0),
            c.stride(0)]


def rel_err(c, a, b):
    ref = a.float() @ b.float()
    return ((c.float() - ref).abs().max() / ref.abs().max()).item()


def check_chip(lib, directory, record):
    """Correctness and refusals through the C ABI on one chip's kernel."""
    chip = os.path.basename(directory)
    with open(os.path.join(directory, "gemm_bf16.cubin"), "rb") as f:
        cubin = f.read()
    with open(os.path.join(directory, "gemm_bf16.json"), "rb") as f:
        meta = f.read()
    kernel = ctypes.c_void_p()
    ok = lib.tilecRtKernelCreate(cubin, len(cubin), meta, len(meta), ctypes.byref(kernel))
    verdict(ok == _rtcapi.SUCCESS, f"{chip}: tilecRtKernelCreate {_rtcapi.last_error()}")
    if ok != _rtcapi.SUCCESS:
        return None
    torch.manual_seed(1)
    m, n, k = 517, 392, 263
    a, b = padded(m, k), padded(k, n)
    c = padded(m, n).fill_(float("nan"))
    stream = torch.cuda.current_stream().cuda_stream
    args = make_args(gemm_values(a, b, c))
    status = lib.tilecRtKernelLaunch(kernel, args, 9, None, stream)
    torch.cuda.synchronize()
    err = rel_err(c, a, b)
    verdict(status == _rtcapi.SUCCESS and err < 1.6e-2,
            f"{chip}: tilecRtKernelLaunch {m}x{n}x{k} rel err {err:.2e} {_rtcapi.last_error()}")
    # A prepared launch, then the same buffer with another C.
    launch = ctypes.c_void_p()
    status = lib.tilecRtLaunchCreate(kernel, args, 9, None, ctypes.byref(launch))
    c2 = padded(m, n).fill_(float("nan"))
    args[2].address = c2.data_ptr()
    status = status or lib.tilecRtLaunchRun(launch, args, 9, stream)
    torch.cuda.synchronize()
    err = rel_err(c2, a, b)
    verdict(status == _rtcapi.SUCCESS and err < 1.6e-2,
            f"{chip}: tilecRtLaunchRun with an updated C, rel err {err:.2e}")
    # Refused launches launch nothing.
    c3 = padded(m, n).fill_(float("nan"))
    bad = make_args(gemm_values(a, b, c3))
    bad[0].address += 2
    status = lib.tilecRtKernelLaunch(kernel, bad, 9, None, stream)
    verdict(status == _rtcapi.INVALID_ARGUMENTS and "16-byte aligned" in _rtcapi.last_error(),
            f"{chip}: misaligned A refused: {_rtcapi.last_error()}")
    bad = make_args(gemm_values(a, b, c3))
    bad[6].intValue += 1
    status = lib.tilecRtKernelLaunch(kernel, bad, 9, None, stream)
    verdict(status == _rtcapi.INVALID_ARGUMENTS and "multiple of 8" in _rtcapi.last_error(),
            f"{chip}: lda refused: {_rtcapi.last_error()}")
    torch.cuda.synchronize()
    verdict(bool(torch.isnan(c3.float()).all()), f"{chip}: nothing launched for them")
    record["chips"][chip] = {"rel_err": err}
    return kernel, launch


def timed(functions, calls, rounds=15):
    """Microseconds per call of each function, per round, the rounds
    interleaved, with the GPU held busy so that only enqueueing counts."""
    per_round = {name: [] for name in functions}
    for _ in range(rounds):
        for name, f in functions.items():
            torch.cuda._sleep(50_000_000)
            f()
            start = time.perf_counter()
            for _ in range(calls):
                f()
            per_round[name].append((time.perf_counter() - start) / calls * 1e6)
            torch.cuda.synchronize()
    return per_round


def overhead(lib, directory, kernel, launch, record, calls=200):
    """Host cost per launch of the C ABI's paths and the Python runtime's."""
    chip = os.path.basename(directory)
    m = n = k = 256
    a, b = padded(m, k), padded(k, n)
    c, c2 = padded(m, n), padded(m, n)
    stream = torch.cuda.current_stream().cuda_stream
    args = make_args(gemm_values(a, b, c))
    lib.tilecRtLaunchRun(launch, args, 9, stream)  # bind once to these tensors
    other = [c.data_ptr(), c2.data_ptr()]
    address, run, klaunch = ctypes.addressof(args), lib.tilecRtLaunchRun, lib.tilecRtKernelLaunch
    state = [0]

    def alternating():
        state[0] ^= 1
        args[2].address = other[state[0]]
        run(launch, address, 9, stream)
    py_kernel = runtime.Kernel(os.path.join(directory, "gemm_bf16.json"))
    py_args = (a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
    py_prepared = py_kernel.prepare(gemm_values(a, b, c))
    per_round = timed({
        "c_launch_run_same_args": lambda: run(launch, address, 9, stream),
        "c_launch_run_no_args": lambda: run(launch, None, 0, stream),
        "c_launch_run_new_pointer": alternating,
        "c_kernel_launch": lambda: klaunch(kernel, address, 9, None, stream),
        "python_kernel_call": lambda: py_kernel(*py_args),
        "python_prepared_launch": lambda: py_prepared(stream)}, calls)
    summary = {name: {"median_us": statistics.median(v), "min_us": min(v)}
               for name, v in per_round.items()}
    record["overhead"][chip] = summary
    for name, s in summary.items():
        print(f"{chip}: {name}: {s['median_us']:.2f} us (min {s['min_us']:.2f})", flush=True)
    torch.cuda.synchronize()
    lib.tilecRtLaunchRun(launch, args, 9, stream)
    torch.cuda.synchronize()
    err = rel_err(c, a, b)
    verdict(err < 1.6e-2, f"{chip}: results after timing, rel err {err:.2e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--aot", default=os.path.join(ROOT, ".gpu", "launch-contract", "aot"))
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "out"),
                                                  "launch_contract_check.json"))
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()
    lib = _rtcapi.library()
    print(f"runtime library: {lib._name}", flush=True)
    record = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "library": lib._name, "chips": {}, "overhead": {}}
    torch.cuda.init()
    torch.empty(1, device="cuda")  # the primary context, current on this thread
    for chip in sorted(os.listdir(args.aot)):
        directory = os.path.join(args.aot, chip)
        if not os.path.isfile(os.path.join(directory, "gemm_bf16.json")):
            continue
        handles = check_chip(lib, directory, record)
        if handles is not None:
            overhead(lib, directory, *handles, record, args.calls)
    record["failures"] = failures
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=2)
    print(f"{'FAIL' if failures else 'PASS'}: {len(failures)} failed checks; record in "
          f"{args.out}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
