#!/usr/bin/env python3
"""tilec.grouped_gemm on the GPU, from precompiled kernels (no compiler: any
attempt to compile fails the case): bf16 grouped GEMMs (MoE experts) with
E = 1, 3, 8 and 64 groups, routed balanced, skewed (Zipf-like), at random,
with empty groups (the first and the last), with one group holding every
row, with fewer rows than groups; M, N and K from 1 to 4096 (1, 7, 100, 257,
1000, 4096: odd sizes, not multiples of the tiles), each also with rows
padded to 16 bytes (the fast kernel); B column-major (an [E, N, K] weight
stack transposed, nn.Linear's layout) and row-major;
offsets[-1] < M (the rows past it must keep their poison); strided operands
(padded rows, a shared expanded B); what only the any-strides variant reads
(odd row strides, bases 2 bytes off, matrices 8 bytes off); the bias + SiLU
and GELU epilogues; an allocated out; K = 0 (activation(bias) in the groups'
rows, through torch), E = 0 and M = 0 -- on both chips (sm_90a, and sm_80
PTX assembled for sm_90).

Outputs are poisoned with NaN (the whole buffer, row padding included)
before every call. Each case runs three times: the checked path, the plan
the first call made, and the plan again after a new routing is written into
the same offsets tensor (the kernel reads the offsets on the device). Each
is compared with a float32 reference computed group by group
(scripts/harness: relative error max|out - ref| / max|ref| over the groups'
rows, bounded as bmm_check.py bounds it: 1.6e-2 for bf16), and the rows past offsets[-1] and the row
padding must still be NaN.

    python3 -m scripts.gpu.grouped_gemm_check --artifacts DIR [--out FILE]

DIR: TILEC_LIBRARY=build/lib/libtilec-c.so \\
     python3 -m scripts.build.build_python_artifacts --grouped-only --out DIR
(default DIR: $TILEC_ARTIFACTS, else .gpu/grouped_python; the bundle's is
.gpu/bundle/python). Writes FILE (default $OUT/grouped_gemm_check.json)
with the record head (date, GPU, commit: $TILEC_COMMIT, else DIR's stamp),
every case and all_ok; exits non-zero
on any failure. A case that takes longer than --case-timeout seconds (a
hung kernel) ends the run with the results so far written.
"""

import argparse
import os
import sys
import threading
import time

from scripts import ROOT
# No compiler on the GPU machine: make sure none is picked up by accident.
os.environ["TILEC_LIBRARY"] = os.path.join(ROOT, "no-compiler-on-this-machine", "libtilec-c.so")

import torch  # noqa: E402

import tilec  # noqa: E402
from scripts.harness import references as ref  # noqa: E402
from scripts.harness import tensors  # noqa: E402
from scripts.harness.records import new_record, write_record  # noqa: E402
from tilec import ops, plans  # noqa: E402

TOLERANCE = 1.6e-2  # bf16 output

#: (E, M, N, K, routing) of the plain cases, each run with B column- and
#: row-major. Routings: see group_sizes.
SHAPES = [
    (1, 1, 1, 1, "balanced"),
    (1, 7, 257, 100, "balanced"),
    (1, 1000, 4096, 257, "balanced"),
    (3, 7, 7, 7, "balanced"),
    (3, 100, 257, 1000, "skewed"),
    (3, 257, 100, 7, "empty_ends"),
    (3, 1000, 1, 100, "one:1"),
    (3, 4096, 100, 257, "random"),
    (8, 4096, 1000, 257, "balanced"),
    (8, 1000, 4096, 100, "skewed"),
    (8, 257, 257, 4096, "empty_ends"),
    (8, 100, 1000, 1000, "one:0"),
    (8, 1000, 1024, 512, "one:7"),
    (8, 1, 100, 257, "balanced"),  # one row: seven empty groups
    (8, 1024, 2048, 1024, "balanced"),  # whole tiles, the fast kernel
    (64, 4096, 1000, 257, "balanced"),
    (64, 4096, 257, 1000, "skewed"),
    (64, 1000, 4096, 100, "random"),
    (64, 257, 100, 7, "empty_ends"),
    (64, 7, 1000, 257, "balanced"),  # fewer rows than groups
    (64, 4096, 2048, 1024, "skewed"),
]


#: The transposed decode classes the grouped cases are also run with,
#: per chip (built by scripts/build/build_python_artifacts.py --grouped-only).
DECODE_CONFIG = {
    "sm_90a": {"block_k": 128, "block_m": 16, "block_n": 64, "swap_ab": 1, "warps": 4},
    "sm_80": {"block_k": 64, "block_m": 16, "block_n": 64, "stages": 8, "swap_ab": 1,
              "warps": 4},
}
#: A placeholder the run replaces with the chip's DECODE_CONFIG entry.
DECODE_CONFIGS = ("decode",)


