#!/usr/bin/env python3
"""GPU check of tile.convert_layout between layouts that keep every element
in its warp: the lane-shuffle exchange (planWarpShuffle) and, where no plan
exists, the warp-synchronized round trip through shared memory.

Each case is a kernel that loads a tile of a row-major matrix in one layout,
converts it, and stores it from the other layout. Matrices are odd-sized
(the tiles at the edges are masked), filled with random bit patterns, and
the outputs poisoned first; the output must equal the input bit for bit and
the poison past the matrix must be intact.

    python3 -m scripts.gpu.layout_shuffle_check build [--out .gpu/shuffle]   (here: tilec)
    python3 -m scripts.gpu.layout_shuffle_check run --artifacts .gpu/shuffle --out RESULTS.json
                                                                            (GPU machine)

The bundle (``make gpu-artifacts``) builds the artifacts as
.gpu/bundle/shuffle. Poison, padding check and record: scripts/harness.

The build step also checks which exchange each kernel got from its PTX
(shfl.sync.idx, or bar.warp.sync around shared memory) and records it
beside the cubins.
"""

import argparse
import json
import os
import re
import subprocess
import sys

from scripts import ROOT
from scripts.harness.records import new_record, open_log, stamp_commit, write_record

# Layouts of a 4-warp block, each warp holding 8 rows of a 32-column tile
# (or 16 rows for mma): named by the element bits in registers.
LAYOUTS = {
    "mma": "#tile.mma<warpsPerCTA = [4, 1]>",
    "a8": "#tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>",
    "a16": "#tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>",
    # registers c0 c1 c2, lanes c3 c4 r0 r1 r2
    "row8": "#tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>",
    # registers c0 c1 c2, lanes r0 r1 r2 c3 c4 (a lane permutation of row8)
    "row8t": "#tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]>",
    # registers c0 c1 r0, lanes c2 c3 c4 r1 r2
    "sq24": "#tile.blocked<sizePerThread = [2, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>",
    # registers c0 r0 r1, lanes c1 c2 c3 c4 r2
    "sq42": "#tile.blocked<sizePerThread = [4, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>",
    # registers r0 r1 r2, lanes c0..c4
    "col8": "#tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>",
}

DTYPES = {"fp8": "f8E4M3FN", "bf16": "bf16", "f32": "f32"}

# (src, dst, dtype, tile rows, tile cols, exchange the compiler must pick)
CASES = [
    ("mma", "a8", "fp8", 64, 64, "shuffle"),     # FP8 attention's P (one bit from lanes to registers)
    ("mma", "a8", "fp8", 64, 128, "shuffle"),
    ("a8", "mma", "fp8", 64, 64, "shuffle"),     # and back
    ("row8", "row8t", "fp8", 32, 32, "shuffle"),  # lanes permuted only
    ("row8", "row8t", "f32", 64, 64, "shuffle"),
    ("row8", "sq24", "fp8", 32, 32, "shuffle"),   # one bit
    ("row8", "sq24", "bf16", 64, 64, "shuffle"),
    ("sq24", "row8", "f32", 32, 64, "shuffle"),
    ("row8", "sq42", "bf16", 32, 32, "shuffle"),  # two bits
    ("sq42", "row8", "f32", 64, 32, "shuffle"),
    ("row8", "sq42", "fp8", 32, 32, "smem"),      # 4 bytes never share a thread on both sides
    ("row8", "col8", "bf16", 32, 32, "smem"),     # three bits
    ("col8", "row8", "f32", 32, 32, "smem"),
]

SIZE_M, SIZE_N = 203, 141  # odd: the edge tiles are masked


def case_name(src, dst, dtype, rows, cols):
    return f"cvt_{src}_{dst}_{dtype}_{rows}x{cols}"


def kernel_source(src, dst, dtype, rows, cols):
    et = DTYPES[dtype]
    name = case_name(src, dst, dtype, rows, cols)
    aliases = "\n".join(f"#{k} = {v}" for k, v in LAYOUTS.items())
    view = f"!tile.view<?x?x{et}, strides = [?, 1]>"
    return f"""{aliases}
tile.kernel @{name}(%x: !tile.ptr<{et}>, %y: !tile.ptr<{et}>, %m: i32, %n: i32, %ldx: i32, %ldy: i32)
    grid(ceildiv(%m, {rows}), ceildiv(%n, {cols}), 1) warps(4) {{
  %i = tile.program_id x
  %j = tile.program_id y
  %cr = arith.constant {rows} : i32
  %cc = arith.constant {cols} : i32
  %r0 = arith.muli %i, %cr : i32
  %c0 = arith.muli %j, %cc : i32
  %vx = tile.make_view %x[%m, %n] strides [%ldx, 1] : !tile.ptr<{et}>
  %vy = tile.make_view %y[%m, %n] strides [%ldy, 1] : !tile.ptr<{et}>
  %t = tile.load %vx[%r0, %c0] : {view} -> tensor<{rows}x{cols}x{et}, #{src}>
  %u = tile.convert_layout %t : tensor<{rows}x{cols}x{et}, #{src}> -> tensor<{rows}x{cols}x{et}, #{dst}>
  tile.store %u, %vy[%r0, %c0] : tensor<{rows}x{cols}x{et}, #{dst}>, {view}
  tile.return
}}
"""


