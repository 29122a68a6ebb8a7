#!/usr/bin/env python3
"""Compiles the shipped named-op kernels (every GEMM variant and ablation of
build_gemm_artifacts.py, every attention default and variant of
build_attention_artifacts.py, the examples and the target-test inputs) with
two tilec binaries and reports which PTX files differ: the evidence that a
change that should not alter generated code does not.

    ptx_identity.py --base /path/to/old/tilec --new build/bin/tilec [--chips ...]
        [--base-dict-configs]

--base-dict-configs respells the named ops' typed configs (`config <k = v>`,
flags true/false) as the dictionaries (`config {k = 1}`) that builds up to 1358546 read, for
comparing against such a base.
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

from scripts import ROOT
from scripts.build import build_attention_artifacts as att
from scripts.build import build_gemm_artifacts as gemm
from tilec.kernels import attention_source, gemm_source


def sources(chip):
    """(name, source) of every named-op kernel shipped for ``chip``."""
    seen = set()
    for v in gemm.variants():
        name, src = gemm_source(**v)
        if name not in seen:
            seen.add(name)
            yield name, src
    ablations = gemm.ABLATIONS_SM90A if chip == "sm_90a" else gemm.ABLATIONS
    for tag, cfg in ablations.items():
        yield gemm_source(config=cfg, name=f"gemm_bf16_bf16_brow_{tag}")
    if chip == "sm_90a":
        for tag, v, cfg in gemm.CLUSTER_VARIANTS_SM90A:
            name, _ = gemm_source(**v)
            yield gemm_source(**v, config=cfg, name=f"{name}_{tag}")
    for d in (64, 128, 256):
        for causal in (False, True):
            yield attention_source(head_dim=d, causal=causal)
    for tag, (dims, cfg) in att.VARIANTS.get(chip, {}).items():
        for d in dims:
            for causal in (False, True):
                name, src = attention_source(head_dim=d, causal=causal, config=cfg)
                yield attention_source(head_dim=d, causal=causal, config=cfg,
                                       name=f"{name}__{tag}")
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")) +
                       glob.glob(os.path.join(ROOT, "test", "Target", "Inputs", "*.mlir"))):
        with open(path) as f:
            yield "file_" + os.path.basename(path)[:-5], f.read()


def dict_configs(src):
    """`src` with typed configs respelled as the old config dictionaries."""
    def body(m):
        inner = m.group(1).replace("= true", "= 1").replace("= false", "= 0")
        return "config {" + inner + "}"
    return re.sub(r"config <([^>]*)>", body, src, flags=re.S)


def compile_ptx(tilec, path, chip, out):
    r = subprocess.run([tilec, path, f"--chip={chip}", "--emit=ptx", "-o", out],
                       capture_output=True, text=True)
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", default=os.path.join(ROOT, "build", "bin", "tilec"))
    ap.add_argument("--chips", default="sm_80,sm_89,sm_90a")
    ap.add_argument("--base-dict-configs", action="store_true",
                    help="give the base the old dictionary spelling of configs")
    ap.add_argument("--expect-different", default="",
                    help="comma-separated kernel-name prefixes allowed to differ")
    args = ap.parse_args()
    allowed = [p for p in args.expect_different.split(",") if p]
    same = differ = failed = 0
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for chip in args.chips.split(","):
            for name, src in sources(chip):
                path = os.path.join(tmp, f"{name}.{chip}.mlir")
                with open(path, "w") as f:
                    f.write(src)
                base_path = path
                if args.base_dict_configs:
                    base_path = os.path.join(tmp, f"{name}.{chip}.base.mlir")
                    with open(base_path, "w") as f:
                        f.write(dict_configs(src))
                outs = []
                for tag, tool, path in (("base", args.base, base_path),
                                        ("new", args.new, path)):
                    out = os.path.join(tmp, tag, chip, name)
                    os.makedirs(out, exist_ok=True)
                    outs.append((out, compile_ptx(tool, path, chip, out)))
                if not outs[0][1] or not outs[1][1]:
                    failed += 1
                    bad.append(f"{chip} {name}: compile failed "
                               f"(base {outs[0][1]}, new {outs[1][1]})")
                    continue
                for ptx in sorted(glob.glob(os.path.join(outs[0][0], "*.ptx"))):
                    other = os.path.join(outs[1][0], os.path.basename(ptx))
                    a = open(ptx, "rb").read()
                    b = open(other, "rb").read() if os.path.exists(other) else b""
                    if a == b:
                        same += 1
                    else:
                        differ += 1
                        kernel = os.path.basename(ptx)[:-4]
                        tag = "expected" if any(kernel.startswith(p) for p in allowed) else "DIFFERS"
                        bad.append(f"{chip} {kernel}: {tag}")
    for line in bad:
        print(line)
    print(f"{same} identical, {differ} different, {failed} failed to compile")
    unexpected = [b for b in bad if "DIFFERS" in b or "failed" in b]
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
