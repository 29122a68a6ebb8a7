#!/usr/bin/env python3
"""Writes the math-op kernels that test and measure tilec's math library.

One kernel per math op, dtype and precision: out[i] = op(x[i] (, y[i])), on
1024-element tiles, the same signature for every op

    (%x: !tile.ptr<T>, %y: !tile.ptr<T>, %out: !tile.ptr<R>, %n: i32)

so that one launcher runs them all. `fast` kernels carry fastmath<afn> on
the op (approximate instructions allowed); the others are IEEE (libdevice).
Integer ops run on i32. `sincos` writes sin to out and cos to y.

    gen_math_ops.py INPUTS_DIR [TESTS_DIR]
        # INPUTS_DIR/math_ops_{f32,f16,bf16,i32}.mlir, and the lit tests
        # TESTS_DIR/math-ops-{f32,f16,bf16,i32}.test that compile them

The kernels are checked in under test/Target/Inputs/ and the tests beside
them in test/Target/ (each compiles one file for sm_80, sm_89 and sm_90a to
cubin, so ptxas accepts every kernel, and checks per kernel that libdevice
was linked and inlined (no call left) and which instruction the IEEE and
the fast form use); bench/math_accuracy.py measures each kernel's error on
the GPU. Regenerate both with this script after adding an op.
"""

import os
import sys

#: Unary float functions (math.<op>), their Python/torch name is the key.
UNARY = ["absf", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil",
         "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "floor", "log", "log10",
         "log1p", "log2", "round", "roundeven", "rsqrt", "sin", "sinh", "sqrt", "tan",
         "tanh", "trunc"]
#: Binary float functions.
BINARY = ["atan2", "copysign", "powf"]
#: Ops whose `afn` form differs from the IEEE one (also a `fast` kernel).
FAST = ["exp", "exp2", "log", "log2", "tanh", "sin", "cos", "rsqrt", "erf", "powf", "tan",
        "sqrt", "divf"]
#: Classification ops: out = op(x) ? 1 : 0.
CLASSIFY = ["isnan", "isinf", "isfinite", "isnormal"]
#: Integer ops on i32.
INT_UNARY = ["absi", "ctlz", "cttz", "ctpop"]

N = 1024


def header(name, t, r):
    return (f"tile.kernel @{name}(%x: !tile.ptr<{t}> {{tile.align = 16 : i64}},\n"
            f"    %y: !tile.ptr<{t}> {{tile.align = 16 : i64}},\n"
            f"    %out: !tile.ptr<{r}> {{tile.align = 16 : i64}}, %n: i32)\n"
            f"    grid(ceildiv(%n, {N})) warps(4) {{\n"
            f"  %c{N} = arith.constant {N} : i32\n"
            f"  %pid = tile.program_id x\n"
            f"  %o = arith.muli %pid, %c{N} : i32\n"
            f"  %vx = tile.make_view %x[%n] strides [1] : !tile.ptr<{t}>\n"
            f"  %vy = tile.make_view %y[%n] strides [1] : !tile.ptr<{t}>\n"
            f"  %vo = tile.make_view %out[%n] strides [1] : !tile.ptr<{r}>\n"
            f"  %tx = tile.load %vx[%o] : !tile.view<?x{t}, strides = [1]> -> tensor<{N}x{t}>\n"
            f"  %ty = tile.load %vy[%o] : !tile.view<?x{t}, strides = [1]> -> tensor<{N}x{t}>\n")


def footer(r, value="%r"):
    return (f"  tile.store {value}, %vo[%o] : tensor<{N}x{r}>, !tile.view<?x{r}, strides = [1]>\n"
            f"  tile.return\n}}\n\n")


def kernel(op, t, fast=False):
    """The kernel text of float op `op` on dtype `t`."""
    name = f"math_{op}_{t}" + ("_fast" if fast else "")
    flags = " fastmath<afn>" if fast else ""
    tt = f"tensor<{N}x{t}>"
    body = header(name, t, t)
    if op in UNARY:
        body += f"  %r = math.{op} %tx{flags} : {tt}\n"
    elif op in BINARY:
        body += f"  %r = math.{op} %tx, %ty{flags} : {tt}\n"
    elif op == "divf":
        body += f"  %r = arith.divf %tx, %ty{flags} : {tt}\n"
    elif op == "fma":
        body += f"  %r = math.fma %tx, %ty, %tx{flags} : {tt}\n"
    elif op == "clampf":
        body += f"  %r = math.clampf %tx to [%ty, %ty]{flags} : {tt}\n"
    elif op == "fpowi":
        body += (f"  %e = arith.fptosi %ty : {tt} to tensor<{N}xi32>\n"
                 f"  %r = math.fpowi %tx, %e : {tt}, tensor<{N}xi32>\n")
    elif op == "sincos":
        body += (f"  %r, %c = math.sincos %tx{flags} : {tt}\n"
                 f"  tile.store %c, %vy[%o] : {tt}, !tile.view<?x{t}, strides = [1]>\n")
    elif op in CLASSIFY:
        body += (f"  %b = math.{op} %tx : {tt}\n"
                 f"  %one = arith.constant dense<1.0> : {tt}\n"
                 f"  %zero = arith.constant dense<0.0> : {tt}\n"
                 f"  %r = arith.select %b, %one, %zero : tensor<{N}xi1>, {tt}\n")
    else:
        raise ValueError(op)
    return body + footer(t)


