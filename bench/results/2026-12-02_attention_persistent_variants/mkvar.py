#!/usr/bin/env python3
"""Text edits of the scheduled IR (base_d{64,128}.mlir) -> var/<name>_d<D>.mlir"""
import re, sys, os
HERE = os.path.dirname(os.path.abspath(__file__))

def sub1(src, old, new, count=1):
    n = src.count(old)
    assert n == count, (old, n)
    return src.replace(old, new)

CTR = """          %xnb0 = arith.ceildivsi %SK, %c128_i32_0 : i32
          %xz = arith.constant 0 : i32
          %xo = arith.constant 1 : i32
          %xnb = arith.select %46, %xnb0, %xz : i32
          %xt = arith.addi %arg3, %xnb : i32
          %xs = arith.andi %xt, %xo : i32
          %xw = arith.shrui %xt, %xo : i32
          %xwp = arith.andi %xw, %xo : i32
          %xp = arith.xori %arg4, %xwp : i32
          scf.yield %61, %63, %xs, %xp : i32, i32, i32, i32
        } {tile.persistent_loop}"""

def ctr(src):
    """K/V ring counters of the next tile derived arithmetically (not yielded by scf.if %46)."""
    return sub1(src, """          scf.yield %61, %63, %47#3, %47#4 : i32, i32, i32, i32
        } {tile.persistent_loop}""", CTR)

def split(src):
    """Key loop split: unmasked loop [128, max(SK/128*128, 128)) then masked tail loop (as the hand-built kernel)."""
    lines = src.split("\n")
    i = next(k for k, l in enumerate(lines) if "%112:8 = scf.for %arg5 = %111 to %SK" in l)
    y = next(k for k in range(i, len(lines)) if "scf.yield %157, %125" in lines[k])
    j = y + 1
    assert lines[j].strip() == "}", lines[j]
    body = lines[i:j + 1]
    head = body[0]
    m = re.search(r"iter_args\((.*?)\) ->", head)
    a = [x.split(" = ")[0] for x in m.group(1).split(", ")]
    la = [l.replace("%121 = arith.cmpi sge, %arg5, %14 : i32", "%121 = arith.constant false") for l in body]
    la[0] = head.replace("%112:8", "%la:8").replace("to %SK", "to %xsplit")
    lb = [l.replace("%121 = arith.cmpi sge, %arg5, %14 : i32", "%121 = arith.constant true") for l in body]
    init = ", ".join(f"{n} = %la#{k}" for k, n in enumerate(a))
    lb[0] = head.replace("= %111 to", "= %xsplit to").replace(m.group(1), init)
    ind = head[:len(head) - len(head.lstrip())]
    pre = [ind + "%xsplit = arith.maxsi %14, %111 : i32"]
    lines[i:j + 1] = pre + la + lb
    return "\n".join(lines)

def oq(src):
    """O staged in Q's ring slot; Q's previous slot released at the next tile's start inside
    scf.if (tile != first) after tma_store_wait 0 + barrier (the hand-built scheme)."""
    lines = src.split("\n")
    out = []
    for l in lines:
        s = l.strip()
        ind = l[:len(l) - len(s)]
        if s.startswith("%16 = tile.local_alloc"):
            continue
        if s == "tile.mbarrier_arrive %20[%arg1] : !tile.mbarrier<2>":
            continue
        if s.startswith("%41 = arith.divsi %37, %40"):
            out += [l, ind + "%xne = arith.cmpi ne, %arg0, %pid : i32",
                    ind + "scf.if %xne {",
                    ind + "  tile.tma_store_wait 0",
                    ind + "  tile.barrier",
                    ind + "  %xc1 = arith.constant 1 : i32",
                    ind + "  %xprev = arith.subi %xc1, %arg1 : i32",
                    ind + "  tile.mbarrier_arrive %20[%xprev] : !tile.mbarrier<2>",
                    ind + "}"]
            continue
        if s.startswith("tile.local_store %54, %16["):
            l = re.sub(r"%16\[%c0_i32_\d+\]", "%18[%arg1]", l).replace("smem<1x", "smem<2x")
        if s.startswith("tile.tma_store %15"):
            l = re.sub(r"%16\[%c0_i32_\d+\]", "%18[%arg1]", l).replace("smem<1x", "smem<2x")
        out.append(l)
    src = "\n".join(out)
    # the store wait before local_store goes (the tile start waits)
    src = sub1(src, "          tile.tma_store_wait 0\n          tile.barrier\n          tile.local_store %54",
               "          tile.barrier\n          tile.local_store %54")
    return src

def _loops(lines):
    """(start, end) line indices of the key loops (scf.for with %arg9 iter arg) in the consumer."""
    out = []
    for i, l in enumerate(lines):
        if "scf.for %arg5" in l and "%arg9 = " in l and "%arg13" in l:
            ind = len(l) - len(l.lstrip())
            j = next(k for k in range(i + 1, len(lines)) if lines[k].strip() == "}" and len(lines[k]) - len(lines[k].lstrip()) == ind)
            out.append((i, j))
    return out

