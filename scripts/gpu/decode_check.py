#!/usr/bin/env python3
"""tilec.attention_with_kvcache (decode against a KV cache, issue 54) on
the GPU, from kernels precompiled here (the GPU machine has no compiler):

    python3 -m scripts.gpu.decode_check --build .gpu/bundle/decode      # here
    python3 -m scripts.gpu.decode_check --artifacts DIR --out OUT [--quick]   # there

Correctness (bf16, head dim 128, GQA 32:8): caches of odd lengths per
batch (0, 1 and lengths not multiples of a key block), unsplit and split
(2, 4, the rule's count), one query per head (packed) and 4 causal queries
(speculative decoding, unpacked); outputs poisoned first (NaN), against a
float32 reference, the lse within 1e-3; the split and unsplit outputs
agree to bf16 rounding; new tokens appended through k= / v=; paged caches
(pages of 16 and 64 positions, in shuffled order, the same values as the
contiguous cache). Speed: one
query token, GQA 32:8 and 64:8, batch x cache length as issue 54's table,
CUDA graphs (as serving replays them) in alternating rounds beside torch's
SDPA (cuDNN and flash backends, GQA) and a device copy of the same bytes
(its bandwidth counts the bytes read and written); GB/s of K and V read;
the paged cache (pages of 16 and 64) beside the contiguous one.
"""

import sys

from scripts.harness.cli import artifact_chips, check_main

CHIPS = {"sm_90a": "sm_90a", "sm_80": "sm_90"}
SPLITS = (1, 2, 4, 8, 16, 32)
PAGES = (16, 64)
D = 128
# (batch, query heads, kv heads, cache positions, query tokens)
CASES = [(3, 32, 8, 1000, 1), (2, 64, 8, 777, 1), (1, 8, 8, 4099, 1), (3, 32, 8, 1000, 4)]
# (batch, query heads, kv heads, cache length): issue 54's decode rows.
BENCH = [(8, 32, 8, 4096), (32, 32, 8, 8192), (128, 32, 8, 4096), (1, 64, 8, 32768),
         (1, 32, 8, 8192), (4, 32, 8, 16384), (16, 64, 8, 16384)]


def sources():
    """{(chip, name): source} of every decode kernel the checks call."""
    from tilec.serving_kernels import attention_decode_source
    out = {}
    for chip in CHIPS:
        for splits in SPLITS:
            name, src = attention_decode_source("bf16", D, True, False, splits)
            out[(chip, name)] = src
        for splits in (1, 2, 4):
            name, src = attention_decode_source("bf16", D, False, True, splits)
            out[(chip, name)] = src
        for page in PAGES:
            for splits in SPLITS:
                name, src = attention_decode_source("bf16", D, True, False, splits,
                                                    page_size=page)
                out[(chip, name)] = src
    return out


