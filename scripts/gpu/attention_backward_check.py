#!/usr/bin/env python3
"""Attention backward block programs on the GPU (issue "Attention for
training"): correctness against a float32 autograd reference, and speed
beside cuDNN's and flash's SDPA backward in alternating rounds.

Kernels come from scripts/build/build_backward_artifacts.py (compiled elsewhere).

Correctness: FlashAttention's test matrix (odd sequence lengths, Sq != Sk,
GQA 8:1 and 4:1, causal with the bottom-right aligned mask and not, head
dims 64 and 128) on random inputs, gradients and scratch poisoned with NaN
first. O and the row log-sum-exp come from the float32 reference. Each
gradient's relative RMS error (||err|| / ||ref||) must be at most twice
that of torch's bf16 SDPA backward against the same reference. The
max-error ratio is recorded too (within_2x_torch_max): the maximum over
tens of thousands of elements is noisy, and at 113 x 255 six seeds gave
dQ ratios of 0.52-1.64 against torch's, one seed 2.2
(bench/results/2026-12-04_attention_backward_h200/probe.txt).

Speed: backward only (autograd.grad with retained graphs for torch), B*S =
16k and H*D = 2048 as in the issue; FLOPs are 2.5x the forward's (causal
counted half).

    attention_backward_check.py --artifacts .gpu/backward --out OUT
        [--rounds 5] [--chips sm_90a,sm_80] [--variants]
        [--old-artifacts .gpu/backward_old]

--old-artifacts times the same kernels of another build in the same rounds
(names ending "@old", not checked again), and each speed row gets
vs_old = new / old per kernel: an interleaved A/B of a compiler change.

--op also checks and times the kernels of the named op
tile.attention_backward (python/tilec/backward_op.py; built by
build_backward_artifacts.py --op): "__op" (deterministic, dK/dV summed over
each group by the op's dkdv_sum stage, a stage the text kernels do not
have), "__op_mha" (deterministic, one dK/dV per query head as the text
kernels write them) and "__op_atomic" (atomic, the caller sums). Each
speed row gets vs_text = op / the text block programs (for __op_mha and
__op_atomic the same programs, expected 1.00x).
"""

import argparse
import json
import math
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

from scripts import ROOT
from scripts.common import backward_kernels
from scripts.harness.records import new_record, open_log, write_result
from scripts.harness.references import attention_backward, causal_mask, rel_err, rms_err
from scripts.harness.tensors import poisoned
from scripts.harness.timing import time_rounds
from tilec import backward_op
from tilec.runtime import Kernel

# (B, H, HK, SQ, SK)
CASES = [(1, 2, 2, 113, 113), (2, 4, 4, 255, 255), (1, 8, 1, 1023, 1023),
         (1, 8, 2, 1023, 1023), (1, 4, 4, 113, 255), (1, 4, 4, 255, 113),
         (1, 2, 2, 4097, 4097), (1, 8, 2, 1023, 4097)]
# (B, H, S, D, causal): B*S = 16k, H*D = 2048.
BENCH = [(4, 16, 4096, 128, False), (4, 16, 4096, 128, True), (1, 16, 16384, 128, False),
         (1, 16, 16384, 128, True), (16, 16, 1024, 128, False), (4, 32, 4096, 64, False),
         (4, 32, 4096, 64, True), (4, 8, 4096, 256, False), (4, 8, 4096, 256, True)]


def group_sums(q, k, t):
    """(dQ, dK, dV) from the buffers ``t`` of a run whose dK / dV hold one
    gradient per query head: each group's heads summed in f32."""
    B, H, SQ, D = q.shape
    HK, SK = k.shape[1], k.shape[2]
    if HK == H:
        return t["dq"], t["dk"], t["dv"]
    g = H // HK
    return (t["dq"], t["dk"].view(B, HK, g, SK, D).float().sum(2).to(q.dtype),
            t["dv"].view(B, HK, g, SK, D).float().sum(2).to(q.dtype))


