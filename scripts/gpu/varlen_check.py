#!/usr/bin/env python3
"""tilec.attention_varlen (packed variable-length sequences, issue 54) on
the GPU, from kernels precompiled here (the GPU machine has no compiler):

    python3 -m scripts.gpu.varlen_check --build .gpu/bundle/varlen      # here
    python3 -m scripts.gpu.varlen_check --artifacts DIR --out OUT [--quick]   # there

Correctness: batches of odd lengths (empty sequences, one token, lengths
not multiples of a block, more queries than keys and fewer), causal and
not, GQA, head dims 64 / 128 / 256, bf16 and f16, seqused_k; outputs
poisoned first (NaN), against a float32 reference per sequence, the lse
within 1e-3. Speed (bf16, head dim 128, CUDA events in alternating
rounds): sequences of equal length against tilec's dense attention of the
same batch (the varlen form's cost), and 16k tokens in sequences of 100 to
8k against SDPA (cuDNN and flash) and tilec's dense attention on the batch
padded to its longest sequence; TFLOP/s count the visible pairs only.
"""

import itertools
import sys

from scripts.harness.cli import artifact_chips, check_main

CHIPS = {"sm_90a": "sm_90a", "sm_80": "sm_90"}
# (dtype, head dim, causal, seqused_k) of the kernels the checks call.
KERNELS = [("bf16", 128, True, False), ("bf16", 128, False, False), ("bf16", 64, True, False),
           ("bf16", 256, True, False), ("f16", 128, False, False), ("bf16", 128, True, True)]
# (query lengths, key lengths or None for the same, H, HK, kernel index).
CASES = [([1, 0, 130, 255, 64, 1000], None, 8, 8, 0),
         ([300, 5, 77], [600, 5, 20], 8, 2, 0),
         ([129, 1, 700], None, 8, 8, 1),
         ([200, 3, 511], [50, 300, 600], 4, 4, 1),
         ([257, 0, 31], None, 6, 2, 2),
         ([190, 77], [400, 77], 4, 4, 3),
         ([333, 2, 90], None, 4, 1, 4),
         ([260, 100, 7], [300, 100, 9], 8, 8, 5)]
# Speed: (name, query lengths) of 16k tokens.
MIXED = [("equal_4x4k", [4096] * 4), ("equal_16x1k", [1024] * 16),
         ("mixed_100_8k", [8192, 3000, 2100, 1500, 900, 400, 150, 100, 142]),
         ("mixed_long", [8000, 6000, 1384, 1000])]
H = 16


def sources():
    """{(chip, name): source} of every kernel the checks call: the varlen
    kernels, and tilec.attention's dense ones the speed rows compare with."""
    from tilec.kernels import (attention_name, attention_shape_config, attention_source,
                               gemm_config_suffix)
    from tilec.serving_kernels import attention_varlen_source
    out = {}
    for chip in CHIPS:
        for dtype, d, causal, used in KERNELS:
            name, src = attention_varlen_source(dtype, d, causal, seqused_k=used)
            out[(chip, name)] = src
    for causal in (False, True):  # dense, sm_90a: the speed rows' padded batches
        for s in sorted({max(lens) for _, lens in MIXED}):
            config = attention_shape_config(s, 128, causal, "sm_90a")
            name = attention_name("bf16", 128, causal) + gemm_config_suffix(config)
            out[("sm_90a", name)] = attention_source("bf16", 128, causal, config=config,
                                                     name=name)[1]
    return out


def build(directory):
    from scripts.harness.artifacts import build_package_kernels
    built = build_package_kernels(directory, sources(), CHIPS,
                                  log=lambda c, n: print(c, n, flush=True))
    print(f"{built} kernels in {directory}")


def packed(torch, lens, heads, d, dtype, g):
    """(tokens [sum(lens), heads, d], cu_seqlens [len(lens) + 1] i32)."""
    from scripts.harness import tensors
    x = tensors.randn((sum(lens), heads, d), dtype, generator=g)
    cu = torch.tensor([0] + list(itertools.accumulate(lens)), dtype=torch.int32,
                      device="cuda")
    return x, cu


def reference(torch, q, k, v, cq, ck, used, causal):
    """(O [TQ, H, D], lse [H, TQ]) in float32, sequence by sequence."""
    from scripts.harness import references as ref
    o = torch.zeros(q.shape, dtype=torch.float32, device="cuda")
    lse = torch.full((q.shape[1], q.shape[0]), float("-inf"), device="cuda")
    for b in range(len(cq) - 1):
        q0, q1, k0, k1 = cq[b], cq[b + 1], ck[b], ck[b + 1]
        if used is not None:
            k1 = k0 + max(0, min(used[b], k1 - k0))
        if q1 == q0 or k1 == k0:
            continue
        view = (lambda x, a, z: x[a:z].transpose(0, 1).unsqueeze(0))
        ob, lb = ref.attention(view(q, q0, q1), view(k, k0, k1), view(v, k0, k1),
                               causal=causal)
        o[q0:q1] = ob[0].transpose(0, 1)
        lse[:, q0:q1] = lb[0]
    return o, lse


