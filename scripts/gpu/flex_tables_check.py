#!/usr/bin/env python3
"""tilec.flex_attention with captured tensors (tables read in the traced
score_mod / mask_mod; issue 53) on the GPU, from kernels precompiled here:

    python3 -m scripts.gpu.flex_tables_check --build .gpu/bundle/flex_tables   # here
    python3 -m scripts.gpu.flex_tables_check --artifacts DIR --out OUT         # there

Variants: ALiBi with a per-head slope tensor (f32 [H], score_mod) under the
causal mask; document masking with a tensor of document ids (i32 [B, S],
mask_mod: same document and causal); both. The kernels are built from
:class:`tilec.mods.Table` stand-ins (the text depends on each table's
dtype and rank only) and run with torch tensors. Correctness: bf16, head
dims 64 and 128, odd lengths and documents, against a float32 reference
(within 2x the same computation in bf16, or 2e-3), the lse within 1e-3.
Speed: B = 2, H = 16, S = 8192, head dim 128, documents of 500 to 3000
tokens, beside torch's flex_attention under torch.compile with the same
callables and a block mask of the same mask_mod; TFLOP/s over the visible
pairs, timed as eager calls and replayed from CUDA graphs (the GPU's time
without Python's). A mask on data runs over the block list
tilec.create_block_mask makes with torch's create_block_mask (the kernels
with a block list are built here for it).
"""

import sys

from scripts.harness.cli import artifact_chips, check_main

CHIPS = {"sm_90a": "sm_90a", "sm_80": "sm_90"}
CASES = [(2, 4, 1000), (1, 8, 333)]  # (B, H, S)
BENCH = (2, 16, 8192)


def alibi_of(slopes):
    def alibi(score, b, h, q_idx, kv_idx):
        return score + slopes[h] * (kv_idx - q_idx)
    return alibi


def documents_of(doc_ids):
    def documents(b, h, q_idx, kv_idx):
        return (doc_ids[b, q_idx] == doc_ids[b, kv_idx]) & (q_idx >= kv_idx)
    return documents


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


#: name -> (uses the slopes, uses the document ids)
VARIANTS = {"alibi_causal": (True, False), "documents": (False, True),
            "alibi_documents": (True, True)}


def mods_of(name, slopes, doc_ids):
    """(score_mod, mask_mod) of a variant over these tables."""
    with_slopes, with_docs = VARIANTS[name]
    return (alibi_of(slopes) if with_slopes else None,
            documents_of(doc_ids) if with_docs else causal)


def kernel_of(name, s, d, chip):
    """(name, source) of the variant's kernel, traced over Table stand-ins."""
    from tilec import mods as _mods
    from tilec.flex import BlockList, BlockMask, flex_regions
    from tilec.kernels import (attention_name, attention_shape_config, attention_source,
                               gemm_config_suffix)
    score_mod, mask_mod = mods_of(name, _mods.Table("f32", 1), _mods.Table("i32", 2))
    region = _mods.trace_mask_mod(mask_mod)
    # A mask on data gets the block list create_block_mask makes on the GPU.
    listed = BlockList(None, None, None) if region.tables else None
    mask = BlockMask(mask_mod, region, None, None, s, s, 128, listed)
    regions, is_causal = flex_regions(score_mod, mask, s, s)
    config = attention_shape_config(s, d, is_causal, chip)
    kernel = attention_name("bf16", d, is_causal, mods=regions) + gemm_config_suffix(config)
    return kernel, attention_source("bf16", d, is_causal, config=config, name=kernel,
                                    mods=regions)[1]


def build(directory):
    from scripts.harness.artifacts import build_package_kernels
    sources = {}
    for chip in CHIPS:
        for name in VARIANTS:
            for d in (64, 128):
                for s in sorted({c[2] for c in CASES} | {BENCH[2]}):
                    kernel, source = kernel_of(name, s, d, chip)
                    sources[(chip, kernel)] = source
    print(f"{build_package_kernels(directory, sources, CHIPS)} kernels in {directory}")


def tables(torch, B, H, S, g, min_doc=1, max_doc=300):
    """(slopes f32 [H], document ids i32 [B, S]): ALiBi's slopes, and
    documents of random lengths in [min_doc, max_doc]."""
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / H) for h in range(H)], device="cuda")
    docs = torch.empty((B, S), dtype=torch.int32, device="cuda")
    for b in range(B):
        pos, doc = 0, 0
        while pos < S:
            n = int(torch.randint(min_doc, max_doc + 1, (1,), generator=g, device="cuda"))
            docs[b, pos:pos + n] = doc
            pos, doc = pos + n, doc + 1
    return slopes, docs