class Backward:
    """The three kernels of one (chip, head dim, causal, suffix); a suffix
    starting with ``__atomic`` names the atomic mode's kernels (pre_zero_dq,
    dkdv_dq, dq_scale)."""

    def __init__(self, art, chip, d, causal, suffix=""):
        self.atomic = suffix.startswith("__atomic")
        names = (backward_kernels.atomic_names if self.atomic
                 else backward_kernels.names)("bf16", d, causal)
        self.kernels = [Kernel(os.path.join(art, chip, n + suffix + ".json")) for n in names]
        self.labels = ("pre", "dkdv_dq", "dq_scale") if self.atomic else ("pre", "dq", "dkdv")

    def scratch(self, q, k):
        B, H, SQ, D = q.shape
        SK = k.shape[2]
        f32 = torch.float32
        return dict(l2=poisoned((B, H, SQ), f32), delta=poisoned((B, H, SQ), f32),
                    dq=poisoned(q.shape, q.dtype), dk=poisoned((B, H, SK, D), q.dtype),
                    dv=poisoned((B, H, SK, D), q.dtype),
                    # (the atomic mode's accumulator: zeroed by its pre kernel)
                    dqa=poisoned((B, H, SQ, D), f32) if self.atomic else None)

    def parts(self, q, k, v, o, do, lse, scale, t):
        """The three launches as separate calls (a per-kernel breakdown)."""
        if self.atomic:
            args = backward_kernels.atomic_launch_args(q, k, v, o, do, lse, t["l2"], t["delta"],
                                                       t["dqa"], t["dq"], t["dk"], t["dv"],
                                                       scale)
        else:
            args = backward_kernels.launch_args(q, k, v, o, do, lse, t["l2"], t["delta"],
                                                t["dq"], t["dk"], t["dv"], scale)
        return {name: (lambda kernel=kernel, a=a: kernel(*a))
                for name, kernel, a in zip(self.labels, self.kernels, args)}

    def __call__(self, q, k, v, o, do, lse, scale, t):
        for launch in self.parts(q, k, v, o, do, lse, scale, t).values():
            launch()
        return group_sums(q, k, t)


class OpBackward:
    """The stage kernels of tile.attention_backward for one (chip, head
    dim, causal, mode): suffix "__op" (deterministic, expanded: dK and dV of
    K's shape from the op), "__op_mha" (deterministic, one dK/dV per query
    head: the text kernels' algorithm, summed here as for them) or
    "__op_atomic" (atomic, one dK/dV per query head, summed here)."""

    def __init__(self, art, chip, d, causal, suffix):
        self.atomic = suffix == "__op_atomic"
        self.expanded = suffix == "__op"
        names = backward_op.stage_names("bf16", d, causal, self.atomic, self.expanded)
        self.kernels = [Kernel(os.path.join(art, chip, n + ".json")) for n in names]
        self.labels = backward_op.stages(self.atomic, self.expanded)

    def scratch(self, q, k):
        B, H, SQ, D = q.shape
        HK, SK = k.shape[1], k.shape[2]
        f32 = torch.float32
        heads = HK if self.expanded else H
        t = dict(l2=poisoned((B, H, SQ), f32), delta=poisoned((B, H, SQ), f32),
                 dq=poisoned(q.shape, q.dtype), dk=poisoned((B, heads, SK, D), q.dtype),
                 dv=poisoned((B, heads, SK, D), q.dtype))
        if self.atomic:
            t["dqa"] = poisoned((B, H, SQ, D), f32)
        if self.expanded:
            t["dkh"] = poisoned((B, H, SK, D), q.dtype)
            t["dvh"] = poisoned((B, H, SK, D), q.dtype)
        return t

    def parts(self, q, k, v, o, do, lse, scale, t):
        values = backward_op.launch_values(q, k, v, o, do, lse, t["l2"], t["delta"], t["dq"],
                                           t["dk"], t["dv"], scale, dqa=t.get("dqa"),
                                           dkh=t.get("dkh"), dvh=t.get("dvh"))
        return {label: (lambda kernel=kernel: kernel(*backward_op.launch_args(kernel.params,
                                                                              values)))
                for label, kernel in zip(self.labels, self.kernels)}

    def __call__(self, q, k, v, o, do, lse, scale, t):
        for launch in self.parts(q, k, v, o, do, lse, scale, t).values():
            launch()
        # With expanded views the op summed each group itself.
        return (t["dq"], t["dk"], t["dv"]) if self.expanded else group_sums(q, k, t)


