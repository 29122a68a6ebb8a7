#!/usr/bin/env python3
"""Host cost per call of the tilec launch path, on the CPU, with the fake
torch and CUDA driver of fake_cuda.py (a launch does nothing).

Times, for a 256x256x256 bf16 GEMM on an sm_80-style kernel (no tensor maps)
and an sm_90a-style one (3 tensor maps, persistent grid):

  * ``raw``: ``tilecRtLaunchRun`` of a launch prepared once, with no
    arguments to compare -- the floor, one ctypes call into
    libtilec-runtime.so (whose fake launchKernelEx is a C function doing
    nothing);
  * ``kernel_call``: ``tilec.runtime.Kernel.__call__`` on tensors;
  * ``gemm``: ``tilec.gemm(a, b, out=out)`` (precompiled artifacts);
  * ``gemm_alloc``: ``tilec.gemm(a, b)`` (allocates out).

and for a [2, 8, 512, 128] bf16 ``tilec.attention`` (the attention kernel's
metadata has no tensor maps on either chip):

  * ``attention_raw``: the floor as above, for the attention kernel;
  * ``attention``: ``tilec.attention(q, k, v, out=out)``;
  * ``attention_alloc``: ``tilec.attention(q, k, v)`` (allocates out);
  * ``attention_lse``: ``tilec.attention(q, k, v, out=out, return_lse=True)``
    (allocates the lse).

The GPU-side counterpart is scripts/gpu/python_check.py (real driver, GPU kept
busy so that only enqueueing is timed).

    python3 python/tests/overhead_bench.py [--package DIR] [--calls N] [--json]

``--package`` puts another copy of the package first on sys.path (e.g. an
older version, to compare).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def gemm_meta(name, chip):
    """Metadata shaped like the compiler's for the plain bf16 GEMM."""
    params = [{"name": n, "kind": "pointer", "dtype": "bf16", "align": 16} for n in "ABC"]
    params += [{"name": n, "kind": "scalar", "dtype": "i32"} for n in ("M", "N", "K")]
    params += [{"name": n, "kind": "scalar", "dtype": "i32", "divisibility": 8}
               for n in ("lda", "ldb", "ldc")]
    meta = {"kernel": name, "chip": chip, "cluster": [1, 1, 1], "params": params,
            "tilec_version": "0.1.0"}
    if chip == "sm_90a":
        maps = [("A", ["K", "M"], "lda", [64, 128]), ("B", ["N", "K"], "ldb", [64, 64]),
                ("C", ["N", "M"], "ldc", [64, 128])]
        meta.update(cubin_arch="sm_90a", block=[384, 1, 1], smem_bytes=213120, persistent=True,
                    grid=["ceildiv(M, 128) * ceildiv(N, 64)"],
                    tensor_maps=[{"base": b, "box": box, "dtype": "bf16", "elem_bytes": 2,
                                  "index": 9 + i, "sizes": sizes, "strides": [1, ld],
                                  "swizzle": 128}
                                 for i, (b, sizes, ld, box) in enumerate(maps)])
    else:
        meta.update(cubin_arch="sm_90", block=[256, 1, 1], smem_bytes=98304, persistent=False,
                    grid=["ceildiv(M, 128) * ceildiv(N, 256)"], tensor_maps=[])
    return meta


def attention_meta(name, chip, head_dim=128):
    """Metadata shaped like the compiler's for tile.attention (bf16)."""
    pointers = [{"name": n, "kind": "pointer", "dtype": "bf16"} for n in "QKVO"]
    pointers.append({"name": "LSE", "kind": "pointer", "dtype": "f32"})
    if chip == "sm_80":  # K/V go through cp.async: 16-byte chunks
        pointers[1]["align"] = pointers[2]["align"] = 16
    scalars = [{"name": n, "kind": "scalar", "dtype": "i32"}
               for n in ("B", "H", "HK", "SQ", "SK", "q_batch", "q_head", "kv_batch", "kv_head",
                         "lse_batch")]
    if chip == "sm_80":
        scalars[7]["divisibility"] = scalars[8]["divisibility"] = 8
    return {"kernel": name, "chip": chip, "cluster": [1, 1, 1], "params": pointers + scalars,
            "block": [256, 1, 1], "grid": ["ceildiv(SQ, 128)", "H", "B"],
            "cubin_arch": "sm_90a" if chip == "sm_90a" else "sm_90",
            "smem_bytes": 98816 if chip == "sm_80" else 33280, "persistent": False,
            "tensor_maps": [], "tilec_version": "0.1.0"}


def write_kernel(artifacts, chip, name, meta, source):
    """A (fake) precompiled kernel as build_python_artifacts.py writes it."""
    os.makedirs(os.path.join(artifacts, chip), exist_ok=True)
    base = os.path.join(artifacts, chip, name)
    with open(base + ".json", "w") as f:
        json.dump(meta, f)
    with open(base + ".cubin", "wb") as f:
        f.write(b"\x7fELF fake cubin")
    with open(base + ".source.mlir", "w") as f:
        f.write(source)
    return base


