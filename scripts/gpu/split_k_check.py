#!/usr/bin/env python3
"""Split-K GEMMs (tile.gemm's ``config <split_k = S>``) on the GPU: correctness,
determinism and speed of tilec.gemm's two kernels (partial products, then their
sum in range order) on both chips (sm_90a, and sm_80 PTX assembled for sm_90).

Build here, with the compiler (every case's kernels into DIR/<chip>/):

    TILEC_LIBRARY=build/lib/libtilec-c.so python3 -m scripts.gpu.split_k_check --build DIR

Run there, from the repository root (no compiler needed):

    python3 -m scripts.gpu.split_k_check --artifacts DIR --out OUTDIR

Correctness: random bf16/f16 inputs (never zeros), odd shapes (M, N, K not
multiples of the tiles, 1 to 16k), the outputs poisoned with NaN first; each
case against a float32 reference by relative error (max|out - ref| /
max|ref|, at most 1.6e-2 for 16-bit outputs, 2e-3 for f32), and run three
times: the three results must be the same bits (the sum order is fixed).
Variants: B column-major (nn.Linear, the transposed decode tiles) and
row-major with bias + SiLU, f16 with alpha and beta (the reduce stage reads
out), f32 out. Configs: the compiler's shape rule with ``can_split_k`` for
132 SMs, and where it keeps one range, forced split_k 2 and 3; plus split_k
larger than the K steps (empty ranges store zeros).

Speed (``--bench``): decode shapes (M = 1, 16, 32, 64 on Llama-3 8B/70B
projections with nn.Linear's weights, and M = 1, 16, 64 on the 8B ones with
a row-major B; the weights rotated over copies larger than L2 so they
stream from HBM) with split_k 1 (the rule's tiles without split-K), 2, 4 and 8, against
torch.matmul and tilec.gemm's default dispatch, in alternating rounds, timed
twice: CUDA graphs of the calls replayed (GPU time: time_graph_rounds) and
eager calls (host dispatch included: time_rounds, bench/block_programs.py);
TFLOP/s, GB/s of the weights and the ratios. Writes OUTDIR/split_k_check.json
with the record head (scripts/harness/records.py: date, GPU, commit:
$TILEC_COMMIT, else DIR/commit.txt). The bundle (``make gpu-artifacts``)
builds DIR as .gpu/bundle/split_k.
"""

import argparse
import os
import sys

from scripts import ROOT

CHIPS = {"sm_90a": "sm_90a", "sm_80": "sm_90"}
NUM_SMS = 132  # the H200

#: Variants (keyword arguments of tilec.kernels.gemm_source).
VARIANTS = {
    "bf16_col": {"b_layout": "col"},
    "bf16_row_bias_silu": {"b_layout": "row", "bias": True, "activation": "silu"},
    "f16_col_alpha_beta": {"dtype": "f16", "b_layout": "col", "alpha": True, "beta": True},
    "bf16_col_f32out": {"b_layout": "col", "out_dtype": "f32"},
}

#: (M, N, K) of the correctness cases.
SHAPES = [(1, 4096, 14336), (16, 4096, 4096), (64, 4096, 14336), (7, 1000, 4097),
          (1, 513, 1001), (33, 257, 8200), (129, 257, 8200), (100, 100, 16384),
          (3, 64, 64)]

#: (M, N, K, B's layout) of the speed rows: Llama-3 8B / 70B projections at
#: decode, nn.Linear's weights (column-major B: the transposed tiles), and
#: a row-major B (x @ W: untransposed tiles) on the 8B ones.
BENCH_SHAPES = ([(m, n, k, "col") for m in (1, 16, 32, 64)
                 for n, k in ((4096, 14336), (4096, 4096), (8192, 28672), (8192, 8192))]
                + [(m, n, k, "row") for m in (1, 16, 64) for n, k in ((4096, 14336), (4096, 4096))])
BENCH_SPLITS = (1, 2, 4, 8)


def dispatch_config(m, n, k, chip, variant):
    """The config tilec.gemm's dispatch takes for a case on the H200 (the
    package's own dispatch rule)."""
    from tilec import kernels
    return kernels.gemm_dispatch_config(m, n, k, chip, NUM_SMS,
                                        dtype=variant.get("dtype", "bf16"),
                                        b_layout=variant.get("b_layout", "row")) or {}


def case_configs(m, n, k, chip, variant):
    """(label, config) of a correctness case: the rule's where it splits,
    forced splits, and the default dispatch (``None``: the rule's kernel
    through tilec.gemm's plans, split or not)."""
    rule = dispatch_config(m, n, k, chip, variant)
    configs = [("dispatch", None)]
    if rule.get("split_k", 1) > 1:
        configs.append(("rule", rule))
    for split in (2, 3):
        configs.append((f"split{split}", dict(rule, split_k=split)))
    if k <= 64 * 4:
        configs.append(("empty_ranges", dict(rule, split_k=8)))
    if variant.get("b_layout", "row") == "row":
        # A row-major B transposed (Bᵀ an M-major wgmma A), as a
        # column-major one would be: not the rule's choice yet.
        from tilec import kernels
        swapped = kernels.gemm_dispatch_config(m, n, k, chip, NUM_SMS,
                                               dtype=variant.get("dtype", "bf16"),
                                               b_layout="col") or {}
        if swapped.get("swap_ab"):
            configs.append(("swap_ab_row_b", swapped))
    return configs


