#!/usr/bin/env python3
"""Writes the planted-bug suite of tile-verify-async.

Each mutant is a shipped kernel (an example or a test input, scheduled by
tilec-opt up to tile-split-dots) with one protocol bug planted: a wait
removed, a parity flipped, expect_tx bytes or an arrival count changed, a
release moved before the wgmma that reads the stage is retired, a proxy
fence or a barrier dropped, an accumulator read before its wait, a
multicast part or a remote arrival lost. The script checks that
tile-verify-async reports each one with the expected kind of message, then
writes

    test/Dialect/Tile/Transforms/Schedule/verify-async-mutants.mlir   (-verify-diagnostics, one
                                                   mutant per split)
    test/Dialect/Tile/Transforms/Schedule/verify-async-shipped.mlir   (the unmutated kernels:
                                                   every path verified)

Run it again after a schedule changes (the mutations are text replacements
on the scheduled IR and fail loudly when their text is gone):

    python3 -m scripts.dev.gen_async_mutants [--tilec-opt build/bin/tilec-opt]
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCHEDULE = ("tile-expand-named-ops, canonicalize, tile-assign-layouts, "
            "loop-invariant-code-motion, tile-persistent, tile-tma-store, "
            "tile-tma-pipeline, tile-pipeline, tile-wgmma-overlap, "
            "tile-async-wgmma, tile-warp-specialize, tile-split-dots")
VERIFY = "builtin.module(gpu.module(tile.kernel(tile-verify-async)))"

BASES = {
    # name: (input, chip, what it is)
    "gemm_sm90a": ("examples/gemm_bf16.mlir", "sm_90a",
                   "tile.gemm: persistent warp-specialized TMA ring, async "
                   "wgmma, TMA-store epilogue"),
    "attention_sm90a": ("test/Target/Inputs/attention_bf16_hand_built.mlir", "sm_90a",
                        "tile.attention (causal, FA3): Q by TMA, K/V rings, "
                        "ping-pong named barriers, Q buffer reused for O"),
    "gemm_block_sm80": ("examples/gemm_block_bf16.mlir", "sm_80",
                        "block-program GEMM on sm_80: cp.async ring, "
                        "ldmatrix + mma.sync"),
    "gemm_cluster_sm90a": ("test/Target/Inputs/gemm_bf16_cluster.mlir",
                           "sm_90a",
                           "tile.gemm in 2-program clusters: multicast parts, "
                           "remote releases"),
}

# (base, bug, old text, new text, expected message fragment)
MUTANTS = [
    ("gemm_sm90a", "consumer does not wait for the full stage",
     "              tile.mbarrier_wait %16[%arg5], %arg6 : !tile.mbarrier<3>\n",
     "", "before the tile.tma_load"),
    ("gemm_sm90a", "consumer waits with the flipped parity",
     "              tile.mbarrier_wait %16[%arg5], %arg6 :",
     "              %one = arith.constant 1 : i32\n"
     "              %flip = arith.xori %arg6, %one : i32\n"
     "              tile.mbarrier_wait %16[%arg5], %flip :",
     "before the tile.tma_load"),
    ("gemm_sm90a", "producer does not wait for the empty stage",
     "                tile.mbarrier_wait %17[%60], %64 : !tile.mbarrier<3>\n",
     "", "while the tile.dot at"),
    ("gemm_sm90a", "producer waits on the empty stage with the full parity",
     "tile.mbarrier_wait %17[%60], %64 :",
     "tile.mbarrier_wait %17[%60], %62 :",
     "deadlock"),
    ("gemm_sm90a", "expect_tx announces fewer bytes than the boxes",
     "tile.mbarrier_expect_tx %16[%60], 49152",
     "tile.mbarrier_expect_tx %16[%60], 32768",
     "deliver 49152 bytes, but expect_tx announced 32768"),
    ("gemm_sm90a", "expect_tx announces more bytes than the boxes",
     "tile.mbarrier_expect_tx %16[%60], 49152",
     "tile.mbarrier_expect_tx %16[%60], 65536",
     "deadlock"),
    ("gemm_sm90a", "empty barriers count half the consumer warps",
     "%17 = tile.mbarrier_alloc count 8", "%17 = tile.mbarrier_alloc count 4",
     "may count toward phase"),
    ("gemm_sm90a", "empty barriers count twice the consumer warps",
     "%17 = tile.mbarrier_alloc count 8", "%17 = tile.mbarrier_alloc count 16",
     "incomplete: 8 of 16 arrivals"),
    ("gemm_sm90a", "stage released while its wgmma may be in flight",
     "%59 = tile.warpgroup_wait 1, %58", "%59 = tile.warpgroup_wait 2, %58",
     "while the tile.dot at"),
    ("gemm_sm90a", "no proxy fence before the TMA store",
     "          tile.fence_async_shared\n", "",
     "with no tile.fence_async_shared"),
    ("gemm_sm90a", "no barrier between the epilogue stores and the TMA store",
     "          tile.fence_async_shared\n          tile.barrier\n",
     "          tile.fence_async_shared\n",
     "before the tile.local_store"),
    ("gemm_sm90a", "epilogue rewrites the buffer a TMA store still reads",
     "          tile.tma_store_wait 0\n          tile.barrier\n",
     "          tile.barrier\n",
     "while the tile.tma_store"),
    ("gemm_sm90a", "no barrier after the TMA-store wait",
     "          tile.tma_store_wait 0\n          tile.barrier\n",
     "          tile.tma_store_wait 0\n",
     "while the tile.tma_store"),
    ("gemm_sm90a", "accumulator read before its warpgroup_wait",
     "scf.yield %52, %51#1, %51#2 :", "scf.yield %51#0, %51#1, %51#2 :",
     "the accumulator of the wgmma"),
    ("gemm_sm90a", "kernel ends with a TMA store reading shared memory",
     "        tile.tma_store_wait 0\n      } partition", "      } partition",
     "the kernel ends while this tile.tma_store may still read"),
    ("gemm_sm90a", "TMA load into the wrong stage",
     "tile.tma_load %12[%27, %56], %13[%60], %16[%60]",
     "tile.tma_load %12[%27, %56], %13[%c0_i32], %16[%60]",
     "before the tile.tma_load"),
    ("attention_sm90a", "consumers do not wait for Q",
     "        tile.mbarrier_wait %25[%c0_i32], %c0_i32 : !tile.mbarrier<1>\n",
     "", "reads stage 0 of %23 before the tile.tma_load"),
    ("attention_sm90a", "ping-pong barrier with the wrong thread count",
     "          tile.named_barrier %36, 256\n          tile.mbarrier_wait %30[%67]",
     "          tile.named_barrier %36, 128\n          tile.mbarrier_wait %30[%67]",
     "threads here and 256 threads"),
    ("attention_sm90a", "ping-pong never lets the first warpgroup start",
     "          tile.named_barrier arrive %c3_i32, 256\n", "",
     "deadlock: waits at a barrier"),
    ("attention_sm90a", "consumers do not wait for the V stage",
     "          tile.mbarrier_wait %31[%arg5], %arg6 : !tile.mbarrier<2>\n"
     "          %72 =",
     "          %72 =",
     "reads stage 0 of %29 before the tile.tma_load"),
    ("attention_sm90a", "V stage released before its wgmma is retired",
     "          %90 = tile.warpgroup_wait 0, %73 : tensor<128x128xf32, #mma>\n"
     "          tile.mbarrier_arrive %33[%arg5] : !tile.mbarrier<2>\n",
     "          tile.mbarrier_arrive %33[%arg5] : !tile.mbarrier<2>\n"
     "          %90 = tile.warpgroup_wait 0, %73 : tensor<128x128xf32, #mma>\n",
     "overwrites stage 0 of %29 while the tile.dot"),
    ("attention_sm90a", "O written into the Q buffer while wgmma may read Q",
     "        tile.barrier\n        tile.local_store %60, %23[%c0_i32]",
     "        tile.local_store %60, %23[%c0_i32]",
     "overwrites stage 0 of %23 while the tile.dot"),
    ("gemm_block_sm80", "cp.async wait leaves the stage's group pending",
     "          tile.async_wait 1\n          tile.barrier\n",
     "          tile.async_wait 2\n          tile.barrier\n",
     "its copies have not landed and been made visible"),
    ("gemm_block_sm80", "no barrier after the cp.async wait",
     "          tile.async_wait 1\n          tile.barrier\n",
     "          tile.async_wait 1\n",
     "reads stage 1 of %16 before the tile.async_copy"),
    ("gemm_block_sm80", "prologue reads the first stage without waiting",
     "        tile.async_wait 1\n        tile.barrier\n",
     "        tile.barrier\n",
     "reads stage 0 of %16 before the tile.async_copy"),
    # Not a mutant: dropping the final `tile.async_wait 0` of this kernel
    # leaves only empty groups pending (the last iterations commit groups
    # without copies), which the exit check once reported by mistake;
    # test/Dialect/Tile/Transforms/Schedule/verify-async.mlir checks copies really in flight.
    ("gemm_cluster_sm90a", "multicast without parts: each program gets B twice",
     "multicast(%c3_i32) part(%26 of 2)", "multicast(%c3_i32)",
     "the bytes of this TMA load on %22[0] of program 0 of the cluster may count toward phase 0"),
    ("gemm_cluster_sm90a", "a consumer forgets the peer's release",
     "                tile.mbarrier_arrive %23[%95] cta(%c1_i32_6) : "
     "!tile.mbarrier<3>\n", "",
     "deadlock: waits for phase 0 of %23[0] of program 1 of the cluster"),
    ("gemm_cluster_sm90a", "multicast reaches only the first program",
     "multicast(%c3_i32) part(%26 of 2)", "multicast(%c1_i32) part(%26 of 2)",
     "deadlock"),
]


def run(cmd, text=None):
    return subprocess.run(cmd, input=text, capture_output=True, text=True)


def schedule(tilec_opt, base):
    src, chip, _ = BASES[base]
    pipeline = (f"builtin.module(tile-attach-target{{chip={chip}}}, "
                f"gpu.module(tile.kernel({SCHEDULE})))")
    r = run([tilec_opt, str(REPO / src), f"--pass-pipeline={pipeline}"])
    if r.returncode != 0:
        sys.exit(f"scheduling {src} failed:\n{r.stderr}")
    return r.stdout


def verify(tilec_opt, text):
    """(line, message) of the first error, or None; and stderr (remarks)."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
        f.write(text)
        f.flush()
        r = run([tilec_opt, f.name, f"--pass-pipeline={VERIFY}",
                 "--remarks-filter=tile-verify-async",
                 "--remark-format=emitRemark", "-o", "/dev/null"])
    m = re.search(r":(\d+):\d+: error: (.*)", r.stderr)
    if r.returncode == 0 or not m:
        return None, r.stderr
    return (int(m.group(1)), m.group(2)), r.stderr


