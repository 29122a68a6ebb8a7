"""tile.attention_backward's expansion against scripts/common/backward_kernels.py.

Both write the same FlashAttention-2 backward block programs: the Python
module as text (the kernels tilec.attention's autograd runs, measured on the
H200), tile-expand-named-ops from the op with the chip's tiles. For every
chip rule, head dim, mask and mode this expands the op's stages and compiles
the Python kernels with the same tiles through `tilec-opt
--tile-expand-named-ops --canonicalize --cse`, and compares the kernels op
by op (SSA names dropped). Expected differences only:

* the views: the op's come from the kernel's tile.make_views (dropped on
  both sides, with the index arithmetic only they use);
* the scales: the Python kernels take `qk_scale` and `sm_scale` parameters,
  the op one `scale` and multiplies it by log2 e (the named side's scalar
  f32 constants and products are dropped);
* the order of the hoisted constants (compared as a multiset).

Then the same for the tile variants scripts/build/build_backward_artifacts.py
times on the GPU (and each rule's tiles with prefetch_rows toggled),
written as the op's `config <...>`. Variants that leave the dK/dV budgets
to the scheduling passes are skipped: the op's config sets budgets, it
cannot unset the rule's.

Usage: backward_matches_python.py TILEC_OPT ROOT (the repository root: its
scripts package, whose import puts ROOT/python on sys.path too)
"""

import collections
import re
import subprocess
import sys

TILEC_OPT, ROOT = sys.argv[1], sys.argv[2]
sys.path.insert(0, ROOT)
from scripts.build import build_backward_artifacts as artifacts  # noqa: E402
from scripts.common import backward_kernels as bk  # noqa: E402


def config_of(tiles, d):
    """The op's config for backward_kernels.Tiles ``tiles`` at head dim
    ``d`` (dq_add_cols 0, all columns, is the head dim)."""
    fields = [f"dq_m = {tiles.dq_m}", f"dq_n = {tiles.dq_n}", f"dq_warps = {tiles.dq_warps}",
              f"dkv_n = {tiles.dkv_n}", f"dkv_m = {tiles.dkv_m}",
              f"dkv_warps = {tiles.dkv_warps}",
              f"prefetch_rows = {'true' if tiles.prefetch_rows else 'false'}"]
    if tiles.dkv_consumer_regs:
        fields += [f"consumer_regs = {tiles.dkv_consumer_regs}", "producer_regs = 24"]
    fields.append(f"dq_add_cols = {tiles.dq_add_cols or d}")
    if tiles.share_tiles:
        fields.append("share_tiles = true")
    return " config <" + ", ".join(fields) + ">"


def named_kernel(d, causal, atomic, config=""):
    """A kernel holding tile.attention_backward with Python's parameters."""
    v4 = f"!tile.view<?x?x?x{d}xbf16, strides = [?, ?, {d}, 1]>"
    r3 = "!tile.view<?x?x?xf32, strides = [?, ?, 1]>"
    a4 = f"!tile.view<?x?x?x{d}xf32, strides = [?, ?, {d}, 1]>"
    ptrs = ", ".join(f"%{n}: !tile.ptr<{t}>" for n, t in [
        ("Q", "bf16"), ("K", "bf16"), ("V", "bf16"), ("O", "bf16"), ("dO", "bf16"),
        ("LSE", "f32"), ("dQ", "bf16"), ("dK", "bf16"), ("dV", "bf16"), ("L2", "f32"),
        ("DELTA", "f32"), ("DQA", "f32")])
    views = [("q", "Q", "H", "SQ", "qb", "qh"), ("k", "K", "HK", "SK", "kb", "kh"),
             ("v", "V", "HK", "SK", "kb", "kh"), ("o", "O", "H", "SQ", "ob", "oh"),
             ("do", "dO", "H", "SQ", "db", "dh"), ("dq", "dQ", "H", "SQ", "qgb", "qgh"),
             ("dk", "dK", "H", "SK", "kgb", "kgh"), ("dv", "dV", "H", "SK", "kgb", "kgh")]
    lines = [f"tile.kernel @bwd({ptrs}, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, "
             + ", ".join(f"%{s}: i32" for s in ["qb", "qh", "kb", "kh", "ob", "oh", "db", "dh",
                                                 "qgb", "qgh", "kgb", "kgh", "lb", "rb", "ab",
                                                 "ah"]) + ", %scale: f32) {"]
    for name, ptr, heads, seq, bs, hs in views:
        lines.append(f"  %{name} = tile.make_view %{ptr}[%B, %{heads}, %{seq}, {d}] strides "
                     f"[%{bs}, %{hs}, {d}, 1] : !tile.ptr<bf16>")
    lines.append("  %lse = tile.make_view %LSE[%B, %H, %SQ] strides [%lb, %SQ, 1] : !tile.ptr<f32>")
    for name, ptr in [("l2", "L2"), ("dl", "DELTA")]:
        lines.append(f"  %{name} = tile.make_view %{ptr}[%B, %H, %SQ] strides [%rb, %SQ, 1] "
                     ": !tile.ptr<f32>")
    scratch = "%l2, %dl"
    if atomic:
        lines.append(f"  %dqa = tile.make_view %DQA[%B, %H, %SQ, {d}] strides [%ab, %ah, {d}, 1] "
                     ": !tile.ptr<f32>")
        scratch += f", %dqa : {a4}"
    lines.append(f"  tile.attention_backward %q, %k, %v, %o, %do, %lse grads(%dq, %dk, %dv) "
                 f"scratch({scratch}) scale(%scale)" + (" causal" if causal else "")
                 + (" atomic" if atomic else "") + config + " : "
                 + ", ".join([v4] * 5 + [r3] + [v4] * 3 + [r3, r3]))
    lines += ["  tile.return", "}"]
    return "\n".join(lines) + "\n"


