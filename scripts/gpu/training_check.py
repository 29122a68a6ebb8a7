#!/usr/bin/env python3
"""tilec for training, on the GPU (issue "Attention for training"):

* autograd through tilec.attention (FlashAttention's test matrix: odd
  sequence lengths, Sq != Sk, GQA, causal and not, head dims 64, 128 and 256),
  through a returned lse, with ``scale=``, and with ``deterministic=False``
  (the atomic backward; its determinism is not checked); gradients against a float32
  autograd reference, each relative RMS error at most twice torch's bf16
  SDPA backward error against the same reference (max errors recorded
  too); the backward is deterministic (the same bits twice);
* autograd through tilec.gemm (bias, relu / gelu / silu, row- and
  column-major b) against float32 autograd, each relative RMS error at most
  twice torch's bf16 one;
* torch.compile(fullgraph=True) of a function calling tilec.attention and
  tilec.gemm: no graph break, the same results as eager, gradients through
  the compiled function;
* refusals: tilec.attention_backward on bad arguments raises the error that
  names them;
* CUDA graph capture and replay of tilec.gemm and tilec.attention;
* with --bench: forward + backward through autograd against SDPA on cuDNN
  and on flash, alternating rounds.

Needs the artifacts of scripts/build/build_python_artifacts.py (TILEC_ARTIFACTS,
with --attention-scales 0.1 for the scale case).

    training_check.py --out OUT [--bench [--rounds 5]]
"""

import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

import tilec
from scripts.harness.records import new_record, open_log, write_result
from scripts.harness.references import attention_tracked, causal_mask, rel_err, rms_err

# (B, H, HK, SQ, SK, D, causal)
ATTENTION = [(2, 4, 4, 255, 255, 64, False), (1, 8, 2, 1023, 1023, 128, True),
             (1, 4, 4, 113, 300, 128, True), (1, 4, 1, 300, 113, 64, True),
             (2, 2, 2, 4097, 4097, 128, False), (1, 8, 8, 1, 129, 64, False),
             (1, 4, 2, 255, 300, 256, True), (2, 2, 2, 1023, 1023, 256, False)]
# (M, N, K)
GEMM = [(256, 512, 384), (100, 200, 136), (1, 64, 4096)]


def leaves(*xs):
    return [x.detach().clone().requires_grad_() for x in xs]


