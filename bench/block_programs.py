#!/usr/bin/env python3
"""Block programs on the GPU: correctness and speed beside their Triton
twins, tilec's named ops, cuBLAS and cuDNN SDPA (issue "The compiler, not
the template").

Kernels come from scripts/build/build_block_artifacts.py (compiled elsewhere);
this machine needs only torch, Triton and cuda.bindings.

Correctness: random inputs (never zeros), odd shapes, outputs poisoned with
NaN first, compared with a float64 reference by relative max error, for
every kernel and schedule variant.

Speed: every kernel of a shape and its baselines are timed in alternating
rounds (CUDA events, median of the per-round medians), so all of them run
under the same clock and power state.

    python3 -m bench.block_programs --artifacts .gpu/bundle/block --out OUT [--rounds 7] [--quick]
"""

import argparse
import json
import os
import subprocess
import sys

import torch

from scripts import ROOT
from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.artifacts import load
from scripts.harness.records import new_record, open_log, ratio, tflops, write_record
from scripts.harness.timing import time_rounds

GEMM_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)]
GEMM_ODD = [(1, 8, 1), (127, 264, 72), (1000, 1032, 1000), (513, 2056, 777),
            (333, 1000, 4097), (2049, 520, 129), (4096, 4096, 4096)]


# ---------------------------------------------------------------------------
# GEMM
# ---------------------------------------------------------------------------

def gemm_operands(M, N, K, linear, seed):
    """A (M x K), B (K x N, or Wᵀ for nn.Linear: W is N x K), rows padded
    to 8 elements; C poisoned. Returns the buffers, the views and the
    leading dimensions."""
    g = tensors.generator(seed)
    a = tensors.randn((M, tensors.round_up(K, 8)), torch.bfloat16, generator=g)[:, :K]
    if linear:
        w = tensors.randn((N, tensors.round_up(K, 8)), torch.bfloat16, generator=g)
        b_buf, b = w, w[:, :K].t()
    else:
        b_buf = tensors.randn((K, tensors.round_up(N, 8)), torch.bfloat16, generator=g)
        b = b_buf[:, :N]
    c = tensors.poisoned((M, N), torch.bfloat16, pad_to=8)
    return a.base, b_buf, c.base, a, b, a.base.shape[1], b_buf.shape[1], c.base.shape[1]


def check_gemm(kernel, linear, shapes, named=False):
    """Correctness rows of a GEMM kernel (A, B, C, M, N, K, lda, ldb, ldc)
    against the float64 product (``named``: tile.gemm, the same
    parameters)."""
    rows = []
    for i, (M, N, K) in enumerate(shapes):
        a_buf, b_buf, c_buf, a, b, lda, ldb, ldc = gemm_operands(M, N, K, linear, 100 + i)
        kernel(a_buf, b_buf, c_buf, M, N, K, lda, ldb, ldc)
        torch.cuda.synchronize()
        out = c_buf[:, :N]
        err = ref.rel_err(out, ref.gemm(a, b, dtype=torch.float64))
        written = tensors.unwritten(out) == 0
        pad = tensors.padding_intact(out, c_buf)
        rows.append(dict(shape=[M, N, K], max_rel_err=err, written=written,
                         pad_untouched=pad, ok=bool(written and pad and err < 1e-2)))
    return rows


