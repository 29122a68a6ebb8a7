#!/usr/bin/env python3
"""FP8 attention forward (examples/attention_block_fp8.mlir) on the GPU:
correctness against a float64-accumulated reference over the dequantized
inputs, and speed beside tilec's bf16 attention (examples/attention_block_bf16.mlir,
the same algorithm in bf16) and torch's bf16 SDPA (cuDNN / flash).

Build here (tilec): sm_90a (wgmma) and sm_89 (mma.sync m16n8k32, assembled
for sm_90 so that it runs on the H200):

    attention_fp8.py --build [--art .gpu/attn_fp8]

Run there (torch, cuda.bindings):

    attention_fp8.py --art .gpu/attn_fp8 --out OUT [--rounds 5] [--base DIR]

--base times the FP8 kernels of artifacts built by an earlier tilec in the
same rounds (an A/B of a compiler change: tilec_fp8 / tilec_fp8_base, and
the named kernels at the other head dims: named_fp8 / named_fp8_base).
--variants [all|block|d64] builds (and the run then checks and times) the FP8
block program with other tiles and schedule knobs, as attention_fp8__<tag>
(VARIANTS; --tags a,b for some of them), and the named kernel at head dim 64
with other configs (D64_NAMED).

The named op on FP8 (tile.attention with descales, python/tilec/kernels.py's
attention_source("f8e4m3")) is built beside it on both paths, causal and
not, with config variants on sm_90a (NAMED): checked with its row
log-sum-exp, and timed beside the block program. So is its form that reads
descale tensors [B, H] on the device (`__dt`, descale_tensors=True; given
the per-tensor factors in every entry, so that the reference is the same).

Inputs: q, k, v random (never zeros), quantized to e4m3 with per-tensor
scales (amax / 448, FlashAttention-3's descales); V passed transposed
(Vt [B, H, 128, S], rows padded to 16 bytes), O poisoned with NaN. The
reference is softmax(q k^T / sqrt(d)) v over the dequantized inputs in
float64. The error bound is set by P's quantization, which the kernel does
by design: the same reference with P (the softmax numerators, before the
division) rounded to e4m3, times 2, and at least 2^-7.
"""

import argparse
import json
import math
import os
import subprocess
import sys

from scripts import ROOT
from scripts.harness.records import new_record, open_log, read_commit, stamp_commit, write_result
FP8 = os.path.join(ROOT, "examples", "attention_block_fp8.mlir")
BF16 = os.path.join(ROOT, "examples", "attention_block_bf16.mlir")
CHIPS = {"sm_90a": "sm_90a", "sm_89": "sm_90"}  # chip -> cubin arch
D = 128
ODD = [(1, 1, 1), (1, 2, 127), (2, 3, 1000), (1, 4, 2049), (1, 2, 4096)]
SPEED = [(4, 16, 4096), (2, 16, 8192), (1, 16, 16384)]


#: tag -> arguments of attention_block_source (tiles, schedule knobs): the
#: sm_90a variants --variants builds.
VARIANTS = {
    "bn64": dict(block_n=64),
    "bn256": dict(block_n=256),
    "pingpong": dict(schedule="pingpong = true"),
    "regs240": dict(schedule="consumer_regs = 240, producer_regs = 24"),
    "pingpong_regs240": dict(schedule="pingpong = true, consumer_regs = 240, producer_regs = 24"),
    "stages3": dict(schedule="stages = 3"),
    "stages2": dict(schedule="stages = 2"),
    "stages4": dict(schedule="stages = 4"),
    "stages5": dict(schedule="stages = 5"),
}


#: tag -> tile.attention config of the named FP8 kernels built for sm_90a
#: (None: the compiler's rule).
NAMED = {"": None, "nopersist": {"persistent": 0}, "pingpong": {"pingpong": 1},
         "nopersist_nosplit": {"persistent": 0, "split_loops": 0},
         "nows": {"warp_specialize": 0}}


#: The tag of the named FP8 kernel reading descale tensors (both paths).
DT = "dt"

#: Head dims of the named FP8 kernels checked besides 128 (both paths).
OTHER_HEAD_DIMS = (64, 256)

#: tag -> tile.attention config of the named FP8 kernels at head dim 64
#: that --variants builds for sm_90a (checked, and timed beside the default).
D64_NAMED = {"bn128": {"block_n": 128}, "persistent": {"persistent": 1}}


