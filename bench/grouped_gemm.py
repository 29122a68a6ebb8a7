"""Grouped GEMM (MoE experts, torch._grouped_mm's problem) on the H200:
tilec.grouped_gemm (one launch, the sm_90a kernel, precompiled) against
torch._grouped_mm(a, b, offs=offs) and a Python loop of torch.mm per expert
(host-known group sizes, what an MoE layer without a grouped kernel runs),
bf16 in and out, in alternating rounds (scripts/harness/timing.py: short
samples in rotating order, medians of CUDA-event timings).

Shapes: the issue's MoE up projection -- 4096 tokens x top-2 = 8192 rows,
hidden 4096, ffn 14336: a [8192, 4096] x b [E, 4096, 14336], b the
transpose of a weight stack [E, 14336, 4096] (column-major matrices) -- with
8 experts balanced, 64 experts balanced and 64 experts skewed; and smaller
sanity rows (hidden 2048, ffn 7168, 4096 rows: 8 experts balanced and
skewed). Routings: balanced gives every expert rows / E rows (the
remainder to the first ones); skewed is Zipf-like, expert i's share
proportional to 1 / (i + 1), the rounding remainder to expert 0 (64
experts of 8192 rows: 1763, 863, 575, ... down to 26 rows; 8 experts of
4096 rows: 1510, 753, 502, 376, 301, 251, 215, 188).

Correctness first: every variant's output (poisoned with NaN before) against
a float32 reference computed expert by expert (scripts/harness: relative
error max|out - ref| / max|ref|, at most 1.6e-2). TFLOP/s count 2 * rows * N * K.

Build here: TILEC_LIBRARY=build/lib/libtilec-c.so \\
    python3 -m scripts.build.build_python_artifacts --grouped-only --out .gpu/grouped_python
Run there (from the repository root; no compiler needed):
    python3 -m bench.grouped_gemm --artifacts .gpu/grouped_python [--json OUT]
($TILEC_COMMIT, else the artifacts' commit.txt, is the JSON's commit.)"""
import argparse
import json
import os
import sys
import time

from scripts import ROOT
# No compiler on the GPU machine: make sure none is picked up by accident.
os.environ["TILEC_LIBRARY"] = os.path.join(ROOT, "no-compiler-on-this-machine", "libtilec-c.so")

import torch  # noqa: E402

import tilec  # noqa: E402
from scripts.harness import references as ref  # noqa: E402
from scripts.harness import tensors  # noqa: E402
from scripts.harness.records import new_record, ratio, tflops, write_record  # noqa: E402
from scripts.harness.timing import time_rounds  # noqa: E402
from tilec import ops, plans  # noqa: E402

#: (name, experts, rows, hidden K, ffn N, routing)
SHAPES = [("up_e8_balanced", 8, 8192, 4096, 14336, "balanced"),
          ("up_e64_balanced", 64, 8192, 4096, 14336, "balanced"),
          ("up_e64_skewed", 64, 8192, 4096, 14336, "skewed"),
          ("small_e8_balanced", 8, 4096, 2048, 7168, "balanced"),
          ("small_e8_skewed", 8, 4096, 2048, 7168, "skewed"),
          # Decode steps: 64 tokens x top-2 routed over 8 experts, and 32
          # tokens x top-8 over 64 (a few tokens per expert), where the
          # transposed kernel (tilec_sm90a_swap) pads tokens to 16, not 128.
          ("decode_e8_balanced", 8, 128, 4096, 14336, "balanced"),
          ("decode_e64_skewed", 64, 256, 4096, 14336, "skewed"),
          # Where the transposed tiles stop paying: 8, 32, 64 and 128 tokens
          # per expert.
          ("decode_e64_t8", 64, 512, 4096, 14336, "balanced"),
          ("decode_e8_t32", 8, 256, 4096, 14336, "balanced"),
          ("decode_e8_t64", 8, 512, 4096, 14336, "balanced"),
          ("mid_e8_t128", 8, 1024, 4096, 14336, "balanced")]

