"""The attention part of bench/block_programs.py: the FlashAttention forward
block programs of examples/attention_block_bf16.mlir (and their head dim 64
versions, scripts/build/build_block_artifacts.py), their Triton twin (the same
algorithm: 128x128 blocks, 8 warps, one key loop whose edge blocks take the
mask in a branch), tile.attention, cuDNN and torch flash SDPA.

Block-program kernels: attention_block[_causal]_d{64,128}[__<tag>] with
parameters (Q, K, V, O, B, H, S, sb, sh, qk_scale), tensors [B, H, S, D].
"""

import json
import math
import os
import re

import torch
import torch.nn.functional as F

from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.artifacts import load
from scripts.harness.records import ratio, tflops
from scripts.harness.timing import time_rounds

LOG2E = 1.4426950408889634
ODD = [(1, 2, 1), (2, 3, 113), (1, 4, 1000), (2, 2, 1024), (1, 2, 4097), (3, 1, 300)]
# B*S = 16k tokens, H*D = 2048.
BENCH = [(1024, 64), (4096, 64), (16384, 64), (1024, 128), (4096, 128), (16384, 128)]


def reference(q, k, v, causal):
    """The float32 output (scripts/harness: SQ = SK here, so its bottom-right
    causal mask is the usual one)."""
    return ref.attention(q, k, v, causal)[0]


def run_block(kernel, q, k, v, o):
    B, H, S, D = q.shape
    kernel(q, k, v, o, B, H, S, H * S * D, S * D, LOG2E / math.sqrt(D))


def check_attention(kernel, name, shapes, sdpa=True, launch=run_block):
    """Max relative error against the float32 reference; the bound is twice
    bf16 SDPA's own error (or 1e-2 without `sdpa`: under compute-sanitizer,
    whose racecheck reports cuDNN's kernel). `launch(kernel, q, k, v, o)`
    runs the kernel (a block program's parameters by default)."""
    causal = "causal" in name
    D = int(re.search(r"_d(\d+)", name).group(1))
    rows = []
    for i, (B, H, S) in enumerate(shapes):
        g = torch.Generator(device="cuda").manual_seed(10 + i)
        q, k, v = (tensors.randn((B, H, S, D), torch.bfloat16, generator=g) for _ in range(3))
        o = tensors.poisoned(q.shape, q.dtype)
        launch(kernel, q, k, v, o)
        torch.cuda.synchronize()
        want = reference(q, k, v, causal)
        err = ref.rel_err(o, want)
        serr = 0.0
        if sdpa:  # (torch's own kernel, is_causal: the flash path)
            serr = ref.rel_err(F.scaled_dot_product_attention(q, k, v, is_causal=causal), want)
        written = tensors.unwritten(o) == 0
        rows.append(dict(shape=[B, H, S, D], causal=causal, max_rel_err=err,
                         sdpa_bf16_err=serr, written=written,
                         ok=bool(written and err <= max(2 * serr, 1e-2))))
    return rows