def one(src):
    """Key loops derive the K slot from the V slot (previous K) at the loop top, as the hand-built kernel."""
    lines = src.split("\n")
    for i, j in reversed(_loops(lines)):
        ind = lines[i + 1][:len(lines[i + 1]) - len(lines[i + 1].lstrip())]
        body = [re.sub(r"%arg9\b", "%xks", re.sub(r"%arg10\b", "%xkp", l)) for l in lines[i + 1:j]]
        top = [ind + "%xk1 = arith.constant 1 : i32", ind + "%xk2 = arith.constant 2 : i32",
               ind + "%xk0 = arith.constant 0 : i32",
               ind + "%xkn = arith.addi %arg11, %xk1 : i32", ind + "%xkc = arith.cmpi eq, %xkn, %xk2 : i32",
               ind + "%xks = arith.select %xkc, %xk0, %xkn : i32", ind + "%xke = arith.extui %xkc : i1 to i32",
               ind + "%xkp = arith.xori %arg12, %xke : i32"]
        lines[i + 1:j] = top + body
    return "\n".join(lines)

def ng(src):
    """No -inf guard on the running max in the unmasked key loop (as the hand-built main loop)."""
    lines = src.split("\n")
    for i, j in reversed(_loops(lines)):
        if not any("%121 = arith.constant false" in l for l in lines[i:j]):
            continue
        body = []
        for l in lines[i + 1:j]:
            s = l.strip()
            if s.startswith("%126 = arith.cmpf oeq") or s.startswith("%127 = arith.select %126"):
                continue
            body.append(re.sub(r"%127\b", "%125", l))
        lines[i + 1:j] = body
    return "\n".join(lines)

def hp(src, d):
    """The hand-built kernel's producer partition in place of the pass-built one."""
    hand = open(os.path.join(HERE, f"hand_d{d}.mlir")).read().split("\n")
    a = next(k for k, l in enumerate(hand) if "partition warps(4) regs(40) {" in l)
    b = next(k for k in range(a, len(hand)) if hand[k].strip() == "tile.return")
    prod = hand[a + 1:b - 1]  # region body, without its closing brace
    m = {"9": "17", "10": "18", "12": "19", "13": "20", "14": "24", "16": "25", "18": "26", "20": "27",
         "15": "28", "17": "29", "19": "30", "21": "31", "4": "4", "6": "6", "7": "7"}
    def ren(mo):
        n = mo.group(1)
        return "%" + m[n] if n in m else "%hp" + n
    consts = {"%c0_i32": "%hc0", "%c1_i32": "%hc1", "%c2_i32": "%hc2", "%c128_i32": "%hc128"}
    body = []
    for l in prod:
        l = re.sub(r"%(\d+)\b", ren, l)
        l = re.sub(r"%c(0|1|2|128)_i32\b", lambda mo: consts[mo.group(0)], l)
        body.append(l)
    ind = "        "
    body = [ind + f"{v} = arith.constant {k[2:-4]} : i32" for k, v in consts.items()] + body
    lines = src.split("\n")
    a2 = next(k for k, l in enumerate(lines) if "partition warps(4) regs(40) {" in l)
    b2 = next(k for k in range(a2, len(lines)) if lines[k].strip() == "tile.return")
    lines[a2 + 1:b2 - 1] = body
    return "\n".join(lines)

def tf(src):
    """In the key loops, P's bf16 conversion (truncf) before the PV wait, as in the hand-built kernel."""
    lines = src.split("\n")
    for i, j in reversed(_loops(lines)):
        body = lines[i + 1:j]
        t = next(k for k, l in enumerate(body) if l.strip().startswith("%156 = arith.truncf %135"))
        w = next(k for k, l in enumerate(body) if l.strip().startswith("%155 = tile.warpgroup_wait 0"))
        assert w < t
        tl = body.pop(t)
        body.insert(w, tl)
        lines[i + 1:j] = body
    return "\n".join(lines)

def ngall(src):
    """No -inf guard on the running max in either key loop (the first block keeps it)."""
    lines = src.split("\n")
    for i, j in reversed(_loops(lines)):
        body = []
        for l in lines[i + 1:j]:
            s = l.strip()
            if s.startswith("%126 = arith.cmpf oeq") or s.startswith("%127 = arith.select %126"):
                continue
            body.append(re.sub(r"%127\b", "%125", l))
        lines[i + 1:j] = body
    return "\n".join(lines)

VARS = {"ctr": [ctr], "split": [split], "ctr_split": [ctr, split], "oq": [oq], "ctr_oq": [ctr, oq], "ctr_split_oq": [ctr, split, oq], "cso_one": [ctr, split, oq, one], "cso_ng": [ctr, split, oq, ng], "cso_hp": [ctr, split, oq, "hp"], "cso_one_ng": [ctr, split, oq, one, ng], "cso_one_ng_hp": [ctr, split, oq, one, ng, "hp"], "cso_tf": [ctr, split, oq, tf], "cso_one_ng_tf": [ctr, split, oq, one, ng, tf], "cso_one_ng_tf_hp": [ctr, split, oq, one, ng, tf, "hp"], "cso_ng_hp": [ctr, split, oq, ng, "hp"], "cso_ngall": [ctr, split, oq, ngall], "cso_ngall_hp": [ctr, split, oq, ngall, "hp"]}

if __name__ == "__main__":
    for d in (64, 128):
        base = open(os.path.join(HERE, f"base_d{d}.mlir")).read()
        for name, edits in VARS.items():
            if len(sys.argv) > 1 and name not in sys.argv[1:]:
                continue
            s = base
            for e in edits:
                s = hp(s, d) if e == "hp" else e(s)
            open(os.path.join(HERE, "var", f"{name}_d{d}.mlir"), "w").write(s)
            print(name, d)