def raw_launcher(kernel, values):
    """The floor: one ``tilecRtLaunchRun`` of a launch of ``values``
    prepared once, with no arguments to compare -- what any launch through
    libtilec-runtime.so costs (one ctypes call)."""
    prepared = kernel.prepare(values)
    run, handle = prepared._run, prepared.handle

    def raw():
        run(handle, None, 0, 0x5000)
    raw.prepared = prepared
    return raw


def per_call_us(fn, calls, rounds):
    """Median and minimum over ``rounds`` of microseconds per call."""
    for _ in range(min(calls, 200)):
        fn()
    results = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        results.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(results), min(results)


def run(calls=20000, rounds=7, shape=(256, 256, 256)):
    import fake_cuda
    torch, driver = fake_cuda.install()
    try:
        import tilec
        from tilec import kernels, ops, runtime
        driver.record = False
        m, n, k = shape
        results = {"shape": list(shape), "calls_per_round": calls, "rounds": rounds,
                   "package": os.path.dirname(tilec.__file__)}
        with tempfile.TemporaryDirectory() as artifacts:
            for chip in ("sm_80", "sm_90a"):
                config = kernels.gemm_shape_config(m, n, k, chip)
                name = kernels.gemm_name() + kernels.gemm_config_suffix(config)
                _, source = kernels.gemm_source(config=config, name=name)
                base = write_kernel(artifacts, chip, name, gemm_meta(name, chip), source)

                a = fake_cuda.tensor((m, k))
                b = fake_cuda.tensor((k, n))
                out = fake_cuda.tensor((m, n))
                kernel = runtime.Kernel(base + ".json")
                args = (a, b, out, m, n, k, k, n, n)
                kernel(*args)
                raw = raw_launcher(kernel, [a.data_ptr(), b.data_ptr(), out.data_ptr()]
                                   + list(args[3:]))

                def gemm():
                    tilec.gemm(a, b, out=out, chip=chip, artifacts=artifacts)

                def gemm_alloc():
                    tilec.gemm(a, b, chip=chip, artifacts=artifacts)

                row = {}
                for label, fn in (("raw", raw), ("kernel_call", lambda: kernel(*args)),
                                  ("gemm", gemm), ("gemm_alloc", gemm_alloc)):
                    median, best = per_call_us(fn, calls, rounds)
                    row[label + "_us"] = round(median, 3)
                    row[label + "_min_us"] = round(best, 3)
                for label in ("gemm", "kernel_call"):
                    for stat in ("_us", "_min_us"):
                        row[label + "_over_raw" + stat] = round(
                            row[label + stat] - row["raw" + stat], 3)

                # tilec.attention on the same chip.
                batch, heads, seq, dim = 2, 8, 512, 128
                name, source = kernels.attention_source(head_dim=dim)
                base = write_kernel(artifacts, chip, name, attention_meta(name, chip), source)
                q, k_, v, o = (fake_cuda.tensor((batch, heads, seq, dim)) for _ in range(4))
                lse = fake_cuda.tensor((batch, heads, seq), "float32")
                kernel = runtime.Kernel(base + ".json")
                stride = heads * seq * dim
                values = [t.data_ptr() for t in (q, k_, v, o, lse)] + [
                    batch, heads, heads, seq, seq, stride, seq * dim, stride, seq * dim,
                    heads * seq]
                raw = raw_launcher(kernel, values)
                for label, fn in (
                        ("attention_raw", raw),
                        ("attention", lambda: tilec.attention(q, k_, v, out=o, chip=chip,
                                                              artifacts=artifacts)),
                        ("attention_alloc", lambda: tilec.attention(q, k_, v, chip=chip,
                                                                    artifacts=artifacts)),
                        ("attention_lse", lambda: tilec.attention(
                            q, k_, v, out=o, return_lse=True, chip=chip, artifacts=artifacts))):
                    median, best = per_call_us(fn, calls, rounds)
                    row[label + "_us"] = round(median, 3)
                    row[label + "_min_us"] = round(best, 3)
                row["attention_over_raw_us"] = round(row["attention_us"] - row["attention_raw_us"],
                                                     3)
                results[chip] = row
            ops.clear_kernel_memo()
        return results
    finally:
        fake_cuda.uninstall()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--package", help="directory holding the tilec package to measure")
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.abspath(args.package) if args.package
                    else os.path.join(HERE, ".."))
    results = run(args.calls, args.rounds)
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print(f"tilec from {results['package']}; us per call (median of {args.rounds} rounds of "
          f"{args.calls}), fake driver")
    for chip in ("sm_80", "sm_90a"):
        r = results[chip]
        print(f"{chip:7s} raw {r['raw_us']:6.2f}  Kernel.__call__ {r['kernel_call_us']:6.2f}  "
              f"tilec.gemm {r['gemm_us']:6.2f}  (alloc out {r['gemm_alloc_us']:6.2f})  "
              f"gemm - raw {r['gemm_over_raw_us']:6.2f}")
        print(f"{'':7s} raw {r['attention_raw_us']:6.2f}  tilec.attention {r['attention_us']:6.2f}  "
              f"(alloc out {r['attention_alloc_us']:6.2f}, lse {r['attention_lse_us']:6.2f})  "
              f"attention - raw {r['attention_over_raw_us']:6.2f}")


if __name__ == "__main__":
    main()