def run(source, chip, split):
    passes = (["--tile-split-stages"] if split else []) + [
        f"--tile-expand-named-ops=chip={chip}", "--canonicalize", "--cse"]
    r = subprocess.run([TILEC_OPT, "-", *passes], input=source, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"tilec-opt failed:\n{r.stderr}")
    kernels, current = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"\s*tile\.kernel @(\w+)\(.*\)(.*)\{$", line)
        if m:
            current = m.group(1)
            kernels[current] = (m.group(2).strip(), [])
        elif current:
            kernels[current][1].append(line.strip())
    return kernels


def body(lines, named):
    """(ops in order, constants) of a kernel body, SSA names dropped, views
    and what only they use dropped; on the named side also its scale
    arithmetic (scalar f32 constants and products)."""
    defs = {}
    for i, line in enumerate(lines):
        m = re.match(r"(%[\w]+)(:\d+)? = ", line)
        if m:
            defs[m.group(1)] = i
    dropped = {i for i, l in enumerate(lines) if "tile.make_view" in l}
    changed = True
    while changed:  # values used only by dropped ops
        changed = False
        for name, i in defs.items():
            if i in dropped:
                continue
            users = [j for j, l in enumerate(lines)
                     if j != i and re.search(re.escape(name) + r"\b", l)]
            if users and all(j in dropped for j in users) and "arith.constant" not in lines[i]:
                dropped.add(i)
                changed = True
    ops, consts = [], collections.Counter()
    for i, line in enumerate(lines):
        if i in dropped:
            continue
        line = re.sub(r"%[\w#:]+", "%", line)
        if named and (re.fullmatch(r"% = arith.constant [-\d.e+]+ : f32", line)
                      or line == "% = arith.mulf %, % : f32"):
            continue
        if "arith.constant" in line:
            consts[line] += 1
        else:
            ops.append(line)
    return ops, consts


def compare(chip, d, causal, atomic, tiles, config=""):
    """Compares the op's stage kernels with the Python module's; returns the
    number of differing kernels."""
    failures = 0
    if atomic:
        stages = ("pre_zero_dq", "dkdv_dq", "dq_scale")
        py_src = "\n".join(s for _, s in bk.atomic_sources("bf16", d, causal, tiles))
        py_names = bk.atomic_names("bf16", d, causal)
    else:
        stages = ("pre", "dq", "dkdv")
        py_names, py_src = bk.source("bf16", d, causal, tiles=tiles)
    python = run(py_src, chip, split=False)
    named = run(named_kernel(d, causal, atomic, config), chip, split=True)
    for stage, py_name in zip(stages, py_names):
        what = (f"{chip} d{d} {'causal ' if causal else ''}{stage}"
                + (f" {tiles.tag()}" if config else ""))
        py_attrs, py_body = python[py_name]
        op_attrs, op_body = named[f"bwd_{stage}"]
        # grid(...) warps(...) schedule<...>: the op's grid is over
        # the same parameters, named alike.
        if py_attrs != op_attrs:
            print(f"FAIL {what}: kernel attributes\n  python: {py_attrs}\n"
                  f"  op:     {op_attrs}")
            failures += 1
            continue
        (a_ops, a_consts), (b_ops, b_consts) = body(py_body, False), body(op_body, True)
        if a_ops != b_ops or a_consts != b_consts:
            print(f"FAIL {what}: the block programs differ")
            for x, y in zip(a_ops, b_ops):
                if x != y:
                    print(f"  python: {x}\n  op:     {y}")
                    break
            print(f"  constants: python {dict(a_consts - b_consts)}, "
                  f"op {dict(b_consts - a_consts)}")
            failures += 1
        else:
            print(f"same {what}: {len(a_ops)} ops")
    return failures


failures = 0
for chip in ("sm_90a", "sm_80", "sm_89"):
    for d in (64, 128):
        for causal in (False, True):
            failures += compare(chip, d, causal, False, bk.tiles_for(chip, d))
            failures += compare(chip, d, causal, True, bk.atomic_tiles_for(chip, d))
for chip in ("sm_90a", "sm_80"):
    for d in (64, 128):
        rule = bk.tiles_for(chip, d)
        variants = [rule._replace(prefetch_rows=not rule.prefetch_rows)]
        variants += artifacts.TILE_VARIANTS.get((chip, d), [])
        atomic = artifacts.ATOMIC_TILE_VARIANTS.get((chip, d), [])
        for is_atomic, group in ((False, variants), (True, atomic)):
            for tiles in group:
                if chip == "sm_90a" and not tiles.dkv_consumer_regs and not is_atomic:
                    continue  # the rule's 240-register budget cannot be unset
                for causal in (False, True):
                    failures += compare(chip, d, causal, is_atomic, tiles, config_of(tiles, d))
sys.exit(1 if failures else 0)