def check_attention(log):
    rows = []
    for (B, H, HK, SQ, SK, D, causal) in ATTENTION:
        for mode in ("out", "lse", "scale", "atomic"):
            if mode == "scale" and causal:
                continue  # (the artifacts hold scale 0.1 without the mask)
            torch.manual_seed(SQ + SK + D)
            q = torch.randn(B, H, SQ, D, device="cuda").bfloat16()
            k = torch.randn(B, HK, SK, D, device="cuda").bfloat16()
            v = torch.randn(B, HK, SK, D, device="cuda").bfloat16()
            do = torch.randn(B, H, SQ, D, device="cuda").bfloat16()
            dl = torch.randn(B, H, SQ, device="cuda")
            scale = 0.1 if mode == "scale" else 1 / math.sqrt(D)
            kw = (dict(scale=0.1) if mode == "scale"
                  else dict(deterministic=False) if mode == "atomic" else {})

            def loss_of(out, lse):
                loss = (out.float() * do.float()).sum()
                return loss + (lse * dl).sum() if mode == "lse" else loss

            rq, rk, rv = leaves(q.float(), k.float(), v.float())
            ro, rl = attention_tracked(rq, rk, rv, causal, scale)
            ref = torch.autograd.grad(loss_of(ro, rl), (rq, rk, rv))
            # torch's bf16 SDPA (explicit bottom-right mask) as the error bar.
            tq, tk, tv = leaves(q, k, v)
            to = F.scaled_dot_product_attention(
                tq, tk, tv, attn_mask=causal_mask(SQ, SK) if causal else None,
                scale=scale, enable_gqa=H != HK)
            # Its lse, recomputed in f32 from the bf16 inputs.
            tl = attention_tracked(tq.float(), tk.float(), tv.float(), causal, scale)[1]
            tref = torch.autograd.grad(loss_of(to, tl), (tq, tk, tv))
            gq, gk, gv = leaves(q, k, v)
            if mode == "lse":
                out, lse = tilec.attention(gq, gk, gv, causal=causal, return_lse=True)
            else:
                out = tilec.attention(gq, gk, gv, causal=causal, **kw)
                lse = None
            has_grad_fn = out.grad_fn is not None
            got = torch.autograd.grad(loss_of(out, lse), (gq, gk, gv))
            again = torch.autograd.grad(loss_of(*(tilec.attention(
                gq, gk, gv, causal=causal, return_lse=True, **kw))),
                (gq, gk, gv)) if mode not in ("out", "atomic") else got
            err = [rel_err(x, r) for x, r in zip(got, ref)]
            terr = [rel_err(x, r) for x, r in zip(tref, ref)]
            rms = [rms_err(x, r) for x, r in zip(got, ref)]
            trms = [rms_err(x, r) for x, r in zip(tref, ref)]
            out_err = rel_err(out, ro)
            deterministic = all(torch.equal(a, b) for a, b in zip(got, again))
            ok = (has_grad_fn and deterministic and out_err < 2e-2
                  and all(e <= 2 * t + 1e-6 for e, t in zip(rms, trms)))
            row = dict(check="attention_autograd", mode=mode, B=B, H=H, HK=HK, SQ=SQ, SK=SK, D=D,
                       causal=causal, out_err=out_err, rms_err_dq_dk_dv=rms,
                       torch_bf16_rms_err=trms, max_err_dq_dk_dv=err, torch_bf16_max_err=terr,
                       grad_fn=has_grad_fn, deterministic=deterministic, ok=ok)
            log(json.dumps(row))
            rows.append(row)
    return rows


_ACT = {None: lambda x: x, "relu": F.relu, "gelu": F.gelu, "silu": F.silu}


def check_gemm(log):
    rows = []
    for (M, N, K) in GEMM:
        for act in _ACT:
            for bias in (False, True):
                for b_col in (False, True):
                    torch.manual_seed(M + N + K)
                    a = torch.randn(M, K, device="cuda").bfloat16()
                    w = torch.randn(N, K, device="cuda").bfloat16() / math.sqrt(K)
                    bb = torch.randn(N, device="cuda").bfloat16()
                    dy = torch.randn(M, N, device="cuda").bfloat16()

                    def run(fn, a, w, bb):
                        b = w.t() if b_col else w.t().contiguous()
                        y = fn(a, b, bb if bias else None)
                        return y, torch.autograd.grad((y.float() * dy.float()).sum(),
                                                      (a, w, bb) if bias else (a, w))

                    def torch_fn(a, b, bias_):
                        y = a @ b + (bias_ if bias_ is not None else 0)
                        return _ACT[act](y)
                    _, ref = run(torch_fn, *leaves(a.float(), w.float(), bb.float()))
                    _, tref = run(torch_fn, *leaves(a, w, bb))
                    y, got = run(lambda a, b, bias_: tilec.gemm(a, b, bias=bias_, activation=act),
                                 *leaves(a, w, bb))
                    err = [rel_err(x, r) for x, r in zip(got, ref)]
                    terr = [rel_err(x, r) for x, r in zip(tref, ref)]
                    rms = [rms_err(x, r) for x, r in zip(got, ref)]
                    trms = [rms_err(x, r) for x, r in zip(tref, ref)]
                    ok = y.grad_fn is not None and all(e <= 2 * t + 1e-6 for e, t in
                                                       zip(rms, trms))
                    row = dict(check="gemm_autograd", M=M, N=N, K=K, activation=act, bias=bias,
                               b_col_major=b_col, rms_err=rms, torch_bf16_rms_err=trms,
                               max_err=err, torch_bf16_max_err=terr, ok=ok)
                    log(json.dumps(row))
                    rows.append(row)
    return rows


