#!/usr/bin/env python3
"""Compiles the named ops with two tilec builds for bench/named_ab.py:
OUT/{old,new}/<chip>/ get tile.gemm (row- and column-major B) and
tile.attention (head dims 64 and 128, causal and not), each as the Python
package ships them (tilec.kernels). sm_80 PTX is assembled for sm_90 (the
H200). OUT/<side>/commit.txt names each build.

    build_named_ab.py --old /path/to/old/tilec [--new build/bin/tilec]
        [--old-commit SHA] [--out .gpu/ab] [--chips sm_90a,sm_80]
        [--kinds gemm,attention,attention_extra,gemm_cluster] [--sides old,new]
        [--new-attention-config by_passes=1]
"""

import argparse
import os
import subprocess

from scripts import ROOT
from tilec.kernels import attention_source, gemm_source


# tile.gemm in thread-block clusters (TMA multicast of the shared operand);
# bench/named_ab.py --only gemm_cluster times these.
CLUSTER_GEMMS = [("gemm_cm2", dict(cluster_m=2), "row"),
                 ("gemm_cn2", dict(cluster_n=2), "row"),
                 ("gemm_cm2cn2", dict(cluster_m=2, cluster_n=2), "row"),
                 ("gemm_cm2_bcol", dict(cluster_m=2), "col")]


def sources(kinds, attention_config=None):
    if "gemm" in kinds:
        yield gemm_source()
        yield gemm_source(b_layout="col")
    if "gemm_cluster" in kinds:
        for name, cfg, layout in CLUSTER_GEMMS:
            yield gemm_source(b_layout=layout, config=cfg, name=name)
    if "attention" in kinds:
        for d in (64, 128):
            for causal in (False, True):
                yield attention_source(head_dim=d, causal=causal,
                                       config=attention_config)
    if "attention_extra" in kinds:
        # What tilec.attention also runs on sm_90a: the persistent causal
        # kernel (short sequences) and head dim 256.
        for d in (64, 128):
            yield attention_source(head_dim=d, causal=True,
                                   config={"persistent": 1, **(attention_config or {})},
                                   name=f"attention_bf16_d{d}_causal_persistent")
        for causal in (False, True):
            yield attention_source(head_dim=256, causal=causal, config=attention_config)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--old-commit", default="?")
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu", "ab"))
    ap.add_argument("--chips", default="sm_90a,sm_80")
    ap.add_argument("--kinds", default="gemm,attention")
    ap.add_argument("--new-attention-config", default="",
                    help="config keys added to the new side's attention kernels, "
                         "e.g. 'by_passes=1' (the same build on both sides then "
                         "compares two schedules)")
    ap.add_argument("--sides", default="old,new",
                    help="rebuild only these (e.g. 'new' after a change)")
    args = ap.parse_args()
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    commits = dict(old=args.old_commit, new=head + ("+dirty" if dirty else ""))
    for side, tilec in (("old", args.old), ("new", args.new)):
        if side not in args.sides.split(","):
            continue
        src_dir = os.path.join(args.out, side, "src")
        os.makedirs(src_dir, exist_ok=True)
        for chip in args.chips.split(","):
            cubin_arch = "sm_90a" if chip == "sm_90a" else "sm_90"
            extra = None
            if side == "new" and args.new_attention_config:
                extra = {k: int(v) for k, v in (kv.split("=") for kv in
                                                 args.new_attention_config.split(","))}
            for name, src in sources(args.kinds.split(","), extra):
                if name.endswith("_persistent") and chip != "sm_90a":
                    continue  # the persistent schedule is sm_90a's
                path = os.path.join(src_dir, f"{name}.{chip}.mlir")
                with open(path, "w") as f:
                    f.write(src)
                subprocess.run([tilec, path, f"--chip={chip}", f"--cubin-arch={cubin_arch}",
                                "--emit=cubin", "-o", os.path.join(args.out, side, chip)],
                               check=True)
                print(f"{side} {chip} {name}", flush=True)
        with open(os.path.join(args.out, side, "commit.txt"), "w") as f:
            f.write(commits[side] + "\n")


if __name__ == "__main__":
    main()
