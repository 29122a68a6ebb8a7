#!/usr/bin/env python3
"""Checks tile.attention kernels (python/tilec/kernels.attention_source,
compiled into ARTIFACT_DIR/<chip>/) on the GPU: odd sequence lengths,
seqlen_q != seqlen_k, GQA, head dims 64/128 (and 256 on the first five shapes
where the chip has attention_bf16_d256*.json), causal (bottom-right aligned, as
FlashAttention) or not, poisoned outputs; error against a float32 reference
compared with torch's bf16 SDPA against the same reference (must be <= 2x),
shapes with enough tiles that persistent programs walk several,
the log-sum-exp against float32; and a benchmark (S 1k/4k/16k x d 64/128 x
causal) beside torch SDPA (flash), cuDNN and bench/triton_attention.py: per
shape, every chip's kernel and every baseline in alternating rounds
(TILEC_BENCH_ROUNDS, default 5), the median over rounds reported.
Usage: attention_check.py ARTIFACT_DIR OUT_JSON
"""

import datetime
import json
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F

from tilec.runtime import Kernel  # noqa: E402

BENCH_ROUNDS = int(os.environ.get("TILEC_BENCH_ROUNDS", "5"))
# Shapes with more query blocks than the H200 has SMs (132) and, causal, at
# least as many pairs of blocks as SMs: a persistent program walks several
# tiles, and the causal pairs run (odd block counts at 4097, 1100, 300 and 100,
# where the block past the last query stands in; rows that see no key at
# Sq > Sk).
PERSISTENT_SHAPES = [(2, 8, 2, 4097, 4097), (4, 16, 4, 1500, 700), (2, 16, 16, 1100, 2000),
                     (1, 140, 70, 100, 100), (1, 66, 66, 300, 300)]