def triton_twin():
    import triton
    import triton.language as tl

    @triton.jit
    def fwd(Q, K, V, O, qk_scale, H, S, sb, sh,
            D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, CAUSAL: tl.constexpr):
        m0 = tl.program_id(0) * BM
        h = tl.program_id(1)
        b = tl.program_id(2)
        base = b.to(tl.int64) * sb + h.to(tl.int64) * sh
        rows = m0 + tl.arange(0, BM)
        cols = tl.arange(0, BN)
        d = tl.arange(0, D)
        q = tl.load(Q + base + rows[:, None] * D + d[None, :], mask=rows[:, None] < S, other=0.0)
        m_i = tl.full([BM], float("-inf"), tl.float32)
        l_i = tl.zeros([BM], tl.float32)
        acc = tl.zeros([BM, D], tl.float32)
        full = (S // BN) * BN
        end = S
        if CAUSAL:
            full = tl.minimum(full, m0)
            end = tl.minimum(m0 + BM, S)
        for n in range(0, end, BN):
            kn = n + cols
            k = tl.load(K + base + kn[:, None] * D + d[None, :], mask=kn[:, None] < S, other=0.0)
            v = tl.load(V + base + kn[:, None] * D + d[None, :], mask=kn[:, None] < S, other=0.0)
            s = tl.dot(q, tl.trans(k))
            if n >= full:
                keep = kn[None, :] < S
                if CAUSAL:
                    keep = keep & (kn[None, :] <= rows[:, None])
                s = tl.where(keep, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
            alpha = tl.math.exp2(m_i - m_new)
            p = tl.math.exp2(s * qk_scale - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            acc = tl.dot(p.to(tl.bfloat16), v, acc)
            m_i = m_new
        out = acc / l_i[:, None]
        tl.store(O + base + rows[:, None] * D + d[None, :], out.to(tl.bfloat16),
                 mask=rows[:, None] < S)

    def run(q, k, v, o, causal, stages):
        B, H, S, D = q.shape
        grid = (triton.cdiv(S, 128), H, B)
        fwd[grid](q, k, v, o, LOG2E / math.sqrt(D), H, S, H * S * D, S * D, D=D, BM=128,
                  BN=128, CAUSAL=causal, num_warps=8, num_stages=stages)
    return run


def named_args(q, k, v, o, lse):
    B, H, S, D = q.shape
    return (q, k, v, o, lse, B, H, H, S, S, H * S * D, S * D, H * S * D, S * D, H * S)


def attention_section(art, rounds, log, quick):
    out = dict(correctness=[], bench=[])
    for chip in ("sm_90a", "sm_80"):
        d = os.path.join(art, chip)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not (f.startswith("attention_block") and f.endswith(".json")):
                continue
            name = f[:-5]
            for r in check_attention(load(art, chip, name), name, ODD[:3] if quick else ODD):
                r.update(chip=chip, kernel=name)
                out["correctness"].append(r)
                if not r["ok"]:
                    log("FAIL " + json.dumps(r))
    log(f"attention correctness: {sum(r['ok'] for r in out['correctness'])}/"
        f"{len(out['correctness'])}")

    twin = triton_twin()
    for (S, D) in (BENCH[:2] + BENCH[3:5] if quick else BENCH):
        B, H = 16384 // S, 2048 // D
        for causal in (False, True):
            g = torch.Generator(device="cuda").manual_seed(S + D)
            q, k, v = (torch.randn(B, H, S, D, device="cuda", generator=g).bfloat16()
                       for _ in range(3))
            o = torch.empty_like(q)
            lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
            suffix = ("_causal" if causal else "") + f"_d{D}"
            fns = {}
            for chip in ("sm_90a", "sm_80"):
                d = os.path.join(art, chip)
                if not os.path.isdir(d):
                    continue  # built for the other chip only
                for f in sorted(os.listdir(d)):
                    if f.startswith("attention_block" + suffix) and f.endswith(".json") and (
                            f[:-5] == "attention_block" + suffix or "__" in f):
                        k_ = load(art, chip, f[:-5])
                        fns[f"tilec_{chip}_{f[:-5]}"] = (lambda k_=k_: run_block(k_, q, k, v, o))
                named = load(art, chip, f"attention_bf16_d{D}" + ("_causal" if causal else ""))
                if named:
                    fns[f"tilec_named_{chip}"] = (lambda n=named: n(*named_args(q, k, v, o, lse)))
                # The named op compiled by an earlier tilec (A/B of a change).
                base = load(art, chip, f"attention_bf16_d{D}" + ("_causal" if causal else "") + "__base")
                if base:
                    fns[f"tilec_named_base_{chip}"] = (lambda n=base: n(*named_args(q, k, v, o, lse)))
            for stages in (2, 3):
                fns[f"triton_twin_s{stages}"] = (lambda s=stages: twin(q, k, v, o, causal, s))
            def sdpa(backend):
                def f():
                    with torch.nn.attention.sdpa_kernel(backend):
                        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                return f
            fns["cudnn"] = sdpa(torch.nn.attention.SDPBackend.CUDNN_ATTENTION)
            fns["torch_flash"] = sdpa(torch.nn.attention.SDPBackend.FLASH_ATTENTION)
            ms = time_rounds(fns, rounds, calls=10)
            flop = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
            t = {kk: tflops(flop, vv) for kk, vv in ms.items()}
            main = f"tilec_sm_90a_attention_block{suffix}"
            twin_best = max(t["triton_twin_s2"], t["triton_twin_s3"])
            row = dict(S=S, D=D, B=B, H=H, causal=causal, tflops=t,
                       block_vs_named=ratio(t[main], t["tilec_named_sm_90a"]),
                       block_vs_triton_twin=ratio(t[main], twin_best),
                       block_vs_cudnn=ratio(t[main], t["cudnn"]))
            m80 = f"tilec_sm_80_attention_block{suffix}"
            if m80 in t and "tilec_named_sm_80" in t:
                row["sm80_block_vs_named"] = ratio(t[m80], t["tilec_named_sm_80"])
                # The same program with the tiles a user picks for mma.sync
                # chips (scripts/build/build_block_artifacts.py ATTENTION_TILES).
                tuned = {kk: vv for kk, vv in t.items()
                         if kk.startswith(m80 + "__bn")}
                if tuned:
                    best = max(tuned, key=tuned.get)
                    row["sm80_tuned_block"] = best
                    row["sm80_tuned_block_vs_named"] = ratio(tuned[best], t["tilec_named_sm_80"])
            out["bench"].append(row)
            log(json.dumps(row))
    return out
