#!/usr/bin/env python3
"""tilec.flex_attention (FlexAttention's interface, python/tilec/flex.py)
on the GPU, from kernels precompiled here (the GPU machine has no
compiler):

    python3 -m scripts.gpu.flex_check --build .gpu/flex        # here
    python3 -m scripts.gpu.flex_check --artifacts .gpu/flex --out OUT [--quick]   # there

Variants (traced callables, the same in both steps): a logit softcap
(score_mod), a causal sliding window (mask_mod), both, and ALiBi with a
Python slope (score_mod) with a causal mask; bf16, head dims 64 and 128.
Correctness: odd lengths (the output allocated by tilec: checked finite),
against a float32 reference through scripts/harness/references (within
2x the same computation in bf16, or 2e-3), the lse within 1e-3. Speed:
B = 2, H = 16, S = 4k and 8k (8k and head dim 128 only with --quick), window 1024, beside
torch's flex_attention under torch.compile with the same callables and
block mask, in alternating rounds, as eager calls and replayed from CUDA
graphs; TFLOP/s over the visible pairs.
"""

import sys

from scripts.harness.cli import artifact_chips, check_main

CHIPS = {"sm_90a": "sm_90a", "sm_80": "sm_90"}
CAP = 50.0
WINDOW = 256        # correctness
BENCH_WINDOW = 1024  # speed (issue 53's anchor)
CASES = [(2, 4, 4, 1000), (1, 8, 2, 333), (1, 2, 2, 77)]  # (B, Hq, Hkv, S)
BENCH_SHAPES = [(2, 16, 4096), (2, 16, 8192)]


def softcap(score, b, h, q_idx, kv_idx):
    from tilec import mods
    return mods.tanh(score / CAP) * CAP


def alibi(score, b, h, q_idx, kv_idx):
    return score - 0.0625 * (q_idx - kv_idx)


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def window_of(w):
    def sliding_window(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx - kv_idx < w)
    return sliding_window


#: name -> (score_mod, mask_mod of a window, or None)
VARIANTS = {"softcap": (softcap, None), "window": (None, window_of),
            "softcap_window": (softcap, window_of), "alibi_causal": (alibi, lambda w: causal)}


def kernels_of(q_len, head_dim, window, chip):
    """(name, source) of each variant's kernel for this shape, as
    tilec.flex_attention picks it."""
    from tilec.flex import BlockMask, flex_regions
    from tilec.kernels import (attention_name, attention_shape_config, attention_source,
                               gemm_config_suffix)
    from tilec import mods as _mods
    out = []
    for score_mod, mask_of in VARIANTS.values():
        mask = None
        if mask_of is not None:
            fn = mask_of(window)
            mask = BlockMask(fn, _mods.trace_mask_mod(fn), None, None, q_len, q_len, 128)
        regions, is_causal = flex_regions(score_mod, mask, q_len, q_len)
        config = attention_shape_config(q_len, head_dim, is_causal, chip)
        name = attention_name("bf16", head_dim, is_causal, mods=regions) + \
            gemm_config_suffix(config)
        out.append((name, attention_source("bf16", head_dim, is_causal, config=config, name=name,
                                           mods=regions)[1]))
    return out


def build(directory):
    from scripts.harness.artifacts import build_package_kernels
    sources = {}
    for chip in CHIPS:
        for d in (64, 128):
            for _, _, _, s in CASES:
                for name, source in kernels_of(s, d, WINDOW, chip):
                    sources[(chip, name)] = source
            for _, _, s in BENCH_SHAPES:
                for name, source in kernels_of(s, d, BENCH_WINDOW, chip):
                    sources[(chip, name)] = source
    built = build_package_kernels(directory, sources, CHIPS)
    print(f"{built} kernels in {directory}")


def reference_mods(torch, name, window, s):
    """The variant's score_mod(s, qi, kj) for the float32 reference: its
    score_mod, then its mask as -inf."""
    score_mod, mask_of = VARIANTS[name]

    def mod(scores, qi, kj):
        if score_mod is softcap:
            scores = torch.tanh(scores / CAP) * CAP
        elif score_mod is alibi:
            scores = scores - 0.0625 * (qi - kj).to(scores.dtype)
        if mask_of is not None:
            keep = qi >= kj
            if mask_of is window_of:
                keep = keep & (qi - kj < window)
            scores = scores.masked_fill(~keep, float("-inf"))
        return scores
    return mod


def block_mask_of(tilec, name, q, k, window):
    """The variant's block mask (made once per shape, as a user would)."""
    mask_of = VARIANTS[name][1]
    if mask_of is None:
        return None
    return tilec.create_block_mask(mask_of(window), None, None, q.shape[2], k.shape[2])


def call_tilec(tilec, name, q, k, v, mask, chip, artifacts, return_lse):
    return tilec.flex_attention(q, k, v, score_mod=VARIANTS[name][0], block_mask=mask,
                                enable_gqa=q.shape[1] != k.shape[1], return_lse=return_lse,
                                chip=chip, artifacts=artifacts)