def triton_gemm_twin():
    """The block program's twin in Triton: the same 128x256x64 tiles, 8
    warps, grouped rasterization (GROUP_M 8), a 3-stage pipeline."""
    import triton
    import triton.language as tl

    @triton.jit
    def mm(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
        pid = tl.program_id(0)
        npm = tl.cdiv(M, BM)
        npn = tl.cdiv(N, BN)
        gid = pid // (G * npn)
        first = gid * G
        gs = min(npm - first, G)
        pm = first + ((pid % (G * npn)) % gs)
        pn = (pid % (G * npn)) // gs
        rm = (pm * BM + tl.arange(0, BM)) % M
        rn = (pn * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        ap = a + rm[:, None] * sam + rk[None, :] * sak
        bp = b + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            x = tl.load(ap, mask=rk[None, :] < K - k * BK, other=0.0)
            y = tl.load(bp, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(x, y, acc)
            ap += BK * sak
            bp += BK * sbk
        cm = pm * BM + tl.arange(0, BM)
        cn = pn * BN + tl.arange(0, BN)
        tl.store(c + cm[:, None] * scm + cn[None, :] * scn, acc.to(c.dtype.element_ty),
                 mask=(cm[:, None] < M) & (cn[None, :] < N))

    def run(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = (triton.cdiv(M, 128) * triton.cdiv(N, 256),)
        mm[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1), BM=128, BN=256, BK=64, G=8,
                 num_warps=8, num_stages=3)
    return run


def gemm_section(art, rounds, log, quick):
    chip = "sm_90a"
    out = dict(correctness=[], bench=[])
    names = sorted(f[:-5] for f in os.listdir(os.path.join(art, chip))
                   if f.endswith(".json") and (f.startswith("gemm_block") or f.startswith("linear_block")))
    shapes = GEMM_ODD[:3] if quick else GEMM_ODD
    for c in (chip, "sm_80"):
        for name in (names if c == chip else ["gemm_block_bf16", "linear_block_bf16"]):
            k = load(art, c, name)
            if k is None:
                continue
            linear = name.startswith("linear")
            for r in check_gemm(k, linear, shapes):
                r.update(chip=c, kernel=name)
                out["correctness"].append(r)
                if not r["ok"]:
                    log("FAIL " + json.dumps(r))
    log(f"gemm correctness: {sum(r['ok'] for r in out['correctness'])}/{len(out['correctness'])}")

    twin = triton_gemm_twin()
    for (M, N, K) in GEMM_SHAPES:
        for linear in (False, True):
            form = "linear" if linear else "plain"
            a_buf, b_buf, c_buf, a, b, lda, ldb, ldc = gemm_operands(M, N, K, linear, 7)
            c2 = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            prefix = "linear_block_bf16" if linear else "gemm_block_bf16"
            fns = {}
            for name in names:
                if name.startswith(prefix):
                    k = load(art, chip, name)
                    fns["tilec_" + name] = (lambda k=k: k(a_buf, b_buf, c_buf, M, N, K, lda, ldb, ldc))
            k80 = load(art, "sm_80", prefix)
            if k80:
                fns["tilec_sm80_" + prefix] = lambda: k80(a_buf, b_buf, c_buf, M, N, K, lda, ldb, ldc)
            named = load(art, chip, "gemm_bf16_bf16_bcol" if linear else "gemm_bf16_bf16_brow")
            fns["tilec_named"] = lambda: named(a_buf, b_buf, c_buf, M, N, K, lda, ldb, ldc)
            base = load(art, chip, ("gemm_bf16_bf16_bcol" if linear else "gemm_bf16_bf16_brow") + "__base")
            if base:
                fns["tilec_named_base"] = lambda: base(a_buf, b_buf, c_buf, M, N, K, lda, ldb, ldc)
            named80 = load(art, "sm_80", "gemm_bf16_bf16_bcol" if linear else "gemm_bf16_bf16_brow")
            if named80:
                fns["tilec_named_sm80"] = lambda: named80(a_buf, b_buf, c_buf, M, N, K, lda, ldb, ldc)
            fns["cublas"] = lambda: torch.matmul(a, b, out=c2)
            fns["triton_twin"] = lambda: twin(a, b, c2)
            ms = time_rounds(fns, rounds)
            row = dict(shape=[M, N, K], form=form,
                       tflops={k: tflops(2.0 * M * N * K, v) for k, v in ms.items()})
            t = row["tflops"]
            main = "tilec_" + prefix
            row["block_vs_named"] = ratio(t[main], t["tilec_named"])
            row["block_vs_triton_twin"] = ratio(t[main], t["triton_twin"])
            row["block_vs_cublas"] = ratio(t[main], t["cublas"])
            if k80 and named80:
                row["sm80_block_vs_named"] = ratio(t["tilec_sm80_" + prefix], t["tilec_named_sm80"])
            out["bench"].append(row)
            log(json.dumps(row))
    return out


# ---------------------------------------------------------------------------

def sass_summary(art):
    """Counts of the instructions that show the path taken, per cubin."""
    counts = {}
    for chip in ("sm_90a", "sm_80"):
        d = os.path.join(art, chip)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(".cubin") or not ("block" in f):
                continue
            try:
                sass = subprocess.run(["cuobjdump", "-sass", os.path.join(d, f)],
                                      capture_output=True, text=True, timeout=60).stdout
            except (OSError, subprocess.TimeoutExpired):
                continue
            counts[f"{chip}/{f[:-6]}"] = {op: sass.count(op) for op in
                                          ("HGMMA", "UTMALDG", "UTMASTG", "HMMA", "LDSM", "LDGSTS",
                                           "SYNCS")}
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", default=os.path.join(ROOT, ".gpu", "bundle", "block"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="gemm,attention")
    args = ap.parse_args()
    log = open_log(args.out, "block_programs.log")
    result = new_record("block_programs", artifacts=args.artifacts)
    try:
        import triton
        result["triton"] = triton.__version__
    except ImportError:
        pass
    times = os.path.join(args.artifacts, "compile_times.json")
    if os.path.exists(times):
        result["compile_seconds"] = json.load(open(times))
    if "gemm" in args.only:
        result["gemm"] = gemm_section(args.artifacts, args.rounds, log, args.quick)
    if "attention" in args.only:
        try:
            from bench.block_attention import attention_section
        except ImportError:
            attention_section = None
        if attention_section:
            result["attention"] = attention_section(args.artifacts, args.rounds, log, args.quick)
    result["sass"] = sass_summary(args.artifacts)
    write_record(result, os.path.join(args.out, "block_programs.json"))
    fails = [r for sec in ("gemm", "attention") for r in result.get(sec, {}).get("correctness", [])
             if not r["ok"]]
    log(f"{len(fails)} correctness failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
