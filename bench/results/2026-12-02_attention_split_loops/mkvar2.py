#!/usr/bin/env python3
"""Variants of the new scheduled IR (text edits), for the A/B on the H200."""
import re, sys

def ctrlate(src):
    """Move the K/V position arithmetic (after the key-loop guard) to right before the persistent yield."""
    lines = src.split("\n")
    i = next(k for k, l in enumerate(lines) if "arith.ceildivsi" in l and "= arith.subi" in lines[k-1] and "%SK, %c0_i32 " in lines[k-1] and lines[k-1].startswith("          %"))
    blk = lines[i-1:i+10]
    assert "arith.xori" in blk[-1], blk
    del lines[i-1:i+10]
    y = next(k for k, l in enumerate(lines) if "} {tile.persistent_loop}" in l) - 1
    assert "scf.yield" in lines[y]
    lines[y:y] = blk
    return "\n".join(lines)

def noguardif(src):
    """The empty-row guard of the prologue block unconditional (not in an scf.if on the mask edge)."""
    out = re.sub(r"(\s*)(%\d+) = scf.if (%\d+) -> \(tensor<128xf32, #slice>\) \{\n\s*(%\d+) = arith.cmpf oeq, (%\d+), (%cst_\d+) : tensor<128xf32, #slice>\n\s*(%\d+) = arith.select (%\d+), (%cst_\d+), (%\d+) : tensor<128xi1, #slice>, tensor<128xf32, #slice>\n\s*scf.yield %\d+ : tensor<128xf32, #slice>\n\s*\} else \{\n\s*scf.yield %\d+ : tensor<128xf32, #slice>\n\s*\}",
                 lambda m: f"{m.group(1)}%xg{m.group(2)[1:]} = arith.cmpf oeq, {m.group(5)}, {m.group(6)} : tensor<128xf32, #slice>{m.group(1)}{m.group(2)} = arith.select %xg{m.group(2)[1:]}, {m.group(9)}, {m.group(10)} : tensor<128xi1, #slice>, tensor<128xf32, #slice>", src)
    assert out != src
    return out

EDITS = {"ctrlate": ctrlate, "noguardif": noguardif}
if __name__ == "__main__":
    src = open(sys.argv[1]).read()
    for e in sys.argv[3:]:
        src = EDITS[e](src)
    open(sys.argv[2], "w").write(src)