def check(torch, tilec, chip, name, d, case, artifacts):
    from scripts.harness import references as ref
    from scripts.harness import tensors
    B, H, HK, S = case
    g = tensors.generator(S * 31 + d)
    q = tensors.randn((B, H, S, d), torch.bfloat16, generator=g)
    k = tensors.randn((B, HK, S, d), torch.bfloat16, generator=g)
    v = tensors.randn((B, HK, S, d), torch.bfloat16, generator=g)
    out, lse = call_tilec(tilec, name, q, k, v, block_mask_of(tilec, name, q, k, WINDOW), chip,
                          artifacts, True)
    torch.cuda.synchronize()
    mod = reference_mods(torch, name, WINDOW, S)
    want, want_lse = ref.attention(q, k, v, score_mod=mod)
    low, _ = ref.attention(q, k, v, score_mod=mod, dtype=torch.bfloat16)
    err, bf16_err = ref.rel_err(out, want), ref.rel_err(low, want)
    lse_err, lse_ok = ref.lse_error(lse, want_lse)
    ok = bool(torch.isfinite(out.float()).all().item() and err <= max(2 * bf16_err, 2e-3)
              and lse_ok and lse_err < 1e-3)
    return dict(chip=chip, variant=name, head_dim=d, B=B, H=H, HK=HK, S=S, max_rel_err=err,
                bf16_reference_err=bf16_err, lse_max_abs_err=lse_err, ok=ok)


def visible_pairs(name, S, window):
    """The variant's query-key pairs: all without a mask, else causal ones
    (within the window)."""
    from scripts.harness.references import visible_pairs as causal_pairs
    mask_of = VARIANTS[name][1]
    if mask_of is None:
        return S * S
    return causal_pairs(S, window if mask_of is window_of else None)


def bench(torch, tilec, chips, name, B, H, S, d, artifacts, rounds):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    from scripts.harness import tensors
    from scripts.harness.records import rates
    from scripts.harness.timing import time_graph_rounds, time_rounds
    g = tensors.generator(S + d)
    q, k, v = (tensors.randn((B, H, S, d), torch.bfloat16, generator=g) for _ in range(3))
    score_mod, mask_of = VARIANTS[name]
    mask_mod = mask_of(BENCH_WINDOW) if mask_of is not None else None
    flex_mod = None
    if score_mod is softcap:
        def flex_mod(s, b, h, qi, kj):
            return torch.tanh(s / CAP) * CAP
    elif score_mod is alibi:
        def flex_mod(s, b, h, qi, kj):
            return s - 0.0625 * (qi - kj)
    block_mask = create_block_mask(mask_mod, B, H, S, S, device="cuda") if mask_mod else None
    compiled = torch.compile(flex_attention, dynamic=False)
    ours = block_mask_of(tilec, name, q, k, BENCH_WINDOW)
    fns = {chip: (lambda chip=chip: call_tilec(tilec, name, q, k, v, ours, chip, artifacts,
                                               False)) for chip in chips}
    fns["flex"] = lambda: compiled(q, k, v, score_mod=flex_mod, block_mask=block_mask)
    ms = time_rounds(fns, rounds)
    flops = 4.0 * B * H * d * visible_pairs(name, S, BENCH_WINDOW)
    row = dict(variant=name, B=B, H=H, S=S, head_dim=d, window=BENCH_WINDOW, ms=ms,
               **rates(ms, flops, "flex", chips))
    # The same calls replayed from CUDA graphs: the GPU's time without the
    # host's (a gap between the two says the eager calls wait on Python).
    graph = time_graph_rounds(fns, rounds)
    row.update(graph_ms=graph, **rates(graph, flops, "flex", chips, "graph_"))
    return row


def run(args):
    import torch

    import tilec
    from scripts.harness.records import new_record, write_result
    chips = artifact_chips(args, CHIPS)
    result = new_record("flex_attention", artifacts=args.artifacts, chips=chips, correctness=[],
                        bench=[], note="outputs allocated by tilec.flex_attention (checked "
                        "finite, not poisoned: the API takes no out=)")
    with torch.no_grad():
        for chip in chips:
            for name in VARIANTS:
                for d in (64, 128):
                    for case in CASES:
                        row = check(torch, tilec, chip, name, d, case, args.artifacts)
                        result["correctness"].append(row)
                        print(("ok  " if row["ok"] else "FAIL"), chip, name, d, case,
                              f"err={row['max_rel_err']:.2e}", flush=True)
        shapes = BENCH_SHAPES[-1:] if args.quick else BENCH_SHAPES
        for name in VARIANTS:
            for B, H, S in shapes:
                for d in ((128,) if args.quick else (64, 128)):
                    row = bench(torch, tilec, chips, name, B, H, S, d, args.artifacts,
                                args.rounds)
                    result["bench"].append(row)
                    print(name, f"S={S} d={d}", {n: round(t, 1) for n, t in
                                                  row["tflops"].items()}, flush=True)
    return write_result(result, args.out, "flex_check.json")


def main():
    return check_main("flex", build, run)


if __name__ == "__main__":
    sys.exit(main())
