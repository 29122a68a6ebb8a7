#!/usr/bin/env python3
"""Attention variants against the hand-built kernels, interleaved (H200).

Cubins come from mkvar.py: .gpu/var/<variant>/sm_90a/<kernel>.{cubin,json};
`old` is the hand-built kernel (config by_passes = 0). Every other variant is
checked on bench/block_attention's odd shapes (poisoned outputs, float64
reference) and timed beside `old` and cuDNN at B*S = 16k tokens, H*D = 2048
(block_programs.time_rounds: short alternating samples, medians). The SASS of
every cubin goes to OUT/sass.tar.gz, with counts of a few instructions.

    var_ab.py OUT [rounds] [kernel-regex]
"""
import io, json, os, re, subprocess, sys, tarfile
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "python"))
from block_attention import ODD, check_attention, named_args  # noqa: E402
from block_programs import load, time_rounds  # noqa: E402

VAR = os.path.join(ROOT, ".gpu", "var")
CHIP = os.environ.get("VAR_CHIP", "sm_90a")  # the chip subfolder mkvar.py --chip wrote
out = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
only = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None
os.makedirs(out, exist_ok=True)
logf = open(os.path.join(out, "var_ab.log"), "w")


def log(m):
    print(m, flush=True)
    logf.write(m + "\n")
    logf.flush()


def sass_of(cubin):
    return subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout


def sass_stats(s):
    ins = [l for l in s.split("\n") if re.match(r"\s+/\*[0-9a-f]{4}\*/", l)]
    st = {"instr": len(ins)}
    for op in ("R2UR", "BSSY", "LDL", "STL", "WARPGROUP.DEPBAR", "HGMMA", "UTMALDG", "MUFU.EX2"):
        st[op] = sum(1 for l in ins if re.search(r"\b" + re.escape(op) + r"\b", l))
    return st


def run_named(kernel, q, k, v, o):
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    kernel(*named_args(q, k, v, o, lse))


variants = sorted(os.listdir(VAR))
names = sorted({f[:-5] for v in variants for f in os.listdir(os.path.join(VAR, v, CHIP))
                if f.endswith(".json")})
result = dict(gpu=torch.cuda.get_device_name(), variants=variants, rows=[], correctness=[], sass={})
tar_buf = io.BytesIO()
tar = tarfile.open(fileobj=tar_buf, mode="w:gz")
for name in names:
    if only and not only.search(name):
        continue
    D = int(re.search(r"_d(\d+)", name).group(1))
    causal = "_causal" in name
    ks = {}
    for v in variants:
        d = os.path.join(VAR, v)
        k = load(d, CHIP, name)
        if k is None:
            continue
        ks[v] = k
        s = sass_of(os.path.join(d, CHIP, name + ".cubin"))
        data = s.encode()
        info = tarfile.TarInfo(f"{v}/{name}.sass")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        result["sass"][f"{v}/{name}"] = sass_stats(s)
        if v != "old":
            rows = check_attention(k, name, ODD, launch=run_named)
            ok = sum(r["ok"] for r in rows)
            result["correctness"].append(dict(variant=v, kernel=name, ok=ok, n=len(rows)))
            if ok != len(rows):
                log(f"FAIL {v} {name} {[r for r in rows if not r['ok']]}")
                del ks[v]
    log(f"{name}: {json.dumps({v: result['sass'][f'{v}/{name}'] for v in ks})}")
    seqs = (1024, 2048) if "persistent" in name else (1024, 4096, 16384)
    for S in seqs:
        B, H = 16384 // S, 2048 // D
        g = torch.Generator(device="cuda").manual_seed(S + D)
        q, k, v = (torch.randn(B, H, S, D, device="cuda", generator=g).bfloat16() for _ in range(3))
        o = torch.empty_like(q)
        lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
        fns = {key: (lambda kn=kn: kn(*named_args(q, k, v, o, lse))) for key, kn in ks.items()}
        fns["cudnn"] = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        flop = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
        for rep in range(2):
            ms = time_rounds(fns, rounds)
            t = {key: flop / x / 1e9 for key, x in ms.items()}
            row = dict(kernel=name, S=S, B=B, H=H, D=D, causal=causal, rep=rep,
                       tflops={a: round(b, 1) for a, b in t.items()},
                       vs_old={a: round(b / t["old"], 4) for a, b in t.items()} if "old" in t else {})
            result["rows"].append(row)
            log(f"{name} S={S} rep{rep} " + " ".join(f"{a}={b:.1f}({row['vs_old'].get(a, 0):.3f})"
                                                     for a, b in t.items()))
            fns = dict(reversed(list(fns.items())))
tar.close()
open(os.path.join(out, "sass.tar.gz"), "wb").write(tar_buf.getvalue())
log(json.dumps(result["correctness"]))
json.dump(dict(result, chip=CHIP), open(os.path.join(out, "var_ab.json"), "w"), indent=1)
