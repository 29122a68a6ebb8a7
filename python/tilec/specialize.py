"""Specialization of tile programs on the arguments they will run with.

A block program's loads take the fast path (TMA on sm_90a, 16-byte cp.async
on sm_80) only where the compiler knows the data allows it: pointers aligned
to 16 bytes (``tile.align``) and strides that are multiples of 8 elements
(``tile.divisibility``). A user who writes no hints gets them here, from the
actual tensors and integers, as Triton specializes on divisibility by 16:

    hints = tilec.specialization(A=a, B=b, C=c, lda=a.stride(0), ...)
    tilec.compile(source, specialize=hints)        # or specialize=dict(A=a, ...)

Each hint is recorded in the kernel's ``<kernel>.json`` (``align`` and
``divisibility`` of its parameters) and checked by :mod:`tilec.runtime` at
every launch: a call whose arguments break an assumption raises
``LaunchError`` instead of running a kernel compiled for other data. Each
distinct specialization is its own compilation (and cache entry).

Hints a program already writes are kept; a specialization only adds to
parameters that have none.
"""

import re

#: The largest alignment (bytes) and divisibility recorded: what TMA and
#: 16-byte copies need; larger powers of two would only multiply variants.
MAX_ALIGN = 16
MAX_DIVISIBILITY = 16


def _power_of_two_dividing(v, cap):
    v = abs(int(v))
    if v == 0:
        return cap
    d = 1
    while d < cap and v % (2 * d) == 0:
        d *= 2
    return d


def _data_ptr(value):
    """The device address of a tensor-like value (torch, CuPy, or anything
    with ``data_ptr()``), or None."""
    ptr = getattr(value, "data_ptr", None)
    if callable(ptr):
        return int(ptr())
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        return int(cai["data"][0])
    return None


def hint_for(value):
    """The hint a value allows: ``("tile.align", n)`` for a tensor (its
    address's alignment in bytes, up to 16), ``("tile.divisibility", n)`` for
    an integer (up to 16), or None (bool, float, or nothing to gain)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        d = _power_of_two_dividing(value, MAX_DIVISIBILITY)
        return ("tile.divisibility", d) if d > 1 else None
    ptr = _data_ptr(value)
    if ptr is not None:
        a = _power_of_two_dividing(ptr, MAX_ALIGN)
        return ("tile.align", a) if a > 1 else None
    return None


def specialization(**values):
    """``{name: (attribute, value)}`` for the named kernel arguments (see
    :func:`hint_for`); pass it to ``tilec.compile(..., specialize=...)``."""
    hints = {}
    for name, value in values.items():
        h = hint_for(value)
        if h is not None:
            hints[name] = h
    return hints


def _split_top_level(text):
    """Splits a parameter list at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "(<{[":
            depth += 1
        elif ch in ")>}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _matching_paren(text, open_at):
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced parentheses in a tile.kernel signature")


_PARAM = re.compile(r"^(\s*%([\w$.-]+)\s*:\s*)(.*?)\s*$", re.S)


def _specialize_param(param, hints, applied):
    m = _PARAM.match(param)
    if not m:
        return param
    name, rest = m.group(2), m.group(3)
    if name not in hints:
        return param
    attr, value = hints[name]
    is_pointer = rest.startswith("!tile.ptr")
    if (attr == "tile.align") != is_pointer:
        raise ValueError(f"specialize: '{name}' is {'a pointer' if is_pointer else 'not a pointer'}"
                         f" parameter, but its value gives {attr}")
    entry = f"{attr} = {int(value)} : i64"
    brace = rest.find("{")
    if brace < 0:
        new_rest = f"{rest} {{{entry}}}"
    else:
        attrs = rest[brace + 1:rest.rindex("}")]
        if attr in attrs:
            applied.add(name)  # the program's own hint wins
            return param
        new_rest = f"{rest[:brace]}{{{attrs.strip()}, {entry}}}" if attrs.strip() \
            else f"{rest[:brace]}{{{entry}}}"
    applied.add(name)
    trailing = param[len(param.rstrip()):]
    return m.group(1) + new_rest + trailing


def specialize_source(text, hints, kernels=None):
    """Adds ``hints`` (from :func:`specialization`, or ``{name: value}`` to
    derive them) to the parameters of that name of every ``tile.kernel`` of
    ``text`` (or of the kernels named in ``kernels``). Raises ValueError for
    a name no kernel has, or a hint of the wrong kind for its parameter."""
    hints = {n: (h if isinstance(h, tuple) else hint_for(h)) for n, h in hints.items()}
    hints = {n: h for n, h in hints.items() if h is not None}
    if not hints:
        return text
    out, pos, applied, seen = [], 0, set(), set()
    for m in re.finditer(r"tile\.kernel\s+@([\w$.-]+)\s*\(", text):
        name = m.group(1)
        open_at = m.end() - 1
        close = _matching_paren(text, open_at)
        if kernels is not None and name not in kernels:
            continue
        params = _split_top_level(text[open_at + 1:close])
        for p in params:
            pm = _PARAM.match(p)
            if pm:
                seen.add(pm.group(2))
        new = ",".join(_specialize_param(p, hints, applied) for p in params)
        out.append(text[pos:open_at + 1])
        out.append(new)
        pos = close
    out.append(text[pos:])
    unknown = set(hints) - seen
    if unknown:
        raise ValueError(f"specialize: no kernel parameter named {', '.join(sorted(unknown))}")
    return "".join(out)
