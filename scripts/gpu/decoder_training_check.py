#!/usr/bin/env python3
"""A small decoder block trained on tilec ops next to the same block on
torch ops (issue "Attention for training"), on the GPU.

The block: token embedding, RMSNorm, a fused QKV projection, causal
attention, an output projection, RMSNorm, an MLP (up projection with bias
and GELU, down projection), RMSNorm and a vocabulary projection, residual
connections around attention and MLP. Parameters are f32 (the optimizer's
master weights); the block computes in bf16, as mixed-precision training
does.

Three runs from the same initial weights over the same random tokens, the
forward and cross-entropy loss under ``torch.compile(fullgraph=True)`` (the
backward graph compiled with it by AOTAutograd), AdamW:

* ``tilec``: the projections and the MLP on ``tilec.gemm`` (bias + GELU
  fused), attention on ``tilec.attention``; their gradients are tilec's
  (the GEMM's two GEMMs, attention backward's block programs);
* ``torch``: the same block on ``torch.matmul``, ``F.gelu`` and SDPA, bf16;
* ``f32``: the torch block in f32 (the reference of "bf16 noise").

Checked: the tilec and torch loss curves agree within bf16 noise (at every
step, |tilec - torch| <= 2 x the largest |torch - f32| of the run + 0.02),
both learn (the last loss below half the first), no graph break (fullgraph)
and no recompilation after the first step (torch._dynamo's
error_on_recompile). Run time per step is recorded for both.

    python3 -m scripts.gpu.decoder_training_check --out OUT [--steps 100] [--deterministic 0|1]

The record (scripts/harness/records.py) names the commit of $TILEC_ARTIFACTS
(or $TILEC_COMMIT).
"""

import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

import tilec
from scripts.harness.records import new_record, open_log, write_result

VOCAB, DIM, HEADS, HEAD_DIM, MLP = 2048, 512, 4, 128, 2048
BATCH, SEQ = 4, 512
NOISE_FACTOR, NOISE_FLOOR = 2.0, 0.02


def init_params(seed):
    g = torch.Generator(device="cuda").manual_seed(seed)

    def w(*shape, std):
        return (torch.randn(*shape, device="cuda", generator=g) * std).requires_grad_()

    return dict(
        emb=w(VOCAB, DIM, std=1.0),
        wqkv=w(DIM, 3 * DIM, std=1 / math.sqrt(DIM)),
        wo=w(DIM, DIM, std=1 / math.sqrt(DIM)),
        w1=w(DIM, MLP, std=1 / math.sqrt(DIM)),
        b1=torch.zeros(MLP, device="cuda", requires_grad=True),
        w2=w(MLP, DIM, std=1 / math.sqrt(MLP)),
        wout=w(DIM, VOCAB, std=1 / math.sqrt(DIM)),
        n1=torch.ones(DIM, device="cuda", requires_grad=True),
        n2=torch.ones(DIM, device="cuda", requires_grad=True),
        n3=torch.ones(DIM, device="cuda", requires_grad=True),
    )


class Ops:
    """The block's matmuls and attention on tilec or on torch."""

    def __init__(self, kind, deterministic=True):
        self.kind, self.deterministic = kind, deterministic

    def mm(self, a, w, bias=None, gelu=False):
        if self.kind == "tilec":
            return tilec.gemm(a, w, bias=bias, activation="gelu" if gelu else None)
        y = a @ w
        if bias is not None:
            y = y + bias
        return F.gelu(y) if gelu else y

    def attention(self, q, k, v):
        if self.kind == "tilec":
            return tilec.attention(q, k, v, causal=True, deterministic=self.deterministic)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def block_loss(p, tokens, ops, dtype):
    """Next-token cross-entropy of the block on ``tokens`` [B, S + 1]."""
    inp, target = tokens[:, :-1], tokens[:, 1:]
    b, s = inp.shape
    cast = {k: v.to(dtype) for k, v in p.items()}
    x = cast["emb"][inp]  # [B, S, DIM]
    h = F.rms_norm(x, (DIM,), cast["n1"]).reshape(b * s, DIM)
    qkv = ops.mm(h, cast["wqkv"]).view(b, s, 3, HEADS, HEAD_DIM).permute(2, 0, 3, 1, 4)
    q, k, v = (t.contiguous() for t in qkv)
    o = ops.attention(q, k, v).transpose(1, 2).reshape(b * s, DIM)
    x = x + ops.mm(o, cast["wo"]).view(b, s, DIM)
    h = F.rms_norm(x, (DIM,), cast["n2"]).reshape(b * s, DIM)
    x = x + ops.mm(ops.mm(h, cast["w1"], cast["b1"], gelu=True), cast["w2"]).view(b, s, DIM)
    h = F.rms_norm(x, (DIM,), cast["n3"]).reshape(b * s, DIM)
    logits = ops.mm(h, cast["wout"]).float()
    return F.cross_entropy(logits, target.reshape(-1))