def exchange_of(ptx):
    """The exchange a kernel's warp-local conversion got. The load and the
    store may bring block-wide conversions of their own (bar.sync and
    shared memory); only warp-local ones shuffle by index or bar.warp.sync."""
    shuffles = len(re.findall(r"shfl\.sync\.idx", ptx))
    warp_syncs = len(re.findall(r"bar\.warp\.sync", ptx))
    if shuffles and not warp_syncs:
        return "shuffle", shuffles
    if warp_syncs and not shuffles:
        return "smem", warp_syncs
    return "unexpected", 0


def build(args):
    tilec = args.tilec
    chips = {"sm_89": "sm_90", "sm_90a": "sm_90a"}
    os.makedirs(args.out, exist_ok=True)
    stamp_commit(args.out)
    record = []
    bad = 0
    for chip, arch in chips.items():
        out = os.path.join(args.out, chip)
        os.makedirs(out, exist_ok=True)
        for src, dst, dtype, rows, cols, want in CASES:
            name = case_name(src, dst, dtype, rows, cols)
            path = os.path.join(out, name + ".mlir")
            with open(path, "w") as f:
                f.write(kernel_source(src, dst, dtype, rows, cols))
            ptx = subprocess.run([tilec, path, f"--chip={chip}", "--emit=ptx", "-o", "-"],
                                 check=True, capture_output=True, text=True).stdout
            got, count = exchange_of(ptx)
            subprocess.run([tilec, path, f"--chip={chip}", f"--cubin-arch={arch}",
                            "--emit=cubin", "-o", out], check=True)
            ok = got == want
            bad += not ok
            record.append({"chip": chip, "kernel": name, "exchange": got, "expected": want,
                           "instructions": count})
            print(f"{chip} {name}: {got} ({count}){'' if ok else '  WRONG, expected ' + want}")
    with open(os.path.join(args.out, "exchanges.json"), "w") as f:
        json.dump(record, f, indent=1)
    return 1 if bad else 0


def run(args):
    import torch
    from scripts.harness import tensors
    from tilec.runtime import load

    log = open_log(os.path.dirname(args.out) or ".", "layout_shuffle_check.log")
    torch.manual_seed(0)
    with open(os.path.join(args.artifacts, "exchanges.json")) as f:
        exchanges = {(e["chip"], e["kernel"]): e for e in json.load(f)}
    views = {"fp8": torch.uint8, "bf16": torch.int16, "f32": torch.int32}
    torch_dtypes = {"fp8": torch.float8_e4m3fn, "bf16": torch.bfloat16, "f32": torch.float32}
    results = []
    for chip in ("sm_89", "sm_90a"):
        kdir = os.path.join(args.artifacts, chip)
        for src, dst, dtype, rows, cols, _ in CASES:
            name = case_name(src, dst, dtype, rows, cols)
            k = load(kdir, name)
            m, n = SIZE_M, SIZE_N
            ldx, ldy = n + 16 // torch.tensor([], dtype=torch_dtypes[dtype]).element_size(), n + 32
            bits = views[dtype]
            info = torch.iinfo(bits)
            x = torch.randint(info.min, info.max, (m, ldx), device="cuda", dtype=torch.int64).to(bits)
            if dtype != "fp8":
                x = x & (-2 if dtype == "f32" else 0x7FFE)  # keep the patterns clear of odd NaNs
            y = tensors.poisoned((m, ldy), bits)  # -1: every bit set
            k(x.view(torch_dtypes[dtype]), y.view(torch_dtypes[dtype]), m, n, ldx, ldy)
            torch.cuda.synchronize()
            wrong = int((y[:, :n] != x[:, :n]).sum().item())
            poison_ok = tensors.padding_intact(y[:, :n], y)
            ok = wrong == 0 and poison_ok
            ex = exchanges[(chip, name)]
            results.append({"chip": chip, "kernel": name, "shape": [m, n], "tile": [rows, cols],
                            "exchange": ex["exchange"], "wrong_elements": wrong,
                            "poison_intact": poison_ok, "ok": ok})
            log(f"{chip} {name} [{ex['exchange']}]: {'ok' if ok else f'WRONG {wrong} elements, poison {poison_ok}'}")
    passed = sum(r["ok"] for r in results)
    log(f"{passed}/{len(results)} correct")
    write_record(new_record("layout_shuffle_check", artifacts=args.artifacts,
                            what="tile.convert_layout round trips within warps "
                                 "(scripts/gpu/layout_shuffle_check.py)",
                            passed=passed, total=len(results), cases=results), args.out)
    return 0 if passed == len(results) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", default=os.path.join(ROOT, ".gpu", "shuffle"))
    b.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    r = sub.add_parser("run")
    r.add_argument("--artifacts", default=os.path.join(ROOT, ".gpu", "shuffle"))
    r.add_argument("--out", required=True)
    args = ap.parse_args()
    return build(args) if args.cmd == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