def reference_mod(torch, name, slopes, docs):
    """The variant as score_mod(scores [B, H, S, S], qi, kj) of the float32
    reference."""
    with_slopes, with_docs = VARIANTS[name]

    def mod(scores, qi, kj):
        if with_slopes:
            bias = slopes.view(1, -1, 1, 1) * (kj - qi).to(slopes.dtype)
            scores = scores + bias.to(scores.dtype)
        keep = qi >= kj
        if with_docs:
            keep = keep & (docs[:, None, :, None] == docs[:, None, None, :])
        return scores.masked_fill(~keep, float("-inf"))
    return mod


def check(torch, tilec, chip, name, d, case, artifacts):
    from scripts.harness import references as ref
    from scripts.harness import tensors
    B, H, S = case
    g = tensors.generator(S * 7 + d)
    q, k, v = (tensors.randn((B, H, S, d), torch.bfloat16, generator=g) for _ in range(3))
    slopes, docs = tables(torch, B, H, S, g)
    score_mod, mask_mod = mods_of(name, slopes, docs)
    mask = tilec.create_block_mask(mask_mod, B, H, S, S)
    out, lse = tilec.flex_attention(q, k, v, score_mod=score_mod, block_mask=mask,
                                    return_lse=True, chip=chip, artifacts=artifacts)
    torch.cuda.synchronize()
    mod = reference_mod(torch, name, slopes, docs)
    want, want_lse = ref.attention(q, k, v, score_mod=mod)
    low, _ = ref.attention(q, k, v, score_mod=mod, dtype=torch.bfloat16)
    err, bf16_err = ref.rel_err(out, want), ref.rel_err(low, want)
    lse_err, lse_ok = ref.lse_error(lse, want_lse)
    ok = bool(torch.isfinite(out.float()).all().item() and err <= max(2 * bf16_err, 2e-3)
              and lse_ok and lse_err < 1e-3)
    return dict(chip=chip, variant=name, head_dim=d, B=B, H=H, S=S, max_rel_err=err,
                bf16_reference_err=bf16_err, lse_max_abs_err=lse_err, ok=ok)


def bench(torch, tilec, chips, name, artifacts, rounds):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    from scripts.harness import tensors
    from scripts.harness.records import rates
    from scripts.harness.timing import time_graph_rounds, time_rounds
    B, H, S = BENCH
    d = 128
    g = tensors.generator(S)
    q, k, v = (tensors.randn((B, H, S, d), torch.bfloat16, generator=g) for _ in range(3))
    slopes, docs = tables(torch, B, H, S, g, 500, 3000)
    score_mod, mask_mod = mods_of(name, slopes, docs)
    ours = tilec.create_block_mask(mask_mod, B, H, S, S)
    theirs = create_block_mask(mask_mod, B, H, S, S, device="cuda")
    compiled = torch.compile(flex_attention, dynamic=False)
    fns = {chip: (lambda chip=chip: tilec.flex_attention(
        q, k, v, score_mod=score_mod, block_mask=ours, chip=chip, artifacts=artifacts))
        for chip in chips}
    fns["flex"] = lambda: compiled(q, k, v, score_mod=score_mod, block_mask=theirs)
    ms = time_rounds(fns, rounds)
    visible = torch.tril(torch.ones(S, S, dtype=torch.bool, device="cuda")).expand(B, S, S)
    if VARIANTS[name][1]:
        visible = visible & (docs[:, :, None] == docs[:, None, :])
    pairs = int(visible.sum().item()) // B
    flops = 4.0 * B * H * d * pairs
    row = dict(variant=name, B=B, H=H, S=S, head_dim=d, visible_pairs_per_batch=pairs, ms=ms,
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
    result = new_record("flex_attention_tables", artifacts=args.artifacts, chips=chips,
                        correctness=[], bench=[])
    with torch.no_grad():
        for chip in chips:
            for name in VARIANTS:
                for d in (64, 128):
                    for case in CASES:
                        row = check(torch, tilec, chip, name, d, case, args.artifacts)
                        result["correctness"].append(row)
                        print(("ok  " if row["ok"] else "FAIL"), chip, name, d, case,
                              f"err={row['max_rel_err']:.2e}", flush=True)
        for name in VARIANTS:
            row = bench(torch, tilec, chips, name, args.artifacts, args.rounds)
            result["bench"].append(row)
            print(name, {n: round(t, 1) for n, t in row["tflops"].items()}, flush=True)
    return write_result(result, args.out, "flex_tables_check.json")


def main():
    return check_main("flex_tables", build, run)


if __name__ == "__main__":
    sys.exit(main())
