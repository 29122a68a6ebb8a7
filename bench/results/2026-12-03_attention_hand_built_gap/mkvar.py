#!/usr/bin/env python3
"""Builds the variants var_ab.py times: .gpu/var/<variant>/sm_90a/.

    mkvar.py [--tilec build/bin/tilec] [--suffix S] [variant ...]

old:    the hand-built kernel (config by_passes = 0)
new:    the pass-built kernel with the shipped defaults (by_passes = 1)
default: the config the chip picks (for --chip sm_80/sm_89)
split:  new with schedule<split_loops = true> on the kernel
r240, split_r240: new and split with setmaxnreg 240/24 (consumers/producer)

--suffix names the output folders <variant><suffix> (.gpu/var keeps what
earlier builds made). The runs' other names are new/split built by the
experimental tilec of each probe: new2, split2 (run 2: one carried ring
position), sep, sep_split (run 16: separate prologue/epilogue guards).
"""
import argparse, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tilec.kernels import attention_source  # noqa: E402

KERNELS = [(128, False, False), (256, False, False), (256, True, False),
           (64, True, False), (128, True, False), (64, False, False),
           (64, True, True), (128, True, True)]


def with_schedule(src, sched):
    first, rest = src.split("\n", 1)
    assert first.rstrip().endswith("{"), first
    return first.rstrip()[:-1] + f"schedule<{sched}> {{\n" + rest


VARIANTS = {
    "old": lambda d, c: ({"by_passes": 0}, None),
    "new": lambda d, c: ({"by_passes": 1}, None),
    "default": lambda d, c: ({}, None),
    "split": lambda d, c: ({"by_passes": 1}, "split_loops = true"),
    "r240": lambda d, c: ({"by_passes": 1, "consumer_regs": 240, "producer_regs": 24}, None),
    "split_r240": lambda d, c: ({"by_passes": 1, "consumer_regs": 240, "producer_regs": 24},
                                "split_loops = true"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu", "var"))
    ap.add_argument("--suffix", default="")
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--cubin-arch", default=None, help="ptxas arch (sm_80 PTX runs on the H200 as sm_90)")
    ap.add_argument("--name", default=None, help="the output folder (default <variant><suffix>)")
    ap.add_argument("--only", default=None, help="regex over kernel names")
    ap.add_argument("variants", nargs="*", default=list(VARIANTS))
    args = ap.parse_args()
    for var in args.variants:
        folder = args.name or var + args.suffix
        out = os.path.join(args.out, folder, args.chip)
        os.makedirs(out, exist_ok=True)
        for d, causal, persistent in KERNELS:
            cfg, sched = VARIANTS[var](d, causal)
            if persistent:
                cfg = dict(cfg, persistent=1)
            name = f"attention_bf16_d{d}" + ("_causal" if causal else "") + ("_persistent" if persistent else "")
            if args.only and not re.search(args.only, name):
                continue
            _, src = attention_source(head_dim=d, causal=causal, config=cfg, name=name)
            if sched:
                src = with_schedule(src, sched)
            path = os.path.join(args.out, folder, f"{name}.mlir")
            with open(path, "w") as f:
                f.write(src)
            arch = [f"--cubin-arch={args.cubin_arch}"] if args.cubin_arch else []
            subprocess.run([args.tilec, path, f"--chip={args.chip}", *arch, "--emit=cubin", "-o", out],
                           check=True)
            print(var, name, flush=True)


if __name__ == "__main__":
    main()
