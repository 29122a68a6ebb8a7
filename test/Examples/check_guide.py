#!/usr/bin/env python3
"""docs/writing-a-kernel.md shows examples/linear_bias_relu_bf16.mlir in
pieces: the guide's `mlir` code blocks, joined, must be the example's code
(its lines without the comments), so that the guide cannot drift from the
kernel that make test compiles.

    check_guide.py GUIDE EXAMPLE
"""

import re
import sys


def main():
    guide, example = (open(p).read() for p in sys.argv[1:3])
    blocks = re.findall(r"```mlir\n(.*?)```", guide, re.S)
    shown = [line for block in blocks for line in block.splitlines() if line.strip()]
    code = [line for line in example.splitlines()
            if line.strip() and not line.lstrip().startswith("//")]
    if shown != code:
        for i, (a, b) in enumerate(zip(shown, code)):
            if a != b:
                print(f"line {i}: guide has\n  {a}\nthe example has\n  {b}")
                break
        else:
            print(f"the guide shows {len(shown)} lines, the example has {len(code)}")
        return 1
    print(f"the guide shows all {len(code)} lines of the example")
    return 0


if __name__ == "__main__":
    sys.exit(main())