def named_name(causal, tag="", d=D):
    return f"attention_f8e4m3_d{d}" + ("_causal" if causal else "") + (f"__{tag}" if tag else "")


def build(art, tilec, variants, tags=None):
    from tilec.kernels import attention_source
    for chip, arch in CHIPS.items():
        sources = [FP8, BF16]
        for causal in (False, True):
            for tag, config in (NAMED.items() if chip == "sm_90a" else [("", None)]):
                name, src = attention_source("f8e4m3", D, causal, config=config,
                                             name=named_name(causal, tag))
                path = os.path.join(art, chip, name + ".mlir")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(src)
                sources.append(path)
            name, src = attention_source("f8e4m3", D, causal, descale_tensors=True,
                                         name=named_name(causal, DT))
            path = os.path.join(art, chip, name + ".mlir")
            with open(path, "w") as f:
                f.write(src)
            sources.append(path)
            for d in OTHER_HEAD_DIMS:
                name, src = attention_source("f8e4m3", d, causal)
                path = os.path.join(art, chip, name + ".mlir")
                with open(path, "w") as f:
                    f.write(src)
                sources.append(path)
        for ex in sources:
            subprocess.run([tilec, ex, f"--chip={chip}", f"--cubin-arch={arch}",
                            "--emit=cubin", "-o", os.path.join(art, chip)], check=True)
        print("built", chip, flush=True)
    out = os.path.join(art, "sm_90a")
    if variants in ("all", "d64"):
        for tag, config in D64_NAMED.items():
            name, src = attention_source("f8e4m3", 64, False, config=config,
                                         name=named_name(False, tag, 64))
            path = os.path.join(out, name + ".mlir")
            with open(path, "w") as f:
                f.write(src)
            subprocess.run([tilec, path, "--chip=sm_90a", "--cubin-arch=sm_90a", "--emit=cubin",
                            "-o", out], check=True)
            print("built", name, flush=True)
    if variants in ("all", "block"):
        from scripts.common.attention_block_template import attention_block_source
        for tag, kw in VARIANTS.items():
            if tags and tag not in tags:
                continue
            path = os.path.join(out, f"attention_block_fp8__{tag}.mlir")
            with open(path, "w") as f:
                f.write(attention_block_source(D, fp8=True, name=f"attention_block_fp8__{tag}", **kw))
            subprocess.run([tilec, path, "--chip=sm_90a", "--cubin-arch=sm_90a", "--emit=cubin",
                            "-o", out], check=True)
            print("built", tag, flush=True)
    stamp_commit(art)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--art", default=os.path.join(ROOT, ".gpu", "attn_fp8"))
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--out", default="out")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", help="artifacts of an earlier build to time beside")
    ap.add_argument("--tags", default=None,
                    help="with --variants: only these VARIANTS tags, comma-separated")
    ap.add_argument("--variants", nargs="?", const="all", choices=("all", "block", "d64"),
                    help="build the block program's VARIANTS, the head dim 64 D64_NAMED, or "
                         "both (all, the default)")
    args = ap.parse_args()
    if args.build:
        return build(args.art, args.tilec, args.variants,
                     args.tags.split(",") if args.tags else None)

    import torch
    from scripts.harness.artifacts import load
    from scripts.harness.timing import time_rounds

    log = open_log(args.out, "attention_fp8.log")

    result = new_record("attention_fp8", artifacts=args.art,
                  base_commit=read_commit(args.base) if args.base else None,
                  head_dim=D, correctness=[], speed=[])
    e4m3 = torch.float8_e4m3fn

    def quantize(x):
        """(e4m3 tensor, descale): per-tensor scale amax / 448."""
        descale = x.abs().max().float() / 448.0
        return (x / descale).to(e4m3), descale.item()

    def inputs(B, H, S, seed, D=D):
        g = torch.Generator(device="cuda").manual_seed(seed)

        def rnd():
            x = torch.randn(B, H, S, D, device="cuda", generator=g)
            return torch.where(x.abs() < 0.05, torch.full_like(x, 0.5), x)
        (q8, dq), (k8, dk), (v8, dv) = quantize(rnd()), quantize(rnd()), quantize(rnd())
        ldv = (S + 15) // 16 * 16
        vt = torch.zeros(B, H, D, ldv, device="cuda", dtype=e4m3)
        vt[..., :S] = v8.transpose(-1, -2)
        o = torch.full((B, H, S, D), float("nan"), device="cuda", dtype=torch.bfloat16)
        return q8, k8, v8, vt, o, dq, dk, dv, ldv

    def launch(kn, q8, k8, vt, o, dq, dk, dv, ldv):
        B, H, S, _ = q8.shape
        qk_scale = dq * dk / math.sqrt(D) * math.log2(math.e)
        kn(q8, k8, vt, o, B, H, S, o.stride(0), o.stride(1), q8.stride(0), q8.stride(1),
           vt.stride(0), vt.stride(1), ldv, qk_scale, dv)

    def reference(q8, k8, v8, dq, dk, dv, quantize_p, causal=False, lse=None):
        """float64 attention of the dequantized inputs, one (batch, head) at
        a time; with quantize_p, P's numerators rounded to e4m3 first; with
        `lse` (a float64 [B, H, S] tensor), the row log-sum-exp into it."""
        out = torch.empty(q8.shape, device="cuda", dtype=torch.float64)
        S = q8.shape[2]
        keep = torch.ones(S, S, device="cuda", dtype=torch.bool)
        if causal:
            keep = torch.tril(keep)
        for b in range(q8.shape[0]):
            for h in range(q8.shape[1]):
                q = q8[b, h].double() * dq
                k = k8[b, h].double() * dk
                v = v8[b, h].double() * dv
                s = (q @ k.t() / math.sqrt(q.shape[-1])).masked_fill(~keep, float("-inf"))
                mx = s.max(dim=1, keepdim=True).values
                p = torch.exp(s - mx)
                l = p.sum(dim=1, keepdim=True)
                if lse is not None:
                    lse[b, h] = (mx + torch.log(l))[:, 0]
                if quantize_p:
                    p = p.float().to(e4m3).double()
                out[b, h] = (p @ v) / l
        return out

    def output_error(o, q8, k8, v8, dq, dk, dv, causal=False, lse_ref=None):
        """(written, max relative error of o, P's quantization error, bound)
        against the float64 reference; fills lse_ref when given. The bound
        is twice the error of quantizing P alone, at least 2^-7."""
        ref = reference(q8, k8, v8, dq, dk, dv, False, causal, lse_ref)
        emul = reference(q8, k8, v8, dq, dk, dv, True, causal)
        scale = ref.abs().max().item()
        written = not torch.isnan(o.float()).any().item()
        err = (o.double() - ref).abs().max().item() / scale if written else float("inf")
        emul_err = (emul - ref).abs().max().item() / scale
        return written, err, emul_err, max(2 * emul_err, 2.0 ** -7)

    def launch_named(kn, q8, k8, vt, o, lse, dq, dk, dv, ldv, tensors=None):
        """The named kernel; with ``tensors`` (descale tensors [B, H]) its
        form that reads them on the device."""
        B, H, S, _ = q8.shape
        head = (q8, k8, vt, o, lse, B, H, H, S, S, q8.stride(0), q8.stride(1), k8.stride(0),
                k8.stride(1), lse.stride(0), vt.stride(0), vt.stride(1), ldv)
        if tensors is None:
            return kn(*head, dq, dk, dv)
        kn(*head, *tensors, *(s for t in tensors for s in t.stride()))

    def descale_tensors(B, H, dq, dk, dv):
        """Descale tensors [B, H] holding the per-tensor factors."""
        return [torch.full((B, H), x, device="cuda") for x in (dq, dk, dv)]

    variants = {tag: load(args.art, "sm_90a", f"attention_block_fp8__{tag}") for tag in VARIANTS}
    variants = {tag: k for tag, k in variants.items() if k}
    checks = [(chip, "attention_block_fp8", load(args.art, chip, "attention_block_fp8"))
              for chip in CHIPS]
    checks += [("sm_90a", f"attention_block_fp8__{tag}", k) for tag, k in variants.items()]
    for chip, name, kn in checks:
        for i, (B, H, S) in enumerate(ODD):
            q8, k8, v8, vt, o, dq, dk, dv, ldv = inputs(B, H, S, 10 + i)
            launch(kn, q8, k8, vt, o, dq, dk, dv, ldv)
            torch.cuda.synchronize()
            written, err, emul_err, bound = output_error(o, q8, k8, v8, dq, dk, dv)
            ok = bool(written and err <= bound)
            result["correctness"].append(dict(chip=chip, kernel=name, shape=[B, H, S, D], max_rel_err=err,
                                              p_quantization_err=emul_err, bound=bound,
                                              written=written, ok=ok))
            log(f"{'ok  ' if ok else 'FAIL'} {chip} {name} B={B} H={H} S={S} err={err:.2e} "
                f"(P in e4m3: {emul_err:.2e}, bound {bound:.2e})")

    fp8 = load(args.art, "sm_90a", "attention_block_fp8")
    bf16 = load(args.art, "sm_90a", "attention_block_bf16")
    base = load(args.base, "sm_90a", "attention_block_fp8") if args.base else None
    for B, H, S in SPEED:
        q8, k8, v8, vt, o, dq, dk, dv, ldv = inputs(B, H, S, 1)
        qb, kb, vb = (x.to(torch.bfloat16) for x in (q8, k8, v8))
        ob = torch.empty_like(qb)
        scale = 1.0 / math.sqrt(D) * math.log2(math.e)
        fns = {"tilec_fp8": lambda: launch(fp8, q8, k8, vt, o, dq, dk, dv, ldv),
               "tilec_bf16": lambda: bf16(qb, kb, vb, ob, B, H, S, qb.stride(0), qb.stride(1),
                                          scale),
               "torch_sdpa_bf16": lambda: torch.nn.functional.scaled_dot_product_attention(
                   qb, kb, vb)}
        if base:
            fns["tilec_fp8_base"] = lambda: launch(base, q8, k8, vt, o, dq, dk, dv, ldv)
        for tag, kv in variants.items():
            fns[f"tilec_fp8__{tag}"] = (lambda kv=kv: launch(kv, q8, k8, vt, o, dq, dk, dv, ldv))
        ms = time_rounds(fns, args.rounds)
        flops = 4.0 * B * H * S * S * D
        tf = {k: round(flops / v / 1e9, 1) for k, v in ms.items()}
        row = dict(shape=[B, H, S, D], tflops=tf,
                   fp8_vs_tilec_bf16=round(tf["tilec_fp8"] / tf["tilec_bf16"], 3),
                   fp8_vs_sdpa_bf16=round(tf["tilec_fp8"] / tf["torch_sdpa_bf16"], 3))
        if base:
            row["fp8_vs_base"] = round(tf["tilec_fp8"] / tf["tilec_fp8_base"], 3)
        for tag in variants:
            row[f"{tag}_vs_fp8"] = round(tf[f"tilec_fp8__{tag}"] / tf["tilec_fp8"], 3)
        result["speed"].append(row)
        log(json.dumps(row))
    sass = subprocess.run(["cuobjdump", "-sass", os.path.join(args.art, "sm_90a",
                                                            "attention_block_fp8.cubin")],
                          capture_output=True, text=True).stdout
    result["sass_qgmma"] = sorted(set(w for w in sass.split() if w.startswith("QGMMA")))
    log(" ".join(result["sass_qgmma"]))
    # The named op on FP8, with its lse, causal and not.
    named_checks = [(chip, named_name(causal, d=d), d) for chip in CHIPS
                    for causal in (False, True) for d in (D,) + OTHER_HEAD_DIMS]
    named_checks += [("sm_90a", named_name(causal, tag), D) for causal in (False, True)
                     for tag in NAMED if tag]
    named_checks += [(chip, named_name(causal, DT), D) for chip in CHIPS
                     for causal in (False, True)]
    d64_variants = [tag for tag in D64_NAMED
                    if os.path.exists(os.path.join(args.art, "sm_90a",
                                                   named_name(False, tag, 64) + ".cubin"))]
    named_checks += [("sm_90a", named_name(False, tag, 64), 64) for tag in d64_variants]
    for chip, name, d in named_checks:
        kn = load(args.art, chip, name)
        causal = "_causal" in name
        for i, (B, H, S) in enumerate(ODD):
            q8, k8, v8, vt, o, dq, dk, dv, ldv = inputs(B, H, S, 30 + i, d)
            lse = torch.full((B, H, S), float("nan"), device="cuda")
            launch_named(kn, q8, k8, vt, o, lse, dq, dk, dv, ldv,
                         tensors=descale_tensors(B, H, dq, dk, dv)
                         if name.endswith("__" + DT) else None)
            torch.cuda.synchronize()
            lse_ref = torch.empty(B, H, S, device="cuda", dtype=torch.float64)
            written, err, emul_err, bound = output_error(o, q8, k8, v8, dq, dk, dv, causal,
                                                         lse_ref)
            lse_err = (lse.double() - lse_ref).abs().max().item()
            # ex2.approx and f32 sums: relative to the lse's size.
            lse_bound = 1e-3 * max(1.0, lse_ref.abs().max().item())
            ok = bool(written and err <= bound and lse_err <= lse_bound)
            result["correctness"].append(dict(chip=chip, kernel=name, shape=[B, H, S, d],
                                              max_rel_err=err, p_quantization_err=emul_err,
                                              bound=bound, lse_abs_err=lse_err, written=written,
                                              ok=ok))
            log(f"{'ok  ' if ok else 'FAIL'} {chip} {name} B={B} H={H} S={S} err={err:.2e} "
                f"(bound {bound:.2e}) lse err {lse_err:.1e}")
    named = {tag or "default": load(args.art, "sm_90a", named_name(False, tag)) for tag in NAMED}
    named_dt = load(args.art, "sm_90a", named_name(False, DT))
    for B, H, S in SPEED:
        q8, k8, v8, vt, o, dq, dk, dv, ldv = inputs(B, H, S, 1)
        lse = torch.empty(B, H, S, device="cuda")
        fns = {"block_program": lambda: launch(fp8, q8, k8, vt, o, dq, dk, dv, ldv)}
        for tag, kn in named.items():
            fns[f"named_{tag}"] = (lambda kn=kn: launch_named(kn, q8, k8, vt, o, lse, dq, dk,
                                                             dv, ldv))
        if named_dt:
            ts = descale_tensors(B, H, dq, dk, dv)
            fns[f"named_{DT}"] = lambda: launch_named(named_dt, q8, k8, vt, o, lse, dq, dk, dv,
                                                      ldv, tensors=ts)
        ms = time_rounds(fns, args.rounds)
        flops = 4.0 * B * H * S * S * D
        tf = {k: round(flops / v / 1e9, 1) for k, v in ms.items()}
        row = dict(shape=[B, H, S, D], tflops=tf,
                   **{f"{k}_vs_block_program": round(v / tf["block_program"], 3)
                      for k, v in tf.items() if k != "block_program"})
        result.setdefault("named_speed", []).append(row)
        log(json.dumps(row))
    # The other head dims: the named FP8 kernel beside torch's bf16 SDPA
    # (B * S = 16k, H * d = 2048).
    for d in OTHER_HEAD_DIMS:
        B, H, S = 2, 2048 // d, 8192
        q8, k8, v8, vt, o, dq, dk, dv, ldv = inputs(B, H, S, 1, d)
        lse = torch.empty(B, H, S, device="cuda")
        kn = load(args.art, "sm_90a", named_name(False, d=d))
        qb, kb, vb = (x.to(torch.bfloat16) for x in (q8, k8, v8))
        fns = {"named_fp8": lambda: launch_named(kn, q8, k8, vt, o, lse, dq, dk, dv, ldv),
               "torch_sdpa_bf16": lambda: torch.nn.functional.scaled_dot_product_attention(
                   qb, kb, vb)}
        if d == 64:
            for tag in d64_variants:
                kv = load(args.art, "sm_90a", named_name(False, tag, 64))
                fns[f"named_fp8__{tag}"] = (lambda kv=kv: launch_named(kv, q8, k8, vt, o, lse,
                                                                       dq, dk, dv, ldv))
        if args.base:
            kb_ = load(args.base, "sm_90a", named_name(False, d=d))
            fns["named_fp8_base"] = (lambda: launch_named(kb_, q8, k8, vt, o, lse, dq, dk,
                                                          dv, ldv))
        ms = time_rounds(fns, args.rounds)
        flops = 4.0 * B * H * S * S * d
        tf = {k: round(flops / v / 1e9, 1) for k, v in ms.items()}
        row = dict(shape=[B, H, S, d], tflops=tf,
                   fp8_vs_sdpa_bf16=round(tf["named_fp8"] / tf["torch_sdpa_bf16"], 3))
        if args.base:
            row["fp8_vs_base"] = round(tf["named_fp8"] / tf["named_fp8_base"], 3)
        result.setdefault("named_speed", []).append(row)
        log(json.dumps(row))
    return write_result(result, args.out, "attention_fp8.json", log)


if __name__ == "__main__":
    sys.exit(main())