def check(torch, tilec, chip, case, artifacts):
    from scripts.harness import references as ref
    from scripts.harness import tensors
    qlens, klens, h, hk, kernel = case
    dtype, d, causal, used = KERNELS[kernel]
    tdtype = torch.bfloat16 if dtype == "bf16" else torch.float16
    klens = klens or qlens
    g = tensors.generator(sum(qlens) + 7 * h + d)
    q, cq = packed(torch, qlens, h, d, tdtype, g)
    k, ck = packed(torch, klens, hk, d, tdtype, g)
    v = tensors.randn(k.shape, tdtype, generator=g)
    lens = None
    if used:
        lens = torch.tensor([max(0, n - 13 * i) for i, n in enumerate(klens)],
                            dtype=torch.int32, device="cuda")
    out = tensors.poisoned(q.shape, tdtype)
    o, lse = tilec.attention_varlen(q, k, v, cq, ck, max(qlens), max(klens), causal=causal,
                                    seqused_k=lens, out=out, return_softmax_lse=True, chip=chip,
                                    artifacts=artifacts)
    torch.cuda.synchronize()
    want, want_lse = reference(torch, q, k, v, cq.tolist(), ck.tolist(),
                               None if lens is None else lens.tolist(), causal)
    err = ref.rel_err(o, want)
    lse_err, lse_ok = ref.lse_error(lse, want_lse)
    unwritten = tensors.unwritten(o)
    ok = bool(o is out and unwritten == 0 and err <= 8e-3 and lse_ok and lse_err < 1e-3)
    return dict(chip=chip, dtype=dtype, head_dim=d, causal=causal, seqused_k=used, H=h, HK=hk,
                q_lens=qlens, k_lens=klens, max_rel_err=err, lse_max_abs_err=lse_err,
                unwritten=unwritten, ok=ok)


def visible_flops(lens, causal, d=128, heads=H):
    """4 d heads x the (query, key) pairs each sequence's mask keeps."""
    pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lens)
    return 4 * d * heads * pairs


def bench(torch, tilec, name, lens, causal, artifacts, rounds):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from scripts.harness import tensors
    from scripts.harness.records import ratio, tflops
    from scripts.harness.timing import time_rounds
    g = tensors.generator(len(lens) * 31 + causal)
    q, cu = packed(torch, lens, H, 128, torch.bfloat16, g)
    k, v = (tensors.randn(q.shape, torch.bfloat16, generator=g) for _ in range(2))
    s, b = max(lens), len(lens)
    fns = {"varlen": lambda: tilec.attention_varlen(q, k, v, cu, cu, s, s, causal=causal,
                                                    chip="sm_90a", artifacts=artifacts)}
    # The batch padded to its longest sequence, [B, H, S, D].
    pq, pk, pv = (torch.zeros((b, H, s, 128), dtype=torch.bfloat16, device="cuda")
                  for _ in range(3))
    offs = cu.tolist()
    for i in range(b):
        for dst, src in ((pq, q), (pk, k), (pv, v)):
            dst[i, :, :lens[i]] = src[offs[i]:offs[i + 1]].transpose(0, 1)
    fns["dense_padded"] = lambda: tilec.attention(pq, pk, pv, causal=causal, chip="sm_90a",
                                                  artifacts=artifacts)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for anchor, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                            ("flash", SDPBackend.FLASH_ATTENTION)):
        def call(backend=backend):
            with sdpa_kernel(backend):
                return sdpa(pq, pk, pv, is_causal=causal)
        try:
            call()
            fns[anchor] = call
        except RuntimeError as e:
            print(f"  {anchor}: {str(e).splitlines()[0][:100]}", flush=True)
    ms = time_rounds(fns, rounds)
    flops = visible_flops(lens, causal)
    rate = {n: tflops(flops, t) for n, t in ms.items()}
    row = dict(name=name, lens=lens, causal=causal, heads=H, head_dim=128, ms=ms,
               tflops_visible=rate, equal_lengths=len(set(lens)) == 1)
    row["vs"] = {n: ratio(ms[n], ms["varlen"]) for n in ms if n != "varlen"}
    return row


def run(args):
    import torch

    import tilec
    from scripts.harness.records import new_record, write_result
    chips = artifact_chips(args, CHIPS)
    result = new_record("attention_varlen", artifacts=args.artifacts, chips=chips,
                        correctness=[], bench=[])
    with torch.no_grad():
        for chip in chips:
            for case in CASES:
                row = check(torch, tilec, chip, case, args.artifacts)
                result["correctness"].append(row)
                print(("ok  " if row["ok"] else "FAIL"), chip, case,
                      f"err={row['max_rel_err']:.2e} lse={row['lse_max_abs_err']:.1e} "
                      f"unwritten={row['unwritten']}", flush=True)
        for causal in (False, True):
            for name, lens in (MIXED[::2] if args.quick else MIXED):
                row = bench(torch, tilec, name, lens, causal, args.artifacts, args.rounds)
                result["bench"].append(row)
                print(name, "causal" if causal else "full",
                      {n: round(v) for n, v in row["tflops_visible"].items()}, "TFLOP/s",
                      {n: round(v, 2) for n, v in row["vs"].items()}, flush=True)
    return write_result(result, args.out, "varlen_check.json")


def main():
    return check_main("varlen", build, run)


if __name__ == "__main__":
    sys.exit(main())