def cases():
    """Every case: a dict of its sizes, routing and operand layout."""
    out = []
    for e, m, n, k, routing in SHAPES:
        for layout in ("col", "row"):
            out.append(dict(groups=e, m=m, n=n, k=k, routing=routing, b_layout=layout))
            # The same with rows padded to 16 bytes: what the fast kernel
            # reads (the plain ones take the any-strides variant where the
            # rows of a or b are not whole 16-byte chunks).
            b_cols = k if layout == "col" else n
            if (k % 8 or b_cols % 8) and m * n * k:
                out.append(dict(out[-1], a_pad=-k % 8, b_pad=-b_cols % 8))
    plain = dict(b_layout="col")
    out += [
        # offsets[-1] < M: the rows past it keep their values.
        dict(plain, groups=8, m=1000, n=257, k=100, routing="balanced", tail=77),
        dict(plain, groups=64, m=4096, n=1000, k=256, routing="skewed", tail=1000),
        dict(plain, groups=3, m=100, n=64, k=64, routing="empty_ends", tail=99),
        dict(groups=8, m=257, n=100, k=1000, routing="random", b_layout="row", tail=1),
        dict(plain, groups=8, m=100, n=64, k=64, routing="balanced", tail=100),  # all tail
        # Rows padded to 16 bytes (the fast kernel) with odd sizes, out strided.
        dict(plain, groups=8, m=1000, n=257, k=100, routing="skewed", a_pad=4, b_pad=4,
             out_pad=7),
        dict(groups=3, m=257, n=100, k=7, routing="balanced", b_layout="row", a_pad=1, b_pad=4),
        # A shared B (matrix stride 0, an expanded operand).
        dict(plain, groups=8, m=1000, n=256, k=128, routing="skewed", expand_b=True),
        dict(groups=8, m=257, n=100, k=7, routing="random", b_layout="row", expand_b=True),
        # What only the any-strides variant reads.
        dict(plain, groups=8, m=1000, n=256, k=128, routing="balanced", a_pad=1),
        dict(plain, groups=8, m=1000, n=256, k=128, routing="skewed", a_offset=1),
        dict(plain, groups=8, m=1000, n=256, k=128, routing="random", b_pad=1),
        dict(groups=8, m=1000, n=256, k=128, routing="balanced", b_layout="row", b_pad=3),
        dict(plain, groups=8, m=257, n=256, k=128, routing="empty_ends", b_batch_pad=4),
        dict(groups=3, m=257, n=256, k=128, routing="skewed", b_layout="row", b_offset=1),
        # Epilogues (bias shared by the groups).
        dict(plain, groups=8, m=1000, n=1000, k=257, routing="skewed", bias=True,
             activation="silu"),
        dict(plain, groups=64, m=4096, n=1024, k=512, routing="empty_ends", bias=True,
             activation="silu", tail=96),
        dict(plain, groups=3, m=100, n=7, k=7, routing="balanced", bias=True,
             activation="silu", a_pad=1),
        dict(groups=8, m=1000, n=257, k=100, routing="random", b_layout="row",
             activation="gelu"),
        dict(groups=64, m=257, n=1024, k=256, routing="empty_ends", b_layout="row",
             activation="gelu", tail=10),
        # An allocated out.
        dict(plain, groups=8, m=1000, n=257, k=100, routing="skewed", allocate=True),
        dict(plain, groups=64, m=4096, n=1024, k=512, routing="balanced", allocate=True,
             bias=True, activation="silu"),
        # No products, no groups, no rows.
        dict(plain, groups=8, m=100, n=64, k=0, routing="skewed"),
        dict(plain, groups=8, m=100, n=64, k=0, routing="empty_ends", bias=True,
             activation="silu", tail=30),
        dict(plain, groups=0, m=100, n=64, k=64, routing="balanced"),
        dict(plain, groups=8, m=0, n=64, k=64, routing="balanced"),
    ]
    return out