def paged(torch, cache, page, g):
    """(pool [pages, page, HK, D], table [B, max_pages]) holding ``cache``
    [B, S, HK, D] in shuffled pages (two spare pages, never named)."""
    B, S = cache.shape[:2]
    per = -(-S // page)
    order = torch.randperm(B * per + 2, generator=g, device="cuda")
    pool = torch.zeros((B * per + 2, page) + tuple(cache.shape[2:]), dtype=cache.dtype,
                       device="cuda")
    padded = torch.zeros((B, per * page) + tuple(cache.shape[2:]), dtype=cache.dtype,
                         device="cuda")
    padded[:, :S] = cache
    table = order[:B * per].view(B, per).to(torch.int32)
    pool[table.flatten().long()] = padded.view(B * per, page, *cache.shape[2:])
    return pool, table


def build(directory):
    from scripts.harness.artifacts import build_package_kernels
    built = build_package_kernels(directory, sources(), CHIPS,
                                  log=lambda c, n: print(c, n, flush=True))
    print(f"{built} kernels in {directory}")


def reference(torch, q, k_cache, v_cache, lens, causal):
    """(O [B, SQ, H, D], lse [B, H, SQ]) in float32, batch by batch over its
    keys (the caches [B, S, HK, D])."""
    from scripts.harness import references as ref
    outs, lses = [], []
    for b in range(q.shape[0]):
        n = int(lens[b])
        qb = q[b:b + 1].transpose(1, 2)
        kb, vb = (x[b:b + 1, :n].transpose(1, 2) for x in (k_cache, v_cache))
        if n == 0:
            outs.append(torch.zeros_like(qb, dtype=torch.float32))
            lses.append(torch.full(qb.shape[:3], float("-inf"), device=q.device))
            continue
        o, lse = ref.attention(qb, kb, vb, causal=causal)
        outs.append(o)
        lses.append(lse)
    return torch.cat(outs).transpose(1, 2), torch.cat(lses)


def check(torch, tilec, chip, case, splits, artifacts, page=0):
    from scripts.harness import references as ref
    from scripts.harness import tensors
    B, H, HK, S, SQ = case
    g = tensors.generator(B * 131 + H + S + SQ)
    q = tensors.randn((B, SQ, H, D), torch.bfloat16, generator=g)
    kc = tensors.randn((B, S, HK, D), torch.bfloat16, generator=g)
    vc = tensors.randn((B, S, HK, D), torch.bfloat16, generator=g)
    lens = torch.randint(0, S + 1, (B,), generator=g, device="cuda", dtype=torch.int32)
    lens[0] = S  # the whole cache
    if B > 1:
        lens[1] = 0 if SQ == 1 else SQ  # an empty cache (or just the new tokens)
    if B > 2:
        lens[2] = 1 if SQ == 1 else SQ + 1
    causal = SQ > 1
    out = tensors.poisoned((B, SQ, H, D), torch.bfloat16)
    kv, table = (kc, vc), None
    if page:
        kp, table = paged(torch, kc, page, g)
        vp = torch.zeros_like(kp)
        vp[table.flatten().long()] = torch.nn.functional.pad(
            vc, (0, 0, 0, 0, 0, table.shape[1] * page - S)).view(-1, page, HK, D)
        kv = (kp, vp)
    o, lse = tilec.attention_with_kvcache(q, *kv, cache_seqlens=lens, causal=causal,
                                          block_table=table, num_splits=splits, out=out,
                                          return_softmax_lse=True, chip=chip,
                                          artifacts=artifacts)
    torch.cuda.synchronize()
    want, want_lse = reference(torch, q, kc, vc, lens.tolist(), causal)
    err = ref.rel_err(o, want)
    lse_err, lse_ok = ref.lse_error(lse, want_lse)
    unwritten = tensors.unwritten(o)
    ok = bool(o is out and unwritten == 0 and err <= 8e-3 and lse_ok and lse_err < 1e-3)
    return dict(chip=chip, B=B, H=H, HK=HK, S=S, SQ=SQ, splits=splits, page=page,
                lens=lens.tolist(),
                max_rel_err=err, lse_max_abs_err=lse_err, unwritten=unwritten, ok=ok), o


def check_append(torch, tilec, chip, artifacts):
    """k= / v=: the new tokens land at each batch's length, and the result is
    attention over the grown cache."""
    from scripts.harness import references as ref
    from scripts.harness import tensors
    g = tensors.generator(77)
    B, H, HK, S = 2, 32, 8, 300
    q = tensors.randn((B, 1, H, D), torch.bfloat16, generator=g)
    kc = tensors.randn((B, S, HK, D), torch.bfloat16, generator=g)
    vc = tensors.randn((B, S, HK, D), torch.bfloat16, generator=g)
    kn = tensors.randn((B, 1, HK, D), torch.bfloat16, generator=g)
    vn = tensors.randn((B, 1, HK, D), torch.bfloat16, generator=g)
    lens = torch.tensor([17, 250], dtype=torch.int32, device="cuda")
    o = tilec.attention_with_kvcache(q, kc, vc, kn, vn, cache_seqlens=lens, chip=chip,
                                     artifacts=artifacts)
    torch.cuda.synchronize()
    placed = all(torch.equal(kc[b, int(lens[b])], kn[b, 0]) for b in range(B))
    want, _ = reference(torch, q, kc, vc, [int(x) + 1 for x in lens], False)
    err = ref.rel_err(o, want)
    return dict(chip=chip, check="append", placed=placed, max_rel_err=err,
                ok=bool(placed and err <= 8e-3))


def bench(torch, tilec, chips, case, artifacts, rounds):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from scripts.harness import tensors
    from scripts.harness.records import ratio
    from scripts.harness.timing import time_graph_rounds
    B, H, HK, S = case
    g = tensors.generator(S + B)
    q = tensors.randn((B, 1, H, D), torch.bfloat16, generator=g)
    kc = tensors.randn((B, S, HK, D), torch.bfloat16, generator=g)
    vc = tensors.randn((B, S, HK, D), torch.bfloat16, generator=g)
    lens = torch.full((B,), S, dtype=torch.int32, device="cuda")
    # SDPA's layout: [B, heads, seq, D] views of the same caches.
    qs, ks, vs = q.transpose(1, 2), kc.transpose(1, 2), vc.transpose(1, 2)
    nbytes = 2 * kc.numel() * kc.element_size()
    src = torch.empty(nbytes // 2, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    fns = {}
    for chip in chips:
        fns[chip] = (lambda chip=chip: tilec.attention_with_kvcache(
            q, kc, vc, cache_seqlens=lens, chip=chip, artifacts=artifacts))
    for page in PAGES:  # the same cache in shuffled pages
        (kp, table) = paged(torch, kc, page, g)
        vp = kp.clone()
        fns[f"paged{page}"] = (lambda kp=kp, vp=vp, table=table: tilec.attention_with_kvcache(
            q, kp, vp, cache_seqlens=lens, block_table=table, chip="sm_90a",
            artifacts=artifacts))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                          ("flash", SDPBackend.FLASH_ATTENTION)):
        def call(backend=backend):
            with sdpa_kernel(backend):
                return sdpa(qs, ks, vs, enable_gqa=True)
        try:
            call()
            fns[name] = call
        except RuntimeError as e:
            print(f"  {name}: {str(e).splitlines()[0][:100]}", flush=True)
    fns["copy"] = lambda: dst.copy_(src)
    ms = time_graph_rounds(fns, rounds)
    # The copy reads and writes the bytes: its bandwidth counts both.
    gbs = {n: (2 if n == "copy" else 1) * nbytes / (t * 1e-3) / 1e9 for n, t in ms.items()}
    splits = {c: tilec.serving_kernels.attention_decode_splits(
        c, B, HK, H // HK, S, D, torch.cuda.get_device_properties(0).multi_processor_count)
        for c in chips}
    row = dict(B=B, H=H, HK=HK, S=S, head_dim=D, cache_mb=nbytes / 2**20, splits=splits, ms=ms,
               gb_s=gbs, copy_fraction={c: ratio(gbs[c], gbs["copy"]) for c in chips},
               paged_vs_contiguous={p: ratio(gbs[f"paged{p}"], gbs["sm_90a"]) for p in PAGES})
    for anchor in ("cudnn", "flash"):
        if anchor in gbs:
            row[f"vs_{anchor}"] = {c: ratio(gbs[c], gbs[anchor]) for c in chips}
    return row


def run(args):
    import torch

    import tilec
    import tilec.serving_kernels  # noqa: F401 - the rule, for the record
    from scripts.harness.records import new_record, write_result
    chips = artifact_chips(args, CHIPS)
    result = new_record("attention_with_kvcache", artifacts=args.artifacts, chips=chips,
                        correctness=[], agreement=[], bench=[])
    with torch.no_grad():
        for chip in chips:
            for case in CASES:
                outs = {}
                for splits in (1, 2, 4, 0):
                    row, o = check(torch, tilec, chip, case, splits, args.artifacts)
                    outs[splits] = o.float()
                    result["correctness"].append(row)
                    print(("ok  " if row["ok"] else "FAIL"), chip, case, f"splits={splits}",
                          f"err={row['max_rel_err']:.2e} lse={row['lse_max_abs_err']:.1e}",
                          flush=True)
                # Split and unsplit agree to bf16 rounding (relative to the
                # output's scale).
                scale = outs[1].abs().max().item() or 1.0
                diff = max((outs[s] - outs[1]).abs().max().item() for s in (2, 4, 0)) / scale
                result["agreement"].append(dict(chip=chip, case=case, max_rel_diff=diff,
                                                ok=diff <= 2 ** -7))
            row = check_append(torch, tilec, chip, args.artifacts)
            result["correctness"].append(row)
            print(("ok  " if row["ok"] else "FAIL"), chip, "append", flush=True)
            for page in PAGES:
                for case in CASES[:3]:
                    for splits in (1, 4):
                        row, _ = check(torch, tilec, chip, case, splits, args.artifacts, page)
                        result["correctness"].append(row)
                        print(("ok  " if row["ok"] else "FAIL"), chip, case, f"page={page}",
                              f"splits={splits} err={row['max_rel_err']:.2e}", flush=True)
        for case in (BENCH[:4] if args.quick else BENCH):
            row = bench(torch, tilec, chips, case, args.artifacts, args.rounds)
            result["bench"].append(row)
            print(case, {n: round(v) for n, v in row["gb_s"].items()}, "GB/s", flush=True)
    result["correctness"] += result["agreement"]
    return write_result(result, args.out, "decode_check.json")


def main():
    return check_main("decode", build, run)


if __name__ == "__main__":
    sys.exit(main())