def bench_configs(m, n, k, chip, layout="col"):
    """(label, config) of a speed row: the rule's tiles without split-K
    (``split1``), then forced into 2, 4 and 8 ranges; for a row-major B
    also the transposed tiles a column-major B takes (``swap_ab``: Bᵀ is
    wgmma's M-major A; the rule keeps a row-major B untransposed until
    measured)."""
    from tilec import kernels
    rule = kernels.gemm_shape_config(m, n, k, chip, NUM_SMS, can_swap_ab=layout == "col") or {}
    # (split 1 passes the rule's tiles even where they are the default, {}:
    # config=None would be the dispatch, which may split.)
    configs = [(f"split{split}", dict(rule, split_k=split) if split > 1 else rule)
               for split in BENCH_SPLITS]
    if layout == "row":
        swapped = kernels.gemm_shape_config(m, n, k, chip, NUM_SMS, can_swap_ab=True) or {}
        if swapped.get("swap_ab"):
            configs.append(("swap_ab", swapped))
    return configs


def build(directory):
    from scripts.harness.artifacts import build_package_kernels
    from tilec.kernels import gemm_config_suffix, gemm_name, gemm_source
    sources = {}

    def add(chip, variant, config):
        name = gemm_name(**variant) + gemm_config_suffix(config)
        sources[(chip, name)] = gemm_source(**variant, config=config, name=name)[1]

    for chip in CHIPS:
        for variant in VARIANTS.values():
            for m, n, k in SHAPES:
                for _, config in case_configs(m, n, k, chip, variant):
                    if config is None:
                        config = dispatch_config(m, n, k, chip, variant) or None
                    add(chip, variant, config)
        for m, n, k, layout in BENCH_SHAPES:
            variant = {"b_layout": layout}
            configs = [c for _, c in bench_configs(m, n, k, chip, layout)]
            configs.append(dispatch_config(m, n, k, chip, variant) or None)
            for config in configs:
                add(chip, variant, config)
    built = build_package_kernels(directory, sources, CHIPS,
                                  log=lambda chip, name: print(f"{chip}/{name}"))
    print(f"{built} kernels in {directory}")


