#!/usr/bin/env python3
"""Precompiles the GEMM and attention kernels that scripts/gpu/python_check.py runs, through the
Python package (tilec.compile -> libtilec-c.so), into an artifacts directory
laid out as tilec.gemm expects on a machine without the compiler:

    <out>/<chip>/<kernel>.{json,cubin,ptx,source.mlir}
    <out>/manifest.json     chips, variants, tilec version, commit
    <out>/commit.txt        the commit (+dirty with uncommitted changes)

sm_90a kernels are assembled for sm_90a; sm_80 kernels are assembled for
sm_90 so that the Ampere code path runs on the H200 as well.

    TILEC_LIBRARY=build/lib/libtilec-c.so scripts/build/build_python_artifacts.py

``--bmm`` adds the batched GEMM kernels tilec.bmm runs in scripts/gpu/bmm_check.py
(``--bmm-only``: only those, e.g. ``--bmm-only --out .gpu/bmm_python``);
``--grouped`` the grouped GEMM kernels tilec.grouped_gemm runs in
python3 -m scripts.gpu.grouped_gemm_check and bench/grouped_gemm.py (``--grouped-only``:
only those, e.g. ``--grouped-only --out .gpu/grouped_python``). The flags
combine (``--bmm-only --grouped-only``: both sets, nothing else).
"""

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import time

from scripts import ROOT
import tilec
from scripts.harness.records import stamp_commit
from tilec import backward_op, op_attention
from tilec.kernels import (attention_name, attention_shape_config, attention_source,
                           gemm_config_suffix, gemm_name, gemm_source)

#: The variants python_check.py exercises (keyword arguments of gemm_source).
VARIANTS = [
    {},
    {"b_layout": "col"},
    {"dtype": "f16", "b_layout": "col", "bias": True, "activation": "silu"},
    {"dtype": "f16"},
    {"out_dtype": "f32"},
    {"bias": True, "activation": "relu"},
    {"alpha": True, "beta": True},
    {"dtype": "f32", "b_layout": "col", "precision": "tf32"},
    {"dtype": "f32", "b_layout": "col", "precision": "tf32x3"},
    {"dtype": "f32", "b_layout": "col", "precision": "ieee"},
    {"dtype": "f8e4m3", "b_layout": "col", "scale_a": True, "scale_b": True},
    {"dtype": "f8e4m3", "b_layout": "col", "scale_a": True, "scale_b": True,
     "block_scales": True},
    {"dtype": "f8e4m3", "b_dtype": "f8e5m2", "b_layout": "col"},
    {"dtype": "i8", "b_layout": "col"},
]

#: The bf16 variants scripts/gpu/training_check.py runs through autograd (bias,
#: activations, both layouts of b), with the default tiles and the variant
#: for any strides: tilec.gemm falls back to the default kernel where a shape
#: class's variant is missing.
TRAINING_VARIANTS = [{"b_layout": layout, "bias": bias, "activation": act}
                     for layout in ("row", "col") for bias in (False, True)
                     for act in (None, "relu", "gelu", "silu")]
TRAINING_CONFIGS = [None, {"aligned": 0}]

#: The batched variants (tilec.bmm) scripts/gpu/bmm_check.py exercises.
BMM_VARIANTS = [
    {"batched": True},
    {"batched": True, "dtype": "f16"},
    {"batched": True, "b_layout": "col"},
    {"batched": True, "dtype": "f16", "b_layout": "col"},
    {"batched": True, "bias": True, "activation": "relu"},
    {"batched": True, "out_dtype": "f32", "bias": True, "activation": "gelu"},
    {"batched": True, "dtype": "f16", "bias": True, "activation": "silu"},
]

#: The grouped variants (tilec.grouped_gemm, bf16 in and out) that
#: scripts/gpu/grouped_gemm_check.py and bench/grouped_gemm.py run: B
#: column-major (an [E, N, K] weight stack transposed) and row-major, and
#: MoE epilogues. With CONFIGS less its tma_store entries: every shape
#: class the rule can pick for them (tilec.grouped_gemm drops tma_store)
#: and the any-strides variant.
GROUPED_VARIANTS = [
    {"grouped": True, "b_layout": "col"},
    {"grouped": True},
    {"grouped": True, "b_layout": "col", "bias": True, "activation": "silu"},
    {"grouped": True, "activation": "gelu"},
]

#: The decode classes of the mma.sync chips (see gemm_shape_config).
MMA_SYNC_DECODE = [{"block_k": 64, "block_m": 16, "block_n": 64, "stages": 8, "swap_ab": 1,
                    "warps": 4},
                   {"block_k": 64, "block_m": 32, "block_n": 64, "swap_ab": 1, "warps": 4}]