def train(kind, steps, data, deterministic, log):
    """Losses and ms per step of ``steps`` AdamW steps on ``data``."""
    torch._dynamo.reset()
    torch._dynamo.config.error_on_recompile = False
    dtype = torch.float32 if kind == "f32" else torch.bfloat16
    ops = Ops("tilec" if kind == "tilec" else "torch", deterministic)
    params = init_params(seed=0)
    opt = torch.optim.AdamW(params.values(), lr=1e-3, weight_decay=0.0)

    # The forward and the loss in one graph (fullgraph: a graph break
    # raises); AOTAutograd compiles the backward graph with it.
    @torch.compile(fullgraph=True)
    def forward_loss(tokens):
        return block_loss(params, tokens, ops, dtype)

    losses, times = [], []
    for i in range(steps):
        tokens = data[i % len(data)]
        torch.cuda.synchronize()
        start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = forward_loss(tokens)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
        losses.append(loss.detach().item())
        if i == 0:
            # Warm-up done: a recompilation from here on raises.
            torch._dynamo.config.error_on_recompile = True
        if i % 20 == 0 or i == steps - 1:
            log(f"{kind} step {i}: loss {losses[-1]:.4f} ({times[-1]:.2f} ms)")
    torch._dynamo.config.error_on_recompile = False
    times = sorted(times[5:]) or times
    return losses, times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batches", type=int, default=8,
                    help="distinct random batches, cycled (the block learns them)")
    ap.add_argument("--deterministic", type=int, default=1,
                    help="tilec.attention's backward mode (1: no atomics)")
    args = ap.parse_args()
    log = open_log(args.out, "decoder_training_check.log")
    g = torch.Generator(device="cuda").manual_seed(1234)
    data = [torch.randint(0, VOCAB, (BATCH, SEQ + 1), device="cuda", generator=g)
            for _ in range(args.batches)]
    result = new_record("decoder_training_check",
                        artifacts=os.environ.get("TILEC_ARTIFACTS") or None,
                        block=dict(vocab=VOCAB, dim=DIM, heads=HEADS, head_dim=HEAD_DIM,
                                   mlp=MLP, batch=BATCH, seq=SEQ, optimizer="AdamW lr 1e-3",
                                   batches=args.batches),
                        steps=args.steps, correctness=[])
    runs = {}
    for kind in ("tilec", "torch", "f32"):
        try:
            runs[kind] = train(kind, args.steps, data, bool(args.deterministic), log)
        except Exception as e:  # noqa: BLE001 - reported as a failed check
            row = dict(check=f"train_{kind}", error=f"{type(e).__name__}: {e}"[:3000], ok=False)
            log(json.dumps(row))
            result["correctness"].append(row)
    if len(runs) == 3:
        lt, lb, lf = (runs[k][0] for k in ("tilec", "torch", "f32"))
        noise = max(abs(a - b) for a, b in zip(lb, lf))
        gap = [abs(a - b) for a, b in zip(lt, lb)]
        tol = NOISE_FACTOR * noise + NOISE_FLOOR
        learned = all(ls[-1] < 0.5 * ls[0] for ls in (lt, lb))
        row = dict(check="loss_curves_agree", max_gap_tilec_torch=max(gap),
                   mean_gap_tilec_torch=sum(gap) / len(gap), max_gap_torch_f32=noise,
                   tolerance=tol, first_loss=dict(tilec=lt[0], torch=lb[0], f32=lf[0]),
                   last_loss=dict(tilec=lt[-1], torch=lb[-1], f32=lf[-1]), learned=learned,
                   no_graph_break_no_recompile=True, ok=max(gap) <= tol and learned)
        log(json.dumps(row))
        result["correctness"].append(row)
        result["losses"] = dict(tilec=lt, torch=lb, f32=lf)
        result["ms_per_step"] = {k: runs[k][1] for k in runs}
    return write_result(result, args.out, "decoder_training_check.json", log)


if __name__ == "__main__":
    sys.exit(main())
