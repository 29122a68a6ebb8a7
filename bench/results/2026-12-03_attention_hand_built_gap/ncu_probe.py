#!/usr/bin/env python3
"""Per-instruction stall samples of attention variants (ncu, H200).

    ncu_probe.py OUT variant:kernel:S [...]

For each item, runs `ncu --section SourceCounters --section WarpStateStats`
on one launch of .gpu/var/<variant>/sm_90a/<kernel> at B*S = 16k tokens,
H*D = 2048 (a child process of this script launches it), and writes
OUT/ncu.tar.gz with <variant>_<kernel>_S<S>.{source.csv,details.txt}. The source CSV
holds, per SASS instruction, the warp stall samples by reason; compare two
variants' key loops with it.
"""
import os, signal, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VAR = os.path.join(ROOT, ".gpu", "var")
TIMEOUT = int(os.environ.get("NCU_TIMEOUT", "120"))


def child(variant, kernel, S):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from block_attention import named_args
    from block_programs import load
    D = int(kernel.split("_d")[1].split("_")[0])
    B, H = 16384 // S, 2048 // D
    q, k, v = (torch.randn(B, H, S, D, device="cuda").bfloat16() for _ in range(3))
    o = torch.empty_like(q)
    lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
    kn = load(os.path.join(VAR, variant), "sm_90a", kernel)
    for _ in range(3):
        kn(*named_args(q, k, v, o, lse))
    torch.cuda.synchronize()


def main():
    if sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for item in sys.argv[2:]:
        variant, kernel, S = item.split(":")
        base = os.path.join(out, f"{variant}_{kernel}_S{S}")
        cmd = ["ncu", "--clock-control", "none", "--section", "SourceCounters",
               "--section", "WarpStateStats", "--section", "SpeedOfLight",
               "-k", "regex:" + kernel, "--launch-skip", "2", "--launch-count", "1",
               "-f", "-o", base,
               sys.executable, os.path.abspath(__file__), "--child", variant, kernel, S]
        # Own process group: a hung profile is killed with the program it runs.
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, start_new_session=True)
        try:
            log, _ = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            log, _ = p.communicate()
            print(item, "timed out", log[-2000:], flush=True)
            continue
        print(item, "rc", p.returncode, log[-1500:], flush=True)
        for page, ext, extra in (("source", "source.csv", ["--print-source", "sass", "--csv"]),
                                 ("details", "details.txt", [])):
            r = subprocess.run(["ncu", "-i", base + ".ncu-rep", "--page", page] + extra,
                               capture_output=True, text=True)
            open(f"{base}.{ext}", "w").write(r.stdout + r.stderr)
        if os.path.exists(base + ".ncu-rep"):
            os.remove(base + ".ncu-rep")
    # One archive: the device tool brings back few files.
    subprocess.run(["tar", "czf", os.path.join(out, "ncu.tar.gz"), "-C", out, "."] , check=False)
    for f in os.listdir(out):
        if not f.endswith(".tar.gz"):
            os.remove(os.path.join(out, f))


if __name__ == "__main__":
    main()