def reference(q, k, v, causal):
    """float32 attention with FlashAttention's bottom-right causal mask."""
    B, H, SQ, D = q.shape
    HK, SK = k.shape[1], k.shape[2]
    k = k.float().repeat_interleave(H // HK, dim=1)
    v = v.float().repeat_interleave(H // HK, dim=1)
    s = q.float() @ k.transpose(-1, -2) / math.sqrt(D)
    if causal:
        i = torch.arange(SQ, device=q.device)[:, None]
        j = torch.arange(SK, device=q.device)[None, :]
        s = s.masked_fill(j > i + (SK - SQ), float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    return p @ v, lse


def sdpa(q, k, v, causal):
    H, HK, SQ, SK = q.shape[1], k.shape[1], q.shape[2], k.shape[2]
    k = k.repeat_interleave(H // HK, dim=1)
    v = v.repeat_interleave(H // HK, dim=1)
    mask = None
    if causal:
        i = torch.arange(SQ, device=q.device)[:, None]
        j = torch.arange(SK, device=q.device)[None, :]
        mask = j <= i + (SK - SQ)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def run(kernel, q, k, v):
    B, H, SQ, D = q.shape
    HK, SK = k.shape[1], k.shape[2]
    o = torch.full_like(q, float("nan"))
    lse = torch.full((B, H, SQ), float("nan"), device="cuda")
    kernel(q, k, v, o, lse, B, H, HK, SQ, SK, H * SQ * D, SQ * D, HK * SK * D, SK * D, H * SQ)
    return o, lse


def check_case(kernel, B, H, HK, SQ, SK, d, causal, with_sdpa=True):
    """Runs ``kernel`` on random inputs of one shape (outputs poisoned) and
    compares O and the lse with the float32 reference: O's error must be at
    most 2x torch's bf16 SDPA error against the same reference (or 2e-3;
    without SDPA, e.g. under compute-sanitizer, at most 1e-2), the lse
    within 1e-3 and -inf exactly where the reference's is."""
    torch.manual_seed(SQ * 7 + SK)
    q = torch.randn(B, H, SQ, d, device="cuda").bfloat16()
    k = torch.randn(B, HK, SK, d, device="cuda").bfloat16()
    v = torch.randn(B, HK, SK, d, device="cuda").bfloat16()
    o, lse = run(kernel, q, k, v)
    torch.cuda.synchronize()
    ref, ref_lse = reference(q, k, v, causal)
    scale = ref.abs().max().item() or 1.0
    err = ((o.float() - ref).abs().max().item() / scale)
    serr = ((sdpa(q, k, v, causal).float().nan_to_num(0.0) - ref).abs().max().item()
            / scale) if with_sdpa else None
    bound = max(2 * serr, 2e-3) if with_sdpa else 1e-2
    finite = torch.isfinite(ref_lse)
    lse_err = ((lse - ref_lse)[finite].abs().max().item() if finite.any() else 0.0)
    lse_ok = bool(torch.equal(torch.isfinite(lse), finite))
    ok = bool(not torch.isnan(o.float()).any().item() and err <= bound
              and lse_ok and lse_err < 1e-3)
    return dict(B=B, H=H, HK=HK, SQ=SQ, SK=SK, head_dim=d, causal=causal,
                max_rel_err=err, torch_sdpa_bf16_err=serr, lse_max_abs_err=lse_err, ok=ok)


def bench_shape(art, chips, S, d, causal, do_bench, rounds):
    """Times every chip's kernel and the baselines at one shape in alternating
    rounds (each a do_bench median) and reports the median over rounds, so that
    clock and power drift during the run falls on all of them alike. Returns one
    row per chip."""
    B, H = 16384 // S, 2048 // d
    name = f"attention_bf16_d{d}" + ("_causal" if causal else "")
    q, k, v = (torch.randn(B, H, S, d, device="cuda").bfloat16() for _ in range(3))
    o = torch.empty_like(q)
    lse = torch.empty(B, H, S, device="cuda")
    flop = 4.0 * B * H * S * S * d * (0.5 if causal else 1.0)
    fns, errors, extra = {}, {}, {}
    for chip in chips:
        kern = Kernel(os.path.join(art, chip, name + ".json"))
        fns[chip] = (lambda kern=kern: kern(q, k, v, o, lse, B, H, H, S, S, H * S * d, S * d,
                                            H * S * d, S * d, H * S))

    def sdpa(backend):
        def f():
            with torch.nn.attention.sdpa_kernel(backend):
                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return f
    fns["torch_flash"] = sdpa(torch.nn.attention.SDPBackend.FLASH_ATTENTION)
    try:
        fns["cudnn"] = sdpa(torch.nn.attention.SDPBackend.CUDNN_ATTENTION)
        fns["cudnn"]()
    except RuntimeError as e:  # no cuDNN backend for this shape
        errors["cudnn"] = str(e)[:200]
        del fns["cudnn"]
    try:
        from bench.triton_attention import triton_attention
        # Sanity check against the flash backend before timing.
        ot = triton_attention(q, k, v, causal)
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
            of = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        extra["triton_max_abs_err"] = (ot.float() - of.float()).abs().max().item()
        del ot, of
        fns["triton"] = lambda: triton_attention(q, k, v, causal)
    except Exception as e:  # a Triton problem never stops the run
        errors["triton"] = str(e)[:200]
    times = {n: [] for n in fns}
    order = list(fns)
    for r in range(rounds):
        for n in (order if r % 2 == 0 else order[::-1]):
            times[n].append(do_bench(fns[n], warmup=5, rep=40, return_mode="median"))
    tflops = {n: flop / statistics.median(ts) / 1e9 for n, ts in times.items()}
    spread = {n: (max(ts) - min(ts)) / statistics.median(ts) for n, ts in times.items()}
    rows = []
    for chip in chips:
        row = dict(chip=chip, B=B, H=H, S=S, head_dim=d, causal=causal, rounds=rounds,
                   tilec_tflops=tflops[chip], tilec_spread=spread[chip],
                   torch_flash_tflops=tflops["torch_flash"])
        row["vs_torch_flash"] = row["tilec_tflops"] / row["torch_flash_tflops"]
        for base in ("cudnn", "triton"):
            if base in tflops:
                row[base + "_tflops"] = tflops[base]
                row["vs_" + base] = row["tilec_tflops"] / tflops[base]
            else:
                row[base + "_error"] = errors[base]
        row.update(extra)
        rows.append(row)
    return rows


def main():
    art, out_json = sys.argv[1], sys.argv[2]
    cases = []
    shapes = [(1, 1, 1, 1, 1), (2, 4, 4, 113, 113), (1, 4, 2, 128, 255),
              (2, 2, 1, 255, 128), (1, 8, 8, 1023, 1023),
              (1, 4, 1, 2048, 2048), (1, 2, 2, 4097, 4097), (1, 2, 2, 1, 4097)]
    shapes += PERSISTENT_SHAPES
    for (B, H, HK, SQ, SK) in shapes:
        for d in (64, 128):
            for causal in (False, True):
                cases.append((B, H, HK, SQ, SK, d, causal))
    record = dict(date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
                  gpu=torch.cuda.get_device_name(), commit=os.environ.get("TILEC_COMMIT", "?"),
                  correctness=[], bench=[])
    chips = [c for c in sorted(os.listdir(art))
             if os.path.isfile(os.path.join(art, c, "attention_bf16_d128.json"))]
    for chip in chips:
        # Head dim 256 where the chip's artifacts have it: the first 5 shapes.
        chip_cases = list(cases)
        for causal in (False, True):
            name = "attention_bf16_d256" + ("_causal" if causal else "")
            if os.path.isfile(os.path.join(art, chip, name + ".json")):
                chip_cases += [(B, H, HK, SQ, SK, 256, causal)
                               for (B, H, HK, SQ, SK) in shapes[:5]]
        for (B, H, HK, SQ, SK, d, causal) in chip_cases:
            name = f"attention_bf16_d{d}" + ("_causal" if causal else "")
            kernel = Kernel(os.path.join(art, chip, name + ".json"))
            r = dict(chip=chip, **check_case(kernel, B, H, HK, SQ, SK, d, causal))
            print(json.dumps(r), flush=True)
            record["correctness"].append(r)
    # Speed beside torch SDPA (flash), cuDNN and a Triton FlashAttention-2 kernel
    # (bench/triton_attention.py): B*S = 16k tokens, H*D = 2048, every chip and
    # baseline interleaved per shape.
    from triton.testing import do_bench
    for S in (1024, 4096, 16384):
        for d in (64, 128):
            for causal in (False, True):
                for row in bench_shape(art, chips, S, d, causal, do_bench, BENCH_ROUNDS):
                    print(json.dumps(row), flush=True)
                    record["bench"].append(row)
    fails = sum(not r["ok"] for r in record["correctness"])
    print(f"attention: {len(record['correctness']) - fails}/{len(record['correctness'])} ok")
    json.dump(record, open(out_json, "w"), indent=1)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