def int_kernel(op):
    tt = f"tensor<{N}xi32>"
    body = header(f"math_{op}_i32", "i32", "i32")
    if op == "ipowi":
        body += f"  %r = math.ipowi %tx, %ty : {tt}\n"
    else:
        body += f"  %r = math.{op} %tx : {tt}\n"
    return body + footer("i32")


def float_ops():
    return UNARY + BINARY + ["divf", "fma", "clampf", "fpowi", "sincos"] + CLASSIFY


#: What a kernel's PTX must (CHECK) and must not (NOT) hold, by op and
#: precision; every kernel also has no call (libdevice inlined).
EXPECT = {
    ("divf", False): ("div.rn.f32", None), ("divf", True): ("div.full.f32", None),
    ("sqrt", False): ("sqrt.rn.f32", None), ("sqrt", True): ("sqrt.approx.f32", None),
    ("rsqrt", True): ("rsqrt.approx.f32", None),
    ("tanh", False): (None, "tanh.approx"), ("tanh", True): ("tanh.approx.f32", None),
    ("exp", True): ("ex2.approx.ftz.f32", None), ("exp2", True): ("ex2.approx.ftz.f32", None),
    ("log", False): (None, "lg2.approx"), ("log", True): ("lg2.approx.f32", None),
    ("log2", True): ("lg2.approx.f32", None),
    ("sin", False): (None, "sin.approx"), ("sin", True): ("sin.approx.f32", None),
    ("cos", False): (None, "cos.approx"), ("cos", True): ("cos.approx.f32", None),
    ("absi", False): ("abs.s32", None), ("ctlz", False): ("clz.b32", None),
    ("ctpop", False): ("popc.b32", None),
}


def test_text(t, names):
    """The lit test of math_ops_<t>.mlir; `names` are (kernel, op, fast)."""
    lines = [f"// Every math op on {t} tiles compiles for three chips (ptxas accepts each",
             "// kernel); libdevice is linked and inlined (no call is left); the IEEE",
             "// and the fast (afn) forms use the instructions docs/math.md lists.",
             "// Generated by scripts/dev/gen_math_ops.py.", ""]
    for chip, tag in [("sm_80", "sm80"), ("sm_89", "sm89"), ("sm_90a", "sm90a")]:
        lines.append(f"// RUN: tilec %S/Inputs/math_ops_{t}.mlir --chip={chip} --emit=cubin -o %t.{tag}")
        lines.append(f"// RUN: ls %t.{tag} | grep -c 'cubin$' | grep -qx {len(names)}")
        lines.append(f"// RUN: cd %t.{tag} && LC_ALL=C ls | grep 'ptx$' | xargs cat | FileCheck %s")
    lines.append("")
    for name, op, fast in sorted(names):
        want, reject = EXPECT.get((op, fast), (None, None))
        lines.append(f"// CHECK-LABEL: .entry {name}(")
        lines.append("// CHECK-NOT: " + ("{{call|" + reject + "}}" if reject else "call"))
        if want:
            lines.append(f"// CHECK: {want}")
        lines.append("// CHECK: st.global")
    return "\n".join(lines) + "\n"


def main(out_dir, tests_dir=None):
    os.makedirs(out_dir, exist_ok=True)
    note = ("// Generated by scripts/dev/gen_math_ops.py (one kernel per math op); "
            "edit the generator, not this file.\n\n")
    tests = {}
    for t in ["f32", "f16", "bf16"]:
        text = note
        names = []
        for op in float_ops():
            text += kernel(op, t)
            names.append((f"math_{op}_{t}", op, False))
            if op in FAST:
                text += kernel(op, t, fast=True)
                names.append((f"math_{op}_{t}_fast", op, True))
        with open(os.path.join(out_dir, f"math_ops_{t}.mlir"), "w") as f:
            f.write(text)
        tests[t] = names
    ints = INT_UNARY + ["ipowi"]
    text = note + "".join(int_kernel(op) for op in ints)
    with open(os.path.join(out_dir, "math_ops_i32.mlir"), "w") as f:
        f.write(text)
    tests["i32"] = [(f"math_{op}_i32", op, False) for op in ints]
    if tests_dir:
        for t, names in tests.items():
            with open(os.path.join(tests_dir, f"math-ops-{t}.test"), "w") as f:
                f.write(test_text(t, names))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".", sys.argv[2] if len(sys.argv) > 2 else None)