def group_sizes(routing, groups, rows, generator):
    """Rows per group summing to ``rows``: ``balanced`` (as equal as can
    be), ``skewed`` (Zipf-like, group i's share proportional to 1 / (i + 1),
    the remainder to group 0), ``random`` (each row to a uniformly random
    group), ``empty_ends`` (the first and the last group empty, the others
    balanced), ``one:g`` (group g holds every row)."""
    if groups == 0:
        return []
    if routing == "balanced":
        return [rows // groups + (g < rows % groups) for g in range(groups)]
    if routing == "skewed":
        weights = [1.0 / (g + 1) for g in range(groups)]
        sizes = [int(rows * w / sum(weights)) for w in weights]
        sizes[0] += rows - sum(sizes)
        return sizes
    if routing == "random":
        picks = torch.randint(groups, (rows,), generator=generator)
        return torch.bincount(picks, minlength=groups).tolist()
    if routing == "empty_ends":
        if groups < 3:
            return group_sizes("one:0", groups, rows, generator)
        return [0] + group_sizes("balanced", groups - 2, rows, generator) + [0]
    if routing.startswith("one:"):
        return [rows if g == int(routing[4:]) else 0 for g in range(groups)]
    raise ValueError(routing)


def rerouted(sizes):
    """Another routing of the same rows (the second routing of a case):
    the group sizes reversed, or for a single group one row fewer."""
    if len(sizes) > 1:
        return sizes[::-1]
    return [max(sizes[0] - 1, 0)] if sizes else []


def operand(batch, rows, cols, pad=0, offset=0, batch_pad=0):
    """(view, buffer): a [batch, rows, cols] bf16 view with rows ``cols +
    pad`` elements apart and matrices ``rows * (cols + pad) + batch_pad``
    apart, ``offset`` elements into its buffer (random normal values: no
    zeros)."""
    ld = cols + pad
    stride = rows * ld + batch_pad
    span = offset + ((batch - 1) * stride + (rows - 1) * ld + cols if batch * rows * cols else 0)
    buf = tensors.randn(max(span, 1), torch.bfloat16)
    return buf[offset:].as_strided((batch, rows, cols), (stride, ld, 1)), buf


def make_operands(c):
    e, m, n, k = c["groups"], c["m"], c["n"], c["k"]
    a, _ = operand(1, m, k, c.get("a_pad", 0), c.get("a_offset", 0))
    a = a[0]
    if c.get("expand_b"):
        w = operand(1, n, k)[0] if c["b_layout"] == "col" else operand(1, k, n)[0]
        b = (w.transpose(1, 2) if c["b_layout"] == "col" else w).expand(e, k, n)
    elif c["b_layout"] == "col":  # b = w.transpose(1, 2) of an [E, N, K] weight stack
        w, _ = operand(e, n, k, c.get("b_pad", 0), c.get("b_offset", 0), c.get("b_batch_pad", 0))
        b = w.transpose(1, 2)
    else:
        b, _ = operand(e, k, n, c.get("b_pad", 0), c.get("b_offset", 0), c.get("b_batch_pad", 0))
    bias = torch.randn(n, device="cuda").to(torch.bfloat16) if c.get("bias") else None
    out = out_buf = None
    if not c.get("allocate"):
        out, out_buf = operand(1, m, n, c.get("out_pad", 0))
        out = out[0]
    return a, b, bias, out, out_buf


def compare(result, want, end, out_buf, out, c):
    """(relative error, NaNs among the groups' rows, written elements that
    must not be: rows past the last offset, row padding)."""
    m, n = want.shape
    err = ref.rel_err(result[:end], want[:end])
    unwritten = tensors.unwritten(result[:end])
    stray = 0
    if out is not None:
        stray = int((~torch.isnan(result[end:].float())).sum().item())
        if c.get("out_pad") and m > 1:  # the padding after each row but the last
            ld = out.stride(0)
            padding = out_buf[:(m - 1) * ld].view(m - 1, ld)[:, n:]
            stray += int((~torch.isnan(padding.float())).sum().item())
    return err, unwritten, stray


def run(c, chip, artifacts, generator):
    e, m, n, k = c["groups"], c["m"], c["n"], c["k"]
    a, b, bias, out, out_buf = make_operands(c)
    sizes = group_sizes(c["routing"], e, m - c.get("tail", 0), generator)
    offsets = torch.tensor([sum(sizes[:g + 1]) for g in range(e)], dtype=torch.int32,
                           device="cuda")
    ops.clear_kernel_memo()  # (to record the kernel this case resolves)
    record = dict(chip=chip, sizes=[e, m, n, k],
                  layout={key: v for key, v in c.items() if key not in ("groups", "m", "n", "k")},
                  group_rows=sizes if e <= 8 else f"{min(sizes)}..{max(sizes)}" if sizes else [],
                  a_strides=list(a.stride()), b_strides=list(b.stride()))
    errors, unwritten, stray = [], [], []
    for attempt in ("checked", "plan", "rerouted"):
        if attempt == "rerouted":
            sizes = rerouted(sizes)
            offsets.copy_(torch.tensor([sum(sizes[:g + 1]) for g in range(e)],
                                       dtype=torch.int32))
        want, end = ref.grouped_gemm(a, b, sizes, bias=bias, act=c.get("activation"))
        if out is None:
            tensors.poison_allocator(m * n, torch.bfloat16)
        else:
            tensors.poison_(out_buf)
        config = DECODE_CONFIG[chip] if c.get("config") == "decode" else None
        result = tilec.grouped_gemm(a, b, offsets, out=out, bias=bias,
                                    activation=c.get("activation"), chip=chip,
                                    artifacts=artifacts, config=config)
        torch.cuda.synchronize()
        if out is not None and result is not out:
            raise AssertionError("tilec.grouped_gemm did not return out")
        if tuple(result.shape) != (m, n) or result.dtype != torch.bfloat16:
            raise AssertionError(f"got {result.dtype} {list(result.shape)}, expected "
                                 f"bfloat16 {[m, n]}")
        err, nans, strays = compare(result, want, end, out_buf, out, c)
        errors.append(err)
        unwritten.append(nans)
        stray.append(strays)
        if attempt == "checked":
            record["kernels"] = sorted({key[0] for key in plans._kernels})
    record.update(rel_err=errors, unwritten=unwritten, stray_writes=stray, tolerance=TOLERANCE,
                  plans=len(plans._tls.plans),
                  ok=bool(all(x <= TOLERANCE for x in errors) and not any(unwritten)
                          and not any(stray)))
    return record


class Watchdog:
    """Ends the process (after ``on_timeout``) when a case runs longer than
    ``seconds``: a hung kernel blocks in the driver, out of Python's reach."""

    def __init__(self, seconds, on_timeout):
        self.seconds, self.on_timeout, self.timer = seconds, on_timeout, None

    def arm(self, what):
        self.disarm()
        self.timer = threading.Timer(self.seconds, self._fire, (what,))
        self.timer.daemon = True
        self.timer.start()

    def disarm(self):
        if self.timer is not None:
            self.timer.cancel()

    def _fire(self, what):
        print(f"TIMEOUT: {what} ran longer than {self.seconds} s (a hung kernel?); writing "
              f"the results so far and exiting", file=sys.stderr, flush=True)
        self.on_timeout(f"timeout after {self.seconds} s in {what}")
        os._exit(3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", default=os.environ.get("TILEC_ARTIFACTS")
                    or os.path.join(ROOT, ".gpu", "grouped_python"))
    ap.add_argument("--chips", default="sm_90a,sm_80")
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                  "grouped_gemm_check.json"))
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--case-timeout", type=float, default=120.0)
    args = ap.parse_args()
    artifacts = os.path.abspath(args.artifacts)
    if not os.path.isdir(artifacts):
        print(f"no artifacts directory {artifacts}: build it with TILEC_LIBRARY=... "
              f"python3 -m scripts.build.build_python_artifacts --grouped-only --out DIR", file=sys.stderr)
        return 2
    # The shape rule (libtilec-rules.so, no compiler needed) ships beside the
    # artifacts (scripts/build/build_python_artifacts.py).
    if os.path.isfile(os.path.join(artifacts, "libtilec-rules.so")):
        os.environ["TILEC_RULES_LIBRARY"] = os.path.join(artifacts, "libtilec-rules.so")
    torch.backends.cuda.matmul.allow_tf32 = False  # a float32 reference
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    records = []
    doc = new_record("grouped_gemm_check", artifacts=artifacts, cases=records)

    def write(aborted=None):
        passed = sum(r["ok"] for r in records)
        doc.update(passed=passed, failed=len(records) - passed, aborted=aborted,
                   all_ok=passed == len(records) and not aborted)
        write_record(doc, args.out)
        print(f"{passed} passed, {len(records) - passed} failed of {len(records)}"
              + (f" (aborted: {aborted})" if aborted else "") + f" -> {args.out}", flush=True)
        return 0 if doc["all_ok"] else 1

    watchdog = Watchdog(args.case_timeout, write)
    start = time.perf_counter()
    for chip in [c for c in args.chips.split(",") if c]:
        for c in cases():
            what = f"{chip} {c}"
            watchdog.arm(what)
            try:
                r = run(c, chip, artifacts, generator)
            except Exception as e:  # noqa: BLE001 - a refusal or a failure is a wrong case
                r = dict(chip=chip, sizes=[c["groups"], c["m"], c["n"], c["k"]],
                         layout={k: v for k, v in c.items()
                                 if k not in ("groups", "m", "n", "k")},
                         ok=False, error=f"{type(e).__name__}: {e}"[:500])
            watchdog.disarm()
            records.append(r)
            print(f"{'ok' if r['ok'] else 'FAILED'} {chip} {r['sizes']} {r['layout']} "
                  f"{r.get('kernels', '')} rel_err={r.get('rel_err')} "
                  f"{r.get('error', '')}", flush=True)
            if "error" in r:
                try:  # an illegal address poisons the context: stop there
                    torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001
                    return write(f"CUDA context lost after {what}: {e}"[:500])
    doc["seconds"] = round(time.perf_counter() - start, 1)
    return write()


if __name__ == "__main__":
    sys.exit(main())