def random_operands(torch, m, n, k, variant, device="cuda"):
    dtype = torch.float16 if variant.get("dtype") == "f16" else torch.bfloat16
    gen = torch.Generator(device=device).manual_seed(m * 1000003 + n * 1009 + k)

    def rand(*shape):  # uniform in +-[0.25, 1): never zero; rows padded to 16 bytes
        padded = shape[:-1] + (-(-shape[-1] // 8) * 8,)
        x = torch.rand(*padded, generator=gen, device=device) * 0.75 + 0.25
        sign = torch.randint(0, 2, padded, generator=gen, device=device) * 2 - 1
        return (x * sign).to(dtype)[..., :shape[-1]]
    a = rand(m, k)
    b = rand(n, k).t() if variant.get("b_layout") == "col" else rand(k, n)
    extra = {}
    if variant.get("bias"):
        extra["bias"] = rand(n)
    if variant.get("alpha"):
        extra["alpha"] = 0.75
    if variant.get("beta"):
        extra["beta"] = -0.5
        extra["c0"] = rand(m, n)
    return a, b, extra


def check_case(torch, tilec, chip, m, n, k, vname, variant, label, config, artifacts):
    from scripts.harness import references as ref
    from scripts.harness import tensors
    a, b, extra = random_operands(torch, m, n, k, variant)
    out_dtype = torch.float32 if variant.get("out_dtype") == "f32" else a.dtype
    results = []
    for _ in range(3):
        out = tensors.poisoned((m, n), out_dtype, pad_to=8)
        if "c0" in extra:
            out.copy_(extra["c0"])
        tilec.gemm(a, b, out=out, bias=extra.get("bias"), alpha=extra.get("alpha"),
                   beta=extra.get("beta"), activation=variant.get("activation"),
                   chip=chip, artifacts=artifacts, config=config)
        results.append(out)
    torch.cuda.synchronize()
    want = ref.gemm(a, b, alpha=extra.get("alpha"), beta=extra.get("beta"), c=extra.get("c0"),
                    bias=extra.get("bias"), act=variant.get("activation"))
    err = ref.rel_err(results[0], want)
    def bits(t):
        return t.view(torch.int32 if t.dtype == torch.float32 else torch.int16)
    same = all(torch.equal(bits(results[0]), bits(r)) for r in results[1:])
    bound = 2e-3 if out_dtype == torch.float32 else 1.6e-2
    ok = err <= bound and same and tensors.unwritten(results[0]) == 0
    return {"chip": chip, "shape": [m, n, k], "variant": vname, "config_label": label,
            "config": config, "rel_err": err, "deterministic": same, "ok": ok}


def bench(torch, tilec, artifacts, log):
    from scripts.harness.records import tflops
    from scripts.harness.timing import time_graph_rounds, time_rounds
    rows = []
    for chip in CHIPS:
        for m, n, k, layout in BENCH_SHAPES:
            copies = max(2, (200 << 20) // (n * k * 2) + 1)  # more than L2 (50 MB)
            ws = [torch.randn(*((n, k) if layout == "col" else (k, n)), device="cuda",
                              dtype=torch.bfloat16) for _ in range(copies)]
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            turn = {"i": 0}

            def weight():
                turn["i"] = (turn["i"] + 1) % copies
                return ws[turn["i"]].t() if layout == "col" else ws[turn["i"]]
            fns = {"torch": lambda: torch.matmul(x, weight())}
            # The default dispatch (config=None: the shape rule, through a plan).
            fns["tilec"] = lambda: tilec.gemm(x, weight(), chip=chip, artifacts=artifacts)
            for label, config in bench_configs(m, n, k, chip, layout):
                fns[label] = (lambda c=config: tilec.gemm(
                    x, weight(), chip=chip, artifacts=artifacts, config=c))
            # GPU time (CUDA graphs, as serving runs decode) and eager time
            # (the host's dispatch included).
            timings = {}
            try:
                timings["graph"] = time_graph_rounds(fns, rounds=10, calls=max(copies, 20))
            except Exception as e:  # noqa: BLE001 - recorded; the eager times still count
                log(f"{chip} {m}x{n}x{k} B {layout} graph: {type(e).__name__}: {e}")
            timings["eager"] = time_rounds(fns, rounds=10)
            flop, weight_bytes = 2 * m * n * k, n * k * 2
            row = {"chip": chip, "shape": [m, n, k], "b_layout": layout,
                   "configs": dict(bench_configs(m, n, k, chip, layout))}
            for mode, ms in timings.items():
                row[mode] = {"us": {name: t * 1e3 for name, t in ms.items()},
                             "tflops": {name: tflops(flop, t) for name, t in ms.items()},
                             "weight_gbs": {name: weight_bytes / t / 1e6
                                            for name, t in ms.items()},
                             "vs_torch": {name: ms["torch"] / t for name, t in ms.items()}}
                log(f"{chip} {m}x{n}x{k} B {layout} {mode}: " + ", ".join(
                    f"{name} {row[mode]['vs_torch'][name]:.2f}x" for name in ms)
                    + f" (torch {row[mode]['weight_gbs']['torch']:.0f} GB/s)")
            rows.append(row)
            ws.clear()  # free the copies before the next shape
    return rows


def run(args):
    # No compiler on the GPU machine: make sure none is picked up by accident.
    os.environ["TILEC_LIBRARY"] = os.path.join(ROOT, "no-compiler-on-this-machine",
                                               "libtilec-c.so")
    # The shape rule (for the cases' configs) from the build machine.
    rules = os.path.join(args.artifacts, "libtilec-rules.so")
    if os.path.isfile(rules):
        os.environ["TILEC_RULES_LIBRARY"] = os.path.abspath(rules)
    import torch
    import tilec
    from scripts.harness.records import new_record, open_log, write_record
    log = open_log(args.out, "split_k_check.log")
    cases = []
    for chip in CHIPS:
        for vname, variant in VARIANTS.items():
            for m, n, k in SHAPES:
                for label, config in case_configs(m, n, k, chip, variant):
                    try:
                        case = check_case(torch, tilec, chip, m, n, k, vname, variant, label,
                                          config, args.artifacts)
                    except Exception as e:  # noqa: BLE001 - recorded as a failure
                        case = {"chip": chip, "shape": [m, n, k], "variant": vname,
                                "config_label": label, "config": config, "ok": False,
                                "error": f"{type(e).__name__}: {e}"}
                    cases.append(case)
                    if not case["ok"]:
                        log(f"FAIL {case}")
    failed = [c for c in cases if not c["ok"]]
    log(f"{len(cases) - len(failed)}/{len(cases)} correct")
    rows = bench(torch, tilec, args.artifacts, log) if args.bench else []
    record = new_record("split_k_check", artifacts=args.artifacts, cases=cases,
                        all_ok=not failed, bench=rows)
    write_record(record, os.path.join(args.out, "split_k_check.json"))
    return 0 if not failed else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", metavar="DIR", help="compile the kernels into DIR (here)")
    parser.add_argument("--artifacts", metavar="DIR", default=".gpu/split_k")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--bench", action="store_true", help="also time the decode rows")
    args = parser.parse_args()
    if args.build:
        build(args.build)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
