"""PTX edit: rematerialize SS-wgmma A descriptors defined outside the use's block.
remat.py in.ptx out.ptx [--where pre|header]"""
import re, sys, collections
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
defre = re.compile(r"^\s*(?:@%p\d+\s+)?([a-z][\w.:]*)\s+(%r[d]?\d+),\s*(.*);")
defs = collections.defaultdict(list)
for i, l in enumerate(lines):
    m = defre.match(l)
    if m: defs[m.group(2)].append(i)
SIMPLE = ("add.s32", "shr.u32", "and.b32", "cvt.u64.u32", "or.b64", "shl.b32", "add.s64", "mov.b32", "mov.u32")
def slice_of(reg):
    """instructions (line idx) computing reg from single-def roots"""
    out = []
    def rec(r):
        d = defs.get(r, [])
        if len(d) != 1:
            return  # multi-def: a root, reused as-is (checked by the caller)
        i = d[0]; m = defre.match(lines[i]); op = m.group(1)
        if op not in SIMPLE or "tile_smem" in lines[i] or "%tid" in lines[i] or "%ctaid" in lines[i]:
            return  # root: reuse as-is
        for o in re.findall(r"%r[d]?\d+", m.group(3)):
            rec(o)
        if i not in out: out.append(i)
    rec(reg)
    return sorted(out)
labels = [i for i, l in enumerate(lines) if re.match(r"^\$L__BB\d+_\d+:", l)]
def same_block(a, b):
    return not any(a < x <= b for x in labels)
uses = []
for i, l in enumerate(lines):
    if "wgmma.mma_async" in l and re.search(r"\}, %rd\d+, %rd\d+,", l):
        a = re.search(r"\}, (%rd\d+), %rd\d+,", l).group(1)
        d = defs[a]
        if len(d) == 1 and not same_block(d[0], i):
            uses.append((i, a))
print(len(uses), "uses to rematerialize", file=sys.stderr)
nr = nrd = 0
inserts = collections.defaultdict(list)
repl = {}
for i, a in uses:
    sl = slice_of(a)
    ren = {}
    new = []
    for j in sl:
        m = defre.match(lines[j]); op, dreg, rest = m.groups()
        if dreg.startswith("%rd"):
            nrd += 1; nd = f"%rdq{nrd}"
        else:
            nr += 1; nd = f"%rq{nr}"
        rest2 = re.sub(r"%r[d]?\d+", lambda mm: ren.get(mm.group(0), mm.group(0)), rest)
        ren[dreg] = nd
        new.append(f"\t{op} \t{nd}, {rest2};")
    # insert before the '{' that opens this wgmma's asm block
    k = i
    while lines[k].strip() != "{": k -= 1
    inserts[k].extend(new)
    repl[i] = (a, ren[a])
out = []
for i, l in enumerate(lines):
    if i in inserts: out.extend(inserts[i])
    if i in repl:
        a, b = repl[i]; l = l.replace(f"}}, {a},", f"}}, {b},")
    out.append(l)
    if l.strip().startswith(".reg .b64") and "%rd<" in l:
        out.append(f"\t.reg .b32 \t%rq<{nr+2}>;"); out.append(f"\t.reg .b64 \t%rdq<{nrd+2}>;")
open(dst, "w").write("\n".join(out))