#: The transposed classes run beside the dispatched kernel: 16-token tiles
#: (tilec_sm90a_swap), 32- and 64-token ones.
DECODE_CONFIG = {"block_k": 128, "block_m": 16, "block_n": 64, "swap_ab": 1, "warps": 4}
DECODE_CONFIGS = {"tilec_sm90a_swap": DECODE_CONFIG,
                  "tilec_sm90a_swap32": dict(DECODE_CONFIG, block_m=32),
                  "tilec_sm90a_swap64": dict(DECODE_CONFIG, block_m=64, block_k=64)}
SM80_DECODE_CONFIG = {"block_k": 64, "block_m": 16, "block_n": 64, "stages": 8, "swap_ab": 1,
                      "warps": 4}
TOLERANCE = 1.6e-2


def group_sizes(routing, experts, rows):
    if routing == "balanced":
        return [rows // experts + (g < rows % experts) for g in range(experts)]
    weights = [1.0 / (g + 1) for g in range(experts)]
    sizes = [int(rows * w / sum(weights)) for w in weights]
    sizes[0] += rows - sum(sizes)
    return sizes


def variants(a, b, offs, sizes, artifacts):
    """name -> a function running it and returning its output."""
    n = b.shape[2]
    bounds, start = [], 0
    for g, rows in enumerate(sizes):
        if rows:
            bounds.append((g, start, start + rows))
        start += rows
    loop_out = torch.empty(a.shape[0], n, device="cuda", dtype=torch.bfloat16)

    def loop():
        for g, s, e in bounds:
            torch.mm(a[s:e], b[g], out=loop_out[s:e])
        return loop_out
    loop.out = loop_out  # (what check poisons)
    fns = {"tilec_sm90a": lambda: tilec.grouped_gemm(a, b, offs, chip="sm_90a",
                                                     artifacts=artifacts)}
    if a.shape[0] <= 2048:  # (the transposed tiles are for a few tokens per expert)
        for name, config in DECODE_CONFIGS.items():
            fns[name] = (lambda c=config: tilec.grouped_gemm(a, b, offs, chip="sm_90a",
                                                             artifacts=artifacts, config=c))
        # sm_80's kernels (PTX assembled for sm_90), untransposed and on the
        # mma.sync chips' 16-token decode tiles.
        fns["tilec_sm80"] = lambda: tilec.grouped_gemm(a, b, offs, chip="sm_80",
                                                       artifacts=artifacts)
        fns["tilec_sm80_swap"] = lambda: tilec.grouped_gemm(a, b, offs, chip="sm_80",
                                                            artifacts=artifacts,
                                                            config=SM80_DECODE_CONFIG)
    fns.update({"torch_grouped_mm": lambda: torch._grouped_mm(a, b, offs=offs),
                "torch_loop": loop})
    return fns


def check(fns, want):
    """Runs each variant once (outputs poisoned first); returns the errors
    and the variants that failed (those are then left out)."""
    errors, failures = {}, {}
    for name, fn in list(fns.items()):
        try:
            # NaN where the output goes: the loop's buffer, else a block
            # of its size in torch's caching allocator (which the
            # allocation of the output most likely gets).
            if hasattr(fn, "out"):
                tensors.poison_(fn.out)
            else:
                tensors.poison_allocator(want.numel(), torch.bfloat16)
            out = fn()
            torch.cuda.synchronize()
            errors[name] = float(f"{ref.rel_err(out, want):.3g}")
        except Exception as e:  # noqa: BLE001 - e.g. no torch._grouped_mm in this torch
            failures[name] = f"{type(e).__name__}: {e}"[:300]
            print(f"  {name} unavailable: {failures[name]}", flush=True)
            del fns[name]
    return errors, failures


def bench(shape, artifacts, rounds):
    name, experts, rows, k, n, routing = shape
    sizes = group_sizes(routing, experts, rows)
    a = torch.randn(rows, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(experts, n, k, device="cuda", dtype=torch.bfloat16)  # [E, N, K] weights
    b = w.transpose(1, 2)  # [E, K, N], column-major matrices
    offs = torch.tensor(sizes, device="cuda", dtype=torch.int32).cumsum(0, dtype=torch.int32)
    want = ref.grouped_gemm(a, b, sizes)[0]  # (float32, expert by expert, TF32 off)
    fns = variants(a, b, offs, sizes, artifacts)
    ops.clear_kernel_memo()
    errors, failures = check(fns, want)
    kernels = sorted({key[0] for key in plans._kernels})
    del want
    ok = all(err == err and err <= TOLERANCE for err in errors.values()) \
        and not any(v.startswith("tilec") for v in failures)
    flops = 2 * rows * n * k
    med = time_rounds(fns, rounds) if fns else {}
    tf = {v: tflops(flops, ms) for v, ms in med.items()}
    torch_best = max([tf[v] for v in ("torch_grouped_mm", "torch_loop") if v in tf], default=None)
    row = dict(name=name, experts=experts, rows=rows, hidden_k=k, ffn_n=n, routing=routing,
               group_rows=sizes if experts <= 8 else [min(sizes), max(sizes)],
               a=[rows, k], b=[experts, k, n], b_strides=list(b.stride()),
               tflops={v: round(x, 1) for v, x in tf.items()},
               us={v: round(ms * 1e3, 1) for v, ms in med.items()},
               max_rel_err=errors, unavailable=failures, tilec_kernels=kernels, ok=ok)
    for mine in [v for v in tf if v.startswith("tilec_")]:
        suffix = mine[len("tilec_sm90a"):] if mine.startswith("tilec_sm90a") else mine[5:]
        row[f"tilec{suffix}_vs_best_torch"] = ratio(tf[mine], torch_best)
        for v in ("torch_grouped_mm", "torch_loop"):
            if v in tf:
                row[f"tilec{suffix}_vs_{v}"] = ratio(tf[mine], tf[v])
    del a, w, b, fns
    torch.cuda.empty_cache()
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", default=os.environ.get("TILEC_ARTIFACTS")
                    or os.path.join(ROOT, ".gpu", "grouped_python"))
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", help="comma-separated shape names")
    args = ap.parse_args()
    artifacts = os.path.abspath(args.artifacts)
    if not os.path.isdir(os.path.join(artifacts, "sm_90a")):
        print(f"no sm_90a kernels in {artifacts}: build them with TILEC_LIBRARY=... "
              f"python3 -m scripts.build.build_python_artifacts --grouped-only --out DIR", file=sys.stderr)
        return 2
    if os.path.isfile(os.path.join(artifacts, "libtilec-rules.so")):
        os.environ["TILEC_RULES_LIBRARY"] = os.path.join(artifacts, "libtilec-rules.so")
    torch.backends.cuda.matmul.allow_tf32 = False  # a float32 reference
    torch.manual_seed(0)
    start = time.perf_counter()
    rows = []
    for shape in SHAPES:
        if args.only and shape[0] not in args.only.split(","):
            continue
        try:
            row = bench(shape, artifacts, args.rounds)
        except Exception as e:  # noqa: BLE001 - reported, the other shapes still run
            row = dict(name=shape[0], ok=False, error=f"{type(e).__name__}: {e}"[:500])
        rows.append(row)
        print(json.dumps(row), flush=True)
    doc = new_record("bench.grouped_gemm", artifacts=artifacts,
                     what=__doc__.split("\n\n")[0], rows=rows,
                     seconds=round(time.perf_counter() - start, 1),
                     all_correct=all(r["ok"] for r in rows))
    if args.json:
        write_record(doc, args.json)
    return 0 if doc["all_correct"] else 1


if __name__ == "__main__":
    sys.exit(main())