def torch_bf16_grads(q, k, v, do, causal, scale):
    qq, kk, vv = (x.detach().clone().requires_grad_() for x in (q, k, v))
    mask = causal_mask(q.shape[2], k.shape[2]) if causal else None
    o = F.scaled_dot_product_attention(qq, kk, vv, attn_mask=mask, scale=scale,
                                       enable_gqa=k.shape[1] != q.shape[1])
    return torch.autograd.grad(o, (qq, kk, vv), do)


def check(kernels, chips, log, cases=None):
    rows = []
    head_dims = sorted({key[1] for key in kernels})
    for (B, H, HK, SQ, SK) in CASES[:cases]:
        for d in head_dims:
            for causal in (False, True):
                torch.manual_seed(SQ * 7 + SK + d + causal)
                q = torch.randn(B, H, SQ, d, device="cuda").bfloat16()
                k = torch.randn(B, HK, SK, d, device="cuda").bfloat16()
                v = torch.randn(B, HK, SK, d, device="cuda").bfloat16()
                do = torch.randn(B, H, SQ, d, device="cuda").bfloat16()
                scale = 1 / math.sqrt(d)
                o, lse, ref = attention_backward(q, k, v, do, causal, scale)
                sdpa = torch_bf16_grads(q, k, v, do, causal, scale)
                serr = [rel_err(x, r) for x, r in zip(sdpa, ref)]
                srms = [rms_err(x, r) for x, r in zip(sdpa, ref)]
                for key, bwd in kernels.items():
                    chip, kd, kc, suffix = key
                    if (kd, kc) != (d, causal) or suffix.endswith("@old"):
                        continue
                    t = bwd.scratch(q, k)
                    got = bwd(q, k, v, o.bfloat16(), do, lse, scale, t)
                    torch.cuda.synchronize()
                    err = [rel_err(x, r) for x, r in zip(got, ref)]
                    rms = [rms_err(x, r) for x, r in zip(got, ref)]
                    ok = all(e <= 2 * s + 1e-6 for e, s in zip(rms, srms))
                    row = dict(chip=chip, variant=suffix or "default", B=B, H=H, HK=HK, SQ=SQ,
                               SK=SK, D=d, causal=causal, rms_err_dq_dk_dv=rms,
                               torch_bf16_rms_err=srms, max_err_dq_dk_dv=err,
                               torch_bf16_max_err=serr,
                               within_2x_torch_max=all(e <= 2 * s + 1e-6
                                                       for e, s in zip(err, serr)), ok=ok)
                    log(json.dumps(row))
                    rows.append(row)
    return rows


def bench(kernels, rounds, log):
    rows = []
    for (B, H, S, d, causal) in BENCH:
        torch.manual_seed(0)
        q, k, v, do = (torch.randn(B, H, S, d, device="cuda").bfloat16() for _ in range(4))
        scale = 1 / math.sqrt(d)
        flops = 2.5 * 4 * B * H * S * S * d * (0.5 if causal else 1.0)
        fns = {}
        if not any(key[1:3] == (d, causal) for key in kernels):
            continue
        for backend, name in ((torch.nn.attention.SDPBackend.CUDNN_ATTENTION, "cudnn"),
                              (torch.nn.attention.SDPBackend.FLASH_ATTENTION, "flash")):
            qq, kk, vv = (x.clone().requires_grad_() for x in (q, k, v))
            try:
                with torch.nn.attention.sdpa_kernel(backend):
                    o = F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)
                torch.autograd.grad(o, (qq, kk, vv), do, retain_graph=True)
            except RuntimeError as e:  # (a backend without this head dim)
                log(f"{name} at D={d}: {str(e).splitlines()[0][:200]}")
                continue
            fns[name] = (lambda o=o, qq=qq, kk=kk, vv=vv:
                         torch.autograd.grad(o, (qq, kk, vv), do, retain_graph=True))
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
            o, lse = torch.ops.aten._scaled_dot_product_flash_attention(
                q, k, v, is_causal=causal)[:2]
        for key, bwd in kernels.items():
            chip, kd, kc, suffix = key
            if (kd, kc) != (d, causal):
                continue
            t = bwd.scratch(q, k)
            fns[f"tilec_{chip}{suffix}"] = (lambda bwd=bwd, t=t:
                                            bwd(q, k, v, o, do, lse, scale, t))
        ms = time_rounds(fns, rounds)
        tf = {n: flops / (m * 1e-3) / 1e12 for n, m in ms.items()}
        # Where the package's kernels spend the time (separate rounds).
        parts = {}
        for key, bwd in kernels.items():
            if key[1:3] == (d, causal) and key[3] in ("", "__atomic"):
                t = bwd.scratch(q, k)
                for part, fn in bwd.parts(q, k, v, o, do, lse, scale, t).items():
                    parts[f"tilec_{key[0]}{key[3]}:{part}"] = fn
        breakdown = time_rounds(parts, rounds) if parts else {}
        row = dict(B=B, H=H, S=S, D=d, causal=causal, ms=ms, tflops=tf, breakdown_ms=breakdown,
                   vs_cudnn={n: tf[n] / tf["cudnn"] for n in tf
                             if n.startswith("tilec") and "cudnn" in tf},
                   vs_flash={n: tf[n] / tf["flash"] for n in tf
                             if n.startswith("tilec") and "flash" in tf},
                   vs_old={n: tf[n] / tf[n + "@old"] for n in tf if n + "@old" in tf},
                   vs_text={n: tf[n] / tf[text_twin(n)] for n in tf
                            if "__op" in n and text_twin(n) in tf})
        log(json.dumps(row))
        rows.append(row)
    return rows


