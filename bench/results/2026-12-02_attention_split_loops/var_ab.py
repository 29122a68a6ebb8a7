#!/usr/bin/env python3
"""Variants of the pass-built attention kernels against the old kernels, interleaved (H200)."""
import json, os, re, subprocess, sys
import torch
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from block_attention import ODD, check_attention, named_args  # noqa
from block_programs import load, time_rounds  # noqa

AB = os.path.join(ROOT, ".gpu", "ab")
VAR = os.path.join(ROOT, ".gpu", "var")
out = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 8
os.makedirs(out, exist_ok=True)
logf = open(os.path.join(out, "var_ab.log"), "w")
def log(m):
    print(m, flush=True); logf.write(m + "\n"); logf.flush()

def run_named(kernel, q, k, v, o):
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    kernel(*named_args(q, k, v, o, lse))

def sass_stats(cubin):
    try:
        s = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
    except Exception as e:
        return str(e)
    ins = [l for l in s.split("\n") if re.match(r"\s+/\*[0-9a-f]{4}\*/", l)]
    st = {"instr": len(ins)}
    for op in ("R2UR", "ULOP3", "LOP3", "BSSY", "LDL", "STL", "WARPGROUP.DEPBAR", "HGMMA", "UTMALDG"):
        st[op] = sum(1 for l in ins if re.search(r"\b" + re.escape(op) + r"\b", l))
    return st

VAR2 = os.path.join(ROOT, ".gpu", "var2")
SETS = [("attention_bf16_d{}", False, ["old", "new", "new2", "new2_nosplit", "n_ctrlate"], (4096, 16384)),
        ("attention_bf16_d{}_causal", True, ["old", "new2", "new2_nosplit"], (4096, 16384)),
        ("attention_bf16_d{}_causal_persistent", True, ["old", "new2", "new2_nosplit"], (1024, 2048))]
def vdir(v):
    if v in ("old", "new"):
        return os.path.join(AB, v)
    return os.path.join(VAR2 if v.startswith("new2") else VAR, v)
result = dict(gpu=torch.cuda.get_device_name(), rows=[], correctness=[], sass={})
for pat, causal, variants, seqs in SETS:
    for D in (64, 128):
        name = pat.format(D)
        ks = {}
        for v in variants:
            d = vdir(v)
            k = load(d, "sm_90a", name)
            if k is None:
                log(f"missing {v} {name}"); continue
            ks[v] = k
            result["sass"][f"{v}/{name}"] = sass_stats(os.path.join(d, "sm_90a", name + ".cubin"))
            if v not in ("old",):
                rows = check_attention(k, name, ODD, launch=run_named)
                ok = sum(r["ok"] for r in rows)
                result["correctness"].append(dict(variant=v, kernel=name, ok=ok, n=len(rows)))
                if ok != len(rows):
                    log(f"FAIL {v} {name} {[r for r in rows if not r['ok']]}")
        for S in seqs:
            B, H = 16384 // S, 2048 // D
            g = torch.Generator(device="cuda").manual_seed(S + D)
            q, k, v = (torch.randn(B, H, S, D, device="cuda", generator=g).bfloat16() for _ in range(3))
            o = torch.empty_like(q)
            lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
            fns = {key: (lambda kn=kn: kn(*named_args(q, k, v, o, lse))) for key, kn in ks.items()}
            for rep in range(2):
                ms = time_rounds(fns, rounds)
                flop = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
                t = {key: flop / x / 1e9 for key, x in ms.items()}
                row = dict(kernel=name, S=S, rep=rep, tflops={a: round(b, 1) for a, b in t.items()},
                           vs_old={a: round(b / t["old"], 4) for a, b in t.items()})
                result["rows"].append(row)
                log(json.dumps(row))
                fns = dict(reversed(list(fns.items())))
log(json.dumps(result["sass"], indent=0))
log(json.dumps(result["correctness"]))
json.dump(result, open(os.path.join(out, "var_ab.json"), "w"), indent=1)