def check_compile(log):
    """torch.compile(fullgraph=True) over tilec.attention + tilec.gemm."""
    B, H, S, D, N = 2, 4, 257, 128, 384
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, device="cuda").bfloat16() for _ in range(3))
    w = (torch.randn(D, N, device="cuda") / math.sqrt(D)).bfloat16()

    def f(q, k, v, w):
        o = tilec.attention(q, k, v, causal=True)
        return tilec.gemm(o.reshape(-1, D), w, activation="gelu")

    rows = []
    try:
        torch._dynamo.reset()
        explain = torch._dynamo.explain(f)(q, k, v, w)
        breaks = explain.graph_break_count
        reasons = [str(r.reason)[:300] for r in explain.break_reasons]
        eager = f(q, k, v, w)
        compiled = torch.compile(f, fullgraph=True)
        y = compiled(q, k, v, w)
        same = rel_err(y, eager) == 0.0
        # Gradients through the compiled function match eager autograd.
        gq, gk, gv, gw = leaves(q, k, v, w)
        gy = compiled(gq, gk, gv, gw)
        got = torch.autograd.grad(gy.float().sum(), (gq, gk, gv, gw))
        eq, ek, ev, ew = leaves(q, k, v, w)
        want = torch.autograd.grad(f(eq, ek, ev, ew).float().sum(), (eq, ek, ev, ew))
        grads_same = all(rel_err(a, b) < 1e-6 for a, b in zip(got, want))
        ok = breaks == 0 and same and grads_same
        row = dict(check="torch_compile_fullgraph", graph_breaks=breaks, reasons=reasons,
                   same_as_eager=same, grads_same_as_eager=grads_same, ok=ok)
    except Exception as e:  # noqa: BLE001 - reported as a failed check
        row = dict(check="torch_compile_fullgraph", error=f"{type(e).__name__}: {e}"[:2000],
                   ok=False)
    log(json.dumps(row))
    rows.append(row)
    return rows


def check_cuda_graph(log):
    torch.manual_seed(1)
    a = torch.randn(300, 512, device="cuda").bfloat16()
    b = torch.randn(512, 256, device="cuda").bfloat16()
    q, k, v = (torch.randn(1, 4, 300, 64, device="cuda").bfloat16() for _ in range(3))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            tilec.gemm(a, b)
            tilec.attention(q, k, v, causal=True)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = tilec.gemm(a, b)
        o = tilec.attention(q, k, v, causal=True)
    for x in (a, b, q, k, v):
        x.copy_(torch.randn_like(x, dtype=torch.float32))
    g.replay()
    torch.cuda.synchronize()
    ok = rel_err(y, tilec.gemm(a, b)) == 0.0 and rel_err(
        o, tilec.attention(q, k, v, causal=True)) == 0.0
    row = dict(check="cuda_graph_replay", ok=ok)
    log(json.dumps(row))
    return [row]


# (B, H, S, D, causal): B*S = 16k, H*D = 2048, as attention_backward_check.py.
BENCH = [(4, 16, 4096, 128, False), (4, 16, 4096, 128, True), (1, 16, 16384, 128, False),
         (1, 16, 16384, 128, True), (4, 32, 4096, 64, False), (4, 32, 4096, 64, True)]


