"""Config variants of the grouped GEMM (tilec.grouped_gemm's kernel, bf16,
B column-major) compiled here for sm_90a into .gpu/grouped_probe; run.py
times them on the MoE up projection."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tilec.kernels import gemm_source  # noqa: E402

VARIANTS = {"default": None, "n128": {"block_n": 128}, "m64w4": {"block_m": 64, "warps": 4},
            "g1": {"group_m": 1}, "g16": {"group_m": 16}, "n128g16": {"block_n": 128, "group_m": 16}}


def main():
    out = os.environ.get("PROBE_DIR", os.path.join(ROOT, ".gpu", "grouped_probe"))
    os.makedirs(out, exist_ok=True)
    ok = True
    for tag, config in VARIANTS.items():
        name, src = gemm_source("bf16", b_layout="col", grouped=True, config=config,
                                name=f"grouped_{tag}")
        path = os.path.join(out, name + ".mlir")
        with open(path, "w") as f:
            f.write(src)
        r = subprocess.run([os.path.join(ROOT, "build", "bin", "tilec"), path, "--chip=sm_90a",
                            "--emit=cubin", "-o", out], capture_output=True, text=True)
        print(name, "ok" if r.returncode == 0 else "FAILED " + r.stderr[-800:])
        ok &= r.returncode == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