#: The shape-class configurations tilec.gemm dispatches to (see
#: tilec.kernels.gemm_shape_config), per chip, and its variant for operands
#: of any alignment (aligned = 0).
CONFIGS = {"sm_90a": [None, {"tma_store": False}, {"block_n": 64},
                      {"block_n": 64, "tma_store": False}, {"block_n": 128},
                      {"block_n": 128, "tma_store": False}, {"aligned": 0}]
           + [{"block_k": bk, "block_m": tokens, "block_n": weights, "swap_ab": 1,
               "tma_store": 0, "warps": weights // 16}
              for tokens, weights, bk in ((16, 64, 128), (32, 64, 128), (64, 64, 64),
                                          (64, 128, 64))],
           "sm_80": [None, {"aligned": 0}] + MMA_SYNC_DECODE,
           "sm_89": [None, {"aligned": 0}] + MMA_SYNC_DECODE}

#: chip -> ptxas target (the H200 is sm_90). sm_89 (its FP8 mma.sync, which
#: the H200 runs through PTX assembled for sm_90) only when --chips names it.
CHIPS = {"sm_90a": "sm_90a", "sm_80": "sm_90", "sm_89": "sm_90"}
DEFAULT_CHIPS = ("sm_90a", "sm_80")

#: fp8 variants need sm_89 or later: on sm_80 their compile failure is expected.
FP8_DTYPES = ("f8e4m3", "f8e5m2")


def can_swap_ab(variant):
    """Whether the transposed classes apply: tilec.gemm asks the shape rule
    for them; grouped GEMMs take them as a config (scripts/
    grouped_gemm_check.py's decode cases)."""
    return (variant.get("dtype", "bf16") in ("bf16", "f16") and variant.get("b_layout") == "col"
            and not (variant.get("batched") or variant.get("block_scales")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu", "python"))
    ap.add_argument("--chips", default=",".join(DEFAULT_CHIPS),
                    help="comma-separated subset of " + ", ".join(CHIPS))
    ap.add_argument("--dtype", default=None,
                    help="only the GEMM variants of these input dtypes, comma-separated "
                         "(no attention kernels)")
    ap.add_argument("--attention-dtypes", default="bf16,f16,f8e4m3",
                    help="the attention kernels' input dtypes, comma-separated")
    ap.add_argument("--attention-only", action="store_true", help="no GEMM kernels")
    ap.add_argument("--training", action="store_true",
                    help="only the GEMM variants of scripts/gpu/training_check.py (default tiles "
                         "and any strides) and the bf16 attention kernels")
    ap.add_argument("--attention-scales", default="",
                    help="also bf16 attention (not causal) with these softmax scales, "
                         "comma-separated (scripts/gpu/training_check.py uses 0.1)")
    ap.add_argument("--bmm", action="store_true",
                    help="also the batched GEMM kernels of tilec.bmm (scripts/gpu/bmm_check.py)")
    ap.add_argument("--bmm-only", action="store_true",
                    help="only the batched GEMM kernels of tilec.bmm")
    ap.add_argument("--grouped", action="store_true",
                    help="also the grouped GEMM kernels of tilec.grouped_gemm "
                         "(scripts/gpu/grouped_gemm_check.py, bench/grouped_gemm.py)")
    ap.add_argument("--grouped-only", action="store_true",
                    help="only the grouped GEMM kernels of tilec.grouped_gemm")
    args = ap.parse_args()
    chips = [c for c in args.chips.split(",") if c]
    attention_dtypes = args.attention_dtypes.split(",")
    only = args.bmm_only or args.grouped_only  # no default kernels, no attention
    variants = [v for v in (VARIANTS if not only else [])
                + (BMM_VARIANTS if args.bmm or args.bmm_only else [])
                + (GROUPED_VARIANTS if args.grouped or args.grouped_only else [])
                if not args.attention_only
                and (args.dtype is None or v.get("dtype", "bf16") in args.dtype.split(","))]
    written, failed = {}, []
    pairs = {chip: [(v, c) for v in variants for c in CONFIGS[chip]] for chip in chips}
    if args.training:
        attention_dtypes = ["bf16"]
        pairs = {chip: [(v, c) for v in TRAINING_VARIANTS for c in TRAINING_CONFIGS]
                 for chip in chips}
    for chip in chips:
        jobs = []
        for variant, config in [(v, c) for v, c in pairs[chip]
                                if not (chip == "sm_80" and v.get("dtype") in FP8_DTYPES)]:
            if variant.get("block_scales") and (config or {}).get("block_n", 0) > 128:
                continue  # (tilec.gemm drops block_n 256 for block scales)
            if (variant.get("batched") or variant.get("grouped")) and "tma_store" in (config or {}):
                if not (config or {}).get("swap_ab"):
                    continue  # (no TMA store: tilec.bmm / tilec.grouped_gemm drop the field)
                # (A grouped decode class, given as a config without the field.)
                config = {f: v for f, v in config.items() if f != "tma_store"}
            if (config or {}).get("swap_ab") and not can_swap_ab(variant):
                continue  # (the decode classes of bf16/f16 GEMMs with a column-major b)
            name = gemm_name(**variant) + gemm_config_suffix(config)
            jobs.append((variant, gemm_source(**variant, config=config, name=name)))
        # tilec.attention's kernels: bf16 for torch, f16 too (CuPy has no bf16).
        for dtype in [t for t in ("bf16", "f16") if t in attention_dtypes] \
                if args.dtype is None and not only else ():
            for head_dim in (64, 128, 256):
                for causal in (False, True):
                    variant = {"attention": True, "dtype": dtype, "head_dim": head_dim,
                               "causal": causal}
                    jobs.append((variant, attention_source(dtype=dtype, head_dim=head_dim,
                                                           causal=causal)))
                    # The short-sequence variant tilec.attention dispatches to.
                    config = attention_shape_config(1, head_dim, causal, chip)
                    if config:
                        name = (attention_name(dtype, head_dim, causal)
                                + gemm_config_suffix(config))
                        jobs.append((dict(variant, config=config),
                                     attention_source(dtype=dtype, head_dim=head_dim,
                                                      causal=causal, config=config, name=name)))
        for value in [float(x) for x in args.attention_scales.split(",") if x]:
            for head_dim in backward_op.HEAD_DIMS:
                scale = op_attention._attention_scale("build", value)
                jobs.append(({"attention": True, "dtype": "bf16", "head_dim": head_dim,
                              "scale": value},
                             attention_source(dtype="bf16", head_dim=head_dim, scale=scale)))
        # tilec.attention's backward (tilec.training): tile.attention_backward
        # in the forms tilec.training launches (bf16 and f16; each source
        # module saved beside each of its stage kernels).
        for dtype in [t for t in ("bf16", "f16") if t in attention_dtypes] \
                if args.dtype is None and not only else ():
            for head_dim, causal, atomic, expanded in itertools.product(
                    backward_op.HEAD_DIMS, (False, True), (False, True), (False, True)):
                # (No atomic mode at head dim 256; tilec.training sums the
                # atomic mode's groups itself.)
                if atomic and (expanded or head_dim not in backward_op.ATOMIC_HEAD_DIMS):
                    continue
                variant = {"attention_backward": True, "dtype": dtype, "head_dim": head_dim,
                           "causal": causal, "atomic_dq": atomic, "expanded": expanded}
                jobs.append((variant, backward_op.source(dtype, head_dim, causal, atomic,
                                                         expanded)))
        # FP8 attention where FP8 tensor cores exist.
        if (args.dtype is None and not only and chip != "sm_80"
                and "f8e4m3" in attention_dtypes):
            # Descales as numbers, and as tensors read on the device.
            for head_dim, causal, tensors in itertools.product((64, 128, 256), (False, True),
                                                               (False, True)):
                variant = {"attention": True, "dtype": "f8e4m3", "head_dim": head_dim,
                           "causal": causal}
                if tensors:
                    variant["descale_tensors"] = True
                jobs.append((variant, attention_source(dtype="f8e4m3", head_dim=head_dim,
                                                       causal=causal, descale_tensors=tensors)))
        for variant, (name, source) in jobs:
            start = time.perf_counter()
            try:
                result = tilec.compile(source, chip=chip, emit="cubin", cubin_arch=CHIPS[chip],
                                       keep=("ptx", "cubin"))
            except tilec.CompileError as e:
                first = next((line for line in e.diagnostics.splitlines() if "error:" in line),
                             e.diagnostics.strip()[:200])
                print(f"{chip}/{name}: FAILED: {first}", file=sys.stderr)
                failed.append({"chip": chip, "name": name, "variant": variant, "error": first})
                continue
            # What a GPU machine needs (and the PTX to read); not the LLVM IR.
            result.save(os.path.join(args.out, chip), source=source, stages=("ptx", "cubin"))
            seconds = time.perf_counter() - start
            cached = " (cached)" if result.from_cache else ""
            print(f"{chip}/{name}: {seconds:.2f} s{cached}")
            # (One entry per kernel: a named op of several stages has one per
            # stage.)
            written.setdefault(chip, []).extend({"name": kernel, "variant": variant,
                                                 "cubin_arch": CHIPS[chip]}
                                                for kernel in result.names)
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    manifest = {"tilec_version": tilec._capi.load_library().version, "commit": commit,
                "kernels": written, "failed": failed}
    os.makedirs(args.out, exist_ok=True)
    # The shape rule the package dispatches by, for machines without the
    # compiler (scripts/gpu/python_check.py points TILEC_RULES_LIBRARY here).
    shutil.copy2(tilec._rules.library_path(), os.path.join(args.out, "libtilec-rules.so"))
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    stamp_commit(args.out)  # commit.txt: the commit, +dirty with uncommitted changes
    print(f"wrote {sum(len(v) for v in written.values())} kernels to {args.out}"
          + (f"; {len(failed)} failed to compile (listed in manifest.json)" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