def annotate(text, line, fragment):
    lines = text.split("\n")
    indent = re.match(r"\s*", lines[line - 1]).group(0)
    lines[line - 1:line - 1] = [
        f"{indent}// expected-error @+2 {{{{{fragment}}}}}",
        f"{indent}// expected-note @+1 {{{{on the path}}}}"]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tilec-opt", default=str(REPO / "build/bin/tilec-opt"))
    args = p.parse_args()
    bases = {b: schedule(args.tilec_opt, b) for b in BASES}
    for b, text in bases.items():
        found, err = verify(args.tilec_opt, text)
        if found:
            sys.exit(f"{b}: the shipped kernel does not verify:\n{err}")
    chunks, failures = [], []
    for base, bug, old, new, fragment in MUTANTS:
        text = bases[base]
        if old not in text:
            sys.exit(f"{base} / {bug}: text to mutate not found:\n{old}")
        mutant = text.replace(old, new, 1)
        found, err = verify(args.tilec_opt, mutant)
        if not found:
            failures.append(f"{base} / {bug}: not caught")
            continue
        line, message = found
        if fragment not in message:
            failures.append(f"{base} / {bug}: caught as\n  {message}\n"
                            f"not as '{fragment}'")
            continue
        print(f"caught  {base:20} {bug}\n        -> {message[:150]}")
        chunks.append(f"// Planted bug ({base}): {bug}.\n"
                      + annotate(mutant, line, fragment))
    if failures:
        sys.exit("\n".join(failures))
    head = ("// Generated by scripts/dev/gen_async_mutants.py: shipped kernels, "
            "scheduled, each with\n// one planted protocol bug that "
            "tile-verify-async must report.\n"
            f"// RUN: tilec-opt %s -split-input-file -verify-diagnostics "
            f"--pass-pipeline='{VERIFY}'\n\n")
    out = REPO / "test/Dialect/Tile/Transforms/Schedule/verify-async-mutants.mlir"
    out.write_text(head + "\n// -----\n\n".join(chunks))
    shipped = ["// Generated by scripts/dev/gen_async_mutants.py: the kernels the "
               "mutants come from,\n// as tilec schedules them. Every path "
               "verifies (the remark counts them).\n"
               f"// RUN: tilec-opt %s -split-input-file "
               f"--pass-pipeline='{VERIFY}' --remarks-filter=tile-verify-async"
               f" --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck "
               f"%s\n"]
    parts = []
    for b, text in bases.items():
        _, err = verify(args.tilec_opt, text)
        checks = [f"// CHECK: {m.group(1)}"
                  for m in re.finditer(r"Remark=\"(asynchronous protocol "
                                       r"verified on \d+ of \d+ paths)", err)]
        parts.append(f"// {b}: {BASES[b][2]}.\n" + "\n".join(checks) + "\n"
                     + text)
    (REPO / "test/Dialect/Tile/Transforms/Schedule/verify-async-shipped.mlir").write_text(
        shipped[0] + "\n" + "\n// -----\n\n".join(parts))
    print(f"{len(chunks)} mutants caught; wrote {out}")


if __name__ == "__main__":
    main()
