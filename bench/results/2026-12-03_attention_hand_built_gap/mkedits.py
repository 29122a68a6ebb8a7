#!/usr/bin/env python3
"""Hand edits of the scheduled IR of pass-built attention kernels, each
bringing one detail of the hand-built kernel (by_passes = 0) into the
pass-built one, to find what ptxas reacts to. The scheduled IR comes from
tilec-opt (the tile passes of tilec-to-nvvm); the edited IR is compiled by
tilec again (the scheduling passes leave it as it is: the unedited IR gives
byte-identical PTX). Writes .gpu/var/e_<edit>/sm_90a/.

    mkedits.py [--tilec-opt ...] [--tilec ...]

Edits:
  zeroacc    the rotated key loop starts from a zero accumulator instead of
             (first block's alpha) * 0
  maskfirst  the peeled first key block is always masked (no branch on
             whether it is a full block)
  barorder   the full barriers of the K/V rings allocated before their
             empty barriers (the hand-built kernel's shared-memory order)
  nowait     no tma_store_wait before the one-tile epilogue's staging write
  all        all of the above
  splitpoint tile-split-loops' split point as max(x, lb) (no clamp to SK)
  split_all  splitpoint and all
  noguard    no zero-trip guard around the rotated key loop (valid only
             where the loop runs: a probe, not a kernel to ship)
"""
import argparse, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tilec.kernels import attention_source  # noqa: E402

KERNELS = [(128, False, None), (256, False, "split_loops = true"), (256, True, "split_loops = true")]


def zeroacc(s, d):
    zero = re.search(r"(%cst\w*) = arith.constant dense<0.000000e\+00> : tensor<128x" + str(d) + r"xf32, #tile.mma", s).group(1)
    m = re.search(r"\n\s*(%\d+) = arith.mulf %\d+, " + re.escape(zero) + r" : [^\n]*", s)
    if not m:
        return s
    s = s[:m.start()] + s[m.end():]
    return re.sub(re.escape(m.group(1)) + r"\b", zero, s)


def maskfirst(s, d):
    return re.sub(r"(%\d+) = arith.cmpi sle, %\d+, %c0_i32 : i32", r"\1 = arith.constant true", s, count=1)


def barorder(s, d):
    lines = s.split("\n")
    empties = [l for l in lines if re.search(r"mbarrier_alloc count 8 : !tile.mbarrier<2>", l)]
    fulls = [i for i, l in enumerate(lines) if re.search(r"mbarrier_alloc count 1 : !tile.mbarrier<2>", l)]
    last = lines[fulls[-1]]
    out = []
    for l in lines:
        if l in empties:
            continue
        out.append(l)
        if l == last:
            out.extend(empties)
    return "\n".join(out)


def nowait(s, d):
    return re.sub(r"(arith.truncf [^\n]*\n)\s*tile.tma_store_wait 0\n(\s*tile.barrier\n)", r"\1\2", s, count=1)


def splitpoint(s, d):
    # The split of tile-split-loops, min(SK, lb + ceildiv(max(x, lb) - lb,
    # step) * step), as the hand-built kernel writes it: max(x, lb) (x is a
    # multiple of the step at most SK).
    m = re.search(r"(%\d+) = arith.maxsi (%\d+), (%c\d+_i32) : i32\n(?:[^\n]*\n){4}\s*(%\d+) = arith.minsi %SK, %\d+ : i32", s)
    if not m:
        return s
    return re.sub(re.escape(m.group(4)) + r"\b(?! =)", m.group(1), s)


def noguard(s, d):
    # tile-wgmma-overlap's zero-trip guard around the rotated loop (prologue,
    # loop, epilogue: `scf.if (lb < ub)` yielding acc, m, l) taken away (only
    # right where the key loop runs at least once, as in every timed shape).
    m = re.search(r"(\n\s*)(%\d+:3) = scf.if (%\d+) -> \(tensor<128x" + str(d) + "xf32", s)
    if not m:
        return s
    ind = m.group(1)
    return (s[:m.start()] + ind + "%guard_true = arith.constant true" + ind + m.group(2)
            + " = scf.if %guard_true -> (tensor<128x" + str(d) + "xf32" + s[m.end():])


EDITS = dict(zeroacc=[zeroacc], maskfirst=[maskfirst], barorder=[barorder], nowait=[nowait],
             all=[zeroacc, maskfirst, barorder, nowait], base=[], splitpoint=[splitpoint],
             split_all=[splitpoint, zeroacc, maskfirst, barorder, nowait],
             noguard=[noguard])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec-opt", default=os.path.join(ROOT, "build", "bin", "tilec-opt"))
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu", "var"))
    args = ap.parse_args()
    for d, causal, sched in KERNELS:
        name = f"attention_bf16_d{d}" + ("_causal" if causal else "")
        _, src = attention_source(head_dim=d, causal=causal, config={"by_passes": 1}, name=name)
        if sched:
            first, rest = src.split("\n", 1)
            src = first.rstrip()[:-1] + f"schedule<{sched}> {{\n" + rest
        r = subprocess.run([args.tilec_opt, "-", "--tilec-to-nvvm=chip=sm_90a",
                            "--mlir-print-ir-before=convert-tile-to-nvvm", "-o", "/dev/null"],
                           input=src, capture_output=True, text=True, check=True)
        sched_ir = r.stderr.split("\n", 1)[1]
        for edit, fns in EDITS.items():
            s = sched_ir
            for f in fns:
                s2 = f(s, d)
                if s2 == s:
                    print(f"note: {edit}/{f.__name__} changed nothing in {name}")
                s = s2
            vdir = os.path.join(args.out, "e_" + edit)
            os.makedirs(os.path.join(vdir, "sm_90a"), exist_ok=True)
            path = os.path.join(vdir, name + ".mlir")
            open(path, "w").write(s)
            r = subprocess.run([args.tilec, path, "--chip=sm_90a", "--emit=cubin", "-o",
                                os.path.join(vdir, "sm_90a")])
            # tile-verify-async rejects noguard where the key loop can run
            # zero times (the causal kernel): that edit is a probe only.
            print(edit, name, "ok" if r.returncode == 0 else "rejected by tilec", flush=True)


if __name__ == "__main__":
    main()