def text_twin(name):
    """The text kernels' variant an op variant's name compares with."""
    return (name.replace("__op_mha", "").replace("__op_atomic", "__atomic")
            .replace("__op", ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", default=os.path.join(ROOT, ".gpu", "backward"))
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    ap.add_argument("--chips", default="sm_90a,sm_80")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--variants", action="store_true",
                    help="also the tile variants (variants.json)")
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--old-artifacts", default=None,
                    help="another build's artifacts, timed beside these (@old)")
    ap.add_argument("--op", action="store_true",
                    help="also tile.attention_backward's kernels (__op, __op_mha, "
                         "__op_atomic)")
    ap.add_argument("--cases", type=int, default=None,
                    help="only the first N shapes of the test matrix (compute-sanitizer runs)")
    args = ap.parse_args()
    log = open_log(args.out, "attention_backward.log")
    chips = args.chips.split(",")
    kernels = {}
    found = {}
    if args.variants:
        with open(os.path.join(args.artifacts, "variants.json")) as f:
            found = json.load(f)
    for chip in chips:
        for d in backward_op.HEAD_DIMS if args.op else backward_kernels.HEAD_DIMS:
            # (Head dim 256: the op's kernels only, not its atomic mode.)
            text = d in backward_kernels.HEAD_DIMS
            suffixes = [s for s in found.get(f"{chip}/d{d}", ["", "__atomic"])
                        if not s.startswith("__op") and text]
            for causal in (False, True):
                for s in suffixes:
                    kernels[(chip, d, causal, s)] = Backward(args.artifacts, chip, d, causal, s)
                    if args.old_artifacts:
                        kernels[(chip, d, causal, s + "@old")] = Backward(
                            args.old_artifacts, chip, d, causal, s)
                if args.op:
                    for s in ("__op", "__op_mha", "__op_atomic"):
                        if s == "__op_atomic" and d not in backward_op.ATOMIC_HEAD_DIMS:
                            continue
                        kernels[(chip, d, causal, s)] = OpBackward(args.artifacts, chip, d,
                                                                   causal, s)
    result = new_record("attention_backward_check", artifacts=args.artifacts)
    result["correctness"] = check(kernels, chips, log, args.cases)
    if not args.no_bench:
        result["speed"] = bench(kernels, args.rounds, log)
    sass = {}
    for chip in chips:
        for name in (backward_kernels.names("bf16", 128, False)[1:]
                     + backward_kernels.atomic_names("bf16", 128, False)[1:2]):
            name += "__atomic" if "dkdv_dq" in name else ""
            cubin = os.path.join(args.artifacts, chip, name + ".cubin")
            out = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True,
                                 text=True).stdout
            sass[f"{chip}/{name}"] = {op: out.count(op) for op in ("HGMMA", "UTMALDG", "HMMA",
                                                                   "LDGSTS", "LDSM")}
    result["sass"] = sass
    log(json.dumps(sass))
    return write_result(result, args.out, "attention_backward.json", log)


if __name__ == "__main__":
    sys.exit(main())