def bench_forward_backward(log, rounds):
    """Forward + backward through autograd (a training step's attention):
    tilec.attention against SDPA on cuDNN and on flash, alternating rounds.
    FLOPs: 3.5x the forward's (causal counted half)."""
    from scripts.harness.timing import time_rounds
    rows = []
    for (B, H, S, D, causal) in BENCH:
        torch.manual_seed(0)
        q, k, v = leaves(*(torch.randn(B, H, S, D, device="cuda").bfloat16() for _ in range(3)))
        do = torch.randn(B, H, S, D, device="cuda").bfloat16()

        def step(attend):
            out = attend(q, k, v)
            torch.autograd.backward(out, do)

        fns = {"tilec": lambda: step(lambda q, k, v: tilec.attention(q, k, v, causal=causal))}
        for backend, name in ((torch.nn.attention.SDPBackend.CUDNN_ATTENTION, "cudnn"),
                              (torch.nn.attention.SDPBackend.FLASH_ATTENTION, "flash")):
            def sdpa(q, k, v, backend=backend):
                with torch.nn.attention.sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            fns[name] = lambda sdpa=sdpa: step(sdpa)
        ms = time_rounds(fns, rounds)
        flops = 3.5 * 4 * B * H * S * S * D * (0.5 if causal else 1.0)
        tf = {n: flops / (m * 1e-3) / 1e12 for n, m in ms.items()}
        row = dict(check="forward_backward_speed", B=B, H=H, S=S, D=D, causal=causal, ms=ms,
                   tflops=tf, vs_cudnn=tf["tilec"] / tf["cudnn"], vs_flash=tf["tilec"] / tf["flash"])
        log(json.dumps(row))
        rows.append(row)
    return rows


def check_refusals(log):
    """Bad arguments to tilec.attention_backward raise before any launch,
    with a message naming what is wrong."""
    q = torch.randn(1, 2, 64, 64, device="cuda").bfloat16()
    lse = torch.zeros(1, 2, 64, device="cuda")
    cases = {
        "head_dim": ((q[..., :48].contiguous(),) * 3 + (q[..., :48].contiguous(), lse,
                                                         q[..., :48].contiguous()),
                     tilec.ArgumentError, "head_dim must be one of"),
        "dtype": ((q.float(),) * 3 + (q.float(), lse, q.float()), tilec.DTypeError,
                  "bf16 or f16"),
        "kv_heads": ((q, q[:, :1], q, q, lse, q), tilec.ArgumentError, "incompatible shapes"),
        "lse": ((q, q, q, q, lse[..., :10], q), tilec.ArgumentError, "lse must be float32"),
        "device": ((q.cpu(), q, q, q, lse, q), tilec.ArgumentError, "need CUDA tensors"),
        "other_device": ((q, q, q, q, lse.cpu(), q), tilec.ArgumentError,
                         "lse is on cpu; all tensors must be on q's device"),
    }
    rows = []
    for name, (args, error, text) in cases.items():
        try:
            tilec.attention_backward(*args)
            got = "no error"
        except Exception as e:  # noqa: BLE001 - the type and text are checked
            got = f"{type(e).__name__}: {e}"
            ok = isinstance(e, error) and text in str(e)
        else:
            ok = False
        row = dict(check="attention_backward_refusal", case=name, got=got[:300], ok=ok)
        log(json.dumps(row))
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    ap.add_argument("--bench", action="store_true",
                    help="also time forward + backward against SDPA (cuDNN, flash)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    log = open_log(args.out, "training_check.log")
    result = new_record("training_check", artifacts=os.environ.get("TILEC_ARTIFACTS") or None,
                        correctness=[])
    for part in (check_attention, check_refusals, check_gemm, check_compile, check_cuda_graph):
        try:
            result["correctness"] += part(log)
        except Exception as e:  # noqa: BLE001 - one part's failure is a failed check
            row = dict(check=part.__name__, error=f"{type(e).__name__}: {e}"[:2000], ok=False)
            log(json.dumps(row))
            result["correctness"].append(row)
    if args.bench:
        result["speed"] = bench_forward_backward(log, args.rounds)
    return write_result(result, args.out, "training_check.json", log)


if __name__ == "__main__":
    sys.exit(main())
